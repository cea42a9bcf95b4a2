//! The server's log on stdout: a timestamp, the level and the message, one
//! record a line, for the journal or a grep. Every answered request gets a line
//! of `key=value` fields under an id that the client also receives in
//! `X-Request-Id`, so a complaint about one request finds its line.
//!
//! A line names the route's pattern, never the path or the query, and no body
//! or header but the tenant id: guests' names, emails and phone numbers and
//! every credential stay out of the log. Other crates' records (Rocket's name
//! whole paths) are shown at `debug` only.

use std::io::Write;
use std::time::Instant;

use chrono::{SecondsFormat, Utc};
use clap::ValueEnum;
use log::{Level, LevelFilter, Log, Metadata, Record};
use rocket::fairing::{Fairing, Info, Kind};
use rocket::http::Header;
use rocket::{Data, Request, Response};
use uuid::Uuid;

/// How much the server logs, from nothing to everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogLevel {
    Off,
    Error,
    Warn,
    /// Warnings, errors and a line per request.
    Info,
    /// Also Rocket's and its libraries' own records, which name whole paths.
    Debug,
}

impl LogLevel {
    fn filter(self) -> LevelFilter {
        match self {
            LogLevel::Off => LevelFilter::Off,
            LogLevel::Error => LevelFilter::Error,
            LogLevel::Warn => LevelFilter::Warn,
            LogLevel::Info => LevelFilter::Info,
            LogLevel::Debug => LevelFilter::Debug,
        }
    }
}

struct StdoutLog {
    level: LogLevel,
}

impl Log for StdoutLog {
    fn enabled(&self, metadata: &Metadata) -> bool {
        metadata.level() <= self.level.filter()
            && (self.level == LogLevel::Debug || metadata.target().starts_with("brigade"))
    }

    fn log(&self, record: &Record) {
        if self.enabled(record.metadata()) {
            let at = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{at} {:<5} {}", record.level(), record.args());
        }
    }

    fn flush(&self) {
        let _ = std::io::stdout().flush();
    }
}

/// Installs the log for this process at `level`. Must run before Rocket is
/// built, which otherwise installs its own; a second call changes nothing.
pub fn init(level: LogLevel) {
    if level == LogLevel::Off {
        return;
    }
    if log::set_boxed_logger(Box::new(StdoutLog { level })).is_ok() {
        log::set_max_level(level.filter());
    }
}

/// Gives each request an id, returns it in `X-Request-Id` and logs the answer.
pub struct RequestLog;

/// A request's id and when it arrived.
struct Started {
    id: Uuid,
    at: Instant,
}

fn started<'r>(request: &'r Request<'_>) -> &'r Started {
    request.local_cache(|| Started {
        id: Uuid::now_v7(),
        at: Instant::now(),
    })
}

#[rocket::async_trait]
impl Fairing for RequestLog {
    fn info(&self) -> Info {
        Info {
            name: "request log",
            kind: Kind::Request | Kind::Response,
        }
    }

    async fn on_request(&self, request: &mut Request<'_>, _: &mut Data<'_>) {
        started(request);
    }

    async fn on_response<'r>(&self, request: &'r Request<'_>, response: &mut Response<'r>) {
        let started = started(request);
        response.set_header(Header::new("X-Request-Id", started.id.to_string()));
        if !log::log_enabled!(Level::Info) {
            return;
        }
        let route = request
            .route()
            .map_or_else(|| "none".to_string(), |route| route.uri.to_string());
        // Only a well-formed id: the header is whatever the client sent.
        let tenant = request
            .headers()
            .get_one("X-Tenant-ID")
            .and_then(|value| Uuid::parse_str(value).ok())
            .map_or_else(|| "none".to_string(), |id| id.to_string());
        log::info!(
            "request id={} method={} route={route} tenant={tenant} status={} ms={}",
            started.id,
            request.method(),
            response.status().code,
            started.at.elapsed().as_millis(),
        );
    }
}
