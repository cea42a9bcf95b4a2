//! Changing punches after the fact: a staff member's corrections that wait for a
//! manager, a manager's direct edits, the history every change leaves, and the
//! payroll lock that closes a period to all of them.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension, Row};
use uuid::Uuid;

use super::model::*;
use super::punches::get_record;
use crate::domain::validate::Checks;
use crate::domain::Tx;
use crate::error::ApiError;
use crate::time::{parse_rfc3339, rfc3339};

/// New punch times, checked and normalised: each a past instant.
struct Times {
    clock_in: Option<String>,
    clock_out: Option<String>,
    reason: String,
}

fn check_times(change: &PunchChange, now: DateTime<Utc>) -> Result<Times, ApiError> {
    let mut checks = Checks::new();
    let reason = checks.text("reason", &change.reason, 500);
    let mut instant = |field: &str, value: Option<&str>| {
        let value = value?;
        match parse_rfc3339(value) {
            Some(at) if at > now => {
                checks.fail(field, "must not be in the future");
                None
            }
            Some(at) => Some(rfc3339(at)),
            None => {
                checks.fail(field, "must be an RFC 3339 timestamp");
                None
            }
        }
    };
    let clock_in = instant("clock_in", change.clock_in.as_deref());
    let clock_out = instant("clock_out", change.clock_out.as_deref());
    if change.clock_in.is_none() && change.clock_out.is_none() {
        checks.fail("clock_in", "give clock_in, clock_out or both");
    }
    checks.finish()?;
    Ok(Times {
        clock_in,
        clock_out,
        reason,
    })
}

/// The record's punches after `times`, refused with field errors when they do
/// not make a coherent record: clock-out after clock-in, its breaks inside, and
/// no overlap with the person's other records.
fn coherent(
    conn: &Connection,
    record: &AttendanceRecord,
    times: &Times,
) -> Result<(String, Option<String>), ApiError> {
    let clock_in = times
        .clock_in
        .clone()
        .unwrap_or_else(|| record.clock_in.clone());
    let clock_out = times.clock_out.clone().or_else(|| record.clock_out.clone());
    let mut checks = Checks::new();
    let field_of_end = if times.clock_out.is_some() {
        "clock_out"
    } else {
        "clock_in"
    };
    if let Some(out) = &clock_out {
        if *out <= clock_in {
            checks.fail(field_of_end, "clock_out must be after clock_in");
        }
    }
    for b in &record.breaks {
        let outside = b.started_at < clock_in
            || clock_out
                .as_ref()
                .is_some_and(|out| b.ended_at.as_ref().unwrap_or(out) > out);
        if outside {
            checks.fail(
                field_of_end,
                format!(
                    "the break from {} must stay within the record",
                    b.started_at
                ),
            );
        }
    }
    let overlapping: Option<String> = conn
        .prepare_cached(
            "SELECT id FROM attendance_records WHERE user_id = ?1 AND id <> ?2 \
             AND (?4 IS NULL OR clock_in < ?4) AND (clock_out IS NULL OR clock_out > ?3) \
             ORDER BY clock_in LIMIT 1",
        )?
        .query_row(
            params![record.user_id, record.id, clock_in, clock_out],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(other) = overlapping {
        checks.fail(
            field_of_end,
            format!("overlaps the person's attendance record {other}"),
        );
    }
    checks.finish()?;
    Ok((clock_in, clock_out))
}

/// The lock's instant, if any period is locked.
fn locked_until(conn: &Connection) -> Result<Option<String>, ApiError> {
    Ok(conn
        .prepare_cached("SELECT locked_until FROM attendance_lock WHERE id = 1")?
        .query_row([], |r| r.get(0))
        .optional()?)
}

/// Refuses a change touching a record that starts (or would start) in the
/// locked period.
pub fn refuse_locked(conn: &Connection, clock_ins: &[&str]) -> Result<(), ApiError> {
    if let Some(until) = locked_until(conn)? {
        if clock_ins.iter().any(|at| **at < *until) {
            return Err(ApiError::conflict(
                "period_locked",
                format!("Attendance before {until} is locked for payroll."),
            )
            .with("locked_until", until));
        }
    }
    Ok(())
}

/// Refuses new times for a record in the locked period, or moving one into it.
fn refuse_locked_times(
    conn: &Connection,
    record: &AttendanceRecord,
    times: &Times,
) -> Result<(), ApiError> {
    let mut starts = vec![record.clock_in.as_str()];
    starts.extend(times.clock_in.as_deref());
    refuse_locked(conn, &starts)
}

/// Writes one history entry for a change to `record` made now by the actor.
pub fn remember_change(
    tx: &Tx,
    record: &AttendanceRecord,
    change: &str,
    after: (&str, Option<&str>),
    reason: Option<&str>,
    correction_id: Option<&str>,
) -> Result<(), ApiError> {
    tx.execute(
        "INSERT INTO attendance_history (id, record_id, change, clock_in_before, clock_in_after, \
         clock_out_before, clock_out_after, changed_by, changed_at, reason, correction_id) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            Uuid::now_v7().to_string(),
            record.id,
            change,
            record.clock_in,
            after.0,
            record.clock_out,
            after.1,
            tx.actor(),
            tx.now_text(),
            reason,
            correction_id
        ],
    )?;
    Ok(())
}

