//! The dining room, the guest journey in one place: a party waits in the queue or
//! books ahead, is seated in a session at tables, orders, and leaves; closing the
//! session completes its queue ticket and its reservation. Also the seatmap, each
//! table's live state.
//!
//! Above orders: dining places orders at tables and moves them with the party.

pub mod queue;
pub mod reservations;
pub mod seatmap;
pub mod sessions;
