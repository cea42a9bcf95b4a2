//! Queue SQL: numbering, positions, wait estimates from recent table turns, and
//! the status moves.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension, Row};
use uuid::Uuid;

use super::model::*;
use crate::domain::validate::Checks;
use crate::domain::Tx;
use crate::error::ApiError;
use crate::time::parse_rfc3339;

/// How many recent closed sessions the turn time is averaged over.
const TURNS_SAMPLED: i64 = 20;

pub struct TicketRow {
    pub id: String,
    pub number: String,
    pub token: String,
    pub name: String,
    pub phone: Option<String>,
    pub notes: Option<String>,
    pub party_size: i64,
    pub status: TicketStatus,
    pub quoted_wait_minutes: Option<i64>,
    pub reservation_id: Option<String>,
    pub session_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

const TICKET_COLUMNS: &str =
    "id, number, token, name, phone, notes, party_size, status, quoted_wait_minutes, \
     reservation_id, session_id, created_at, updated_at";

fn ticket_from_row(r: &Row) -> rusqlite::Result<TicketRow> {
    let status: String = r.get(7)?;
    Ok(TicketRow {
        id: r.get(0)?,
        number: r.get(1)?,
        token: r.get(2)?,
        name: r.get(3)?,
        phone: r.get(4)?,
        notes: r.get(5)?,
        party_size: r.get(6)?,
        status: TicketStatus::parse(&status).unwrap_or(TicketStatus::Cancelled),
        quoted_wait_minutes: r.get(8)?,
        reservation_id: r.get(9)?,
        session_id: r.get(10)?,
        created_at: r.get(11)?,
        updated_at: r.get(12)?,
    })
}

pub fn find_ticket(conn: &Connection, id: &str) -> Result<TicketRow, ApiError> {
    conn.query_row(
        &format!("SELECT {TICKET_COLUMNS} FROM queue_tickets WHERE id = ?1"),
        [id],
        ticket_from_row,
    )
    .optional()?
    .ok_or_else(|| ApiError::not_found("queue ticket"))
}

pub fn find_by_token(conn: &Connection, token: &str) -> Result<TicketRow, ApiError> {
    conn.query_row(
        &format!("SELECT {TICKET_COLUMNS} FROM queue_tickets WHERE token = ?1"),
        [token],
        ticket_from_row,
    )
    .optional()?
    .ok_or_else(|| ApiError::not_found("queue ticket"))
}

/// Average minutes a table fitting `party_size` stayed occupied over the recent
/// closed sessions; any table's turns when none fit; the fallback with no history.
fn turn_minutes(conn: &Connection, party_size: i64) -> Result<i64, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT AVG((julianday(closed_at) - julianday(opened_at)) * 1440) FROM ( \
           SELECT s.opened_at, s.closed_at FROM sessions s WHERE s.status = 'closed' AND EXISTS ( \
             SELECT 1 FROM session_tables st JOIN tables t ON t.id = st.table_id \
             WHERE st.session_id = s.id AND t.seats >= ?1) \
           ORDER BY s.closed_at DESC LIMIT ?2)",
    )?;
    for seats in [party_size, 0] {
        let average: Option<f64> = stmt.query_row(params![seats, TURNS_SAMPLED], |r| r.get(0))?;
        if let Some(average) = average {
            return Ok(average.round().max(1.0) as i64);
        }
    }
    Ok(FALLBACK_TURN_MINUTES)
}

/// Every active table with when it is expected free, in minutes from `now`: an
/// occupied one after a `turn` from when its party sat down.
fn tables_free_in(
    conn: &Connection,
    turn: i64,
    now: DateTime<Utc>,
) -> Result<Vec<TableTurn>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT t.seats, (SELECT st.seated_at FROM session_tables st WHERE st.table_id = t.id AND st.released_at IS NULL) \
         FROM tables t WHERE t.active = 1",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?))
    })?;
    let mut tables = Vec::new();
    for row in rows {
        let (seats, seated_at) = row?;
        let free_in = match seated_at.as_deref().and_then(parse_rfc3339) {
            Some(at) => (turn - (now - at).num_minutes()).max(0),
            None => 0,
        };
        tables.push(TableTurn { seats, free_in });
    }
    Ok(tables)
}

