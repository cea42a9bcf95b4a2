//! The kitchen over HTTP: stations, the ticket board, the cooks' moves and the
//! all-day counts. The rules live in `domain::kitchen`.

use rocket::{delete, get, patch, post};

use crate::api::body::JsonBody;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::auth::{perm, Can};
use crate::domain::kitchen::{self, *};
use crate::domain::stations::{self, NewStation, Station, StationPatch};
use crate::domain::validate::{path_id, query_filter, query_time};
use crate::domain::Tx;
use crate::error::{ApiError, Problem};

super::group![
    list_stations,
    create_station,
    get_station,
    update_station,
    delete_station,
    list_tickets,
    get_ticket,
    start_ticket,
    bump_ticket,
    recall_ticket,
    acknowledge_ticket,
    start_item,
    ready_item,
    all_day,
    kitchen_stats
];

/// The kitchen's stations, in display order.
///
/// Roles: owner, manager, cashier, server, kitchen.
/// Every station in one page, inactive ones included; `is_default` marks the one that
/// takes lines no active station claims.
#[utoipa::path(tag = "Kitchen", responses((status = 200, body = Page<Station>), (status = 403, body = Problem)))]
#[get("/kitchen/stations")]
async fn list_stations(caller: Can<perm::KitchenRead>) -> Result<Reply, ApiError> {
    caller
        .read(move |conn| {
            Reply::ok(Page {
                data: stations::list_stations(conn)?,
                next_cursor: None,
            })
        })
        .await
}

/// Add a station; lines go to the station their menu item names.
///
/// Roles: owner, manager.
/// `kind: expo` sees every station's tickets instead of cooking its own. Tickets show as
/// running late after `warn_after_minutes` (default 8) and late after
/// `late_after_minutes` (default 15).
#[utoipa::path(tag = "Kitchen", request_body = NewStation, responses(
    (status = 201, body = Station), (status = 409, body = Problem, description = "Codes: `already_exists` (a station of that name)"), (status = 422, body = Problem)))]
#[post("/kitchen/stations", data = "<body>")]
async fn create_station(
    caller: Can<perm::KitchenStations>,
    body: JsonBody<NewStation>,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| Reply::created(stations::create_station(tx, &body)?))
        .await
}

/// A station.
///
/// Roles: owner, manager, cashier, server, kitchen.
/// Inactive stations answer too.
#[utoipa::path(tag = "Kitchen", responses((status = 200, body = Station), (status = 404, body = Problem)))]
#[get("/kitchen/stations/<id>")]
async fn get_station(caller: Can<perm::KitchenRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "station")?;
    caller
        .read(move |conn| Reply::ok(stations::get_station(conn, &id)?))
        .await
}

/// Change a station; `active: false` stops sending it lines.
///
/// Roles: owner, manager.
/// Absent fields keep their value; tickets already sent stay where they are.
#[utoipa::path(tag = "Kitchen", request_body = StationPatch, responses(
    (status = 200, body = Station), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[patch("/kitchen/stations/<id>", data = "<body>")]
async fn update_station(
    caller: Can<perm::KitchenStations>,
    id: &str,
    body: JsonBody<StationPatch>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "station")?;
    caller
        .write(move |tx| Reply::ok(stations::update_station(tx, &id, &body)?))
        .await
}

/// Delete a station that never had a ticket.
///
/// Roles: owner, manager.
/// Refused with 409 `station_in_use` for the default station, one that had tickets, or
/// one menu items or categories send lines to; switch it off instead.
#[utoipa::path(tag = "Kitchen", responses(
    (status = 204), (status = 404, body = Problem), (status = 409, body = Problem, description = "Codes: `station_in_use` (the default station, one with tickets, or one menu items or categories point at; the detail says which)")))]
#[delete("/kitchen/stations/<id>")]
async fn delete_station(caller: Can<perm::KitchenStations>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "station")?;
    caller
        .write(move |tx| kitchen::remove_station(tx, &id))
        .await?;
    Ok(Reply::no_content())
}

