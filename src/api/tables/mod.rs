//! Floors and tables over HTTP: the floor plan, its layout, and the seatmap with
//! each table's live state. The rules live in `domain::tables` and, for the live
//! state, `domain::dining::seatmap`.

use rocket::{delete, get, patch, post, put};

use crate::api::body::JsonBody;
use crate::api::pagination::Page;
use crate::api::reply::Reply;
use crate::auth::{perm, Can};
use crate::domain::dining::seatmap::{self, Seatmap};
use crate::domain::tables::{self, *};
use crate::domain::validate::path_id;
use crate::error::{ApiError, Problem};

super::group![
    list_floors,
    create_floor,
    get_floor,
    update_floor,
    delete_floor,
    save_layout,
    list_tables,
    create_table,
    get_table,
    update_table,
    delete_table,
    get_seatmap,
];

/// All floors, in display order.
///
/// Roles: owner, manager, cashier, server, host.
/// Every floor in one page; `next_cursor` is always null.
#[utoipa::path(tag = "Tables", responses((status = 200, body = Page<Floor>), (status = 403, body = Problem)))]
#[get("/floors")]
async fn list_floors(caller: Can<perm::DiningRead>) -> Result<Reply, ApiError> {
    caller
        .read(move |conn| {
            Reply::ok(Page {
                data: tables::list_floors(conn)?,
                next_cursor: None,
            })
        })
        .await
}

/// Create a floor.
///
/// Roles: owner, manager.
/// Floor names are unique in the business. No webhook event.
#[utoipa::path(tag = "Tables", request_body = NewFloor, responses(
    (status = 201, body = Floor), (status = 409, body = Problem, description = "Codes: `already_exists` (a floor of that name)"), (status = 422, body = Problem)))]
#[post("/floors", data = "<body>")]
async fn create_floor(
    caller: Can<perm::FloorPlanWrite>,
    body: JsonBody<NewFloor>,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| Reply::created(tables::insert_floor(tx, &body)?))
        .await
}

/// Get a floor.
///
/// Roles: owner, manager, cashier, server, host.
/// Its tables are listed by `GET /tables?floor_id=`.
#[utoipa::path(tag = "Tables", responses((status = 200, body = Floor), (status = 404, body = Problem)))]
#[get("/floors/<id>")]
async fn get_floor(caller: Can<perm::DiningRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "floor")?;
    caller
        .read(move |conn| Reply::ok(tables::get_floor(conn, &id)?))
        .await
}

/// Rename or reorder a floor.
///
/// Roles: owner, manager.
/// Absent fields keep their value. No webhook event.
#[utoipa::path(tag = "Tables", request_body = FloorPatch, responses(
    (status = 200, body = Floor), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[patch("/floors/<id>", data = "<body>")]
async fn update_floor(
    caller: Can<perm::FloorPlanWrite>,
    id: &str,
    body: JsonBody<FloorPatch>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "floor")?;
    caller
        .write(move |tx| Reply::ok(tables::update_floor(tx, &id, &body)?))
        .await
}

/// Delete an empty floor.
///
/// Roles: owner, manager.
/// Refused with 409 `floor_not_empty` while any table is on it.
#[utoipa::path(tag = "Tables", responses(
    (status = 204), (status = 404, body = Problem), (status = 409, body = Problem, description = "Codes: `floor_not_empty`")))]
#[delete("/floors/<id>")]
async fn delete_floor(caller: Can<perm::FloorPlanWrite>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "floor")?;
    caller
        .write(move |tx| tables::delete_floor(tx, &id))
        .await?;
    Ok(Reply::no_content())
}

/// Save the positions of a floor's tables at once; tables not listed keep theirs.
///
/// Roles: owner, manager.
/// Every table listed must be on this floor (422 otherwise). Answers with the floor's
/// tables as they now are.
#[utoipa::path(tag = "Tables", request_body = Layout, responses(
    (status = 200, body = Page<Table>), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[put("/floors/<id>/layout", data = "<body>")]
