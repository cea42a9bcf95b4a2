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

mod group_commit;
pub mod migrations;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use std::time::Duration;

use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};
use scheduled_thread_pool::ScheduledThreadPool;
use uuid::Uuid;

use crate::error::ApiError;
use crate::events::bus::{Committed, EventBus};
use group_commit::WriteQueue;
use migrations::Schema;

pub type SqlitePool = Pool<SqliteConnectionManager>;

const READERS_PER_TENANT: u32 = 4;
const STATEMENT_CACHE: usize = 64;
const IDLE_CLOSE_AFTER: Duration = Duration::from_secs(60);
/// How often tenants that committed are checkpointed; bounds the WAL to about this
/// long of writes.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);
/// Tenants whose connections stay open at once; the least recently used beyond
/// this are closed (and reopened in a few milliseconds when next needed), so
/// memory stays bounded however many tenants a box serves.
pub const MAX_OPEN_TENANTS: usize = 64;

/// A tenant as the registry knows it.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct TenantInfo {
    pub id: Uuid,
    pub slug: String,
    pub name: String,
    pub created_at: String,
}

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
    /// Held while delivering this tenant's webhooks: one request in flight per endpoint.
    pub delivery_lane: Mutex<()>,
}

impl TenantDb {
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
    /// are announced once committed. Blocking: call through [`run_blocking`].
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

    /// Copies what the WAL holds back into the database file, as far as readers
    /// allow, without waiting for or holding up readers and the writer.
    fn checkpoint(&self) -> Result<(), ApiError> {
        self.readers
            .get()?
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
        Ok(())
    }

    /// Asks the delivery dispatcher to look at this tenant again, after a change to
    /// its endpoint or deliveries that wrote no event.
    pub fn wake_delivery(&self) {
        self.events.wake(self.info.id);
    }

    /// Runs `work` on a reader connection. Blocking: call through [`run_blocking`].
    pub fn read<T>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let conn = self.readers.get()?;
        work(&conn)
    }
}

