//! Floor and table SQL.

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use uuid::Uuid;

use super::model::*;
use crate::domain::validate::Checks;
use crate::domain::Tx;
use crate::error::ApiError;

const FLOOR_COLUMNS: &str = "id, name, position, created_at, updated_at";

fn floor_from_row(r: &Row) -> rusqlite::Result<Floor> {
    Ok(Floor {
        id: r.get(0)?,
        name: r.get(1)?,
        position: r.get(2)?,
        created_at: r.get(3)?,
        updated_at: r.get(4)?,
    })
}

pub fn list_floors(conn: &Connection) -> Result<Vec<Floor>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {FLOOR_COLUMNS} FROM floors ORDER BY position, name"
    ))?;
    let rows = stmt.query_map([], floor_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn get_floor(conn: &Connection, id: &str) -> Result<Floor, ApiError> {
    conn.query_row(
        &format!("SELECT {FLOOR_COLUMNS} FROM floors WHERE id = ?1"),
        [id],
        floor_from_row,
    )
    .optional()?
    .ok_or_else(|| ApiError::not_found("floor"))
}

pub fn insert_floor(tx: &Tx, new: &NewFloor) -> Result<Floor, ApiError> {
    let mut checks = Checks::new();
    let name = checks.text("name", &new.name, 80);
    let position = checks.integer_in("position", new.position.unwrap_or(0), 0..=10_000);
    checks.finish()?;
    let id = Uuid::now_v7().to_string();
    tx.execute(
        "INSERT INTO floors (id, name, position, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
        params![id, name, position, tx.now_text()],
    )?;
    get_floor(tx, &id)
}

pub fn update_floor(tx: &Tx, id: &str, patch: &FloorPatch) -> Result<Floor, ApiError> {
    let floor = get_floor(tx, id)?;
    let mut checks = Checks::new();
    let name = patch
        .name
        .as_deref()
        .map(|n| checks.text("name", n, 80))
        .unwrap_or(floor.name);
    let position = checks.integer_in(
        "position",
        patch.position.unwrap_or(floor.position),
        0..=10_000,
    );
    checks.finish()?;
    tx.execute(
        "UPDATE floors SET name = ?2, position = ?3, updated_at = ?4 WHERE id = ?1",
        params![id, name, position, tx.now_text()],
    )?;
    get_floor(tx, id)
}

pub fn delete_floor(tx: &Transaction, id: &str) -> Result<(), ApiError> {
    get_floor(tx, id)?;
    let tables: i64 = tx.query_row(
        "SELECT COUNT(*) FROM tables WHERE floor_id = ?1",
        [id],
        |r| r.get(0),
    )?;
    if tables > 0 {
        return Err(ApiError::conflict(
            "floor_not_empty",
            format!("the floor still has {tables} tables"),
        ));
    }
    tx.execute("DELETE FROM floors WHERE id = ?1", [id])?;
    Ok(())
}

const TABLE_COLUMNS: &str = "id, floor_id, name, seats, shape, x, y, width, height, rotation, active, created_at, updated_at";

fn table_from_row(r: &Row) -> rusqlite::Result<Table> {
    let shape: String = r.get(4)?;
    Ok(Table {
        id: r.get(0)?,
        floor_id: r.get(1)?,
        name: r.get(2)?,
        seats: r.get(3)?,
        shape: Shape::parse(&shape),
        x: r.get(5)?,
        y: r.get(6)?,
        width: r.get(7)?,
        height: r.get(8)?,
        rotation: r.get(9)?,
        active: r.get(10)?,
        created_at: r.get(11)?,
        updated_at: r.get(12)?,
    })
}

pub fn list_tables(conn: &Connection, floor_id: Option<&str>) -> Result<Vec<Table>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {TABLE_COLUMNS} FROM tables WHERE (?1 IS NULL OR floor_id = ?1) ORDER BY name"
    ))?;
    let rows = stmt.query_map([floor_id], table_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn get_table(conn: &Connection, id: &str) -> Result<Table, ApiError> {
    conn.query_row(
        &format!("SELECT {TABLE_COLUMNS} FROM tables WHERE id = ?1"),
        [id],
        table_from_row,
    )
    .optional()?
    .ok_or_else(|| ApiError::not_found("table"))
}

/// The name of an active table, if there is one with this id.
pub fn active_table_name(conn: &Connection, id: &str) -> Result<Option<String>, ApiError> {
    Ok(conn
        .prepare_cached("SELECT name FROM tables WHERE id = ?1 AND active = 1")?
        .query_row([id], |r| r.get(0))
        .optional()?)
}

/// Active tables by id, in the order asked, for seating; any unknown or inactive
/// one is a field error under `field`.
pub fn seatable_tables(
    conn: &Connection,
    ids: &[String],
    field: &str,
) -> Result<Vec<Table>, ApiError> {
    let mut checks = Checks::new();
    if ids.is_empty() {
        checks.fail(field, "must list at least one table");
    }
    if ids.len() > 20 {
        checks.fail(field, "at most 20 tables");
    }
    let mut tables: Vec<Table> = Vec::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        let item = format!("{field}[{i}]");
        let id = checks.id(&item, id);
        if tables.iter().any(|t| t.id == id) {
            checks.fail(item, "is listed twice");
            continue;
        }
        match get_table(conn, &id) {
            Ok(table) if table.active => tables.push(table),
            Ok(table) => checks.fail(item, format!("table {} is out of service", table.name)),
            Err(_) => checks.fail(item, "no such table"),
        }
    }
    checks.finish()?;
    Ok(tables)
}

