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
#[utoipa::path(tag = "Reservations", responses((status = 200, body = TimeSlotRules)))]
#[get("/reservations/time-slots")]
async fn get_time_slots(caller: Can<perm::DiningRead>) -> Result<Reply, ApiError> {
    caller
        .read(move |conn| Reply::ok(reservations::get_rules(conn)?))
        .await
}

/// Replace the weekly booking rules; weekdays left out take no bookings.
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
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Reservation), (status = 404, body = Problem)))]
#[get("/reservations/<id>")]
async fn get_reservation(caller: Can<perm::DiningRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "reservation")?;
    caller
        .read(move |conn| Reply::ok(reservations::get_reservation(conn, &id)?))
        .await
}

/// Change a pending or confirmed reservation; a new time or size is re-checked.
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
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Reservation), (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`)")))]
#[post("/reservations/<id>/confirm")]
async fn confirm(caller: Can<perm::ReservationsWrite>, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, ReservationStatus::Confirmed).await
}

/// Cancel on behalf of the customer or the restaurant.
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
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Reservation), (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`)")))]
#[post("/reservations/<id>/complete")]
async fn complete(caller: Can<perm::ReservationsWrite>, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, ReservationStatus::Completed).await
}

/// The party did not come.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Reservation), (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`)")))]
#[post("/reservations/<id>/no-show")]
async fn no_show(caller: Can<perm::ReservationsWrite>, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, ReservationStatus::NoShow).await
}
