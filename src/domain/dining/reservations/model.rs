//! Reservations: statuses, requests and views, and the weekly time-slot rules as
//! pure functions over dates.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::event::ReservationData;
use crate::domain::validate::nullable;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReservationStatus {
    Pending,
    Confirmed,
    CheckedIn,
    Completed,
    Cancelled,
    NoShow,
}

impl ReservationStatus {
    pub const ALL: [ReservationStatus; 6] = [
        ReservationStatus::Pending,
        ReservationStatus::Confirmed,
        ReservationStatus::CheckedIn,
        ReservationStatus::Completed,
        ReservationStatus::Cancelled,
        ReservationStatus::NoShow,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ReservationStatus::Pending => "pending",
            ReservationStatus::Confirmed => "confirmed",
            ReservationStatus::CheckedIn => "checked_in",
            ReservationStatus::Completed => "completed",
            ReservationStatus::Cancelled => "cancelled",
            ReservationStatus::NoShow => "no_show",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// `pending → confirmed → checked_in → completed`; pending or confirmed ones
    /// may be cancelled or marked no-show.
    pub fn can_become(self, next: ReservationStatus) -> bool {
        use ReservationStatus::*;
        matches!(
            (self, next),
            (Pending, Confirmed)
                | (Confirmed, CheckedIn)
                | (CheckedIn, Completed)
                | (Pending | Confirmed, Cancelled)
                | (Pending | Confirmed, NoShow)
        )
    }

    /// Still expected, or at the tables: counts against a slot's covers.
    pub fn holds_covers(self) -> bool {
        matches!(
            self,
            ReservationStatus::Pending
                | ReservationStatus::Confirmed
                | ReservationStatus::CheckedIn
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Party {
    Customer,
    Staff,
}

impl Party {
    pub fn as_str(self) -> &'static str {
        match self {
            Party::Customer => "customer",
            Party::Staff => "staff",
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewReservation {
    #[schema(min_length = 1, max_length = 120, pattern = r"\S")]
    pub name: String,
    #[schema(min_length = 1, max_length = 40, pattern = r"\S")]
    pub phone: String,
    #[schema(max_length = 254)]
    pub email: Option<String>,
    #[schema(minimum = 1, maximum = 100)]
    pub party_size: i64,
    /// In the future; within the time-slot rules unless `outside_rules`.
    pub starts_at: String,
    #[schema(max_length = 1000)]
    pub notes: Option<String>,
    /// Tables to hold for the party (staff bookings only): in service, each
    /// listed once.
    #[schema(max_items = 20)]
    pub table_ids: Option<Vec<String>>,
    /// Book outside the time-slot rules: a closed day, a time between slots, a
    /// larger party or a full slot (staff bookings only). The time must still be
    /// in the future, and the party still counts against its slot.
    #[serde(default)]
    pub outside_rules: bool,
}

/// A booking made by the guest on the public route.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CustomerBooking {
    #[schema(min_length = 1, max_length = 120, pattern = r"\S")]
    pub name: String,
    #[schema(min_length = 1, max_length = 40, pattern = r"\S")]
    pub phone: String,
    #[schema(max_length = 254)]
    pub email: Option<String>,
    /// Within the day's largest party.
    #[schema(minimum = 1, maximum = 100)]
    pub party_size: i64,
    /// In the future, on a slot of the time-slot rules with room left.
    pub starts_at: String,
    #[schema(max_length = 1000)]
    pub notes: Option<String>,
}

impl From<CustomerBooking> for NewReservation {
    fn from(b: CustomerBooking) -> Self {
        NewReservation {
            name: b.name,
            phone: b.phone,
            email: b.email,
            party_size: b.party_size,
            starts_at: b.starts_at,
            notes: b.notes,
            table_ids: None,
            outside_rules: false,
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReservationPatch {
    #[schema(min_length = 1, max_length = 120, pattern = r"\S")]
    pub name: Option<String>,
    #[schema(min_length = 1, max_length = 40, pattern = r"\S")]
    pub phone: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, max_length = 254)]
    pub email: Option<Option<String>>,
    #[schema(minimum = 1, maximum = 100)]
    pub party_size: Option<i64>,
    /// In the future; within the time-slot rules unless `outside_rules`.
    pub starts_at: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, max_length = 1000)]
    pub notes: Option<Option<String>>,
    /// Tables to hold instead, as for a new booking; `[]` holds none.
    #[schema(max_items = 20)]
    pub table_ids: Option<Vec<String>>,
    /// A new time or party size may fall outside the time-slot rules, as for a new
    /// booking.
    #[serde(default)]
    pub outside_rules: bool,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ReservationCancellation)]
pub struct Cancellation {
    pub by: Party,
    #[schema(max_length = 500)]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckInMode {
    /// Join the waitlist with a ticket linked to the reservation.
    Queue,
    /// Seat at once: opens a session linked to the reservation.
    Seat,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckIn {
    pub mode: CheckInMode,
    /// Only for `seat`: where to sit, tables in service each listed once;
    /// defaults to the tables held for the reservation.
    #[schema(min_items = 1, max_items = 20)]
    pub table_ids: Option<Vec<String>>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Reservation {
    pub id: String,
    pub status: ReservationStatus,
    pub name: String,
    pub phone: String,
    pub email: Option<String>,
    pub party_size: i64,
    pub starts_at: String,
    /// When the table is expected back: start plus the day's default stay.
    pub ends_at: String,
    pub notes: Option<String>,
    pub table_ids: Vec<String>,
    pub source: Party,
    pub cancelled_by: Option<Party>,
    pub cancel_reason: Option<String>,
    pub queue_ticket_id: Option<String>,
    pub session_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl Reservation {
    /// `data.reservation` of the `reservation.*` events; `cancelled_by` only once cancelled.
    pub fn event_data(&self) -> ReservationData {
        ReservationData {
            id: self.id.clone(),
            status: self.status.as_str(),
            name: self.name.clone(),
            party_size: self.party_size,
            starts_at: self.starts_at.clone(),
            table_ids: self.table_ids.clone(),
            queue_ticket_id: self.queue_ticket_id.clone(),
            session_id: self.session_id.clone(),
            source: self.source.as_str(),
            cancelled_by: self.cancelled_by.map(Party::as_str),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CheckInResult {
    pub reservation: Reservation,
    /// Set when seated.
    pub session: Option<crate::domain::dining::sessions::Session>,
    /// Set when queued; carries the guest's tracking token.
    pub queue_ticket: Option<crate::domain::dining::queue::Ticket>,
}

/// What the guest gets back from a public booking: nothing beyond what they sent.
#[derive(Debug, Serialize, ToSchema)]
pub struct BookingReceipt {
    pub id: String,
    pub status: ReservationStatus,
    pub party_size: i64,
    pub starts_at: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Weekday {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

impl Weekday {
    pub const ALL: [Weekday; 7] = [
        Weekday::Monday,
        Weekday::Tuesday,
        Weekday::Wednesday,
        Weekday::Thursday,
        Weekday::Friday,
        Weekday::Saturday,
        Weekday::Sunday,
    ];

    /// 0 for Monday.
    pub fn index(self) -> i64 {
        Self::ALL.iter().position(|d| *d == self).unwrap_or(0) as i64
    }

    pub fn of(date: NaiveDate) -> Weekday {
        Self::ALL[date.weekday().num_days_from_monday() as usize]
    }
}

/// Opening hours in local time, `"HH:MM"`; slots start from `start` and before `end`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Window {
    #[schema(pattern = r"^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub start: String,
    /// After `start`.
    #[schema(pattern = r"^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub end: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DayRules {
    /// Each weekday at most once in the rules.
    pub weekday: Weekday,
    /// Opening windows, each ending after it starts.
    #[schema(min_items = 1, max_items = 24)]
    pub windows: Vec<Window>,
    /// Minutes between slot starts.
    #[schema(minimum = 5, maximum = 240)]
    pub slot_minutes: i64,
    /// Guests that may be booked to start in one slot.
    #[schema(minimum = 1, maximum = 10000)]
    pub max_covers_per_slot: i64,
    #[schema(minimum = 1, maximum = 100)]
    pub max_party_size: i64,
    /// How long a table is expected to be taken by a booking.
    #[schema(minimum = 15, maximum = 720)]
    pub stay_minutes: i64,
}

/// The weekly rules; a weekday not listed takes no bookings.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeSlotRules {
    #[schema(max_items = 7)]
    pub days: Vec<DayRules>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Slot {
    pub starts_at: String,
    /// Further guests this slot can take.
    pub remaining_covers: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Availability {
    pub date: String,
    pub party_size: i64,
    /// Bookable slots for the party, in order.
    pub slots: Vec<Slot>,
}

pub fn parse_clock(text: &str) -> Option<NaiveTime> {
    NaiveTime::parse_from_str(text, "%H:%M").ok()
}

/// Every slot start of `date` under `rules`, in UTC. Local times that do not exist
/// (a daylight-saving jump) are skipped.
pub fn slot_starts(rules: &DayRules, date: NaiveDate, zone: chrono_tz::Tz) -> Vec<DateTime<Utc>> {
    let mut starts = Vec::new();
    for window in &rules.windows {
        let (Some(open), Some(close)) = (parse_clock(&window.start), parse_clock(&window.end))
        else {
            continue;
        };
        let mut at = date.and_time(open);
        let close = date.and_time(close);
        while at < close {
            if let Some(local) = zone.from_local_datetime(&at).earliest() {
                starts.push(local.with_timezone(&Utc));
            }
            at += Duration::minutes(rules.slot_minutes.max(1));
        }
    }
    starts.sort();
    starts.dedup();
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_run_from_opening_to_before_closing() {
        let rules = DayRules {
            weekday: Weekday::Friday,
            windows: vec![Window {
                start: "18:00".into(),
                end: "19:30".into(),
            }],
            slot_minutes: 30,
            max_covers_per_slot: 10,
            max_party_size: 6,
            stay_minutes: 90,
        };
        let date = NaiveDate::from_ymd_opt(2030, 3, 1).unwrap();
        let slots = slot_starts(&rules, date, chrono_tz::Europe::Paris);
        let shown: Vec<String> = slots.iter().map(|s| crate::time::rfc3339(*s)).collect();
        assert_eq!(
            shown,
            [
                "2030-03-01T17:00:00.000Z",
                "2030-03-01T17:30:00.000Z",
                "2030-03-01T18:00:00.000Z"
            ]
        );
        assert_eq!(Weekday::of(date), Weekday::Friday);
    }

    #[test]
    fn reservations_move_only_along_their_lifecycle() {
        use ReservationStatus::*;
        assert!(Pending.can_become(Confirmed));
        assert!(Confirmed.can_become(CheckedIn));
        assert!(CheckedIn.can_become(Completed));
        assert!(!Pending.can_become(CheckedIn));
        assert!(!CheckedIn.can_become(Cancelled));
        assert!(!NoShow.can_become(Confirmed));
    }
}
