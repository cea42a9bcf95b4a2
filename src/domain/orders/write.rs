//! Changing orders: creating them, their lines, notes, table and customer, and
//! their status. Every change recomputes the totals, bumps the version and emits
//! its `order.*` event before commit.

use rusqlite::{params, Connection};
use uuid::Uuid;

use super::discounts;
use super::model::*;
use super::read::{find_order, line_amounts, OrderRow};
use super::split;
use crate::domain::event::{Event, OrderData};
use crate::domain::validate::{path_id, Checks};
use crate::domain::{menu, tables, Tx};
use crate::error::ApiError;
use crate::money::to_json;

/// The table of the seating session an order is placed in.
pub struct PlacedTable {
    pub table_id: String,
    pub table_name: String,
}

/// The table's name for a dine-in order, or the field error.
fn table_name(conn: &Connection, table_id: &str) -> Result<String, ApiError> {
    tables::active_table_name(conn, table_id)?
        .ok_or_else(|| ApiError::invalid_field("table_id", "no such table"))
}

/// Resolves requested lines against the menu; every problem is reported at once.
pub(super) fn price_lines(
    conn: &Connection,
    lines: &[NewLine],
    field: &str,
) -> Result<Vec<PricedLine>, ApiError> {
    let mut checks = Checks::new();
    check_lines(lines, &mut checks, field);
    checks.finish()?;
    let mut checks = Checks::new();
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

fn insert_lines(tx: &Tx, order_id: &str, lines: &[PricedLine]) -> Result<(), ApiError> {
    let now = tx.now_text();
    let mut stmt = tx.prepare_cached(
        "INSERT INTO order_items (id, order_id, menu_item_id, name, unit_price, quantity, modifiers, notes, \
         tax_rate, station_id, created_at, updated_at, course, seat) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12, ?13)",
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
            line.station_id,
            now,
            line.course,
            line.seat
        ])?;
    }
    Ok(())
}

/// The next human-readable number of the business day, such as `261121-007`.
fn next_order_number(tx: &Tx) -> Result<(String, String), ApiError> {
    let date = tx.settings()?.business_date(tx.now());
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
pub(super) fn touch(
    tx: &mut Tx,
    order_id: &str,
    event: fn(OrderData) -> Event,
) -> Result<OrderRow, ApiError> {
    let current = find_order(tx, order_id)?;
    // A check's amounts are its share of the split order, fixed at the split.
    let (subtotal, discount, tax, total) = if current.parent_order_id.is_some() {
        (
            current.subtotal,
            current.discount_amount,
            current.tax_amount,
            current.total_amount,
        )
    } else {
        totals(&line_amounts(tx, order_id)?)
    };
    if total < current.paid_amount {
        return Err(ApiError::conflict(
            "total_below_paid",
            "the change would bring the total below what has already been paid",
        ));
    }
    tx.prepare_cached("UPDATE orders SET subtotal = ?2, tax_amount = ?3, total_amount = ?4, discount_amount = ?5, \
         version = version + 1, updated_at = ?6 WHERE id = ?1")?.execute(params![order_id, subtotal, tax, total, discount, tx.now_text()],
    )?;
    let row = find_order(tx, order_id)?;
    let exponent = tx.exponent()?;
    tx.emit(event(OrderData {
        id: row.id.clone(),
        order_number: row.order_number.clone(),
        status: row.status.as_str(),
        order_type: row.order_type.as_str(),
        total_amount: to_json(row.total_amount, exponent),
        table_name: row.table_name.clone(),
    }))?;
    Ok(row)
}

pub(super) fn require_open(order: &OrderRow) -> Result<(), ApiError> {
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
    let mut checks = Checks::new();
    let value = checks.optional_text(field, text, max);
    checks.finish()?;
    Ok(value)
}

/// Creates an order. A dine-in order placed in a seating session comes with the
/// session's first table already looked up (`session_table`); the dining room
/// does that, as orders know nothing of sessions.
pub fn create_order(
    tx: &mut Tx,
    new: &NewOrder,
    session_table: Option<PlacedTable>,
) -> Result<OrderRow, ApiError> {
    let mut checks = Checks::new();
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
    let (table_id, table_name) = match (&session_id, session_table) {
        (Some(_), Some(seat)) => (Some(seat.table_id), Some(seat.table_name)),
        (Some(session_id), None) => {
            return Err(ApiError::internal(format!(
                "order for session {session_id} came without its table"
            )))
        }
        (None, _) => {
            let table_name = table_id.as_deref().map(|t| table_name(tx, t)).transpose()?;
            (table_id, table_name)
        }
    };
    if new.hold_courses && new.order_type != OrderType::DineIn {
        return Err(ApiError::invalid_field(
            "hold_courses",
            "only dine-in orders hold courses",
        ));
    }
    let lines = price_lines(tx, &new.items, "items")?;
    let (order_number, business_date) = next_order_number(tx)?;
    let fired_course = new.hold_courses.then_some(1);
    let id = Uuid::now_v7().to_string();
    let now = tx.now_text();
    tx.prepare_cached("INSERT INTO orders (id, order_number, business_date, status, order_type, table_id, table_name, \
         customer_name, customer_phone, notes, version, created_by, created_at, updated_at, session_id, fired_course) \
         VALUES (?1, ?2, ?3, 'pending', ?4, ?5, ?6, ?7, ?8, ?9, 0, ?10, ?11, ?11, ?12, ?13)")?.execute(params![
            id,
            order_number,
            business_date,
            new.order_type.as_str(),
            table_id,
            table_name,
            customer_name,
            customer_phone,
            notes,
            tx.actor(),
            now,
            session_id,
            fired_course
        ],
    )?;
    insert_lines(tx, &id, &lines)?;
    discounts::reprice(tx, &id)?;
    touch(tx, &id, Event::OrderCreated)
}

/// An order placed on a partner platform, in the platform's prices.
pub struct PartnerOrder {
    pub external: ExternalRef,
    pub customer_name: Option<String>,
    pub customer_phone: Option<String>,
    pub notes: Option<String>,
    /// Priced by the platform; at least one.
    pub lines: Vec<PricedLine>,
}

/// Creates a delivery order received from a partner platform, emitting
/// `order.created`. Its lines keep the platform's prices; campaigns do not
/// apply, as the platform has priced the order.
pub fn create_partner_order(tx: &mut Tx, order: &PartnerOrder) -> Result<OrderRow, ApiError> {
    if order.lines.is_empty() {
        return Err(ApiError::invalid_field(
            "items",
            "must list at least one item",
        ));
    }
    let (order_number, business_date) = next_order_number(tx)?;
    let id = Uuid::now_v7().to_string();
    let now = tx.now_text();
    tx.prepare_cached(
        "INSERT INTO orders (id, order_number, business_date, status, order_type, customer_name, \
         customer_phone, notes, version, created_by, created_at, updated_at, external_platform, \
         external_id, external_display_id) \
         VALUES (?1, ?2, ?3, 'pending', 'delivery', ?4, ?5, ?6, 0, ?7, ?8, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        id,
        order_number,
        business_date,
        order.customer_name,
        order.customer_phone,
        order.notes,
        tx.actor(),
        now,
        order.external.platform,
        order.external.id,
        order.external.display_id
    ])?;
    insert_lines(tx, &id, &order.lines)?;
    touch(tx, &id, Event::OrderCreated)
}

