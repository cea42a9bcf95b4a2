//! Payments against an order: cash with change, card and other tenders that may
//! not exceed the balance, and tips.

use rusqlite::{params, Connection, OptionalExtension, Row};
use uuid::Uuid;

use super::model::*;
use super::read::{find_order, OrderRow};
use super::write::{require_open, touch};
use crate::domain::event::Event;
use crate::domain::validate::Checks;
use crate::domain::Tx;
use crate::error::ApiError;
use crate::money::to_json;

pub(super) const PAYMENT_COLUMNS: &str =
    "id, order_id, method, amount, tendered, change_due, tip, reference, created_at, reason";

fn payment_from_row(r: &Row, exponent: u32) -> rusqlite::Result<Payment> {
    let method: String = r.get(2)?;
    Ok(Payment {
        id: r.get(0)?,
        order_id: r.get(1)?,
        method: PaymentMethod::parse(&method).unwrap_or(PaymentMethod::Other),
        amount: to_json(r.get(3)?, exponent),
        tendered: to_json(r.get(4)?, exponent),
        change_due: to_json(r.get(5)?, exponent),
        tip: to_json(r.get(6)?, exponent),
        reference: r.get(7)?,
        created_at: r.get(8)?,
        reason: r.get(9)?,
    })
}

/// A row of the payments table: a payment, or a refund with negative amounts
/// and its reason. Cash above what was applied is change.
pub(super) struct Tender<'a> {
    pub method: PaymentMethod,
    pub applied: i64,
    pub tendered: i64,
    pub tip: i64,
    pub reference: Option<&'a str>,
    pub reason: Option<&'a str>,
}

pub(super) fn insert_payment(tx: &Tx, order_id: &str, tender: &Tender) -> Result<String, ApiError> {
    let id = Uuid::now_v7().to_string();
    tx.prepare_cached(&format!(
        "INSERT INTO payments ({PAYMENT_COLUMNS}, created_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
    ))?
    .execute(params![
        id,
        order_id,
        tender.method.as_str(),
        tender.applied,
        tender.tendered,
        tender.tendered - tender.applied,
        tender.tip,
        tender.reference,
        tx.now_text(),
        tender.reason,
        tx.actor()
    ])?;
    Ok(id)
}

pub(super) fn get_payment(conn: &Connection, id: &str, exponent: u32) -> Result<Payment, ApiError> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {PAYMENT_COLUMNS} FROM payments WHERE id = ?1"
        ))?
        .query_row([id], |r| payment_from_row(r, exponent))?)
}

pub fn list_payments(
    conn: &Connection,
    order_id: &str,
    exponent: u32,
) -> Result<Vec<Payment>, ApiError> {
    find_order(conn, order_id)?;
    let mut stmt = conn.prepare(&format!(
        "SELECT {PAYMENT_COLUMNS} FROM payments WHERE order_id = ?1 ORDER BY created_at, id"
    ))?;
    let rows = stmt.query_map([order_id], |r| payment_from_row(r, exponent))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Records a payment. Cash above the balance is change; a card or other payment
/// above the balance is refused, as the terminal would have charged too much.
pub fn add_payment(
    tx: &mut Tx,
    order_id: &str,
    new: &NewPayment,
) -> Result<(Payment, OrderRow), ApiError> {
    record_payment(tx, order_id, new, "")
}

/// As [`add_payment`], naming fields under `prefix` (`tenders[1].`) in errors.
pub(super) fn record_payment(
    tx: &mut Tx,
    order_id: &str,
    new: &NewPayment,
    prefix: &str,
) -> Result<(Payment, OrderRow), ApiError> {
    let exponent = tx.exponent()?;
    let mut checks = Checks::new();
    let field = |name: &str| format!("{prefix}{name}");
    let tendered = checks.money(&field("amount"), new.amount, exponent);
    let tip = new
        .tip
        .map(|t| checks.money(&field("tip"), t, exponent))
        .unwrap_or(0);
    let reference = checks.optional_text(&field("reference"), new.reference.as_deref(), 120);
    if checks.is_ok() && tendered == 0 {
        checks.fail(field("amount"), "must be greater than zero");
    }
    checks.finish()?;
    let order = find_order(tx, order_id)?;
    require_open(&order)?;
    if order.check_count > 0 {
        return Err(ApiError::conflict(
            "order_split",
            "the order is split into checks: take payments on its checks",
        ));
    }
    let balance = order.balance_due();
    if balance <= 0 {
        return Err(ApiError::conflict(
            "nothing_due",
            "the order is already fully paid",
        ));
    }
    if tendered > balance && new.method != PaymentMethod::Cash {
        return Err(ApiError::conflict(
            "overpayment",
            format!(
                "a {} payment cannot exceed the balance due",
                new.method.as_str()
            ),
        )
        .with("balance_due", to_json(balance, exponent)));
    }
    let applied = tendered.min(balance);
    let id = insert_payment(
        tx,
        order_id,
        &Tender {
            method: new.method,
            applied,
            tendered,
            tip,
            reference: reference.as_deref(),
            reason: None,
        },
    )?;
    tx.prepare_cached("UPDATE orders SET paid_amount = paid_amount + ?2, tip_amount = tip_amount + ?3 WHERE id = ?1")?.execute(params![order_id, applied, tip],
    )?;
    let row = touch(tx, order_id, Event::OrderUpdated)?;
    Ok((get_payment(tx, &id, exponent)?, row))
}

/// Whether the order already has a payment (or, with `refund`, a refund) with
/// this reference: how a gateway's repeated message is recorded once.
pub fn has_reference(
    conn: &Connection,
    order_id: &str,
    reference: &str,
    refund: bool,
) -> Result<bool, ApiError> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM payments WHERE order_id = ?1 AND reference = ?2 \
             AND (amount < 0) = ?3)",
        )?
        .query_row(params![order_id, reference, refund], |r| r.get(0))?)
}

/// The order a payment with this reference was recorded on, if any.
pub fn order_of_payment(conn: &Connection, reference: &str) -> Result<Option<String>, ApiError> {
    Ok(conn
        .prepare_cached(
            "SELECT order_id FROM payments WHERE reference = ?1 AND amount > 0 ORDER BY created_at LIMIT 1",
        )?
        .query_row([reference], |r| r.get(0))
        .optional()?)
}
