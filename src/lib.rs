//! Brigade: an on-premise restaurant operations server.
//!
//! One process serves the JSON API, keeps each tenant in its own SQLite file and
//! records every state change as an event in that file's outbox.

pub mod api;
pub mod auth;
pub mod cli;
pub mod config;
pub mod db;
pub mod demo;
pub mod error;
pub mod events;
pub mod money;
pub mod scheduler;
pub mod time;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rocket::config::LogLevel;
use rocket::data::{Limits, ToByteUnit};
use rocket::fairing::AdHoc;
use rocket::{catchers, Build, Rocket};

use auth::rate_limit::LoginLimiter;
use auth::tokens::TokenKeys;
pub use config::Config;
use db::Databases;
use events::dispatcher::Dispatcher;

/// Everything a request may need, shared by all of them.
pub struct App {
    pub config: Config,
    pub db: Databases,
    pub tokens: TokenKeys,
    pub login_limiter: LoginLimiter,
    pub public_limiter: api::public::PublicLimiter,
    pub scheduler: scheduler::Scheduler,
}

impl App {
    /// Opens the data dir (creating it if needed) and loads the server secrets.
    pub fn open(config: Config) -> Result<Arc<App>, String> {
        let db = Databases::open(&config.data_dir, config.synchronous_full)?;
        let jwt_secret = db
            .server_secret("jwt_signing_key", 32)
            .map_err(|e| format!("cannot read server secrets: {e}"))?;
        Ok(Arc::new(App {
            tokens: TokenKeys::new(&jwt_secret),
            login_limiter: LoginLimiter::new(config.login_attempts_per_minute),
            public_limiter: api::public::PublicLimiter::new(config.public_requests_per_minute),
            scheduler: scheduler::Scheduler::default(),
            db,
            config,
        }))
    }
}

/// The HTTP server for `app`, ready to launch.
/// Locks `mutex` even if a thread panicked while holding it: for state that stays
/// valid whatever a panicking holder was doing, kept by threads that must go on.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

pub fn build_rocket(app: Arc<App>) -> Rocket<Build> {
    let config = &app.config;
    let rocket_config = rocket::Config {
        address: config.address,
        port: config.port,
        limits: Limits::default().limit("json", config.json_limit.bytes()),
        log_level: if config.log {
            LogLevel::Critical
        } else {
            LogLevel::Off
        },
        cli_colors: false,
        // A LAN server with no proxy in front: never trust a client-set address header.
        ip_header: None,
        ..rocket::Config::default()
    };
    // The scheduler runs while the server does, and stops with it.
    let scheduler_thread = Arc::new(scheduler::Thread::default());
    let (starter, stopper, scheduler_app) =
        (scheduler_thread.clone(), scheduler_thread, app.clone());
    let dispatcher = Arc::new(Mutex::new(None::<Dispatcher>));
    let stopping = dispatcher.clone();
    rocket::custom(rocket_config)
        .manage(app.clone())
        .attach(AdHoc::on_liftoff("scheduler", move |_| {
            Box::pin(async move { starter.start(scheduler_app) })
        }))
        .attach(AdHoc::on_shutdown("scheduler", move |_| {
            Box::pin(async move { stopper.stop() })
        }))
        .mount(api::BASE, api::routes())
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
        .attach(AdHoc::on_shutdown("webhook dispatcher stop", move |_| {
            Box::pin(async move {
                let running = stopping.lock().ok().and_then(|mut slot| slot.take());
                if let Some(running) = running {
                    let _ = rocket::tokio::task::spawn_blocking(move || running.stop()).await;
                }
            })
        }))
}
