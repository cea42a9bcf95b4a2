//! The inbox worker: one thread that carries out the messages partners sent,
//! tenant by tenant, once they are stored and answered. A message that fails
//! for a passing reason (a platform's API did not answer, the database was
//! busy) is tried again with growing pauses for 24 hours; one that needs a
//! manager is parked; nothing is lost across a restart, as the worker starts
//! from what each tenant's inbox holds.
//!
//! A message's effects and its `processed` mark commit together, so a message
//! is carried out once however often the box stops while working on it.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::adapters::{self, Credentials, Failure};
use crate::db::TenantDb;
use crate::domain::partners::{
    self, InboxMessage, Instruction, IntegrationKind, Outcome, StoredIntegration,
};
use crate::error::ApiError;
use crate::events::schedule::{self, Next};
use crate::App;

/// Messages one tenant gets done before the others get their turn.
const BATCH: u32 = 50;
/// Even with nothing due the worker looks around this often.
const IDLE_CHECK: Duration = Duration::from_secs(60);
/// After a database error a tenant waits this long before it is looked at again,
/// so a broken file is not retried in a tight loop.
const ERROR_PAUSE: Duration = Duration::from_secs(5);

/// The running worker.
pub struct Worker {
    thread: JoinHandle<()>,
    app: Arc<App>,
}

impl Worker {
    pub fn start(app: Arc<App>) -> Worker {
        let (sender, receiver) = mpsc::channel::<Uuid>();
        app.inbound.listen(sender);
        let worker_app = app.clone();
        let thread = std::thread::Builder::new()
            .name("inbox-worker".into())
            .spawn(move || run(&worker_app, &receiver))
            .expect("the OS starts a thread");
        Worker { thread, app }
    }

    /// Ends the worker once the message in hand is done.
    pub fn stop(self) {
        self.app.inbound.stop_listening();
        let _ = self.thread.join();
    }
}

