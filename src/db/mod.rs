//! SQLite plumbing: the registry file, one file per tenant, their pools and PRAGMAs,
//! and the helpers that run database work off the async workers.
//!
//! Each tenant gets one writer connection (SQLite has one write lock; competing
//! writers only spin) and a few readers, opened lazily and closed when idle, so a box
//! with hundreds of tenants holds connections only for the ones in use.
//!
//! Commits never checkpoint the WAL themselves: a checkpoint writes pages back and
//! fsyncs, which would hold up every write queued behind it. A thread of its own
//! checkpoints the tenants that committed since it last looked instead.
//!
//! - `databases`: the data dir's registry, its tenant list and the open tenants.
//! - `tenant`: one tenant's database, its writes and reads.
//! - `group_commit`: the queue that batches a tenant's writes into one commit.
//! - `outbox`: reads of a tenant's event outbox.
//! - `checkpoint`: the thread that checkpoints tenants that committed.
//! - `pool`: connection pools and the PRAGMAs they open connections with.
//! - `migrations`: the embedded schema scripts.
//! - `copy`: consistent copies of live files (SQLite's online backup API).
//! - `lock`: the lock a running server holds on its data dir.

mod checkpoint;
mod copy;
mod databases;
mod group_commit;
mod lock;
pub mod migrations;
mod outbox;
mod pool;
mod tenant;

pub use copy::{copy_database, open_existing, sync_dir, sync_file};
pub use databases::{pre_upgrade_dir, Databases, TenantInfo, MAX_OPEN_TENANTS};
pub use lock::DataDirLock;
pub use outbox::{outbox_last_seq, outbox_since};
pub use pool::SqlitePool;
pub use tenant::TenantDb;

use crate::error::ApiError;

/// Runs blocking database work on the blocking thread pool, never on an async worker.
pub async fn run_blocking<T, F>(work: F) -> Result<T, ApiError>
where
    F: FnOnce() -> Result<T, ApiError> + Send + 'static,
    T: Send + 'static,
{
    rocket::tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::internal(format!("blocking task failed: {e}")))?
}