/// The parties waiting ahead of a ticket (of a new one: every waiting party),
/// oldest first, with their table turns.
fn parties_ahead(conn: &Connection, ticket_id: Option<&str>) -> Result<Vec<PartyAhead>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT party_size FROM queue_tickets WHERE status = 'waiting' AND (?1 IS NULL OR id < ?1) \
         ORDER BY id",
    )?;
    let sizes = stmt.query_map([ticket_id], |r| r.get::<_, i64>(0))?;
    let mut turns = std::collections::HashMap::new();
    let mut ahead = Vec::new();
    for size in sizes {
        let size = size?;
        let turn_minutes = match turns.get(&size) {
            Some(&turn) => turn,
            None => {
                let turn = turn_minutes(conn, size)?;
                turns.insert(size, turn);
                turn
            }
        };
        ahead.push(PartyAhead { size, turn_minutes });
    }
    Ok(ahead)
}

/// Place among waiting tickets, oldest first (ids are time-ordered).
fn position(conn: &Connection, row: &TicketRow) -> Result<Option<i64>, ApiError> {
    if row.status != TicketStatus::Waiting {
        return Ok(None);
    }
    let ahead: i64 = conn.query_row(
        "SELECT COUNT(*) FROM queue_tickets WHERE status = 'waiting' AND id < ?1",
        [&row.id],
        |r| r.get(0),
    )?;
    Ok(Some(ahead + 1))
}

/// Minutes a party of `party_size` can expect to wait behind the parties ahead of
/// `ticket_id` (of a new ticket when `None`).
fn estimate(
    conn: &Connection,
    party_size: i64,
    ticket_id: Option<&str>,
    now: DateTime<Utc>,
) -> Result<i64, ApiError> {
    let turn = turn_minutes(conn, party_size)?;
    let tables = tables_free_in(conn, turn, now)?;
    let ahead = parties_ahead(conn, ticket_id)?;
    Ok(estimate_wait(tables, &ahead, party_size, turn))
}

/// Position and estimate of a ticket at `now`.
fn progress(
    conn: &Connection,
    row: &TicketRow,
    now: DateTime<Utc>,
) -> Result<(Option<i64>, Option<i64>), ApiError> {
    let position = position(conn, row)?;
    let wait = position
        .map(|_| estimate(conn, row.party_size, Some(&row.id), now))
        .transpose()?;
    Ok((position, wait))
}

pub fn ticket_json(
    conn: &Connection,
    row: TicketRow,
    now: DateTime<Utc>,
) -> Result<Ticket, ApiError> {
    let (position, estimated_wait_minutes) = progress(conn, &row, now)?;
    Ok(Ticket {
        id: row.id,
        number: row.number,
        status: row.status,
        name: row.name,
        phone: row.phone,
        notes: row.notes,
        party_size: row.party_size,
        position,
        estimated_wait_minutes,
        quoted_wait_minutes: row.quoted_wait_minutes,
        reservation_id: row.reservation_id,
        session_id: row.session_id,
        tracking_token: None,
        created_at: row.created_at,
        updated_at: row.updated_at,
    })
}

pub fn public_ticket(
    conn: &Connection,
    token: &str,
    now: DateTime<Utc>,
) -> Result<PublicTicket, ApiError> {
    let row = find_by_token(conn, token)?;
    let (position, estimated_wait_minutes) = progress(conn, &row, now)?;
    Ok(PublicTicket {
        number: row.number,
        status: row.status,
        position,
        estimated_wait_minutes,
    })
}

/// Oldest first. Without a status filter, the parties still at the door.
pub fn list_tickets(
    conn: &Connection,
    status: Option<TicketStatus>,
    after: Option<&str>,
    limit: u32,
    now: DateTime<Utc>,
) -> Result<Vec<Ticket>, ApiError> {
    let rows: Vec<TicketRow> = {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {TICKET_COLUMNS} FROM queue_tickets \
             WHERE (CASE WHEN ?1 IS NULL THEN status IN ('waiting', 'called') ELSE status = ?1 END) \
             AND (?2 IS NULL OR id > ?2) ORDER BY id LIMIT ?3"
        ))?;
        let rows = stmt.query_map(
            params![status.map(TicketStatus::as_str), after, limit + 1],
            ticket_from_row,
        )?;
        rows.collect::<Result<_, _>>()?
    };
    rows.into_iter()
        .map(|row| ticket_json(conn, row, now))
        .collect()
}

