//! Settling an order at the counter in one step: its tenders are taken in the
//! order given and the order completes, or nothing changes. The receipt says
//! what a printed slip shows: lines, taxes by rate, tenders and change.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::discounts::apply_code;
use super::model::*;
use super::payments::{list_payments, record_payment};
use super::read::{find_order, line_amounts, order_json, OrderRow};
use super::write::change_status;
use crate::domain::settings;
use crate::domain::Tx;
use crate::error::ApiError;
use crate::money::to_json;

pub const MAX_TENDERS: usize = 10;
pub const MAX_COUPONS: usize = 5;

/// `POST /pos/checkout`: an open order, or a new one, settled with tenders.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Checkout {
    /// An open order of this business to settle. Not with `order`.
    pub order_id: Option<String>,
    /// A new order to place and settle at once. Not with `order_id`.
    pub order: Option<NewOrder>,
    /// Coupon codes to put on the order before it is paid; a code that does
    /// not apply stops the checkout (422, `reason` as for `POST /orders/{id}/coupons`).
    #[serde(default)]
    #[schema(max_items = 5)]
    pub coupon_codes: Vec<String>,
    /// Taken in this order: a card or other tender may not go beyond what is
    /// left to pay, cash above it is change, and together they must pay the
    /// order in full.
    #[schema(min_items = 1, max_items = 10)]
    pub tenders: Vec<NewPayment>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CheckoutResult {
    pub order: Order,
    /// Cash to hand back.
    pub change_due: f64,
    pub receipt: Receipt,
}

/// What a printed receipt shows, amounts as the order's.
#[derive(Debug, Serialize, ToSchema)]
pub struct Receipt {
    pub business_name: String,
    pub order_number: String,
    pub order_type: OrderType,
    pub table_name: Option<String>,
    pub currency: String,
    pub lines: Vec<ReceiptLine>,
    pub subtotal: f64,
    /// Each campaign's discount.
    pub discounts: Vec<ReceiptDiscount>,
    pub discount_amount: f64,
    /// Tax per rate on the lines' discounted amounts at that rate, as the
    /// order computes it.
    pub taxes: Vec<ReceiptTax>,
    pub total_amount: f64,
    pub tenders: Vec<ReceiptTender>,
    pub tip_amount: f64,
    pub change_due: f64,
    pub refunded_amount: f64,
    /// When the order was completed; `null` while it is open.
    pub closed_at: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ReceiptLine {
    pub name: String,
    pub quantity: i64,
    pub unit_price: f64,
    pub modifiers: Vec<String>,
    pub amount: f64,
    pub tax_rate: f64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ReceiptDiscount {
    pub name: String,
    pub coupon_code: Option<String>,
    pub amount: f64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ReceiptTax {
    pub rate: f64,
    pub taxable: f64,
    pub tax: f64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ReceiptTender {
    pub method: PaymentMethod,
    /// Applied to the order; negative for a refund.
    pub amount: f64,
    pub tendered: f64,
    pub tip: f64,
    pub reference: Option<String>,
}

/// Takes the tenders and completes the order. A pending order is confirmed
/// first, so its kitchen tickets go out as for any other order.
pub fn checkout(
    tx: &mut Tx,
    order_id: &str,
    coupon_codes: &[String],
    tenders: &[NewPayment],
) -> Result<(OrderRow, i64), ApiError> {
    let order = find_order(tx, order_id)?;
    if !order.status.is_open() {
        return Err(ApiError::conflict(
            "order_closed",
            format!(
                "the order is {}; it cannot be checked out",
                order.status.as_str()
            ),
        )
        .with("current_status", order.status.as_str()));
    }
    if tenders.is_empty() || tenders.len() > MAX_TENDERS {
        return Err(ApiError::invalid_field(
            "tenders",
            format!("list 1 to {MAX_TENDERS} tenders"),
        ));
    }
    if coupon_codes.len() > MAX_COUPONS {
        return Err(ApiError::invalid_field(
            "coupon_codes",
            format!("at most {MAX_COUPONS} codes"),
        ));
    }
    for (i, code) in coupon_codes.iter().enumerate() {
        apply_code(tx, order_id, code, &format!("coupon_codes[{i}]"))?;
    }
    if order.status == OrderStatus::Pending {
        change_status(tx, order_id, OrderStatus::Confirmed, None)?;
    }
    let change_before = change_given(tx, order_id)?;
    for (i, tender) in tenders.iter().enumerate() {
        record_payment(tx, order_id, tender, &format!("tenders[{i}]."))
            .map_err(|err| err.with("tender", i))?;
    }
    let row = change_status(tx, order_id, OrderStatus::Completed, None)?;
    Ok((row, change_given(tx, order_id)? - change_before))
}

/// Cash handed back on the order's payments, in minor units.
fn change_given(conn: &rusqlite::Connection, order_id: &str) -> Result<i64, ApiError> {
    Ok(conn
        .prepare_cached("SELECT COALESCE(SUM(change_due), 0) FROM payments WHERE order_id = ?1")?
        .query_row([order_id], |r| r.get(0))?)
}

/// The receipt of an order as it stands, with every payment and refund.
pub fn receipt(
    tx: &rusqlite::Connection,
    row: &OrderRow,
    exponent: u32,
) -> Result<Receipt, ApiError> {
    let settings = settings::get_settings(tx)?;
    let order = order_json(tx, row, exponent)?;
    let payments = list_payments(tx, &row.id, exponent)?;
    let taxes = taxes_by_rate(&line_amounts(tx, &row.id)?);
    let change = change_given(tx, &row.id)?;
    Ok(Receipt {
        business_name: settings.business_name,
        order_number: order.order_number,
        order_type: order.order_type,
        table_name: order.table_name,
        currency: settings.currency,
        lines: order
            .items
            .iter()
            .map(|line| ReceiptLine {
                name: line.name.clone(),
                quantity: line.quantity,
                unit_price: line.unit_price,
                modifiers: line.modifiers.iter().map(|m| m.name.clone()).collect(),
                amount: line.line_total,
                tax_rate: line.tax_rate,
            })
            .collect(),
        subtotal: order.subtotal,
        discounts: order
            .discounts
            .iter()
            .map(|d| ReceiptDiscount {
                name: d.name.clone(),
                coupon_code: d.coupon_code.clone(),
                amount: d.amount,
            })
            .collect(),
        discount_amount: order.discount_amount,
        taxes: taxes
            .into_iter()
            .map(|(rate, (taxable, tax))| ReceiptTax {
                rate: crate::money::rate_to_json(rate),
                taxable: to_json(taxable, exponent),
                tax: to_json(tax, exponent),
            })
            .collect(),
        total_amount: order.total_amount,
        tenders: payments
            .into_iter()
            .map(|p| ReceiptTender {
                method: p.method,
                amount: p.amount,
                tendered: p.tendered,
                tip: p.tip,
                reference: p.reference,
            })
            .collect(),
        tip_amount: order.tip_amount,
        change_due: to_json(change, exponent),
        refunded_amount: order.refunded_amount,
        closed_at: order.closed_at,
    })
}
