//! Kitchen types: tickets and their items, and their state machines.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = KitchenTicketStatus)]
pub enum TicketStatus {
    Open,
    Done,
    Cancelled,
}

impl TicketStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TicketStatus::Open => "open",
            TicketStatus::Done => "done",
            TicketStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "open" => Some(TicketStatus::Open),
            "done" => Some(TicketStatus::Done),
            "cancelled" => Some(TicketStatus::Cancelled),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ItemState {
    Queued,
    Cooking,
    Ready,
}

impl ItemState {
    pub fn as_str(self) -> &'static str {
        match self {
            ItemState::Queued => "queued",
            ItemState::Cooking => "cooking",
            ItemState::Ready => "ready",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "queued" => Some(ItemState::Queued),
            "cooking" => Some(ItemState::Cooking),
            "ready" => Some(ItemState::Ready),
            _ => None,
        }
    }

    /// `queued → cooking → ready`; a queued item may be marked ready at once.
    pub fn can_become(self, next: ItemState) -> bool {
        matches!(
            (self, next),
            (ItemState::Queued, ItemState::Cooking)
                | (ItemState::Queued | ItemState::Cooking, ItemState::Ready)
        )
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TicketItem {
    /// The order line this item came from.
    pub line_id: String,
    pub name: String,
    pub quantity: i64,
    /// How many of `quantity` were taken off the order: the cook must see them.
    pub voided_quantity: i64,
    pub modifiers: Vec<String>,
    pub notes: Option<String>,
    pub course: i64,
    pub state: ItemState,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = KitchenTicket)]
pub struct Ticket {
    pub id: String,
    pub order_id: String,
    pub order_number: String,
    pub order_type: String,
    pub table_name: Option<String>,
    pub customer_name: Option<String>,
    /// Who placed the order, when a staff member did.
    pub server_name: Option<String>,
    pub station_id: String,
    pub station_name: String,
    pub status: TicketStatus,
    /// Lines added to an order already in the kitchen.
    pub addition: bool,
    pub created_at: String,
    pub started_at: Option<String>,
    pub bumped_at: Option<String>,
    pub acknowledged_at: Option<String>,
    /// Seconds since the ticket was made, until it was bumped.
    pub elapsed_seconds: i64,
    /// Up by one with every change: of two views of a ticket, the higher is newer.
    pub version: i64,
    pub items: Vec<TicketItem>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AllDayItem {
    pub name: String,
    pub modifiers: Vec<String>,
    /// Still to cook across the open tickets.
    pub quantity: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AllDay {
    pub items: Vec<AllDayItem>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StationStats {
    pub station_id: String,
    pub station_name: String,
    /// Tickets bumped in the period.
    pub tickets: i64,
    /// From ticket to bump.
    pub average_seconds: i64,
    /// Nine tickets in ten were bumped within this.
    pub p90_seconds: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct KitchenStats {
    pub from: Option<String>,
    pub to: Option<String>,
    pub stations: Vec<StationStats>,
}

/// The nearest-rank percentile `p` (0–100) of sorted values.
pub fn percentile(sorted: &[i64], p: usize) -> i64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::ItemState::*;

    #[test]
    fn the_90th_percentile_is_the_nearest_rank() {
        use super::percentile;
        assert_eq!(percentile(&[], 90), 0);
        assert_eq!(percentile(&[5], 90), 5);
        let ten: Vec<i64> = (1..=10).collect();
        assert_eq!(percentile(&ten, 90), 9);
        let eleven: Vec<i64> = (1..=11).collect();
        assert_eq!(percentile(&eleven, 90), 10);
    }

    #[test]
    fn items_move_forward_only() {
        assert!(Queued.can_become(Cooking));
        assert!(Queued.can_become(Ready));
        assert!(Cooking.can_become(Ready));
        assert!(!Cooking.can_become(Queued));
        assert!(!Ready.can_become(Cooking));
        assert!(!Ready.can_become(Ready));
    }
}