/// The floor must exist; a missing one is a field error, as it was named in the body.
fn require_floor(conn: &Connection, floor_id: &str) -> Result<String, ApiError> {
    let id = crate::domain::validate::path_id(floor_id, "floor")
        .map_err(|_| ApiError::invalid_field("floor_id", "must be a UUID"))?;
    get_floor(conn, &id).map_err(|_| ApiError::invalid_field("floor_id", "no such floor"))?;
    Ok(id)
}

pub fn insert_table(tx: &Tx, new: &NewTable) -> Result<Table, ApiError> {
    let mut checks = Checks::new();
    let name = checks.text("name", &new.name, 40);
    checks.integer_in("seats", new.seats, 1..=MAX_SEATS);
    let (x, y) = (new.x.unwrap_or(0.0), new.y.unwrap_or(0.0));
    let (width, height) = (new.width.unwrap_or(1.0), new.height.unwrap_or(1.0));
    let rotation = new.rotation.unwrap_or(0.0);
    check_geometry(&mut checks, "x", x, false);
    check_geometry(&mut checks, "y", y, false);
    check_geometry(&mut checks, "width", width, true);
    check_geometry(&mut checks, "height", height, true);
    check_rotation(&mut checks, "rotation", rotation);
    checks.finish()?;
    let floor_id = require_floor(tx, &new.floor_id)?;
    let id = Uuid::now_v7().to_string();
    tx.execute(
        &format!("INSERT INTO tables ({TABLE_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)"),
        params![
            id,
            floor_id,
            name,
            new.seats,
            new.shape.unwrap_or(Shape::Square).as_str(),
            x,
            y,
            width,
            height,
            rotation,
            new.active.unwrap_or(true),
            tx.now_text()
        ],
    )?;
    get_table(tx, &id)
}

pub fn update_table(tx: &Tx, id: &str, patch: &TablePatch) -> Result<Table, ApiError> {
    let table = get_table(tx, id)?;
    let mut checks = Checks::new();
    let name = patch
        .name
        .as_deref()
        .map(|n| checks.text("name", n, 40))
        .unwrap_or(table.name);
    let seats = checks.integer_in("seats", patch.seats.unwrap_or(table.seats), 1..=MAX_SEATS);
    let x = patch.x.unwrap_or(table.x);
    let y = patch.y.unwrap_or(table.y);
    let width = patch.width.unwrap_or(table.width);
    let height = patch.height.unwrap_or(table.height);
    let rotation = patch.rotation.unwrap_or(table.rotation);
    check_geometry(&mut checks, "x", x, false);
    check_geometry(&mut checks, "y", y, false);
    check_geometry(&mut checks, "width", width, true);
    check_geometry(&mut checks, "height", height, true);
    check_rotation(&mut checks, "rotation", rotation);
    checks.finish()?;
    let floor_id = match &patch.floor_id {
        Some(floor_id) => require_floor(tx, floor_id)?,
        None => table.floor_id,
    };
    tx.execute(
        "UPDATE tables SET floor_id = ?2, name = ?3, seats = ?4, shape = ?5, x = ?6, y = ?7, width = ?8, \
         height = ?9, rotation = ?10, active = ?11, updated_at = ?12 WHERE id = ?1",
        params![
            id,
            floor_id,
            name,
            seats,
            patch.shape.unwrap_or(table.shape).as_str(),
            x,
            y,
            width,
            height,
            rotation,
            patch.active.unwrap_or(table.active),
            tx.now_text()
        ],
    )?;
    get_table(tx, id)
}

/// Deletes a table. The dining room decides whether it may go (see
/// `dining::seatmap::delete_table`).
pub fn delete_table(tx: &Tx, id: &str) -> Result<(), ApiError> {
    get_table(tx, id)?;
    tx.execute("DELETE FROM tables WHERE id = ?1", [id])?;
    Ok(())
}

pub fn save_layout(tx: &Tx, floor_id: &str, layout: &Layout) -> Result<Vec<Table>, ApiError> {
    get_floor(tx, floor_id)?;
    let mut checks = Checks::new();
    let mut ids = Vec::with_capacity(layout.tables.len());
    for (i, place) in layout.tables.iter().enumerate() {
        let field = format!("tables[{i}]");
        let id = checks.id(&format!("{field}.id"), &place.id);
        ids.push(id.clone());
        match get_table(tx, &id) {
            Ok(table) if table.floor_id == floor_id => {}
            Ok(_) => checks.fail(format!("{field}.id"), "the table is on another floor"),
            Err(_) => checks.fail(format!("{field}.id"), "no such table"),
        }
        check_geometry(&mut checks, &format!("{field}.x"), place.x, false);
        check_geometry(&mut checks, &format!("{field}.y"), place.y, false);
        if let Some(width) = place.width {
            check_geometry(&mut checks, &format!("{field}.width"), width, true);
        }
        if let Some(height) = place.height {
            check_geometry(&mut checks, &format!("{field}.height"), height, true);
        }
        if let Some(rotation) = place.rotation {
            check_rotation(&mut checks, &format!("{field}.rotation"), rotation);
        }
    }
    checks.finish()?;
    let now = tx.now_text();
    for (id, place) in ids.iter().zip(&layout.tables) {
        tx.execute(
            "UPDATE tables SET x = ?2, y = ?3, width = COALESCE(?4, width), height = COALESCE(?5, height), \
             rotation = COALESCE(?6, rotation), updated_at = ?7 WHERE id = ?1",
            params![id, place.x, place.y, place.width, place.height, place.rotation, now],
        )?;
    }
    list_tables(tx, Some(floor_id))
}
