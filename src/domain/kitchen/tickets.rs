//! Ticket SQL: tickets made from fired orders and kept in step with them, the
//! cooks' moves, and the board and all-day reads.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension, Row};
use uuid::Uuid;

use super::model::*;
use crate::domain::event::{Event, OrderData};
use crate::domain::orders::{self, OrderStatus};
use crate::domain::stations::{get_station, station_for, StationKind};
use crate::domain::Tx;
use crate::error::ApiError;
use crate::time::parse_rfc3339;

/// The ticket with its order's names and who placed the order (a staff member's
/// name; an API key or device shows none).
const TICKET_SELECT: &str = "SELECT t.id, t.order_id, o.order_number, o.order_type, o.table_name, o.customer_name, \
     t.station_id, s.name, t.status, t.addition, t.created_at, t.started_at, t.bumped_at, t.acknowledged_at, u.name, \
     t.version \
     FROM kitchen_tickets t JOIN orders o ON o.id = t.order_id JOIN kitchen_stations s ON s.id = t.station_id \
     LEFT JOIN users u ON o.created_by LIKE 'user:%' AND u.id = substr(o.created_by, 6)";

/// A ticket without its items.
fn ticket_from_row(r: &Row, now: DateTime<Utc>) -> rusqlite::Result<Ticket> {
    let status: String = r.get(8)?;
    let created_at: String = r.get(10)?;
    let bumped_at: Option<String> = r.get(12)?;
    let until = bumped_at.as_deref().and_then(parse_rfc3339).unwrap_or(now);
    let elapsed_seconds = parse_rfc3339(&created_at)
        .map(|at| (until - at).num_seconds().max(0))
        .unwrap_or(0);
    Ok(Ticket {
        id: r.get(0)?,
        order_id: r.get(1)?,
        order_number: r.get(2)?,
        order_type: r.get(3)?,
        table_name: r.get(4)?,
        customer_name: r.get(5)?,
        server_name: r.get(14)?,
        version: r.get(15)?,
        station_id: r.get(6)?,
        station_name: r.get(7)?,
        status: TicketStatus::parse(&status).unwrap_or(TicketStatus::Open),
        addition: r.get(9)?,
        created_at,
        started_at: r.get(11)?,
        bumped_at,
        acknowledged_at: r.get(13)?,
        elapsed_seconds,
        items: Vec::new(),
    })
}

/// The items of many tickets in one query, by ticket id.
fn items_of(
    conn: &Connection,
    ids: &[String],
) -> Result<HashMap<String, Vec<TicketItem>>, ApiError> {
    let ids = serde_json::to_string(ids).map_err(ApiError::internal)?;
    let mut stmt = conn.prepare_cached(
        "SELECT ticket_id, line_id, name, quantity, voided_quantity, modifiers, notes, course, state \
         FROM kitchen_ticket_items WHERE ticket_id IN (SELECT value FROM json_each(?1)) \
         ORDER BY ticket_id, course, position",
    )?;
    let mut found = stmt.query([ids])?;
    let mut items: HashMap<String, Vec<TicketItem>> = HashMap::new();
    while let Some(r) = found.next()? {
        let modifiers: String = r.get(5)?;
        let state: String = r.get(8)?;
        items.entry(r.get(0)?).or_default().push(TicketItem {
            line_id: r.get(1)?,
            name: r.get(2)?,
            quantity: r.get(3)?,
            voided_quantity: r.get(4)?,
            modifiers: serde_json::from_str(&modifiers).unwrap_or_default(),
            notes: r.get(6)?,
            course: r.get(7)?,
            state: ItemState::parse(&state).unwrap_or(ItemState::Queued),
        });
    }
    Ok(items)
}

fn with_items(conn: &Connection, mut tickets: Vec<Ticket>) -> Result<Vec<Ticket>, ApiError> {
    let ids: Vec<String> = tickets.iter().map(|t| t.id.clone()).collect();
    let mut items = items_of(conn, &ids)?;
    for ticket in &mut tickets {
        ticket.items = items.remove(&ticket.id).unwrap_or_default();
    }
    Ok(tickets)
}

