//! The delivery dispatcher: one thread that knows, for every tenant with pending
//! deliveries, when the next one is due, and a small pool of threads that send them.
//!
//! It is woken when a transaction commits events (no polling on the hot path) and
//! otherwise sleeps until the earliest due retry. Tenant files are read once at
//! start; after that only tenants that were woken are looked at again.

use std::collections::{HashMap, HashSet};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
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

/// The running dispatcher and its workers.
pub struct Dispatcher {
    app: Arc<App>,
    threads: Vec<JoinHandle<()>>,
}

impl Dispatcher {
    pub fn start(app: Arc<App>) -> Dispatcher {
        let (jobs, queue) = mpsc::channel::<Uuid>();
        let queue = Arc::new(Mutex::new(queue));
        let in_flight = Arc::new(Mutex::new(HashSet::new()));
        let sender = Arc::new(Sender::new(app.config.webhook_timeout));
        let mut threads = Vec::new();
        for n in 0..app.config.webhook_workers.max(1) {
            let (app, queue, in_flight, sender) = (
                app.clone(),
                queue.clone(),
                in_flight.clone(),
                sender.clone(),
            );
            threads.push(spawn(format!("webhook-{n}"), move || {
                work(&app, &queue, &in_flight, &sender)
            }));
        }
        let dispatcher_app = app.clone();
        threads.push(spawn("webhook-dispatcher".into(), move || {
            dispatch(&dispatcher_app, jobs, &in_flight)
        }));
        Dispatcher { app, threads }
    }

    /// Stops taking new work and waits for attempts in flight to finish.
    pub fn stop(self) {
        self.app.db.events().stop();
        for thread in self.threads {
            let _ = thread.join();
        }
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

fn dispatch(app: &App, jobs: mpsc::Sender<Uuid>, in_flight: &Mutex<HashSet<Uuid>>) {
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
            if in_flight
                .lock()
                .is_ok_and(|mut busy| busy.insert(tenant_id))
                && jobs.send(tenant_id).is_err()
            {
                return;
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
            if in_flight.lock().is_ok_and(|busy| busy.contains(&tenant_id)) {
                continue;
            }
            match due_of(app, tenant_id) {
                Some(at) => due.insert(tenant_id, at),
                None => due.remove(&tenant_id),
            };
        }
    }
}

fn work(
    app: &App,
    queue: &Mutex<mpsc::Receiver<Uuid>>,
    in_flight: &Mutex<HashSet<Uuid>>,
    sender: &Sender,
) {
    loop {
        let job = match queue.lock() {
            Ok(queue) => queue.recv(),
            Err(_) => return,
        };
        let Ok(tenant_id) = job else {
            return;
        };
        let result = app
            .db
            .tenant(tenant_id)
            .and_then(|tenant| delivery::deliver_due(&tenant, sender, &Utc::now, BATCH));
        if let Err(error) = result {
            log::error!(
                "webhooks: delivery for tenant {tenant_id} failed: {}",
                error.detail
            );
            std::thread::sleep(ERROR_PAUSE);
        }
        if let Ok(mut busy) = in_flight.lock() {
            busy.remove(&tenant_id);
        }
        app.db.events().wake(tenant_id);
    }
}
