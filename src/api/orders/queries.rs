//! Order SQL. Every function that changes an order takes the write transaction and
//! leaves the order's totals, version and event consistent before commit.

use std::collections::HashMap;

use chrono::Utc;
use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde_json::json;
use uuid::Uuid;

use super::model::*;
use crate::api::menu::{self, StoredModifier};
use crate::api::settings::TenantSettings;
use crate::error::ApiError;
use crate::events::outbox;
use crate::money::to_json;
use crate::time::now_rfc3339;

/// An order as stored, amounts in minor units.
pub struct OrderRow {
    pub id: String,
    pub order_number: String,
    pub business_date: String,
    pub status: OrderStatus,
    pub order_type: OrderType,
    pub table_id: Option<String>,
    pub table_name: Option<String>,
    pub session_id: Option<String>,
    pub customer_name: Option<String>,
    pub customer_phone: Option<String>,
    pub notes: Option<String>,
    pub subtotal: i64,
    pub tax_amount: i64,
    pub discount_amount: i64,
    pub total_amount: i64,
    pub paid_amount: i64,
    pub tip_amount: i64,
    pub cancel_reason: Option<String>,
    pub version: i64,
    pub created_at: String,
    pub updated_at: String,
    pub closed_at: Option<String>,
}

impl OrderRow {
    pub fn balance_due(&self) -> i64 {
        self.total_amount - self.paid_amount
    }
}

const ORDER_COLUMNS: &str =
    "id, order_number, business_date, status, order_type, table_id, table_name, \
     customer_name, customer_phone, notes, subtotal, tax_amount, discount_amount, total_amount, \
     paid_amount, tip_amount, cancel_reason, version, created_at, updated_at, closed_at, session_id";

fn order_from_row(r: &Row) -> rusqlite::Result<OrderRow> {
    let status: String = r.get(3)?;
    let order_type: String = r.get(4)?;
    Ok(OrderRow {
        id: r.get(0)?,
        order_number: r.get(1)?,
        business_date: r.get(2)?,
        status: OrderStatus::parse(&status).unwrap_or(OrderStatus::Pending),
        order_type: OrderType::parse(&order_type).unwrap_or(OrderType::DineIn),
        table_id: r.get(5)?,
        table_name: r.get(6)?,
        customer_name: r.get(7)?,
        customer_phone: r.get(8)?,
        notes: r.get(9)?,
        subtotal: r.get(10)?,
        tax_amount: r.get(11)?,
        discount_amount: r.get(12)?,
        total_amount: r.get(13)?,
        paid_amount: r.get(14)?,
        tip_amount: r.get(15)?,
        cancel_reason: r.get(16)?,
        version: r.get(17)?,
        created_at: r.get(18)?,
        updated_at: r.get(19)?,
        closed_at: r.get(20)?,
        session_id: r.get(21)?,
    })
}

pub fn find_order(conn: &Connection, id: &str) -> Result<OrderRow, ApiError> {
    conn.prepare_cached(&format!("SELECT {ORDER_COLUMNS} FROM orders WHERE id = ?1"))?
        .query_row([id], order_from_row)
        .optional()?
        .ok_or_else(|| ApiError::not_found("order"))
}

const LINE_COLUMNS: &str =
    "id, menu_item_id, name, quantity, unit_price, modifiers, notes, tax_rate, kitchen_station";

fn line_from_row(r: &Row, exponent: u32) -> rusqlite::Result<OrderLine> {
    let quantity: i64 = r.get(3)?;
    let unit_price: i64 = r.get(4)?;
    let modifiers: String = r.get(5)?;
    Ok(OrderLine {
        id: r.get(0)?,
        menu_item_id: r.get(1)?,
        name: r.get(2)?,
        quantity,
        unit_price: to_json(unit_price, exponent),
        modifiers: serde_json::from_str::<Vec<StoredModifier>>(&modifiers)
            .unwrap_or_default()
            .into_iter()
            .map(|m| LineModifier {
                name: m.name,
                price: to_json(m.price, exponent),
            })
            .collect(),
        notes: r.get(6)?,
        tax_rate: crate::money::rate_to_json(r.get(7)?),
        line_total: to_json(unit_price * quantity, exponent),
        kitchen_station: r.get(8)?,
    })
}

