//! Reservations: weekly time-slot rules and availability, bookings, and the
//! lifecycle `pending → confirmed → checked_in → completed` plus `cancelled` and
//! `no_show`, each move emitted as a `reservation.*` event. Check-in either
//! queues the party or seats it; the scheduler marks no-shows.

mod lifecycle;
mod model;
mod rules;

pub use lifecycle::*;
pub use model::*;
pub use rules::*;
