//! Webhooks over HTTP: the tenant's endpoint and signing secret, the record of
//! every delivery with its attempts, manual retries and a test event.

use rocket::http::Status;
use rocket::{get, post, put};

use crate::api::body::JsonBody;
use crate::api::idempotency::IdempotencyKey;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::auth::{perm, Can};
use crate::domain::validate::query_filter;
use crate::domain::webhooks::{self, *};
use crate::error::{ApiError, Problem};

super::group![
    get_endpoint,
    put_endpoint,
    rotate_secret,
    list_deliveries,
    get_delivery,
    retry_delivery,
    send_test_event,
];

/// The webhook endpoint; the secret shows only as its last four characters.
///
/// Roles: owner, manager.
/// Before one is set, `url` is null and `enabled` false; `events` lists what is sent.
#[utoipa::path(tag = "Settings", responses((status = 200, body = WebhookEndpoint), (status = 403, body = Problem)))]
#[get("/settings/webhook")]
async fn get_endpoint(caller: Can<perm::WebhooksManage>) -> Result<Reply, ApiError> {
    caller
        .read(move |conn| Reply::ok(webhooks::get_endpoint(conn)?))
        .await
}

/// Set where events are sent and whether they are. The first call generates the
/// signing secret and returns it, this once. Events committed while no endpoint is
/// enabled wait and go out once one is.
///
/// Roles: owner, manager.
/// Without `events` the current list stays, at first the contract's twelve;
/// `kitchen.ticket.*` may be added. Deliveries carry `X-Service-Signature`, made with the
/// secret.
#[utoipa::path(tag = "Settings", request_body = EndpointInput, responses(
    (status = 200, body = WebhookEndpoint), (status = 422, body = Problem)))]
#[put("/settings/webhook", data = "<body>")]
async fn put_endpoint(
    caller: Can<perm::WebhooksManage>,
    body: JsonBody<EndpointInput>,
) -> Result<Reply, ApiError> {
    let url = body.validated_url()?;
    let events = body.validated_events()?;
    let enabled = body.enabled;
    caller
        .write(move |tx| Reply::ok(webhooks::put_endpoint(tx, &url, enabled, events)?))
        .await
}

/// Replace the signing secret and return the new one, this once. The old secret
/// signs nothing more, retries of earlier events included.
///
/// Roles: owner, manager.
/// The URL, the switch and the event list stay as they are; give the receiver the new
/// secret at once.
#[utoipa::path(tag = "Settings", responses(
    (status = 200, body = WebhookEndpoint), (status = 409, body = Problem, description = "No endpoint set yet. Codes: `webhook_not_configured`")))]
#[post("/settings/webhook/rotate-secret")]
async fn rotate_secret(caller: Can<perm::WebhooksManage>) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| Reply::ok(webhooks::rotate_secret(tx)?))
        .await
}

/// Deliveries newest first, with their attempts and the next attempt's time.
///
/// Roles: owner, manager.
/// `status` is `pending`, `delivered` or `failed`.
#[utoipa::path(tag = "Webhooks", responses((status = 200, body = Page<Delivery>), (status = 422, body = Problem)))]
#[get("/webhooks/deliveries?<status>&<limit>&<cursor>")]
async fn list_deliveries(
    caller: Can<perm::WebhooksManage>,
    status: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let status = query_filter("status", status, DeliveryStatus::parse)?;
    let before = cursor
        .map(|c| {
            c.parse::<i64>()
                .map_err(|_| ApiError::invalid_field("cursor", "is not a cursor of this list"))
        })
        .transpose()?;
    let limit = pagination::limit(limit)?;
    caller
        .read(move |conn| {
            let rows = webhooks::list_deliveries(conn, status, before, limit)?;
            Reply::ok(pagination::page(rows, limit, |d| d.seq.to_string()))
        })
        .await
}

/// One event's delivery with every attempt.
///
/// Roles: owner, manager.
/// `event_id` is the envelope's `id` (`evt_…`).
#[utoipa::path(tag = "Webhooks", responses((status = 200, body = Delivery), (status = 404, body = Problem)))]
#[get("/webhooks/deliveries/<event_id>")]
async fn get_delivery(
    caller: Can<perm::WebhooksManage>,
    event_id: &str,
) -> Result<Reply, ApiError> {
    let event_id = webhooks::event_id(event_id)?;
    caller
        .read(move |conn| Reply::ok(webhooks::get_delivery(conn, &event_id)?))
        .await
}

/// Send a pending or failed delivery now. A failed one gets a new 24 h of retries.
///
/// Roles: owner, manager.
/// The same envelope, with the same event id, goes out again; no new event is made.
#[utoipa::path(tag = "Webhooks", responses(
    (status = 200, body = Delivery), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Already delivered. Codes: `illegal_transition` (names `current_status`)")))]
#[post("/webhooks/deliveries/<event_id>/retry")]
async fn retry_delivery(
    caller: Can<perm::WebhooksManage>,
    event_id: &str,
) -> Result<Reply, ApiError> {
    let event_id = webhooks::event_id(event_id)?;
    caller
        .write(move |tx| Reply::ok(webhooks::retry_delivery(tx, &event_id)?))
        .await
}

/// Queue a `webhook.test` event, delivered like any other.
///
/// Roles: owner, manager.
/// Answers with the event's id, to follow in the deliveries. Emits `webhook.test`. Takes
/// `Idempotency-Key`: a repeat by the same caller within 24 h returns the first answer
/// and creates nothing.
#[utoipa::path(tag = "Webhooks",
    params(("Idempotency-Key" = Option<String>, Header, description = "Repeat-safe key; a repeat within 24 h returns the first response")),
    responses((status = 202, body = TestEvent), (status = 409, body = Problem, description = "No endpoint set yet. Codes: `webhook_not_configured`")))]
#[post("/webhooks/test")]
async fn send_test_event(
    caller: Can<perm::WebhooksManage>,
    key: IdempotencyKey,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| {
            key.run(tx, &[], |tx| {
                let event_id = webhooks::send_test_event(tx)?;
                Reply::with_status(Status::Accepted, TestEvent { event_id })
            })
        })
        .await
}