fn lines_of(conn: &Connection, order_id: &str, exponent: u32) -> Result<Vec<OrderLine>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {LINE_COLUMNS} FROM order_items WHERE order_id = ?1 ORDER BY created_at, id"
    ))?;
    let rows = stmt.query_map([order_id], |r| line_from_row(r, exponent))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The lines of many orders in one query, by order id.
fn lines_of_all(
    conn: &Connection,
    rows: &[OrderRow],
    exponent: u32,
) -> Result<HashMap<String, Vec<OrderLine>>, ApiError> {
    let ids = serde_json::to_string(&rows.iter().map(|row| &row.id).collect::<Vec<_>>())
        .map_err(ApiError::internal)?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {LINE_COLUMNS}, order_id FROM order_items \
         WHERE order_id IN (SELECT value FROM json_each(?1)) ORDER BY created_at, id"
    ))?;
    let mut lines: HashMap<String, Vec<OrderLine>> = HashMap::with_capacity(rows.len());
    let mut found = stmt.query([ids])?;
    while let Some(r) = found.next()? {
        lines
            .entry(r.get(9)?)
            .or_default()
            .push(line_from_row(r, exponent)?);
    }
    Ok(lines)
}

/// The full order as the API shows it.
pub fn order_json(conn: &Connection, row: &OrderRow, exponent: u32) -> Result<Order, ApiError> {
    Ok(order_with_lines(
        row,
        lines_of(conn, &row.id, exponent)?,
        exponent,
    ))
}

fn order_with_lines(row: &OrderRow, items: Vec<OrderLine>, exponent: u32) -> Order {
    let customer =
        (row.customer_name.is_some() || row.customer_phone.is_some()).then(|| Customer {
            name: row.customer_name.clone(),
            phone: row.customer_phone.clone(),
        });
    Order {
        id: row.id.clone(),
        order_number: row.order_number.clone(),
        status: row.status,
        order_type: row.order_type,
        table_id: row.table_id.clone(),
        table_name: row.table_name.clone(),
        session_id: row.session_id.clone(),
        customer,
        notes: row.notes.clone(),
        items,
        subtotal: to_json(row.subtotal, exponent),
        tax_amount: to_json(row.tax_amount, exponent),
        discount_amount: to_json(row.discount_amount, exponent),
        total_amount: to_json(row.total_amount, exponent),
        paid_amount: to_json(row.paid_amount, exponent),
        tip_amount: to_json(row.tip_amount, exponent),
        balance_due: to_json(row.balance_due(), exponent),
        cancel_reason: row.cancel_reason.clone(),
        business_date: row.business_date.clone(),
        created_at: row.created_at.clone(),
        updated_at: row.updated_at.clone(),
        closed_at: row.closed_at.clone(),
        version: row.version,
    }
}

pub fn get_order(conn: &Connection, id: &str, exponent: u32) -> Result<Order, ApiError> {
    order_json(conn, &find_order(conn, id)?, exponent)
}

pub struct OrderFilter {
    pub status: Option<OrderStatus>,
    pub order_type: Option<OrderType>,
    pub table_id: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    /// Id of the last order of the previous page.
    pub before: Option<String>,
    pub limit: u32,
}

/// Newest first.
pub fn list_orders(
    conn: &Connection,
    filter: &OrderFilter,
    exponent: u32,
) -> Result<Vec<Order>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR order_type = ?2) \
         AND (?3 IS NULL OR table_id = ?3) AND (?4 IS NULL OR created_at >= ?4) AND (?5 IS NULL OR created_at < ?5) \
         AND (?6 IS NULL OR id < ?6) ORDER BY id DESC LIMIT ?7"
    ))?;
    let rows = stmt.query_map(
        params![
            filter.status.map(OrderStatus::as_str),
            filter.order_type.map(OrderType::as_str),
            filter.table_id,
            filter.from,
            filter.to,
            filter.before,
            filter.limit + 1
        ],
        order_from_row,
    )?;
    let rows: Vec<OrderRow> = rows.collect::<Result<_, _>>()?;
    let mut lines = lines_of_all(conn, &rows, exponent)?;
    Ok(rows
        .iter()
        .map(|row| order_with_lines(row, lines.remove(&row.id).unwrap_or_default(), exponent))
        .collect())
}

