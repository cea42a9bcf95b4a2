//! The scheduler: time-based transitions that nobody requests, today the automatic
//! no-show of confirmed reservations whose party did not arrive within the grace
//! window.
//!
//! It acts only on what is due in each tenant's database, so nothing is lost across
//! a restart. To stay cheap on a box with many tenants it ticks once a minute and
//! remembers, per tenant, the next moment anything can fall due; a tenant is opened
//! only when that moment has passed or when its reservations or settings changed.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::domain::dining::reservations;
use crate::domain::{self, Context};
use crate::{lock, App};

/// How often the no-show pass runs.
pub const TICK: Duration = Duration::from_secs(60);

/// What is known of each tenant: `Some(None)` means nothing can fall due until
/// something changes; no entry means the tenant must be looked at.
#[derive(Default)]
pub struct Scheduler {
    next_due: Mutex<HashMap<Uuid, Option<DateTime<Utc>>>>,
    /// Tenants changed since the pass last looked; kept apart from `next_due`, which
    /// a pass holds across a tenant's database work, so requests never wait on it.
    changed: Mutex<HashSet<Uuid>>,
}

impl Scheduler {
    /// Makes the next tick look at the tenant again, after a change that may move
    /// its deadlines.
    pub fn forget(&self, tenant_id: Uuid) {
        lock(&self.changed).insert(tenant_id);
    }

    /// Whether the tenant changed since the last call, clearing the mark.
    fn take_change(&self, tenant_id: Uuid) -> bool {
        lock(&self.changed).remove(&tenant_id)
    }
}

/// Applies every transition due at `now`; returns how many reservations became
/// no-shows. The thread calls it with the wall clock, tests with their own.
pub fn run_due(app: &App, now: DateTime<Utc>) -> usize {
    let mut marked = 0;
    // Only one pass runs at a time.
    let mut next_due = lock(&app.scheduler.next_due);
    for tenant in app.db.tenants() {
        if app.scheduler.take_change(tenant.id) {
            next_due.remove(&tenant.id);
        }
        match next_due.get(&tenant.id) {
            Some(None) => continue,
            Some(Some(at)) if *at > now => continue,
            _ => {}
        }
        // The pass's own `now`, which tests set, not the app's clock.
        let context = Context {
            now,
            ..app.context(tenant.id, "system:scheduler")
        };
        // The pass has just worked out the tenant's next deadline itself, so what
        // the write leaves to do after commit (look at the tenant again) is moot.
        let result = app
            .db
            .tenant(tenant.id)
            .and_then(|db| db.write(|sql| domain::run(sql, context, reservations::mark_no_shows)));
        match result {
            Ok(((count, next), _)) => {
                marked += count;
                next_due.insert(tenant.id, next);
            }
            Err(err) => log::error!("scheduler: tenant {}: {err}", tenant.id),
        }
    }
    marked
}

/// A thread that runs a pass at once (catching up after downtime), then one per
/// tick until stopped; dropping its channel ends it. The no-show scheduler and
/// the scheduled backups each run on one.
#[derive(Default)]
pub struct Thread(Mutex<Option<Sender<()>>>);

/// One pass of a [`Thread`], given the wall clock's `now`.
pub type Pass = fn(&App, DateTime<Utc>);

/// The no-show pass, as a [`Thread`] runs it.
pub fn no_show_pass(app: &App, now: DateTime<Utc>) {
    run_due(app, now);
}

impl Thread {
    /// Starts the thread `name`, running `pass` now and then every `tick`.
    pub fn start(&self, name: &str, tick: Duration, app: Arc<App>, pass: Pass) {
        let (sender, receiver) = mpsc::channel::<()>();
        let label = name.to_string();
        let spawned = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || loop {
                // A bug in one pass must not end the thread; the next tick tries again.
                if catch_unwind(AssertUnwindSafe(|| pass(&app, Utc::now()))).is_err() {
                    log::error!("{label}: a pass panicked");
                }
                match receiver.recv_timeout(tick) {
                    Err(RecvTimeoutError::Timeout) => continue,
                    _ => break,
                }
            });
        match spawned {
            Ok(_) => {
                if let Ok(mut slot) = self.0.lock() {
                    *slot = Some(sender);
                }
            }
            Err(err) => log::error!("cannot start the {name} thread: {err}"),
        }
    }

    pub fn stop(&self) {
        if let Ok(mut slot) = self.0.lock() {
            slot.take();
        }
    }
}