/// A guest to add to the waitlist.
pub struct Arrival {
    pub name: String,
    pub phone: Option<String>,
    pub notes: Option<String>,
    pub party_size: i64,
    pub reservation_id: Option<String>,
}

pub fn check_arrival(new: &NewTicket) -> Result<Arrival, ApiError> {
    let mut checks = Checks::new();
    let arrival = Arrival {
        name: checks.text("name", &new.name, 120),
        phone: checks.optional_text("phone", new.phone.as_deref(), 40),
        notes: checks.optional_text("notes", new.notes.as_deref(), 500),
        party_size: checks.integer_in(
            "party_size",
            new.party_size,
            1..=crate::domain::dining::sessions::MAX_PARTY_SIZE,
        ),
        reservation_id: None,
    };
    checks.finish()?;
    Ok(arrival)
}

/// Adds a waiting ticket numbered for the business day, with its quoted wait; the
/// answer carries the tracking token, shown this once.
pub fn create_ticket(tx: &Tx, arrival: Arrival) -> Result<Ticket, ApiError> {
    let now = tx.now();
    let business_date = tx
        .settings()?
        .business_date(now)
        .format("%Y-%m-%d")
        .to_string();
    let sequence: i64 = tx.query_row(
        "SELECT COALESCE(MAX(sequence), 0) + 1 FROM queue_tickets WHERE business_date = ?1",
        [&business_date],
        |r| r.get(0),
    )?;
    let quoted = estimate(tx, arrival.party_size, None, now)?;
    let id = Uuid::now_v7().to_string();
    let token = crate::auth::random_token(32);
    let created_at = crate::time::rfc3339(now);
    tx.execute(
        "INSERT INTO queue_tickets (id, number, business_date, sequence, token, name, phone, notes, party_size, \
         status, quoted_wait_minutes, reservation_id, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'waiting', ?10, ?11, ?12, ?12)",
        params![
            id,
            format!("Q-{sequence:03}"),
            business_date,
            sequence,
            token,
            arrival.name,
            arrival.phone,
            arrival.notes,
            arrival.party_size,
            quoted,
            arrival.reservation_id,
            created_at
        ],
    )?;
    let mut ticket = ticket_json(tx, find_ticket(tx, &id)?, now)?;
    ticket.tracking_token = Some(token);
    Ok(ticket)
}

fn set_status(tx: &Tx, row: &TicketRow, next: TicketStatus) -> Result<(), ApiError> {
    if !row.status.can_become(next) {
        return Err(ApiError::illegal_transition(
            "the queue ticket",
            row.status.as_str(),
            next.as_str(),
        ));
    }
    tx.execute(
        "UPDATE queue_tickets SET status = ?2, updated_at = ?3 WHERE id = ?1",
        params![row.id, next.as_str(), tx.now_text()],
    )?;
    Ok(())
}

/// Call, cancel or mark a no-show.
pub fn change_status(tx: &Tx, id: &str, next: TicketStatus) -> Result<Ticket, ApiError> {
    let now = tx.now();
    let row = find_ticket(tx, id)?;
    set_status(tx, &row, next)?;
    ticket_json(tx, find_ticket(tx, id)?, now)
}

/// Refuses (409) a ticket that can no longer be seated, before any table is taken.
pub fn require_seatable(row: &TicketRow) -> Result<(), ApiError> {
    if row.status.can_become(TicketStatus::Seated) {
        Ok(())
    } else {
        Err(ApiError::illegal_transition(
            "the queue ticket",
            row.status.as_str(),
            "seated",
        ))
    }
}

/// Marks the ticket seated in the session just opened for it.
pub fn seat_ticket(tx: &Tx, row: &TicketRow, session_id: &str) -> Result<(), ApiError> {
    set_status(tx, row, TicketStatus::Seated)?;
    tx.execute(
        "UPDATE queue_tickets SET session_id = ?2 WHERE id = ?1",
        params![row.id, session_id],
    )?;
    Ok(())
}

/// The party left: its seated ticket is completed.
pub fn complete_ticket(tx: &Tx, id: &str) -> Result<(), ApiError> {
    let row = find_ticket(tx, id)?;
    if row.status == TicketStatus::Seated {
        set_status(tx, &row, TicketStatus::Completed)?;
    }
    Ok(())
}
