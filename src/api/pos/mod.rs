//! Point-of-sale endpoints: the compact seatmap terminals poll, built from the
//! tables group's seatmap query.

mod model;

use rocket::{get, routes, Route};
use utoipa::OpenApi;

use crate::api::reply::Reply;
use crate::api::{settings, tables};
use crate::auth::{Caller, Permission};
use crate::error::{ApiError, Problem};
use model::*;

pub fn routes() -> Vec<Route> {
    routes![pos_seatmap]
}

#[derive(OpenApi)]
#[openapi(paths(pos_seatmap))]
pub struct Docs;

/// Every floor's tables with state, party and open order totals, compactly.
#[utoipa::path(tag = "POS", responses((status = 200, body = PosSeatmap), (status = 403, body = Problem)))]
#[get("/pos/seatmap")]
async fn pos_seatmap(caller: Caller) -> Result<Reply, ApiError> {
    caller.require(Permission::DiningRead)?;
    caller
        .read(move |conn, _| {
            let settings = settings::load(conn)?;
            Reply::ok(compact(tables::seatmap(
                conn,
                chrono::Utc::now(),
                &settings,
            )?))
        })
        .await
}