/// Sets the record's punches to `times` after the checks, with its history entry.
fn apply(
    tx: &Tx,
    record: &AttendanceRecord,
    times: &Times,
    change: &str,
    correction_id: Option<&str>,
) -> Result<AttendanceRecord, ApiError> {
    refuse_locked_times(tx, record, times)?;
    let (clock_in, clock_out) = coherent(tx, record, times)?;
    tx.execute(
        "UPDATE attendance_records SET clock_in = ?2, clock_out = ?3, updated_at = ?4 WHERE id = ?1",
        params![record.id, clock_in, clock_out, tx.now_text()],
    )?;
    remember_change(
        tx,
        record,
        change,
        (&clock_in, clock_out.as_deref()),
        Some(&times.reason),
        correction_id,
    )?;
    get_record(tx, &record.id, tx.now())
}

/// A manager's direct edit of a record's punches, kept in its history with who and why.
pub fn edit_record(
    tx: &Tx,
    record_id: &str,
    change: &PunchChange,
) -> Result<AttendanceRecord, ApiError> {
    let record = get_record(tx, record_id, tx.now())?;
    let times = check_times(change, tx.now())?;
    apply(tx, &record, &times, "edit", None)
}

/// Files `user_id`'s correction of their own record; another person's record is
/// a 404, as if it did not exist.
pub fn request_correction(
    tx: &Tx,
    user_id: &str,
    record_id: &str,
    change: &PunchChange,
) -> Result<Correction, ApiError> {
    let record = get_record(tx, record_id, tx.now())?;
    if record.user_id != user_id {
        return Err(ApiError::not_found("attendance record"));
    }
    let times = check_times(change, tx.now())?;
    refuse_locked_times(tx, &record, &times)?;
    coherent(tx, &record, &times)?;
    let id = Uuid::now_v7().to_string();
    tx.execute(
        "INSERT INTO attendance_corrections \
         (id, record_id, user_id, clock_in, clock_out, reason, status, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', ?7)",
        params![
            id,
            record.id,
            user_id,
            times.clock_in,
            times.clock_out,
            times.reason,
            tx.now_text()
        ],
    )?;
    get_correction(tx, &id)
}

/// Approves or rejects a pending correction. Approval changes the record (with
/// the same checks as a manager's edit, and the lock); rejection leaves it.
pub fn decide_correction(
    tx: &Tx,
    id: &str,
    to: CorrectionStatus,
    decision: &Decision,
) -> Result<Correction, ApiError> {
    let mut checks = Checks::new();
    let note = checks.optional_text("note", decision.note.as_deref(), 500);
    checks.finish()?;
    let correction = get_correction(tx, id)?;
    correction.status.decide(to)?;
    if to == CorrectionStatus::Approved {
        let record = get_record(tx, &correction.record_id, tx.now())?;
        let times = Times {
            clock_in: correction.clock_in.clone(),
            clock_out: correction.clock_out.clone(),
            reason: correction.reason.clone(),
        };
        apply(tx, &record, &times, "correction", Some(&correction.id))?;
    }
    tx.execute(
        "UPDATE attendance_corrections SET status = ?2, decided_by = ?3, decided_at = ?4, \
         note = ?5 WHERE id = ?1",
        params![id, to.as_str(), tx.actor(), tx.now_text(), note],
    )?;
    get_correction(tx, id)
}

const CORRECTION_COLUMNS: &str = "c.id, c.record_id, c.user_id, u.name, c.clock_in, c.clock_out, \
     c.reason, c.status, c.decided_by, c.decided_at, c.note, c.created_at \
     FROM attendance_corrections c JOIN users u ON u.id = c.user_id";

