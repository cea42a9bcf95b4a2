//! Session SQL: opening at free tables, moving, closing, and the links to queue
//! tickets, reservations and orders.

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use uuid::Uuid;

use super::model::*;
use crate::api::validate::{path_id, Checks};
use crate::api::{orders, queue, reservations, settings, tables};
use crate::error::ApiError;
use crate::events::outbox;
use crate::money::to_json;
use crate::time::now_rfc3339;

struct SessionRow {
    id: String,
    status: SessionStatus,
    party_size: i64,
    queue_ticket_id: Option<String>,
    reservation_id: Option<String>,
    opened_at: String,
    closed_at: Option<String>,
}

fn find_session(conn: &Connection, id: &str) -> Result<SessionRow, ApiError> {
    conn.query_row(
        "SELECT id, status, party_size, queue_ticket_id, reservation_id, opened_at, closed_at FROM sessions WHERE id = ?1",
        [id],
        |r| {
            let status: String = r.get(1)?;
            Ok(SessionRow {
                id: r.get(0)?,
                status: SessionStatus::parse(&status).unwrap_or(SessionStatus::Closed),
                party_size: r.get(2)?,
                queue_ticket_id: r.get(3)?,
                reservation_id: r.get(4)?,
                opened_at: r.get(5)?,
                closed_at: r.get(6)?,
            })
        },
    )
    .optional()?
    .ok_or_else(|| ApiError::not_found("session"))
}

