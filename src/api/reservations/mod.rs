//! Reservations: weekly time-slot rules and availability, bookings by staff (and
//! by guests through the public routes), and the lifecycle
//! `pending → confirmed → checked_in → completed` plus `cancelled` and `no_show`,
//! each move recorded as a `reservation.*` event. Check-in either queues the party
//! or seats it. The scheduler marks no-shows.

mod model;
mod queries;

pub use model::{
    Availability, BookingReceipt, CustomerBooking, DayRules, NewReservation, Party, TimeSlotRules,
    Weekday, Window,
};
pub use queries::{
    attach_session, availability, complete_after_visit, create_reservation, mark_no_shows,
    put_rules,
};

use std::sync::Arc;

use chrono::{NaiveDate, Utc};
use rocket::{get, patch, post, put, routes, Route, State};
use utoipa::OpenApi;

use crate::api::body::JsonBody;
use crate::api::idempotency::IdempotencyKey;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::api::settings;
use crate::api::validate::{path_id, query_filter};
use crate::auth::{Caller, Permission};
use crate::error::{ApiError, Problem};
use crate::App;
use model::*;

pub fn routes() -> Vec<Route> {
    routes![
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
    ]
}

#[derive(OpenApi)]
#[openapi(paths(
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
))]
pub struct Docs;

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
async fn get_time_slots(caller: Caller) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    caller
        .read(move |conn, _| Reply::ok(queries::get_rules(conn)?))
        .await
}

/// Replace the weekly booking rules; weekdays left out take no bookings.
#[utoipa::path(tag = "Reservations", request_body = TimeSlotRules, responses(
    (status = 200, body = TimeSlotRules), (status = 403, body = Problem), (status = 422, body = Problem)))]
#[put("/reservations/time-slots", data = "<body>")]
async fn put_time_slots(caller: Caller, body: JsonBody<TimeSlotRules>) -> Result<Reply, ApiError> {
    caller.require(Permission::TimeSlotsWrite)?;
    caller
        .write(move |tx, _| Reply::ok(queries::put_rules(tx, &body)?))
        .await
}

/// Bookable slots of a local day for a party, after the covers already booked.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Availability), (status = 422, body = Problem)))]
#[get("/reservations/availability?<date>&<party_size>")]
async fn get_availability(
    caller: Caller,
    date: Option<&str>,
    party_size: Option<&str>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    let (date, party_size) = availability_query(date, party_size)?;
    caller
        .read(move |conn, _| {
            let settings = settings::load(conn)?;
            Reply::ok(availability(conn, &settings, date, party_size, Utc::now())?)
        })
        .await
}

/// Reservations by start time, optionally of one local day and status.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Page<Reservation>), (status = 422, body = Problem)))]
#[get("/reservations?<date>&<status>&<limit>&<cursor>")]
async fn list_reservations(
    caller: Caller,
    date: Option<&str>,
    status: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    let date = date.map(|d| parse_date("date", d)).transpose()?;
    let status = query_filter("status", status, ReservationStatus::parse)?;
    let limit = pagination::limit(limit)?;
    let cursor = cursor.map(str::to_string);
    caller
        .read(move |conn, _| {
            let settings = settings::load(conn)?;
            let rows = queries::list_reservations(
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
#[utoipa::path(tag = "Reservations", request_body = NewReservation,
    params(("Idempotency-Key" = Option<String>, Header, description = "Repeat-safe key; a repeat within 24 h returns the first response")),
    responses((status = 201, body = Reservation), (status = 409, body = Problem, description = "The slot is full"),
    (status = 422, body = Problem)))]
#[post("/reservations", data = "<body>")]
async fn create(
    app: &State<Arc<App>>,
    caller: Caller,
    key: IdempotencyKey,
    body: JsonBody<NewReservation>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::ReservationsWrite)?;
    let tenant_id = caller.tenant_id();
    let reply = caller
        .write(move |tx, caller| {
            key.run(tx, &caller.actor(), &body.raw, |tx| {
                Reply::created(create_reservation(
                    tx,
                    caller.tenant_id(),
                    &body,
                    Party::Staff,
                    Utc::now(),
                )?)
            })
        })
        .await?;
    app.scheduler.forget(tenant_id);
    Ok(reply)
}

/// A reservation.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Reservation), (status = 404, body = Problem)))]
#[get("/reservations/<id>")]
async fn get_reservation(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    let id = path_id(id, "reservation")?;
    caller
        .read(move |conn, _| Reply::ok(queries::get_reservation(conn, &id)?))
        .await
}

/// Change a pending or confirmed reservation; a new time or size is re-checked.
#[utoipa::path(tag = "Reservations", request_body = ReservationPatch, responses(
    (status = 200, body = Reservation), (status = 409, body = Problem), (status = 422, body = Problem)))]
