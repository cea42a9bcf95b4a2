//! Partner platforms: delivery services and payment gateways that push messages
//! to the tenant's `/webhook/...` URLs. This group keeps the integrations a
//! tenant connects, the inbox of every message received, the map of a
//! platform's items to the menu, and the effects of a message on orders.
//!
//! Verifying and reading a platform's format is the adapters' work
//! (`crate::inbound`); here a message is already a list of [`Instruction`]s.

mod effects;
mod inbox;
mod integrations;
mod menu_map;
pub mod model;

pub use effects::{apply, Applied};
pub use inbox::*;
pub use integrations::*;
pub use menu_map::*;
pub use model::*;
