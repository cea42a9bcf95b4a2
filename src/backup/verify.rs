//! Verifying a backup: every file the manifest names is there, with its size
//! and SHA-256, passes `PRAGMA integrity_check` and is at the schema version
//! the manifest says. Nothing is restored from a backup that fails this.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};
use uuid::Uuid;

use super::manifest::{size_and_sha256, FileKind, Manifest, ManifestFile};
use super::Progress;

/// Checks the backup in `backup`; returns its manifest, or every problem found.
pub fn verify(backup: &Path, progress: &Progress) -> Result<Manifest, String> {
    let manifest = Manifest::read(backup)?;
    if manifest.files.is_empty() {
        return Err(format!("{} lists no files", backup.display()));
    }
    progress.begin("verify", manifest.files.len());
    let mut problems = Vec::new();
    for file in &manifest.files {
        let bar = progress.file(&file.path);
        if let Err(problem) = verify_file(backup, file) {
            problems.push(format!("{}: {problem}", file.path));
        }
        progress.file_done(bar);
    }
    progress.finish();
    if problems.is_empty() {
        Ok(manifest)
    } else {
        Err(format!(
            "the backup {} is damaged: {}",
            backup.display(),
            problems.join("; ")
        ))
    }
}

fn verify_file(backup: &Path, file: &ManifestFile) -> Result<(), String> {
    check_path(file)?;
    let path = backup.join(&file.path);
    let (size, sha256) = size_and_sha256(&path)?;
    if size != file.size {
        return Err(format!("{size} bytes, but the manifest says {}", file.size));
    }
    if sha256 != file.sha256 {
        return Err("its SHA-256 differs from the manifest's".into());
    }
    let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| format!("cannot open: {e}"))?;
    let integrity: Vec<String> = conn
        .prepare("PRAGMA integrity_check")
        .and_then(|mut stmt| {
            stmt.query_map([], |r| r.get::<_, String>(0))?
                .collect::<Result<_, _>>()
        })
        .map_err(|e| format!("integrity check failed: {e}"))?;
    if integrity != ["ok"] {
        return Err(format!("integrity check: {}", integrity.join(", ")));
    }
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| e.to_string())?;
    if version != i64::from(file.schema_version) {
        return Err(format!(
            "schema version {version}, but the manifest says {}",
            file.schema_version
        ));
    }
    Ok(())
}

/// A manifest names only the data dir's own files, so a restore never writes
/// anywhere else.
fn check_path(file: &ManifestFile) -> Result<(), String> {
    let expected = match (file.kind, file.tenant_id) {
        (FileKind::Registry, None) => "registry.db".to_string(),
        (FileKind::Tenant, Some(id)) => tenant_path(id),
        _ => return Err("the manifest entry's kind and tenant do not match".into()),
    };
    if file.path == expected {
        Ok(())
    } else {
        Err(format!("unexpected path; it should be {expected}"))
    }
}

pub fn tenant_path(id: Uuid) -> String {
    format!("tenants/{id}.db")
}
