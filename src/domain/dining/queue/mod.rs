//! The waitlist at the door: tickets numbered per business day, live positions
//! and wait estimates from recent table turns.

mod model;
mod queries;

pub use model::*;
pub use queries::*;
