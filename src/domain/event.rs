//! The event catalogue: one typed variant per event, with the `data` each one
//! carries. Every event is written to the outbox (and so streamed live) and
//! reaches the reactions registered in `reactions.rs`; a webhook endpoint gets
//! the contract's twelve unless it subscribes to others (`kitchen.*`).
//!
//! The payload types are plain data, built by the group that owns the change, so
//! this module depends on no group and every group can emit.

use serde::Serialize;
use serde_json::Value;

use crate::error::ApiError;

/// `data.order` of the `order.*` events, field for field as the contract lists it.
#[derive(Debug, Clone, Serialize)]
pub struct OrderData {
    pub id: String,
    pub order_number: String,
    pub status: &'static str,
    pub order_type: &'static str,
    /// A decimal amount in the tenant's currency.
    pub total_amount: f64,
    pub table_name: Option<String>,
}

/// `data.session` of the `session.*` events.
#[derive(Debug, Clone, Serialize)]
pub struct SessionData {
    pub id: String,
    pub status: &'static str,
    pub table_ids: Vec<String>,
    pub table_names: Vec<String>,
    pub party_size: i64,
    pub queue_ticket_id: Option<String>,
    pub reservation_id: Option<String>,
    pub opened_at: String,
    pub closed_at: Option<String>,
}

/// `data.reservation` of the `reservation.*` events.
#[derive(Debug, Clone, Serialize)]
pub struct ReservationData {
    pub id: String,
    pub status: &'static str,
    pub name: String,
    pub party_size: i64,
    pub starts_at: String,
    pub table_ids: Vec<String>,
    pub queue_ticket_id: Option<String>,
    pub session_id: Option<String>,
    pub source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancelled_by: Option<&'static str>,
}

/// `data` of `webhook.test`.
#[derive(Debug, Clone, Serialize)]
pub struct WebhookTestData {
    pub message: &'static str,
    pub requested_by: String,
}

/// The contract's catalogue: what a webhook endpoint receives unless it lists
/// its own events.
pub const CONTRACT_EVENTS: [&str; 12] = [
    "order.created",
    "order.updated",
    "order.completed",
    "order.cancelled",
    "session.created",
    "session.closed",
    "reservation.created",
    "reservation.confirmed",
    "reservation.cancelled",
    "reservation.checked_in",
    "reservation.completed",
    "reservation.no_show",
];

/// Events beyond the contract that an endpoint may subscribe to.
pub const OTHER_EVENTS: [&str; 3] = [
    "kitchen.ticket.created",
    "kitchen.ticket.updated",
    "kitchen.ticket.bumped",
];

#[derive(Debug, Clone)]
pub enum Event {
    OrderCreated(OrderData),
    OrderUpdated(OrderData),
    OrderCompleted(OrderData),
    OrderCancelled(OrderData),
    SessionCreated(SessionData),
    SessionClosed(SessionData),
    ReservationCreated(ReservationData),
    ReservationConfirmed(ReservationData),
    ReservationCancelled(ReservationData),
    ReservationCheckedIn(ReservationData),
    ReservationCompleted(ReservationData),
    ReservationNoShow(ReservationData),
    WebhookTest(WebhookTestData),
    /// `data.ticket` is the kitchen ticket as `GET /kitchen/tickets` shows it.
    KitchenTicketCreated(Value),
    KitchenTicketUpdated(Value),
    KitchenTicketBumped(Value),
}

impl Event {
    /// The name in the envelope's `event` field.
    pub fn name(&self) -> &'static str {
        match self {
            Event::OrderCreated(_) => "order.created",
            Event::OrderUpdated(_) => "order.updated",
            Event::OrderCompleted(_) => "order.completed",
            Event::OrderCancelled(_) => "order.cancelled",
            Event::SessionCreated(_) => "session.created",
            Event::SessionClosed(_) => "session.closed",
            Event::ReservationCreated(_) => "reservation.created",
            Event::ReservationConfirmed(_) => "reservation.confirmed",
            Event::ReservationCancelled(_) => "reservation.cancelled",
            Event::ReservationCheckedIn(_) => "reservation.checked_in",
            Event::ReservationCompleted(_) => "reservation.completed",
            Event::ReservationNoShow(_) => "reservation.no_show",
            Event::WebhookTest(_) => "webhook.test",
            Event::KitchenTicketCreated(_) => "kitchen.ticket.created",
            Event::KitchenTicketUpdated(_) => "kitchen.ticket.updated",
            Event::KitchenTicketBumped(_) => "kitchen.ticket.bumped",
        }
    }

    /// The envelope's `data`: one key naming the resource, holding its payload.
    pub fn data(&self) -> Result<Value, ApiError> {
        let (key, payload) = match self {
            Event::OrderCreated(order)
            | Event::OrderUpdated(order)
            | Event::OrderCompleted(order)
            | Event::OrderCancelled(order) => ("order", serde_json::to_value(order)),
            Event::SessionCreated(session) | Event::SessionClosed(session) => {
                ("session", serde_json::to_value(session))
            }
            Event::ReservationCreated(reservation)
            | Event::ReservationConfirmed(reservation)
            | Event::ReservationCancelled(reservation)
            | Event::ReservationCheckedIn(reservation)
            | Event::ReservationCompleted(reservation)
            | Event::ReservationNoShow(reservation) => {
                ("reservation", serde_json::to_value(reservation))
            }
            Event::WebhookTest(test) => {
                return serde_json::to_value(test).map_err(ApiError::internal)
            }
            Event::KitchenTicketCreated(ticket)
            | Event::KitchenTicketUpdated(ticket)
            | Event::KitchenTicketBumped(ticket) => ("ticket", Ok(ticket.clone())),
        };
        let mut data = serde_json::Map::new();
        data.insert(key.to_string(), payload.map_err(ApiError::internal)?);
        Ok(Value::Object(data))
    }

    /// Reservation changes move the scheduler's no-show deadlines.
    pub fn moves_deadlines(&self) -> bool {
        matches!(
            self,
            Event::ReservationCreated(_)
                | Event::ReservationConfirmed(_)
                | Event::ReservationCancelled(_)
                | Event::ReservationCheckedIn(_)
                | Event::ReservationCompleted(_)
                | Event::ReservationNoShow(_)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order() -> OrderData {
        OrderData {
            id: "o1".into(),
            order_number: "261122-001".into(),
            status: "pending",
            order_type: "takeaway",
            total_amount: 41.37,
            table_name: None,
        }
    }

    #[test]
    fn order_data_has_the_contract_fields_in_order() {
        let data = Event::OrderCreated(order()).data().unwrap();
        assert_eq!(
            data.to_string(),
            r#"{"order":{"id":"o1","order_number":"261122-001","status":"pending","order_type":"takeaway","total_amount":41.37,"table_name":null}}"#
        );
    }

    #[test]
    fn only_reservation_events_move_deadlines() {
        assert!(!Event::OrderCancelled(order()).moves_deadlines());
        let test = Event::WebhookTest(WebhookTestData {
            message: "m",
            requested_by: "user:1".into(),
        });
        assert!(!test.moves_deadlines());
        assert_eq!(test.data().unwrap()["requested_by"], "user:1");
    }
}
