//! Scheduled against actual: per person, the published schedule of a period set
//! beside their attendance records, with late arrivals, missed shifts and the
//! labour cost of the time worked.

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, Duration, Utc};
use rusqlite::{params, Connection};
use serde::Serialize;
use utoipa::ToSchema;

use super::model::*;
use super::schedule::{list_shifts, ShiftFilter};
use crate::domain::attendance::{self, AttendanceRecord, RecordFilter};
use crate::domain::settings::{self, TenantSettings};
use crate::domain::validate::Checks;
use crate::error::ApiError;
use crate::time::{parse_rfc3339, rfc3339};

/// A clock-in more than this many minutes after its shift's start is late.
pub const LATE_GRACE_MINUTES: i64 = 5;

#[derive(Debug, Serialize, ToSchema)]
pub struct PersonComparison {
    pub user_id: String,
    pub user_name: String,
    /// Published shifts starting in the period.
    pub shifts: i64,
    /// Their length less breaks.
    pub scheduled_minutes: i64,
    /// Worked minutes of the attendance records clocked in within the period
    /// (breaks left out, an open record counted up to now).
    pub worked_minutes: i64,
    /// Shifts whose first clock-in came more than `late_grace_minutes` after the start.
    pub late_arrivals: i64,
    /// Shifts that have ended without any clock-in during them.
    pub missed_shifts: i64,
    /// Per hour; null when no wage is set.
    pub hourly_wage: Option<f64>,
    /// Worked minutes at the hourly wage, rounded to the minor unit.
    pub labour_cost: f64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Comparison {
    pub from: String,
    pub to: String,
    pub late_grace_minutes: i64,
    /// Everyone with a published shift or a clock-in in the period, by name.
    pub people: Vec<PersonComparison>,
    pub scheduled_minutes: i64,
    pub worked_minutes: i64,
    pub labour_cost: f64,
}

fn instant(text: &str) -> Result<DateTime<Utc>, ApiError> {
    parse_rfc3339(text).ok_or_else(|| ApiError::internal(format!("stored time {text:?}")))
}

/// Where a record ends: its clock-out, or now while open.
fn record_end(record: &AttendanceRecord, now: DateTime<Utc>) -> Result<DateTime<Utc>, ApiError> {
    record.clock_out.as_deref().map_or(Ok(now), instant)
}

/// The period to compare: as given, seven days from or before the one bound
/// given, or else the local week (from Monday) of `now`; at most 62 days.
fn period(
    settings: &TenantSettings,
    from: Option<DateTime<Utc>>,
    to: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<(DateTime<Utc>, DateTime<Utc>), ApiError> {
    let week = Duration::days(7);
    let (from, to) = match (from, to) {
        (Some(from), Some(to)) => (from, to),
        (Some(from), None) => (from, from + week),
        (None, Some(to)) => (to - week, to),
        (None, None) => {
            let today = now.with_timezone(&settings.timezone).date_naive();
            let monday = today - Duration::days(today.weekday().num_days_from_monday() as i64);
            let from = local_midnight(&settings.timezone, monday);
            (from, local_midnight(&settings.timezone, monday + week))
        }
    };
    let mut checks = Checks::new();
    if to <= from {
        checks.fail("to", "must be after from");
    } else if to - from > Duration::days(62) {
        checks.fail("to", "must be at most 62 days after from");
    }
    checks.finish()?;
    Ok((from, to))
}

/// Compares shifts starting within the period (see [`period`]) with the
/// attendance of the same period.
pub fn compare(
    conn: &Connection,
    from: Option<DateTime<Utc>>,
    to: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<Comparison, ApiError> {
    let settings = settings::load(conn)?;
    let exponent = settings.exponent();
    let (from, to) = period(&settings, from, to, now)?;
    let shifts: Vec<Shift> = list_shifts(
        conn,
        &ShiftFilter {
            from: Some(rfc3339(from)),
            to: Some(rfc3339(to)),
            staff_view: true,
            ..ShiftFilter::default()
        },
        None,
        u32::MAX,
    )?
    .into_iter()
    .filter(|shift| shift.user_id.is_some())
    .collect();
    // A shift may have been clocked into the day before it starts in the period.
    let records = attendance::list_records(
        conn,
        &RecordFilter {
            user_id: None,
            from: Some(rfc3339(from - Duration::hours(24))),
            to: Some(rfc3339(to)),
        },
        now,
    )?;
    let mut people: BTreeMap<String, PersonComparison> = BTreeMap::new();
    let mut wages: BTreeMap<String, i64> = BTreeMap::new();
    let mut person = |user_id: &str, user_name: &str| -> Result<(), ApiError> {
        if !people.contains_key(user_id) {
            let wage: Option<i64> = conn
                .prepare_cached("SELECT hourly_wage FROM users WHERE id = ?1")?
                .query_row(params![user_id], |r| r.get(0))?;
            people.insert(
                user_id.to_string(),
                PersonComparison {
                    user_id: user_id.to_string(),
                    user_name: user_name.to_string(),
                    shifts: 0,
                    scheduled_minutes: 0,
                    worked_minutes: 0,
                    late_arrivals: 0,
                    missed_shifts: 0,
                    hourly_wage: wage.map(|w| crate::money::to_json(w, exponent)),
                    labour_cost: 0.0,
                },
            );
            wages.insert(user_id.to_string(), wage.unwrap_or(0));
        }
        Ok(())
    };
    for record in &records {
        if instant(&record.clock_in)? >= from {
            person(&record.user_id, &record.user_name)?;
        }
    }
    for shift in &shifts {
        let user_id = shift.user_id.as_deref().expect("assigned shifts only");
        person(user_id, shift.user_name.as_deref().unwrap_or_default())?;
    }
    for record in &records {
        if instant(&record.clock_in)? >= from {
            if let Some(p) = people.get_mut(&record.user_id) {
                p.worked_minutes += record.worked_minutes;
            }
        }
    }
    for shift in &shifts {
        let (starts, ends) = (instant(&shift.starts_at)?, instant(&shift.ends_at)?);
        let user_id = shift.user_id.as_deref().expect("assigned shifts only");
        let mut first_clock_in: Option<DateTime<Utc>> = None;
        for record in records.iter().filter(|r| r.user_id == user_id) {
            let clock_in = instant(&record.clock_in)?;
            if overlaps(&clock_in, &record_end(record, now)?, &starts, &ends) {
                first_clock_in = Some(first_clock_in.map_or(clock_in, |f| f.min(clock_in)));
            }
        }
        let p = people.get_mut(user_id).expect("added above");
        p.shifts += 1;
        p.scheduled_minutes += shift.scheduled_minutes;
        match first_clock_in {
            Some(at) if at > starts + Duration::minutes(LATE_GRACE_MINUTES) => p.late_arrivals += 1,
            None if ends <= now => p.missed_shifts += 1,
            _ => {}
        }
    }
    let mut people: Vec<PersonComparison> = people.into_values().collect();
    let mut total_cost = 0;
    for p in &mut people {
        let cost = labour_cost(p.worked_minutes, wages[&p.user_id]);
        total_cost += cost;
        p.labour_cost = crate::money::to_json(cost, exponent);
    }
    people.sort_by(|a, b| (&a.user_name, &a.user_id).cmp(&(&b.user_name, &b.user_id)));
    Ok(Comparison {
        from: rfc3339(from),
        to: rfc3339(to),
        late_grace_minutes: LATE_GRACE_MINUTES,
        scheduled_minutes: people.iter().map(|p| p.scheduled_minutes).sum(),
        worked_minutes: people.iter().map(|p| p.worked_minutes).sum(),
        labour_cost: crate::money::to_json(total_cost, exponent),
        people,
    })
}

/// Minutes at an hourly wage in minor units, rounded half up to the minor unit.
pub fn labour_cost(minutes: i64, hourly_wage: i64) -> i64 {
    (minutes * hourly_wage + 30) / 60
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labour_cost_rounds_half_up_to_the_minor_unit() {
        assert_eq!(labour_cost(60, 1500), 1500);
        assert_eq!(labour_cost(445, 1250), 9271); // 9270.83
        assert_eq!(labour_cost(1, 30), 1); // 0.5
        assert_eq!(labour_cost(0, 1500), 0);
    }
}