async fn save_layout(
    caller: Can<perm::FloorPlanWrite>,
    id: &str,
    body: JsonBody<Layout>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "floor")?;
    caller
        .write(move |tx| {
            Reply::ok(Page {
                data: tables::save_layout(tx, &id, &body)?,
                next_cursor: None,
            })
        })
        .await
}

/// All tables, optionally of one floor.
///
/// Roles: owner, manager, cashier, server, host.
/// Every table in one page, with its floor, seats and position; the live state is in
/// `GET /tables/seatmap`.
#[utoipa::path(tag = "Tables", responses((status = 200, body = Page<Table>), (status = 403, body = Problem)))]
#[get("/tables?<floor_id>")]
async fn list_tables(
    caller: Can<perm::DiningRead>,
    floor_id: Option<&str>,
) -> Result<Reply, ApiError> {
    let floor_id = floor_id.map(|f| path_id(f, "floor")).transpose()?;
    caller
        .read(move |conn| {
            Reply::ok(Page {
                data: tables::list_tables(conn, floor_id.as_deref())?,
                next_cursor: None,
            })
        })
        .await
}

/// Create a table; its name is unique in the tenant.
///
/// Roles: owner, manager.
/// It shows on the seatmap as free at once. No webhook event.
#[utoipa::path(tag = "Tables", request_body = NewTable, responses(
    (status = 201, body = Table), (status = 409, body = Problem, description = "Codes: `already_exists` (a table of that name)"), (status = 422, body = Problem)))]
#[post("/tables", data = "<body>")]
async fn create_table(
    caller: Can<perm::FloorPlanWrite>,
    body: JsonBody<NewTable>,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| Reply::created(tables::insert_table(tx, &body)?))
        .await
}

/// Get a table.
///
/// Roles: owner, manager, cashier, server, host.
/// Its configuration only; the live state is in `GET /tables/seatmap`.
#[utoipa::path(tag = "Tables", responses((status = 200, body = Table), (status = 404, body = Problem)))]
#[get("/tables/<id>")]
async fn get_table(caller: Can<perm::DiningRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "table")?;
    caller
        .read(move |conn| Reply::ok(tables::get_table(conn, &id)?))
        .await
}

/// Change a table; `active: false` takes it out of service.
///
/// Roles: owner, manager.
/// Absent fields keep their value. A table out of service cannot be seated or booked.
#[utoipa::path(tag = "Tables", request_body = TablePatch, responses(
    (status = 200, body = Table), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[patch("/tables/<id>", data = "<body>")]
async fn update_table(
    caller: Can<perm::FloorPlanWrite>,
    id: &str,
    body: JsonBody<TablePatch>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "table")?;
    caller
        .write(move |tx| Reply::ok(tables::update_table(tx, &id, &body)?))
        .await
}

/// Delete a table that has never been used.
///
/// Roles: owner, manager.
/// A table with orders or sessions in its history, or held by a pending or confirmed
/// reservation, answers 409 `table_in_use`; take it out of service instead.
#[utoipa::path(tag = "Tables", responses(
    (status = 204), (status = 404, body = Problem), (status = 409, body = Problem, description = "Codes: `table_in_use` (an open seating session)")))]
#[delete("/tables/<id>")]
async fn delete_table(caller: Can<perm::FloorPlanWrite>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "table")?;
    caller
        .write(move |tx| seatmap::delete_table(tx, &id))
        .await?;
    Ok(Reply::no_content())
}

/// Every floor with its tables and their live state.
///
/// Roles: owner, manager, cashier, server, host.
/// Each table's `state` is `free`, `occupied` (with its session), `reserved_soon` (a
/// booking starts within the hold window) or `out_of_service`.
#[utoipa::path(tag = "Tables", responses((status = 200, body = Seatmap), (status = 403, body = Problem)))]
#[get("/tables/seatmap")]
async fn get_seatmap(caller: Can<perm::DiningRead>) -> Result<Reply, ApiError> {
    let now = caller.now();
    caller
        .read(move |conn| Reply::ok(seatmap::seatmap(conn, now)?))
        .await
}
