//! The delivery dispatcher: one thread that knows, for every tenant with pending
//! deliveries, when the next one is due, and a pool of threads that send them.
//!
//! It is woken when a transaction commits events (no polling on the hot path) and
//! otherwise sleeps until the earliest due retry. Tenant files are read once at
//! start; after that only tenants that were woken are looked at again.
//!
//! A worker serves one tenant at a time and may wait a whole timeout on a hanging
//! receiver, so the pool grows whenever a tenant is due and no worker is free (up
//! to `webhook_workers`), and a worker left idle for a while ends.

use std::collections::{HashMap, HashSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::delivery::{self, Sender};
use crate::App;

/// A worker sends at most this many events before the tenant is scheduled again,
/// so a long backlog yields to a stop.
const BATCH: usize = 100;

/// Even with nothing due the dispatcher looks around this often.
const IDLE_CHECK: Duration = Duration::from_secs(60);

/// After a database error a worker waits this long before the tenant is tried again,
/// so a broken file is not retried in a tight loop.
const ERROR_PAUSE: Duration = Duration::from_secs(1);

/// A worker with nothing to do for this long ends.
const IDLE_EXIT: Duration = Duration::from_secs(60);

/// The running dispatcher and its workers.
pub struct Dispatcher {
    app: Arc<App>,
    dispatcher: JoinHandle<()>,
    workers: Arc<Workers>,
}

impl Dispatcher {
    pub fn start(app: Arc<App>) -> Dispatcher {
        let workers = Arc::new(Workers {
            app: app.clone(),
            sender: Sender::new(app.config.webhook_timeout),
            most: app.config.webhook_workers.max(1),
            in_flight: Mutex::new(HashSet::new()),
            pool: Mutex::new(Pool::default()),
            job_queued: Condvar::new(),
        });
        let (dispatcher_app, dispatcher_workers) = (app.clone(), workers.clone());
        let dispatcher = spawn("webhook-dispatcher".into(), move || {
            dispatch(&dispatcher_app, &dispatcher_workers)
        });
        Dispatcher {
            app,
            dispatcher,
            workers,
        }
    }

    /// Stops taking new work and waits for attempts in flight to finish.
    pub fn stop(self) {
        self.app.db.events().stop();
        let _ = self.dispatcher.join();
        for thread in self.workers.stop() {
            let _ = thread.join();
        }
    }
}

/// The sending threads and what they share.
struct Workers {
    app: Arc<App>,
    sender: Sender,
    /// The most workers that may run at once.
    most: usize,
    /// Tenants queued or being sent for; each is served by one worker at a time.
    in_flight: Mutex<HashSet<Uuid>>,
    pool: Mutex<Pool>,
    job_queued: Condvar,
}

#[derive(Default)]
struct Pool {
    /// Tenants waiting for a worker.
    queued: VecDeque<Uuid>,
    /// Workers waiting for a job.
    idle: usize,
    running: usize,
    stopping: bool,
    threads: Vec<JoinHandle<()>>,
}

impl Workers {
    fn lock(&self) -> MutexGuard<'_, Pool> {
        crate::lock(&self.pool)
    }

    /// Queues a tenant for sending, starting a worker when none is idle to take it.
    fn submit(self: &Arc<Self>, tenant_id: Uuid) {
        let mut pool = self.lock();
        pool.queued.push_back(tenant_id);
        if pool.idle < pool.queued.len() && pool.running < self.most {
            pool.running += 1;
            let workers = self.clone();
            let name = format!("webhook-{}", pool.running);
            pool.threads.retain(|t| !t.is_finished());
            pool.threads.push(spawn(name, move || workers.work()));
        }
        self.job_queued.notify_one();
    }

    /// Ends every worker once its attempt in flight is done; returns their threads.
    fn stop(&self) -> Vec<JoinHandle<()>> {
        let mut pool = self.lock();
        pool.stopping = true;
        self.job_queued.notify_all();
        std::mem::take(&mut pool.threads)
    }

    fn work(&self) {
        while let Some(tenant_id) = self.next_job() {
            self.deliver(tenant_id);
        }
    }

    /// The next queued tenant; `None` when stopping or after idling for `IDLE_EXIT`.
    fn next_job(&self) -> Option<Uuid> {
        let mut pool = self.lock();
        loop {
            if pool.stopping {
                break;
            }
            if let Some(tenant_id) = pool.queued.pop_front() {
                return Some(tenant_id);
            }
            pool.idle += 1;
            let (woken, wait) = self
                .job_queued
                .wait_timeout(pool, IDLE_EXIT)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            pool = woken;
            pool.idle -= 1;
            if wait.timed_out() && pool.queued.is_empty() {
                break;
            }
        }
        pool.running -= 1;
        None
    }

    fn deliver(&self, tenant_id: Uuid) {
        let app = &self.app;
        // A bug in one delivery must take neither this worker nor the tenant out for good.
        let sent = catch_unwind(AssertUnwindSafe(|| {
            app.db
                .tenant(tenant_id)
                .and_then(|tenant| delivery::deliver_due(&tenant, &self.sender, &Utc::now, BATCH))
        }));
        let failure = match sent {
            Ok(Ok(_)) => None,
            Ok(Err(error)) => Some(error.detail),
            Err(_) => Some("the delivery code panicked".to_string()),
        };
        if let Some(failure) = failure {
            log::error!("webhooks: delivery for tenant {tenant_id} failed: {failure}");
            std::thread::sleep(ERROR_PAUSE);
        }
        if let Ok(mut busy) = self.in_flight.lock() {
            busy.remove(&tenant_id);
        }
        app.db.events().wake(tenant_id);
    }
}

fn spawn(name: String, body: impl FnOnce() + Send + 'static) -> JoinHandle<()> {
    std::thread::Builder::new()
        .name(name)
        .spawn(body)
        .expect("the OS starts a thread")
}

/// When the tenant next has something due, as its file says.
fn due_of(app: &App, tenant_id: Uuid) -> Option<DateTime<Utc>> {
    let tenant = app.db.tenant(tenant_id).ok()?;
    match tenant.read(delivery::earliest_due) {
        Ok(due) => due,
        Err(error) => {
            log::error!(
                "webhooks: cannot read deliveries of tenant {tenant_id}: {}",
                error.detail
            );
            None
        }
    }
}

fn dispatch(app: &App, workers: &Arc<Workers>) {
    let mut due: HashMap<Uuid, DateTime<Utc>> = app
        .db
        .tenants()
        .into_iter()
        .filter_map(|t| Some((t.id, due_of(app, t.id)?)))
        .collect();
    loop {
        let now = Utc::now();
        let ready: Vec<Uuid> = due
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(id, _)| *id)
            .collect();
        for tenant_id in ready {
            due.remove(&tenant_id);
            if workers
                .in_flight
                .lock()
                .is_ok_and(|mut busy| busy.insert(tenant_id))
            {
                workers.submit(tenant_id);
            }
        }
        let sleep = due
            .values()
            .min()
            .and_then(|at| (*at - now).to_std().ok())
            .map_or(IDLE_CHECK, |until| until.min(IDLE_CHECK));
        let Some(woken) = app.db.events().wait(sleep) else {
            return;
        };
        for tenant_id in woken {
            // A tenant being sent to is looked at again when its worker finishes.
            if workers
                .in_flight
                .lock()
                .is_ok_and(|busy| busy.contains(&tenant_id))
            {
                continue;
            }
            match due_of(app, tenant_id) {
                Some(at) => due.insert(tenant_id, at),
                None => due.remove(&tenant_id),
            };
        }
    }
}
