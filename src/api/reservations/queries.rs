//! Reservation SQL: time-slot rules, availability and capacity, the lifecycle
//! with its `reservation.*` events, and the no-shows the scheduler applies.

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use uuid::Uuid;

use super::model::*;
use crate::api::queue::{self, Arrival};
use crate::api::sessions::{self, Seating, MAX_PARTY_SIZE};
use crate::api::settings::{self, TenantSettings};
use crate::api::tables;
use crate::api::validate::Checks;
use crate::error::ApiError;
use crate::events::outbox;
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

fn local_date_of(settings: &TenantSettings, at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&settings.timezone).date_naive()
}

pub fn availability(
    conn: &Connection,
    settings: &TenantSettings,
    date: NaiveDate,
    party_size: i64,
    now: DateTime<Utc>,
) -> Result<Availability, ApiError> {
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
fn check_slot(
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
            "is not a bookable slot; see GET /reservations/availability",
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
fn check_table_ids(
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

fn emit(tx: &Transaction, tenant_id: Uuid, event: &str, id: &str) -> Result<Reservation, ApiError> {
    let reservation = get_reservation(tx, id)?;
    outbox::enqueue(tx, tenant_id, event, reservation.event_data())?;
    Ok(reservation)
}

/// Books a table. The booking waits for staff to confirm it unless the tenant
/// confirms automatically; `reservation.created` is recorded, then
/// `reservation.confirmed` when confirmed at once.
pub fn create_reservation(
    tx: &Transaction,
    tenant_id: Uuid,
    new: &NewReservation,
    source: Party,
    now: DateTime<Utc>,
) -> Result<Reservation, ApiError> {
    let settings = settings::load(tx)?;
    let mut checks = Checks::new();
    let name = checks.text("name", &new.name, 120);
    let phone = checks.text("phone", &new.phone, 40);
    let email = checks.optional_text("email", new.email.as_deref(), 254);
    if email.as_deref().is_some_and(|e| !e.contains('@')) {
        checks.fail("email", "must be an email address");
    }
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
    let created = emit(tx, tenant_id, "reservation.created", &id)?;
    if settings.auto_confirm_reservations {
        return change_status(tx, tenant_id, &id, ReservationStatus::Confirmed);
    }
    Ok(created)
}

/// Changes a booking that is still pending or confirmed; a new time or party size
/// is checked against the slot rules again.
pub fn update_reservation(
    tx: &Transaction,
    id: &str,
    patch: &ReservationPatch,
    now: DateTime<Utc>,
) -> Result<Reservation, ApiError> {
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
        Some(e) => checks.optional_text("email", e.as_deref(), 254),
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
        let settings = settings::load(tx)?;
        let (_, ends_at) = check_slot(
            tx,
            &settings,
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
    get_reservation(tx, id)
}

fn event_for(status: ReservationStatus) -> &'static str {
    match status {
        ReservationStatus::Pending => "reservation.created",
        ReservationStatus::Confirmed => "reservation.confirmed",
        ReservationStatus::CheckedIn => "reservation.checked_in",
        ReservationStatus::Completed => "reservation.completed",
        ReservationStatus::Cancelled => "reservation.cancelled",
        ReservationStatus::NoShow => "reservation.no_show",
    }
}

/// Moves the reservation along its lifecycle and records the event of the move.
pub fn change_status(
    tx: &Transaction,
    tenant_id: Uuid,
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
        params![id, next.as_str(), crate::time::now_rfc3339()],
    )?;
    emit(tx, tenant_id, event_for(next), id)
}

pub fn cancel(
    tx: &Transaction,
    tenant_id: Uuid,
    id: &str,
    cancellation: &Cancellation,
) -> Result<Reservation, ApiError> {
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
    change_status(tx, tenant_id, id, ReservationStatus::Cancelled)
}

/// The party arrived: it joins the waitlist or sits down at once. Either way the
/// reservation is checked in, linked to its ticket or session.
pub fn check_in(
    tx: &Transaction,
    tenant_id: Uuid,
    id: &str,
    request: &CheckIn,
    actor: &str,
    now: DateTime<Utc>,
) -> Result<CheckInResult, ApiError> {
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
                tenant_id,
                Seating {
                    table_ids: &table_ids,
                    party_size: current.party_size,
                    queue_ticket_id: None,
                    reservation_id: Some(id.to_string()),
                    opened_by: actor,
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
            let ticket = queue::create_ticket(tx, &settings::load(tx)?, arrival, now)?;
            tx.execute(
                "UPDATE reservations SET queue_ticket_id = ?2 WHERE id = ?1",
                params![id, ticket.id],
            )?;
            let reservation = change_status(tx, tenant_id, id, ReservationStatus::CheckedIn)?;
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
pub fn attach_session(
    tx: &Transaction,
    tenant_id: Uuid,
    id: &str,
    session_id: &str,
) -> Result<(), ApiError> {
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
            change_status(tx, tenant_id, id, ReservationStatus::CheckedIn).map(|_| ())
        }
        status => Err(ApiError::illegal_transition(
            "the reservation",
            status.as_str(),
            "seated",
        )),
    }
}

/// The party's session closed: a checked-in reservation is completed.
pub fn complete_after_visit(tx: &Transaction, tenant_id: Uuid, id: &str) -> Result<(), ApiError> {
    if get_reservation(tx, id)?.status == ReservationStatus::CheckedIn {
        change_status(tx, tenant_id, id, ReservationStatus::Completed)?;
    }
    Ok(())
}

/// Marks confirmed reservations whose grace window has passed at `now` as no-shows
/// (recording `reservation.no_show` for each); returns how many, and when the next
/// confirmed one falls due.
pub fn mark_no_shows(
    tx: &Transaction,
    tenant_id: Uuid,
    now: DateTime<Utc>,
) -> Result<(usize, Option<DateTime<Utc>>), ApiError> {
    let grace = Duration::minutes(settings::load(tx)?.reservation_grace_minutes);
    let due: Vec<String> = {
        let mut stmt = tx.prepare_cached(
            "SELECT id FROM reservations WHERE status = 'confirmed' AND starts_at <= ?1 ORDER BY starts_at, id",
        )?;
        let rows = stmt.query_map([rfc3339(now - grace)], |r| r.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    for id in &due {
        change_status(tx, tenant_id, id, ReservationStatus::NoShow)?;
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
