//! Attendance records as the API shows them, and the rules of punching.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::ApiError;

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Break {
    pub started_at: String,
    pub ended_at: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AttendanceRecord {
    pub id: String,
    pub user_id: String,
    pub user_name: String,
    pub clock_in: String,
    /// Null while the person is still clocked in.
    pub clock_out: Option<String>,
    /// The paired device a PIN clock-in came from; null when the person was signed in.
    pub device_id: Option<String>,
    /// Oldest first.
    pub breaks: Vec<Break>,
    /// Whole minutes from clock-in to clock-out (or now, while open), less breaks.
    pub worked_minutes: i64,
    /// Whole minutes of breaks, an open break counted up to now.
    pub break_minutes: i64,
    /// Still open after the business's `attendance_review_hours`: for a manager to
    /// look at. Such a record is never closed by itself.
    pub needs_review: bool,
}

/// Where a person stands: what the next punch may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PunchState {
    ClockedOut,
    Working,
    OnBreak,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Punch {
    ClockIn,
    ClockOut,
    BreakStart,
    BreakEnd,
}

impl PunchState {
    pub fn as_str(self) -> &'static str {
        match self {
            PunchState::ClockedOut => "clocked_out",
            PunchState::Working => "working",
            PunchState::OnBreak => "on_break",
        }
    }

    /// The state after `punch`, or why it cannot happen now. Clocking out during
    /// a break ends the break too.
    pub fn after(self, punch: Punch) -> Result<PunchState, &'static str> {
        use Punch::*;
        use PunchState::*;
        match (self, punch) {
            (ClockedOut, ClockIn) | (OnBreak, BreakEnd) => Ok(Working),
            (Working | OnBreak, ClockOut) => Ok(ClockedOut),
            (Working, BreakStart) => Ok(OnBreak),
            (Working | OnBreak, ClockIn) => Err("already clocked in"),
            (ClockedOut, _) => Err("not clocked in"),
            (OnBreak, BreakStart) => Err("already on a break"),
            (Working, BreakEnd) => Err("not on a break"),
        }
    }
}

impl Punch {
    pub fn as_str(self) -> &'static str {
        match self {
            Punch::ClockIn => "clock_in",
            Punch::ClockOut => "clock_out",
            Punch::BreakStart => "break_start",
            Punch::BreakEnd => "break_end",
        }
    }
}

/// Worked and break minutes of a record from `clock_in` to `end`, with its
/// breaks as (start, end or still open). Seconds are dropped once, at the end,
/// so short breaks are not each rounded away.
pub fn minutes(
    clock_in: DateTime<Utc>,
    end: DateTime<Utc>,
    breaks: &[(DateTime<Utc>, Option<DateTime<Utc>>)],
) -> (i64, i64) {
    let on_break: i64 = breaks
        .iter()
        .map(|(start, stop)| (stop.unwrap_or(end).min(end) - *start).num_seconds().max(0))
        .sum();
    let present = (end - clock_in).num_seconds().max(0);
    ((present - on_break).max(0) / 60, on_break / 60)
}

/// Where a correction stands: pending until a manager approves or rejects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CorrectionStatus {
    Pending,
    Approved,
    Rejected,
}

impl CorrectionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CorrectionStatus::Pending => "pending",
            CorrectionStatus::Approved => "approved",
            CorrectionStatus::Rejected => "rejected",
        }
    }

    pub fn parse(text: &str) -> Option<CorrectionStatus> {
        match text {
            "pending" => Some(CorrectionStatus::Pending),
            "approved" => Some(CorrectionStatus::Approved),
            "rejected" => Some(CorrectionStatus::Rejected),
            _ => None,
        }
    }

    /// Only a pending correction is decided, once.
    pub fn decide(self, to: CorrectionStatus) -> Result<CorrectionStatus, ApiError> {
        match self {
            CorrectionStatus::Pending => Ok(to),
            _ => Err(ApiError::illegal_transition(
                "the correction",
                self.as_str(),
                to.as_str(),
            )),
        }
    }
}

