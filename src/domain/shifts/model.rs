//! Shifts as the API shows them, the request shapes, and the pure rules: status
//! after an edit or a publish, overlap, and the local weeks copy-week moves between.

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc, Weekday};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::Role;
use crate::domain::validate::nullable;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ShiftStatus {
    /// Not yet shown to staff.
    Draft,
    /// Shown to staff as it is.
    Published,
    /// Published, then edited: staff see the new times marked as changed until
    /// it is published again.
    Changed,
}

impl ShiftStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ShiftStatus::Draft => "draft",
            ShiftStatus::Published => "published",
            ShiftStatus::Changed => "changed",
        }
    }

    pub fn parse(text: &str) -> Option<ShiftStatus> {
        match text {
            "draft" => Some(ShiftStatus::Draft),
            "published" => Some(ShiftStatus::Published),
            "changed" => Some(ShiftStatus::Changed),
            _ => None,
        }
    }

    /// The status after an edit: a draft stays a draft, anything staff have seen
    /// becomes changed.
    pub fn after_edit(self) -> ShiftStatus {
        match self {
            ShiftStatus::Draft => ShiftStatus::Draft,
            ShiftStatus::Published | ShiftStatus::Changed => ShiftStatus::Changed,
        }
    }

    /// Whether staff see the shift.
    pub fn visible_to_staff(self) -> bool {
        self != ShiftStatus::Draft
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Shift {
    pub id: String,
    /// The person working it; null for an open shift.
    pub user_id: Option<String>,
    pub user_name: Option<String>,
    /// The role the shift is for (an open shift names a role or a station).
    pub role: Option<Role>,
    pub station_id: Option<String>,
    pub starts_at: String,
    pub ends_at: String,
    /// Unpaid break within the shift.
    pub break_minutes: i64,
    /// From start to end, less the break.
    pub scheduled_minutes: i64,
    pub notes: Option<String>,
    pub status: ShiftStatus,
    /// When it was last published; null for a draft never published.
    pub published_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewShift {
    /// Null or absent for an open shift, which then needs `role` or `station_id`.
    pub user_id: Option<String>,
    pub role: Option<Role>,
    pub station_id: Option<String>,
    /// RFC 3339.
    pub starts_at: String,
    /// RFC 3339, after `starts_at` and at most 24 hours later.
    pub ends_at: String,
    /// Unpaid break, shorter than the shift (default 0).
    #[schema(minimum = 0, maximum = 1440)]
    pub break_minutes: Option<i64>,
    #[schema(max_length = 500)]
    pub notes: Option<String>,
}

/// Absent fields keep their value; `null` clears `user_id`, `role`, `station_id` or `notes`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShiftPatch {
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub user_id: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Role>)]
    pub role: Option<Option<Role>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub station_id: Option<Option<String>>,
    pub starts_at: Option<String>,
    pub ends_at: Option<String>,
    #[schema(minimum = 0, maximum = 1440)]
    pub break_minutes: Option<i64>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, max_length = 500)]
    pub notes: Option<Option<String>>,
}

/// A range of shifts to publish, by start time.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PublishRange {
    /// RFC 3339: shifts starting at or after this instant.
    pub from: String,
    /// RFC 3339: shifts starting before this instant.
    pub to: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Published {
    /// Drafts and changed shifts now published, by start time.
    pub published: Vec<Shift>,
}

/// Which week to copy to which: the Mondays that start them, in the business's time zone.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CopyWeek {
    /// A Monday, `YYYY-MM-DD`.
    #[schema(format = Date)]
    pub from_week: String,
    /// A Monday, `YYYY-MM-DD`, other than `from_week`.
    #[schema(format = Date)]
    pub to_week: String,
}

