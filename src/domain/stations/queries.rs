//! Station SQL: the kitchen's stations, and which one a line goes to.

use rusqlite::{params, Connection, OptionalExtension, Row};
use uuid::Uuid;

use super::model::*;
use crate::domain::validate::Checks;
use crate::domain::Tx;
use crate::error::ApiError;

const STATION_COLUMNS: &str = "id, name, kind, warn_after_minutes, late_after_minutes, active, \
     position, is_default, created_at, updated_at";

fn station_from_row(r: &Row) -> rusqlite::Result<Station> {
    let kind: String = r.get(2)?;
    Ok(Station {
        id: r.get(0)?,
        name: r.get(1)?,
        kind: StationKind::parse(&kind).unwrap_or(StationKind::Prep),
        warn_after_minutes: r.get(3)?,
        late_after_minutes: r.get(4)?,
        active: r.get(5)?,
        position: r.get(6)?,
        is_default: r.get(7)?,
        created_at: r.get(8)?,
        updated_at: r.get(9)?,
    })
}

/// Every station, in display order.
pub fn list_stations(conn: &Connection) -> Result<Vec<Station>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {STATION_COLUMNS} FROM kitchen_stations ORDER BY position, name"
    ))?;
    let rows = stmt.query_map([], station_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn get_station(conn: &Connection, id: &str) -> Result<Station, ApiError> {
    conn.prepare_cached(&format!(
        "SELECT {STATION_COLUMNS} FROM kitchen_stations WHERE id = ?1"
    ))?
    .query_row([id], station_from_row)
    .optional()?
    .ok_or_else(|| ApiError::not_found("station"))
}

/// The station a line goes to: the active station its item (or the item's
/// category) points at, else the default one.
pub fn station_for(conn: &Connection, station_id: Option<&str>) -> Result<Station, ApiError> {
    let chosen = match station_id {
        Some(id) => conn
            .prepare_cached(&format!(
                "SELECT {STATION_COLUMNS} FROM kitchen_stations WHERE id = ?1 AND active = 1"
            ))?
            .query_row([id], station_from_row)
            .optional()?,
        None => None,
    };
    match chosen {
        Some(station) => Ok(station),
        None => conn
            .prepare_cached(&format!(
                "SELECT {STATION_COLUMNS} FROM kitchen_stations WHERE is_default = 1"
            ))?
            .query_row([], station_from_row)
            .optional()?
            .ok_or_else(|| ApiError::internal("the tenant has no default kitchen station")),
    }
}

fn check_thresholds(checks: &mut Checks, warn: i64, late: i64) {
    checks.integer_in("warn_after_minutes", warn, 1..=240);
    checks.integer_in("late_after_minutes", late, 1..=480);
    if late <= warn {
        checks.fail("late_after_minutes", "must be more than warn_after_minutes");
    }
}

pub fn create_station(tx: &Tx, new: &NewStation) -> Result<Station, ApiError> {
    let mut checks = Checks::new();
    let name = checks.text("name", &new.name, 60);
    let warn = new.warn_after_minutes.unwrap_or(8);
    let late = new.late_after_minutes.unwrap_or(15);
    check_thresholds(&mut checks, warn, late);
    let position = checks.integer_in("position", new.position.unwrap_or(0), 0..=10_000);
    checks.finish()?;
    let id = Uuid::now_v7().to_string();
    tx.execute(
        &format!(
            "INSERT INTO kitchen_stations ({STATION_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8, ?8)"
        ),
        params![
            id,
            name,
            new.kind.unwrap_or(StationKind::Prep).as_str(),
            warn,
            late,
            new.active.unwrap_or(true),
            position,
            tx.now_text()
        ],
    )?;
    get_station(tx, &id)
}

pub fn update_station(tx: &Tx, id: &str, patch: &StationPatch) -> Result<Station, ApiError> {
    let station = get_station(tx, id)?;
    let mut checks = Checks::new();
    let name = patch
        .name
        .as_deref()
        .map(|n| checks.text("name", n, 60))
        .unwrap_or(station.name);
    let warn = patch
        .warn_after_minutes
        .unwrap_or(station.warn_after_minutes);
    let late = patch
        .late_after_minutes
        .unwrap_or(station.late_after_minutes);
    check_thresholds(&mut checks, warn, late);
    let position = checks.integer_in(
        "position",
        patch.position.unwrap_or(station.position),
        0..=10_000,
    );
    let active = patch.active.unwrap_or(station.active);
    if station.is_default && !active {
        checks.fail(
            "active",
            "the default station takes every unassigned line; it stays active",
        );
    }
    checks.finish()?;
    tx.execute(
        "UPDATE kitchen_stations SET name = ?2, kind = ?3, warn_after_minutes = ?4, late_after_minutes = ?5, \
         active = ?6, position = ?7, updated_at = ?8 WHERE id = ?1",
        params![
            id,
            name,
            patch.kind.unwrap_or(station.kind).as_str(),
            warn,
            late,
            active,
            position,
            tx.now_text()
        ],
    )?;
    get_station(tx, id)
}

/// Deletes a station nothing points at. The kitchen checks its tickets and the
/// menu's items first, to say which; the foreign keys are the last word.
pub fn delete_station(tx: &Tx, id: &str) -> Result<(), ApiError> {
    let station = get_station(tx, id)?;
    if station.is_default {
        return Err(ApiError::conflict(
            "station_in_use",
            "the default station takes every unassigned line and cannot be deleted",
        ));
    }
    tx.execute("DELETE FROM kitchen_stations WHERE id = ?1", [id])?;
    Ok(())
}
