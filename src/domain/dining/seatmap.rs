//! The seatmap: every table with its live state (free, occupied, reserved soon,
//! out of service) from the sessions seated at it and the reservations holding it,
//! and the rule for removing a table from the floor plan.

use chrono::{DateTime, Duration, Utc};
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::settings::TenantSettings;
use crate::domain::tables::{self, Table};
use crate::domain::Tx;
use crate::error::ApiError;
use crate::money::to_json;
use crate::time::rfc3339;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TableState {
    Free,
    Occupied,
    /// A reservation assigned to the table starts within the hold window.
    ReservedSoon,
    OutOfService,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatedSession {
    pub id: String,
    pub party_size: i64,
    pub seated_since: String,
    pub open_order_count: i64,
    /// Total of the session's open orders.
    pub open_order_amount: f64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UpcomingReservation {
    pub id: String,
    pub name: String,
    pub party_size: i64,
    pub starts_at: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatmapTable {
    #[serde(flatten)]
    pub table: Table,
    pub state: TableState,
    pub session: Option<SeatedSession>,
    /// The next reservation assigned to the table within the hold window.
    pub reservation: Option<UpcomingReservation>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatmapFloor {
    pub id: String,
    pub name: String,
    pub tables: Vec<SeatmapTable>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Seatmap {
    pub floors: Vec<SeatmapFloor>,
    pub generated_at: String,
}

/// Deletes a table that never served anyone; one with history is taken out of
/// service instead (`active: false`), so past orders keep their table.
pub fn delete_table(tx: &Tx, id: &str) -> Result<(), ApiError> {
    tables::get_table(tx, id)?;
    let used: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM orders WHERE table_id = ?1) OR EXISTS (SELECT 1 FROM session_tables WHERE table_id = ?1)",
        [id],
        |r| r.get(0),
    )?;
    if used {
        return Err(ApiError::conflict(
            "table_in_use",
            "the table has seated guests or orders; take it out of service instead",
        ));
    }
    // A booking still to come would otherwise be held at a table that no longer exists.
    let held: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM reservations, json_each(reservations.table_ids) \
         WHERE json_each.value = ?1 AND reservations.status IN ('pending', 'confirmed'))",
        [id],
        |r| r.get(0),
    )?;
    if held {
        return Err(ApiError::conflict(
            "table_in_use",
            "a pending or confirmed reservation holds the table; move or cancel it first",
        ));
    }
    tables::delete_table(tx, id)
}

fn seated_session(
    conn: &Connection,
    table_id: &str,
    exponent: u32,
) -> Result<Option<SeatedSession>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT s.id, s.party_size, st.seated_at, \
           (SELECT COUNT(*) FROM orders o WHERE o.session_id = s.id AND o.status NOT IN ('completed', 'cancelled')), \
           (SELECT COALESCE(SUM(o.total_amount), 0) FROM orders o \
              WHERE o.session_id = s.id AND o.status NOT IN ('completed', 'cancelled')) \
         FROM session_tables st JOIN sessions s ON s.id = st.session_id \
         WHERE st.table_id = ?1 AND st.released_at IS NULL",
    )?;
    Ok(stmt
        .query_row([table_id], |r| {
            Ok(SeatedSession {
                id: r.get(0)?,
                party_size: r.get(1)?,
                seated_since: r.get(2)?,
                open_order_count: r.get(3)?,
                open_order_amount: to_json(r.get(4)?, exponent),
            })
        })
        .optional()?)
}

/// The next pending or confirmed reservation assigned to the table that starts
/// within the hold window (or started within the grace window and is still awaited).
fn upcoming_reservation(
    conn: &Connection,
    table_id: &str,
    now: DateTime<Utc>,
    settings: &TenantSettings,
) -> Result<Option<UpcomingReservation>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT r.id, r.name, r.party_size, r.starts_at FROM reservations r, json_each(r.table_ids) j \
         WHERE j.value = ?1 AND r.status IN ('pending', 'confirmed') AND r.starts_at >= ?2 AND r.starts_at <= ?3 \
         ORDER BY r.starts_at LIMIT 1",
    )?;
    let from = rfc3339(now - Duration::minutes(settings.reservation_grace_minutes));
    let until = rfc3339(now + Duration::minutes(settings.table_hold_minutes));
    Ok(stmt
        .query_row(params![table_id, from, until], |r| {
            Ok(UpcomingReservation {
                id: r.get(0)?,
                name: r.get(1)?,
                party_size: r.get(2)?,
                starts_at: r.get(3)?,
            })
        })
        .optional()?)
}

/// Every floor with its tables and their live state at `now`.
pub fn seatmap(conn: &Connection, now: DateTime<Utc>) -> Result<Seatmap, ApiError> {
    let settings = &crate::domain::settings::load(conn)?;
    let mut floors = Vec::new();
    for floor in tables::list_floors(conn)? {
        let mut tables = Vec::new();
        for table in tables::list_tables(conn, Some(&floor.id))? {
            let session = seated_session(conn, &table.id, settings.exponent())?;
            let reservation = upcoming_reservation(conn, &table.id, now, settings)?;
            // A party still seated at a table taken out of service is still there.
            let state = if session.is_some() {
                TableState::Occupied
            } else if !table.active {
                TableState::OutOfService
            } else if reservation.is_some() {
                TableState::ReservedSoon
            } else {
                TableState::Free
            };
            tables.push(SeatmapTable {
                table,
                state,
                session,
                reservation,
            });
        }
        floors.push(SeatmapFloor {
            id: floor.id,
            name: floor.name,
            tables,
        });
    }
    Ok(Seatmap {
        floors,
        generated_at: rfc3339(now),
    })
}
