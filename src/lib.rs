//! Brigade: an on-premise restaurant operations server.
//!
//! One process serves the JSON API, keeps each tenant in its own SQLite file and
//! records every state change as an event in that file's outbox.

pub mod api;
pub mod auth;
pub mod backup;
pub mod cli;
pub mod config;
pub mod db;
pub mod demo;
pub mod discovery;
pub mod domain;
pub mod error;
pub mod events;
pub mod health;
pub mod inbound;
pub mod local_server;
pub mod logging;
pub mod money;
pub mod scheduler;
pub mod time;
pub mod tls;
pub mod web;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rocket::config::{LogLevel, TlsConfig};
use rocket::data::{Limits, ToByteUnit};
use rocket::fairing::AdHoc;
use rocket::{catchers, Build, Rocket};

use auth::rate_limit::{FailureLimiter, LoginLimiter};
use auth::tokens::TokenKeys;
pub use config::Config;
use db::{Databases, TenantDb};
use error::ApiError;
use events::dispatcher::Dispatcher;
use uuid::Uuid;

/// Wrong PINs a device, or wrong setup-key codes an address, may try before
/// being refused (429) for the rest of the window: 5 minutes for PINs, 15 for codes.
pub const WRONG_GUESSES: u32 = 5;
/// Unknown coupon codes one person may try in ten minutes: enough for typos.
pub const WRONG_COUPONS: u32 = 10;

/// Everything a request may need, shared by all of them.
pub struct App {
    pub config: Config,
    pub db: Databases,
    pub tokens: TokenKeys,
    pub login_limiter: LoginLimiter,
    /// Wrong PINs, per paired device.
    pub pin_limiter: FailureLimiter<String>,
    /// Wrong setup-key codes, per client address.
    pub pairing_limiter: FailureLimiter<std::net::IpAddr>,
    /// Unknown coupon codes, per tenant and person.
    pub coupon_limiter: FailureLimiter<String>,
    /// When each API key was last recorded as seen.
    pub last_seen: auth::devices::LastSeen,
    /// Revoked device credentials, for the event streams open with them.
    pub revocations: auth::devices::Revocations,
    pub public_limiter: api::public::PublicLimiter,
    pub scheduler: scheduler::Scheduler,
    /// The server's own backups: when, and how the last one went.
    pub backups: backup::schedule::BackupSchedule,
    /// Where writes get their `now`.
    pub clock: time::Clock,
    /// Partners' messages: the key that seals their secrets, refusals per
    /// address, and the inbox worker's wake-up.
    pub inbound: inbound::Inbound,
}

impl App {
    /// Opens the data dir (creating it if needed) and loads the server secrets.
    pub fn open(config: Config) -> Result<Arc<App>, String> {
        Self::open_with_clock(config, time::Clock::system())
    }

    /// As [`App::open`], with writes stamped by `clock` instead of the wall clock.
    pub fn open_with_clock(config: Config, clock: time::Clock) -> Result<Arc<App>, String> {
        let db = Databases::open(&config.data_dir, config.synchronous_full)?;
        let jwt_secret = db
            .server_secret("jwt_signing_key", 32)
            .map_err(|e| format!("cannot read server secrets: {e}"))?;
        let sealing_key = db
            .server_secret("integration_sealing_key", 32)
            .map_err(|e| format!("cannot read server secrets: {e}"))?;
        Ok(Arc::new(App {
            tokens: TokenKeys::new(&jwt_secret),
            login_limiter: LoginLimiter::new(config.login_attempts_per_minute),
            pin_limiter: FailureLimiter::new(WRONG_GUESSES, Duration::from_secs(5 * 60)),
            pairing_limiter: FailureLimiter::new(WRONG_GUESSES, Duration::from_secs(15 * 60)),
            coupon_limiter: FailureLimiter::new(WRONG_COUPONS, Duration::from_secs(10 * 60)),
            last_seen: auth::devices::LastSeen::default(),
            revocations: auth::devices::Revocations::default(),
            public_limiter: api::public::PublicLimiter::new(config.public_requests_per_minute),
            scheduler: scheduler::Scheduler::default(),
            backups: backup::schedule::BackupSchedule::new(&config),
            clock,
            inbound: inbound::Inbound::new(&sealing_key),
            db,
            config,
        }))
    }
}

impl App {
    /// The write context of `actor` in a tenant, now.
    pub fn context(&self, tenant_id: Uuid, actor: impl Into<String>) -> domain::Context {
        domain::Context {
            tenant_id,
            actor: actor.into(),
            now: self.clock.now(),
        }
    }

    /// Runs `work` as a write of `tenant` in a transaction of its own, on the calling
    /// thread, and applies its effects once committed. Blocking: for the scheduler,
    /// set-up and other work outside requests.
    pub fn write<T>(
        &self,
        tenant: &TenantDb,
        actor: &str,
        work: impl FnOnce(&mut domain::Tx) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let context = self.context(tenant.info.id, actor);
        let (value, after_commit) = tenant.write(|sql| domain::run(sql, context, work))?;
        self.after_commit(tenant.info.id, after_commit);
        Ok(value)
    }

