//! Removing a station: only one nothing points at, so no ticket loses its
//! station and no menu item is quietly rerouted.

use crate::domain::menu;
use crate::domain::stations;
use crate::domain::Tx;
use crate::error::ApiError;

/// Deletes a station that never had a ticket and that no menu item or category
/// sends lines to; otherwise says what still uses it.
pub fn remove_station(tx: &Tx, id: &str) -> Result<(), ApiError> {
    stations::get_station(tx, id)?;
    let had_tickets: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM kitchen_tickets WHERE station_id = ?1)",
        [id],
        |r| r.get(0),
    )?;
    if had_tickets {
        return Err(ApiError::conflict(
            "station_in_use",
            "the station has tickets; switch it off instead (active: false)",
        ));
    }
    let (items, categories) = menu::count_at_station(tx, id)?;
    let users: Vec<String> = [(items, "menu item"), (categories, "category")]
        .into_iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, noun)| plural(count, noun))
        .collect();
    if !users.is_empty() {
        let (verb, pronoun) = if items + categories == 1 {
            ("sends its", "it")
        } else {
            ("send their", "them")
        };
        return Err(ApiError::conflict(
            "station_in_use",
            format!(
                "{} {verb} lines here; point {pronoun} at another station first, \
                 or switch the station off (active: false)",
                users.join(" and ")
            ),
        ));
    }
    menu::release_station(tx, id)?;
    stations::delete_station(tx, id)
}

fn plural(count: i64, noun: &str) -> String {
    match (count, noun.strip_suffix('y')) {
        (1, _) => format!("1 {noun}"),
        (_, Some(stem)) => format!("{count} {stem}ies"),
        _ => format!("{count} {noun}s"),
    }
}
