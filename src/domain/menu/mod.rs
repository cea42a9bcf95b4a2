//! Menu: categories and items with prices, tax rates, stations and modifiers.
//! Deleting archives, so past orders keep their lines and prices.

mod model;
mod queries;

pub use model::*;
pub use queries::*;