#[patch("/reservations/<id>", data = "<body>")]
async fn update(
    app: &State<Arc<App>>,
    caller: Caller,
    id: &str,
    body: JsonBody<ReservationPatch>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::ReservationsWrite)?;
    let id = path_id(id, "reservation")?;
    let tenant_id = caller.tenant_id();
    let reply = caller
        .write(move |tx, _| Reply::ok(queries::update_reservation(tx, &id, &body, Utc::now())?))
        .await?;
    app.scheduler.forget(tenant_id);
    Ok(reply)
}

async fn change(caller: Caller, id: &str, next: ReservationStatus) -> Result<Reply, ApiError> {
    caller.require(Permission::ReservationsWrite)?;
    let id = path_id(id, "reservation")?;
    caller
        .write(move |tx, caller| {
            Reply::ok(queries::change_status(tx, caller.tenant_id(), &id, next)?)
        })
        .await
}

/// Confirm a pending reservation.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Reservation), (status = 409, body = Problem)))]
#[post("/reservations/<id>/confirm")]
async fn confirm(app: &State<Arc<App>>, caller: Caller, id: &str) -> Result<Reply, ApiError> {
    let tenant_id = caller.tenant_id();
    let reply = change(caller, id, ReservationStatus::Confirmed).await?;
    app.scheduler.forget(tenant_id);
    Ok(reply)
}

/// Cancel on behalf of the customer or the restaurant.
#[utoipa::path(tag = "Reservations", request_body = Cancellation, responses(
    (status = 200, body = Reservation), (status = 409, body = Problem)))]
#[post("/reservations/<id>/cancel", data = "<body>")]
async fn cancel(caller: Caller, id: &str, body: JsonBody<Cancellation>) -> Result<Reply, ApiError> {
    caller.require(Permission::ReservationsWrite)?;
    let id = path_id(id, "reservation")?;
    caller
        .write(move |tx, caller| Reply::ok(queries::cancel(tx, caller.tenant_id(), &id, &body)?))
        .await
}

/// The party arrived: queue it (a ticket) or seat it (a session).
#[utoipa::path(tag = "Reservations", request_body = CheckIn, responses(
    (status = 200, body = CheckInResult), (status = 409, body = Problem), (status = 422, body = Problem)))]
#[post("/reservations/<id>/check-in", data = "<body>")]
async fn check_in(caller: Caller, id: &str, body: JsonBody<CheckIn>) -> Result<Reply, ApiError> {
    caller.require(Permission::ReservationsWrite)?;
    let id = path_id(id, "reservation")?;
    caller
        .write(move |tx, caller| {
            let result = queries::check_in(
                tx,
                caller.tenant_id(),
                &id,
                &body,
                &caller.actor(),
                Utc::now(),
            )?;
            Reply::ok(result)
        })
        .await
}

/// Mark a checked-in reservation completed after the visit.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Reservation), (status = 409, body = Problem)))]
#[post("/reservations/<id>/complete")]
async fn complete(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, ReservationStatus::Completed).await
}

/// The party did not come.
#[utoipa::path(tag = "Reservations", responses((status = 200, body = Reservation), (status = 409, body = Problem)))]
#[post("/reservations/<id>/no-show")]
async fn no_show(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, ReservationStatus::NoShow).await
}
