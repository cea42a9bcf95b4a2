//! Connection pools: how many connections a file gets, how long idle ones stay
//! open, and the PRAGMAs every connection is opened with.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use scheduled_thread_pool::ScheduledThreadPool;

pub type SqlitePool = Pool<SqliteConnectionManager>;

const STATEMENT_CACHE: usize = 64;
const IDLE_CLOSE_AFTER: Duration = Duration::from_secs(60);

/// Whether commits on a pool's connections checkpoint the WAL when it grows, as
/// SQLite does by default, or leave that to the housekeeping thread.
#[derive(Clone, Copy)]
pub(super) enum Checkpoints {
    OnCommit,
    InBackground,
}

pub(super) fn pool_for(
    path: &Path,
    synchronous_full: bool,
    max_size: u32,
    checkpoints: Checkpoints,
    maintenance: &Arc<ScheduledThreadPool>,
) -> SqlitePool {
    let synchronous = if synchronous_full { "FULL" } else { "NORMAL" };
    let autocheckpoint = match checkpoints {
        Checkpoints::OnCommit => 1000,
        Checkpoints::InBackground => 0,
    };
    let manager = SqliteConnectionManager::file(path).with_init(move |c| {
        // An order write alone runs some twenty distinct statements; keep them all parsed.
        c.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        c.execute_batch(&format!(
            "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA busy_timeout=5000; \
             PRAGMA synchronous={synchronous}; PRAGMA wal_autocheckpoint={autocheckpoint};"
        ))
    });
    Pool::builder()
        .max_size(max_size)
        .min_idle(Some(0))
        .idle_timeout(Some(IDLE_CLOSE_AFTER))
        .connection_timeout(Duration::from_secs(10))
        .thread_pool(maintenance.clone())
        .build_unchecked(manager)
}
