//! Webhooks: the tenant's endpoint and signing secret, the record of every
//! delivery with its attempts, and manual retries.

mod model;
mod queries;

pub use model::*;
pub use queries::*;