pub fn get_ticket(conn: &Connection, id: &str, now: DateTime<Utc>) -> Result<Ticket, ApiError> {
    let row = conn
        .prepare_cached(&format!("{TICKET_SELECT} WHERE t.id = ?1"))?
        .query_row([id], |r| ticket_from_row(r, now))
        .optional()?
        .ok_or_else(|| ApiError::not_found("ticket"))?;
    with_items(conn, vec![row])?
        .pop()
        .ok_or_else(|| ApiError::not_found("ticket"))
}

/// The station whose tickets a view is limited to: a prep station's own; an
/// expo station, or none, sees every station's.
fn only_station(conn: &Connection, station_id: Option<&str>) -> Result<Option<String>, ApiError> {
    let Some(id) = station_id else {
        return Ok(None);
    };
    let station = get_station(conn, id)
        .map_err(|_| ApiError::invalid_field("station_id", "no such station"))?;
    Ok((station.kind == StationKind::Prep).then_some(station.id))
}

pub struct TicketFilter {
    pub station_id: Option<String>,
    /// `None`: the board, open tickets and cancelled ones not yet acknowledged.
    pub status: Option<TicketStatus>,
    /// Id of the last ticket of the previous page.
    pub after: Option<String>,
    pub limit: u32,
}

/// Oldest first. An expo station sees every station's tickets.
pub fn list_tickets(
    conn: &Connection,
    filter: &TicketFilter,
    now: DateTime<Utc>,
) -> Result<Vec<Ticket>, ApiError> {
    let only_station = only_station(conn, filter.station_id.as_deref())?;
    let mut stmt = conn.prepare_cached(&format!(
        "{TICKET_SELECT} WHERE t.status IN (?2, ?3) AND (?1 IS NULL OR t.station_id = ?1) \
         AND (?4 OR t.status = 'open' OR t.acknowledged_at IS NULL) \
         AND (?5 IS NULL OR (t.created_at, t.id) > (SELECT created_at, id FROM kitchen_tickets WHERE id = ?5)) \
         ORDER BY t.created_at, t.id LIMIT ?6"
    ))?;
    // The board is open tickets and cancelled ones not yet acknowledged; a
    // plain status list keeps the status index in use.
    let (first, second) = match filter.status {
        Some(status) => (status, status),
        None => (TicketStatus::Open, TicketStatus::Cancelled),
    };
    let rows = stmt.query_map(
        params![
            only_station,
            first.as_str(),
            second.as_str(),
            filter.status.is_some(),
            filter.after,
            filter.limit + 1
        ],
        |r| ticket_from_row(r, now),
    )?;
    let rows: Vec<Ticket> = rows.collect::<Result<_, _>>()?;
    with_items(conn, rows)
}

/// What is still to cook across the open tickets (of a station, or every one for
/// an expo station or none), by item and modifiers.
pub fn all_day(conn: &Connection, station_id: Option<&str>) -> Result<AllDay, ApiError> {
    let only_station = only_station(conn, station_id)?;
    let mut stmt = conn.prepare_cached(
        "SELECT i.name, i.modifiers, SUM(i.quantity - i.voided_quantity) FROM kitchen_ticket_items i \
         JOIN kitchen_tickets t ON t.id = i.ticket_id \
         WHERE t.status = 'open' AND i.state <> 'ready' AND (?1 IS NULL OR t.station_id = ?1) \
         GROUP BY i.name, i.modifiers HAVING SUM(i.quantity - i.voided_quantity) > 0 ORDER BY i.name, i.modifiers",
    )?;
    let rows = stmt.query_map([only_station], |r| {
        let modifiers: String = r.get(1)?;
        Ok(AllDayItem {
            name: r.get(0)?,
            modifiers: serde_json::from_str(&modifiers).unwrap_or_default(),
            quantity: r.get(2)?,
        })
    })?;
    Ok(AllDay {
        items: rows.collect::<Result<_, _>>()?,
    })
}

