//! The owner's operations on the business's data: the server's backups that
//! hold it (`GET /admin/backups`) and restoring it from one while the server
//! keeps serving (`POST /admin/restore`).

use std::path::PathBuf;
use std::sync::Arc;

use rocket::{get, post};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::body::JsonBody;
use crate::api::reply::Reply;
use crate::auth::{perm, Can};
use crate::backup::{folders, restore_tenant_live};
use crate::db::run_blocking;
use crate::error::{ApiError, Problem};
use crate::App;

super::group![list_backups, restore_backup,];

/// One backup of the server's backup dir that holds this business.
#[derive(Serialize, ToSchema)]
pub struct BackupEntry {
    /// The backup's folder name; what `POST /admin/restore` takes.
    pub name: String,
    pub created_at: String,
    /// The schema version of this business's file in it.
    pub schema_version: u32,
    /// Bytes of this business's file in it.
    pub size: u64,
}

#[derive(Serialize, ToSchema)]
pub struct BackupList {
    /// Newest first.
    pub data: Vec<BackupEntry>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RestoreRequest {
    /// The name of a backup, as listed by `GET /admin/backups`.
    #[schema(
        min_length = 20,
        max_length = 20,
        pattern = r"^[0-9]{8}T[0-9]{6}\.[0-9]{3}Z$"
    )]
    pub backup: String,
}

/// The server's backup dir, which the API restores from.
fn backup_dir(app: &App) -> Result<PathBuf, ApiError> {
    app.config.backup_dir.clone().ok_or_else(|| {
        ApiError::conflict(
            "backups_not_configured",
            "this server keeps no backups: start it with --backup-dir",
        )
    })
}

/// The server's backups that hold this business, newest first.
///
/// Roles: owner.
/// Lists the backup folders of the server's `--backup-dir` that hold a copy of this
/// business's file, with its schema version and size. Changes nothing.
#[utoipa::path(tag = "Admin", responses((status = 200, body = BackupList),
    (status = 403, body = Problem),
    (status = 409, body = Problem, description = "The server keeps no backups. Codes: `backups_not_configured`")))]
#[get("/admin/backups")]
async fn list_backups(caller: Can<perm::BackupsManage>) -> Result<Reply, ApiError> {
    let root = backup_dir(&caller.app)?;
    let tenant_id = caller.tenant_id();
    let data = run_blocking(move || {
        Ok(folders::list(&root)
            .into_iter()
            .filter_map(|(name, manifest)| {
                let file = manifest.tenant(tenant_id)?;
                Some(BackupEntry {
                    name,
                    created_at: manifest.created_at.clone(),
                    schema_version: file.schema_version,
                    size: file.size,
                })
            })
            .collect())
    })
    .await?;
    Reply::ok(BackupList { data })
}

/// Restore this business from one of the server's backups while the server
/// runs: the backup is verified, the business's requests get 503
/// `tenant_restoring` for the moment of the swap, other businesses are
/// untouched. Everything recorded since the backup is replaced.
///
/// Roles: owner.
/// Pending webhook deliveries of the restored file resume; nothing is emitted for
/// the restore itself.
#[utoipa::path(tag = "Admin", request_body = RestoreRequest, responses(
    (status = 200, body = BackupEntry), (status = 403, body = Problem), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "No backups kept, a backup from a newer Brigade, or a restore already running. Codes: `backups_not_configured`, `backup_from_newer_version`, `restore_in_progress`"),
    (status = 422, body = Problem, description = "Codes: `validation_failed`, `backup_damaged`, `backup_lacks_tenant`"),
    (status = 503, body = Problem, description = "Work on the business did not stop in time; nothing was restored. Codes: `tenant_busy`, `tenant_restoring`")))]
#[post("/admin/restore", data = "<body>")]
async fn restore_backup(
    caller: Can<perm::BackupsManage>,
    body: JsonBody<RestoreRequest>,
) -> Result<Reply, ApiError> {
    let (app, tenant_id): (Arc<App>, _) = (caller.app.clone(), caller.tenant_id());
    // The caller holds the tenant open; the swap waits for every holder to let go.
    drop(caller);
    let root = backup_dir(&app)?;
    let name = body.value.backup;
    if folders::started_at(&name).is_none() {
        return Err(ApiError::invalid_field(
            "backup",
            "not a backup's name; see GET /admin/backups",
        ));
    }
    let folder = root.join(&name);
    if !folder.is_dir() {
        return Err(ApiError::not_found("backup"));
    }
    let (manifest, file) =
        run_blocking(move || restore_tenant_live(&app, tenant_id, &folder)).await?;
    Reply::ok(BackupEntry {
        name,
        created_at: manifest.created_at,
        schema_version: file.schema_version,
        size: file.size,
    })
}
