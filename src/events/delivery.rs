//! Delivering one tenant's due events: the signed POST, the outcome rules and the
//! record of every attempt. [`deliver_due`] is the single step the dispatcher runs
//! and tests drive with their own clock.

use std::io::Read;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::schedule::{self, Next};
use super::signature;
use crate::db::TenantDb;
use crate::error::ApiError;

/// How much of a receiver's answer is kept with the attempt.
const SNIPPET_BYTES: u64 = 512;

/// The tenant's endpoint as the worker needs it.
pub struct Endpoint {
    pub url: String,
    pub enabled: bool,
    pub secret: String,
}

pub fn load_endpoint(conn: &Connection) -> Result<Option<Endpoint>, ApiError> {
    Ok(conn
        .query_row(
            "SELECT url, enabled, secret FROM webhook_endpoint WHERE id = 1",
            [],
            |r| {
                Ok(Endpoint {
                    url: r.get(0)?,
                    enabled: r.get(1)?,
                    secret: r.get(2)?,
                })
            },
        )
        .optional()?)
}

/// When the tenant next has something to send: `None` without an enabled endpoint
/// or pending delivery.
pub fn earliest_due(conn: &Connection) -> Result<Option<DateTime<Utc>>, ApiError> {
    if !load_endpoint(conn)?.is_some_and(|e| e.enabled) {
        return Ok(None);
    }
    let next: Option<String> = conn
        .prepare_cached(
            "SELECT MIN(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending'",
        )?
        .query_row([], |r| r.get(0))?;
    Ok(next.as_deref().and_then(crate::time::parse_rfc3339))
}

/// The HTTP side of delivery: one agent shared by every worker.
pub struct Sender {
    agent: ureq::Agent,
}

/// What one POST came to.
#[derive(Debug)]
pub struct Attempt {
    pub status_code: Option<u16>,
    /// `None` when acknowledged; otherwise http_status, redirect, timeout, connection or other.
    pub error_class: Option<&'static str>,
    pub detail: String,
    pub duration: Duration,
    pub snippet: String,
    pub retry_after: Option<Duration>,
}

