//! The map from a delivery platform's item ids (or SKUs) to menu items, so its
//! orders' lines cook at the right station with the right tax.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::validate::Checks;
use crate::domain::{menu, Tx};
use crate::error::ApiError;

/// The most entries one platform's map may hold.
pub const MAX_MAP_ENTRIES: usize = 2000;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MenuMapEntry {
    /// The platform's id or SKU of the item, as its orders carry it.
    #[schema(min_length = 1, max_length = 120)]
    pub external_id: String,
    /// A live menu item.
    pub menu_item_id: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MenuMapInput {
    /// The whole map: it replaces the one stored.
    #[schema(max_items = 2000)]
    pub entries: Vec<MenuMapEntry>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MenuMap {
    pub entries: Vec<MenuMapEntry>,
}

pub fn get_menu_map(conn: &Connection, name: &str) -> Result<MenuMap, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT external_id, menu_item_id FROM partner_menu_map WHERE name = ?1 ORDER BY external_id",
    )?;
    let entries = stmt
        .query_map([name], |r| {
            Ok(MenuMapEntry {
                external_id: r.get(0)?,
                menu_item_id: r.get(1)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(MenuMap { entries })
}

/// Replaces the platform's map; every entry is checked first.
pub fn put_menu_map(tx: &Tx, name: &str, input: &MenuMapInput) -> Result<MenuMap, ApiError> {
    let mut checks = Checks::new();
    if input.entries.len() > MAX_MAP_ENTRIES {
        checks.fail("entries", format!("at most {MAX_MAP_ENTRIES} entries"));
    }
    let mut seen: Vec<&str> = Vec::new();
    for (i, entry) in input.entries.iter().enumerate() {
        let external = checks.text(
            &format!("entries[{i}].external_id"),
            &entry.external_id,
            120,
        );
        if seen.contains(&entry.external_id.trim()) && !external.is_empty() {
            checks.fail(format!("entries[{i}].external_id"), "is listed twice");
        }
        seen.push(entry.external_id.trim());
        let item_field = format!("entries[{i}].menu_item_id");
        let item_id = checks.id(&item_field, &entry.menu_item_id);
        if !item_id.is_empty() {
            match menu::get_item(tx, &item_id) {
                Ok(item) if item.archived_at.is_none() => {}
                _ => checks.fail(item_field, "no such menu item"),
            }
        }
    }
    checks.finish()?;
    tx.execute("DELETE FROM partner_menu_map WHERE name = ?1", [name])?;
    let mut insert = tx.prepare_cached(
        "INSERT INTO partner_menu_map (name, external_id, menu_item_id) VALUES (?1, ?2, ?3)",
    )?;
    for entry in &input.entries {
        insert.execute(params![name, entry.external_id.trim(), entry.menu_item_id])?;
    }
    get_menu_map(tx, name)
}

/// The menu item a platform's item id or SKU is mapped to.
pub fn mapped_item(
    conn: &Connection,
    name: &str,
    external_id: &str,
) -> Result<Option<String>, ApiError> {
    Ok(conn
        .prepare_cached(
            "SELECT menu_item_id FROM partner_menu_map WHERE name = ?1 AND external_id = ?2",
        )?
        .query_row([name, external_id], |r| r.get(0))
        .optional()?)
}
