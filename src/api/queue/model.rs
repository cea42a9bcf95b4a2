//! Waitlist tickets: statuses, requests and views, and the wait estimate.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TicketStatus {
    Waiting,
    Called,
    Seated,
    Completed,
    Cancelled,
    NoShow,
}

impl TicketStatus {
    pub const ALL: [TicketStatus; 6] = [
        TicketStatus::Waiting,
        TicketStatus::Called,
        TicketStatus::Seated,
        TicketStatus::Completed,
        TicketStatus::Cancelled,
        TicketStatus::NoShow,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TicketStatus::Waiting => "waiting",
            TicketStatus::Called => "called",
            TicketStatus::Seated => "seated",
            TicketStatus::Completed => "completed",
            TicketStatus::Cancelled => "cancelled",
            TicketStatus::NoShow => "no_show",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// `waiting → called → seated → completed`; a waiting or called party may
    /// also be cancelled or marked no-show, or seated without being called.
    pub fn can_become(self, next: TicketStatus) -> bool {
        use TicketStatus::*;
        matches!(
            (self, next),
            (Waiting, Called)
                | (Waiting | Called, Seated)
                | (Seated, Completed)
                | (Waiting | Called, Cancelled)
                | (Waiting | Called, NoShow)
        )
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTicket {
    pub name: String,
    pub party_size: i64,
    pub phone: Option<String>,
    pub notes: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatTicket {
    pub table_ids: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Ticket {
    pub id: String,
    /// Short number for the day, such as `Q-014`.
    pub number: String,
    pub status: TicketStatus,
    pub name: String,
    pub phone: Option<String>,
    pub notes: Option<String>,
    pub party_size: i64,
    /// Place among waiting parties (1 is next); null once no longer waiting.
    pub position: Option<i64>,
    /// Minutes until a fitting table is expected to free up; null once no longer waiting.
    pub estimated_wait_minutes: Option<i64>,
    /// The wait quoted when the ticket was taken.
    pub quoted_wait_minutes: Option<i64>,
    pub reservation_id: Option<String>,
    pub session_id: Option<String>,
    /// Returned only when the ticket is created: the guest's link to
    /// `GET /public/{tenant_slug}/queue/{tracking_token}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracking_token: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// What a guest tracking the ticket sees: nothing personal.
#[derive(Debug, Serialize, ToSchema)]
pub struct PublicTicket {
    pub number: String,
    pub status: TicketStatus,
    pub position: Option<i64>,
    pub estimated_wait_minutes: Option<i64>,
}

/// Minutes a table turns in when the tenant has no closed sessions to learn from.
pub const FALLBACK_TURN_MINUTES: i64 = 45;

/// Minutes until the `position`-th waiting party gets a table, given when each
/// fitting table is expected to be free (minutes from now) and how long a table
/// turns: each party takes the table that frees first, which then turns again.
pub fn estimate_wait(mut free_in: Vec<i64>, turn_minutes: i64, position: i64) -> i64 {
    if free_in.is_empty() {
        return turn_minutes * position;
    }
    let mut wait = 0;
    for _ in 0..position.max(1) {
        free_in.sort_unstable();
        wait = free_in[0];
        free_in[0] += turn_minutes;
    }
    wait
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_follow_the_tables_that_free_first() {
        // Two free tables seat the first two parties at once; the third waits a turn.
        assert_eq!(estimate_wait(vec![0, 0], 40, 1), 0);
        assert_eq!(estimate_wait(vec![0, 0], 40, 2), 0);
        assert_eq!(estimate_wait(vec![0, 0], 40, 3), 40);
        // One table freeing in 10 minutes, another in 30.
        assert_eq!(estimate_wait(vec![30, 10], 40, 2), 30);
        assert_eq!(estimate_wait(vec![30, 10], 40, 3), 50);
        // No fitting table at all: a turn per party ahead.
        assert_eq!(estimate_wait(vec![], 45, 2), 90);
    }

    #[test]
    fn tickets_move_only_along_the_waitlist() {
        use TicketStatus::*;
        assert!(Waiting.can_become(Called));
        assert!(Called.can_become(Seated));
        assert!(Seated.can_become(Completed));
        assert!(!Seated.can_become(Cancelled));
        assert!(!Completed.can_become(Waiting));
        assert!(!Called.can_become(Called));
    }
}
