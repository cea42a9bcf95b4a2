//! Attendance: when staff clock in and out and take breaks. Each person has at
//! most one open record; worked and break minutes are counted from the punches,
//! up to now while a record or break is still open.

mod model;
mod punches;

pub use model::*;
pub use punches::*;