/// Commits `tx`, marks the tenant for the next checkpoint and announces the events
/// written after `last_seq`.
fn commit_and_announce(
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

/// The newest outbox sequence number; a cheap read of SQLite's own counter.
pub fn outbox_last_seq(conn: &Connection) -> Result<i64, ApiError> {
    Ok(conn
        .prepare_cached("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'")?
        .query_row([], |r| r.get(0))
        .optional()?
        .unwrap_or(0))
}

/// Outbox rows after `seq`, oldest first, at most `limit` of them when given.
pub fn outbox_since(
    conn: &Connection,
    tenant_id: Uuid,
    seq: i64,
    limit: Option<u32>,
) -> Result<Vec<Committed>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, event_id, body FROM outbox WHERE seq > ?1 ORDER BY seq LIMIT ?2",
    )?;
    // SQLite reads a negative LIMIT as no limit.
    let rows = stmt.query_map(params![seq, limit.map_or(-1, i64::from)], |r| {
        Ok(Committed {
            tenant_id,
            seq: r.get(0)?,
            event_id: r.get(1)?,
            body: r.get(2)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Every database of the data dir.
pub struct Databases {
    data_dir: PathBuf,
    synchronous_full: bool,
    registry: SqlitePool,
    maintenance: Arc<ScheduledThreadPool>,
    tenants: RwLock<HashMap<Uuid, TenantInfo>>,
    open: Arc<Mutex<HashMap<Uuid, OpenTenant>>>,
    uses: AtomicU64,
    events: Arc<EventBus>,
    /// Runs the checkpoints; stops with the last reference. Not the pools' own
    /// housekeeping thread, which opens the connections a checkpoint waits for.
    _checkpointer: ScheduledThreadPool,
}

/// Checkpoints every open tenant that committed since the last pass.
fn checkpoint_committed(open: &Weak<Mutex<HashMap<Uuid, OpenTenant>>>) {
    let Some(open) = open.upgrade() else { return };
    let committed: Vec<Arc<TenantDb>> = match open.lock() {
        Ok(open) => open
            .values()
            .filter(|entry| entry.db.committed.swap(false, Ordering::Relaxed))
            .map(|entry| entry.db.clone())
            .collect(),
        Err(_) => return,
    };
    drop(open);
    for db in committed {
        if let Err(err) = db.checkpoint() {
            log::warn!("tenant {}: checkpoint failed: {}", db.info.id, err.detail);
        }
    }
}

struct OpenTenant {
    db: Arc<TenantDb>,
    last_used: u64,
}

/// Whether commits on a pool's connections checkpoint the WAL when it grows, as
/// SQLite does by default, or leave that to the housekeeping thread.
#[derive(Clone, Copy)]
enum Checkpoints {
    OnCommit,
    InBackground,
}

fn pool_for(
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

impl Databases {
    /// Opens (creating if needed) the data dir and its registry.
    pub fn open(data_dir: &Path, synchronous_full: bool) -> Result<Self, String> {
        std::fs::create_dir_all(data_dir.join("tenants"))
            .map_err(|e| format!("cannot create data dir {}: {e}", data_dir.display()))?;
        // One small pool of housekeeping threads shared by every connection pool.
        let maintenance = Arc::new(
            ScheduledThreadPool::builder()
                .num_threads(1)
                .thread_name_pattern("db-pool-{}")
                .build(),
        );
        let registry = pool_for(
            &data_dir.join("registry.db"),
            synchronous_full,
            4,
            Checkpoints::OnCommit,
            &maintenance,
        );
        {
            let mut conn = registry
                .get()
                .map_err(|e| format!("cannot open registry.db: {e}"))?;
            migrations::migrate(&mut conn, Schema::Registry)
                .map_err(|e| format!("registry.db: {e}"))?;
        }
        let open = Arc::new(Mutex::new(HashMap::new()));
        let checkpointer = ScheduledThreadPool::builder()
            .num_threads(1)
            .thread_name_pattern("db-checkpoint")
            .build();
        {
            let open = Arc::downgrade(&open);
            checkpointer.execute_with_fixed_delay(CHECKPOINT_EVERY, CHECKPOINT_EVERY, move || {
                checkpoint_committed(&open)
            });
        }
        let dbs = Databases {
            data_dir: data_dir.to_path_buf(),
            synchronous_full,
            registry,
            maintenance,
            tenants: RwLock::new(HashMap::new()),
            open,
            uses: AtomicU64::new(0),
            events: Arc::new(EventBus::default()),
            _checkpointer: checkpointer,
        };
        dbs.load_tenants()?;
        Ok(dbs)
    }

    fn load_tenants(&self) -> Result<(), String> {
        let conn = self.registry.get().map_err(|e| e.to_string())?;
        let mut stmt = conn
            .prepare("SELECT id, slug, name, created_at FROM tenants")
            .map_err(|e| e.to_string())?;
        let rows = stmt
            .query_map([], |r| {
                Ok(TenantInfo {
                    id: r.get::<_, String>(0)?.parse().unwrap_or_default(),
                    slug: r.get(1)?,
                    name: r.get(2)?,
                    created_at: r.get(3)?,
                })
            })
            .map_err(|e| e.to_string())?;
        let mut tenants = self.tenants.write().map_err(|e| e.to_string())?;
        for info in rows {
            let info = info.map_err(|e| e.to_string())?;
            tenants.insert(info.id, info);
        }
        Ok(())
    }

    /// Where committed events are announced.
    pub fn events(&self) -> &Arc<EventBus> {
        &self.events
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    pub fn registry(&self) -> Result<r2d2::PooledConnection<SqliteConnectionManager>, ApiError> {
        Ok(self.registry.get()?)
    }

    pub fn tenant_path(&self, id: Uuid) -> PathBuf {
        self.data_dir.join("tenants").join(format!("{id}.db"))
    }

    pub fn tenant_info(&self, id: Uuid) -> Option<TenantInfo> {
        self.tenants.read().ok()?.get(&id).cloned()
    }

    pub fn tenant_by_slug(&self, slug: &str) -> Option<TenantInfo> {
        self.tenants
            .read()
            .ok()?
            .values()
            .find(|t| t.slug == slug)
            .cloned()
    }

    /// Tenants sorted by slug.
    pub fn tenants(&self) -> Vec<TenantInfo> {
        let mut all: Vec<TenantInfo> = self
            .tenants
            .read()
            .map(|t| t.values().cloned().collect())
            .unwrap_or_default();
        all.sort_by(|a, b| a.slug.cmp(&b.slug));
        all
    }

    /// The open database of a known tenant, opening and migrating it on first use.
    pub fn tenant(&self, id: Uuid) -> Result<Arc<TenantDb>, ApiError> {
        let info = self
            .tenant_info(id)
            .ok_or_else(|| ApiError::not_found("tenant"))?;
        if let Some(db) = self.touch_open(id)? {
            return Ok(db);
        }
        // Opening and migrating a file takes milliseconds: do it outside the map's
        // lock, so other tenants' requests are not held up by it.
        let opened = Arc::new(self.open_file(info)?);
        let mut open = self.lock_open()?;
        let now = self.uses.fetch_add(1, Ordering::Relaxed);
        if let Some(entry) = open.get_mut(&id) {
            // Another request opened it meanwhile; one set of pools per tenant.
            entry.last_used = now;
            return Ok(entry.db.clone());
        }
        let closing = if open.len() >= MAX_OPEN_TENANTS {
            least_recently_used(&mut open)
        } else {
            None
        };
        open.insert(
            id,
            OpenTenant {
                db: opened.clone(),
                last_used: now,
            },
        );
        // Closing connections checkpoints the WAL and syncs: outside the lock too.
        drop(open);
        drop(closing);
        Ok(opened)
    }

    fn lock_open(&self) -> Result<std::sync::MutexGuard<'_, HashMap<Uuid, OpenTenant>>, ApiError> {
        self.open
            .lock()
            .map_err(|_| ApiError::internal("tenant map poisoned"))
    }

    /// The already open database of a tenant, marked as just used.
    fn touch_open(&self, id: Uuid) -> Result<Option<Arc<TenantDb>>, ApiError> {
        let mut open = self.lock_open()?;
        let now = self.uses.fetch_add(1, Ordering::Relaxed);
        Ok(open.get_mut(&id).map(|entry| {
            entry.last_used = now;
            entry.db.clone()
        }))
    }

    /// Pools for a tenant's file, migrated to the newest schema.
    fn open_file(&self, info: TenantInfo) -> Result<TenantDb, ApiError> {
        let id = info.id;
        let path = self.tenant_path(id);
        let writer = pool_for(
            &path,
            self.synchronous_full,
            1,
            Checkpoints::InBackground,
            &self.maintenance,
        );
        {
            let mut conn = writer.get()?;
            migrations::migrate(&mut conn, Schema::Tenant).map_err(|e| {
                log::error!("tenant {id}: {e}");
                ApiError::new(
                    rocket::http::Status::ServiceUnavailable,
                    "tenant_unavailable",
                    format!("the tenant's database cannot be opened: {e}"),
                )
            })?;
        }
        let readers = pool_for(
            &path,
            self.synchronous_full,
            READERS_PER_TENANT,
            Checkpoints::OnCommit,
            &self.maintenance,
        );
        Ok(TenantDb {
            queue: OnceLock::new(),
            info,
            writer,
            readers,
            events: self.events.clone(),
            committed: Arc::new(AtomicBool::new(false)),
            delivery_lane: Mutex::new(()),
        })
    }

    /// How many tenants have their pools open now.
    pub fn open_tenants(&self) -> usize {
        self.lock_open().map(|open| open.len()).unwrap_or(0)
    }

    /// Registers a tenant and creates its file with the newest schema.
    pub fn create_tenant(
        &self,
        name: &str,
        slug: &str,
        currency: &str,
        timezone: &str,
    ) -> Result<Arc<TenantDb>, ApiError> {
        let info = TenantInfo {
            id: Uuid::now_v7(),
            slug: slug.to_string(),
            name: name.to_string(),
            created_at: crate::time::now_rfc3339(),
        };
        self.registry()?.execute(
            "INSERT INTO tenants (id, slug, name, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![info.id.to_string(), info.slug, info.name, info.created_at],
        )?;
        self.tenants
            .write()
            .map_err(|_| ApiError::internal("tenant list poisoned"))?
            .insert(info.id, info.clone());
        let db = self.tenant(info.id)?;
        db.write(|tx| {
            tx.execute(
                "INSERT INTO settings (id, tenant_id, business_name, currency, timezone) \
                 VALUES (1, ?1, ?2, ?3, ?4)",
                params![info.id.to_string(), name, currency, timezone],
            )?;
            Ok(())
        })?;
        Ok(db)
    }

    /// Looks up a tenant by id or slug, as the CLI accepts either.
    pub fn find_tenant(&self, id_or_slug: &str) -> Option<TenantInfo> {
        match id_or_slug.parse::<Uuid>() {
            Ok(id) => self.tenant_info(id),
            Err(_) => self.tenant_by_slug(id_or_slug),
        }
    }

    /// A server-wide secret, generated on first use and kept in the registry.
    pub fn server_secret(&self, name: &str, len: usize) -> Result<Vec<u8>, ApiError> {
        let conn = self.registry()?;
        let existing: Option<Vec<u8>> = conn
            .query_row(
                "SELECT value FROM server_secrets WHERE name = ?1",
                [name],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(value) = existing {
            return Ok(value);
        }
        let value = crate::auth::random_bytes(len);
        conn.execute(
            "INSERT OR IGNORE INTO server_secrets (name, value) VALUES (?1, ?2)",
            params![name, value],
        )?;
        Ok(conn.query_row(
            "SELECT value FROM server_secrets WHERE name = ?1",
            [name],
            |r| r.get(0),
        )?)
    }
}

/// Takes out the least recently used tenant that nothing else holds; its
/// connections close when it is dropped.
fn least_recently_used(open: &mut HashMap<Uuid, OpenTenant>) -> Option<OpenTenant> {
    let idle = open
        .iter()
        .filter(|(_, entry)| Arc::strong_count(&entry.db) == 1)
        .min_by_key(|(_, entry)| entry.last_used)
        .map(|(id, _)| *id)?;
    open.remove(&idle)
}

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
