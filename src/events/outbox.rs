//! The transactional outbox. `enqueue` runs inside the caller's write transaction,
//! so a committed change always has its event and a rolled-back one never does.

use rusqlite::{params, Transaction};
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use crate::error::ApiError;

/// The envelope, field for field as the contract defines it.
#[derive(Serialize)]
pub struct Envelope<'a> {
    pub id: &'a str,
    pub event: &'a str,
    pub created_at: &'a str,
    pub tenant_id: String,
    pub data: Value,
}

pub fn new_event_id() -> String {
    format!("evt_{}", Uuid::now_v7().simple())
}

/// Stores an event that happened at `created_at`; returns its id. The stored body
/// is the exact bytes delivered.
pub fn enqueue(
    tx: &Transaction,
    tenant_id: Uuid,
    event: &str,
    created_at: &str,
    data: Value,
) -> Result<String, ApiError> {
    let id = new_event_id();
    let body = serde_json::to_string(&Envelope {
        id: &id,
        event,
        created_at,
        tenant_id: tenant_id.to_string(),
        data,
    })
    .map_err(ApiError::internal)?;
    tx.prepare_cached(
        "INSERT INTO outbox (event_id, event, created_at, body) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![id, event, created_at, body])?;
    Ok(id)
}
