//! The JSON API under `/api/v1`: shared plumbing, and every group's routes mounted
//! in one place.

pub mod auth;
pub mod body;
pub mod idempotency;
pub mod menu;
pub mod notifications;
pub mod openapi;
pub mod orders;
pub mod pagination;
pub mod pos;
pub mod public;
pub mod queue;
pub mod reply;
pub mod reservations;
pub mod sessions;
pub mod settings;
pub mod stream;
pub mod tables;
pub mod users;
pub mod validate;
pub mod webhooks;

use rocket::Route;

pub const BASE: &str = "/api/v1";

/// Every route of the API, relative to [`BASE`].
pub fn routes() -> Vec<Route> {
    let mut routes = Vec::new();
    routes.extend(auth::routes());
    routes.extend(menu::routes());
    routes.extend(orders::routes());
    routes.extend(tables::routes());
    routes.extend(pos::routes());
    routes.extend(queue::routes());
    routes.extend(sessions::routes());
    routes.extend(reservations::routes());
    routes.extend(public::routes());
    routes.extend(settings::routes());
    routes.extend(webhooks::routes());
    routes.extend(notifications::routes());
    routes.extend(stream::routes());
    routes.extend(openapi::routes());
    routes
}
