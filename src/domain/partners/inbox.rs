//! The inbox: every message a partner sent, stored before it is answered and
//! processed afterwards by the inbox worker, retried with backoff until it is
//! processed, parked for a manager, or failed. Repeats are recorded as
//! duplicates and never processed twice.

use chrono::{DateTime, Duration, Utc};
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use super::model::IntegrationKind;
use crate::domain::Tx;
use crate::error::ApiError;

/// A body seen again within this window is a duplicate, whatever its event id.
pub const DUPLICATE_WINDOW: Duration = Duration::hours(24);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MessageStatus {
    /// Verified and stored; waiting for (or between) processing attempts.
    Received,
    Processed,
    /// A repeat of an earlier message: acknowledged, not processed.
    Duplicate,
    /// Refused at the door (unknown or disabled integration, bad signature).
    Rejected,
    /// Verified but needing a manager: an unknown order, a currency mismatch.
    Parked,
    /// Cannot be processed as it is, or kept failing for 24 hours.
    Failed,
}

impl MessageStatus {
    pub const ALL: [MessageStatus; 6] = [
        MessageStatus::Received,
        MessageStatus::Processed,
        MessageStatus::Duplicate,
        MessageStatus::Rejected,
        MessageStatus::Parked,
        MessageStatus::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MessageStatus::Received => "received",
            MessageStatus::Processed => "processed",
            MessageStatus::Duplicate => "duplicate",
            MessageStatus::Rejected => "rejected",
            MessageStatus::Parked => "parked",
            MessageStatus::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// A message as the API shows it, with its raw body.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct InboxMessage {
    pub id: String,
    pub kind: IntegrationKind,
    /// The integration's name.
    pub name: String,
    /// The platform's id of the event, when it sends one.
    pub event_id: Option<String>,
    pub status: MessageStatus,
    /// Why it was rejected, parked or failed, or why the last attempt failed.
    pub reason: Option<String>,
    /// The earlier message this one repeats.
    pub duplicate_of: Option<String>,
    /// The headers kept (never credentials).
    #[schema(value_type = Object)]
    pub headers: Value,
    /// The body as received (invalid UTF-8 shown replaced).
    pub body: String,
    pub remote_address: Option<String>,
    pub received_at: String,
    pub attempts: i64,
    pub next_attempt_at: Option<String>,
    /// The order it created or touched.
    pub order_id: Option<String>,
    pub processed_at: Option<String>,
}

/// A message to store.
pub struct NewMessage {
    pub kind: IntegrationKind,
    pub name: String,
    pub event_id: Option<String>,
    pub body_sha256: String,
    pub headers: Value,
    pub body: Vec<u8>,
    pub remote_address: Option<String>,
    /// `Some(reason)` for a rejected message.
    pub rejected: Option<String>,
}

/// What storing a message came to.
#[derive(Debug, PartialEq)]
pub struct Stored {
    pub id: String,
    pub status: MessageStatus,
}

const COLUMNS: &str = "id, kind, name, event_id, status, reason, duplicate_of, headers, body, \
     remote_address, received_at, attempts, next_attempt_at, order_id, processed_at";

fn message_from_row(r: &Row) -> rusqlite::Result<InboxMessage> {
    let kind: String = r.get(1)?;
    let status: String = r.get(4)?;
    let headers: String = r.get(7)?;
    let body: Vec<u8> = r.get(8)?;
    Ok(InboxMessage {
        id: r.get(0)?,
        kind: IntegrationKind::parse(&kind).unwrap_or(IntegrationKind::Payment),
        name: r.get(2)?,
        event_id: r.get(3)?,
        status: MessageStatus::parse(&status).unwrap_or(MessageStatus::Failed),
        reason: r.get(5)?,
        duplicate_of: r.get(6)?,
        headers: serde_json::from_str(&headers).unwrap_or(Value::Null),
        body: String::from_utf8_lossy(&body).into_owned(),
        remote_address: r.get(9)?,
        received_at: r.get(10)?,
        attempts: r.get(11)?,
        next_attempt_at: r.get(12)?,
        order_id: r.get(13)?,
        processed_at: r.get(14)?,
    })
}

/// The earlier message `new` repeats: the same platform event id, or the same
/// body within [`DUPLICATE_WINDOW`] (a platform resending under a new id).
fn original_of(tx: &Tx, new: &NewMessage) -> Result<Option<String>, ApiError> {
    let kind = new.kind.as_str();
    if let Some(event_id) = &new.event_id {
        let same_event = tx
            .prepare_cached(
                "SELECT id FROM inbox_messages WHERE kind = ?1 AND name = ?2 AND event_id = ?3 \
                 AND status NOT IN ('duplicate', 'rejected')",
            )?
            .query_row(params![kind, new.name, event_id], |r| r.get(0))
            .optional()?;
        if same_event.is_some() {
            return Ok(same_event);
        }
    }
    let since = crate::time::rfc3339(tx.now() - DUPLICATE_WINDOW);
    Ok(tx
        .prepare_cached(
            "SELECT id FROM inbox_messages WHERE kind = ?1 AND name = ?2 AND body_sha256 = ?3 \
             AND received_at >= ?4 AND status NOT IN ('duplicate', 'rejected') LIMIT 1",
        )?
        .query_row(params![kind, new.name, new.body_sha256, since], |r| {
            r.get(0)
        })
        .optional()?)
}

/// Stores a message as received (due at once), as a duplicate of an earlier
/// one, or as rejected.
pub fn store_message(tx: &Tx, new: NewMessage) -> Result<Stored, ApiError> {
    let duplicate_of = match new.rejected {
        Some(_) => None,
        None => original_of(tx, &new)?,
    };
    let status = match (&new.rejected, &duplicate_of) {
        (Some(_), _) => MessageStatus::Rejected,
        (None, Some(_)) => MessageStatus::Duplicate,
        (None, None) => MessageStatus::Received,
    };
    let id = Uuid::now_v7().to_string();
    let now = tx.now_text().to_string();
    let next_attempt = (status == MessageStatus::Received).then(|| now.clone());
    tx.prepare_cached(
        "INSERT INTO inbox_messages (id, kind, name, event_id, body_sha256, headers, body, remote_address, \
         received_at, status, reason, duplicate_of, next_attempt_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?
    .execute(params![
        id,
        new.kind.as_str(),
        new.name,
        new.event_id,
        new.body_sha256,
        new.headers.to_string(),
        new.body,
        new.remote_address,
        now,
        status.as_str(),
        new.rejected,
        duplicate_of,
        next_attempt
    ])?;
    Ok(Stored { id, status })
}

pub fn get_message(conn: &Connection, id: &str) -> Result<InboxMessage, ApiError> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM inbox_messages WHERE id = ?1"
    ))?
    .query_row([id], message_from_row)
    .optional()?
    .ok_or_else(|| ApiError::not_found("message"))
}

