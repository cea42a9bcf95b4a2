//! Shift SQL: drafting, editing and deleting shifts with the overlap rule,
//! publishing a range, copying a week, and reading the schedule back.

use chrono::{DateTime, Duration, Utc};
use rusqlite::{params, Connection, OptionalExtension, Row};
use uuid::Uuid;

use super::model::*;
use crate::auth::Role;
use crate::domain::validate::Checks;
use crate::domain::Tx;
use crate::error::ApiError;
use crate::time::{parse_rfc3339, rfc3339};

/// Which shifts to read, by start time within `[from, to)`. `staff_view` leaves drafts out.
#[derive(Debug, Default)]
pub struct ShiftFilter {
    pub from: Option<String>,
    pub to: Option<String>,
    pub user_id: Option<String>,
    pub status: Option<ShiftStatus>,
    pub staff_view: bool,
}

const COLUMNS: &str = "s.id, s.user_id, u.name, s.role, s.station_id, s.starts_at, s.ends_at, \
     s.break_minutes, s.notes, s.status, s.published_at, s.created_at, s.updated_at \
     FROM shifts s LEFT JOIN users u ON u.id = s.user_id";

fn stored_time(text: &str) -> rusqlite::Result<DateTime<Utc>> {
    parse_rfc3339(text).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, text.into())
    })
}

fn shift_from_row(r: &Row) -> rusqlite::Result<Shift> {
    let unknown = |i, text: String| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, text.into())
    };
    let role: Option<String> = r.get(3)?;
    let status: String = r.get(9)?;
    let starts_at: String = r.get(5)?;
    let ends_at: String = r.get(6)?;
    let break_minutes: i64 = r.get(7)?;
    Ok(Shift {
        id: r.get(0)?,
        user_id: r.get(1)?,
        user_name: r.get(2)?,
        role: role
            .map(|text| text.parse::<Role>().map_err(|e| unknown(3, e)))
            .transpose()?,
        station_id: r.get(4)?,
        scheduled_minutes: scheduled_minutes(
            stored_time(&starts_at)?,
            stored_time(&ends_at)?,
            break_minutes,
        ),
        starts_at,
        ends_at,
        break_minutes,
        notes: r.get(8)?,
        status: ShiftStatus::parse(&status).ok_or_else(|| unknown(9, status.clone()))?,
        published_at: r.get(10)?,
        created_at: r.get(11)?,
        updated_at: r.get(12)?,
    })
}

/// One shift; a draft is not found for a `staff_view`.
pub fn get_shift(conn: &Connection, id: &str, staff_view: bool) -> Result<Shift, ApiError> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} WHERE s.id = ?1"))?
        .query_row([id], shift_from_row)
        .optional()?
        .filter(|shift| !staff_view || shift.status.visible_to_staff())
        .ok_or_else(|| ApiError::not_found("shift"))
}

