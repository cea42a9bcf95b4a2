//! Kitchen stations: the places a kitchen cooks at (grill, fryer, bar) and the
//! expo that sends plates out. Menu items and categories point at a station;
//! a line whose station is unset or switched off goes to the tenant's default
//! station. Stations sit below the menu so the menu can name them; the kitchen
//! above both makes tickets for them.

mod model;
mod queries;

pub use model::*;
pub use queries::*;
