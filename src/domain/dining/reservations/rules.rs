//! Booking rules: the weekly time slots, what a slot still has room for, and the
//! availability guests and staff book from.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};

use super::model::*;
use crate::domain::dining::sessions::MAX_PARTY_SIZE;
use crate::domain::settings::TenantSettings;
use crate::domain::tables;
use crate::domain::validate::Checks;
use crate::error::ApiError;
use crate::time::{parse_rfc3339, rfc3339};

fn rules_from_row(r: &Row) -> rusqlite::Result<DayRules> {
    let windows: String = r.get(1)?;
    Ok(DayRules {
        weekday: Weekday::ALL[r.get::<_, i64>(0)?.clamp(0, 6) as usize],
        windows: serde_json::from_str(&windows).unwrap_or_default(),
        slot_minutes: r.get(2)?,
        max_covers_per_slot: r.get(3)?,
        max_party_size: r.get(4)?,
        stay_minutes: r.get(5)?,
    })
}

const RULE_COLUMNS: &str =
    "weekday, windows, slot_minutes, max_covers_per_slot, max_party_size, stay_minutes";

pub fn get_rules(conn: &Connection) -> Result<TimeSlotRules, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RULE_COLUMNS} FROM reservation_time_slots ORDER BY weekday"
    ))?;
    let days = stmt
        .query_map([], rules_from_row)?
        .collect::<Result<_, _>>()?;
    Ok(TimeSlotRules { days })
}

fn rules_for(conn: &Connection, weekday: Weekday) -> Result<Option<DayRules>, ApiError> {
    Ok(conn
        .query_row(
            &format!("SELECT {RULE_COLUMNS} FROM reservation_time_slots WHERE weekday = ?1"),
            [weekday.index()],
            rules_from_row,
        )
        .optional()?)
}

const MAX_WINDOWS_PER_DAY: usize = 24;

