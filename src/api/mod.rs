//! The JSON API under `/api/v1`: shared plumbing, and every group's routes mounted
//! and documented from one list.
//!
//! A group lists its handlers once, with [`group!`], which gives it both its
//! routes and its OpenAPI paths; [`GROUPS`] names every group. Handlers are thin:
//! a `Can<P>` guard (authentication and the route's permission), the request
//! parsed into domain types, one call into `crate::domain`, a reply.

pub mod admin;
pub mod attendance;
pub mod auth;
pub mod body;
pub mod campaigns;
pub mod devices;
pub mod idempotency;
pub mod integrations;
pub mod kitchen;
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
pub mod shifts;
pub mod stream;
pub mod tables;
pub mod users;
pub mod webhooks;

use rocket::Route;

pub const BASE: &str = "/api/v1";

/// One group of routes, mounted and documented from the same list of handlers.
pub struct Group {
    pub routes: fn() -> Vec<Route>,
    pub openapi: fn() -> utoipa::openapi::OpenApi,
}

/// Declares a group's handlers once: `group![list_orders, create_order, ...];`
/// defines its `routes()`, its OpenAPI `Docs` and its `GROUP` for [`GROUPS`], so a
/// handler is either mounted and documented or neither.
macro_rules! group {
    ($($handler:ident),+ $(,)?) => {
        pub fn routes() -> Vec<rocket::Route> {
            rocket::routes![$($handler),+]
        }

        #[derive(utoipa::OpenApi)]
        #[openapi(paths($($handler),+))]
        pub struct Docs;

        pub const GROUP: $crate::api::Group = $crate::api::Group {
            routes,
            openapi: <Docs as utoipa::OpenApi>::openapi,
        };
    };
}
pub(crate) use group;

/// Every group of the API.
pub const GROUPS: &[Group] = &[
    auth::GROUP,
    menu::GROUP,
    orders::GROUP,
    campaigns::GROUP,
    tables::GROUP,
    pos::GROUP,
    queue::GROUP,
    sessions::GROUP,
    reservations::GROUP,
    kitchen::GROUP,
    public::GROUP,
    settings::GROUP,
    webhooks::GROUP,
    notifications::GROUP,
    admin::GROUP,
    users::GROUP,
    devices::GROUP,
    attendance::GROUP,
    shifts::GROUP,
    integrations::GROUP,
    stream::GROUP,
    openapi::GROUP,
];

/// Every route of the API, relative to [`BASE`].
pub fn routes() -> Vec<Route> {
    GROUPS.iter().flat_map(|group| (group.routes)()).collect()
}
