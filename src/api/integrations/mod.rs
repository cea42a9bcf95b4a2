//! Integrations over HTTP: the delivery platforms and payment gateways a
//! business connects (each with the URL to paste into the partner's
//! dashboard), the map of a platform's items to the menu, and the inbox of
//! every message partners sent, with retries. The messages themselves arrive
//! at `/webhook/...` (see `crate::inbound`).

use rocket::{delete, get, post, put};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::api::body::JsonBody;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::auth::{perm, Can};
use crate::domain::partners::{self, *};
use crate::domain::validate::{path_id, query_filter, Checks};
use crate::domain::webhooks;
use crate::error::{ApiError, Problem};
use crate::inbound::adapters::{self, Adapter};

super::group![
    list_integrations,
    put_integration,
    delete_integration,
    list_messages,
    get_message,
    retry_message,
    get_menu_map,
    put_menu_map,
];

/// A platform Brigade has an adapter for.
#[derive(Serialize, ToSchema)]
pub struct AvailableAdapter {
    pub kind: IntegrationKind,
    pub name: &'static str,
}

#[derive(Serialize, ToSchema)]
pub struct Integrations {
    /// The base of every integration's URL (the server's `--public-url`).
    pub public_url: String,
    pub integrations: Vec<Integration>,
    /// What can be connected.
    pub available: Vec<AvailableAdapter>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IntegrationInput {
    /// The signing secret or key from the partner's dashboard; required the
    /// first time, never shown again (only its last four characters).
    #[schema(min_length = 1, max_length = 500)]
    pub secret: Option<String>,
    /// Default true.
    pub enabled: Option<bool>,
    /// Delivery only (default true): an order that arrives placed is accepted at
    /// once and fires to the kitchen; otherwise it waits, pending, for staff.
    pub auto_accept: Option<bool>,
    /// The adapter's options, a JSON object (see the README, "Inbound
    /// integrations"); replaces the stored ones.
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
}

fn kind_and_adapter(
    kind: &str,
    name: &str,
) -> Result<(IntegrationKind, &'static dyn Adapter), ApiError> {
    let kind =
        IntegrationKind::parse(kind).ok_or_else(|| ApiError::not_found("integration kind"))?;
    let adapter = adapters::find(kind, name).ok_or_else(|| ApiError::not_found("integration"))?;
    Ok((kind, adapter))
}

/// Every integration, with the URL to give the partner, and what can be connected.
///
/// Roles: owner, manager.
/// Secrets never show; `secret_last4` tells which one is set.
#[utoipa::path(tag = "Integrations", responses((status = 200, body = Integrations), (status = 403, body = Problem)))]
#[get("/integrations")]
async fn list_integrations(caller: Can<perm::IntegrationsManage>) -> Result<Reply, ApiError> {
    let public_url = caller.app.config.public_base();
    let slug = caller.tenant.info.slug.clone();
    caller
        .read(move |conn| {
            Reply::ok(Integrations {
                integrations: partners::list_integrations(conn, &public_url, &slug)?,
                public_url,
                available: adapters::ADAPTERS
                    .iter()
                    .flat_map(|a| {
                        a.kinds().iter().map(|kind| AvailableAdapter {
                            kind: *kind,
                            name: a.name(),
                        })
                    })
                    .collect(),
            })
        })
        .await
}

/// Connect a platform, or change its secret, switch or options.
///
/// Roles: owner, manager.
/// `kind` is `delivery` or `payment`; `name` an adapter that serves it
/// (`stripe`, `square`, `adyen` and `generic` for payments; `ubereats`,
/// `deliveroo` and `generic` for delivery). The answer's `url` is what to paste
/// into the partner's dashboard. 201 when created.
#[utoipa::path(tag = "Integrations", request_body(content = IntegrationInput, example = json!({
    "secret": "whsec_0123456789abcdef", "enabled": true})),
    responses((status = 200, body = Integration), (status = 201, body = Integration),
    (status = 403, body = Problem), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[put("/integrations/<kind>/<name>", data = "<body>")]
async fn put_integration(
    caller: Can<perm::IntegrationsManage>,
    kind: &str,
    name: &str,
    body: JsonBody<IntegrationInput>,
) -> Result<Reply, ApiError> {
    let (kind, adapter) = kind_and_adapter(kind, name)?;
    let input = body.value;
    let secret = match input.secret.as_deref() {
        Some(secret) => {
            let mut checks = Checks::new();
            let secret = checks.text("secret", secret, 500);
            checks.finish()?;
            adapter
                .check_secret(&secret)
                .map_err(|e| ApiError::invalid_field("secret", e))?;
            let sealed = caller
                .app
                .inbound
                .sealer
                .seal(&secret)
                .map_err(ApiError::internal)?;
            Some((sealed, webhooks::last4(&secret)))
        }
        None => None,
    };
    if let Some(options) = &input.options {
        if !options.is_object() {
            return Err(ApiError::invalid_field("options", "must be a JSON object"));
        }
        adapter
            .check_options(options)
            .map_err(|e| ApiError::invalid_field("options", e))?;
    }
    if input.auto_accept.is_some() && kind != IntegrationKind::Delivery {
        return Err(ApiError::invalid_field(
            "auto_accept",
            "only delivery integrations accept orders",
        ));
    }
    let change = IntegrationChange {
        secret,
        enabled: input.enabled,
        auto_accept: input.auto_accept,
        options: input.options,
    };
    let public_url = caller.app.config.public_base();
    let slug = caller.tenant.info.slug.clone();
    let name = name.to_string();
    caller
        .write(move |tx| {
            let created = partners::put_integration(tx, kind, &name, change)?;
            let integration = partners::get_integration(tx, kind, &name, &public_url, &slug)?;
            if created {
                Reply::created(integration)
            } else {
                Reply::ok(integration)
            }
        })
        .await
}

/// Disconnect a platform: its messages stay listed; any not yet processed fail.
///
/// Roles: owner, manager.
/// Messages sent to its URL afterwards are refused (404) and counted.
#[utoipa::path(tag = "Integrations", responses((status = 204), (status = 403, body = Problem), (status = 404, body = Problem)))]
#[delete("/integrations/<kind>/<name>")]
async fn delete_integration(
    caller: Can<perm::IntegrationsManage>,
    kind: &str,
    name: &str,
) -> Result<Reply, ApiError> {
    let (kind, _) = kind_and_adapter(kind, name)?;
    let name = name.to_string();
    caller
        .write(move |tx| {
            partners::delete_integration(tx, kind, &name)?;
            Ok(Reply::no_content())
        })
        .await
}

/// Partners' messages, newest first, with their raw bodies.
///
/// Roles: owner, manager.
/// `status` is `received`, `processed`, `duplicate`, `rejected`, `parked` or `failed`;
/// `reason` says why a message was rejected, parked or failed.
#[utoipa::path(tag = "Integrations", responses((status = 200, body = Page<InboxMessage>), (status = 403, body = Problem), (status = 422, body = Problem)))]
#[get("/integrations/messages?<status>&<limit>&<cursor>")]
async fn list_messages(
    caller: Can<perm::IntegrationsManage>,
    status: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let status = query_filter("status", status, MessageStatus::parse)?;
    let limit = pagination::limit(limit)?;
    let cursor = cursor.map(str::to_string);
    caller
        .read(move |conn| {
            let rows = partners::list_messages(conn, status, cursor.as_deref(), limit)?;
            Reply::ok(pagination::page(rows, limit, |m| m.id.clone()))
        })
        .await
}

/// One message with its raw body and headers.
///
/// Roles: owner, manager.
/// Credentials among its headers were never kept.
#[utoipa::path(tag = "Integrations", responses((status = 200, body = InboxMessage), (status = 403, body = Problem), (status = 404, body = Problem)))]
#[get("/integrations/messages/<id>")]
async fn get_message(caller: Can<perm::IntegrationsManage>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "message")?;
    caller
        .read(move |conn| Reply::ok(partners::get_message(conn, &id)?))
        .await
}