/// The table's name for a dine-in order, or the field error.
fn table_name(conn: &Connection, table_id: &str) -> Result<String, ApiError> {
    conn.prepare_cached("SELECT name FROM tables WHERE id = ?1 AND active = 1")?
        .query_row([table_id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| ApiError::invalid_field("table_id", "no such table"))
}

/// Resolves requested lines against the menu; every problem is reported at once.
fn price_lines(
    conn: &Connection,
    lines: &[NewLine],
    field: &str,
) -> Result<Vec<PricedLine>, ApiError> {
    let mut checks = crate::api::validate::Checks::new();
    check_lines(lines, &mut checks, field);
    checks.finish()?;
    let mut checks = crate::api::validate::Checks::new();
    let mut priced = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let line_field = format!("{field}[{i}]");
        match menu::get_item(conn, &line.menu_item_id) {
            Ok(item) => priced.extend(price_line(line, &item, &line_field, &mut checks)),
            Err(_) => checks.fail(format!("{line_field}.menu_item_id"), "no such menu item"),
        }
    }
    checks.finish()?;
    Ok(priced)
}

fn insert_lines(tx: &Transaction, order_id: &str, lines: &[PricedLine]) -> Result<(), ApiError> {
    let now = now_rfc3339();
    let mut stmt = tx.prepare_cached(
        "INSERT INTO order_items (id, order_id, menu_item_id, name, unit_price, quantity, modifiers, notes, \
         tax_rate, kitchen_station, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11)",
    )?;
    for line in lines {
        stmt.execute(params![
            Uuid::now_v7().to_string(),
            order_id,
            line.menu_item_id,
            line.name,
            line.unit_price,
            line.quantity,
            serde_json::to_string(&line.modifiers).map_err(ApiError::internal)?,
            line.notes,
            line.tax_rate,
            line.kitchen_station,
            now
        ])?;
    }
    Ok(())
}

/// The next human-readable number of the business day, such as `261121-007`.
fn next_order_number(
    tx: &Transaction,
    settings: &TenantSettings,
) -> Result<(String, String), ApiError> {
    let date = settings.business_date(Utc::now());
    let business_date = date.format("%Y-%m-%d").to_string();
    let number: i64 = tx.prepare_cached("INSERT INTO order_number_sequences (business_date, last_number) VALUES (?1, 1) \
         ON CONFLICT (business_date) DO UPDATE SET last_number = last_number + 1 RETURNING last_number")?.query_row([&business_date],
        |r| r.get(0),
    )?;
    Ok((
        format!("{}-{number:03}", date.format("%y%m%d")),
        business_date,
    ))
}

