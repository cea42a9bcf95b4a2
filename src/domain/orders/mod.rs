//! Orders: the whole lifecycle from pending to completed or cancelled, lines,
//! totals, the discounts campaigns give, and payments, with an `order.*` event emitted for every change.
//! An order is given its table already resolved; it knows nothing of sessions.

mod checkout;
mod discounts;
mod model;
mod payments;
mod read;
mod refunds;
mod split;
mod write;

pub use checkout::*;
pub use discounts::{
    add_coupon, preview, remove_coupon, CampaignPreview, LineDiscount, NewOrderCoupon,
    OrderDiscount, PreviewLine, PreviewResult,
};
pub use model::*;
pub use payments::*;
pub use read::*;
pub use refunds::refund;
pub use split::{split_order, Split, SplitResult, SplitUnit};
pub use write::{
    add_lines, cancel_order, change_status, create_order, create_partner_order, delete_line,
    fire_course, move_to_table, update_line, update_order, PartnerOrder, PlacedTable,
};