fn correction_from_row(r: &Row) -> rusqlite::Result<Correction> {
    let status: String = r.get(7)?;
    Ok(Correction {
        id: r.get(0)?,
        record_id: r.get(1)?,
        user_id: r.get(2)?,
        user_name: r.get(3)?,
        clock_in: r.get(4)?,
        clock_out: r.get(5)?,
        reason: r.get(6)?,
        status: CorrectionStatus::parse(&status).unwrap_or(CorrectionStatus::Pending),
        decided_by: r.get(8)?,
        decided_at: r.get(9)?,
        note: r.get(10)?,
        created_at: r.get(11)?,
    })
}

pub fn get_correction(conn: &Connection, id: &str) -> Result<Correction, ApiError> {
    conn.prepare_cached(&format!("SELECT {CORRECTION_COLUMNS} WHERE c.id = ?1"))?
        .query_row([id], correction_from_row)
        .optional()?
        .ok_or_else(|| ApiError::not_found("correction"))
}

/// Corrections oldest first, `limit + 1` of them after `cursor`, of one person
/// or everyone's.
pub fn list_corrections(
    conn: &Connection,
    user_id: Option<&str>,
    status: Option<CorrectionStatus>,
    cursor: Option<&str>,
    limit: u32,
) -> Result<Vec<Correction>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {CORRECTION_COLUMNS} WHERE (?1 IS NULL OR c.user_id = ?1) \
         AND (?2 IS NULL OR c.status = ?2) AND (?3 IS NULL OR c.id > ?3) \
         ORDER BY c.id LIMIT ?4"
    ))?;
    let rows = stmt.query_map(
        params![user_id, status.map(|s| s.as_str()), cursor, limit + 1],
        correction_from_row,
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn count_pending_corrections(conn: &Connection) -> Result<i64, ApiError> {
    Ok(conn
        .prepare_cached("SELECT count(*) FROM attendance_corrections WHERE status = 'pending'")?
        .query_row([], |r| r.get(0))?)
}

/// The record's changes, oldest first.
pub fn history(conn: &Connection, record_id: &str) -> Result<Vec<HistoryEntry>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, record_id, change, clock_in_before, clock_in_after, clock_out_before, \
         clock_out_after, changed_by, changed_at, reason, correction_id \
         FROM attendance_history WHERE record_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([record_id], |r| {
        Ok(HistoryEntry {
            id: r.get(0)?,
            record_id: r.get(1)?,
            change: r.get(2)?,
            clock_in_before: r.get(3)?,
            clock_in_after: r.get(4)?,
            clock_out_before: r.get(5)?,
            clock_out_after: r.get(6)?,
            changed_by: r.get(7)?,
            changed_at: r.get(8)?,
            reason: r.get(9)?,
            correction_id: r.get(10)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn get_lock(conn: &Connection) -> Result<AttendanceLock, ApiError> {
    Ok(conn
        .prepare_cached(
            "SELECT locked_until, locked_by, locked_at FROM attendance_lock WHERE id = 1",
        )?
        .query_row([], |r| {
            Ok(AttendanceLock {
                locked_until: r.get(0)?,
                locked_by: r.get(1)?,
                locked_at: r.get(2)?,
            })
        })
        .optional()?
        .unwrap_or(AttendanceLock {
            locked_until: None,
            locked_by: None,
            locked_at: None,
        }))
}

/// Locks attendance before `until` for payroll. The lock only moves forward.
pub fn lock(tx: &Tx, request: &LockRequest) -> Result<AttendanceLock, ApiError> {
    let until = match parse_rfc3339(&request.until) {
        Some(at) if at > tx.now() => {
            return Err(ApiError::invalid_field(
                "until",
                "must not be in the future",
            ))
        }
        Some(at) => rfc3339(at),
        None => {
            return Err(ApiError::invalid_field(
                "until",
                "must be an RFC 3339 timestamp",
            ))
        }
    };
    if let Some(current) = locked_until(tx)? {
        if until < current {
            return Err(ApiError::conflict(
                "lock_moves_forward_only",
                format!("Attendance is locked until {current}; the lock cannot move back."),
            )
            .with("locked_until", current));
        }
    }
    tx.execute(
        "INSERT INTO attendance_lock (id, locked_until, locked_by, locked_at) \
         VALUES (1, ?1, ?2, ?3) ON CONFLICT (id) DO UPDATE SET \
         locked_until = excluded.locked_until, locked_by = excluded.locked_by, \
         locked_at = excluded.locked_at",
        params![until, tx.actor(), tx.now_text()],
    )?;
    get_lock(tx)
}
