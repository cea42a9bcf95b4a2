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
pub mod time;

use std::sync::Arc;

use rocket::config::LogLevel;
use rocket::data::{Limits, ToByteUnit};
use rocket::{catchers, Build, Rocket};

use auth::rate_limit::LoginLimiter;
use auth::tokens::TokenKeys;
pub use config::Config;
use db::Databases;

/// Everything a request may need, shared by all of them.
pub struct App {
    pub config: Config,
    pub db: Databases,
    pub tokens: TokenKeys,
    pub login_limiter: LoginLimiter,
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
            db,
            config,
        }))
    }
}

/// The HTTP server for `app`, ready to launch.
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
    rocket::custom(rocket_config)
        .manage(app)
        .mount(api::BASE, api::routes())
        .register("/", catchers![error::catch_all])
}
