//! Session SQL: opening at free tables, moving, closing, and the links to queue
//! tickets, reservations and orders.

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension, Row};
use uuid::Uuid;

use super::model::*;
use crate::domain::dining::{queue, reservations};
use crate::domain::event::{Event, SessionData};
use crate::domain::orders::{self, NewOrder, OrderRow, OrderType};
use crate::domain::validate::{path_id, Checks};
use crate::domain::{settings, tables, Tx};
use crate::error::ApiError;
use crate::money::to_json;

struct SessionRow {
    id: String,
    status: SessionStatus,
    party_size: i64,
    queue_ticket_id: Option<String>,
    reservation_id: Option<String>,
    opened_at: String,
    closed_at: Option<String>,
}

const SESSION_COLUMNS: &str =
    "id, status, party_size, queue_ticket_id, reservation_id, opened_at, closed_at";

fn session_from_row(r: &Row) -> rusqlite::Result<SessionRow> {
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
}

fn find_session(conn: &Connection, id: &str) -> Result<SessionRow, ApiError> {
    conn.prepare_cached(&format!(
        "SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?1"
    ))?
    .query_row([id], session_from_row)
    .optional()?
    .ok_or_else(|| ApiError::not_found("session"))
}

/// The tables of many sessions in one query, by session id: each one's current
/// tables (an open one) or those it left at closing (a closed one).
fn tables_of_all(
    conn: &Connection,
    rows: &[SessionRow],
) -> Result<HashMap<String, Vec<SessionTable>>, ApiError> {
    let ids = json_ids(rows)?;
    let mut stmt = conn.prepare_cached(
        "SELECT st.session_id, t.id, t.name FROM session_tables st \
         JOIN sessions s ON s.id = st.session_id JOIN tables t ON t.id = st.table_id \
         WHERE st.session_id IN (SELECT value FROM json_each(?1)) AND st.released_at IS s.closed_at \
         ORDER BY st.session_id, st.position",
    )?;
    let mut found = stmt.query([ids])?;
    let mut tables: HashMap<String, Vec<SessionTable>> = HashMap::new();
    while let Some(r) = found.next()? {
        tables.entry(r.get(0)?).or_default().push(SessionTable {
            id: r.get(1)?,
            name: r.get(2)?,
        });
    }
    Ok(tables)
}

/// The orders of many sessions in one query, by session id.
fn orders_of_all(
    conn: &Connection,
    rows: &[SessionRow],
    exponent: u32,
) -> Result<HashMap<String, Vec<SessionOrder>>, ApiError> {
    let ids = json_ids(rows)?;
    let mut stmt = conn.prepare_cached(
        "SELECT session_id, id, order_number, status, total_amount, total_amount - paid_amount FROM orders \
         WHERE session_id IN (SELECT value FROM json_each(?1)) ORDER BY id",
    )?;
    let mut found = stmt.query([ids])?;
    let mut orders: HashMap<String, Vec<SessionOrder>> = HashMap::new();
    while let Some(r) = found.next()? {
        orders.entry(r.get(0)?).or_default().push(SessionOrder {
            id: r.get(1)?,
            order_number: r.get(2)?,
            status: r.get(3)?,
            total_amount: to_json(r.get(4)?, exponent),
            balance_due: to_json(r.get(5)?, exponent),
        });
    }
    Ok(orders)
}

fn json_ids(rows: &[SessionRow]) -> Result<String, ApiError> {
    serde_json::to_string(&rows.iter().map(|row| &row.id).collect::<Vec<_>>())
        .map_err(ApiError::internal)
}

/// Sessions as the API shows them, with their tables and orders, in three queries
/// however many there are.
fn sessions_json(conn: &Connection, rows: Vec<SessionRow>) -> Result<Vec<Session>, ApiError> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let exponent = settings::load(conn)?.exponent();
    let mut tables = tables_of_all(conn, &rows)?;
    let mut orders = orders_of_all(conn, &rows, exponent)?;
    Ok(rows
        .into_iter()
        .map(|row| Session {
            tables: tables.remove(&row.id).unwrap_or_default(),
            orders: orders.remove(&row.id).unwrap_or_default(),
            id: row.id,
            status: row.status,
            party_size: row.party_size,
            queue_ticket_id: row.queue_ticket_id,
            reservation_id: row.reservation_id,
            opened_at: row.opened_at,
            closed_at: row.closed_at,
        })
        .collect())
}

pub fn get_session(conn: &Connection, id: &str) -> Result<Session, ApiError> {
    let row = find_session(conn, id)?;
    sessions_json(conn, vec![row])?
        .pop()
        .ok_or_else(|| ApiError::not_found("session"))
}

