//! Attendance: when staff clock in and out and take breaks. Each person has at
//! most one open record; worked and break minutes are counted from the punches,
//! up to now while a record or break is still open. Punches change afterwards
//! through a person's correction a manager approves, or a manager's edit; each
//! change keeps its history, and a payroll lock closes a period to all of them.

mod corrections;
mod model;
mod punches;

pub use corrections::*;
pub use model::*;
pub use punches::*;
