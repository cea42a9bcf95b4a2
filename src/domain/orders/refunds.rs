//! Refunds: money given back on a completed order (units of its lines, an
//! amount, or all that is left), and the payments of an order cancelled with
//! them. A refund is a payment with a negative amount; together they never give
//! back more than was paid.

use rusqlite::{params, OptionalExtension};

use super::model::*;
use super::payments::{get_payment, insert_payment, Tender};
use super::read::{find_order, OrderRow};
use super::write::touch;
use crate::domain::event::Event;
use crate::domain::validate::Checks;
use crate::domain::Tx;
use crate::error::ApiError;
use crate::money::{percentage, to_json};

/// Units of one line to give back, and what they come to with their tax.
struct LineRefund {
    line_id: String,
    quantity: i64,
    amount: i64,
}

/// Gives money back on a completed order; the order emits `order.updated`.
pub fn refund(
    tx: &mut Tx,
    order_id: &str,
    new: &NewRefund,
) -> Result<(Payment, OrderRow), ApiError> {
    let exponent = tx.exponent()?;
    let mut checks = Checks::new();
    let reason = checks.text("reason", &new.reason, 500);
    let reference = checks.optional_text("reference", new.reference.as_deref(), 120);
    let amount = new.amount.map(|a| checks.money("amount", a, exponent));
    if checks.is_ok() && amount == Some(0) {
        checks.fail("amount", "must be greater than zero");
    }
    if new.lines.is_some() && new.amount.is_some() {
        checks.fail("amount", "give lines or an amount, not both");
    }
    let asked = new.lines.as_deref().unwrap_or_default();
    if new.lines.is_some() && asked.is_empty() {
        checks.fail("lines", "must list at least one line");
    }
    if asked.len() > MAX_LINES_PER_REQUEST {
        checks.fail(
            "lines",
            format!("at most {MAX_LINES_PER_REQUEST} lines at once"),
        );
    }
    let mut ids: Vec<String> = Vec::with_capacity(asked.len());
    for (i, line) in asked.iter().enumerate() {
        let id = checks.id(&format!("lines[{i}].line_id"), &line.line_id);
        if ids.contains(&id) {
            checks.fail(format!("lines[{i}].line_id"), "is listed twice");
        }
        ids.push(id);
        checks.integer_in(
            &format!("lines[{i}].quantity"),
            line.quantity,
            1..=MAX_QUANTITY,
        );
    }
    checks.finish()?;

    let order = find_order(tx, order_id)?;
    if order.status != OrderStatus::Completed {
        return Err(ApiError::conflict(
            "order_not_completed",
            "only a completed order is refunded; an open one is cancelled with its payments refunded",
        )
        .with("current_status", order.status.as_str()));
    }
    if order.check_count > 0 {
        return Err(ApiError::conflict(
            "order_split",
            "the order was paid through its checks: refund a check",
        ));
    }
    let lines = price_line_refunds(tx, order_id, &ids, asked)?;
    let refundable = order.refundable();
    let total = match amount {
        Some(amount) => amount,
        None if lines.is_empty() => refundable,
        // The last units of the order give back what is left of its payments, so
        // per-line rounding never leaves a cent behind or takes one too many.
        None if gives_back_every_unit(tx, order_id, &lines)? => refundable,
        None => lines.iter().map(|l| l.amount).sum(),
    };
    if total <= 0 {
        return Err(ApiError::conflict(
            "nothing_to_refund",
            "everything paid on this order has already been refunded",
        ));
    }
    if total > refundable {
        return Err(ApiError::conflict(
            "refund_exceeds_paid",
            "a refund cannot give back more than was paid and not yet refunded",
        )
        .with("refundable", to_json(refundable, exponent)));
    }
    let id = insert_refund(
        tx,
        order_id,
        new.method,
        total,
        0,
        reference.as_deref(),
        &reason,
    )?;
    for line in &lines {
        tx.prepare_cached(
            "INSERT INTO refund_lines (payment_id, line_id, quantity, amount) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![id, line.line_id, line.quantity, line.amount])?;
    }
    tx.prepare_cached("UPDATE orders SET refunded_amount = refunded_amount + ?2 WHERE id = ?1")?
        .execute(params![order_id, total])?;
    if total == refundable {
        // Refunded in full: the order's coupon and campaign uses are given back.
        super::discounts::release_uses(tx, order_id)?;
    }
    let row = touch(tx, order_id, Event::OrderUpdated)?;
    Ok((get_payment(tx, &id, exponent)?, row))
}

/// Each asked line of the order, checked against the units still refundable,
/// with the units' price and tax.
fn price_line_refunds(
    tx: &Tx,
    order_id: &str,
    ids: &[String],
    asked: &[RefundLine],
) -> Result<Vec<LineRefund>, ApiError> {
    let mut checks = Checks::new();
    let mut lines = Vec::with_capacity(asked.len());
    for (i, (id, line)) in ids.iter().zip(asked).enumerate() {
        let field = format!("lines[{i}]");
        let found: Option<(i64, i64, i64, i64, i64)> = tx
            .prepare_cached(
                "SELECT unit_price, quantity, tax_rate, \
                 (SELECT COALESCE(SUM(quantity), 0) FROM refund_lines WHERE line_id = order_items.id), \
                 discount_amount FROM order_items WHERE id = ?1 AND order_id = ?2",
            )?
            .query_row(params![id, order_id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .optional()?;
        let Some((unit_price, quantity, tax_rate, refunded, discount)) = found else {
            checks.fail(format!("{field}.line_id"), "no such line on this order");
            continue;
        };
        let left = quantity - refunded;
        if line.quantity > left {
            checks.fail(
                format!("{field}.quantity"),
                format!("only {left} of this line left to refund"),
            );
            continue;
        }
        // The units' share of the line's discount, rounded down: the last
        // units of the order give back exactly what is left.
        let price = unit_price * line.quantity - discount * line.quantity / quantity;
        lines.push(LineRefund {
            line_id: id.clone(),
            quantity: line.quantity,
            amount: price + percentage(price, tax_rate),
        });
    }
    checks.finish()?;
    Ok(lines)
}

/// Whether these units are all the order has left unrefunded.
fn gives_back_every_unit(tx: &Tx, order_id: &str, lines: &[LineRefund]) -> Result<bool, ApiError> {
    let left: i64 = tx
        .prepare_cached(
            "SELECT COALESCE(SUM(i.quantity), 0) - \
             (SELECT COALESCE(SUM(r.quantity), 0) FROM refund_lines r \
              JOIN order_items l ON l.id = r.line_id WHERE l.order_id = ?1) \
             FROM order_items i WHERE i.order_id = ?1",
        )?
        .query_row([order_id], |r| r.get(0))?;
    Ok(left == lines.iter().map(|l| l.quantity).sum::<i64>())
}

fn insert_refund(
    tx: &Tx,
    order_id: &str,
    method: PaymentMethod,
    amount: i64,
    tip: i64,
    reference: Option<&str>,
    reason: &str,
) -> Result<String, ApiError> {
    insert_payment(
        tx,
        order_id,
        &Tender {
            method,
            applied: -amount,
            tendered: -amount,
            tip: -tip,
            reference,
            reason: Some(reason),
        },
    )
}

/// Gives back every payment of an open order about to be cancelled, each with
/// its tip and by its own method.
pub(super) fn refund_payments(
    tx: &Tx,
    order: &OrderRow,
    reason: Option<&str>,
) -> Result<(), ApiError> {
    let payments: Vec<(String, i64, i64, Option<String>)> = tx
        .prepare_cached(
            "SELECT method, amount, tip, reference FROM payments \
             WHERE order_id = ?1 AND amount > 0 ORDER BY created_at, id",
        )?
        .query_map([&order.id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect::<Result<_, _>>()?;
    let reason = reason.unwrap_or("order cancelled");
    for (method, amount, tip, reference) in &payments {
        let method = PaymentMethod::parse(method).unwrap_or(PaymentMethod::Other);
        insert_refund(
            tx,
            &order.id,
            method,
            *amount,
            *tip,
            reference.as_deref(),
            reason,
        )?;
    }
    let tips: i64 = payments.iter().map(|p| p.2).sum();
    tx.prepare_cached(
        "UPDATE orders SET refunded_amount = paid_amount, tip_amount = tip_amount - ?2 WHERE id = ?1",
    )?
    .execute(params![order.id, tips])?;
    Ok(())
}
