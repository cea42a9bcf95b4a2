//! Events: the contract's envelope, written to the tenant's outbox in the same
//! transaction as the change it describes, then delivered to the tenant's webhook
//! endpoint and streamed live.

pub mod bus;
pub mod delivery;
pub mod dispatcher;
pub mod outbox;
pub mod schedule;
pub mod signature;
