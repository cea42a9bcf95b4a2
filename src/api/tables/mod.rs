//! Floors and tables: the floor plan, its layout, and the seatmap with each table's
//! live state (free, occupied, reserved soon, out of service).

mod model;
mod queries;

pub use model::{Seatmap, SeatmapTable, Table, TableState};
pub use queries::{seatable_tables, seatmap};

use rocket::{delete, get, patch, post, put, routes, Route};
use utoipa::OpenApi;

use crate::api::body::JsonBody;
use crate::api::pagination::Page;
use crate::api::reply::Reply;
use crate::api::settings;
use crate::api::validate::{path_id, Checks};
use crate::auth::{Caller, Permission};
use crate::error::{ApiError, Problem};
use model::*;

pub fn routes() -> Vec<Route> {
    routes![
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
        get_seatmap
    ]
}

#[derive(OpenApi)]
#[openapi(paths(
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
    get_seatmap
))]
pub struct Docs;

/// All floors, in display order.
#[utoipa::path(tag = "Tables", responses((status = 200, body = Page<Floor>), (status = 403, body = Problem)))]
#[get("/floors")]
async fn list_floors(caller: Caller) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    caller
        .read(move |conn, _| {
            Reply::ok(Page {
                data: queries::list_floors(conn)?,
                next_cursor: None,
            })
        })
        .await
}

/// Create a floor.
#[utoipa::path(tag = "Tables", request_body = NewFloor, responses(
    (status = 201, body = Floor), (status = 409, body = Problem), (status = 422, body = Problem)))]
#[post("/floors", data = "<body>")]
async fn create_floor(caller: Caller, body: JsonBody<NewFloor>) -> Result<Reply, ApiError> {
    caller.require(Permission::FloorPlanWrite)?;
    let mut checks = Checks::new();
    let name = checks.text("name", &body.name, 80);
    let position = checks.integer_in("position", body.position.unwrap_or(0), 0..=10_000);
    checks.finish()?;
    caller
        .write(move |tx, _| Reply::created(queries::insert_floor(tx, &name, position)?))
        .await
}

/// Get a floor.
#[utoipa::path(tag = "Tables", responses((status = 200, body = Floor), (status = 404, body = Problem)))]
#[get("/floors/<id>")]
async fn get_floor(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    let id = path_id(id, "floor")?;
    caller
        .read(move |conn, _| Reply::ok(queries::get_floor(conn, &id)?))
        .await
}

/// Rename or reorder a floor.
#[utoipa::path(tag = "Tables", request_body = FloorPatch, responses(
    (status = 200, body = Floor), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[patch("/floors/<id>", data = "<body>")]
async fn update_floor(
    caller: Caller,
    id: &str,
    body: JsonBody<FloorPatch>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::FloorPlanWrite)?;
    let id = path_id(id, "floor")?;
    caller
        .write(move |tx, _| Reply::ok(queries::update_floor(tx, &id, &body)?))
        .await
}

/// Delete an empty floor.
#[utoipa::path(tag = "Tables", responses(
    (status = 204), (status = 404, body = Problem), (status = 409, body = Problem)))]
#[delete("/floors/<id>")]
async fn delete_floor(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    caller.require(Permission::FloorPlanWrite)?;
    let id = path_id(id, "floor")?;
    caller
        .write(move |tx, _| queries::delete_floor(tx, &id))
        .await?;
    Ok(Reply::no_content())
}

/// Save the positions of a floor's tables at once; tables not listed keep theirs.
#[utoipa::path(tag = "Tables", request_body = Layout, responses(
    (status = 200, body = Page<Table>), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[put("/floors/<id>/layout", data = "<body>")]
async fn save_layout(caller: Caller, id: &str, body: JsonBody<Layout>) -> Result<Reply, ApiError> {
    caller.require(Permission::FloorPlanWrite)?;
    let id = path_id(id, "floor")?;
    caller
        .write(move |tx, _| {
            Reply::ok(Page {
                data: queries::save_layout(tx, &id, &body)?,
                next_cursor: None,
            })
        })
        .await
}

/// All tables, optionally of one floor.
#[utoipa::path(tag = "Tables", responses((status = 200, body = Page<Table>), (status = 403, body = Problem)))]
#[get("/tables?<floor_id>")]
async fn list_tables(caller: Caller, floor_id: Option<&str>) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    let floor_id = floor_id.map(|f| path_id(f, "floor")).transpose()?;
    caller
        .read(move |conn, _| {
            Reply::ok(Page {
                data: queries::list_tables(conn, floor_id.as_deref())?,
                next_cursor: None,
            })
        })
        .await
}

/// Create a table; its name is unique in the tenant.
#[utoipa::path(tag = "Tables", request_body = NewTable, responses(
    (status = 201, body = Table), (status = 409, body = Problem), (status = 422, body = Problem)))]
#[post("/tables", data = "<body>")]
async fn create_table(caller: Caller, body: JsonBody<NewTable>) -> Result<Reply, ApiError> {
    caller.require(Permission::FloorPlanWrite)?;
    caller
        .write(move |tx, _| Reply::created(queries::insert_table(tx, &body)?))
        .await
}

/// Get a table.
#[utoipa::path(tag = "Tables", responses((status = 200, body = Table), (status = 404, body = Problem)))]
#[get("/tables/<id>")]
async fn get_table(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    let id = path_id(id, "table")?;
    caller
        .read(move |conn, _| Reply::ok(queries::get_table(conn, &id)?))
        .await
}

/// Change a table; `active: false` takes it out of service.
#[utoipa::path(tag = "Tables", request_body = TablePatch, responses(
    (status = 200, body = Table), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[patch("/tables/<id>", data = "<body>")]
async fn update_table(
    caller: Caller,
    id: &str,
    body: JsonBody<TablePatch>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::FloorPlanWrite)?;
    let id = path_id(id, "table")?;
    caller
        .write(move |tx, _| Reply::ok(queries::update_table(tx, &id, &body)?))
        .await
}

/// Delete a table that has never been used.
#[utoipa::path(tag = "Tables", responses(
    (status = 204), (status = 404, body = Problem), (status = 409, body = Problem)))]
#[delete("/tables/<id>")]
async fn delete_table(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    caller.require(Permission::FloorPlanWrite)?;
    let id = path_id(id, "table")?;
    caller
        .write(move |tx, _| queries::delete_table(tx, &id))
        .await?;
    Ok(Reply::no_content())
}

/// Every floor with its tables and their live state.
#[utoipa::path(tag = "Tables", responses((status = 200, body = Seatmap), (status = 403, body = Problem)))]
#[get("/tables/seatmap")]
async fn get_seatmap(caller: Caller) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    caller
        .read(move |conn, _| {
            let settings = settings::load(conn)?;
            Reply::ok(queries::seatmap(conn, chrono::Utc::now(), &settings)?)
        })
        .await
}
