//! Attendance SQL: punching in and out, breaks, and reading records back with
//! their minutes.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension, Row};
use uuid::Uuid;

use super::corrections::{refuse_locked, remember_change};
use super::model::*;
use crate::domain::settings;
use crate::domain::staff;
use crate::domain::Tx;
use crate::error::ApiError;
use crate::time::parse_rfc3339;

/// Which records to read: one person's or everyone's, clocked in within `[from, to)`.
#[derive(Debug, Default)]
pub struct RecordFilter {
    pub user_id: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
}

/// The open record of `user_id`, if any, and whether one of its breaks is open.
fn open_record(conn: &Connection, user_id: &str) -> Result<Option<(String, bool)>, ApiError> {
    Ok(conn
        .prepare_cached(
            "SELECT r.id, EXISTS (SELECT 1 FROM attendance_breaks b \
                 WHERE b.record_id = r.id AND b.ended_at IS NULL) \
             FROM attendance_records r WHERE r.user_id = ?1 AND r.clock_out IS NULL",
        )?
        .query_row([user_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

/// Records `punch` for `user_id` at the transaction's time; `device_id` is the
/// paired device of a PIN punch. A punch that does not fit where the person
/// stands is a 409 naming `current_status`.
pub fn punch(
    tx: &Tx,
    user_id: &str,
    punch: Punch,
    device_id: Option<&str>,
) -> Result<AttendanceRecord, ApiError> {
    let open = open_record(tx, user_id)?;
    let state = match open {
        None => PunchState::ClockedOut,
        Some((_, false)) => PunchState::Working,
        Some((_, true)) => PunchState::OnBreak,
    };
    if let Err(why) = state.after(punch) {
        return Err(ApiError::conflict(
            "illegal_transition",
            format!("Cannot {}: {why}.", punch.as_str().replace('_', " ")),
        )
        .with("current_status", state.as_str()));
    }
    let now = tx.now_text().to_string();
    let record_id = match (punch, open) {
        (Punch::ClockIn, _) => {
            let id = Uuid::now_v7().to_string();
            tx.execute(
                "INSERT INTO attendance_records \
                 (id, user_id, clock_in, clock_out, device_id, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, NULL, ?4, ?3, ?3)",
                params![id, user_id, now, device_id],
            )?;
            id
        }
        (_, Some((id, _))) => {
            let before = get_record(tx, &id, tx.now())?;
            refuse_locked(tx, &[&before.clock_in])?;
            match punch {
                Punch::BreakStart => tx.execute(
                    "INSERT INTO attendance_breaks (id, record_id, started_at, ended_at) \
                     VALUES (?1, ?2, ?3, NULL)",
                    params![Uuid::now_v7().to_string(), id, now],
                )?,
                _ => tx.execute(
                    "UPDATE attendance_breaks SET ended_at = ?2 \
                     WHERE record_id = ?1 AND ended_at IS NULL",
                    params![id, now],
                )?,
            };
            if punch == Punch::ClockOut {
                tx.execute(
                    "UPDATE attendance_records SET clock_out = ?2, updated_at = ?2 WHERE id = ?1",
                    params![id, now],
                )?;
                remember_change(
                    tx,
                    &before,
                    "clock_out",
                    (&before.clock_in, Some(&now)),
                    None,
                    None,
                )?;
            }
            id
        }
        (_, None) => return Err(ApiError::internal("a punch passed without an open record")),
    };
    get_record(tx, &record_id, tx.now())
}

const RECORD_COLUMNS: &str =
    "r.id, r.user_id, u.name, r.clock_in, r.clock_out, r.device_id FROM attendance_records r \
     JOIN users u ON u.id = r.user_id";

/// A record with its breaks and minutes, an open one counted up to `now` and
/// flagged when opened before `review_from`.
fn record_from_row(
    conn: &Connection,
    r: &Row,
    now: DateTime<Utc>,
    review_from: DateTime<Utc>,
) -> Result<AttendanceRecord, ApiError> {
    let id: String = r.get(0)?;
    let clock_in: String = r.get(3)?;
    let clock_out: Option<String> = r.get(4)?;
    let breaks: Vec<Break> = conn
        .prepare_cached(
            "SELECT started_at, ended_at FROM attendance_breaks \
             WHERE record_id = ?1 ORDER BY started_at",
        )?
        .query_map([&id], |b| {
            Ok(Break {
                started_at: b.get(0)?,
                ended_at: b.get(1)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    let instant = |text: &str| {
        parse_rfc3339(text).ok_or_else(|| ApiError::internal(format!("stored time {text:?}")))
    };
    let spans = breaks
        .iter()
        .map(|b| {
            Ok((
                instant(&b.started_at)?,
                b.ended_at.as_deref().map(instant).transpose()?,
            ))
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    let end = clock_out
        .as_deref()
        .map(instant)
        .transpose()?
        .unwrap_or(now);
    let opened = instant(&clock_in)?;
    let (worked_minutes, break_minutes) = minutes(opened, end, &spans);
    let needs_review = clock_out.is_none() && opened < review_from;
    Ok(AttendanceRecord {
        id,
        user_id: r.get(1)?,
        user_name: r.get(2)?,
        clock_in,
        clock_out,
        device_id: r.get(5)?,
        breaks,
        worked_minutes,
        break_minutes,
        needs_review,
    })
}

/// Records opened before this instant and still open need review.
fn review_time(conn: &Connection, now: DateTime<Utc>) -> Result<DateTime<Utc>, ApiError> {
    Ok(now - chrono::Duration::hours(settings::load(conn)?.attendance_review_hours))
}

/// How many records are still open past the review time.
pub fn count_needing_review(conn: &Connection, now: DateTime<Utc>) -> Result<i64, ApiError> {
    let before = crate::time::rfc3339(review_time(conn, now)?);
    Ok(conn
        .prepare_cached(
            "SELECT count(*) FROM attendance_records WHERE clock_out IS NULL AND clock_in < ?1",
        )?
        .query_row([before], |r| r.get(0))?)
}

pub fn get_record(
    conn: &Connection,
    id: &str,
    now: DateTime<Utc>,
) -> Result<AttendanceRecord, ApiError> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {RECORD_COLUMNS} WHERE r.id = ?1"))?;
    let mut rows = stmt.query([id])?;
    match rows.next()? {
        Some(row) => record_from_row(conn, row, now, review_time(conn, now)?),
        None => Err(ApiError::not_found("attendance record")),
    }
}

/// Records by clock-in time, oldest first; a `user_id` of no staff member is a 404.
pub fn list_records(
    conn: &Connection,
    filter: &RecordFilter,
    now: DateTime<Utc>,
) -> Result<Vec<AttendanceRecord>, ApiError> {
    if let Some(user_id) = &filter.user_id {
        staff::get_staff(conn, user_id)?;
    }
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RECORD_COLUMNS} WHERE (?1 IS NULL OR r.user_id = ?1) \
         AND (?2 IS NULL OR r.clock_in >= ?2) AND (?3 IS NULL OR r.clock_in < ?3) \
         ORDER BY r.clock_in, r.id"
    ))?;
    let mut rows = stmt.query(params![filter.user_id, filter.from, filter.to])?;
    let review_from = review_time(conn, now)?;
    let mut records = Vec::new();
    while let Some(row) = rows.next()? {
        records.push(record_from_row(conn, row, now, review_from)?);
    }
    Ok(records)
}