pub fn update_order(tx: &mut Tx, id: &str, patch: &OrderPatch) -> Result<OrderRow, ApiError> {
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
                let t = path_id(t, "table")
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
    touch(tx, id, Event::OrderUpdated)
}

pub fn add_lines(tx: &mut Tx, id: &str, lines: &[NewLine]) -> Result<OrderRow, ApiError> {
    let order = find_order(tx, id)?;
    require_open(&order)?;
    split::require_unsplit(&order)?;
    let priced = price_lines(tx, lines, "items")?;
    insert_lines(tx, id, &priced)?;
    discounts::reprice(tx, id)?;
    touch(tx, id, Event::OrderUpdated)
}

fn require_line(tx: &Connection, order_id: &str, line_id: &str) -> Result<(), ApiError> {
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
    tx: &mut Tx,
    id: &str,
    line_id: &str,
    patch: &LinePatch,
) -> Result<OrderRow, ApiError> {
    let order = find_order(tx, id)?;
    require_line(tx, id, line_id)?;
    require_open(&order)?;
    split::require_unsplit(&order)?;
    let mut checks = Checks::new();
    let quantity = patch
        .quantity
        .map(|q| checks.integer_in("quantity", q, 1..=MAX_QUANTITY));
    let notes = patch
        .notes
        .as_ref()
        .map(|n| checks.optional_text("notes", n.as_deref(), 500));
    if let Some(Some(seat)) = patch.seat {
        checks.integer_in("seat", seat, 1..=MAX_SEAT);
    }
    checks.finish()?;
    if let Some(quantity) = quantity {
        tx.prepare_cached("UPDATE order_items SET quantity = ?2, updated_at = ?3 WHERE id = ?1")?
            .execute(params![line_id, quantity, tx.now_text()])?;
    }
    if let Some(notes) = notes {
        tx.prepare_cached("UPDATE order_items SET notes = ?2, updated_at = ?3 WHERE id = ?1")?
            .execute(params![line_id, notes, tx.now_text()])?;
    }
    if let Some(seat) = patch.seat {
        tx.prepare_cached("UPDATE order_items SET seat = ?2, updated_at = ?3 WHERE id = ?1")?
            .execute(params![line_id, seat, tx.now_text()])?;
    }
    if quantity.is_some() {
        discounts::reprice(tx, id)?;
    }
    touch(tx, id, Event::OrderUpdated)
}

pub fn delete_line(tx: &mut Tx, id: &str, line_id: &str) -> Result<OrderRow, ApiError> {
    let order = find_order(tx, id)?;
    require_line(tx, id, line_id)?;
    require_open(&order)?;
    split::require_unsplit(&order)?;
    tx.prepare_cached("DELETE FROM order_items WHERE id = ?1")?
        .execute([line_id])?;
    discounts::reprice(tx, id)?;
    touch(tx, id, Event::OrderUpdated)
}

