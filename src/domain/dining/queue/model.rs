//! Waitlist tickets: statuses, requests and views, and the wait estimate.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = QueueTicketStatus)]
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
    #[schema(min_length = 1, max_length = 120, pattern = r"\S")]
    pub name: String,
    #[schema(minimum = 1, maximum = 100)]
    pub party_size: i64,
    #[schema(max_length = 40)]
    pub phone: Option<String>,
    #[schema(max_length = 500)]
    pub notes: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatTicket {
    /// Tables in service, each listed once.
    #[schema(min_items = 1, max_items = 20)]
    pub table_ids: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = QueueTicket)]
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

/// A table as the wait estimate sees it.
#[derive(Debug, Clone, Copy)]
pub struct TableTurn {
    pub seats: i64,
    /// Minutes from now until it is expected free.
    pub free_in: i64,
}

/// A party waiting ahead: its size and how long a table turns for a party that size.
#[derive(Debug, Clone, Copy)]
pub struct PartyAhead {
    pub size: i64,
    pub turn_minutes: i64,
}

/// Minutes until a party of `party_size` gets a table once the parties `ahead`
/// (oldest first) are seated. Each takes, among the tables it fits, the one that
/// frees first (the smallest on a tie, keeping big tables for big parties), which
/// then turns again; a party of two waits behind a party of eight only while they
/// want the same table. With no table fitting the party, a turn per party up to it.
pub fn estimate_wait(
    mut tables: Vec<TableTurn>,
    ahead: &[PartyAhead],
    party_size: i64,
    turn_minutes: i64,
) -> i64 {
    fn first_free(tables: &mut [TableTurn], size: i64) -> Option<&mut TableTurn> {
        tables
            .iter_mut()
            .filter(|t| t.seats >= size)
            .min_by_key(|t| (t.free_in, t.seats))
    }
    if first_free(&mut tables, party_size).is_none() {
        return turn_minutes * (ahead.len() as i64 + 1);
    }
    for party in ahead {
        if let Some(table) = first_free(&mut tables, party.size) {
            table.free_in += party.turn_minutes;
        }
    }
    first_free(&mut tables, party_size).map_or(0, |t| t.free_in)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables(seats_free_in: &[(i64, i64)]) -> Vec<TableTurn> {
        seats_free_in
            .iter()
            .map(|&(seats, free_in)| TableTurn { seats, free_in })
            .collect()
    }

    fn parties(sizes: &[i64], turn_minutes: i64) -> Vec<PartyAhead> {
        sizes
            .iter()
            .map(|&size| PartyAhead { size, turn_minutes })
            .collect()
    }

    #[test]
    fn waits_follow_the_tables_that_free_first() {
        // Two free tables seat the first two parties at once; the third waits a turn.
        let two_free = tables(&[(4, 0), (4, 0)]);
        assert_eq!(estimate_wait(two_free.clone(), &[], 2, 40), 0);
        assert_eq!(
            estimate_wait(two_free.clone(), &parties(&[2], 40), 2, 40),
            0
        );
        assert_eq!(estimate_wait(two_free, &parties(&[2, 2], 40), 2, 40), 40);
        // One table freeing in 10 minutes, another in 30.
        let busy = tables(&[(4, 30), (4, 10)]);
        assert_eq!(estimate_wait(busy.clone(), &parties(&[2], 40), 2, 40), 30);
        assert_eq!(estimate_wait(busy, &parties(&[2, 2], 40), 2, 40), 50);
        // No fitting table at all: a turn per party up to this one.
        assert_eq!(
            estimate_wait(tables(&[(2, 0)]), &parties(&[2], 45), 4, 45),
            90
        );
    }

    #[test]
    fn a_small_party_does_not_wait_behind_a_large_one_for_another_table() {
        // A free two-top and an eight-top freeing in 20 minutes; a party of eight
        // waits ahead for the big table, so the couple behind it sits at once.
        let room = tables(&[(2, 0), (8, 20)]);
        assert_eq!(estimate_wait(room.clone(), &parties(&[8], 60), 2, 40), 0);
        // A couple ahead takes the two-top (the smallest free table), so the next
        // couple gets the eight-top when it frees.
        assert_eq!(estimate_wait(room.clone(), &parties(&[2], 40), 2, 40), 20);
        // A party bigger than every table ahead takes nothing from anyone.
        assert_eq!(estimate_wait(room, &parties(&[12], 60), 2, 40), 0);
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