/// Shifts by start time, then id; up to `limit` of them after the shift `after`.
pub fn list_shifts(
    conn: &Connection,
    filter: &ShiftFilter,
    after: Option<&str>,
    limit: u32,
) -> Result<Vec<Shift>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} WHERE (?1 IS NULL OR s.starts_at >= ?1) \
         AND (?2 IS NULL OR s.starts_at < ?2) AND (?3 IS NULL OR s.user_id = ?3) \
         AND (?4 IS NULL OR s.status = ?4) AND (NOT ?5 OR s.status <> 'draft') \
         AND (?6 IS NULL OR (s.starts_at, s.id) > \
              (SELECT starts_at, id FROM shifts WHERE id = ?6)) \
         ORDER BY s.starts_at, s.id LIMIT ?7"
    ))?;
    let rows = stmt.query_map(
        params![
            filter.from,
            filter.to,
            filter.user_id,
            filter.status.map(ShiftStatus::as_str),
            filter.staff_view,
            after,
            limit,
        ],
        shift_from_row,
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A shift's fields once checked: times parsed, references known.
struct ShiftFields {
    user_id: Option<String>,
    role: Option<Role>,
    station_id: Option<String>,
    starts: DateTime<Utc>,
    ends: DateTime<Utc>,
    break_minutes: i64,
    notes: Option<String>,
}

/// A time field of a request, recorded as a field error when it is not RFC 3339.
fn time_field(checks: &mut Checks, field: &str, text: &str) -> Option<DateTime<Utc>> {
    let parsed = parse_rfc3339(text);
    if parsed.is_none() {
        checks.fail(field, "must be an RFC 3339 timestamp");
    }
    parsed
}

/// Checks the fields of a new or edited shift against each other and the data.
#[allow(clippy::too_many_arguments)]
fn check_fields(
    conn: &Connection,
    user_id: Option<&str>,
    role: Option<Role>,
    station_id: Option<&str>,
    starts_at: Result<DateTime<Utc>, &str>,
    ends_at: Result<DateTime<Utc>, &str>,
    break_minutes: i64,
    notes: Option<&str>,
) -> Result<ShiftFields, ApiError> {
    let mut checks = Checks::new();
    let user_id = user_id.map(|id| checks.id("user_id", id));
    let station_id = station_id.map(|id| checks.id("station_id", id));
    let starts = starts_at.map_or_else(|text| time_field(&mut checks, "starts_at", text), Some);
    let ends = ends_at.map_or_else(|text| time_field(&mut checks, "ends_at", text), Some);
    let notes = checks.optional_text("notes", notes, 500);
    checks.integer_in("break_minutes", break_minutes, 0..=1440);
    if let (Some(starts), Some(ends)) = (starts, ends) {
        if ends <= starts {
            checks.fail("ends_at", "must be after starts_at");
        } else if ends - starts > Duration::hours(24) {
            checks.fail("ends_at", "must be at most 24 hours after starts_at");
        } else if break_minutes >= (ends - starts).num_minutes() {
            checks.fail("break_minutes", "must be shorter than the shift");
        }
    }
    if user_id.is_none() && role.is_none() && station_id.is_none() {
        checks.fail("user_id", "an open shift needs a role or a station_id");
    }
    if checks.is_ok() {
        if let Some(id) = &user_id {
            let active: Option<bool> = conn
                .prepare_cached("SELECT active FROM users WHERE id = ?1")?
                .query_row([id], |r| r.get(0))
                .optional()?;
            match active {
                None => checks.fail("user_id", "no staff member has this id"),
                Some(false) => checks.fail("user_id", "this staff member is deactivated"),
                Some(true) => {}
            }
        }
        if let Some(id) = &station_id {
            let known: bool = conn
                .prepare_cached("SELECT EXISTS (SELECT 1 FROM kitchen_stations WHERE id = ?1)")?
                .query_row([id], |r| r.get(0))?;
            if !known {
                checks.fail("station_id", "no station has this id");
            }
        }
    }
    checks.finish()?;
    Ok(ShiftFields {
        user_id,
        role,
        station_id,
        starts: starts.expect("checked"),
        ends: ends.expect("checked"),
        break_minutes,
        notes,
    })
}

/// The person's shift that shares time with `[starts, ends)`, other than `except`.
fn overlapping(
    conn: &Connection,
    user_id: &str,
    starts: &str,
    ends: &str,
    except: Option<&str>,
) -> Result<Option<ShiftTimes>, ApiError> {
    Ok(conn
        .prepare_cached(
            "SELECT id, starts_at, ends_at FROM shifts WHERE user_id = ?1 \
             AND starts_at < ?3 AND ends_at > ?2 AND (?4 IS NULL OR id <> ?4) \
             ORDER BY starts_at LIMIT 1",
        )?
        .query_row(params![user_id, starts, ends, except], |r| {
            Ok(ShiftTimes {
                id: r.get(0)?,
                starts_at: r.get(1)?,
                ends_at: r.get(2)?,
            })
        })
        .optional()?)
}

/// 409 `shift_overlap` naming the other shift, when the person already works then.
fn refuse_overlap(
    conn: &Connection,
    fields: &ShiftFields,
    except: Option<&str>,
) -> Result<(), ApiError> {
    let Some(user_id) = &fields.user_id else {
        return Ok(());
    };
    let (starts, ends) = (rfc3339(fields.starts), rfc3339(fields.ends));
    match overlapping(conn, user_id, &starts, &ends, except)? {
        None => Ok(()),
        Some(other) => Err(ApiError::conflict(
            "shift_overlap",
            format!(
                "This person already has shift {} from {} to {}.",
                other.id, other.starts_at, other.ends_at
            ),
        )
        .with(
            "other_shift",
            serde_json::json!({"id": other.id, "starts_at": other.starts_at, "ends_at": other.ends_at}),
        )),
    }
}

fn insert_fields(tx: &Tx, fields: &ShiftFields) -> Result<String, ApiError> {
    let id = Uuid::now_v7().to_string();
    tx.execute(
        "INSERT INTO shifts (id, user_id, role, station_id, starts_at, ends_at, break_minutes, \
         notes, status, published_at, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'draft', NULL, ?9, ?9)",
        params![
            id,
            fields.user_id,
            fields.role.map(Role::as_str),
            fields.station_id,
            rfc3339(fields.starts),
            rfc3339(fields.ends),
            fields.break_minutes,
            fields.notes,
            tx.now_text(),
        ],
    )?;
    Ok(id)
}

/// Drafts a shift; staff see it once it is published.
pub fn insert_shift(tx: &Tx, new: &NewShift) -> Result<Shift, ApiError> {
    let fields = check_fields(
        tx,
        new.user_id.as_deref(),
        new.role,
        new.station_id.as_deref(),
        Err(&new.starts_at),
        Err(&new.ends_at),
        new.break_minutes.unwrap_or(0),
        new.notes.as_deref(),
    )?;
    refuse_overlap(tx, &fields, None)?;
    let id = insert_fields(tx, &fields)?;
    get_shift(tx, &id, false)
}

/// Changes a shift; a published one becomes `changed` until published again.
pub fn update_shift(tx: &Tx, id: &str, patch: &ShiftPatch) -> Result<Shift, ApiError> {
    let shift = get_shift(tx, id, false)?;
    let current = |text: &str| stored_time(text).map_err(ApiError::from);
    let starts_at = match &patch.starts_at {
        Some(text) => Err(text.as_str()),
        None => Ok(current(&shift.starts_at)?),
    };
    let ends_at = match &patch.ends_at {
        Some(text) => Err(text.as_str()),
        None => Ok(current(&shift.ends_at)?),
    };
    let fields = check_fields(
        tx,
        patch.user_id.clone().unwrap_or(shift.user_id).as_deref(),
        patch.role.unwrap_or(shift.role),
        patch
            .station_id
            .clone()
            .unwrap_or(shift.station_id)
            .as_deref(),
        starts_at,
        ends_at,
        patch.break_minutes.unwrap_or(shift.break_minutes),
        patch.notes.clone().unwrap_or(shift.notes).as_deref(),
    )?;
    refuse_overlap(tx, &fields, Some(id))?;
    tx.execute(
        "UPDATE shifts SET user_id = ?2, role = ?3, station_id = ?4, starts_at = ?5, \
         ends_at = ?6, break_minutes = ?7, notes = ?8, status = ?9, updated_at = ?10 \
         WHERE id = ?1",
        params![
            id,
            fields.user_id,
            fields.role.map(Role::as_str),
            fields.station_id,
            rfc3339(fields.starts),
            rfc3339(fields.ends),
            fields.break_minutes,
            fields.notes,
            shift.status.after_edit().as_str(),
            tx.now_text(),
        ],
    )?;
    get_shift(tx, id, false)
}

pub fn delete_shift(tx: &Tx, id: &str) -> Result<(), ApiError> {
    get_shift(tx, id, false)?;
    tx.execute("DELETE FROM shifts WHERE id = ?1", [id])?;
    Ok(())
}

/// Publishes the drafts and changed shifts starting within `[from, to)`.
pub fn publish(tx: &Tx, range: &PublishRange) -> Result<Published, ApiError> {
    let mut checks = Checks::new();
    let from = time_field(&mut checks, "from", &range.from);
    let to = time_field(&mut checks, "to", &range.to);
    if let (Some(from), Some(to)) = (from, to) {
        if to <= from {
            checks.fail("to", "must be after from");
        }
    }
    checks.finish()?;
    let (from, to) = (
        rfc3339(from.expect("checked")),
        rfc3339(to.expect("checked")),
    );
    let ids: Vec<String> = tx
        .prepare_cached(
            "UPDATE shifts SET status = 'published', published_at = ?3, updated_at = ?3 \
             WHERE status <> 'published' AND starts_at >= ?1 AND starts_at < ?2 RETURNING id",
        )?
        .query_map(params![from, to, tx.now_text()], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut published = ids
        .iter()
        .map(|id| get_shift(tx, id, false))
        .collect::<Result<Vec<_>, _>>()?;
    published.sort_by(|a, b| (&a.starts_at, &a.id).cmp(&(&b.starts_at, &b.id)));
    Ok(Published { published })
}

/// Copies the shifts of the local week starting `from_week` to the week starting
/// `to_week` as drafts at the same local times; a copy its person could not work
/// (it overlaps one of their shifts) is skipped and named.
pub fn copy_week(tx: &Tx, copy: &CopyWeek) -> Result<CopiedWeek, ApiError> {
    let mut checks = Checks::new();
    let from_week = parse_monday(&copy.from_week).map_err(|m| checks.fail("from_week", m));
    let to_week = parse_monday(&copy.to_week).map_err(|m| checks.fail("to_week", m));
    if from_week.is_ok() && from_week == to_week {
        checks.fail("to_week", "must be another week than from_week");
    }
    checks.finish()?;
    let (from_week, to_week) = (from_week.expect("checked"), to_week.expect("checked"));
    let zone = tx.settings()?.timezone;
    let days = (to_week - from_week).num_days();
    let source = list_shifts(
        tx,
        &ShiftFilter {
            from: Some(rfc3339(local_midnight(&zone, from_week))),
            to: Some(rfc3339(local_midnight(
                &zone,
                from_week + Duration::days(7),
            ))),
            ..ShiftFilter::default()
        },
        None,
        u32::MAX,
    )?;
    let mut copied = CopiedWeek {
        created: Vec::new(),
        skipped: Vec::new(),
    };
    for shift in source {
        let starts = shift_days(&zone, stored_time(&shift.starts_at)?, days);
        let ends = starts + (stored_time(&shift.ends_at)? - stored_time(&shift.starts_at)?);
        let fields = ShiftFields {
            user_id: shift.user_id.clone(),
            role: shift.role,
            station_id: shift.station_id.clone(),
            starts,
            ends,
            break_minutes: shift.break_minutes,
            notes: shift.notes.clone(),
        };
        let clash = match &fields.user_id {
            Some(user_id) => overlapping(tx, user_id, &rfc3339(starts), &rfc3339(ends), None)?,
            None => None,
        };
        match clash {
            Some(other) => copied.skipped.push(SkippedShift {
                source_id: shift.id,
                user_id: shift.user_id,
                starts_at: rfc3339(starts),
                ends_at: rfc3339(ends),
                overlaps: other,
            }),
            None => {
                let id = insert_fields(tx, &fields)?;
                copied.created.push(get_shift(tx, &id, false)?);
            }
        }
    }
    Ok(copied)
}

/// How many of today's shifts (the business day of `now`) started 15 minutes or
/// more ago without their person clocking in since the start.
pub fn count_unstaffed(conn: &Connection, now: DateTime<Utc>) -> Result<i64, ApiError> {
    let settings = crate::domain::settings::load(conn)?;
    let day_start = local_midnight(&settings.timezone, settings.business_date(now))
        + Duration::hours(settings.business_day_start_hour);
    Ok(conn
        .prepare_cached(
            "SELECT count(*) FROM shifts s WHERE s.user_id IS NOT NULL \
             AND s.status <> 'draft' AND s.starts_at >= ?1 AND s.starts_at <= ?2 \
             AND NOT EXISTS (SELECT 1 FROM attendance_records r \
                 WHERE r.user_id = s.user_id AND r.clock_in < s.ends_at \
                 AND (r.clock_out IS NULL OR r.clock_out > s.starts_at))",
        )?
        .query_row(
            params![
                rfc3339(day_start),
                rfc3339(now - Duration::minutes(UNSTAFFED_AFTER_MINUTES)),
            ],
            |r| r.get(0),
        )?)
}

/// Minutes after its start a shift without its person clocked in counts as unstaffed.
pub const UNSTAFFED_AFTER_MINUTES: i64 = 15;
