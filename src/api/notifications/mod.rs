//! Notifications: the counts the admin dashboard shows as badges.

use rocket::{get, routes, Route};
use serde::Serialize;
use utoipa::{OpenApi, ToSchema};

use crate::api::reply::Reply;
use crate::api::webhooks;
use crate::auth::{Caller, Permission};
use crate::error::{ApiError, Problem};

pub fn routes() -> Vec<Route> {
    routes![summary]
}

#[derive(OpenApi)]
#[openapi(paths(summary))]
pub struct Docs;

#[derive(Serialize, ToSchema)]
pub struct Summary {
    /// Webhook deliveries that gave up after 24 h of retries.
    pub failed_deliveries: i64,
}

/// What needs attention.
#[utoipa::path(tag = "Notifications", responses((status = 200, body = Summary), (status = 403, body = Problem)))]
#[get("/notifications/summary")]
async fn summary(caller: Caller) -> Result<Reply, ApiError> {
    caller.require(Permission::NotificationsRead)?;
    caller
        .read(move |conn, _| {
            Reply::ok(Summary {
                failed_deliveries: webhooks::count_failed(conn)?,
            })
        })
        .await
}