/// The `?station_id=` filter: a malformed id names no station (422).
fn station_filter(station_id: Option<&str>) -> Result<Option<String>, ApiError> {
    station_id
        .map(|s| {
            path_id(s, "station")
                .map_err(|_| ApiError::invalid_field("station_id", "no such station"))
        })
        .transpose()
}

/// The board, oldest first: open tickets and cancelled ones not yet acknowledged,
/// or those of one `status`. An expo station sees every station's tickets.
///
/// Roles: owner, manager, cashier, server, kitchen.
/// `station_id` shows one station's board. Each ticket carries its items,
/// `elapsed_seconds` and `version` (the higher of two views is newer).
#[utoipa::path(tag = "Kitchen", responses((status = 200, body = Page<Ticket>), (status = 422, body = Problem)))]
#[get("/kitchen/tickets?<station_id>&<status>&<limit>&<cursor>")]
async fn list_tickets(
    caller: Can<perm::KitchenRead>,
    station_id: Option<&str>,
    status: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let station_id = station_filter(station_id)?;
    let filter = TicketFilter {
        station_id,
        status: query_filter("status", status, TicketStatus::parse)?,
        after: cursor.map(str::to_string),
        limit: pagination::limit(limit)?,
    };
    let now = caller.app.clock.now();
    caller
        .read(move |conn| {
            let rows = kitchen::list_tickets(conn, &filter, now)?;
            Reply::ok(pagination::page(rows, filter.limit, |t| t.id.clone()))
        })
        .await
}

/// A ticket with its items.
///
/// Roles: owner, manager, cashier, server, kitchen.
/// Each item shows its state and any quantity voided since it was sent.
#[utoipa::path(tag = "Kitchen", responses((status = 200, body = Ticket), (status = 404, body = Problem)))]
#[get("/kitchen/tickets/<id>")]
async fn get_ticket(caller: Can<perm::KitchenRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "ticket")?;
    let now = caller.app.clock.now();
    caller
        .read(move |conn| Reply::ok(kitchen::get_ticket(conn, &id, now)?))
        .await
}

/// A cook starts the ticket: its queued items are cooking.
///
/// Roles: owner, manager, kitchen.
/// Emits `kitchen.ticket.updated` (sent to webhook endpoints that subscribe to it).
#[utoipa::path(tag = "Kitchen", responses((status = 200, body = Ticket), (status = 409, body = Problem, description = "The ticket is not open. Codes: `illegal_transition` (names `current_status`)")))]
#[post("/kitchen/tickets/<id>/start")]
async fn start_ticket(caller: Can<perm::KitchenWork>, id: &str) -> Result<Reply, ApiError> {
    move_ticket(caller, id, kitchen::start_ticket).await
}

/// The ticket is done; the order becomes ready when all its tickets are.
///
/// Roles: owner, manager, kitchen.
/// Every item becomes ready. Emits `kitchen.ticket.bumped`; when the order's last open
/// ticket is bumped and `kitchen_auto_ready` is on, the order becomes `ready`
/// (`order.updated`).
#[utoipa::path(tag = "Kitchen", responses((status = 200, body = Ticket), (status = 409, body = Problem, description = "The ticket is not open. Codes: `illegal_transition` (names `current_status`)")))]
#[post("/kitchen/tickets/<id>/bump")]
async fn bump_ticket(caller: Can<perm::KitchenWork>, id: &str) -> Result<Reply, ApiError> {
    move_ticket(caller, id, kitchen::bump_ticket).await
}

/// Bring a bumped ticket back to the board.
///
/// Roles: owner, manager, kitchen.
/// The order's status does not move back. Emits `kitchen.ticket.updated`.
#[utoipa::path(tag = "Kitchen", responses((status = 200, body = Ticket), (status = 409, body = Problem, description = "The ticket is not done. Codes: `illegal_transition` (names `current_status`)")))]
#[post("/kitchen/tickets/<id>/recall")]
async fn recall_ticket(caller: Can<perm::KitchenWork>, id: &str) -> Result<Reply, ApiError> {
    move_ticket(caller, id, kitchen::recall_ticket).await
}