/// Process a parked or failed message again, now.
///
/// Roles: owner, manager.
/// For a parked message, fix what its `reason` names first (create the order,
/// map the item). Its effects emit the usual `order.*` events.
#[utoipa::path(tag = "Integrations", responses((status = 200, body = InboxMessage), (status = 403, body = Problem), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Only parked and failed messages are retried. Codes: `illegal_transition`")))]
#[post("/integrations/messages/<id>/retry")]
async fn retry_message(caller: Can<perm::IntegrationsManage>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "message")?;
    let (app, tenant_id) = (caller.app.clone(), caller.tenant_id());
    let reply = caller
        .write(move |tx| Reply::ok(partners::retry_message(tx, &id)?))
        .await?;
    app.inbound.wake(tenant_id);
    Ok(reply)
}

/// A delivery platform's item ids (or SKUs) mapped to menu items.
///
/// Roles: owner, manager.
/// Lines with no mapping match a menu item of the same name, else stay open items
/// at the platform's price.
#[utoipa::path(tag = "Integrations", responses((status = 200, body = MenuMap), (status = 403, body = Problem), (status = 404, body = Problem)))]
#[get("/integrations/delivery/<name>/menu-map")]
async fn get_menu_map(
    caller: Can<perm::IntegrationsManage>,
    name: &str,
) -> Result<Reply, ApiError> {
    kind_and_adapter("delivery", name)?;
    let name = name.to_string();
    caller
        .read(move |conn| Reply::ok(partners::get_menu_map(conn, &name)?))
        .await
}

/// Replace a delivery platform's menu map.
///
/// Roles: owner, manager.
/// Each `external_id` once; each `menu_item_id` a live menu item. Orders already
/// received keep their lines.
#[utoipa::path(tag = "Integrations", request_body(content = MenuMapInput, example = json!({
    "entries": [{"external_id": "burger-classic", "menu_item_id": "01890a5d-ac96-774b-bcce-b302099a8058"}]})),
    responses((status = 200, body = MenuMap), (status = 403, body = Problem), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[put("/integrations/delivery/<name>/menu-map", data = "<body>")]
async fn put_menu_map(
    caller: Can<perm::IntegrationsManage>,
    name: &str,
    body: JsonBody<MenuMapInput>,
) -> Result<Reply, ApiError> {
    kind_and_adapter("delivery", name)?;
    let name = name.to_string();
    caller
        .write(move |tx| Reply::ok(partners::put_menu_map(tx, &name, &body)?))
        .await
}
