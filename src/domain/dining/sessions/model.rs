//! Seating sessions: a party at one or more tables from seating to leaving.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::event::SessionData;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    Open,
    Closed,
}

impl SessionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Open => "open",
            SessionStatus::Closed => "closed",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "open" => Some(SessionStatus::Open),
            "closed" => Some(SessionStatus::Closed),
            _ => None,
        }
    }
}

pub const MAX_PARTY_SIZE: i64 = 100;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSession {
    /// Tables in service, each listed once.
    #[schema(min_items = 1, max_items = 20)]
    pub table_ids: Vec<String>,
    #[schema(minimum = 1, maximum = 100)]
    pub party_size: i64,
    /// The waiting party being seated, if it came from the queue.
    pub queue_ticket_id: Option<String>,
    /// The booking being seated, if the party reserved.
    pub reservation_id: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Move {
    /// Tables in service, each listed once.
    #[schema(min_items = 1, max_items = 20)]
    pub table_ids: Vec<String>,
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Close {
    /// Close even with unpaid orders (managers and owners only).
    #[serde(default)]
    pub force: bool,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionTable {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionOrder {
    pub id: String,
    pub order_number: String,
    pub status: String,
    pub total_amount: f64,
    pub balance_due: f64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Session {
    pub id: String,
    pub status: SessionStatus,
    pub party_size: i64,
    /// The tables the party sits at now (or sat at last, once closed); the first
    /// names the session's orders.
    pub tables: Vec<SessionTable>,
    pub queue_ticket_id: Option<String>,
    pub reservation_id: Option<String>,
    pub opened_at: String,
    pub closed_at: Option<String>,
    pub orders: Vec<SessionOrder>,
}

impl Session {
    /// `data.session` of the `session.*` events.
    pub fn event_data(&self) -> SessionData {
        SessionData {
            id: self.id.clone(),
            status: self.status.as_str(),
            table_ids: self.tables.iter().map(|t| t.id.clone()).collect(),
            table_names: self.tables.iter().map(|t| t.name.clone()).collect(),
            party_size: self.party_size,
            queue_ticket_id: self.queue_ticket_id.clone(),
            reservation_id: self.reservation_id.clone(),
            opened_at: self.opened_at.clone(),
            closed_at: self.closed_at.clone(),
        }
    }
}
