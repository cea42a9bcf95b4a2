//! The floor plan: floors and tables, their layout, and the checks that pick
//! tables to seat a party at. Which tables are occupied is the dining room's to say.

mod model;
mod queries;

pub use model::*;
pub use queries::*;
