//! The reservation lifecycle: booking, changes, confirmation, cancellation,
//! check-in (queued or seated), completion after the visit and no-shows, each
//! move emitted as its `reservation.*` event.

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use rusqlite::{params, Connection, OptionalExtension, Row};
use uuid::Uuid;

use super::model::*;
use super::rules::{check_slot, check_table_ids};
use crate::domain::dining::queue::{self, Arrival};
use crate::domain::dining::sessions::{self, Seating};
use crate::domain::event::{Event, ReservationData};
use crate::domain::settings::TenantSettings;
use crate::domain::validate::Checks;
use crate::domain::Tx;
use crate::error::ApiError;
use crate::time::{parse_rfc3339, rfc3339};

const RESERVATION_COLUMNS: &str =
    "id, status, name, phone, email, party_size, starts_at, ends_at, notes, table_ids, \
     source, cancelled_by, cancel_reason, queue_ticket_id, session_id, created_at, updated_at";

fn party(text: Option<String>) -> Option<Party> {
    match text.as_deref() {
        Some("customer") => Some(Party::Customer),
        Some("staff") => Some(Party::Staff),
        _ => None,
    }
}

fn reservation_from_row(r: &Row) -> rusqlite::Result<Reservation> {
    let status: String = r.get(1)?;
    let table_ids: String = r.get(9)?;
    Ok(Reservation {
        id: r.get(0)?,
        status: ReservationStatus::parse(&status).unwrap_or(ReservationStatus::Cancelled),
        name: r.get(2)?,
        phone: r.get(3)?,
        email: r.get(4)?,
        party_size: r.get(5)?,
        starts_at: r.get(6)?,
        ends_at: r.get(7)?,
        notes: r.get(8)?,
        table_ids: serde_json::from_str(&table_ids).unwrap_or_default(),
        source: party(r.get(10)?).unwrap_or(Party::Staff),
        cancelled_by: party(r.get(11)?),
        cancel_reason: r.get(12)?,
        queue_ticket_id: r.get(13)?,
        session_id: r.get(14)?,
        created_at: r.get(15)?,
        updated_at: r.get(16)?,
    })
}

pub fn get_reservation(conn: &Connection, id: &str) -> Result<Reservation, ApiError> {
    conn.query_row(
        &format!("SELECT {RESERVATION_COLUMNS} FROM reservations WHERE id = ?1"),
        [id],
        reservation_from_row,
    )
    .optional()?
    .ok_or_else(|| ApiError::not_found("reservation"))
}