/// Ticket times per station for tickets bumped in `[from, to)`: how many, the
/// average and the 90th percentile from ticket to bump.
pub fn stats(
    conn: &Connection,
    from: Option<String>,
    to: Option<String>,
) -> Result<KitchenStats, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT s.id, s.name, CAST(ROUND((julianday(t.bumped_at) - julianday(t.created_at)) * 86400) AS INTEGER) \
         FROM kitchen_tickets t JOIN kitchen_stations s ON s.id = t.station_id \
         WHERE t.status = 'done' AND (?1 IS NULL OR t.bumped_at >= ?1) AND (?2 IS NULL OR t.bumped_at < ?2) \
         ORDER BY s.position, s.name",
    )?;
    let mut rows = stmt.query(params![from, to])?;
    let mut by_station: Vec<(String, String, Vec<i64>)> = Vec::new();
    while let Some(r) = rows.next()? {
        let id: String = r.get(0)?;
        let seconds: i64 = r.get(2)?;
        match by_station.iter_mut().find(|(s, _, _)| *s == id) {
            Some((_, _, times)) => times.push(seconds),
            None => by_station.push((id, r.get(1)?, vec![seconds])),
        }
    }
    let stations = by_station
        .into_iter()
        .map(|(station_id, station_name, mut times)| {
            times.sort_unstable();
            StationStats {
                station_id,
                station_name,
                tickets: times.len() as i64,
                average_seconds: times.iter().sum::<i64>() / times.len() as i64,
                p90_seconds: percentile(&times, 90),
            }
        })
        .collect();
    Ok(KitchenStats { from, to, stations })
}

/// Reaction to an order's events: a fired order's tickets follow its lines, and a
/// cancelled order cancels them.
pub fn follow_order(tx: &mut Tx, order: &OrderData) -> Result<(), ApiError> {
    match order.status {
        "pending" | "completed" => Ok(()),
        "cancelled" => cancel_tickets(tx, &order.id),
        _ => fire(tx, &order.id),
    }
}

/// One quantity of a line still owed to, or held by, the kitchen.
struct Sent {
    ticket_id: String,
    remaining: i64,
}

/// Brings the kitchen in step with the order's lines: what is new goes out on a
/// ticket per station (an addition once the order has tickets), what was taken
/// off is voided on the tickets that have it.
fn fire(tx: &mut Tx, order_id: &str) -> Result<(), ApiError> {
    let exponent = tx.exponent()?;
    let order = orders::get_order(tx, order_id, exponent)?;
    // A check of a split order bills lines the kitchen has from the order itself.
    if order.parent_order_id.is_some() {
        return Ok(());
    }
    let mut sent: HashMap<String, Vec<Sent>> = HashMap::new();
    // Courses already in the kitchen: more lines of one of them are an addition.
    let mut courses_sent: Vec<i64> = Vec::new();
    {
        let mut stmt = tx.prepare_cached(
            "SELECT i.line_id, i.ticket_id, i.quantity - i.voided_quantity, i.course FROM kitchen_ticket_items i \
             JOIN kitchen_tickets t ON t.id = i.ticket_id WHERE t.order_id = ?1 AND t.status <> 'cancelled' \
             ORDER BY t.created_at DESC, t.id DESC",
        )?;
        let mut rows = stmt.query([order_id])?;
        while let Some(r) = rows.next()? {
            sent.entry(r.get(0)?).or_default().push(Sent {
                ticket_id: r.get(1)?,
                remaining: r.get(2)?,
            });
            courses_sent.push(r.get(3)?);
        }
    }
    let mut new_by_station: BTreeMap<String, Vec<(orders::OrderLine, i64)>> = BTreeMap::new();
    let mut voided: Vec<(String, String, i64)> = Vec::new();
    // A partner's fee is billed, not cooked.
    let fired = |line: &orders::OrderLine| {
        line.menu_item_id != orders::PARTNER_FEE_ITEM
            && order.fired_course.is_none_or(|c| line.course <= c)
    };
    for line in order.items.iter().filter(|l| fired(l)) {
        let on_tickets: i64 = sent
            .get(&line.id)
            .map_or(0, |s| s.iter().map(|s| s.remaining).sum());
        if line.quantity > on_tickets {
            let station = station_for(tx, line.station_id.as_deref())?;
            new_by_station
                .entry(station.id)
                .or_default()
                .push((line.clone(), line.quantity - on_tickets));
        } else if line.quantity < on_tickets {
            voided.extend(void_plan(
                &line.id,
                sent.get(&line.id),
                on_tickets - line.quantity,
            ));
        }
    }
    for (line_id, held) in &sent {
        if !order.items.iter().any(|l| &l.id == line_id) {
            let all: i64 = held.iter().map(|s| s.remaining).sum();
            voided.extend(void_plan(line_id, Some(held), all));
        }
    }
    let mut touched: Vec<String> = Vec::new();
    for (ticket_id, line_id, quantity) in voided {
        tx.execute(
            "UPDATE kitchen_ticket_items SET voided_quantity = voided_quantity + ?3 WHERE ticket_id = ?1 AND line_id = ?2",
            params![ticket_id, line_id, quantity],
        )?;
        if !touched.contains(&ticket_id) {
            touched.push(ticket_id);
        }
    }
    for ticket_id in touched {
        tx.execute(
            "UPDATE kitchen_tickets SET version = version + 1, updated_at = ?2 WHERE id = ?1",
            params![ticket_id, tx.now_text()],
        )?;
        announce(tx, &ticket_id, Event::KitchenTicketUpdated)?;
    }
    for (station_id, lines) in new_by_station {
        let addition = lines.iter().any(|(l, _)| courses_sent.contains(&l.course));
        let ticket_id = Uuid::now_v7().to_string();
        tx.execute(
            "INSERT INTO kitchen_tickets (id, order_id, station_id, status, addition, created_at, updated_at) \
             VALUES (?1, ?2, ?3, 'open', ?4, ?5, ?5)",
            params![ticket_id, order_id, station_id, addition, tx.now_text()],
        )?;
        for (position, (line, quantity)) in lines.iter().enumerate() {
            let modifiers: Vec<&str> = line.modifiers.iter().map(|m| m.name.as_str()).collect();
            tx.execute(
                "INSERT INTO kitchen_ticket_items (ticket_id, line_id, name, quantity, modifiers, notes, course, position) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    ticket_id,
                    line.id,
                    line.name,
                    quantity,
                    serde_json::to_string(&modifiers).map_err(ApiError::internal)?,
                    line.notes,
                    line.course,
                    position as i64
                ],
            )?;
        }
        announce(tx, &ticket_id, Event::KitchenTicketCreated)?;
    }
    Ok(())
}

