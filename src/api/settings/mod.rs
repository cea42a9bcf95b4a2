//! Tenant settings over HTTP: `GET/PATCH /settings`.

use rocket::{get, patch};

use crate::api::body::JsonBody;
use crate::api::reply::Reply;
use crate::auth::{perm, Can};
use crate::domain::settings::{self, *};
use crate::error::{ApiError, Problem};

super::group![get_settings, update_settings,];

/// The tenant's settings.
///
/// Roles: any signed-in role.
/// `currency` is fixed when the business is created; `timezone` and
/// `business_day_start_hour` decide local days and the business day.
#[utoipa::path(tag = "Settings", responses((status = 200, body = Settings), (status = 401, body = Problem)))]
#[get("/settings")]
async fn get_settings(caller: Can<perm::SettingsRead>) -> Result<Reply, ApiError> {
    caller
        .read(move |conn| Reply::ok(settings::get_settings(conn)?))
        .await
}

/// Change settings; absent fields keep their value.
///
/// Roles: owner, manager.
/// `currency` cannot change. No webhook event.
#[utoipa::path(tag = "Settings", request_body = SettingsPatch, responses(
    (status = 200, body = Settings), (status = 403, body = Problem), (status = 422, body = Problem)))]
#[patch("/settings", data = "<body>")]
async fn update_settings(
    caller: Can<perm::SettingsWrite>,
    body: JsonBody<SettingsPatch>,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| Reply::ok(tx.update_settings(&body)?))
        .await
}
