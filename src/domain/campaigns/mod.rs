//! Campaigns: discounts a restaurant runs (a percentage or an amount off,
//! buy-one-get-one deals, fixed-price bundles), when they apply, and the coupon
//! codes some of them require. The pricing engine here is pure; orders, one
//! rank up, run it every time an order's lines change and keep what it gives.

pub mod engine;
mod model;
mod queries;

pub use model::*;
pub use queries::*;
