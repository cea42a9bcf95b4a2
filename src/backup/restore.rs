//! Restoring from a verified backup.
//!
//! - With the server stopped, [`restore_stopped`] replaces the data dir's files
//!   (all of the backup's, or one tenant's). It takes the data dir's lock first,
//!   so it refuses while a server runs there, and no server starts meanwhile.
//! - With the server running, [`restore_tenant_live`] replaces one tenant's
//!   file: the file is staged beside the live one, the tenant is closed (its
//!   requests get a 503 meanwhile), swapped and reopened; other tenants are
//!   untouched. Deliveries pending in the restored file are picked up again.
//!
//! Each file is placed by copying it beside its destination, syncing it,
//! removing the old file's `-wal` and `-shm` and renaming it into place, so a
//! power cut leaves either the old file or the new one.

use std::path::{Path, PathBuf};

use rocket::http::Status;
use uuid::Uuid;

use super::manifest::{FileKind, Manifest, ManifestFile};
use super::{verify, Progress};
use crate::db::migrations::{latest_version, Schema};
use crate::db::{sync_dir, sync_file, DataDirLock};
use crate::error::ApiError;
use crate::App;

/// Refuses a file written by a newer Brigade than this one.
fn check_schema(file: &ManifestFile) -> Result<(), String> {
    let schema = match file.kind {
        FileKind::Registry => Schema::Registry,
        FileKind::Tenant => Schema::Tenant,
    };
    let latest = latest_version(schema);
    if file.schema_version as usize > latest {
        return Err(format!(
            "{} is at schema version {}, but this Brigade knows only up to {latest}; \
             restore it with the newer Brigade that wrote it",
            file.path, file.schema_version
        ));
    }
    Ok(())
}

/// Restores into the data dir of a stopped server: every file of the backup, or
/// only the tenant `tenant` (slug or id). Returns the files restored.
pub fn restore_stopped(
    data_dir: &Path,
    backup: &Path,
    tenant: Option<&str>,
    progress: &Progress,
) -> Result<Vec<ManifestFile>, String> {
    let _lock = DataDirLock::acquire(data_dir).map_err(|e| {
        format!("{e}; stop the server first, or restore one tenant live through the admin API")
    })?;
    let manifest = verify(backup, progress)?;
    let files: Vec<ManifestFile> = match tenant {
        Some(wanted) => vec![find_tenant(&manifest, wanted)?.clone()],
        None => manifest.files.clone(),
    };
    for file in &files {
        check_schema(file)?;
    }
    if !files.iter().any(|f| f.kind == FileKind::Registry) {
        check_registry_knows(data_dir, &files)?;
    }
    std::fs::create_dir_all(data_dir.join("tenants"))
        .map_err(|e| format!("cannot create {}: {e}", data_dir.display()))?;
    for file in &files {
        let dest = data_dir.join(&file.path);
        let staged = stage(&backup.join(&file.path), &dest)?;
        swap_into_place(&staged, &dest)?;
    }
    Ok(files)
}

fn find_tenant<'m>(manifest: &'m Manifest, wanted: &str) -> Result<&'m ManifestFile, String> {
    manifest
        .files
        .iter()
        .find(|f| {
            f.kind == FileKind::Tenant
                && (f.tenant_slug.as_deref() == Some(wanted)
                    || f.tenant_id.map(|id| id.to_string()).as_deref() == Some(wanted))
        })
        .ok_or_else(|| format!("the backup holds no tenant {wanted:?}"))
}

/// Tenant files restored without the registry must belong to tenants the data
/// dir's registry knows, or nobody could reach them.
fn check_registry_knows(data_dir: &Path, files: &[ManifestFile]) -> Result<(), String> {
    let registry = data_dir.join("registry.db");
    let conn = rusqlite::Connection::open_with_flags(
        &registry,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .map_err(|e| {
        format!(
            "{} cannot be read ({e}); restore a backup that holds the registry",
            registry.display()
        )
    })?;
    for file in files {
        let id = file.tenant_id.map(|id| id.to_string()).unwrap_or_default();
        let known: i64 = conn
            .query_row("SELECT count(*) FROM tenants WHERE id = ?1", [&id], |r| {
                r.get(0)
            })
            .map_err(|e| format!("cannot read the registry: {e}"))?;
        if known == 0 {
            return Err(format!(
                "the data dir has no tenant {id}; restore a backup that holds the registry"
            ));
        }
    }
    Ok(())
}

/// Copies `source` beside `dest` and syncs it; returns the staged file.
fn stage(source: &Path, dest: &Path) -> Result<PathBuf, String> {
    let staged = with_suffix(dest, ".restoring");
    std::fs::copy(source, &staged).map_err(|e| {
        format!(
            "cannot copy {} to {}: {e}",
            source.display(),
            staged.display()
        )
    })?;
    sync_file(&staged)?;
    Ok(staged)
}

/// Replaces `dest` by `staged`: the old file's WAL and shared memory go first
/// (they belong to the old file; left beside the new one they would be applied
/// to it), then the rename, then the directory is synced. Nothing may have
/// `dest` open.
pub(crate) fn swap_into_place(staged: &Path, dest: &Path) -> Result<(), String> {
    for stale in [with_suffix(dest, "-wal"), with_suffix(dest, "-shm")] {
        match std::fs::remove_file(&stale) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot remove {}: {e}", stale.display())),
        }
    }
    std::fs::rename(staged, dest).map_err(|e| format!("cannot replace {}: {e}", dest.display()))?;
    sync_dir(dest.parent().unwrap_or(Path::new(".")))
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Restores one tenant from the backup in `backup` while the server runs;
/// returns the backup's manifest and the tenant's file in it.
pub fn restore_tenant_live(
    app: &App,
    tenant_id: Uuid,
    backup: &Path,
) -> Result<(Manifest, ManifestFile), ApiError> {
    let manifest = verify(backup, &Progress::hidden())
        .map_err(|e| ApiError::new(Status::UnprocessableEntity, "backup_damaged", e))?;
    let file = manifest.tenant(tenant_id).cloned().ok_or_else(|| {
        ApiError::new(
            Status::UnprocessableEntity,
            "backup_lacks_tenant",
            "the backup holds no copy of this tenant",
        )
    })?;
    check_schema(&file).map_err(|e| ApiError::conflict("backup_from_newer_version", e))?;
    let dest = app.db.tenant_path(tenant_id);
    // Staged while the tenant still serves, so it is closed only for the swap.
    let staged = stage(&backup.join(&file.path), &dest).map_err(ApiError::internal)?;
    let swapped = app
        .db
        .replace_tenant_file(tenant_id, |path| swap_into_place(&staged, path));
    if swapped.is_err() {
        let _ = std::fs::remove_file(&staged);
    }
    swapped?;
    // The restored file has its own pending deliveries and deadlines.
    app.db.events().wake(tenant_id);
    app.scheduler.forget(tenant_id);
    Ok((manifest, file))
}
