//! Splitting a bill: an open, unpaid order becomes checks, each an order of its
//! own (same table, session and customer, numbered `<order>-1`, `-2`, …) that is
//! paid and completed by itself. The checks' totals add up to the order's to
//! the cent, tax included; the order completes when its last check does.

use rusqlite::params;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::model::*;
use super::read::{find_order, OrderRow};
use super::write::{require_open, touch};
use crate::domain::event::Event;
use crate::domain::validate::Checks;
use crate::domain::Tx;
use crate::error::ApiError;
use crate::money::{percentage, share};

pub const MAX_CHECKS: usize = 20;

/// `POST /orders/{id}/split`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(tag = "by", rename_all = "snake_case", deny_unknown_fields)]
pub enum Split {
    /// Each part lists units of the order's lines (one of three beers, say);
    /// together the parts hold every unit of the order exactly once.
    Items {
        #[schema(min_items = 2, max_items = 20)]
        parts: Vec<Vec<SplitUnit>>,
    },
    /// Parts of one amount each; cents that do not divide go to the first parts.
    Equal {
        #[schema(minimum = 2, maximum = 20)]
        parts: i64,
    },
    /// A check for each seat, in seat order, holding that seat's lines. Every
    /// line needs a seat and at least two seats must be taken; a line for the
    /// table as a whole is given a seat first (`PATCH` the line).
    Seats,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SplitUnit {
    /// A line of the order, once per part.
    pub line_id: String,
    #[schema(minimum = 1, maximum = 999)]
    pub quantity: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SplitResult {
    /// The order, now counting its checks.
    pub order: Order,
    /// The checks, in their order.
    pub checks: Vec<Order>,
}

/// A line of the order as the split needs it.
struct Line {
    id: String,
    name: String,
    unit_price: i64,
    quantity: i64,
    tax_rate: i64,
    /// The line's share of the order's discounts.
    discount: i64,
    seat: Option<i64>,
}

/// One check to be: its units of lines (with their share of the line's
/// discount), and its share of the order's amounts.
#[derive(Default)]
struct Part {
    units: Vec<(String, i64, i64)>,
    subtotal: i64,
    discount: i64,
    tax: i64,
}

/// Splits the order into checks; answers the order and its checks in their order.
pub fn split_order(
    tx: &mut Tx,
    id: &str,
    split: &Split,
) -> Result<(OrderRow, Vec<OrderRow>), ApiError> {
    let order = find_order(tx, id)?;
    require_open(&order)?;
    if order.parent_order_id.is_some() {
        return Err(ApiError::conflict(
            "is_a_check",
            "this is a check of a split order; it is not split again",
        ));
    }
    if order.check_count > 0 {
        return Err(ApiError::conflict(
            "order_split",
            "the order is already split into checks",
        ));
    }
    if order.paid_amount > 0 {
        return Err(ApiError::conflict(
            "has_payments",
            "split the bill before taking payments",
        ));
    }
    let lines = lines_of(tx, id)?;
    let parts = match split {
        Split::Items { parts } => by_items(&lines, parts)?,
        Split::Equal { parts } => equally(&order, *parts)?,
        Split::Seats => by_items(&lines, &seat_parts(&lines)?)?,
    };
    let mut checks = Vec::with_capacity(parts.len());
    for (number, part) in parts.iter().enumerate() {
        checks.push(insert_check(tx, &order, number as i64 + 1, part)?);
    }
    tx.prepare_cached("UPDATE orders SET check_count = ?2 WHERE id = ?1")?
        .execute(params![id, checks.len() as i64])?;
    let order = touch(tx, id, Event::OrderUpdated)?;
    Ok((order, checks))
}

fn lines_of(tx: &Tx, order_id: &str) -> Result<Vec<Line>, ApiError> {
    let mut stmt = tx.prepare_cached(
        "SELECT id, name, unit_price, quantity, tax_rate, discount_amount, seat FROM order_items \
         WHERE order_id = ?1 ORDER BY created_at, id",
    )?;
    let rows = stmt.query_map([order_id], |r| {
        Ok(Line {
            id: r.get(0)?,
            name: r.get(1)?,
            unit_price: r.get(2)?,
            quantity: r.get(3)?,
            tax_rate: r.get(4)?,
            discount: r.get(5)?,
            seat: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One part per seat taken, in seat order, with every unit of its lines.
fn seat_parts(lines: &[Line]) -> Result<Vec<Vec<SplitUnit>>, ApiError> {
    let unseated: Vec<&str> = lines
        .iter()
        .filter(|l| l.seat.is_none())
        .map(|l| l.name.as_str())
        .collect();
    let mut checks = Checks::new();
    if !unseated.is_empty() {
        checks.fail(
            "by",
            format!(
                "every line needs a seat to split by seats; without one: {}",
                unseated.join(", ")
            ),
        );
    }
    let mut seats: Vec<i64> = lines.iter().filter_map(|l| l.seat).collect();
    seats.sort_unstable();
    seats.dedup();
    if unseated.is_empty() && seats.len() < 2 {
        checks.fail(
            "by",
            "the lines are all for one seat; there is nothing to split",
        );
    }
    if seats.len() > MAX_CHECKS {
        checks.fail(
            "by",
            format!(
                "{} seats; a bill splits into at most {MAX_CHECKS} checks",
                seats.len()
            ),
        );
    }
    checks.finish()?;
    Ok(seats
        .into_iter()
        .map(|seat| {
            lines
                .iter()
                .filter(|l| l.seat == Some(seat))
                .map(|l| SplitUnit {
                    line_id: l.id.clone(),
                    quantity: l.quantity,
                })
                .collect()
        })
        .collect())
}

/// Parts holding the units asked, every unit of the order once; each rate's tax
/// is shared so the parts' taxes add up to the order's.
fn by_items(lines: &[Line], asked: &[Vec<SplitUnit>]) -> Result<Vec<Part>, ApiError> {
    let mut checks = Checks::new();
    if !(2..=MAX_CHECKS).contains(&asked.len()) {
        checks.fail("parts", format!("split into 2 to {MAX_CHECKS} parts"));
    }
    let mut parts: Vec<Part> = Vec::with_capacity(asked.len());
    for (i, units) in asked.iter().enumerate() {
        let mut part = Part::default();
        if units.is_empty() {
            checks.fail(format!("parts[{i}]"), "must hold at least one line");
        }
        for (j, unit) in units.iter().enumerate() {
            let field = format!("parts[{i}][{j}]");
            let line_id = checks.id(&format!("{field}.line_id"), &unit.line_id);
            checks.integer_in(
                &format!("{field}.quantity"),
                unit.quantity,
                1..=MAX_QUANTITY,
            );
            if part.units.iter().any(|(id, _, _)| *id == line_id) {
                checks.fail(format!("{field}.line_id"), "is listed twice in this part");
            } else if !lines.iter().any(|l| l.id == line_id) {
                checks.fail(format!("{field}.line_id"), "no such line on this order");
            }
            part.units.push((line_id, unit.quantity, 0));
        }
        parts.push(part);
    }
    for line in lines {
        let given: i64 = parts
            .iter()
            .flat_map(|p| &p.units)
            .filter(|(id, _, _)| *id == line.id)
            .map(|(_, quantity, _)| quantity)
            .sum();
        if given != line.quantity {
            checks.fail(
                "parts",
                format!(
                    "{}: the parts hold {given} of its {} units; give each unit to one part",
                    line.name, line.quantity
                ),
            );
        }
    }
    checks.finish()?;
    // Each line's discount goes with its units, in proportion.
    for line in lines {
        let held: Vec<i64> = parts
            .iter()
            .map(|p| {
                p.units
                    .iter()
                    .filter(|(id, _, _)| *id == line.id)
                    .map(|(_, quantity, _)| quantity)
                    .sum()
            })
            .collect();
        for (part, discount) in parts.iter_mut().zip(share(line.discount, &held)) {
            if let Some(unit) = part.units.iter_mut().find(|(id, _, _)| *id == line.id) {
                unit.2 = discount;
            }
            part.discount += discount;
        }
    }
    let mut rates: Vec<i64> = lines.iter().map(|l| l.tax_rate).collect();
    rates.sort_unstable();
    rates.dedup();
    for rate in rates {
        // (gross, discounted) of a part's units at this rate.
        let at_rate = |units: &[(String, i64, i64)]| -> (i64, i64) {
            units
                .iter()
                .filter_map(|(id, quantity, discount)| {
                    let line = lines.iter().find(|l| l.id == *id)?;
                    let gross = line.unit_price * quantity;
                    (line.tax_rate == rate).then_some((gross, gross - discount))
                })
                .fold((0, 0), |(g, t), (gross, taxable)| (g + gross, t + taxable))
        };
        let amounts: Vec<(i64, i64)> = parts.iter().map(|p| at_rate(&p.units)).collect();
        let taxable: Vec<i64> = amounts.iter().map(|(_, taxable)| *taxable).collect();
        let whole = taxable.iter().sum();
        for (part, tax) in parts
            .iter_mut()
            .zip(share(percentage(whole, rate), &taxable))
        {
            part.tax += tax;
        }
        for (part, (gross, _)) in parts.iter_mut().zip(&amounts) {
            part.subtotal += gross;
        }
    }
    Ok(parts)
}

/// `count` parts of the order's total, of its discount and of its tax, the odd
/// cents to the first parts.
fn equally(order: &OrderRow, count: i64) -> Result<Vec<Part>, ApiError> {
    if !(2..=MAX_CHECKS as i64).contains(&count) {
        return Err(ApiError::invalid_field(
            "parts",
            format!("split into 2 to {MAX_CHECKS} parts"),
        ));
    }
    if order.total_amount < count {
        return Err(ApiError::invalid_field(
            "parts",
            "the order's total does not reach a cent a part",
        ));
    }
    let totals = evenly(order.total_amount, count);
    let taxes = evenly(order.tax_amount, count);
    let discounts = evenly(order.discount_amount, count);
    Ok(totals
        .into_iter()
        .zip(taxes)
        .zip(discounts)
        .map(|((total, tax), discount)| Part {
            units: Vec::new(),
            subtotal: total - tax + discount,
            discount,
            tax,
        })
        .collect())
}

fn evenly(amount: i64, count: i64) -> Vec<i64> {
    let (each, left) = (amount / count, amount % count);
    (0..count).map(|i| each + i64::from(i < left)).collect()
}

/// A check: an order of the parent's kind, at its table and in its session,
/// holding its units as lines (none for an equal share), with its amounts fixed.
fn insert_check(
    tx: &mut Tx,
    parent: &OrderRow,
    number: i64,
    part: &Part,
) -> Result<OrderRow, ApiError> {
    let id = Uuid::now_v7().to_string();
    let now = tx.now_text().to_string();
    tx.prepare_cached(
        "INSERT INTO orders (id, order_number, business_date, status, order_type, table_id, table_name, \
         customer_name, customer_phone, notes, subtotal, tax_amount, total_amount, version, created_by, \
         created_at, updated_at, session_id, parent_order_id, check_number, discount_amount) \
         VALUES (?1, ?2, ?3, 'confirmed', ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 0, ?13, ?14, ?14, ?15, ?16, ?17, ?18)",
    )?
    .execute(params![
        id,
        format!("{}-{number}", parent.order_number),
        parent.business_date,
        parent.order_type.as_str(),
        parent.table_id,
        parent.table_name,
        parent.customer_name,
        parent.customer_phone,
        parent.notes,
        part.subtotal,
        part.tax,
        part.subtotal - part.discount + part.tax,
        tx.actor().to_string(),
        now,
        parent.session_id,
        parent.id,
        number,
        part.discount
    ])?;
    for (line_id, quantity, discount) in &part.units {
        tx.prepare_cached(
            "INSERT INTO order_items (id, order_id, menu_item_id, name, unit_price, quantity, modifiers, notes, \
             tax_rate, station_id, course, seat, created_at, updated_at, discount_amount) \
             SELECT ?1, ?2, menu_item_id, name, unit_price, ?3, modifiers, notes, tax_rate, station_id, course, seat, ?4, ?4, ?6 \
             FROM order_items WHERE id = ?5",
        )?
        .execute(params![Uuid::now_v7().to_string(), id, quantity, now, line_id, discount])?;
    }
    touch(tx, &id, Event::OrderCreated)
}

/// A check just completed: once every check of its order is, the order
/// completes too, paid by its checks.
pub(super) fn complete_parent_when_paid(tx: &mut Tx, check: &OrderRow) -> Result<(), ApiError> {
    let Some(parent_id) = &check.parent_order_id else {
        return Ok(());
    };
    let (open, paid, tips): (i64, i64, i64) = tx
        .prepare_cached(
            "SELECT COUNT(*) FILTER (WHERE status <> 'completed'), COALESCE(SUM(paid_amount), 0), \
             COALESCE(SUM(tip_amount), 0) FROM orders WHERE parent_order_id = ?1",
        )?
        .query_row([parent_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    if open > 0 {
        return Ok(());
    }
    tx.prepare_cached(
        "UPDATE orders SET status = 'completed', paid_amount = ?2, tip_amount = ?3, closed_at = ?4 WHERE id = ?1",
    )?
    .execute(params![parent_id, paid, tips, tx.now_text().to_string()])?;
    super::discounts::count_uses(tx, &find_order(tx, parent_id)?)?;
    touch(tx, parent_id, Event::OrderCompleted).map(|_| ())
}

/// Lines of a split order, and of a check, stay as they are: the checks'
/// amounts were fixed from them.
pub(super) fn require_unsplit(order: &OrderRow) -> Result<(), ApiError> {
    if order.parent_order_id.is_some() {
        return Err(ApiError::conflict(
            "is_a_check",
            "a check's lines are fixed; change the order before splitting it",
        ));
    }
    if order.check_count > 0 {
        return Err(ApiError::conflict(
            "order_split",
            "the order is split into checks; its lines are fixed and its checks are paid",
        ));
    }
    Ok(())
}

/// The open checks of an order, for cancelling it with them.
pub(super) fn open_checks(tx: &Tx, order_id: &str) -> Result<Vec<String>, ApiError> {
    let mut stmt = tx.prepare_cached(
        "SELECT id FROM orders WHERE parent_order_id = ?1 AND status NOT IN ('completed', 'cancelled') \
         ORDER BY check_number",
    )?;
    let rows = stmt.query_map([order_id], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}