/// Replaces the weekly rules.
pub fn put_rules(tx: &Transaction, rules: &TimeSlotRules) -> Result<TimeSlotRules, ApiError> {
    let mut checks = Checks::new();
    for (i, day) in rules.days.iter().enumerate() {
        let field = |name: &str| format!("days[{i}].{name}");
        if rules.days[..i].iter().any(|d| d.weekday == day.weekday) {
            checks.fail(field("weekday"), "is listed twice");
        }
        if day.windows.is_empty() {
            checks.fail(field("windows"), "must list at least one opening window");
        } else if day.windows.len() > MAX_WINDOWS_PER_DAY {
            checks.fail(
                field("windows"),
                format!("at most {MAX_WINDOWS_PER_DAY} opening windows a day"),
            );
        }
        for (j, window) in day.windows.iter().enumerate() {
            match (parse_clock(&window.start), parse_clock(&window.end)) {
                (Some(start), Some(end)) if start < end => {}
                (Some(_), Some(_)) => checks.fail(
                    format!("days[{i}].windows[{j}]"),
                    "must end after it starts",
                ),
                _ => checks.fail(
                    format!("days[{i}].windows[{j}]"),
                    "start and end must be HH:MM",
                ),
            }
        }
        checks.integer_in(&field("slot_minutes"), day.slot_minutes, 5..=240);
        checks.integer_in(
            &field("max_covers_per_slot"),
            day.max_covers_per_slot,
            1..=10_000,
        );
        checks.integer_in(
            &field("max_party_size"),
            day.max_party_size,
            1..=MAX_PARTY_SIZE,
        );
        checks.integer_in(&field("stay_minutes"), day.stay_minutes, 15..=720);
    }
    checks.finish()?;
    tx.execute("DELETE FROM reservation_time_slots", [])?;
    for day in &rules.days {
        tx.execute(
            &format!("INSERT INTO reservation_time_slots ({RULE_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
            params![
                day.weekday.index(),
                serde_json::to_string(&day.windows).map_err(ApiError::internal)?,
                day.slot_minutes,
                day.max_covers_per_slot,
                day.max_party_size,
                day.stay_minutes
            ],
        )?;
    }
    get_rules(tx)
}

/// Guests still expected or seated whose booking starts exactly at `at`, and those
/// whose stay overlaps `[at, until)`, leaving out `exclude` (a booking being changed).
fn covers_booked(
    conn: &Connection,
    at: DateTime<Utc>,
    until: DateTime<Utc>,
    exclude: Option<&str>,
) -> Result<(i64, i64), ApiError> {
    Ok(conn.query_row(
        "SELECT COALESCE(SUM(CASE WHEN starts_at = ?1 THEN party_size END), 0), COALESCE(SUM(party_size), 0) \
         FROM reservations WHERE status IN ('pending', 'confirmed', 'checked_in') \
         AND starts_at < ?2 AND ends_at > ?1 AND (?3 IS NULL OR id <> ?3)",
        params![rfc3339(at), rfc3339(until), exclude],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

fn total_seats(conn: &Connection) -> Result<i64, ApiError> {
    Ok(conn.query_row(
        "SELECT COALESCE(SUM(seats), 0) FROM tables WHERE active = 1",
        [],
        |r| r.get(0),
    )?)
}

/// Further guests a slot can take: the slot's cover limit and the seats of the
/// room, less what overlapping bookings hold.
fn remaining_covers(
    conn: &Connection,
    rules: &DayRules,
    at: DateTime<Utc>,
    exclude: Option<&str>,
) -> Result<i64, ApiError> {
    let (at_slot, overlapping) = covers_booked(
        conn,
        at,
        at + Duration::minutes(rules.stay_minutes),
        exclude,
    )?;
    Ok((rules.max_covers_per_slot - at_slot)
        .min(total_seats(conn)? - overlapping)
        .max(0))
}

pub(super) fn local_date_of(settings: &TenantSettings, at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&settings.timezone).date_naive()
}

/// The free slots of a local day for a party, as of `now`.
pub fn availability(
    conn: &Connection,
    date: NaiveDate,
    party_size: i64,
    now: DateTime<Utc>,
) -> Result<Availability, ApiError> {
    let settings = &crate::domain::settings::load(conn)?;
    let mut checks = Checks::new();
    checks.integer_in("party_size", party_size, 1..=MAX_PARTY_SIZE);
    if date < local_date_of(settings, now) {
        checks.fail("date", "must not be in the past");
    }
    checks.finish()?;
    let mut slots = Vec::new();
    if let Some(rules) = rules_for(conn, Weekday::of(date))? {
        if party_size > rules.max_party_size {
            return Err(ApiError::invalid_field(
                "party_size",
                format!(
                    "parties of at most {} can book on this day",
                    rules.max_party_size
                ),
            ));
        }
        for at in slot_starts(&rules, date, settings.timezone) {
            if at <= now {
                continue;
            }
            let remaining = remaining_covers(conn, &rules, at, None)?;
            if remaining >= party_size {
                slots.push(Slot {
                    starts_at: rfc3339(at),
                    remaining_covers: remaining,
                });
            }
        }
    }
    Ok(Availability {
        date: date.format("%Y-%m-%d").to_string(),
        party_size,
        slots,
    })
}

/// Checks a booking against the rules of its day: a future slot start, a party the
/// day accepts (422 otherwise), and room left in the slot (409 otherwise). Returns
/// the start and the expected end.
pub(super) fn check_slot(
    conn: &Connection,
    settings: &TenantSettings,
    starts_at: &str,
    party_size: i64,
    exclude: Option<&str>,
    outside_rules: bool,
    now: DateTime<Utc>,
) -> Result<(DateTime<Utc>, DateTime<Utc>), ApiError> {
    let mut checks = Checks::new();
    checks.integer_in("party_size", party_size, 1..=MAX_PARTY_SIZE);
    let at = parse_rfc3339(starts_at);
    match at {
        None => checks.fail("starts_at", "must be an RFC 3339 timestamp"),
        Some(at) if at <= now => checks.fail("starts_at", "must be in the future"),
        Some(_) => {}
    }
    checks.finish()?;
    let at = at.unwrap_or(now);
    let day_rules = rules_for(conn, Weekday::of(local_date_of(settings, at)))?;
    if outside_rules {
        let stay = day_rules.map_or(STAY_WITHOUT_RULES_MINUTES, |r| r.stay_minutes);
        return Ok((at, at + Duration::minutes(stay)));
    }
    let rules = day_rules.ok_or_else(|| {
        ApiError::invalid_field("starts_at", "the restaurant takes no bookings on that day")
    })?;
    if party_size > rules.max_party_size {
        return Err(ApiError::invalid_field(
            "party_size",
            format!(
                "parties of at most {} can book on this day",
                rules.max_party_size
            ),
        ));
    }
    if !slot_starts(&rules, local_date_of(settings, at), settings.timezone).contains(&at) {
        return Err(ApiError::invalid_field(
            "starts_at",
            "is not a bookable slot of that day; choose one of its free times",
        ));
    }
    let remaining = remaining_covers(conn, &rules, at, exclude)?;
    if remaining < party_size {
        return Err(ApiError::conflict(
            "slot_full",
            format!("the slot has room for {remaining} more guests, not {party_size}"),
        )
        .with("remaining_covers", remaining));
    }
    Ok((at, at + Duration::minutes(rules.stay_minutes)))
}

/// How long a booking made outside the rules on a day without rules is expected to stay.
const STAY_WITHOUT_RULES_MINUTES: i64 = 90;

/// Tables to hold for a booking: each must exist and be in service.
pub(super) fn check_table_ids(
    conn: &Connection,
    ids: Option<&[String]>,
) -> Result<Option<Vec<String>>, ApiError> {
    match ids {
        None => Ok(None),
        Some([]) => Ok(Some(Vec::new())),
        Some(ids) => Ok(Some(
            tables::seatable_tables(conn, ids, "table_ids")?
                .into_iter()
                .map(|t| t.id)
                .collect(),
        )),
    }
}