/// A cook saw the cancellation: the ticket leaves the board.
///
/// Roles: owner, manager, kitchen.
/// Only for tickets of cancelled orders. Emits `kitchen.ticket.updated`.
#[utoipa::path(tag = "Kitchen", responses((status = 200, body = Ticket), (status = 409, body = Problem, description = "The ticket is not cancelled, or already acknowledged. Codes: `illegal_transition` (names `current_status`)")))]
#[post("/kitchen/tickets/<id>/acknowledge")]
async fn acknowledge_ticket(caller: Can<perm::KitchenWork>, id: &str) -> Result<Reply, ApiError> {
    move_ticket(caller, id, kitchen::acknowledge_ticket).await
}

/// One cook's move on a ticket, answered with the ticket as it now is.
async fn move_ticket(
    caller: Can<perm::KitchenWork>,
    id: &str,
    action: fn(&mut Tx, &str) -> Result<Ticket, ApiError>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "ticket")?;
    caller.write(move |tx| Reply::ok(action(tx, &id)?)).await
}

async fn move_item(
    caller: Can<perm::KitchenWork>,
    id: &str,
    line_id: &str,
    next: ItemState,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "ticket")?;
    let line_id = path_id(line_id, "ticket item")?;
    caller
        .write(move |tx| Reply::ok(kitchen::move_item(tx, &id, &line_id, next)?))
        .await
}

/// The item is cooking.
///
/// Roles: owner, manager, kitchen.
/// Starts the ticket's clock if it had not started. Emits `kitchen.ticket.updated`.
#[utoipa::path(tag = "Kitchen", responses((status = 200, body = Ticket), (status = 404, body = Problem), (status = 409, body = Problem, description = "The ticket is closed or the item cannot move there. Codes: `illegal_transition` (names `current_status`)")))]
#[post("/kitchen/tickets/<id>/items/<line_id>/start")]
async fn start_item(
    caller: Can<perm::KitchenWork>,
    id: &str,
    line_id: &str,
) -> Result<Reply, ApiError> {
    move_item(caller, id, line_id, ItemState::Cooking).await
}

/// The item is ready.
///
/// Roles: owner, manager, kitchen.
/// The ticket stays on the board until it is bumped. Emits `kitchen.ticket.updated`.
#[utoipa::path(tag = "Kitchen", responses((status = 200, body = Ticket), (status = 404, body = Problem), (status = 409, body = Problem, description = "The ticket is closed or the item cannot move there. Codes: `illegal_transition` (names `current_status`)")))]
#[post("/kitchen/tickets/<id>/items/<line_id>/ready")]
async fn ready_item(
    caller: Can<perm::KitchenWork>,
    id: &str,
    line_id: &str,
) -> Result<Reply, ApiError> {
    move_item(caller, id, line_id, ItemState::Ready).await
}

/// How many of each item, by modifiers, are still to cook on the open tickets.
///
/// Roles: owner, manager, cashier, server, kitchen.
/// `station_id` counts one station's tickets; an expo station, or none, counts every
/// station's.
#[utoipa::path(tag = "Kitchen", responses((status = 200, body = AllDay), (status = 422, body = Problem)))]
#[get("/kitchen/all-day?<station_id>")]
async fn all_day(
    caller: Can<perm::KitchenRead>,
    station_id: Option<&str>,
) -> Result<Reply, ApiError> {
    let station_id = station_filter(station_id)?;
    caller
        .read(move |conn| Reply::ok(kitchen::all_day(conn, station_id.as_deref())?))
        .await
}

/// Ticket times per station, for tickets bumped between `from` and `to`.
///
/// Roles: owner, manager, cashier, server, kitchen.
/// Per station: tickets, average and 90th percentile seconds from ticket to bump. Without
/// `from` and `to` every bumped ticket counts.
#[utoipa::path(tag = "Kitchen", responses((status = 200, body = KitchenStats), (status = 422, body = Problem)))]
#[get("/kitchen/stats?<from>&<to>")]
async fn kitchen_stats(
    caller: Can<perm::KitchenRead>,
    from: Option<&str>,
    to: Option<&str>,
) -> Result<Reply, ApiError> {
    let from = query_time("from", from)?;
    let to = query_time("to", to)?;
    caller
        .read(move |conn| Reply::ok(kitchen::stats(conn, from, to)?))
        .await
}