/// Messages newest first, optionally of one status, before the cursor (an id).
pub fn list_messages(
    conn: &Connection,
    status: Option<MessageStatus>,
    before: Option<&str>,
    limit: u32,
) -> Result<Vec<InboxMessage>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM inbox_messages WHERE (?1 IS NULL OR status = ?1) \
         AND (?2 IS NULL OR id < ?2) ORDER BY id DESC LIMIT ?3"
    ))?;
    let rows = stmt.query_map(
        params![status.map(MessageStatus::as_str), before, limit + 1],
        message_from_row,
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Messages due for an attempt at `now`, oldest first.
pub fn due_messages(
    conn: &Connection,
    now: DateTime<Utc>,
    limit: u32,
) -> Result<Vec<InboxMessage>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM inbox_messages WHERE status = 'received' AND next_attempt_at <= ?1 \
         ORDER BY next_attempt_at, id LIMIT ?2"
    ))?;
    let rows = stmt.query_map(params![crate::time::rfc3339(now), limit], message_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// When the next message falls due; `None` when none waits.
pub fn next_due(conn: &Connection) -> Result<Option<DateTime<Utc>>, ApiError> {
    let next: Option<String> = conn
        .prepare_cached(
            "SELECT MIN(next_attempt_at) FROM inbox_messages WHERE status = 'received'",
        )?
        .query_row([], |r| r.get(0))?;
    Ok(next.as_deref().and_then(crate::time::parse_rfc3339))
}

/// How an attempt at a message ended.
pub enum Outcome {
    Processed {
        order_id: Option<String>,
    },
    Parked {
        reason: String,
    },
    Failed {
        reason: String,
    },
    /// Try again at `at`.
    Retry {
        reason: String,
        at: DateTime<Utc>,
    },
}

/// Records how an attempt ended. Only a message still `received` changes, so
/// an attempt never overwrites a manager's decision taken meanwhile.
pub fn finish_attempt(tx: &Tx, id: &str, outcome: Outcome) -> Result<(), ApiError> {
    let now = tx.now_text().to_string();
    let (status, reason, order_id, next) = match outcome {
        Outcome::Processed { order_id } => (MessageStatus::Processed, None, order_id, None),
        Outcome::Parked { reason } => (MessageStatus::Parked, Some(reason), None, None),
        Outcome::Failed { reason } => (MessageStatus::Failed, Some(reason), None, None),
        Outcome::Retry { reason, at } => (
            MessageStatus::Received,
            Some(reason),
            None,
            Some(crate::time::rfc3339(at)),
        ),
    };
    let processed_at = (status == MessageStatus::Processed).then(|| now.clone());
    tx.prepare_cached(
        "UPDATE inbox_messages SET status = ?2, reason = ?3, order_id = COALESCE(?4, order_id), \
         next_attempt_at = ?5, processed_at = ?6, attempts = attempts + 1 \
         WHERE id = ?1 AND status = 'received'",
    )?
    .execute(params![
        id,
        status.as_str(),
        reason,
        order_id,
        next,
        processed_at
    ])?;
    Ok(())
}

/// Puts a parked or failed message back in line, due at once.
pub fn retry_message(tx: &Tx, id: &str) -> Result<InboxMessage, ApiError> {
    let message = get_message(tx, id)?;
    if !matches!(
        message.status,
        MessageStatus::Parked | MessageStatus::Failed
    ) {
        return Err(ApiError::illegal_transition(
            "the message",
            message.status.as_str(),
            "received",
        ));
    }
    tx.execute(
        "UPDATE inbox_messages SET status = 'received', next_attempt_at = ?2 WHERE id = ?1",
        params![id, tx.now_text()],
    )?;
    get_message(tx, id)
}

/// Counts for the notifications summary.
#[derive(Debug, Default, Serialize, ToSchema)]
pub struct InboxCounts {
    /// Messages waiting for a manager.
    pub parked: i64,
    /// Messages that could not be processed.
    pub failed: i64,
    /// Messages refused in the last 24 hours (bad signature, unknown or
    /// disabled integration).
    pub rejected_24h: i64,
}

pub fn inbox_counts(conn: &Connection, now: DateTime<Utc>) -> Result<InboxCounts, ApiError> {
    let since = crate::time::rfc3339(now - Duration::hours(24));
    Ok(conn
        .prepare_cached(
            "SELECT (SELECT COUNT(*) FROM inbox_messages WHERE status = 'parked'), \
                    (SELECT COUNT(*) FROM inbox_messages WHERE status = 'failed'), \
                    (SELECT COUNT(*) FROM inbox_messages WHERE status = 'rejected' AND received_at >= ?1)",
        )?
        .query_row([since], |r| {
            Ok(InboxCounts {
                parked: r.get(0)?,
                failed: r.get(1)?,
                rejected_24h: r.get(2)?,
            })
        })?)
}
