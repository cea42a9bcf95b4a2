//! Webhooks: the tenant's endpoint and signing secret, the record of every delivery
//! with its attempts, manual retries and a test event.

mod model;
mod queries;

pub use queries::count_failed;

use rocket::http::Status;
use rocket::{get, post, put, routes, Route};
use serde_json::json;
use utoipa::OpenApi;

use crate::api::body::JsonBody;
use crate::api::idempotency::IdempotencyKey;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::api::validate::query_filter;
use crate::auth::{Caller, Permission};
use crate::error::{ApiError, Problem};
use crate::events::outbox;
use model::*;

pub fn routes() -> Vec<Route> {
    routes![
        get_endpoint,
        put_endpoint,
        rotate_secret,
        list_deliveries,
        get_delivery,
        retry_delivery,
        send_test_event
    ]
}

#[derive(OpenApi)]
#[openapi(paths(
    get_endpoint,
    put_endpoint,
    rotate_secret,
    list_deliveries,
    get_delivery,
    retry_delivery,
    send_test_event
))]
pub struct Docs;

/// The webhook endpoint; the secret shows only as its last four characters.
#[utoipa::path(tag = "Settings", responses((status = 200, body = WebhookEndpoint), (status = 403, body = Problem)))]
#[get("/settings/webhook")]
async fn get_endpoint(caller: Caller) -> Result<Reply, ApiError> {
    caller.require(Permission::WebhooksManage)?;
    caller
        .read(move |conn, _| Reply::ok(queries::get_endpoint(conn)?))
        .await
}

/// Set where events are sent and whether they are. The first call generates the
/// signing secret and returns it, this once. Events committed while no endpoint is
/// enabled wait and go out once one is.
#[utoipa::path(tag = "Settings", request_body = EndpointInput, responses(
    (status = 200, body = WebhookEndpoint), (status = 422, body = Problem)))]
#[put("/settings/webhook", data = "<body>")]
async fn put_endpoint(caller: Caller, body: JsonBody<EndpointInput>) -> Result<Reply, ApiError> {
    caller.require(Permission::WebhooksManage)?;
    let url = body.validated_url()?;
    let enabled = body.enabled;
    let endpoint = caller
        .tenant
        .write_queued(move |tx| queries::put_endpoint(tx, &url, enabled))
        .await?;
    caller.tenant.wake_delivery();
    Reply::ok(endpoint)
}

/// Replace the signing secret and return the new one, this once. The old secret
/// signs nothing more, retries of earlier events included.
#[utoipa::path(tag = "Settings", responses(
    (status = 200, body = WebhookEndpoint), (status = 409, body = Problem, description = "No endpoint set yet")))]
#[post("/settings/webhook/rotate-secret")]
async fn rotate_secret(caller: Caller) -> Result<Reply, ApiError> {
    caller.require(Permission::WebhooksManage)?;
    caller
        .write(move |tx, _| Reply::ok(queries::rotate_secret(tx)?))
        .await
}

/// Deliveries newest first, with their attempts and the next attempt's time.
#[utoipa::path(tag = "Webhooks", responses((status = 200, body = Page<Delivery>), (status = 422, body = Problem)))]
#[get("/webhooks/deliveries?<status>&<limit>&<cursor>")]
async fn list_deliveries(
    caller: Caller,
    status: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::WebhooksManage)?;
    let status = query_filter("status", status, DeliveryStatus::parse)?;
    let before = cursor
        .map(|c| {
            c.parse::<i64>()
                .map_err(|_| ApiError::invalid_field("cursor", "is not a cursor of this list"))
        })
        .transpose()?;
    let limit = pagination::limit(limit)?;
    caller
        .read(move |conn, _| {
            let rows = queries::list_deliveries(conn, status, before, limit)?;
            Reply::ok(pagination::page(rows, limit, |d| d.seq.to_string()))
        })
        .await
}

/// One event's delivery with every attempt.
#[utoipa::path(tag = "Webhooks", responses((status = 200, body = Delivery), (status = 404, body = Problem)))]
#[get("/webhooks/deliveries/<event_id>")]
async fn get_delivery(caller: Caller, event_id: &str) -> Result<Reply, ApiError> {
    caller.require(Permission::WebhooksManage)?;
    let event_id = model::event_id(event_id)?;
    caller
        .read(move |conn, _| Reply::ok(queries::get_delivery(conn, &event_id)?))
        .await
}

/// Send a pending or failed delivery now. A failed one gets a new 24 h of retries.
#[utoipa::path(tag = "Webhooks", responses(
    (status = 200, body = Delivery), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Already delivered; names current_status")))]
#[post("/webhooks/deliveries/<event_id>/retry")]
async fn retry_delivery(caller: Caller, event_id: &str) -> Result<Reply, ApiError> {
    caller.require(Permission::WebhooksManage)?;
    let event_id = model::event_id(event_id)?;
    let delivery = caller
        .tenant
        .write_queued(move |tx| queries::retry_delivery(tx, &event_id))
        .await?;
    caller.tenant.wake_delivery();
    Reply::ok(delivery)
}

/// Queue a `webhook.test` event, delivered like any other.
#[utoipa::path(tag = "Webhooks",
    params(("Idempotency-Key" = Option<String>, Header, description = "Repeat-safe key; a repeat within 24 h returns the first response")),
    responses((status = 202, body = TestEvent), (status = 409, body = Problem, description = "No endpoint set yet")))]
#[post("/webhooks/test")]
async fn send_test_event(caller: Caller, key: IdempotencyKey) -> Result<Reply, ApiError> {
    caller.require(Permission::WebhooksManage)?;
    caller.write(move |tx, caller| {
            key.run(tx, &caller.actor(), &[], |tx| {
                if queries::get_endpoint(tx)?.url.is_none() {
                    return Err(ApiError::conflict(
                        "webhook_not_configured",
                        "set the webhook endpoint with PUT /settings/webhook first",
                    ));
                }
                let data = json!({"message": "A test event from Brigade.", "requested_by": caller.actor()});
                let event_id = outbox::enqueue(tx, caller.tenant_id(), "webhook.test", data)?;
                Reply::with_status(Status::Accepted, TestEvent { event_id })
            })
        })
    .await
}