/// By start time; `date` is a local calendar day of the tenant.
pub fn list_reservations(
    conn: &Connection,
    settings: &TenantSettings,
    date: Option<NaiveDate>,
    status: Option<ReservationStatus>,
    after: Option<&str>,
    limit: u32,
) -> Result<Vec<Reservation>, ApiError> {
    let bounds = date.map(|d| {
        let start = |d: NaiveDate| {
            settings
                .timezone
                .from_local_datetime(&d.and_time(chrono::NaiveTime::MIN))
                .earliest()
                .map(|t| rfc3339(t.with_timezone(&Utc)))
        };
        (start(d), d.succ_opt().and_then(start))
    });
    let (from, to) = bounds.unwrap_or((None, None));
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RESERVATION_COLUMNS} FROM reservations WHERE (?1 IS NULL OR starts_at >= ?1) \
         AND (?2 IS NULL OR starts_at < ?2) AND (?3 IS NULL OR status = ?3) \
         AND (?4 IS NULL OR (starts_at, id) > (SELECT starts_at, id FROM reservations WHERE id = ?4)) \
         ORDER BY starts_at, id LIMIT ?5"
    ))?;
    let rows = stmt.query_map(
        params![
            from,
            to,
            status.map(ReservationStatus::as_str),
            after,
            limit + 1
        ],
        reservation_from_row,
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn emit(
    tx: &mut Tx,
    event: fn(ReservationData) -> Event,
    id: &str,
) -> Result<Reservation, ApiError> {
    let reservation = get_reservation(tx, id)?;
    tx.emit(event(reservation.event_data()))?;
    Ok(reservation)
}

/// Books a table. The booking waits for staff to confirm it unless the tenant
/// confirms automatically; `reservation.created` is recorded, then
/// `reservation.confirmed` when confirmed at once.
pub fn create_reservation(
    tx: &mut Tx,
    new: &NewReservation,
    source: Party,
) -> Result<Reservation, ApiError> {
    let now = tx.now();
    let settings = tx.settings()?.clone();
    let mut checks = Checks::new();
    let name = checks.text("name", &new.name, 120);
    let phone = checks.text("phone", &new.phone, 40);
    let email = checks.optional_email("email", new.email.as_deref());
    let notes = checks.optional_text("notes", new.notes.as_deref(), 1000);
    checks.finish()?;
    let (starts_at, ends_at) = check_slot(
        tx,
        &settings,
        &new.starts_at,
        new.party_size,
        None,
        new.outside_rules,
        now,
    )?;
    let table_ids = check_table_ids(tx, new.table_ids.as_deref())?.unwrap_or_default();
    let id = Uuid::now_v7().to_string();
    tx.execute(
        &format!("INSERT INTO reservations ({RESERVATION_COLUMNS}) VALUES (?1, 'pending', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, NULL, NULL, NULL, NULL, ?11, ?11)"),
        params![
            id,
            name,
            phone,
            email,
            new.party_size,
            rfc3339(starts_at),
            rfc3339(ends_at),
            notes,
            serde_json::to_string(&table_ids).map_err(ApiError::internal)?,
            source.as_str(),
            rfc3339(now)
        ],
    )?;
    let created = emit(tx, Event::ReservationCreated, &id)?;
    if settings.auto_confirm_reservations {
        return change_status(tx, &id, ReservationStatus::Confirmed);
    }
    Ok(created)
}

/// Changes a booking that is still pending or confirmed; a new time or party size
/// is checked against the slot rules again.
pub fn update_reservation(
    tx: &mut Tx,
    id: &str,
    patch: &ReservationPatch,
) -> Result<Reservation, ApiError> {
    let now = tx.now();
    let current = get_reservation(tx, id)?;
    if !matches!(
        current.status,
        ReservationStatus::Pending | ReservationStatus::Confirmed
    ) {
        return Err(ApiError::conflict(
            "reservation_closed",
            format!(
                "the reservation is {}; it can no longer change",
                current.status.as_str()
            ),
        )
        .with("current_status", current.status.as_str()));
    }
    let mut checks = Checks::new();
    let name = patch
        .name
        .as_deref()
        .map(|n| checks.text("name", n, 120))
        .unwrap_or(current.name);
    let phone = patch
        .phone
        .as_deref()
        .map(|p| checks.text("phone", p, 40))
        .unwrap_or(current.phone);
    let email = match &patch.email {
        Some(e) => checks.optional_email("email", e.as_deref()),
        None => current.email,
    };
    let notes = match &patch.notes {
        Some(n) => checks.optional_text("notes", n.as_deref(), 1000),
        None => current.notes,
    };
    checks.finish()?;
    let party_size = patch.party_size.unwrap_or(current.party_size);
    let starts_at = patch.starts_at.clone().unwrap_or(current.starts_at);
    let ends_at = if patch.party_size.is_some() || patch.starts_at.is_some() {
        let (_, ends_at) = check_slot(
            tx,
            tx.settings()?,
            &starts_at,
            party_size,
            Some(id),
            patch.outside_rules,
            now,
        )?;
        rfc3339(ends_at)
    } else {
        current.ends_at
    };
    let starts_at = parse_rfc3339(&starts_at).map(rfc3339).unwrap_or(starts_at);
    let table_ids = check_table_ids(tx, patch.table_ids.as_deref())?.unwrap_or(current.table_ids);
    tx.execute(
        "UPDATE reservations SET name = ?2, phone = ?3, email = ?4, notes = ?5, party_size = ?6, starts_at = ?7, \
         ends_at = ?8, table_ids = ?9, updated_at = ?10 WHERE id = ?1",
        params![
            id,
            name,
            phone,
            email,
            notes,
            party_size,
            starts_at,
            ends_at,
            serde_json::to_string(&table_ids).map_err(ApiError::internal)?,
            rfc3339(now)
        ],
    )?;
    // A new start time moves the no-show deadline.
    tx.reschedule();
    get_reservation(tx, id)
}

fn event_for(status: ReservationStatus) -> fn(ReservationData) -> Event {
    match status {
        ReservationStatus::Pending => Event::ReservationCreated,
        ReservationStatus::Confirmed => Event::ReservationConfirmed,
        ReservationStatus::CheckedIn => Event::ReservationCheckedIn,
        ReservationStatus::Completed => Event::ReservationCompleted,
        ReservationStatus::Cancelled => Event::ReservationCancelled,
        ReservationStatus::NoShow => Event::ReservationNoShow,
    }
}

/// Moves the reservation along its lifecycle and records the event of the move.
pub fn change_status(
    tx: &mut Tx,
    id: &str,
    next: ReservationStatus,
) -> Result<Reservation, ApiError> {
    let current = get_reservation(tx, id)?;
    if !current.status.can_become(next) {
        return Err(ApiError::illegal_transition(
            "the reservation",
            current.status.as_str(),
            next.as_str(),
        ));
    }
    tx.execute(
        "UPDATE reservations SET status = ?2, updated_at = ?3 WHERE id = ?1",
        params![id, next.as_str(), tx.now_text()],
    )?;
    emit(tx, event_for(next), id)
}

pub fn cancel(tx: &mut Tx, id: &str, cancellation: &Cancellation) -> Result<Reservation, ApiError> {
    let mut checks = Checks::new();
    let reason = checks.optional_text("reason", cancellation.reason.as_deref(), 500);
    checks.finish()?;
    let current = get_reservation(tx, id)?;
    if !current.status.can_become(ReservationStatus::Cancelled) {
        return Err(ApiError::illegal_transition(
            "the reservation",
            current.status.as_str(),
            "cancelled",
        ));
    }
    tx.execute(
        "UPDATE reservations SET cancelled_by = ?2, cancel_reason = ?3 WHERE id = ?1",
        params![id, cancellation.by.as_str(), reason],
    )?;
    change_status(tx, id, ReservationStatus::Cancelled)
}

/// The party arrived: it joins the waitlist or sits down at once. Either way the
/// reservation is checked in, linked to its ticket or session.
pub fn check_in(tx: &mut Tx, id: &str, request: &CheckIn) -> Result<CheckInResult, ApiError> {
    let current = get_reservation(tx, id)?;
    if !current.status.can_become(ReservationStatus::CheckedIn) {
        return Err(ApiError::illegal_transition(
            "the reservation",
            current.status.as_str(),
            "checked_in",
        ));
    }
    match request.mode {
        CheckInMode::Seat => {
            let table_ids = request.table_ids.clone().unwrap_or(current.table_ids);
            if table_ids.is_empty() {
                return Err(ApiError::invalid_field(
                    "table_ids",
                    "no tables are held for the reservation; name them",
                ));
            }
            let session = sessions::open_session(
                tx,
                Seating {
                    table_ids: &table_ids,
                    party_size: current.party_size,
                    queue_ticket_id: None,
                    reservation_id: Some(id.to_string()),
                },
            )?;
            Ok(CheckInResult {
                reservation: get_reservation(tx, id)?,
                session: Some(session),
                queue_ticket: None,
            })
        }
        CheckInMode::Queue => {
            if request.table_ids.is_some() {
                return Err(ApiError::invalid_field("table_ids", "only for mode seat"));
            }
            let arrival = Arrival {
                name: current.name.clone(),
                phone: Some(current.phone.clone()),
                notes: current.notes.clone(),
                party_size: current.party_size,
                reservation_id: Some(id.to_string()),
            };
            let ticket = queue::create_ticket(tx, arrival)?;
            tx.execute(
                "UPDATE reservations SET queue_ticket_id = ?2 WHERE id = ?1",
                params![id, ticket.id],
            )?;
            let reservation = change_status(tx, id, ReservationStatus::CheckedIn)?;
            Ok(CheckInResult {
                reservation,
                session: None,
                queue_ticket: Some(ticket),
            })
        }
    }
}

/// Links a session just opened for the reservation: a confirmed one is checked in
/// now; one checked in to the queue earlier is now seated.
pub fn attach_session(tx: &mut Tx, id: &str, session_id: &str) -> Result<(), ApiError> {
    let current = get_reservation(tx, id)
        .map_err(|_| ApiError::invalid_field("reservation_id", "no such reservation"))?;
    match current.status {
        ReservationStatus::CheckedIn if current.session_id.is_none() => {
            tx.execute(
                "UPDATE reservations SET session_id = ?2 WHERE id = ?1",
                params![id, session_id],
            )?;
            Ok(())
        }
        ReservationStatus::Confirmed => {
            tx.execute(
                "UPDATE reservations SET session_id = ?2 WHERE id = ?1",
                params![id, session_id],
            )?;
            change_status(tx, id, ReservationStatus::CheckedIn).map(|_| ())
        }
        status => Err(ApiError::illegal_transition(
            "the reservation",
            status.as_str(),
            "seated",
        )),
    }
}

/// The party's session closed: a checked-in reservation is completed.
pub fn complete_after_visit(tx: &mut Tx, id: &str) -> Result<(), ApiError> {
    if get_reservation(tx, id)?.status == ReservationStatus::CheckedIn {
        change_status(tx, id, ReservationStatus::Completed)?;
    }
    Ok(())
}

/// Marks confirmed reservations whose grace window has passed at `now` as no-shows
/// (recording `reservation.no_show` for each); returns how many, and when the next
/// confirmed one falls due.
pub fn mark_no_shows(tx: &mut Tx) -> Result<(usize, Option<DateTime<Utc>>), ApiError> {
    let now = tx.now();
    let grace = Duration::minutes(tx.settings()?.reservation_grace_minutes);
    let due: Vec<String> = {
        let mut stmt = tx.prepare_cached(
            "SELECT id FROM reservations WHERE status = 'confirmed' AND starts_at <= ?1 ORDER BY starts_at, id",
        )?;
        let rows = stmt.query_map([rfc3339(now - grace)], |r| r.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    for id in &due {
        change_status(tx, id, ReservationStatus::NoShow)?;
    }
    let next: Option<String> = tx.query_row(
        "SELECT MIN(starts_at) FROM reservations WHERE status = 'confirmed'",
        [],
        |r| r.get(0),
    )?;
    Ok((
        due.len(),
        next.as_deref().and_then(parse_rfc3339).map(|at| at + grace),
    ))
}
