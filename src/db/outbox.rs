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
        "SELECT seq, event_id, event, body FROM outbox WHERE seq > ?1 ORDER BY seq LIMIT ?2",
    )?;
    // SQLite reads a negative LIMIT as no limit.
    let rows = stmt.query_map(params![seq, limit.map_or(-1, i64::from)], |r| {
        Ok(Committed {
            tenant_id,
            seq: r.get(0)?,
            event_id: r.get(1)?,
            event: r.get(2)?,
            body: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::db::migrations::{migrate, Schema};
    use crate::events::outbox::enqueue;

    #[test]
    fn events_after_a_seq_carry_their_name_and_envelope() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, Schema::Tenant, None).unwrap();
        let tenant_id = Uuid::now_v7();
        let tx = conn.transaction().unwrap();
        let first = enqueue(
            &tx,
            tenant_id,
            "order.created",
            "2026-11-22T10:00:00.000Z",
            json!({"n": 1}),
        )
        .unwrap();
        let second = enqueue(
            &tx,
            tenant_id,
            "order.paid",
            "2026-11-22T10:00:01.000Z",
            json!({"n": 2}),
        )
        .unwrap();
        tx.commit().unwrap();

        assert_eq!(outbox_last_seq(&conn).unwrap(), 2);
        let all = outbox_since(&conn, tenant_id, 0, None).unwrap();
        let seen: Vec<(i64, &str, &str)> = all
            .iter()
            .map(|c| (c.seq, c.event_id.as_str(), c.event.as_str()))
            .collect();
        assert_eq!(
            seen,
            [
                (1, first.as_str(), "order.created"),
                (2, second.as_str(), "order.paid")
            ]
        );
        let body: serde_json::Value = serde_json::from_str(&all[1].body).unwrap();
        assert_eq!(body["event"], "order.paid");

        let after_first = outbox_since(&conn, tenant_id, 1, Some(1)).unwrap();
        assert_eq!(after_first.len(), 1);
        assert_eq!(after_first[0].event, "order.paid");
    }
}