/// A staff member's request to change the punches of their own record.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Correction {
    pub id: String,
    pub record_id: String,
    pub user_id: String,
    pub user_name: String,
    /// The clock-in asked for; null leaves it as it is.
    pub clock_in: Option<String>,
    /// The clock-out asked for; null leaves it as it is.
    pub clock_out: Option<String>,
    pub reason: String,
    pub status: CorrectionStatus,
    /// Who approved or rejected it, as `user:<id>`.
    pub decided_by: Option<String>,
    pub decided_at: Option<String>,
    pub note: Option<String>,
    pub created_at: String,
}

/// New punch times for a record, asked for by its person or set by a manager.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PunchChange {
    /// RFC 3339; absent leaves the clock-in as it is.
    pub clock_in: Option<String>,
    /// RFC 3339; absent leaves the clock-out as it is (an open record stays open).
    pub clock_out: Option<String>,
    /// Why the punches change; kept in the record's history.
    pub reason: String,
}

/// A manager's word on a correction.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    pub note: Option<String>,
}

/// One change to a record's punches.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct HistoryEntry {
    pub id: String,
    pub record_id: String,
    /// `clock_out` (the person clocked out), `correction` (an approved
    /// correction) or `edit` (a manager's direct edit).
    pub change: String,
    pub clock_in_before: String,
    pub clock_in_after: String,
    pub clock_out_before: Option<String>,
    pub clock_out_after: Option<String>,
    /// Who made the change, as `user:<id>` or `api_key:<id>`; for an approved
    /// correction, the manager who approved it.
    pub changed_by: String,
    pub changed_at: String,
    pub reason: Option<String>,
    /// The correction the change came from.
    pub correction_id: Option<String>,
}

/// The payroll lock: records that started before `locked_until` refuse changes.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AttendanceLock {
    /// Null while nothing is locked.
    pub locked_until: Option<String>,
    pub locked_by: Option<String>,
    pub locked_at: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LockRequest {
    /// RFC 3339, not in the future and not before the current lock.
    pub until: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32, m: u32, s: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2030, 3, 4, h, m, s).unwrap()
    }

    #[test]
    fn minutes_leave_out_breaks_and_count_open_ones_up_to_the_end() {
        assert_eq!(minutes(at(9, 0, 0), at(17, 0, 0), &[]), (480, 0));
        let breaks = [
            (at(12, 0, 0), Some(at(12, 30, 30))),
            (at(15, 0, 0), Some(at(15, 9, 30))),
        ];
        assert_eq!(minutes(at(9, 0, 0), at(17, 0, 0), &breaks), (440, 40));
        let open = [(at(16, 0, 0), None)];
        assert_eq!(minutes(at(9, 0, 0), at(16, 45, 59), &open), (420, 45));
    }

    #[test]
    fn punches_follow_the_day() {
        use Punch::*;
        use PunchState::*;
        assert_eq!(ClockedOut.after(ClockIn), Ok(Working));
        assert_eq!(Working.after(ClockIn), Err("already clocked in"));
        assert_eq!(OnBreak.after(ClockIn), Err("already clocked in"));
        assert_eq!(Working.after(BreakEnd), Err("not on a break"));
        assert_eq!(Working.after(BreakStart), Ok(OnBreak));
        assert_eq!(OnBreak.after(BreakStart), Err("already on a break"));
        assert_eq!(OnBreak.after(BreakEnd), Ok(Working));
        assert_eq!(OnBreak.after(ClockOut), Ok(ClockedOut));
        assert_eq!(Working.after(ClockOut), Ok(ClockedOut));
        assert_eq!(ClockedOut.after(ClockOut), Err("not clocked in"));
        assert_eq!(ClockedOut.after(BreakStart), Err("not clocked in"));
    }

    #[test]
    fn a_correction_is_decided_once() {
        use CorrectionStatus::*;
        assert_eq!(Pending.decide(Approved).unwrap(), Approved);
        assert_eq!(Pending.decide(Rejected).unwrap(), Rejected);
        for done in [Approved, Rejected] {
            for to in [Approved, Rejected] {
                let refused = done.decide(to).unwrap_err();
                assert_eq!(refused.member("current_status").unwrap(), done.as_str());
            }
        }
    }
}