/// Newest first.
pub fn list_sessions(
    conn: &Connection,
    status: Option<SessionStatus>,
    before: Option<&str>,
    limit: u32,
) -> Result<Vec<Session>, ApiError> {
    let rows: Vec<SessionRow> = {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {SESSION_COLUMNS} FROM sessions WHERE (?1 IS NULL OR status = ?1) \
             AND (?2 IS NULL OR id < ?2) ORDER BY id DESC LIMIT ?3"
        ))?;
        let rows = stmt.query_map(
            params![status.map(SessionStatus::as_str), before, limit + 1],
            session_from_row,
        )?;
        rows.collect::<Result<_, _>>()?
    };
    sessions_json(conn, rows)
}

/// The first table of an open session, for a dine-in order placed in it.
fn table_of_open_session(
    conn: &Connection,
    session_id: &str,
) -> Result<orders::PlacedTable, ApiError> {
    let row = find_session(conn, session_id)
        .map_err(|_| ApiError::invalid_field("session_id", "no such session"))?;
    if row.status != SessionStatus::Open {
        return Err(
            ApiError::conflict("session_closed", "the session is closed; open a new one")
                .with("current_status", row.status.as_str()),
        );
    }
    tables_of_all(conn, std::slice::from_ref(&row))?
        .remove(&row.id)
        .and_then(|tables| tables.into_iter().next())
        .map(|t| orders::PlacedTable {
            table_id: t.id,
            table_name: t.name,
        })
        .ok_or_else(|| ApiError::internal(format!("open session {session_id} has no table")))
}

/// Refuses (409) when any of the tables holds another open session.
fn require_free(
    tx: &Connection,
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

fn seat_at(tx: &Tx, session_id: &str, tables: &[tables::Table], now: &str) -> Result<(), ApiError> {
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
}

/// Opens a session at free tables, seats its queue ticket and checks in its
/// reservation, then records `session.created`.
pub fn open_session(tx: &mut Tx, seating: Seating) -> Result<Session, ApiError> {
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
    let now = tx.now_text().to_string();
    tx.execute(
        "INSERT INTO sessions (id, status, party_size, queue_ticket_id, reservation_id, opened_by, opened_at) \
         VALUES (?1, 'open', ?2, ?3, ?4, ?5, ?6)",
        params![id, seating.party_size, ticket.as_ref().map(|t| &t.id), reservation_id, tx.actor(), now],
    )?;
    seat_at(tx, &id, &tables, &now)?;
    if let Some(ticket) = &ticket {
        queue::seat_ticket(tx, ticket, &id)?;
    }
    if let Some(reservation_id) = &reservation_id {
        reservations::attach_session(tx, reservation_id, &id)?;
    }
    let session = get_session(tx, &id)?;
    tx.emit(Event::SessionCreated(session.event_data()))?;
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
pub fn move_session(tx: &mut Tx, id: &str, table_ids: &[String]) -> Result<Session, ApiError> {
    let row = find_session(tx, id)?;
    require_open(&row, "moved")?;
    let tables = tables::seatable_tables(tx, table_ids, "table_ids")?;
    require_free(tx, &tables, Some(id))?;
    let now = tx.now_text().to_string();
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
        orders::move_to_table(tx, order_id, &tables[0].id)?;
    }
    get_session(tx, id)
}

/// Closes the session: refused while an open order has a balance due unless
/// forced; releases the tables, completes the queue ticket and the reservation.
pub fn close_session(tx: &mut Tx, id: &str, force: bool) -> Result<Session, ApiError> {
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
    let now = tx.now_text().to_string();
    tx.execute(
        "UPDATE sessions SET status = 'closed', closed_at = ?2 WHERE id = ?1",
        params![id, now],
    )?;
    tx.execute(
        "UPDATE session_tables SET released_at = ?2 WHERE session_id = ?1 AND released_at IS NULL",
        params![id, now],
    )?;
    let session = get_session(tx, id)?;
    tx.emit(Event::SessionClosed(session.event_data()))?;
    Ok(session)
}

/// Reaction to `session.closed`: the party left, so its seated queue ticket and
/// its checked-in reservation are completed.
pub fn complete_visit(tx: &mut Tx, session: &SessionData) -> Result<(), ApiError> {
    if let Some(ticket_id) = &session.queue_ticket_id {
        queue::complete_ticket(tx, ticket_id)?;
    }
    if let Some(reservation_id) = &session.reservation_id {
        reservations::complete_after_visit(tx, reservation_id)?;
    }
    Ok(())
}

/// Creates an order; a dine-in order placed in a seating session (`session_id`)
/// sits at the session's first table, and a closed session takes no orders.
pub fn create_order(tx: &mut Tx, new: &NewOrder) -> Result<OrderRow, ApiError> {
    let session = new
        .session_id
        .as_deref()
        .filter(|_| new.order_type == OrderType::DineIn)
        .and_then(|id| id.parse::<Uuid>().ok());
    let session_table = session
        .map(|id| table_of_open_session(tx, &id.to_string()))
        .transpose()?;
    orders::create_order(tx, new, session_table)
}
