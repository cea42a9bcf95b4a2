//! Reservations over HTTP: time-slot rules and availability, bookings by staff,
//! and the lifecycle moves. The rules live in `domain::dining::reservations`;
//! guests book through the public routes.

use chrono::NaiveDate;
use rocket::{get, patch, post, put};

use crate::api::body::JsonBody;
use crate::api::idempotency::IdempotencyKey;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::auth::{perm, Can};
use crate::domain::dining::reservations::{self, *};
use crate::domain::settings;
use crate::domain::validate::{path_id, query_filter};
use crate::error::{ApiError, Problem};

super::group![
    get_time_slots,
    put_time_slots,
    get_availability,
    list_reservations,
    create,
    get_reservation,
    update,
    confirm,
    cancel,
    check_in,
    complete,
    no_show
];

/// A `YYYY-MM-DD` query parameter.
pub fn parse_date(field: &str, text: &str) -> Result<NaiveDate, ApiError> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map_err(|_| ApiError::invalid_field(field, "must be a date YYYY-MM-DD"))
}

/// The `date` and `party_size` of an availability query, both required.
pub fn availability_query(
    date: Option<&str>,
    party_size: Option<&str>,
) -> Result<(NaiveDate, i64), ApiError> {
    let date = date.ok_or_else(|| ApiError::invalid_field("date", "is required"))?;
    let party_size =
        party_size.ok_or_else(|| ApiError::invalid_field("party_size", "is required"))?;
    let party_size = party_size
        .parse()
        .map_err(|_| ApiError::invalid_field("party_size", "must be a whole number"))?;
    Ok((parse_date("date", date)?, party_size))
}

/// The weekly booking rules.
///
/// Roles: owner, manager, cashier, server, host.
/// Per weekday: the booking windows, slot length, covers per slot, largest party and how
/// long a booking keeps its table.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = TimeSlotRules)))]
#[get("/reservations/time-slots")]
async fn get_time_slots(caller: Can<perm::DiningRead>) -> Result<Reply, ApiError> {
    caller
        .read(move |conn| Reply::ok(reservations::get_rules(conn)?))
        .await
}

/// Replace the weekly booking rules; weekdays left out take no bookings.
///
/// Roles: owner, manager.
/// Bookings already made are kept. Staff may still book outside the rules with
/// `outside_rules`.
#[utoipa::path(tag = "Reservations", request_body = TimeSlotRules, responses(
    (status = 200, body = TimeSlotRules), (status = 403, body = Problem), (status = 422, body = Problem)))]
#[put("/reservations/time-slots", data = "<body>")]
async fn put_time_slots(
    caller: Can<perm::TimeSlotsWrite>,
    body: JsonBody<TimeSlotRules>,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| Reply::ok(reservations::put_rules(tx, &body)?))
        .await
}

/// Bookable slots of a local day for a party, after the covers already booked.
///
/// Roles: owner, manager, cashier, server, host.
/// `date` and `party_size` are both required; times are in the business's time zone.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Availability), (status = 422, body = Problem)))]
#[get("/reservations/availability?<date>&<party_size>")]
async fn get_availability(
    caller: Can<perm::DiningRead>,
    date: Option<&str>,
    party_size: Option<&str>,
) -> Result<Reply, ApiError> {
    let (date, party_size) = availability_query(date, party_size)?;
    let now = caller.now();
    caller
        .read(move |conn| Reply::ok(reservations::availability(conn, date, party_size, now)?))
        .await
}

/// Reservations by start time, optionally of one local day and status.
///
/// Roles: owner, manager, cashier, server, host.
/// `date` is a local day (`YYYY-MM-DD`) in the business's time zone; `status` filters.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Page<Reservation>), (status = 422, body = Problem)))]
#[get("/reservations?<date>&<status>&<limit>&<cursor>")]
async fn list_reservations(
    caller: Can<perm::DiningRead>,
    date: Option<&str>,
    status: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let date = date.map(|d| parse_date("date", d)).transpose()?;
    let status = query_filter("status", status, ReservationStatus::parse)?;
    let limit = pagination::limit(limit)?;
    let cursor = cursor.map(str::to_string);
    caller
        .read(move |conn| {
            let settings = settings::load(conn)?;
            let rows = reservations::list_reservations(
                conn,
                &settings,
                date,
                status,
                cursor.as_deref(),
                limit,
            )?;
            Reply::ok(pagination::page(rows, limit, |r| r.id.clone()))
        })
        .await
}