impl Sender {
    pub fn new(timeout: Duration) -> Sender {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .max_redirects(0)
            .http_status_as_error(false)
            .user_agent(concat!("Brigade/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Sender { agent }
    }

    /// POSTs the stored body, signed with `secret` at `now`.
    pub fn post(
        &self,
        url: &str,
        secret: &str,
        event_id: &str,
        event: &str,
        body: &str,
        now: DateTime<Utc>,
    ) -> Attempt {
        let started = Instant::now();
        let result = self
            .agent
            .post(url)
            .header("Content-Type", "application/json")
            .header(
                signature::HEADER,
                signature::sign(secret, now.timestamp(), body.as_bytes()),
            )
            .header("X-Brigade-Event-Id", event_id)
            .header("X-Brigade-Event", event)
            .send(body.as_bytes());
        let mut response = match result {
            Ok(response) => response,
            Err(error) => {
                let class = match error {
                    ureq::Error::Timeout(_) => "timeout",
                    ureq::Error::Io(_)
                    | ureq::Error::ConnectionFailed
                    | ureq::Error::HostNotFound => "connection",
                    _ => "other",
                };
                return Attempt {
                    status_code: None,
                    error_class: Some(class),
                    detail: error.to_string(),
                    duration: started.elapsed(),
                    snippet: String::new(),
                    retry_after: None,
                };
            }
        };
        let status = response.status().as_u16();
        let retry_after = matches!(status, 429 | 503)
            .then(|| response.headers().get("Retry-After")?.to_str().ok())
            .flatten()
            .and_then(|v| schedule::parse_retry_after(v, now));
        let mut snippet = Vec::new();
        // The answer's body is only kept for the record; a broken one changes nothing.
        let _ = response
            .body_mut()
            .as_reader()
            .take(SNIPPET_BYTES)
            .read_to_end(&mut snippet);
        let error_class = match status {
            200..=299 => None,
            300..=399 => Some("redirect"),
            _ => Some("http_status"),
        };
        Attempt {
            status_code: Some(status),
            error_class,
            detail: format!("HTTP {status}"),
            duration: started.elapsed(),
            snippet: String::from_utf8_lossy(&snippet).into_owned(),
            retry_after,
        }
    }
}

/// A pending delivery whose time has come.
struct Due {
    event_id: String,
    event: String,
    body: String,
    round_started_at: Option<String>,
    round_attempts: u32,
}

fn next_due(conn: &Connection, now: DateTime<Utc>) -> Result<Option<Due>, ApiError> {
    Ok(conn
        .query_row(
            "SELECT d.event_id, o.event, o.body, d.round_started_at, d.round_attempts \
             FROM webhook_deliveries d JOIN outbox o ON o.event_id = d.event_id \
             WHERE d.status = 'pending' AND d.next_attempt_at <= ?1 ORDER BY d.seq LIMIT 1",
            [crate::time::rfc3339(now)],
            |r| {
                Ok(Due {
                    event_id: r.get(0)?,
                    event: r.get(1)?,
                    body: r.get(2)?,
                    round_started_at: r.get(3)?,
                    round_attempts: r.get(4)?,
                })
            },
        )
        .optional()?)
}

/// What one step did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Step {
    pub delivered: usize,
    pub failed_attempts: usize,
}

/// Sends the tenant's due events in created order, at most `limit`, reading the
/// time from `clock` before each attempt. Stops after a failed attempt, so a
/// failing receiver holds its lane for one attempt at a time.
pub fn deliver_due(
    tenant: &TenantDb,
    sender: &Sender,
    clock: &dyn Fn() -> DateTime<Utc>,
    limit: usize,
) -> Result<Step, ApiError> {
    // One lane per tenant: at most one request in flight to its endpoint.
    let _lane = tenant
        .delivery_lane
        .lock()
        .map_err(|_| ApiError::internal("delivery lane poisoned"))?;
    let mut step = Step::default();
    // A tenant being closed for a restore is left at once; its file is read again after.
    while step.delivered < limit && !tenant.is_closing() {
        let now = clock();
        let (endpoint, due) =
            tenant.read(|conn| Ok((load_endpoint(conn)?, next_due(conn, now)?)))?;
        let (Some(endpoint), Some(due)) = (endpoint, due) else {
            break;
        };
        if !endpoint.enabled {
            break;
        }
        // Signed with the secret current at send time, so a rotation applies to retries.
        let attempt = sender.post(
            &endpoint.url,
            &endpoint.secret,
            &due.event_id,
            &due.event,
            &due.body,
            now,
        );
        let acknowledged = attempt.error_class.is_none();
        // Backoff counts from when the attempt ended: after a 10 s timeout, the
        // 5 s wait has not already passed.
        let finished = clock();
        tenant.write(|tx| record_attempt(tx, &due, &attempt, now, finished))?;
        if acknowledged {
            step.delivered += 1;
        } else {
            step.failed_attempts += 1;
            break;
        }
    }
    Ok(step)
}

fn record_attempt(
    conn: &Connection,
    due: &Due,
    attempt: &Attempt,
    now: DateTime<Utc>,
    finished: DateTime<Utc>,
) -> Result<(), ApiError> {
    let at = crate::time::rfc3339(now);
    conn.prepare_cached("INSERT INTO webhook_attempts (event_id, attempted_at, status_code, error_class, duration_ms, response_snippet) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?.execute(params![
            due.event_id,
            at,
            attempt.status_code,
            attempt.error_class,
            attempt.duration.as_millis() as i64,
            attempt.snippet
        ],
    )?;
    let round_started_at = due
        .round_started_at
        .as_deref()
        .and_then(crate::time::parse_rfc3339)
        .unwrap_or(now);
    let round_attempts = due.round_attempts + 1;
    let (status, next_attempt_at, delivered_at, last_error) = if attempt.error_class.is_none() {
        ("delivered", at.clone(), Some(at.clone()), None)
    } else {
        let error = Some(attempt.detail.clone());
        match schedule::after_failure(
            round_started_at,
            round_attempts,
            finished,
            attempt.retry_after,
            schedule::random_jitter(),
        ) {
            Next::RetryAt(next) => ("pending", crate::time::rfc3339(next), None, error),
            Next::Failed => ("failed", at.clone(), None, error),
        }
    };
    conn.prepare_cached("UPDATE webhook_deliveries SET status = ?2, attempts = attempts + 1, round_started_at = ?3, \
         round_attempts = ?4, next_attempt_at = ?5, delivered_at = ?6, last_error = ?7 WHERE event_id = ?1")?.execute(params![
            due.event_id,
            status,
            crate::time::rfc3339(round_started_at),
            round_attempts,
            next_attempt_at,
            delivered_at,
            last_error
        ],
    )?;
    Ok(())
}
