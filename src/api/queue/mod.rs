//! The waitlist over HTTP: tickets with live positions and wait estimates, and
//! seating a ticket into a session. The rules live in `domain::dining::queue`.

use rocket::{get, post};

use crate::api::body::JsonBody;
use crate::api::idempotency::IdempotencyKey;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::auth::{perm, Can};
use crate::domain::dining::queue::{self, *};
use crate::domain::dining::sessions::{self, Seating};
use crate::domain::validate::{path_id, query_filter};
use crate::error::{ApiError, Problem};

super::group![
    list_tickets,
    add_ticket,
    get_ticket,
    call_ticket,
    seat,
    cancel_ticket,
    no_show_ticket
];

/// Tickets oldest first with live positions and estimates; by default the
/// parties still waiting or called.
///
/// Roles: owner, manager, cashier, server, host.
/// `status` lists the tickets of that one status instead. Positions and estimates are
/// computed at the time of the call.
#[utoipa::path(tag = "Queue", responses((status = 200, body = Page<Ticket>), (status = 422, body = Problem)))]
#[get("/queue?<status>&<limit>&<cursor>")]
async fn list_tickets(
    caller: Can<perm::DiningRead>,
    status: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let status = query_filter("status", status, TicketStatus::parse)?;
    let limit = pagination::limit(limit)?;
    let cursor = cursor.map(str::to_string);
    let now = caller.now();
    caller
        .read(move |conn| {
            let rows = queue::list_tickets(conn, status, cursor.as_deref(), limit, now)?;
            Reply::ok(pagination::page(rows, limit, |t| t.id.clone()))
        })
        .await
}

/// Add a party to the waitlist; the answer carries its number, position, quoted
/// wait and the tracking token for the guest.
///
/// Roles: owner, manager, host.
/// The tracking token appears only in this answer. No webhook event. Takes
/// `Idempotency-Key`: a repeat by the same caller within 24 h returns the first answer
/// and creates nothing.
#[utoipa::path(tag = "Queue", request_body = NewTicket,
    params(("Idempotency-Key" = Option<String>, Header, description = "Repeat-safe key; a repeat within 24 h returns the first response")),
    responses((status = 201, body = Ticket), (status = 422, body = Problem)))]
#[post("/queue", data = "<body>")]
async fn add_ticket(
    caller: Can<perm::QueueWrite>,
    key: IdempotencyKey,
    body: JsonBody<NewTicket>,
) -> Result<Reply, ApiError> {
    let arrival = queue::check_arrival(&body)?;
    caller
        .write(move |tx| {
            key.run(tx, &body.raw, |tx| {
                Reply::created(queue::create_ticket(tx, arrival)?)
            })
        })
        .await
}

/// A ticket with its live position and estimate.
///
/// Roles: owner, manager, cashier, server, host.
/// The tracking token is not shown again.
#[utoipa::path(tag = "Queue", responses((status = 200, body = Ticket), (status = 404, body = Problem)))]
#[get("/queue/<id>")]
async fn get_ticket(caller: Can<perm::DiningRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "queue ticket")?;
    let now = caller.now();
    caller
        .read(move |conn| {
            Reply::ok(queue::ticket_json(
                conn,
                queue::find_ticket(conn, &id)?,
                now,
            )?)
        })
        .await
}

async fn change(
    caller: Can<perm::QueueWrite>,
    id: &str,
    next: TicketStatus,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "queue ticket")?;
    caller
        .write(move |tx| Reply::ok(queue::change_status(tx, &id, next)?))
        .await
}

/// Call a waiting party to the desk.
///
/// Roles: owner, manager, host.
/// Only a waiting ticket can be called. No webhook event.
#[utoipa::path(tag = "Queue", responses((status = 200, body = Ticket), (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`)")))]
#[post("/queue/<id>/call")]
async fn call_ticket(caller: Can<perm::QueueWrite>, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, TicketStatus::Called).await
}

/// Seat a waiting or called party at free tables: opens a session for it.
///
/// Roles: owner, manager, host.
/// Answers with the new session, linked to the ticket and to its reservation if it has
/// one; the ticket becomes `seated`. Emits `session.created`.
#[utoipa::path(tag = "Queue", request_body = SeatTicket, responses(
    (status = 201, body = crate::domain::dining::sessions::Session), (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`), `table_occupied`"), (status = 422, body = Problem)))]
#[post("/queue/<id>/seat", data = "<body>")]
async fn seat(
    caller: Can<perm::QueueWrite>,
    id: &str,
    body: JsonBody<SeatTicket>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "queue ticket")?;
    caller
        .write(move |tx| {
            let ticket = queue::find_ticket(tx, &id)?;
            let seating = Seating {
                table_ids: &body.table_ids,
                party_size: ticket.party_size,
                queue_ticket_id: Some(ticket.id),
                reservation_id: None,
            };
            Reply::created(sessions::open_session(tx, seating)?)
        })
        .await
}

/// The party gave up waiting.
///
/// Roles: owner, manager, host.
/// For a waiting or called ticket. No webhook event.
#[utoipa::path(tag = "Queue", responses((status = 200, body = Ticket), (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`)")))]
#[post("/queue/<id>/cancel")]
async fn cancel_ticket(caller: Can<perm::QueueWrite>, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, TicketStatus::Cancelled).await
}

/// The called party did not come.
///
/// Roles: owner, manager, host.
/// For a waiting or called ticket. No webhook event.
#[utoipa::path(tag = "Queue", responses((status = 200, body = Ticket), (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`)")))]
#[post("/queue/<id>/no-show")]
async fn no_show_ticket(caller: Can<perm::QueueWrite>, id: &str) -> Result<Reply, ApiError> {
    change(caller, id, TicketStatus::NoShow).await
}