/// Which tickets give up `quantity` of a line, newest first.
fn void_plan(
    line_id: &str,
    held: Option<&Vec<Sent>>,
    mut quantity: i64,
) -> Vec<(String, String, i64)> {
    let mut plan = Vec::new();
    for sent in held.into_iter().flatten() {
        if quantity == 0 {
            break;
        }
        let take = sent.remaining.min(quantity);
        if take > 0 {
            plan.push((sent.ticket_id.clone(), line_id.to_string(), take));
            quantity -= take;
        }
    }
    plan
}

/// The order was cancelled: its tickets still in the kitchen show as cancelled
/// until a cook acknowledges them.
fn cancel_tickets(tx: &mut Tx, order_id: &str) -> Result<(), ApiError> {
    let open: Vec<String> = {
        let mut stmt = tx.prepare_cached(
            "SELECT id FROM kitchen_tickets WHERE order_id = ?1 AND status = 'open' ORDER BY created_at, id",
        )?;
        let rows = stmt.query_map([order_id], |r| r.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    for id in open {
        tx.execute(
            "UPDATE kitchen_tickets SET version = version + 1, status = 'cancelled', updated_at = ?2 WHERE id = ?1",
            params![id, tx.now_text()],
        )?;
        announce(tx, &id, Event::KitchenTicketUpdated)?;
    }
    Ok(())
}

/// Emits the ticket as it now is.
fn announce(
    tx: &mut Tx,
    ticket_id: &str,
    event: fn(serde_json::Value) -> Event,
) -> Result<Ticket, ApiError> {
    let ticket = get_ticket(tx, ticket_id, tx.now())?;
    tx.emit(event(
        serde_json::to_value(&ticket).map_err(ApiError::internal)?,
    ))?;
    Ok(ticket)
}

fn require_status(ticket: &Ticket, wanted: TicketStatus, next: &str) -> Result<(), ApiError> {
    if ticket.status == wanted {
        Ok(())
    } else {
        Err(ApiError::illegal_transition(
            "the ticket",
            ticket.status.as_str(),
            next,
        ))
    }
}

/// A cook starts the ticket: its queued items are cooking.
pub fn start_ticket(tx: &mut Tx, id: &str) -> Result<Ticket, ApiError> {
    let ticket = get_ticket(tx, id, tx.now())?;
    require_status(&ticket, TicketStatus::Open, "started")?;
    tx.execute(
        "UPDATE kitchen_tickets SET version = version + 1, started_at = COALESCE(started_at, ?2), updated_at = ?2 WHERE id = ?1",
        params![id, tx.now_text()],
    )?;
    tx.execute(
        "UPDATE kitchen_ticket_items SET state = 'cooking' WHERE ticket_id = ?1 AND state = 'queued'",
        [id],
    )?;
    announce(tx, id, Event::KitchenTicketUpdated)
}

/// The ticket is done. When every ticket of its order is, the order is ready
/// (unless the tenant turned that off).
pub fn bump_ticket(tx: &mut Tx, id: &str) -> Result<Ticket, ApiError> {
    let ticket = get_ticket(tx, id, tx.now())?;
    require_status(&ticket, TicketStatus::Open, "done")?;
    tx.execute(
        "UPDATE kitchen_tickets SET version = version + 1, status = 'done', bumped_at = ?2, updated_at = ?2 WHERE id = ?1",
        params![id, tx.now_text()],
    )?;
    tx.execute(
        "UPDATE kitchen_ticket_items SET state = 'ready' WHERE ticket_id = ?1",
        [id],
    )?;
    let bumped = announce(tx, id, Event::KitchenTicketBumped)?;
    let still_open: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM kitchen_tickets WHERE order_id = ?1 AND status = 'open')",
        [&ticket.order_id],
        |r| r.get(0),
    )?;
    if !still_open && tx.settings()?.kitchen_auto_ready {
        let order = orders::find_order(tx, &ticket.order_id)?;
        if matches!(
            order.status,
            OrderStatus::Confirmed | OrderStatus::Preparing
        ) {
            orders::change_status(tx, &ticket.order_id, OrderStatus::Ready, None)?;
        }
    }
    Ok(bumped)
}

