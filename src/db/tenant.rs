//! One tenant's database: its single writer, fed by the group-commit queue, its
//! pool of readers, and the step that commits a write and announces the events it
//! wrote.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use rusqlite::{Connection, Transaction, TransactionBehavior};
use uuid::Uuid;

use super::group_commit::WriteQueue;
use super::outbox::{outbox_last_seq, outbox_since};
use super::{SqlitePool, TenantInfo};
use crate::error::ApiError;
use crate::events::bus::EventBus;

/// One tenant's database: a single writer, fed by a group-commit queue, and a small
/// pool of readers.
pub struct TenantDb {
    pub info: TenantInfo,
    writer: SqlitePool,
    /// Started by the first queued write, so tenants that are only read (as by
    /// the start-up scans) run no commit thread.
    queue: OnceLock<WriteQueue>,
    readers: SqlitePool,
    events: Arc<EventBus>,
    /// Set by every commit, cleared when the WAL is checkpointed.
    committed: Arc<AtomicBool>,
    /// Set while the tenant's file is about to be replaced: long jobs (a batch
    /// of webhook attempts) stop early so the file can be closed.
    closing: AtomicBool,
    /// Held while delivering this tenant's webhooks: one request in flight per endpoint.
    pub delivery_lane: Mutex<()>,
}

impl TenantDb {
    /// A tenant's database over its already migrated file's pools.
    pub(super) fn new(
        info: TenantInfo,
        writer: SqlitePool,
        readers: SqlitePool,
        events: Arc<EventBus>,
    ) -> Self {
        TenantDb {
            queue: OnceLock::new(),
            info,
            writer,
            readers,
            events,
            committed: Arc::new(AtomicBool::new(false)),
            closing: AtomicBool::new(false),
            delivery_lane: Mutex::new(()),
        }
    }

    /// Runs `work` in a transaction and commits it if `work` returns `Ok`, batched
    /// with whatever other writes are queued for this tenant. Events the work wrote
    /// are announced once committed. The way requests write.
    pub async fn write_queued<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        F: FnOnce(&Transaction) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        self.queue
            .get_or_init(|| {
                WriteQueue::start(
                    self.info.id,
                    self.writer.clone(),
                    self.events.clone(),
                    self.committed.clone(),
                )
            })
            .write(work)
            .await
    }

    /// Runs `work` in a `BEGIN IMMEDIATE` transaction of its own on the writer, on
    /// the calling thread, and commits if it returns `Ok`. Events the work wrote
    /// are announced once committed. Blocking: call through
    /// [`run_blocking`](super::run_blocking).
    pub fn write<T>(
        &self,
        work: impl FnOnce(&Transaction) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let mut conn = self.writer.get()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let last_seq = outbox_last_seq(&tx)?;
        let value = work(&tx)?;
        commit_and_announce(tx, self.info.id, last_seq, &self.events, &self.committed)?;
        Ok(value)
    }

    /// Runs `work` on a reader connection. Blocking: call through
    /// [`run_blocking`](super::run_blocking).
    pub fn read<T>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let conn = self.readers.get()?;
        work(&conn)
    }

    /// Whether the tenant is being closed for its file to be replaced.
    pub fn is_closing(&self) -> bool {
        self.closing.load(Ordering::Relaxed)
    }

    pub(super) fn close(&self) {
        self.closing.store(true, Ordering::Relaxed);
    }

    /// Takes back [`close`](Self::close), when the replacement is given up.
    pub(super) fn reopen(&self) {
        self.closing.store(false, Ordering::Relaxed);
    }

    /// Whether this tenant committed since the last call; clears the mark.
    pub(super) fn take_committed(&self) -> bool {
        self.committed.swap(false, Ordering::Relaxed)
    }

    /// Copies what the WAL holds back into the database file, as far as readers
    /// allow, without waiting for or holding up readers and the writer.
    pub(super) fn checkpoint(&self) -> Result<(), ApiError> {
        self.readers
            .get()?
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
        Ok(())
    }
}

/// Commits `tx`, marks the tenant for the next checkpoint and announces the events
/// written after `last_seq`.
pub(super) fn commit_and_announce(
    tx: Transaction,
    tenant_id: Uuid,
    last_seq: i64,
    events: &EventBus,
    committed: &AtomicBool,
) -> Result<(), ApiError> {
    let written = if outbox_last_seq(&tx)? > last_seq {
        outbox_since(&tx, tenant_id, last_seq, None)?
    } else {
        Vec::new()
    };
    tx.commit()?;
    committed.store(true, Ordering::Relaxed);
    if !written.is_empty() {
        events.committed(tenant_id, written);
    }
    Ok(())
}