/// The tables the session sits at (an open one) or left at closing (a closed one).
fn tables_of(conn: &Connection, row: &SessionRow) -> Result<Vec<SessionTable>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT t.id, t.name FROM session_tables st JOIN tables t ON t.id = st.table_id \
         WHERE st.session_id = ?1 AND st.released_at IS ?2 ORDER BY st.position",
    )?;
    let rows = stmt.query_map(params![row.id, row.closed_at], |r| {
        Ok(SessionTable {
            id: r.get(0)?,
            name: r.get(1)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn orders_of(
    conn: &Connection,
    session_id: &str,
    exponent: u32,
) -> Result<Vec<SessionOrder>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, order_number, status, total_amount, total_amount - paid_amount FROM orders \
         WHERE session_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([session_id], |r| {
        Ok(SessionOrder {
            id: r.get(0)?,
            order_number: r.get(1)?,
            status: r.get(2)?,
            total_amount: to_json(r.get(3)?, exponent),
            balance_due: to_json(r.get(4)?, exponent),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn session_json(conn: &Connection, row: SessionRow) -> Result<Session, ApiError> {
    let exponent = settings::load(conn)?.exponent();
    Ok(Session {
        tables: tables_of(conn, &row)?,
        orders: orders_of(conn, &row.id, exponent)?,
        id: row.id,
        status: row.status,
        party_size: row.party_size,
        queue_ticket_id: row.queue_ticket_id,
        reservation_id: row.reservation_id,
        opened_at: row.opened_at,
        closed_at: row.closed_at,
    })
}

pub fn get_session(conn: &Connection, id: &str) -> Result<Session, ApiError> {
    session_json(conn, find_session(conn, id)?)
}

/// Newest first.
pub fn list_sessions(
    conn: &Connection,
    status: Option<SessionStatus>,
    before: Option<&str>,
    limit: u32,
) -> Result<Vec<Session>, ApiError> {
    let ids: Vec<String> = {
        let mut stmt = conn.prepare_cached(
            "SELECT id FROM sessions WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR id < ?2) \
             ORDER BY id DESC LIMIT ?3",
        )?;
        let rows = stmt.query_map(
            params![status.map(SessionStatus::as_str), before, limit + 1],
            |r| r.get(0),
        )?;
        rows.collect::<Result<_, _>>()?
    };
    ids.iter().map(|id| get_session(conn, id)).collect()
}

/// The first table's id and name of an open session, for a dine-in order placed in it.
pub fn table_of_open_session(
    conn: &Connection,
    session_id: &str,
) -> Result<(String, String), ApiError> {
    let row = find_session(conn, session_id)
        .map_err(|_| ApiError::invalid_field("session_id", "no such session"))?;
    if row.status != SessionStatus::Open {
        return Err(
            ApiError::conflict("session_closed", "the session is closed; open a new one")
                .with("current_status", row.status.as_str()),
        );
    }
    tables_of(conn, &row)?
        .into_iter()
        .next()
        .map(|t| (t.id, t.name))
        .ok_or_else(|| ApiError::internal(format!("open session {session_id} has no table")))
}

/// Refuses (409) when any of the tables holds another open session.
fn require_free(
    tx: &Transaction,
    tables: &[tables::Table],
    own_session: Option<&str>,
) -> Result<(), ApiError> {
    let mut stmt = tx.prepare_cached(
        "SELECT session_id FROM session_tables WHERE table_id = ?1 AND released_at IS NULL",
    )?;
    let mut occupied = Vec::new();
    for table in tables {
        let holder: Option<String> = stmt.query_row([&table.id], |r| r.get(0)).optional()?;
        if matches!(holder, Some(s) if Some(s.as_str()) != own_session) {
            occupied.push(table.name.clone());
        }
    }
    if occupied.is_empty() {
        Ok(())
    } else {
        Err(ApiError::conflict(
            "table_occupied",
            format!("occupied: {}", occupied.join(", ")),
        )
        .with("tables", occupied))
    }
}

fn seat_at(
    tx: &Transaction,
    session_id: &str,
    tables: &[tables::Table],
    now: &str,
) -> Result<(), ApiError> {
    for (position, table) in tables.iter().enumerate() {
        tx.execute(
            "INSERT INTO session_tables (session_id, table_id, position, seated_at) VALUES (?1, ?2, ?3, ?4)",
            params![session_id, table.id, position as i64, now],
        )?;
    }
    Ok(())
}

/// A session to open, already linked to what brought the party in.
pub struct Seating<'a> {
    pub table_ids: &'a [String],
    pub party_size: i64,
    pub queue_ticket_id: Option<String>,
    pub reservation_id: Option<String>,
    pub opened_by: &'a str,
}

/// Opens a session at free tables, seats its queue ticket and checks in its
/// reservation, then records `session.created`.
pub fn open_session(
    tx: &Transaction,
    tenant_id: Uuid,
    seating: Seating,
) -> Result<Session, ApiError> {
    let mut checks = Checks::new();
    checks.integer_in("party_size", seating.party_size, 1..=MAX_PARTY_SIZE);
    checks.finish()?;
    let tables = tables::seatable_tables(tx, seating.table_ids, "table_ids")?;
    let ticket = seating
        .queue_ticket_id
        .map(|id| {
            path_id(&id, "queue ticket")
                .and_then(|id| queue::find_ticket(tx, &id))
                .map_err(|_| ApiError::invalid_field("queue_ticket_id", "no such queue ticket"))
        })
        .transpose()?;
    if let Some(ticket) = &ticket {
        queue::require_seatable(ticket)?;
    }
    let reservation_id = seating
        .reservation_id
        .or_else(|| ticket.as_ref().and_then(|t| t.reservation_id.clone()))
        .map(|id| {
            path_id(&id, "reservation")
                .map_err(|_| ApiError::invalid_field("reservation_id", "no such reservation"))
        })
        .transpose()?;
    require_free(tx, &tables, None)?;
    let id = Uuid::now_v7().to_string();
    let now = now_rfc3339();
    tx.execute(
        "INSERT INTO sessions (id, status, party_size, queue_ticket_id, reservation_id, opened_by, opened_at) \
         VALUES (?1, 'open', ?2, ?3, ?4, ?5, ?6)",
        params![id, seating.party_size, ticket.as_ref().map(|t| &t.id), reservation_id, seating.opened_by, now],
    )?;
    seat_at(tx, &id, &tables, &now)?;
    if let Some(ticket) = &ticket {
        queue::seat_ticket(tx, ticket, &id)?;
    }
    if let Some(reservation_id) = &reservation_id {
        reservations::attach_session(tx, tenant_id, reservation_id, &id)?;
    }
    let session = get_session(tx, &id)?;
    outbox::enqueue(tx, tenant_id, "session.created", session.event_data())?;
    Ok(session)
}

fn require_open(row: &SessionRow, wanted: &str) -> Result<(), ApiError> {
    if row.status == SessionStatus::Open {
        Ok(())
    } else {
        Err(ApiError::illegal_transition(
            "the session",
            row.status.as_str(),
            wanted,
        ))
    }
}

/// Moves the party to other tables (which may include some of its own); its open
/// orders move to the new first table, each recording `order.updated`.
pub fn move_session(
    tx: &Transaction,
    tenant_id: Uuid,
    id: &str,
    table_ids: &[String],
) -> Result<Session, ApiError> {
    let row = find_session(tx, id)?;
    require_open(&row, "moved")?;
    let tables = tables::seatable_tables(tx, table_ids, "table_ids")?;
    require_free(tx, &tables, Some(id))?;
    let now = now_rfc3339();
    tx.execute(
        "UPDATE session_tables SET released_at = ?2 WHERE session_id = ?1 AND released_at IS NULL",
        params![id, now],
    )?;
    seat_at(tx, id, &tables, &now)?;
    let open_orders: Vec<String> = {
        let mut stmt = tx.prepare_cached(
            "SELECT id FROM orders WHERE session_id = ?1 AND status NOT IN ('completed', 'cancelled') ORDER BY id",
        )?;
        let rows = stmt.query_map([id], |r| r.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    for order_id in &open_orders {
        orders::move_to_table(tx, tenant_id, order_id, &tables[0].id)?;
    }
    get_session(tx, id)
}

/// Closes the session: refused while an open order has a balance due unless
/// forced; releases the tables, completes the queue ticket and the reservation.
pub fn close_session(
    tx: &Transaction,
    tenant_id: Uuid,
    id: &str,
    force: bool,
) -> Result<Session, ApiError> {
    let row = find_session(tx, id)?;
    require_open(&row, "closed")?;
    let unpaid: Vec<String> = {
        let mut stmt = tx.prepare_cached(
            "SELECT order_number FROM orders WHERE session_id = ?1 AND status NOT IN ('completed', 'cancelled') \
             AND total_amount > paid_amount ORDER BY id",
        )?;
        let rows = stmt.query_map([id], |r| r.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    if !unpaid.is_empty() && !force {
        return Err(ApiError::conflict(
            "unpaid_orders",
            format!(
                "the session has unpaid orders: {}; take payment or close with force",
                unpaid.join(", ")
            ),
        )
        .with("current_status", row.status.as_str())
        .with("orders", unpaid));
    }
    let now = now_rfc3339();
    tx.execute(
        "UPDATE sessions SET status = 'closed', closed_at = ?2 WHERE id = ?1",
        params![id, now],
    )?;
    tx.execute(
        "UPDATE session_tables SET released_at = ?2 WHERE session_id = ?1 AND released_at IS NULL",
        params![id, now],
    )?;
    if let Some(ticket_id) = &row.queue_ticket_id {
        queue::complete_ticket(tx, ticket_id)?;
    }
    let session = get_session(tx, id)?;
    outbox::enqueue(tx, tenant_id, "session.closed", session.event_data())?;
    if let Some(reservation_id) = &row.reservation_id {
        reservations::complete_after_visit(tx, tenant_id, reservation_id)?;
    }
    Ok(session)
}
