//! SQL of the webhook endpoint and the delivery records.

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::model::*;
use crate::domain::event::{Event, WebhookTestData, CONTRACT_EVENTS};
use crate::domain::Tx;
use crate::error::ApiError;

/// The events an endpoint takes: its own list, or the contract's catalogue.
fn subscribed(events: Option<String>) -> Vec<String> {
    events
        .and_then(|list| serde_json::from_str(&list).ok())
        .unwrap_or_else(|| CONTRACT_EVENTS.iter().map(|e| e.to_string()).collect())
}

pub fn get_endpoint(conn: &Connection) -> Result<WebhookEndpoint, ApiError> {
    let endpoint = conn
        .query_row(
            "SELECT url, enabled, secret, updated_at, events FROM webhook_endpoint WHERE id = 1",
            [],
            |r| {
                Ok(WebhookEndpoint {
                    url: Some(r.get(0)?),
                    enabled: r.get(1)?,
                    secret_last4: Some(last4(&r.get::<_, String>(2)?)),
                    events: subscribed(r.get(4)?),
                    updated_at: Some(r.get(3)?),
                    secret: None,
                })
            },
        )
        .optional()?;
    Ok(endpoint.unwrap_or(WebhookEndpoint {
        url: None,
        enabled: false,
        secret_last4: None,
        events: subscribed(None),
        updated_at: None,
        secret: None,
    }))
}

/// Sets the URL, the switch and, when given, the events sent; the first time,
/// also a secret, which is returned once. Only events committed from now on
/// follow a new list.
pub fn put_endpoint(
    tx: &mut Tx,
    url: &str,
    enabled: bool,
    events: Option<Vec<String>>,
) -> Result<WebhookEndpoint, ApiError> {
    // Events held back while no endpoint was enabled may go out now.
    tx.wake_delivery();
    let now = tx.now_text().to_string();
    let secret = new_secret();
    let created = tx.prepare_cached("INSERT OR IGNORE INTO webhook_endpoint (id, url, enabled, secret, updated_at) VALUES (1, ?1, ?2, ?3, ?4)")?.execute(params![url, enabled, secret, now],
    )? == 1;
    if !created {
        tx.prepare_cached(
            "UPDATE webhook_endpoint SET url = ?1, enabled = ?2, updated_at = ?3 WHERE id = 1",
        )?
        .execute(params![url, enabled, now])?;
    }
    if let Some(events) = events {
        tx.prepare_cached("UPDATE webhook_endpoint SET events = ?1 WHERE id = 1")?
            .execute([serde_json::to_string(&events).map_err(ApiError::internal)?])?;
    }
    let mut endpoint = get_endpoint(tx)?;
    endpoint.secret = created.then_some(secret);
    Ok(endpoint)
}

/// Replaces the secret; the old one signs nothing from now on.
pub fn rotate_secret(tx: &Tx) -> Result<WebhookEndpoint, ApiError> {
    let secret = new_secret();
    let changed = tx
        .prepare_cached("UPDATE webhook_endpoint SET secret = ?1, updated_at = ?2 WHERE id = 1")?
        .execute(params![secret, tx.now_text()])?;
    if changed == 0 {
        return Err(ApiError::conflict(
            "webhook_not_configured",
            "set the webhook endpoint with PUT /settings/webhook first",
        ));
    }
    let mut endpoint = get_endpoint(tx)?;
    endpoint.secret = Some(secret);
    Ok(endpoint)
}

const DELIVERY_COLUMNS: &str =
    "d.event_id, o.event, o.created_at, d.status, d.attempts, d.next_attempt_at, \
     d.delivered_at, d.last_error, o.body, d.seq";

