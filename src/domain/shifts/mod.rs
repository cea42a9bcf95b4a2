//! Shifts: the staff schedule. Managers draft shifts for a person, or open ones
//! for a role or station, publish a range so staff see it, and copy a week to
//! the next. A person never has two shifts at once. The comparison with
//! attendance counts scheduled against worked time, late arrivals, missed shifts
//! and the labour cost of the time worked.

mod compare;
mod model;
mod schedule;

pub use compare::*;
pub use model::*;
pub use schedule::*;
