//! The waitlist at the door: tickets numbered per business day, live positions and
//! wait estimates from recent table turns, and seating a ticket into a session.

mod model;
mod queries;

pub use model::{PublicTicket, Ticket};
pub use queries::{
    complete_ticket, create_ticket, find_ticket, public_ticket, require_seatable, seat_ticket,
    Arrival, TicketRow,
};

use chrono::Utc;
use rocket::{get, post, routes, Route};
use utoipa::OpenApi;

use crate::api::body::JsonBody;
use crate::api::idempotency::IdempotencyKey;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::api::sessions::{self, Seating};
use crate::api::settings;
use crate::api::validate::{path_id, query_filter};
use crate::auth::{Caller, Permission};
use crate::error::{ApiError, Problem};
use model::*;

pub fn routes() -> Vec<Route> {
    routes![
        list_tickets,
        add_ticket,
        get_ticket,
        call_ticket,
        seat,
        cancel_ticket,
        no_show_ticket
    ]
}

#[derive(OpenApi)]
#[openapi(paths(
    list_tickets,
    add_ticket,
    get_ticket,
    call_ticket,
    seat,
    cancel_ticket,
    no_show_ticket
))]
pub struct Docs;

/// Tickets oldest first with live positions and estimates; by default the
/// parties still waiting or called.
#[utoipa::path(tag = "Queue", responses((status = 200, body = Page<Ticket>), (status = 422, body = Problem)))]
#[get("/queue?<status>&<limit>&<cursor>")]
async fn list_tickets(
    caller: Caller,
    status: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    let status = query_filter("status", status, TicketStatus::parse)?;
    let limit = pagination::limit(limit)?;
    let cursor = cursor.map(str::to_string);
    caller
        .read(move |conn, _| {
            let rows = queries::list_tickets(conn, status, cursor.as_deref(), limit, Utc::now())?;
            Reply::ok(pagination::page(rows, limit, |t| t.id.clone()))
        })
        .await
}

/// Add a party to the waitlist; the answer carries its number, position, quoted
/// wait and the tracking token for the guest.
#[utoipa::path(tag = "Queue", request_body = NewTicket,
    params(("Idempotency-Key" = Option<String>, Header, description = "Repeat-safe key; a repeat within 24 h returns the first response")),
    responses((status = 201, body = Ticket), (status = 422, body = Problem)))]
#[post("/queue", data = "<body>")]
async fn add_ticket(
    caller: Caller,
    key: IdempotencyKey,
    body: JsonBody<NewTicket>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::QueueWrite)?;
    let arrival = queries::check_arrival(&body)?;
    caller
        .write(move |tx, caller| {
            key.run(tx, &caller.actor(), &body.raw, |tx| {
                let settings = settings::load(tx)?;
                Reply::created(create_ticket(tx, &settings, arrival, Utc::now())?)
            })
        })
        .await
}

/// A ticket with its live position and estimate.
#[utoipa::path(tag = "Queue", responses((status = 200, body = Ticket), (status = 404, body = Problem)))]
#[get("/queue/<id>")]
async fn get_ticket(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    let id = path_id(id, "queue ticket")?;
    caller
        .read(move |conn, _| {
            Reply::ok(queries::ticket_json(
                conn,
                find_ticket(conn, &id)?,
                Utc::now(),
            )?)
        })
        .await
}

async fn change(caller: Caller, id: &str, next: TicketStatus) -> Result<Reply, ApiError> {
    caller.require(Permission::QueueWrite)?;
    let id = path_id(id, "queue ticket")?;
    caller
        .write(move |tx, _| Reply::ok(queries::change_status(tx, &id, next, Utc::now())?))
        .await
}

/// Call a waiting party to the desk.
#[utoipa::path(tag = "Queue", responses((status = 200, body = Ticket), (status = 409, body = Problem)))]
#[post("/queue/<id>/call")]
async fn call_ticket(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, TicketStatus::Called).await
}

/// Seat a waiting or called party at free tables: opens a session for it.
#[utoipa::path(tag = "Queue", request_body = SeatTicket, responses(
    (status = 201, body = crate::api::sessions::Session), (status = 409, body = Problem), (status = 422, body = Problem)))]
#[post("/queue/<id>/seat", data = "<body>")]
async fn seat(caller: Caller, id: &str, body: JsonBody<SeatTicket>) -> Result<Reply, ApiError> {
    caller.require(Permission::QueueWrite)?;
    let id = path_id(id, "queue ticket")?;
    caller
        .write(move |tx, caller| {
            let ticket = find_ticket(tx, &id)?;
            let seating = Seating {
                table_ids: &body.table_ids,
                party_size: ticket.party_size,
                queue_ticket_id: Some(ticket.id),
                reservation_id: None,
                opened_by: &caller.actor(),
            };
            Reply::created(sessions::open_session(tx, caller.tenant_id(), seating)?)
        })
        .await
}

/// The party gave up waiting.
#[utoipa::path(tag = "Queue", responses((status = 200, body = Ticket), (status = 409, body = Problem)))]
#[post("/queue/<id>/cancel")]
async fn cancel_ticket(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, TicketStatus::Cancelled).await
}

/// The called party did not come.
#[utoipa::path(tag = "Queue", responses((status = 200, body = Ticket), (status = 409, body = Problem)))]
#[post("/queue/<id>/no-show")]
async fn no_show_ticket(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, TicketStatus::NoShow).await
}
