//! Point-of-sale endpoints: the compact seatmap terminals poll, built from the
//! tables group's seatmap query.

mod model;

use rocket::get;

use crate::api::reply::Reply;
use crate::auth::{perm, Can};
use crate::domain::dining::seatmap;
use crate::error::{ApiError, Problem};
use model::*;

super::group![pos_seatmap,];

/// Every floor's tables with state, party and open order totals, compactly.
///
/// Roles: owner, manager, cashier, server, host.
/// The same state as `GET /tables/seatmap` in a smaller shape, for terminals that poll
/// it.
#[utoipa::path(tag = "POS", responses((status = 200, body = PosSeatmap), (status = 403, body = Problem)))]
#[get("/pos/seatmap")]
async fn pos_seatmap(caller: Can<perm::DiningRead>) -> Result<Reply, ApiError> {
    let now = caller.now();
    caller
        .read(move |conn| Reply::ok(compact(seatmap::seatmap(conn, now)?)))
        .await
}
