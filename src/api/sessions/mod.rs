//! Seating sessions: a party seated at free tables, moved, and closed when it
//! leaves. Opening and closing write `session.created` and `session.closed`.

mod model;
mod queries;

pub use model::{Session, MAX_PARTY_SIZE};
pub use queries::{open_session, table_of_open_session, Seating};

use rocket::{get, post, routes, Route};
use utoipa::OpenApi;

use crate::api::body::JsonBody;
use crate::api::idempotency::IdempotencyKey;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::api::validate::{path_id, query_filter};
use crate::auth::{Caller, Permission};
use crate::error::{ApiError, Problem};
use model::*;

pub fn routes() -> Vec<Route> {
    routes![
        list_sessions,
        create_session,
        get_session,
        move_session,
        close_session
    ]
}

#[derive(OpenApi)]
#[openapi(paths(
    list_sessions,
    create_session,
    get_session,
    move_session,
    close_session
))]
pub struct Docs;

/// Sessions, newest first, optionally by status.
#[utoipa::path(tag = "Sessions", responses((status = 200, body = Page<Session>), (status = 422, body = Problem)))]
#[get("/sessions?<status>&<limit>&<cursor>")]
async fn list_sessions(
    caller: Caller,
    status: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    let status = query_filter("status", status, SessionStatus::parse)?;
    let limit = pagination::limit(limit)?;
    let cursor = cursor.map(str::to_string);
    caller
        .read(move |conn, _| {
            let rows = queries::list_sessions(conn, status, cursor.as_deref(), limit)?;
            Reply::ok(pagination::page(rows, limit, |s| s.id.clone()))
        })
        .await
}

/// Seat a party at free tables, optionally from a queue ticket or a reservation.
#[utoipa::path(tag = "Sessions", request_body = NewSession,
    params(("Idempotency-Key" = Option<String>, Header, description = "Repeat-safe key; a repeat within 24 h returns the first response")),
    responses((status = 201, body = Session), (status = 409, body = Problem, description = "A table is occupied"),
    (status = 422, body = Problem)))]
#[post("/sessions", data = "<body>")]
async fn create_session(
    caller: Caller,
    key: IdempotencyKey,
    body: JsonBody<NewSession>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::SessionsWrite)?;
    caller
        .write(move |tx, caller| {
            key.run(tx, &caller.actor(), &body.raw, |tx| {
                let seating = Seating {
                    table_ids: &body.table_ids,
                    party_size: body.party_size,
                    queue_ticket_id: body.queue_ticket_id.clone(),
                    reservation_id: body.reservation_id.clone(),
                    opened_by: &caller.actor(),
                };
                Reply::created(open_session(tx, caller.tenant_id(), seating)?)
            })
        })
        .await
}

/// A session with its tables, links and orders.
#[utoipa::path(tag = "Sessions", responses((status = 200, body = Session), (status = 404, body = Problem)))]
#[get("/sessions/<id>")]
async fn get_session(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    let id = path_id(id, "session")?;
    caller
        .read(move |conn, _| Reply::ok(queries::get_session(conn, &id)?))
        .await
}

/// Move the party to other free tables.
#[utoipa::path(tag = "Sessions", request_body = Move, responses(
    (status = 200, body = Session), (status = 409, body = Problem), (status = 422, body = Problem)))]
#[post("/sessions/<id>/move", data = "<body>")]
async fn move_session(caller: Caller, id: &str, body: JsonBody<Move>) -> Result<Reply, ApiError> {
    caller.require(Permission::SessionsWrite)?;
    let id = path_id(id, "session")?;
    caller
        .write(move |tx, caller| {
            Reply::ok(queries::move_session(
                tx,
                caller.tenant_id(),
                &id,
                &body.table_ids,
            )?)
        })
        .await
}

/// Close the session and release its tables; refused while orders are unpaid
/// unless a manager sends `{"force": true}`.
#[utoipa::path(tag = "Sessions", request_body = Close, responses(
    (status = 200, body = Session), (status = 403, body = Problem),
    (status = 409, body = Problem, description = "Already closed, or unpaid orders")))]
#[post("/sessions/<id>/close", data = "<body>")]
async fn close_session(caller: Caller, id: &str, body: JsonBody<Close>) -> Result<Reply, ApiError> {
    caller.require(Permission::SessionsWrite)?;
    if body.force {
        caller.require(Permission::SessionsForceClose)?;
    }
    let id = path_id(id, "session")?;
    caller
        .write(move |tx, caller| {
            Reply::ok(queries::close_session(
                tx,
                caller.tenant_id(),
                &id,
                body.force,
            )?)
        })
        .await
}