/// Book a table for a guest.
///
/// Roles: owner, manager, host.
/// Pending until confirmed, or confirmed at once when the business confirms
/// automatically. Emits `reservation.created`, then `reservation.confirmed` when
/// confirmed at once. Takes `Idempotency-Key`: a repeat by the same caller within 24 h
/// returns the first answer and creates nothing.
#[utoipa::path(tag = "Reservations", request_body(content = NewReservation, example = json!({
    "name": "Ada Lovelace", "phone": "+1 555 0100", "email": "ada@example.com",
    "party_size": 4, "starts_at": "2030-06-01T19:00:00Z", "notes": "Window seat if possible"})),
    params(("Idempotency-Key" = Option<String>, Header, description = "Repeat-safe key; a repeat within 24 h returns the first response")),
    responses((status = 201, body = Reservation), (status = 409, body = Problem, description = "The slot is full. Codes: `slot_full`"),
    (status = 422, body = Problem)))]
#[post("/reservations", data = "<body>")]
async fn create(
    caller: Can<perm::ReservationsWrite>,
    key: IdempotencyKey,
    body: JsonBody<NewReservation>,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| {
            key.run(tx, &body.raw, |tx| {
                Reply::created(reservations::create_reservation(tx, &body, Party::Staff)?)
            })
        })
        .await
}

/// A reservation.
///
/// Roles: owner, manager, cashier, server, host.
/// Once checked in it names its queue ticket or its session.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Reservation), (status = 404, body = Problem)))]
#[get("/reservations/<id>")]
async fn get_reservation(caller: Can<perm::DiningRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "reservation")?;
    caller
        .read(move |conn| Reply::ok(reservations::get_reservation(conn, &id)?))
        .await
}

/// Change a pending or confirmed reservation; a new time or size is re-checked.
///
/// Roles: owner, manager, host.
/// Absent fields keep their value. No webhook event.
#[utoipa::path(tag = "Reservations", request_body = ReservationPatch, responses(
    (status = 200, body = Reservation), (status = 409, body = Problem, description = "Codes: `reservation_closed`, `slot_full`"), (status = 422, body = Problem)))]
#[patch("/reservations/<id>", data = "<body>")]
async fn update(
    caller: Can<perm::ReservationsWrite>,
    id: &str,
    body: JsonBody<ReservationPatch>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "reservation")?;
    caller
        .write(move |tx| Reply::ok(reservations::update_reservation(tx, &id, &body)?))
        .await
}

async fn change(
    caller: Can<perm::ReservationsWrite>,
    id: &str,
    next: ReservationStatus,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "reservation")?;
    caller
        .write(move |tx| Reply::ok(reservations::change_status(tx, &id, next)?))
        .await
}

/// Confirm a pending reservation.
///
/// Roles: owner, manager, host.
/// From now on it becomes a no-show if the party has not come within the grace window
/// after its start. Emits `reservation.confirmed`.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Reservation), (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`)")))]
#[post("/reservations/<id>/confirm")]
async fn confirm(caller: Can<perm::ReservationsWrite>, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, ReservationStatus::Confirmed).await
}

/// Cancel on behalf of the customer or the restaurant.
///
/// Roles: owner, manager, host.
/// `by` (customer or staff) and the optional `reason` are kept with it. Emits
/// `reservation.cancelled`.
#[utoipa::path(tag = "Reservations", request_body = Cancellation, responses(
    (status = 200, body = Reservation), (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`)")))]
#[post("/reservations/<id>/cancel", data = "<body>")]
async fn cancel(
    caller: Can<perm::ReservationsWrite>,
    id: &str,
    body: JsonBody<Cancellation>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "reservation")?;
    caller
        .write(move |tx| Reply::ok(reservations::cancel(tx, &id, &body)?))
        .await
}

/// The party arrived: queue it (a ticket) or seat it (a session).
///
/// Roles: owner, manager, host.
/// `mode: seat` opens a session at the given or held tables (`session.created`);
/// `mode: queue` adds a linked waitlist ticket. Emits `reservation.checked_in`.
#[utoipa::path(tag = "Reservations", request_body = CheckIn, responses(
    (status = 200, body = CheckInResult), (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`), `table_occupied`"), (status = 422, body = Problem)))]
#[post("/reservations/<id>/check-in", data = "<body>")]
async fn check_in(
    caller: Can<perm::ReservationsWrite>,
    id: &str,
    body: JsonBody<CheckIn>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "reservation")?;
    caller
        .write(move |tx| Reply::ok(reservations::check_in(tx, &id, &body)?))
        .await
}

/// Mark a checked-in reservation completed after the visit.
///
/// Roles: owner, manager, host.
/// Closing its session does this too. Emits `reservation.completed`.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Reservation), (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`)")))]
#[post("/reservations/<id>/complete")]
async fn complete(caller: Can<perm::ReservationsWrite>, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, ReservationStatus::Completed).await
}

/// The party did not come.
///
/// Roles: owner, manager, host.
/// The server also does this by itself once a confirmed booking's grace window has
/// passed. Emits `reservation.no_show`.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Reservation), (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`)")))]
#[post("/reservations/<id>/no-show")]
async fn no_show(caller: Can<perm::ReservationsWrite>, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, ReservationStatus::NoShow).await
}
