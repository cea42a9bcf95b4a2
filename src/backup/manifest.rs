//! `manifest.json`: what a backup holds. Written last, so a backup without one
//! is incomplete; each file is named by its path inside the backup (the data
//! dir's own layout), with its size, SHA-256, schema version and, for a tenant
//! file, the tenant it belongs to.

use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

pub const MANIFEST: &str = "manifest.json";
/// The manifest layout this Brigade writes and reads.
const FORMAT: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub format: u32,
    /// When the backup was started (RFC 3339 UTC).
    pub created_at: String,
    /// The Brigade version that wrote it.
    pub brigade_version: String,
    pub files: Vec<ManifestFile>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    Registry,
    Tenant,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    /// Relative to the backup folder: `registry.db` or `tenants/<id>.db`.
    pub path: String,
    pub kind: FileKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_id: Option<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_slug: Option<String>,
    pub size: u64,
    /// Lowercase hex.
    pub sha256: String,
    pub schema_version: u32,
}

impl Manifest {
    pub fn new(created_at: String, files: Vec<ManifestFile>) -> Manifest {
        Manifest {
            format: FORMAT,
            created_at,
            brigade_version: env!("CARGO_PKG_VERSION").to_string(),
            files,
        }
    }

    /// Reads `<backup>/manifest.json`.
    pub fn read(backup: &Path) -> Result<Manifest, String> {
        let path = backup.join(MANIFEST);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "{} has no readable {MANIFEST} ({e}): not a complete backup",
                backup.display()
            )
        })?;
        let manifest: Manifest = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not a valid manifest: {e}", path.display()))?;
        if manifest.format != FORMAT {
            return Err(format!(
                "{} is in format {}, but this Brigade reads format {FORMAT}",
                path.display(),
                manifest.format
            ));
        }
        Ok(manifest)
    }

    /// Writes `<backup>/manifest.json` beside-then-rename, so it appears whole or not at all.
    pub fn write(&self, backup: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        let partial = backup.join(format!("{MANIFEST}.partial"));
        std::fs::write(&partial, text)
            .map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
        crate::db::sync_file(&partial)?;
        std::fs::rename(&partial, backup.join(MANIFEST))
            .map_err(|e| format!("cannot write the manifest: {e}"))?;
        crate::db::sync_dir(backup)
    }

    /// The file of one tenant, if the backup holds it.
    pub fn tenant(&self, id: Uuid) -> Option<&ManifestFile> {
        self.files.iter().find(|f| f.tenant_id == Some(id))
    }

    pub fn registry(&self) -> Option<&ManifestFile> {
        self.files.iter().find(|f| f.kind == FileKind::Registry)
    }
}

/// Size and SHA-256 (lowercase hex) of a file.
pub fn size_and_sha256(path: &Path) -> Result<(u64, String), String> {
    let mut file =
        std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let read = file
            .read(&mut buffer)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if read == 0 {
            break;
        }
        size += read as u64;
        hasher.update(&buffer[..read]);
    }
    Ok((size, hex::encode(hasher.finalize())))
}
