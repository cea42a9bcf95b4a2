//! Reading orders: the stored row, its lines, and the order as the API shows it.

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::discounts::{coupons_of, discounts_of};
use super::model::*;
use crate::domain::menu::StoredModifier;
use crate::error::ApiError;
use crate::money::to_json;

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
    /// The last course sent to the kitchen; `None` when no course is held.
    pub fired_course: Option<i64>,
    pub customer_name: Option<String>,
    pub customer_phone: Option<String>,
    pub notes: Option<String>,
    pub subtotal: i64,
    pub tax_amount: i64,
    pub discount_amount: i64,
    pub total_amount: i64,
    pub paid_amount: i64,
    pub tip_amount: i64,
    pub refunded_amount: i64,
    /// For a check of a split order: the order and the check's number in it.
    pub parent_order_id: Option<String>,
    pub check_number: Option<i64>,
    /// Checks the order was split into; 0 when it was not split.
    pub check_count: i64,
    /// A partner platform's order: the platform, its id and display number.
    pub external: Option<ExternalRef>,
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

    /// What refunds may still give back: payments less earlier refunds.
    pub fn refundable(&self) -> i64 {
        self.paid_amount - self.refunded_amount
    }
}

const ORDER_COLUMNS: &str =
    "id, order_number, business_date, status, order_type, table_id, table_name, \
     customer_name, customer_phone, notes, subtotal, tax_amount, discount_amount, total_amount, \
     paid_amount, tip_amount, cancel_reason, version, created_at, updated_at, closed_at, session_id, \
     fired_course, refunded_amount, parent_order_id, check_number, check_count, \
     external_platform, external_id, external_display_id";

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
        fired_course: r.get(22)?,
        refunded_amount: r.get(23)?,
        parent_order_id: r.get(24)?,
        check_number: r.get(25)?,
        check_count: r.get(26)?,
        external: match (
            r.get::<_, Option<String>>(27)?,
            r.get::<_, Option<String>>(28)?,
        ) {
            (Some(platform), Some(id)) => Some(ExternalRef {
                platform,
                id,
                display_id: r.get(29)?,
            }),
            _ => None,
        },
    })
}

pub fn find_order(conn: &Connection, id: &str) -> Result<OrderRow, ApiError> {
    conn.prepare_cached(&format!("SELECT {ORDER_COLUMNS} FROM orders WHERE id = ?1"))?
        .query_row([id], order_from_row)
        .optional()?
        .ok_or_else(|| ApiError::not_found("order"))
}

/// Each line's amount (unit price × quantity), discount and tax rate, in minor units.
pub fn line_amounts(conn: &Connection, order_id: &str) -> Result<Vec<LineAmount>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT unit_price * quantity, discount_amount, tax_rate FROM order_items WHERE order_id = ?1",
    )?;
    let rows = stmt.query_map([order_id], |r| {
        Ok(LineAmount {
            gross: r.get(0)?,
            discount: r.get(1)?,
            tax_rate: r.get(2)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

const LINE_COLUMNS: &str =
    "id, menu_item_id, name, quantity, unit_price, modifiers, notes, tax_rate, station_id, course, \
     (SELECT COALESCE(SUM(quantity), 0) FROM refund_lines WHERE line_id = order_items.id), discount_amount, seat";

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
        station_id: r.get(8)?,
        course: r.get(9)?,
        refunded_quantity: r.get(10)?,
        discount_amount: to_json(r.get(11)?, exponent),
        seat: r.get(12)?,
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
            .entry(r.get::<_, String>("order_id")?)
            .or_default()
            .push(line_from_row(r, exponent)?);
    }
    Ok(lines)
}

/// The full order as the API shows it.
pub fn order_json(conn: &Connection, row: &OrderRow, exponent: u32) -> Result<Order, ApiError> {
    order_with_lines(conn, row, lines_of(conn, &row.id, exponent)?, exponent)
}

fn order_with_lines(
    conn: &Connection,
    row: &OrderRow,
    items: Vec<OrderLine>,
    exponent: u32,
) -> Result<Order, ApiError> {
    let customer =
        (row.customer_name.is_some() || row.customer_phone.is_some()).then(|| Customer {
            name: row.customer_name.clone(),
            phone: row.customer_phone.clone(),
        });
    Ok(Order {
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
        fired_course: row.fired_course,
        subtotal: to_json(row.subtotal, exponent),
        tax_amount: to_json(row.tax_amount, exponent),
        discount_amount: to_json(row.discount_amount, exponent),
        total_amount: to_json(row.total_amount, exponent),
        discounts: discounts_of(conn, &row.id, exponent)?,
        coupon_codes: coupons_of(conn, &row.id)?,
        paid_amount: to_json(row.paid_amount, exponent),
        tip_amount: to_json(row.tip_amount, exponent),
        balance_due: to_json(row.balance_due(), exponent),
        refunded_amount: to_json(row.refunded_amount, exponent),
        parent_order_id: row.parent_order_id.clone(),
        check_number: row.check_number,
        check_count: row.check_count,
        external: row.external.clone(),
        cancel_reason: row.cancel_reason.clone(),
        business_date: row.business_date.clone(),
        created_at: row.created_at.clone(),
        updated_at: row.updated_at.clone(),
        closed_at: row.closed_at.clone(),
        version: row.version,
    })
}

/// The order a partner platform knows as `external_id`, if it was received.
pub fn find_external_order(
    conn: &Connection,
    platform: &str,
    external_id: &str,
) -> Result<Option<OrderRow>, ApiError> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {ORDER_COLUMNS} FROM orders WHERE external_platform = ?1 AND external_id = ?2"
        ))?
        .query_row([platform, external_id], order_from_row)
        .optional()?)
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
    rows.iter()
        .map(|row| {
            order_with_lines(
                conn,
                row,
                lines.remove(&row.id).unwrap_or_default(),
                exponent,
            )
        })
        .collect()
}
