//! The kitchen: the tickets an order sends its stations once it is fired
//! (confirmed). Kitchen sits above orders and reacts to their events (see
//! `reactions.rs`): a fired order gets one ticket per station, lines added later
//! an addition ticket, removed or reduced lines stay on their ticket as voids, and
//! a cancelled order cancels its tickets until the cook acknowledges them.
//! Bumping every ticket of an order makes the order ready (a tenant setting).

mod model;
mod station_removal;
mod tickets;

pub use model::*;
pub use station_removal::*;
pub use tickets::*;