    /// Runs `work` as a write of `tenant` on its group-commit queue, committed
    /// when it returns `Ok`, and applies its effects once committed. The way
    /// requests write.
    pub async fn write_queued<T, F>(
        &self,
        tenant: &TenantDb,
        actor: String,
        work: F,
    ) -> Result<T, ApiError>
    where
        F: FnOnce(&mut domain::Tx) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let context = self.context(tenant.info.id, actor);
        let (value, after_commit) = tenant
            .write_queued(move |sql| domain::run(sql, context, work))
            .await?;
        self.after_commit(tenant.info.id, after_commit);
        Ok(value)
    }

    /// What a committed write left to do. Its events already reach delivery and
    /// the live stream through the outbox.
    pub fn after_commit(&self, tenant_id: Uuid, after_commit: domain::AfterCommit) {
        if after_commit.reschedule {
            self.scheduler.forget(tenant_id);
        }
        if after_commit.wake_delivery {
            self.db.events().wake(tenant_id);
        }
    }
}

/// Locks `mutex` even if a thread panicked while holding it: for state that stays
/// valid whatever a panicking holder was doing, kept by threads that must go on.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The HTTP server for `app`, ready to launch.
pub fn build_rocket(app: Arc<App>) -> Rocket<Build> {
    let config = &app.config;
    let rocket_config = rocket::Config {
        address: config.address,
        port: config.port,
        limits: Limits::default().limit("json", config.json_limit.bytes()),
        // Rocket's records go through the server's own log (see `logging`).
        log_level: LogLevel::Off,
        cli_colors: false,
        // A LAN server with no proxy in front: never trust a client-set address header.
        ip_header: None,
        tls: config
            .tls
            .as_ref()
            .map(|files| TlsConfig::from_paths(&files.cert, &files.key)),
        ..rocket::Config::default()
    };
    // The scheduler and the scheduled backups run while the server does, and
    // stop with it.
    let scheduler_thread = Arc::new(scheduler::Thread::default());
    let backup_thread = Arc::new(scheduler::Thread::default());
    let (threads, stopping_threads, threads_app) = (
        (scheduler_thread.clone(), backup_thread.clone()),
        (scheduler_thread, backup_thread),
        app.clone(),
    );
    let dispatcher = Arc::new(Mutex::new(None::<Dispatcher>));
    let stopping = dispatcher.clone();
    let inbox_worker = Arc::new(Mutex::new(None::<inbound::worker::Worker>));
    let (inbox_starting, inbox_stopping, inbox_app) =
        (inbox_worker.clone(), inbox_worker, app.clone());
    logging::init(config.log_level);
    rocket::custom(rocket_config)
        .manage(app.clone())
        .attach(logging::RequestLog)
        .attach(AdHoc::on_liftoff("scheduler", move |_| {
            Box::pin(async move {
                let (scheduler, backups) = threads;
                scheduler.start(
                    "scheduler",
                    scheduler::TICK,
                    threads_app.clone(),
                    scheduler::no_show_pass,
                );
                if threads_app.backups.is_enabled() {
                    let tick = threads_app.backups.tick();
                    backups.start("backup", tick, threads_app, backup::schedule::backup_pass);
                }
            })
        }))
        .attach(AdHoc::on_shutdown("scheduler", move |_| {
            Box::pin(async move {
                stopping_threads.0.stop();
                stopping_threads.1.stop();
            })
        }))
        .mount(api::BASE, api::routes())
        .mount("/", web::routes())
        .mount("/", health::routes())
        .mount("/", inbound::receive::routes())
        .register("/", catchers![error::catch_all])
        // Webhooks are delivered while the server runs, and in-flight attempts finish
        // before it stops.
        .attach(AdHoc::on_liftoff("webhook dispatcher", move |_| {
            Box::pin(async move {
                if let Ok(mut slot) = dispatcher.lock() {
                    *slot = Some(Dispatcher::start(app));
                }
            })
        }))
        // Partners' messages are carried out while the server runs; the one in
        // hand finishes before it stops.
        .attach(AdHoc::on_liftoff("inbox worker", move |_| {
            Box::pin(async move {
                *lock(&inbox_starting) = Some(inbound::worker::Worker::start(inbox_app));
            })
        }))
        .attach(AdHoc::on_shutdown("inbox worker stop", move |_| {
            Box::pin(async move {
                let running = lock(&inbox_stopping).take();
                if let Some(running) = running {
                    let _ = rocket::tokio::task::spawn_blocking(move || running.stop()).await;
                }
            })
        }))
        .attach(AdHoc::on_shutdown("webhook dispatcher stop", move |_| {
            Box::pin(async move {
                let running = stopping.lock().ok().and_then(|mut slot| slot.take());
                if let Some(running) = running {
                    let _ = rocket::tokio::task::spawn_blocking(move || running.stop()).await;
                }
            })
        }))
}
