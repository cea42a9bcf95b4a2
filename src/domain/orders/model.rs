//! Order types, the status machine and request validation, as pure functions.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::menu::StoredItem;
use crate::domain::validate::nullable;
use crate::domain::validate::Checks;

pub const MAX_LINES_PER_REQUEST: usize = 100;
pub const MAX_QUANTITY: i64 = 999;
pub const MAX_COURSE: i64 = 9;
/// Seats at one table (or one session's tables), numbered from 1.
pub const MAX_SEAT: i64 = 99;

/// `POST /orders/{id}/fire`: send this course (and any before it) to the kitchen.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FireCourse {
    #[schema(minimum = 1, maximum = 9)]
    pub course: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OrderStatus {
    Pending,
    Confirmed,
    Preparing,
    Ready,
    Served,
    Completed,
    Cancelled,
}

impl OrderStatus {
    pub const ALL: [OrderStatus; 7] = [
        OrderStatus::Pending,
        OrderStatus::Confirmed,
        OrderStatus::Preparing,
        OrderStatus::Ready,
        OrderStatus::Served,
        OrderStatus::Completed,
        OrderStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OrderStatus::Pending => "pending",
            OrderStatus::Confirmed => "confirmed",
            OrderStatus::Preparing => "preparing",
            OrderStatus::Ready => "ready",
            OrderStatus::Served => "served",
            OrderStatus::Completed => "completed",
            OrderStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// Position along the lifecycle; cancelled stands outside it.
    fn rank(self) -> Option<u8> {
        match self {
            OrderStatus::Pending => Some(0),
            OrderStatus::Confirmed => Some(1),
            OrderStatus::Preparing => Some(2),
            OrderStatus::Ready => Some(3),
            OrderStatus::Served => Some(4),
            OrderStatus::Completed => Some(5),
            OrderStatus::Cancelled => None,
        }
    }

    /// Completed and cancelled orders are closed for good.
    pub fn is_open(self) -> bool {
        !matches!(self, OrderStatus::Completed | OrderStatus::Cancelled)
    }

    /// Orders only move forward, any number of steps (a takeaway may go from ready
    /// straight to completed); any open order may be cancelled.
    pub fn can_become(self, next: OrderStatus) -> bool {
        if !self.is_open() {
            return false;
        }
        match (self.rank(), next.rank()) {
            (_, None) => true,
            (Some(from), Some(to)) => to > from,
            (None, _) => false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OrderType {
    DineIn,
    Takeaway,
    Delivery,
}

impl OrderType {
    pub fn as_str(self) -> &'static str {
        match self {
            OrderType::DineIn => "dine_in",
            OrderType::Takeaway => "takeaway",
            OrderType::Delivery => "delivery",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [OrderType::DineIn, OrderType::Takeaway, OrderType::Delivery]
            .into_iter()
            .find(|t| t.as_str() == text)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Customer {
    #[schema(max_length = 120)]
    pub name: Option<String>,
    #[schema(max_length = 40)]
    pub phone: Option<String>,
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewLine {
    pub menu_item_id: String,
    #[schema(minimum = 1, maximum = 999)]
    pub quantity: i64,
    /// Names of the item's modifiers to apply, each once.
    #[schema(max_items = 40)]
    pub modifiers: Option<Vec<String>>,
    #[schema(max_length = 500)]
    pub notes: Option<String>,
    /// The course the line is served in, 1 to 9 (default 1).
    #[schema(minimum = 1, maximum = 9)]
    pub course: Option<i64>,
    /// The seat it is for, 1 to 99, so the bill can split by seat; absent for
    /// the table as a whole.
    #[schema(minimum = 1, maximum = 99)]
    pub seat: Option<i64>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewOrder {
    pub order_type: OrderType,
    /// Only for dine-in orders.
    pub table_id: Option<String>,
    /// Dine-in orders may belong to a seating session; the order then sits at the
    /// session's first table.
    pub session_id: Option<String>,
    /// Delivery orders need a name or a phone number.
    pub customer: Option<Customer>,
    #[schema(max_length = 1000)]
    pub notes: Option<String>,
    #[schema(min_items = 1, max_items = 100)]
    pub items: Vec<NewLine>,
    /// Dine-in only: keep courses after the first off the kitchen's board until
    /// they are fired (`POST /orders/{id}/fire`).
    #[serde(default)]
    pub hold_courses: bool,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OrderPatch {
    /// `null` clears the notes.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, max_length = 1000)]
    pub notes: Option<Option<String>>,
    /// Only for dine-in orders; `null` takes the order off its table.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub table_id: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Customer>)]
    pub customer: Option<Option<Customer>>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewLines {
    #[schema(min_items = 1, max_items = 100)]
    pub items: Vec<NewLine>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LinePatch {
    #[schema(minimum = 1, maximum = 999)]
    pub quantity: Option<i64>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, max_length = 500)]
    pub notes: Option<Option<String>>,
    /// The seat it is for, 1 to 99; `null` makes it the table's.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<i64>, minimum = 1, maximum = 99)]
    pub seat: Option<Option<i64>>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusChange {
    pub status: OrderStatus,
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = OrderCancellation)]
pub struct Cancellation {
    #[schema(max_length = 500)]
    pub reason: Option<String>,
    /// An order with payments is cancelled only with this set: each payment
    /// and its tip is then refunded by its own method in the same step (owners
    /// and managers only).
    #[serde(default)]
    pub refund_payments: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PaymentMethod {
    Cash,
    Card,
    Other,
}

impl PaymentMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            PaymentMethod::Cash => "cash",
            PaymentMethod::Card => "card",
            PaymentMethod::Other => "other",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [
            PaymentMethod::Cash,
            PaymentMethod::Card,
            PaymentMethod::Other,
        ]
        .into_iter()
        .find(|m| m.as_str() == text)
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPayment {
    pub method: PaymentMethod,
    /// Amount tendered, more than zero. Cash above the balance due is given
    /// back as change. Money is a decimal number in the business's currency
    /// with at most its minor-unit digits (2 for USD).
    #[schema(exclusive_minimum = 0, maximum = 10000000)]
    pub amount: f64,
    /// Money, as `amount`.
    #[schema(minimum = 0, maximum = 10000000)]
    pub tip: Option<f64>,
    /// The card terminal's or other tender's reference.
    #[schema(max_length = 120)]
    pub reference: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LineModifier {
    pub name: String,
    pub price: f64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OrderLine {
    pub id: String,
    pub menu_item_id: String,
    pub name: String,
    pub quantity: i64,
    /// Item price plus modifiers, as when the line was added.
    pub unit_price: f64,
    pub modifiers: Vec<LineModifier>,
    pub notes: Option<String>,
    pub tax_rate: f64,
    pub line_total: f64,
    /// The line's share of the order's discounts; its tax is on `line_total`
    /// less this.
    pub discount_amount: f64,
    /// The kitchen station it cooks at, from its menu item or the item's
    /// category when it was ordered; `null` is the default station.
    pub station_id: Option<String>,
    pub course: i64,
    /// The seat it is for; `null` for the table as a whole.
    pub seat: Option<i64>,
    /// Units given back by refunds.
    pub refunded_quantity: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Order {
    pub id: String,
    pub order_number: String,
    pub status: OrderStatus,
    pub order_type: OrderType,
    pub table_id: Option<String>,
    pub table_name: Option<String>,
    /// The seating session of a dine-in order.
    pub session_id: Option<String>,
    pub customer: Option<Customer>,
    pub notes: Option<String>,
    pub items: Vec<OrderLine>,
    /// The last course sent to the kitchen; `null` when no course is held.
    pub fired_course: Option<i64>,
    /// The lines' amounts before discounts.
    pub subtotal: f64,
    /// Tax on the lines' discounted amounts.
    pub tax_amount: f64,
    /// What the campaigns in `discounts` take off.
    pub discount_amount: f64,
    /// `subtotal - discount_amount + tax_amount`.
    pub total_amount: f64,
    /// Which campaign (and code) gave which discount, to which lines.
    pub discounts: Vec<super::discounts::OrderDiscount>,
    /// Coupon codes on the order.
    pub coupon_codes: Vec<String>,
    /// Payments applied to the order, before refunds.
    pub paid_amount: f64,
    pub tip_amount: f64,
    pub balance_due: f64,
    /// Given back by refunds, tips not included.
    pub refunded_amount: f64,
    /// A check of a split order: the order it was split from.
    pub parent_order_id: Option<String>,
    /// A check's number within its order, from 1.
    pub check_number: Option<i64>,
    /// Checks this order was split into (0 when not split); it completes when
    /// they all have.
    pub check_count: i64,
    /// Set on an order received from a delivery platform.
    pub external: Option<ExternalRef>,
    pub cancel_reason: Option<String>,
    pub business_date: String,
    pub created_at: String,
    pub updated_at: String,
    pub closed_at: Option<String>,
    /// Goes up by one with every change.
    pub version: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Payment {
    pub id: String,
    pub order_id: String,
    pub method: PaymentMethod,
    /// What was applied to the order.
    pub amount: f64,
    pub tendered: f64,
    pub change_due: f64,
    pub tip: f64,
    pub reference: Option<String>,
    /// Why a refund was made; `null` for a payment.
    pub reason: Option<String>,
    pub created_at: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PaymentReceipt {
    pub payment: Payment,
    /// Cash to hand back.
    pub change_due: f64,
    pub order: Order,
}

/// `POST /orders/{id}/refunds`: money given back on a completed order.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewRefund {
    /// Units of lines to give back: each unit's price plus its tax at the
    /// line's rate, rounded half away from zero to the cent. Not with `amount`.
    #[schema(min_items = 1, max_items = 100)]
    pub lines: Option<Vec<RefundLine>>,
    /// An amount to give back instead of lines; money, as a payment's. Without
    /// `lines` or `amount`, all that is still refundable is given back.
    #[schema(exclusive_minimum = 0, maximum = 10000000)]
    pub amount: Option<f64>,
    #[schema(min_length = 1, max_length = 500, pattern = r"\S")]
    pub reason: String,
    /// How the money goes back.
    pub method: PaymentMethod,
    /// The card terminal's or other tender's reference.
    #[schema(max_length = 120)]
    pub reference: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefundLine {
    /// A line of this order, listed once.
    pub line_id: String,
    /// Units to give back, at most those not refunded yet.
    #[schema(minimum = 1, maximum = 999)]
    pub quantity: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RefundReceipt {
    /// The refund, as a payment with a negative amount.
    pub refund: Payment,
    pub order: Order,
}

/// The menu item of a partner's line that matches no menu item: kept at the
/// partner's price (see migration `0015_partners`).
pub const PARTNER_OPEN_ITEM: &str = "00000000-0000-7000-8000-00000000000b";
/// The menu item of a fee a partner platform charges: billed, never cooked.
pub const PARTNER_FEE_ITEM: &str = "00000000-0000-7000-8000-00000000000c";

/// Where a partner platform's order came from.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ExternalRef {
    /// The integration's name (`ubereats`).
    pub platform: String,
    /// The platform's id of the order.
    pub id: String,
    /// The number the courier and the customer see.
    pub display_id: Option<String>,
}

/// A line ready to insert: prices resolved from the menu, in minor units.
pub struct PricedLine {
    pub menu_item_id: String,
    pub name: String,
    pub quantity: i64,
    pub unit_price: i64,
    pub modifiers: Vec<crate::domain::menu::StoredModifier>,
    pub notes: Option<String>,
    pub tax_rate: i64,
    pub station_id: Option<String>,
    pub course: i64,
    pub seat: Option<i64>,
}

/// Checks the shape of requested lines (not yet against the menu).
pub fn check_lines(lines: &[NewLine], checks: &mut Checks, field: &str) {
    if lines.is_empty() {
        checks.fail(field, "must list at least one item");
    }
    if lines.len() > MAX_LINES_PER_REQUEST {
        checks.fail(
            field,
            format!("at most {MAX_LINES_PER_REQUEST} lines per request"),
        );
    }
    for (i, line) in lines.iter().enumerate() {
        checks.id(&format!("{field}[{i}].menu_item_id"), &line.menu_item_id);
        checks.integer_in(
            &format!("{field}[{i}].quantity"),
            line.quantity,
            1..=MAX_QUANTITY,
        );
        checks.optional_text(&format!("{field}[{i}].notes"), line.notes.as_deref(), 500);
        if let Some(course) = line.course {
            checks.integer_in(&format!("{field}[{i}].course"), course, 1..=MAX_COURSE);
        }
        if let Some(seat) = line.seat {
            checks.integer_in(&format!("{field}[{i}].seat"), seat, 1..=MAX_SEAT);
        }
    }
}

/// Prices one line against its menu item, or says which field is wrong.
pub fn price_line(
    line: &NewLine,
    item: &StoredItem,
    field: &str,
    checks: &mut Checks,
) -> Option<PricedLine> {
    if item.archived_at.is_some() || !item.fields.available {
        checks.fail(
            format!("{field}.menu_item_id"),
            format!("{} is not available", item.fields.name),
        );
        return None;
    }
    let mut modifiers = Vec::new();
    for (j, name) in line.modifiers.iter().flatten().enumerate() {
        match item
            .fields
            .modifiers
            .iter()
            .find(|m| m.name.eq_ignore_ascii_case(name.trim()))
        {
            Some(m)
                if !modifiers
                    .iter()
                    .any(|c: &crate::domain::menu::StoredModifier| c.name == m.name) =>
            {
                modifiers.push(m.clone())
            }
            Some(_) => checks.fail(format!("{field}.modifiers[{j}]"), "is listed twice"),
            None => checks.fail(
                format!("{field}.modifiers[{j}]"),
                format!("{} has no modifier {name:?}", item.fields.name),
            ),
        }
    }
    let unit_price = item.fields.price + modifiers.iter().map(|m| m.price).sum::<i64>();
    Some(PricedLine {
        menu_item_id: item.id.clone(),
        name: item.fields.name.clone(),
        quantity: line.quantity,
        unit_price,
        modifiers,
        notes: line
            .notes
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_string),
        tax_rate: item.fields.tax_rate,
        station_id: item.cooks_at.clone(),
        course: line.course.unwrap_or(1),
        seat: line.seat,
    })
}

/// A line's amounts for totalling: before discounts, its discount, its tax rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineAmount {
    pub gross: i64,
    pub discount: i64,
    pub tax_rate: i64,
}

/// Order totals from its lines, as `(subtotal, discount, tax, total)`: tax is
/// computed per tax rate on the sum of the lines' discounted amounts at that
/// rate and rounded half away from zero to the minor unit, so many cheap lines
/// do not collect a rounding cent each.
pub fn totals(lines: &[LineAmount]) -> (i64, i64, i64, i64) {
    let subtotal: i64 = lines.iter().map(|l| l.gross).sum();
    let discount: i64 = lines.iter().map(|l| l.discount).sum();
    let tax: i64 = taxes_by_rate(lines).values().map(|(_, tax)| tax).sum();
    (subtotal, discount, tax, subtotal - discount + tax)
}

/// Per tax rate, the lines' discounted amount at that rate and its tax, as
/// [`totals`] computes them.
pub fn taxes_by_rate(lines: &[LineAmount]) -> std::collections::BTreeMap<i64, (i64, i64)> {
    let mut by_rate: std::collections::BTreeMap<i64, i64> = std::collections::BTreeMap::new();
    for line in lines {
        *by_rate.entry(line.tax_rate).or_default() += line.gross - line.discount;
    }
    by_rate
        .into_iter()
        .map(|(rate, amount)| (rate, (amount, crate::money::percentage(amount, rate))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::OrderStatus::*;
    use super::*;

    #[test]
    fn moves_only_forward_and_cancels_while_open() {
        assert!(Pending.can_become(Confirmed));
        assert!(Ready.can_become(Completed));
        assert!(Served.can_become(Cancelled));
        assert!(!Ready.can_become(Preparing));
        assert!(!Pending.can_become(Pending));
        assert!(!Completed.can_become(Cancelled));
        assert!(!Cancelled.can_become(Pending));
    }

    #[test]
    fn taxes_the_sum_per_rate() {
        // Three lines of 0.10 at 7.5 %: 0.30 taxed once is 0.0225, so 0.02.
        let line = |gross, discount, tax_rate| LineAmount {
            gross,
            discount,
            tax_rate,
        };
        assert_eq!(
            totals(&[line(10, 0, 7500), line(10, 0, 7500), line(10, 0, 7500)]),
            (30, 0, 2, 32)
        );
        assert_eq!(
            totals(&[line(1000, 0, 7500), line(500, 0, 0)]),
            (1500, 0, 75, 1575)
        );
    }

    #[test]
    fn taxes_the_discounted_amounts() {
        let line = |gross, discount, tax_rate| LineAmount {
            gross,
            discount,
            tax_rate,
        };
        // 20.00 less 4.00 at 10 %, 5.00 at 0 %: tax 1.60 on 16.00.
        assert_eq!(
            totals(&[line(2000, 400, 10_000), line(500, 0, 0)]),
            (2500, 400, 160, 2260)
        );
    }
}