/// A bumped ticket comes back to the board.
pub fn recall_ticket(tx: &mut Tx, id: &str) -> Result<Ticket, ApiError> {
    let ticket = get_ticket(tx, id, tx.now())?;
    require_status(&ticket, TicketStatus::Done, "open")?;
    tx.execute(
        "UPDATE kitchen_tickets SET version = version + 1, status = 'open', bumped_at = NULL, updated_at = ?2 WHERE id = ?1",
        params![id, tx.now_text()],
    )?;
    announce(tx, id, Event::KitchenTicketUpdated)
}

/// A cook saw that the ticket was cancelled: it leaves the board.
pub fn acknowledge_ticket(tx: &mut Tx, id: &str) -> Result<Ticket, ApiError> {
    let ticket = get_ticket(tx, id, tx.now())?;
    require_status(&ticket, TicketStatus::Cancelled, "acknowledged")?;
    if ticket.acknowledged_at.is_some() {
        return Err(ApiError::illegal_transition(
            "the ticket",
            "acknowledged",
            "acknowledged",
        ));
    }
    tx.execute(
        "UPDATE kitchen_tickets SET version = version + 1, acknowledged_at = ?2, updated_at = ?2 WHERE id = ?1",
        params![id, tx.now_text()],
    )?;
    announce(tx, id, Event::KitchenTicketUpdated)
}

/// Moves one item of an open ticket: `cooking` or `ready`.
pub fn move_item(
    tx: &mut Tx,
    id: &str,
    line_id: &str,
    next: ItemState,
) -> Result<Ticket, ApiError> {
    let ticket = get_ticket(tx, id, tx.now())?;
    let item = ticket
        .items
        .iter()
        .find(|i| i.line_id == line_id)
        .ok_or_else(|| ApiError::not_found("ticket item"))?;
    require_status(&ticket, TicketStatus::Open, next.as_str())?;
    if item.voided_quantity >= item.quantity {
        return Err(ApiError::illegal_transition(
            "the item",
            "void",
            next.as_str(),
        ));
    }
    if !item.state.can_become(next) {
        return Err(ApiError::illegal_transition(
            "the item",
            item.state.as_str(),
            next.as_str(),
        ));
    }
    tx.execute(
        "UPDATE kitchen_ticket_items SET state = ?3 WHERE ticket_id = ?1 AND line_id = ?2",
        params![id, line_id, next.as_str()],
    )?;
    tx.execute(
        "UPDATE kitchen_tickets SET version = version + 1, started_at = COALESCE(started_at, ?2), updated_at = ?2 WHERE id = ?1",
        params![id, tx.now_text()],
    )?;
    announce(tx, id, Event::KitchenTicketUpdated)
}
