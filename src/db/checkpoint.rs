//! The checkpointer: a thread of its own that, every `CHECKPOINT_EVERY`, copies
//! the WAL of each open tenant that committed since its last pass back into the
//! database file, so that no commit waits on a checkpoint.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use scheduled_thread_pool::ScheduledThreadPool;
use uuid::Uuid;

use super::databases::OpenTenant;
use super::TenantDb;

/// How often tenants that committed are checkpointed; bounds the WAL to about this
/// long of writes.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// Starts the thread that checkpoints the tenants in `open`; it stops when the
/// returned pool is dropped.
pub(super) fn start(open: Weak<Mutex<HashMap<Uuid, OpenTenant>>>) -> ScheduledThreadPool {
    let checkpointer = ScheduledThreadPool::builder()
        .num_threads(1)
        .thread_name_pattern("db-checkpoint")
        .build();
    checkpointer.execute_with_fixed_delay(CHECKPOINT_EVERY, CHECKPOINT_EVERY, move || {
        checkpoint_committed(&open)
    });
    checkpointer
}

/// Checkpoints every open tenant that committed since the last pass.
fn checkpoint_committed(open: &Weak<Mutex<HashMap<Uuid, OpenTenant>>>) {
    let Some(open) = open.upgrade() else { return };
    let committed: Vec<Arc<TenantDb>> = crate::lock(&open)
        .values()
        .filter(|entry| entry.db.take_committed())
        .map(|entry| entry.db.clone())
        .collect();
    drop(open);
    for db in committed {
        if let Err(err) = db.checkpoint() {
            log::warn!("tenant {}: checkpoint failed: {}", db.info.id, err.detail);
        }
    }
}