/// A shift copy-week left out because its person would have two shifts at once.
#[derive(Debug, Serialize, ToSchema)]
pub struct SkippedShift {
    /// The shift of the source week.
    pub source_id: String,
    pub user_id: Option<String>,
    /// Where the copy would have been.
    pub starts_at: String,
    pub ends_at: String,
    /// The shift it would have overlapped.
    pub overlaps: ShiftTimes,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ShiftTimes {
    pub id: String,
    pub starts_at: String,
    pub ends_at: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CopiedWeek {
    /// The new drafts, by start time.
    pub created: Vec<Shift>,
    pub skipped: Vec<SkippedShift>,
}

/// Whether `[a_start, a_end)` and `[b_start, b_end)` share any time; touching ends
/// do not overlap, so a shift may start when the previous one ends.
pub fn overlaps<T: PartialOrd>(a_start: &T, a_end: &T, b_start: &T, b_end: &T) -> bool {
    a_start < b_end && b_start < a_end
}

/// Scheduled minutes of a shift: its length less the break, never below zero.
pub fn scheduled_minutes(starts: DateTime<Utc>, ends: DateTime<Utc>, break_minutes: i64) -> i64 {
    ((ends - starts).num_minutes() - break_minutes).max(0)
}

/// The instant local midnight of `date` is in `zone`; on a day that skips
/// midnight, the first instant after it.
pub fn local_midnight<Z: TimeZone>(zone: &Z, date: NaiveDate) -> DateTime<Utc> {
    let mut at = date.and_hms_opt(0, 0, 0).expect("midnight exists");
    loop {
        if let Some(instant) = zone.from_local_datetime(&at).earliest() {
            return instant.with_timezone(&Utc);
        }
        at += Duration::minutes(30);
    }
}

/// `at` moved by whole `days` on the local calendar, so a shift keeps its local
/// start time across a daylight-saving change.
pub fn shift_days<Z: TimeZone>(zone: &Z, at: DateTime<Utc>, days: i64) -> DateTime<Utc> {
    let mut local = at.with_timezone(zone).naive_local() + Duration::days(days);
    loop {
        if let Some(instant) = zone.from_local_datetime(&local).earliest() {
            return instant.with_timezone(&Utc);
        }
        local += Duration::minutes(30);
    }
}

/// A `YYYY-MM-DD` Monday, or why not.
pub fn parse_monday(text: &str) -> Result<NaiveDate, &'static str> {
    let date =
        NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| "must be a date YYYY-MM-DD")?;
    if date.weekday() == Weekday::Mon {
        Ok(date)
    } else {
        Err("must be a Monday")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(day: u32, h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2030, 3, day, h, m, 0).unwrap()
    }

    #[test]
    fn an_edit_marks_what_staff_have_seen_as_changed() {
        use ShiftStatus::*;
        assert_eq!(Draft.after_edit(), Draft);
        assert_eq!(Published.after_edit(), Changed);
        assert_eq!(Changed.after_edit(), Changed);
        assert!(!Draft.visible_to_staff());
        assert!(Changed.visible_to_staff());
    }

    #[test]
    fn touching_shifts_do_not_overlap() {
        assert!(overlaps(
            &at(4, 9, 0),
            &at(4, 17, 0),
            &at(4, 16, 0),
            &at(4, 20, 0)
        ));
        assert!(overlaps(
            &at(4, 9, 0),
            &at(4, 17, 0),
            &at(4, 10, 0),
            &at(4, 11, 0)
        ));
        assert!(!overlaps(
            &at(4, 9, 0),
            &at(4, 17, 0),
            &at(4, 17, 0),
            &at(4, 20, 0)
        ));
        assert!(!overlaps(
            &at(4, 17, 0),
            &at(4, 20, 0),
            &at(4, 9, 0),
            &at(4, 17, 0)
        ));
    }

    #[test]
    fn scheduled_minutes_leave_out_the_break() {
        assert_eq!(scheduled_minutes(at(4, 9, 0), at(4, 17, 30), 30), 480);
        assert_eq!(scheduled_minutes(at(4, 9, 0), at(4, 9, 10), 30), 0);
    }

    #[test]
    fn copying_a_week_keeps_the_local_time_across_daylight_saving() {
        let paris: chrono_tz::Tz = "Europe/Paris".parse().unwrap();
        // Summer time starts on 2030-03-31: 09:00 in Paris is 08:00Z on Monday
        // the 25th and 07:00Z on Monday 1 April.
        let before = Utc.with_ymd_and_hms(2030, 3, 25, 8, 0, 0).unwrap();
        assert_eq!(
            shift_days(&paris, before, 7),
            Utc.with_ymd_and_hms(2030, 4, 1, 7, 0, 0).unwrap()
        );
        assert_eq!(
            local_midnight(&paris, NaiveDate::from_ymd_opt(2030, 3, 25).unwrap()),
            Utc.with_ymd_and_hms(2030, 3, 24, 23, 0, 0).unwrap()
        );
        assert_eq!(
            parse_monday("2030-03-18"),
            Ok(NaiveDate::from_ymd_opt(2030, 3, 18).unwrap())
        );
        assert_eq!(parse_monday("2030-03-19"), Err("must be a Monday"));
        assert_eq!(parse_monday("18/03/2030"), Err("must be a date YYYY-MM-DD"));
    }
}
