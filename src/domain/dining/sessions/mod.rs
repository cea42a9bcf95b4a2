//! Seating sessions: a party seated at free tables, moved, and closed when it
//! leaves. Opening and closing emit `session.created` and `session.closed`.

mod model;
mod queries;

pub use model::*;
pub use queries::*;
