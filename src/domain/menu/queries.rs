//! Menu SQL.

use rusqlite::{params, Connection, OptionalExtension, Row};
use uuid::Uuid;

use super::model::{
    modifiers_to_json, Category, CategoryFields, ItemFields, MenuItem, StoredModifier,
};
use crate::domain::stations;
use crate::domain::Tx;
use crate::error::ApiError;
use crate::money;

const CATEGORY_COLUMNS: &str = "id, name, position, station_id, created_at, updated_at";

fn category_from_row(r: &Row) -> rusqlite::Result<Category> {
    Ok(Category {
        id: r.get(0)?,
        name: r.get(1)?,
        position: r.get(2)?,
        station_id: r.get(3)?,
        created_at: r.get(4)?,
        updated_at: r.get(5)?,
    })
}

pub fn list_categories(
    conn: &Connection,
    after: Option<&str>,
    limit: u32,
) -> Result<Vec<Category>, ApiError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {CATEGORY_COLUMNS} FROM menu_categories WHERE archived_at IS NULL AND id > ?1 \
         ORDER BY id LIMIT ?2"
    ))?;
    let rows = stmt.query_map(params![after.unwrap_or(""), limit + 1], category_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn get_category(conn: &Connection, id: &str) -> Result<Category, ApiError> {
    conn.prepare_cached(&format!(
        "SELECT {CATEGORY_COLUMNS} FROM menu_categories WHERE id = ?1 AND archived_at IS NULL"
    ))?
    .query_row([id], category_from_row)
    .optional()?
    .ok_or_else(|| ApiError::not_found("menu category"))
}

pub fn insert_category(tx: &Tx, fields: &CategoryFields) -> Result<Category, ApiError> {
    ensure_station(tx, fields.station_id.as_deref())?;
    let id = Uuid::now_v7().to_string();
    tx.prepare_cached(
        "INSERT INTO menu_categories (id, name, position, station_id, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
    )?
    .execute(params![
        id,
        fields.name,
        fields.position,
        fields.station_id,
        tx.now_text()
    ])?;
    get_category(tx, &id)
}

pub fn update_category(tx: &Tx, id: &str, fields: &CategoryFields) -> Result<Category, ApiError> {
    ensure_station(tx, fields.station_id.as_deref())?;
    tx.prepare_cached(
        "UPDATE menu_categories SET name = ?2, position = ?3, station_id = ?4, updated_at = ?5 \
         WHERE id = ?1",
    )?
    .execute(params![
        id,
        fields.name,
        fields.position,
        fields.station_id,
        tx.now_text()
    ])?;
    get_category(tx, id)
}

/// Archives an empty category; one that still holds live items is refused.
pub fn archive_category(tx: &Tx, id: &str) -> Result<(), ApiError> {
    get_category(tx, id)?;
    let items: i64 = tx
        .prepare_cached(
            "SELECT COUNT(*) FROM menu_items WHERE category_id = ?1 AND archived_at IS NULL",
        )?
        .query_row([id], |r| r.get(0))?;
    if items > 0 {
        return Err(ApiError::conflict(
            "category_not_empty",
            format!("the category still has {items} items; move or delete them first"),
        ));
    }
    tx.prepare_cached(
        "UPDATE menu_categories SET archived_at = ?2, updated_at = ?2 WHERE id = ?1",
    )?
    .execute(params![id, tx.now_text()])?;
    Ok(())
}

/// An item's stored fields, archived or not.
pub struct StoredItem {
    pub id: String,
    pub fields: ItemFields,
    /// Where its lines cook: its own station, else its category's; `None` is
    /// the default station.
    pub cooks_at: Option<String>,
    pub archived_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl StoredItem {
    pub fn to_json(&self, exponent: u32) -> MenuItem {
        let f = &self.fields;
        MenuItem {
            id: self.id.clone(),
            category_id: f.category_id.clone(),
            name: f.name.clone(),
            description: f.description.clone(),
            price: money::to_json(f.price, exponent),
            tax_rate: money::rate_to_json(f.tax_rate),
            available: f.available,
            station_id: f.station_id.clone(),
            modifiers: modifiers_to_json(&f.modifiers, exponent),
            archived_at: self.archived_at.clone(),
            created_at: self.created_at.clone(),
            updated_at: self.updated_at.clone(),
        }
    }
}

/// An item with its category's station, from `menu_items i JOIN menu_categories c`.
const ITEM_SELECT: &str =
    "SELECT i.id, i.category_id, i.name, i.description, i.price, i.tax_rate, \
     i.available, i.station_id, i.modifiers, i.archived_at, i.created_at, i.updated_at, \
     coalesce(i.station_id, c.station_id) \
     FROM menu_items i JOIN menu_categories c ON c.id = i.category_id";

fn item_from_row(r: &Row) -> rusqlite::Result<StoredItem> {
    let modifiers: String = r.get(8)?;
    Ok(StoredItem {
        id: r.get(0)?,
        fields: ItemFields {
            category_id: r.get(1)?,
            name: r.get(2)?,
            description: r.get(3)?,
            price: r.get(4)?,
            tax_rate: r.get(5)?,
            available: r.get(6)?,
            station_id: r.get(7)?,
            modifiers: serde_json::from_str::<Vec<StoredModifier>>(&modifiers).unwrap_or_default(),
        },
        cooks_at: r.get(12)?,
        archived_at: r.get(9)?,
        created_at: r.get(10)?,
        updated_at: r.get(11)?,
    })
}

pub struct ItemFilter<'a> {
    pub category_id: Option<&'a str>,
    pub available: Option<bool>,
    pub after: Option<&'a str>,
    pub limit: u32,
}

pub fn list_items(conn: &Connection, filter: &ItemFilter) -> Result<Vec<StoredItem>, ApiError> {
    let mut stmt = conn.prepare(&format!(
        "{ITEM_SELECT} WHERE i.archived_at IS NULL AND i.id > ?1 \
         AND (?2 IS NULL OR i.category_id = ?2) AND (?3 IS NULL OR i.available = ?3) \
         ORDER BY i.id LIMIT ?4"
    ))?;
    let rows = stmt.query_map(
        params![
            filter.after.unwrap_or(""),
            filter.category_id,
            filter.available,
            filter.limit + 1
        ],
        item_from_row,
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// An item by id, including archived ones (past orders still point at them).
pub fn get_item(conn: &Connection, id: &str) -> Result<StoredItem, ApiError> {
    conn.prepare_cached(&format!("{ITEM_SELECT} WHERE i.id = ?1"))?
        .query_row([id], item_from_row)
        .optional()?
        .ok_or_else(|| ApiError::not_found("menu item"))
}

fn ensure_category(conn: &Connection, category_id: &str) -> Result<(), ApiError> {
    let live: bool = conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM menu_categories WHERE id = ?1 AND archived_at IS NULL)",
        )?
        .query_row([category_id], |r| r.get(0))?;
    if live {
        Ok(())
    } else {
        Err(ApiError::invalid_field(
            "category_id",
            "no such menu category",
        ))
    }
}

fn ensure_station(conn: &Connection, station_id: Option<&str>) -> Result<(), ApiError> {
    match station_id {
        Some(id) => stations::get_station(conn, id)
            .map(|_| ())
            .map_err(|_| ApiError::invalid_field("station_id", "no such kitchen station")),
        None => Ok(()),
    }
}

/// How many live items and categories send their lines to a station.
pub fn count_at_station(conn: &Connection, station_id: &str) -> Result<(i64, i64), ApiError> {
    Ok(conn.query_row(
        "SELECT (SELECT COUNT(*) FROM menu_items WHERE station_id = ?1 AND archived_at IS NULL), \
                (SELECT COUNT(*) FROM menu_categories WHERE station_id = ?1 AND archived_at IS NULL)",
        [station_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

/// Archived items and categories keep their station, but only past orders
/// matter for them and those keep their own copy: let the station go.
pub fn release_station(tx: &Tx, station_id: &str) -> Result<(), ApiError> {
    for table in ["menu_items", "menu_categories"] {
        tx.execute(
            &format!(
                "UPDATE {table} SET station_id = NULL WHERE station_id = ?1 AND archived_at IS NOT NULL"
            ),
            [station_id],
        )?;
    }
    Ok(())
}

fn modifiers_json(fields: &ItemFields) -> Result<String, ApiError> {
    serde_json::to_string(&fields.modifiers).map_err(ApiError::internal)
}

pub fn insert_item(tx: &Tx, fields: &ItemFields) -> Result<StoredItem, ApiError> {
    ensure_category(tx, &fields.category_id)?;
    ensure_station(tx, fields.station_id.as_deref())?;
    let id = Uuid::now_v7().to_string();
    tx.prepare_cached(
        "INSERT INTO menu_items (id, category_id, name, description, price, tax_rate, available, \
         station_id, modifiers, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
    )?
    .execute(params![
        id,
        fields.category_id,
        fields.name,
        fields.description,
        fields.price,
        fields.tax_rate,
        fields.available,
        fields.station_id,
        modifiers_json(fields)?,
        tx.now_text()
    ])?;
    get_item(tx, &id)
}

pub fn update_item(tx: &Tx, id: &str, fields: &ItemFields) -> Result<StoredItem, ApiError> {
    ensure_category(tx, &fields.category_id)?;
    ensure_station(tx, fields.station_id.as_deref())?;
    tx.prepare_cached("UPDATE menu_items SET category_id = ?2, name = ?3, description = ?4, price = ?5, tax_rate = ?6, \
         available = ?7, station_id = ?8, modifiers = ?9, updated_at = ?10 WHERE id = ?1")?.execute(params![
            id,
            fields.category_id,
            fields.name,
            fields.description,
            fields.price,
            fields.tax_rate,
            fields.available,
            fields.station_id,
            modifiers_json(fields)?,
            tx.now_text()
        ],
    )?;
    get_item(tx, id)
}

pub fn archive_item(tx: &Tx, id: &str) -> Result<(), ApiError> {
    let item = get_item(tx, id)?;
    if item.archived_at.is_some() {
        return Err(ApiError::not_found("menu item"));
    }
    tx.prepare_cached(
        "UPDATE menu_items SET archived_at = ?2, available = 0, updated_at = ?2 WHERE id = ?1",
    )?
    .execute(params![id, tx.now_text()])?;
    Ok(())
}

/// The live menu item called `name` (ignoring case), when exactly one is: how a
/// partner's line with no mapping finds its item.
pub fn find_item_by_name(conn: &Connection, name: &str) -> Result<Option<String>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM menu_items WHERE archived_at IS NULL AND name = ?1 COLLATE NOCASE LIMIT 2",
    )?;
    let ids: Vec<String> = stmt
        .query_map([name.trim()], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(match ids.as_slice() {
        [only] => Some(only.clone()),
        _ => None,
    })
}
