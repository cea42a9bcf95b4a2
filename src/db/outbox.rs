//! Reads of a tenant's event outbox: its newest sequence number, and the events
//! after a given one, as announced after a commit and replayed to a stream that
//! reconnects.

use rusqlite::{params, Connection, OptionalExtension};
use uuid::Uuid;

use crate::error::ApiError;
use crate::events::bus::Committed;

/// The newest outbox sequence number; a cheap read of SQLite's own counter.
pub fn outbox_last_seq(conn: &Connection) -> Result<i64, ApiError> {
    Ok(conn
        .prepare_cached("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'")?
        .query_row([], |r| r.get(0))
        .optional()?
        .unwrap_or(0))
}

/// Outbox rows after `seq`, oldest first, at most `limit` of them when given.
pub fn outbox_since(
    conn: &Connection,
    tenant_id: Uuid,
    seq: i64,
    limit: Option<u32>,
) -> Result<Vec<Committed>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, event_id, body FROM outbox WHERE seq > ?1 ORDER BY seq LIMIT ?2",
    )?;
    // SQLite reads a negative LIMIT as no limit.
    let rows = stmt.query_map(params![seq, limit.map_or(-1, i64::from)], |r| {
        Ok(Committed {
            tenant_id,
            seq: r.get(0)?,
            event_id: r.get(1)?,
            body: r.get(2)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
