//! Events: the contract's envelope, written to the tenant's outbox in the same
//! transaction as the change it describes.

pub mod outbox;