/// Recomputes totals from the lines, bumps the version and records the event.
fn touch(
    tx: &Transaction,
    tenant_id: Uuid,
    order_id: &str,
    event: &str,
) -> Result<OrderRow, ApiError> {
    let lines: Vec<(i64, i64)> = {
        let mut stmt = tx.prepare_cached(
            "SELECT unit_price * quantity, tax_rate FROM order_items WHERE order_id = ?1",
        )?;
        let rows = stmt.query_map([order_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let current = find_order(tx, order_id)?;
    let (subtotal, tax, total) = totals(&lines, current.discount_amount);
    if total < current.paid_amount {
        return Err(ApiError::conflict(
            "total_below_paid",
            "the change would bring the total below what has already been paid",
        ));
    }
    tx.prepare_cached("UPDATE orders SET subtotal = ?2, tax_amount = ?3, total_amount = ?4, version = version + 1, \
         updated_at = ?5 WHERE id = ?1")?.execute(params![order_id, subtotal, tax, total, now_rfc3339()],
    )?;
    let row = find_order(tx, order_id)?;
    let exponent = crate::api::settings::load(tx)?.exponent();
    outbox::enqueue(
        tx,
        tenant_id,
        event,
        json!({ "order": {
            "id": row.id,
            "order_number": row.order_number,
            "status": row.status.as_str(),
            "order_type": row.order_type.as_str(),
            "total_amount": to_json(row.total_amount, exponent),
            "table_name": row.table_name,
        }}),
    )?;
    Ok(row)
}

fn require_open(order: &OrderRow) -> Result<(), ApiError> {
    if order.status.is_open() {
        Ok(())
    } else {
        Err(ApiError::conflict(
            "order_closed",
            format!(
                "the order is {}; it can no longer change",
                order.status.as_str()
            ),
        )
        .with("current_status", order.status.as_str()))
    }
}

fn clean(text: Option<&str>, max: usize, field: &str) -> Result<Option<String>, ApiError> {
    let mut checks = crate::api::validate::Checks::new();
    let value = checks.optional_text(field, text, max);
    checks.finish()?;
    Ok(value)
}

pub fn create_order(
    tx: &Transaction,
    tenant_id: Uuid,
    actor: &str,
    settings: &TenantSettings,
    new: &NewOrder,
) -> Result<OrderRow, ApiError> {
    let mut checks = crate::api::validate::Checks::new();
    let notes = checks.optional_text("notes", new.notes.as_deref(), 1000);
    let customer_name = checks.optional_text(
        "customer.name",
        new.customer.as_ref().and_then(|c| c.name.as_deref()),
        120,
    );
    let customer_phone = checks.optional_text(
        "customer.phone",
        new.customer.as_ref().and_then(|c| c.phone.as_deref()),
        40,
    );
    if new.order_type == OrderType::Delivery && customer_name.is_none() && customer_phone.is_none()
    {
        checks.fail(
            "customer",
            "a delivery order needs the customer's name or phone",
        );
    }
    if new.table_id.is_some() && new.order_type != OrderType::DineIn {
        checks.fail("table_id", "only dine-in orders sit at a table");
    }
    let table_id = new.table_id.as_deref().map(|t| checks.id("table_id", t));
    // Dining room: an order placed in a seating session takes the session's table.
    if new.session_id.is_some() && new.order_type != OrderType::DineIn {
        checks.fail(
            "session_id",
            "only dine-in orders belong to a seating session",
        );
    }
    let session_id = new
        .session_id
        .as_deref()
        .map(|s| checks.id("session_id", s));
    checks.finish()?;
    let (table_id, table_name) = match &session_id {
        Some(session_id) => {
            let (id, name) = crate::api::sessions::table_of_open_session(tx, session_id)?;
            (Some(id), Some(name))
        }
        None => {
            let table_name = table_id.as_deref().map(|t| table_name(tx, t)).transpose()?;
            (table_id, table_name)
        }
    };
    let lines = price_lines(tx, &new.items, "items")?;
    let (order_number, business_date) = next_order_number(tx, settings)?;
    let id = Uuid::now_v7().to_string();
    let now = now_rfc3339();
    tx.prepare_cached("INSERT INTO orders (id, order_number, business_date, status, order_type, table_id, table_name, \
         customer_name, customer_phone, notes, version, created_by, created_at, updated_at, session_id) \
         VALUES (?1, ?2, ?3, 'pending', ?4, ?5, ?6, ?7, ?8, ?9, 0, ?10, ?11, ?11, ?12)")?.execute(params![
            id,
            order_number,
            business_date,
            new.order_type.as_str(),
            table_id,
            table_name,
            customer_name,
            customer_phone,
            notes,
            actor,
            now,
            session_id
        ],
    )?;
    insert_lines(tx, &id, &lines)?;
    touch(tx, tenant_id, &id, "order.created")
}

pub fn update_order(
    tx: &Transaction,
    tenant_id: Uuid,
    id: &str,
    patch: &OrderPatch,
) -> Result<OrderRow, ApiError> {
    let order = find_order(tx, id)?;
    require_open(&order)?;
    // Nothing asked to change: no new version and no event.
    if patch.notes.is_none() && patch.table_id.is_none() && patch.customer.is_none() {
        return Ok(order);
    }
    if let Some(notes) = &patch.notes {
        let notes = clean(notes.as_deref(), 1000, "notes")?;
        tx.prepare_cached("UPDATE orders SET notes = ?2 WHERE id = ?1")?
            .execute(params![id, notes])?;
    }
    if let Some(table_id) = &patch.table_id {
        let (table_id, name) = match table_id {
            Some(t) => {
                if order.order_type != OrderType::DineIn {
                    return Err(ApiError::invalid_field(
                        "table_id",
                        "only dine-in orders sit at a table",
                    ));
                }
                let t = crate::api::validate::path_id(t, "table")
                    .map_err(|_| ApiError::invalid_field("table_id", "must be a UUID"))?;
                let name = table_name(tx, &t)?;
                (Some(t), Some(name))
            }
            None => (None, None),
        };
        tx.prepare_cached("UPDATE orders SET table_id = ?2, table_name = ?3 WHERE id = ?1")?
            .execute(params![id, table_id, name])?;
    }
    if let Some(customer) = &patch.customer {
        let name = clean(
            customer.as_ref().and_then(|c| c.name.as_deref()),
            120,
            "customer.name",
        )?;
        let phone = clean(
            customer.as_ref().and_then(|c| c.phone.as_deref()),
            40,
            "customer.phone",
        )?;
        tx.prepare_cached(
            "UPDATE orders SET customer_name = ?2, customer_phone = ?3 WHERE id = ?1",
        )?
        .execute(params![id, name, phone])?;
    }
    touch(tx, tenant_id, id, "order.updated")
}

pub fn add_lines(
    tx: &Transaction,
    tenant_id: Uuid,
    id: &str,
    lines: &[NewLine],
) -> Result<OrderRow, ApiError> {
    let order = find_order(tx, id)?;
    require_open(&order)?;
    let priced = price_lines(tx, lines, "items")?;
    insert_lines(tx, id, &priced)?;
    touch(tx, tenant_id, id, "order.updated")
}

fn require_line(tx: &Transaction, order_id: &str, line_id: &str) -> Result<(), ApiError> {
    let exists: bool = tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM order_items WHERE id = ?1 AND order_id = ?2)",
        )?
        .query_row(params![line_id, order_id], |r| r.get(0))?;
    if exists {
        Ok(())
    } else {
        Err(ApiError::not_found("order item"))
    }
}

pub fn update_line(
    tx: &Transaction,
    tenant_id: Uuid,
    id: &str,
    line_id: &str,
    patch: &LinePatch,
) -> Result<OrderRow, ApiError> {
    let order = find_order(tx, id)?;
    require_line(tx, id, line_id)?;
    require_open(&order)?;
    let mut checks = crate::api::validate::Checks::new();
    let quantity = patch
        .quantity
        .map(|q| checks.integer_in("quantity", q, 1..=MAX_QUANTITY));
    let notes = patch
        .notes
        .as_ref()
        .map(|n| checks.optional_text("notes", n.as_deref(), 500));
    checks.finish()?;
    if let Some(quantity) = quantity {
        tx.prepare_cached("UPDATE order_items SET quantity = ?2, updated_at = ?3 WHERE id = ?1")?
            .execute(params![line_id, quantity, now_rfc3339()])?;
    }
    if let Some(notes) = notes {
        tx.prepare_cached("UPDATE order_items SET notes = ?2, updated_at = ?3 WHERE id = ?1")?
            .execute(params![line_id, notes, now_rfc3339()])?;
    }
    touch(tx, tenant_id, id, "order.updated")
}

pub fn delete_line(
    tx: &Transaction,
    tenant_id: Uuid,
    id: &str,
    line_id: &str,
) -> Result<OrderRow, ApiError> {
    let order = find_order(tx, id)?;
    require_line(tx, id, line_id)?;
    require_open(&order)?;
    tx.prepare_cached("DELETE FROM order_items WHERE id = ?1")?
        .execute([line_id])?;
    touch(tx, tenant_id, id, "order.updated")
}

pub fn change_status(
    tx: &Transaction,
    tenant_id: Uuid,
    id: &str,
    next: OrderStatus,
    cancel_reason: Option<String>,
) -> Result<OrderRow, ApiError> {
    let order = find_order(tx, id)?;
    if !order.status.can_become(next) {
        return Err(ApiError::illegal_transition(
            "the order",
            order.status.as_str(),
            next.as_str(),
        ));
    }
    if next == OrderStatus::Completed && order.balance_due() > 0 {
        let exponent = crate::api::settings::load(tx)?.exponent();
        return Err(ApiError::conflict(
            "balance_due",
            "the order cannot be completed before it is fully paid",
        )
        .with("current_status", order.status.as_str())
        .with("balance_due", to_json(order.balance_due(), exponent)));
    }
    let closed_at = (!next.is_open()).then(now_rfc3339);
    tx.prepare_cached(
        "UPDATE orders SET status = ?2, closed_at = ?3, cancel_reason = ?4 WHERE id = ?1",
    )?
    .execute(params![id, next.as_str(), closed_at, cancel_reason])?;
    let event = match next {
        OrderStatus::Completed => "order.completed",
        OrderStatus::Cancelled => "order.cancelled",
        _ => "order.updated",
    };
    touch(tx, tenant_id, id, event)
}

const PAYMENT_COLUMNS: &str =
    "id, order_id, method, amount, tendered, change_due, tip, reference, created_at";

fn payment_from_row(r: &Row, exponent: u32) -> rusqlite::Result<Payment> {
    let method: String = r.get(2)?;
    Ok(Payment {
        id: r.get(0)?,
        order_id: r.get(1)?,
        method: match method.as_str() {
            "cash" => PaymentMethod::Cash,
            "card" => PaymentMethod::Card,
            _ => PaymentMethod::Other,
        },
        amount: to_json(r.get(3)?, exponent),
        tendered: to_json(r.get(4)?, exponent),
        change_due: to_json(r.get(5)?, exponent),
        tip: to_json(r.get(6)?, exponent),
        reference: r.get(7)?,
        created_at: r.get(8)?,
    })
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
    tx: &Transaction,
    tenant_id: Uuid,
    actor: &str,
    order_id: &str,
    new: &NewPayment,
    exponent: u32,
) -> Result<(Payment, OrderRow), ApiError> {
    let mut checks = crate::api::validate::Checks::new();
    let tendered = checks.money("amount", new.amount, exponent);
    let tip = new
        .tip
        .map(|t| checks.money("tip", t, exponent))
        .unwrap_or(0);
    let reference = checks.optional_text("reference", new.reference.as_deref(), 120);
    if checks.is_ok() && tendered == 0 {
        checks.fail("amount", "must be greater than zero");
    }
    checks.finish()?;
    let order = find_order(tx, order_id)?;
    require_open(&order)?;
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
    let id = Uuid::now_v7().to_string();
    tx.prepare_cached(&format!(
            "INSERT INTO payments ({PAYMENT_COLUMNS}, created_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
        ))?.execute(params![
            id,
            order_id,
            new.method.as_str(),
            applied,
            tendered,
            tendered - applied,
            tip,
            reference,
            now_rfc3339(),
            actor
        ],
    )?;
    tx.prepare_cached("UPDATE orders SET paid_amount = paid_amount + ?2, tip_amount = tip_amount + ?3 WHERE id = ?1")?.execute(params![order_id, applied, tip],
    )?;
    let row = touch(tx, tenant_id, order_id, "order.updated")?;
    let payment = tx
        .prepare_cached(&format!(
            "SELECT {PAYMENT_COLUMNS} FROM payments WHERE id = ?1"
        ))?
        .query_row([&id], |r| payment_from_row(r, exponent))?;
    Ok((payment, row))
}