pub fn change_status(
    tx: &mut Tx,
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
    if next == OrderStatus::Cancelled && order.parent_order_id.is_some() {
        return Err(ApiError::conflict(
            "is_a_check",
            "a check is cancelled with the order it was split from",
        ));
    }
    if next == OrderStatus::Cancelled && order.check_count > 0 && order.status.can_become(next) {
        for check in split::open_checks(tx, id)? {
            let check = find_order(tx, &check)?;
            if check.refundable() > 0 {
                let exponent = tx.exponent()?;
                return Err(ApiError::conflict(
                    "has_payments",
                    format!(
                        "check {} has payments: cancel the order with its payments refunded",
                        check.order_number
                    ),
                )
                .with("current_status", order.status.as_str())
                .with("refundable", to_json(check.refundable(), exponent)));
            }
            tx.prepare_cached(
                "UPDATE orders SET status = 'cancelled', closed_at = ?2, cancel_reason = ?3 WHERE id = ?1",
            )?
            .execute(params![check.id, tx.now_text().to_string(), cancel_reason])?;
            touch(tx, &check.id, Event::OrderCancelled)?;
        }
    }
    if next == OrderStatus::Cancelled && order.refundable() > 0 {
        let exponent = tx.exponent()?;
        return Err(ApiError::conflict(
            "has_payments",
            "the order has payments: cancel it with its payments refunded",
        )
        .with("current_status", order.status.as_str())
        .with("refundable", to_json(order.refundable(), exponent)));
    }
    if next == OrderStatus::Completed && order.balance_due() > 0 {
        let exponent = tx.exponent()?;
        return Err(ApiError::conflict(
            "balance_due",
            "the order cannot be completed before it is fully paid",
        )
        .with("current_status", order.status.as_str())
        .with("balance_due", to_json(order.balance_due(), exponent)));
    }
    if next == OrderStatus::Completed && order.parent_order_id.is_none() {
        discounts::count_uses(tx, &order)?;
    }
    let closed_at = (!next.is_open()).then(|| tx.now_text().to_string());
    tx.prepare_cached(
        "UPDATE orders SET status = ?2, closed_at = ?3, cancel_reason = ?4 WHERE id = ?1",
    )?
    .execute(params![id, next.as_str(), closed_at, cancel_reason])?;
    let event = match next {
        OrderStatus::Completed => Event::OrderCompleted,
        OrderStatus::Cancelled => Event::OrderCancelled,
        _ => Event::OrderUpdated,
    };
    let row = touch(tx, id, event)?;
    if next == OrderStatus::Completed {
        split::complete_parent_when_paid(tx, &row)?;
    }
    Ok(row)
}

/// Cancels an open order; with `refund_payments`, its payments are refunded in
/// the same step, otherwise an order with payments stays as it is.
pub fn cancel_order(
    tx: &mut Tx,
    id: &str,
    reason: Option<String>,
    refund_payments: bool,
) -> Result<OrderRow, ApiError> {
    let order = find_order(tx, id)?;
    if refund_payments && order.status.can_become(OrderStatus::Cancelled) {
        super::refunds::refund_payments(tx, &order, reason.as_deref())?;
        for check in split::open_checks(tx, id)? {
            let check = find_order(tx, &check)?;
            super::refunds::refund_payments(tx, &check, reason.as_deref())?;
        }
    }
    change_status(tx, id, OrderStatus::Cancelled, reason)
}

/// A seating session moved: its open order follows the party to `table_id`,
/// emitting `order.updated`.
pub fn move_to_table(tx: &mut Tx, order_id: &str, table_id: &str) -> Result<(), ApiError> {
    let patch = OrderPatch {
        notes: None,
        table_id: Some(Some(table_id.to_string())),
        customer: None,
    };
    update_order(tx, order_id, &patch).map(|_| ())
}

/// Sends a held course, and every course before it, to the kitchen: the order's
/// lines of those courses go on tickets (through the kitchen's reaction to the
/// `order.updated` this emits).
pub fn fire_course(tx: &mut Tx, id: &str, course: i64) -> Result<OrderRow, ApiError> {
    let mut checks = Checks::new();
    checks.integer_in("course", course, 1..=MAX_COURSE);
    checks.finish()?;
    let order = find_order(tx, id)?;
    require_open(&order)?;
    if order.status == OrderStatus::Pending {
        return Err(ApiError::conflict(
            "order_not_fired",
            "confirm the order first: that sends its first course",
        )
        .with("current_status", order.status.as_str()));
    }
    match order.fired_course {
        None => Err(ApiError::conflict(
            "no_course_held",
            "every course of this order is already in the kitchen",
        )
        .with("current_status", order.status.as_str())),
        Some(fired) if course <= fired => Err(ApiError::conflict(
            "course_already_fired",
            format!("course {course} is already in the kitchen"),
        )
        .with("fired_course", fired)),
        Some(_) => {
            tx.prepare_cached("UPDATE orders SET fired_course = ?2 WHERE id = ?1")?
                .execute(params![id, course])?;
            touch(tx, id, Event::OrderUpdated)
        }
    }
}
