//! Tenant settings: the one `settings` row of the tenant file, what the other
//! groups read (currency, business day, dining-room rules), and its view and patch.

mod model;
mod queries;

pub use model::*;
pub use queries::*;