fn run(app: &App, woken: &mpsc::Receiver<Uuid>) {
    let agent = ureq::Agent::config_builder()
        .timeout_global(Some(app.config.webhook_timeout))
        .http_status_as_error(false)
        .user_agent(concat!("Brigade/", env!("CARGO_PKG_VERSION")))
        .build()
        .new_agent();
    // Every tenant's inbox is read once at start; after that, tenants are looked
    // at when woken or when their next retry falls due.
    let mut due: HashMap<Uuid, DateTime<Utc>> = HashMap::new();
    for tenant in app.db.tenants() {
        if let Some(at) = next_due_of(app, tenant.id) {
            due.insert(tenant.id, at);
        }
    }
    loop {
        let now = Utc::now();
        let ready: Vec<Uuid> = due
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(id, _)| *id)
            .collect();
        for tenant_id in ready {
            due.remove(&tenant_id);
            let worked = catch_unwind(AssertUnwindSafe(|| {
                app.db
                    .tenant(tenant_id)
                    .and_then(|tenant| process_due(app, &tenant, &agent, Utc::now()))
            }));
            let went_well = matches!(worked, Ok(Ok(())));
            match worked {
                Ok(Ok(())) => {}
                Ok(Err(error)) => log::error!("inbox: tenant {tenant_id}: {}", error.detail),
                Err(_) => log::error!("inbox: processing for tenant {tenant_id} panicked"),
            }
            if let Some(at) = next_due_of(app, tenant_id) {
                // A tenant whose messages keep failing is not retried in a tight loop.
                let at = if went_well {
                    at
                } else {
                    at.max(Utc::now() + ERROR_PAUSE)
                };
                due.insert(tenant_id, at);
            }
        }
        let wait = due
            .values()
            .min()
            .map(|at| (*at - Utc::now()).to_std().unwrap_or(Duration::ZERO))
            .unwrap_or(IDLE_CHECK)
            .min(IDLE_CHECK);
        match woken.recv_timeout(wait) {
            Ok(tenant_id) => {
                due.insert(tenant_id, Utc::now());
                while let Ok(more) = woken.try_recv() {
                    due.insert(more, Utc::now());
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
}

fn next_due_of(app: &App, tenant_id: Uuid) -> Option<DateTime<Utc>> {
    let tenant = app.db.tenant(tenant_id).ok()?;
    match tenant.read(partners::next_due) {
        Ok(at) => at,
        Err(error) => {
            log::error!(
                "inbox: cannot read the inbox of tenant {tenant_id}: {}",
                error.detail
            );
            None
        }
    }
}

/// Carries out what is due in one tenant's inbox at `now`: the step the worker
/// repeats, which tests drive with their own clock.
pub fn process_due(
    app: &App,
    tenant: &TenantDb,
    agent: &ureq::Agent,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    // A batch usually holds one platform's messages: its integration is read once.
    let mut integrations: HashMap<(IntegrationKind, String), Option<StoredIntegration>> =
        HashMap::new();
    for message in tenant.read(|conn| partners::due_messages(conn, now, BATCH))? {
        if tenant.is_closing() {
            break;
        }
        let key = (message.kind, message.name.clone());
        if !integrations.contains_key(&key) {
            let read = tenant
                .read(|conn| partners::stored_integration(conn, message.kind, &message.name))?;
            integrations.insert(key.clone(), read);
        }
        let outcome = match &integrations[&key] {
            Some(integration) => attempt(app, tenant, agent, &message, integration, now),
            None => Some(Outcome::Failed {
                reason: "the integration was removed".into(),
            }),
        };
        if let Some(outcome) = outcome {
            let id = message.id.clone();
            app.write(tenant, &actor(&message), move |tx| {
                partners::finish_attempt(tx, &id, outcome)
            })?;
        }
    }
    Ok(())
}

fn actor(message: &InboxMessage) -> String {
    format!("partner:{}", message.name)
}

/// One attempt at a message. `None` when it was processed: its effects and its
/// mark are already committed together.
fn attempt(
    app: &App,
    tenant: &TenantDb,
    agent: &ureq::Agent,
    message: &InboxMessage,
    integration: &StoredIntegration,
    now: DateTime<Utc>,
) -> Option<Outcome> {
    let failed = |reason: String| Some(Outcome::Failed { reason });
    let Some(adapter) = adapters::find(message.kind, &message.name) else {
        return failed(format!("no adapter called {}", message.name));
    };
    let parsed = adapter.parse(message.kind, message.body.as_bytes());
    let mut instructions = match parsed {
        Ok(instructions) => instructions,
        Err(Failure::Invalid(reason)) => return failed(reason),
        Err(Failure::Retry(reason)) => return retry(message, now, reason),
    };
    if instructions
        .iter()
        .any(|i| matches!(i, Instruction::FetchOrder { .. }))
    {
        let secret = match app.inbound.sealer.open(&integration.secret_sealed) {
            Ok(secret) => secret,
            Err(reason) => return failed(reason),
        };
        let credentials = Credentials {
            secret: &secret,
            options: &integration.options,
        };
        let mut fetched = Vec::with_capacity(instructions.len());
        for instruction in instructions {
            match instruction {
                Instruction::FetchOrder { external_id, href } => {
                    match adapter.fetch(agent, &credentials, &external_id, href.as_deref()) {
                        Ok(more) => fetched.extend(more),
                        Err(Failure::Invalid(reason)) => return failed(reason),
                        Err(Failure::Retry(reason)) => return retry(message, now, reason),
                    }
                }
                other => fetched.push(other),
            }
        }
        instructions = fetched;
    }
    let (id, name, auto_accept) = (
        message.id.clone(),
        message.name.clone(),
        integration.auto_accept,
    );
    let applied = app.write(tenant, &actor(message), move |tx| {
        let applied = partners::apply(tx, &name, auto_accept, &instructions)?;
        partners::finish_attempt(
            tx,
            &id,
            Outcome::Processed {
                order_id: applied.order_id,
            },
        )
    });
    match applied {
        Ok(()) => None,
        Err(error) if error.status.code < 500 => Some(Outcome::Parked {
            reason: error.detail,
        }),
        Err(error) => retry(message, now, error.detail),
    }
}

/// Tries the message again on the webhook deliveries' retry ladder (5 s,
/// 5 min, 30 min, … with jitter), or gives up 24 hours after it arrived.
fn retry(message: &InboxMessage, now: DateTime<Utc>, reason: String) -> Option<Outcome> {
    let received = crate::time::parse_rfc3339(&message.received_at).unwrap_or(now);
    let failures = u32::try_from(message.attempts + 1).unwrap_or(u32::MAX);
    Some(
        match schedule::after_failure(received, failures, now, None, schedule::random_jitter()) {
            Next::RetryAt(at) => Outcome::Retry { reason, at },
            Next::Failed => Outcome::Failed {
                reason: format!("gave up after 24 hours: {reason}"),
            },
        },
    )
}
