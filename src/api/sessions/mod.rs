//! Seating sessions over HTTP: a party seated at free tables, moved, and closed
//! when it leaves. The rules live in `domain::dining::sessions`.

use rocket::{get, post};

use crate::api::body::{ActionBody, JsonBody};
use crate::api::idempotency::IdempotencyKey;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::auth::{perm, Can, Permission};
use crate::domain::dining::sessions::{self, *};
use crate::domain::validate::{path_id, query_filter};
use crate::error::{ApiError, Problem};

super::group![
    list_sessions,
    create_session,
    get_session,
    move_session,
    close_session
];

/// Sessions, newest first, optionally by status.
///
/// Roles: owner, manager, cashier, server, host.
/// Each session with its tables, its orders and the queue ticket or reservation that
/// brought the party in.
#[utoipa::path(tag = "Sessions", responses((status = 200, body = Page<Session>), (status = 422, body = Problem)))]
#[get("/sessions?<status>&<limit>&<cursor>")]
async fn list_sessions(
    caller: Can<perm::DiningRead>,
    status: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let status = query_filter("status", status, SessionStatus::parse)?;
    let limit = pagination::limit(limit)?;
    let cursor = cursor.map(str::to_string);
    caller
        .read(move |conn| {
            let rows = sessions::list_sessions(conn, status, cursor.as_deref(), limit)?;
            Reply::ok(pagination::page(rows, limit, |s| s.id.clone()))
        })
        .await
}

/// Seat a party at free tables, optionally from a queue ticket or a reservation.
///
/// Roles: owner, manager, server, host.
/// A named queue ticket becomes seated, and a named confirmed reservation is checked in
/// (`reservation.checked_in`). Emits `session.created`. Takes `Idempotency-Key`: a repeat
/// by the same caller within 24 h returns the first answer and creates nothing.
/// Seating from the queue takes the right to run the queue, and from a reservation
/// the right to run reservations (owner, manager, host).
#[utoipa::path(tag = "Sessions", request_body = NewSession,
    params(("Idempotency-Key" = Option<String>, Header, description = "Repeat-safe key; a repeat within 24 h returns the first response")),
    responses((status = 201, body = Session), (status = 403, body = Problem, description = "Seating from the queue or a reservation without the right to run them. Codes: `permission_denied`"), (status = 409, body = Problem, description = "A table is occupied, or the queue ticket or reservation cannot be seated in its state. Codes: `table_occupied`, `illegal_transition` (names `current_status`)"),
    (status = 422, body = Problem)))]
#[post("/sessions", data = "<body>")]
async fn create_session(
    caller: Can<perm::SessionsWrite>,
    key: IdempotencyKey,
    body: JsonBody<NewSession>,
) -> Result<Reply, ApiError> {
    if body.queue_ticket_id.is_some() {
        caller.require(Permission::QueueWrite)?;
    }
    if body.reservation_id.is_some() {
        caller.require(Permission::ReservationsWrite)?;
    }
    caller
        .write(move |tx| {
            key.run(tx, &body.raw, |tx| {
                let seating = Seating {
                    table_ids: &body.table_ids,
                    party_size: body.party_size,
                    queue_ticket_id: body.queue_ticket_id.clone(),
                    reservation_id: body.reservation_id.clone(),
                };
                Reply::created(sessions::open_session(tx, seating)?)
            })
        })
        .await
}

/// A session with its tables, links and orders.
///
/// Roles: owner, manager, cashier, server, host.
/// Closed sessions answer too, with the tables they last held.
#[utoipa::path(tag = "Sessions", responses((status = 200, body = Session), (status = 404, body = Problem)))]
#[get("/sessions/<id>")]
async fn get_session(caller: Can<perm::DiningRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "session")?;
    caller
        .read(move |conn| Reply::ok(sessions::get_session(conn, &id)?))
        .await
}

/// Move the party to other free tables.
///
/// Roles: owner, manager, server, host.
/// Tables the session already holds count as free. Its open orders follow to the first
/// new table, each emitting `order.updated`.
#[utoipa::path(tag = "Sessions", request_body = Move, responses(
    (status = 200, body = Session), (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`), `table_occupied`"), (status = 422, body = Problem)))]
#[post("/sessions/<id>/move", data = "<body>")]
async fn move_session(
    caller: Can<perm::SessionsWrite>,
    id: &str,
    body: JsonBody<Move>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "session")?;
    caller
        .write(move |tx| Reply::ok(sessions::move_session(tx, &id, &body.table_ids)?))
        .await
}

/// Close the session and release its tables; refused while orders are unpaid
/// unless a manager sends `{"force": true}`. The body is optional.
///
/// Roles: owner, manager, server, host.
/// `{"force": true}` closes it despite unpaid orders and needs owner or manager; other
/// roles get 403. Emits `session.closed`; the linked queue ticket is completed and a
/// checked-in reservation too (`reservation.completed`).
#[utoipa::path(tag = "Sessions", request_body(content = Option<Close>), responses(
    (status = 200, body = Session), (status = 403, body = Problem),
    (status = 409, body = Problem, description = "Already closed, or unpaid orders. Codes: `illegal_transition` (names `current_status`), `unpaid_orders`")))]
#[post("/sessions/<id>/close", data = "<body>")]
async fn close_session(
    caller: Can<perm::SessionsWrite>,
    id: &str,
    body: ActionBody<Close>,
) -> Result<Reply, ApiError> {
    if body.force {
        caller.require(Permission::SessionsForceClose)?;
    }
    let id = path_id(id, "session")?;
    caller
        .write(move |tx| Reply::ok(sessions::close_session(tx, &id, body.force)?))
        .await
}