fn delivery_from_row(r: &Row) -> rusqlite::Result<Delivery> {
    let status: String = r.get(3)?;
    let status = DeliveryStatus::parse(&status).unwrap_or(DeliveryStatus::Pending);
    let body: String = r.get(8)?;
    Ok(Delivery {
        event_id: r.get(0)?,
        event: r.get(1)?,
        created_at: r.get(2)?,
        status,
        attempt_count: r.get(4)?,
        next_attempt_at: (status == DeliveryStatus::Pending)
            .then(|| r.get(5))
            .transpose()?,
        delivered_at: r.get(6)?,
        last_error: r.get(7)?,
        payload: serde_json::from_str(&body).unwrap_or_default(),
        attempts: Vec::new(),
        seq: r.get(9)?,
    })
}

fn with_attempts(conn: &Connection, mut delivery: Delivery) -> Result<Delivery, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT attempted_at, status_code, error_class, duration_ms, response_snippet \
         FROM webhook_attempts WHERE event_id = ?1 ORDER BY id",
    )?;
    let attempts = stmt.query_map([&delivery.event_id], |r| {
        Ok(DeliveryAttempt {
            attempted_at: r.get(0)?,
            status_code: r.get(1)?,
            error_class: r.get(2)?,
            duration_ms: r.get(3)?,
            response_snippet: r.get(4)?,
        })
    })?;
    delivery.attempts = attempts.collect::<Result<_, _>>()?;
    Ok(delivery)
}

/// Deliveries newest first; `before` is the cursor of the previous page.
pub fn list_deliveries(
    conn: &Connection,
    status: Option<DeliveryStatus>,
    before: Option<i64>,
    limit: u32,
) -> Result<Vec<Delivery>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN outbox o ON o.event_id = d.event_id \
         WHERE (?1 IS NULL OR d.status = ?1) AND (?2 IS NULL OR d.seq < ?2) ORDER BY d.seq DESC LIMIT ?3"
    ))?;
    let rows = stmt.query_map(
        params![status.map(DeliveryStatus::as_str), before, limit + 1],
        delivery_from_row,
    )?;
    let rows: Vec<Delivery> = rows.collect::<Result<_, _>>()?;
    rows.into_iter().map(|d| with_attempts(conn, d)).collect()
}

pub fn get_delivery(conn: &Connection, event_id: &str) -> Result<Delivery, ApiError> {
    let delivery = conn
        .query_row(
            &format!(
                "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN outbox o ON o.event_id = d.event_id \
                 WHERE d.event_id = ?1"
            ),
            [event_id],
            delivery_from_row,
        )
        .optional()?
        .ok_or_else(|| ApiError::not_found("delivery"))?;
    with_attempts(conn, delivery)
}

/// Makes a pending or failed delivery due now. A failed one starts a new 24 h round.
pub fn retry_delivery(tx: &mut Tx, event_id: &str) -> Result<Delivery, ApiError> {
    let delivery = get_delivery(tx, event_id)?;
    if delivery.status == DeliveryStatus::Delivered {
        return Err(ApiError::illegal_transition(
            "delivery",
            "delivered",
            "pending",
        ));
    }
    tx.prepare_cached(
        "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?2, \
         round_started_at = CASE WHEN status = 'failed' THEN NULL ELSE round_started_at END, \
         round_attempts = CASE WHEN status = 'failed' THEN 0 ELSE round_attempts END \
         WHERE event_id = ?1",
    )?
    .execute(params![event_id, tx.now_text()])?;
    tx.wake_delivery();
    get_delivery(tx, event_id)
}

pub fn count_failed(conn: &Connection) -> Result<i64, ApiError> {
    Ok(conn
        .prepare_cached("SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'failed'")?
        .query_row([], |r| r.get(0))?)
}

/// Queues a `webhook.test` event, delivered like any other; returns its id.
pub fn send_test_event(tx: &mut Tx) -> Result<String, ApiError> {
    if get_endpoint(tx)?.url.is_none() {
        return Err(ApiError::conflict(
            "webhook_not_configured",
            "set the webhook endpoint with PUT /settings/webhook first",
        ));
    }
    let requested_by = tx.actor().to_string();
    tx.emit(Event::WebhookTest(WebhookTestData {
        message: "A test event from Brigade.",
        requested_by,
    }))
}
