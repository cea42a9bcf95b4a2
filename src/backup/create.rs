//! Taking a backup: a consistent copy of the registry and every tenant file (or
//! of one tenant's file), while the server keeps serving, into
//! `<root>/<timestamp>/` with the data dir's layout and a manifest.
//!
//! The copy is made in `<root>/<timestamp>.partial/` and renamed once its
//! manifest is written, so a folder with a backup's name is always complete.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::folders::folder_name;
use super::manifest::{size_and_sha256, FileKind, Manifest, ManifestFile};
use super::verify::tenant_path;
use super::Progress;
use crate::db::{copy_database, open_existing, sync_dir, Databases, TenantInfo};

/// Backs up the registry and every tenant, or only `tenant`'s file, into a new
/// folder under `root`; returns the folder and its manifest.
pub fn take(
    dbs: &Databases,
    root: &Path,
    tenant: Option<&TenantInfo>,
    now: DateTime<Utc>,
    progress: &Progress,
) -> Result<(PathBuf, Manifest), String> {
    let name = folder_name(now);
    let folder = root.join(&name);
    if folder.exists() {
        return Err(format!("{} already exists", folder.display()));
    }
    let partial = root.join(format!("{name}.partial"));
    std::fs::create_dir_all(partial.join("tenants"))
        .map_err(|e| format!("cannot create {}: {e}", partial.display()))?;
    let written = copy_all(dbs, &partial, tenant, now, progress);
    progress.finish();
    let manifest = match written {
        Ok(manifest) => manifest,
        Err(err) => {
            // An incomplete copy is of no use to anyone; the error says what failed.
            let _ = std::fs::remove_dir_all(&partial);
            return Err(err);
        }
    };
    std::fs::rename(&partial, &folder)
        .map_err(|e| format!("cannot name the backup {}: {e}", folder.display()))?;
    sync_dir(root)?;
    Ok((folder, manifest))
}

fn copy_all(
    dbs: &Databases,
    into: &Path,
    tenant: Option<&TenantInfo>,
    now: DateTime<Utc>,
    progress: &Progress,
) -> Result<Manifest, String> {
    let tenants = match tenant {
        Some(one) => vec![one.clone()],
        None => dbs.tenants(),
    };
    let mut sources: Vec<(String, FileKind, Option<TenantInfo>)> = Vec::new();
    if tenant.is_none() {
        sources.push(("registry.db".into(), FileKind::Registry, None));
    }
    for info in tenants {
        sources.push((tenant_path(info.id), FileKind::Tenant, Some(info)));
    }
    progress.begin("backup", sources.len());
    let mut files = Vec::with_capacity(sources.len());
    for (path, kind, info) in sources {
        let bar = progress.file(&path);
        let source = open_existing(&dbs.data_dir().join(&path))?;
        let dest = into.join(&path);
        let schema_version = copy_database(&source, &dest, &mut |done, total| {
            bar.set_length(total);
            bar.set_position(done);
        })
        .map_err(|e| format!("{path}: {e}"))?;
        let (size, sha256) = size_and_sha256(&dest)?;
        progress.file_done(bar);
        files.push(ManifestFile {
            path,
            kind,
            tenant_id: info.as_ref().map(|t| t.id),
            tenant_slug: info.map(|t| t.slug),
            size,
            sha256,
            schema_version,
        });
    }
    sync_dir(&into.join("tenants"))?;
    let manifest = Manifest::new(crate::time::rfc3339(now), files);
    manifest.write(into)?;
    Ok(manifest)
}
