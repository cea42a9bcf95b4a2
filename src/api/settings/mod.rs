//! Tenant settings: `GET/PATCH /settings`, and `load()` for the groups that need
//! the currency, the business day or the dining-room rules.

mod model;
mod queries;

pub use model::TenantSettings;
pub use queries::load;

use std::sync::Arc;

use rocket::{get, patch, routes, Route, State};
use utoipa::OpenApi;

use crate::api::body::JsonBody;
use crate::api::reply::Reply;
use crate::auth::{Caller, Permission};
use crate::error::{ApiError, Problem};
use crate::App;
use model::*;

pub fn routes() -> Vec<Route> {
    routes![get_settings, update_settings]
}

#[derive(OpenApi)]
#[openapi(paths(get_settings, update_settings))]
pub struct Docs;

/// The tenant's settings.
#[utoipa::path(tag = "Settings", responses((status = 200, body = Settings), (status = 401, body = Problem)))]
#[get("/settings")]
async fn get_settings(caller: Caller) -> Result<Reply, ApiError> {
    caller.require(Permission::SettingsRead)?;
    caller
        .read(move |conn, _| Reply::ok(queries::get_settings(conn)?))
        .await
}

/// Change settings; absent fields keep their value.
#[utoipa::path(tag = "Settings", request_body = SettingsPatch, responses(
    (status = 200, body = Settings), (status = 403, body = Problem), (status = 422, body = Problem)))]
#[patch("/settings", data = "<body>")]
async fn update_settings(
    app: &State<Arc<App>>,
    caller: Caller,
    body: JsonBody<SettingsPatch>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::SettingsWrite)?;
    let tenant_id = caller.tenant_id();
    let reply = caller
        .write(move |tx, _| Reply::ok(queries::update_settings(tx, &body)?))
        .await?;
    // The grace window moves every reservation's no-show deadline.
    app.scheduler.forget(tenant_id);
    Ok(reply)
}
