//! Every database of the data dir: the registry and the tenant list it holds, the
//! tenants' files, opened on first use and at most [`MAX_OPEN_TENANTS`] of them at
//! once (the least recently used closed first), creating and finding tenants, and
//! the server-wide secrets kept in the registry.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{params, OptionalExtension};
use scheduled_thread_pool::ScheduledThreadPool;
use uuid::Uuid;

use super::migrations::{self, PreUpgrade, Schema};
use super::pool::{pool_for, Checkpoints};
use super::{checkpoint, SqlitePool, TenantDb};
use crate::error::ApiError;
use crate::events::bus::EventBus;

const READERS_PER_TENANT: u32 = 4;
/// Tenants whose connections stay open at once; the least recently used beyond
/// this are closed (and reopened in a few milliseconds when next needed), so
/// memory stays bounded however many tenants a box serves.
pub const MAX_OPEN_TENANTS: usize = 64;
/// How long replacing a tenant's file waits for the work in flight on it (a
/// request, a webhook attempt) to finish before giving up.
const CLOSE_WAIT: Duration = Duration::from_secs(30);
/// What a request to a tenant whose file is being replaced is told to wait.
const RESTORING_RETRY_AFTER: u64 = 5;

/// A tenant as the registry knows it.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct TenantInfo {
    pub id: Uuid,
    pub slug: String,
    pub name: String,
    pub created_at: String,
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
    /// Tenants whose file is being replaced: not opened until it is done.
    replacing: Mutex<HashSet<Uuid>>,
    /// Held (shared) while a tenant's file is opened and entered in `open`, and
    /// (exclusive) while a replacement is marked, so no open of the old file is
    /// under way once a replacement starts.
    opening: RwLock<()>,
    events: Arc<EventBus>,
    /// Runs the checkpoints; stops with the last reference. Not the pools' own
    /// housekeeping thread, which opens the connections a checkpoint waits for.
    _checkpointer: ScheduledThreadPool,
}

/// A tenant whose pools are open, and when it was last used.
pub(super) struct OpenTenant {
    pub(super) db: Arc<TenantDb>,
    last_used: u64,
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
            let pre_upgrade = PreUpgrade {
                dir: &pre_upgrade_dir(data_dir),
                label: "registry",
            };
            migrations::migrate(&mut conn, Schema::Registry, Some(pre_upgrade))
                .map_err(|e| format!("registry.db: {e}"))?;
        }
        let open = Arc::new(Mutex::new(HashMap::new()));
        let checkpointer = checkpoint::start(Arc::downgrade(&open));
        let dbs = Databases {
            data_dir: data_dir.to_path_buf(),
            synchronous_full,
            registry,
            maintenance,
            tenants: RwLock::new(HashMap::new()),
            open,
            uses: AtomicU64::new(0),
            replacing: Mutex::new(HashSet::new()),
            opening: RwLock::new(()),
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
        let _opening = self
            .opening
            .read()
            .map_err(|_| ApiError::internal("tenant gate poisoned"))?;
        if crate::lock(&self.replacing).contains(&id) {
            return Err(ApiError::new(
                rocket::http::Status::ServiceUnavailable,
                "tenant_restoring",
                "this business's data is being restored from a backup; try again in a few seconds",
            )
            .with_retry_after(RESTORING_RETRY_AFTER));
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
            let pre_upgrade = PreUpgrade {
                dir: &pre_upgrade_dir(&self.data_dir),
                label: &info.slug,
            };
            migrations::migrate(&mut conn, Schema::Tenant, Some(pre_upgrade)).map_err(|e| {
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
        Ok(TenantDb::new(info, writer, readers, self.events.clone()))
    }

    /// Replaces a tenant's file while the server runs: closes the tenant (its
    /// requests get a 503 `tenant_restoring` meanwhile), waits for the work in
    /// flight on it, runs `swap` on the file's path with every connection to it
    /// closed, and reopens it, migrating it if it is older.
    pub fn replace_tenant_file(
        &self,
        id: Uuid,
        swap: impl FnOnce(&Path) -> Result<(), String>,
    ) -> Result<(), ApiError> {
        if self.tenant_info(id).is_none() {
            return Err(ApiError::not_found("tenant"));
        }
        let closing = {
            let _no_opens = self
                .opening
                .write()
                .map_err(|_| ApiError::internal("tenant gate poisoned"))?;
            if !crate::lock(&self.replacing).insert(id) {
                return Err(ApiError::conflict(
                    "restore_in_progress",
                    "this business is already being restored",
                ));
            }
            self.lock_open()?.remove(&id)
        };
        let result = self.swap_closed(id, closing, swap);
        crate::lock(&self.replacing).remove(&id);
        result?;
        self.tenant(id).map(|_| ())
    }

    fn swap_closed(
        &self,
        id: Uuid,
        closing: Option<OpenTenant>,
        swap: impl FnOnce(&Path) -> Result<(), String>,
    ) -> Result<(), ApiError> {
        if let Some(entry) = closing {
            entry.db.close();
            let deadline = Instant::now() + CLOSE_WAIT;
            // Requests, webhook attempts and streams each hold the tenant for a
            // moment; polling suits a rare, operator-started job.
            while Arc::strong_count(&entry.db) > 1 {
                if Instant::now() >= deadline {
                    entry.db.reopen();
                    self.lock_open()?.insert(id, entry);
                    return Err(ApiError::new(
                        rocket::http::Status::ServiceUnavailable,
                        "tenant_busy",
                        "work on this business did not finish in time; nothing was restored, try again",
                    )
                    .with_retry_after(RESTORING_RETRY_AFTER));
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            // The last reference: its connections close, and its commit thread ends.
            drop(entry);
        }
        swap(&self.tenant_path(id)).map_err(ApiError::internal)
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

/// Where files are copied before an upgrade changes them.
pub fn pre_upgrade_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("backups").join("pre-upgrade")
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
