//! Orders: the whole lifecycle from pending to completed or cancelled, items,
//! payments, and the `order.*` events written with every change.

pub mod model;
pub mod queries;

use rocket::{delete, get, patch, post, routes, Route};
use utoipa::OpenApi;

use crate::api::body::JsonBody;
use crate::api::idempotency::IdempotencyKey;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::api::settings;
use crate::api::validate::{path_id, query_filter};
use crate::auth::{Caller, Permission, Role};
use crate::error::{ApiError, Problem};
use model::*;

pub fn routes() -> Vec<Route> {
    routes![
        list_orders,
        create_order,
        get_order,
        update_order,
        add_items,
        update_item,
        delete_item,
        change_status,
        cancel_order,
        add_payment,
        list_payments
    ]
}

#[derive(OpenApi)]
#[openapi(paths(
    list_orders,
    create_order,
    get_order,
    update_order,
    add_items,
    update_item,
    delete_item,
    change_status,
    cancel_order,
    add_payment,
    list_payments
))]
pub struct Docs;

/// Dining room: a seating session that moves takes its open orders to its new
/// table; each records `order.updated`.
pub fn move_to_table(
    tx: &rusqlite::Transaction,
    tenant_id: uuid::Uuid,
    order_id: &str,
    table_id: &str,
) -> Result<(), ApiError> {
    let patch = OrderPatch {
        notes: None,
        table_id: Some(Some(table_id.to_string())),
        customer: None,
    };
    queries::update_order(tx, tenant_id, order_id, &patch).map(|_| ())
}

/// Runs an order change and answers with the order as it now is.
async fn write_order(
    caller: Caller,
    change: impl FnOnce(&rusqlite::Transaction, &Caller) -> Result<queries::OrderRow, ApiError>
        + Send
        + 'static,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx, caller| {
            let row = change(tx, caller)?;
            let exponent = settings::load(tx)?.exponent();
            Reply::ok(queries::order_json(tx, &row, exponent)?)
        })
        .await
}

/// List orders, newest first.
#[utoipa::path(tag = "Orders", responses((status = 200, body = Page<Order>), (status = 422, body = Problem)))]
#[get("/orders?<status>&<order_type>&<table_id>&<from>&<to>&<limit>&<cursor>")]
#[allow(clippy::too_many_arguments)]
async fn list_orders(
    caller: Caller,
    status: Option<&str>,
    order_type: Option<&str>,
    table_id: Option<&str>,
    from: Option<&str>,
    to: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::OrdersRead)?;
    let time = |field: &str, v: &str| {
        crate::time::parse_rfc3339(v)
            .map(crate::time::rfc3339)
            .ok_or_else(|| ApiError::invalid_field(field, "must be an RFC 3339 timestamp"))
    };
    let filter = queries::OrderFilter {
        status: query_filter("status", status, OrderStatus::parse)?,
        order_type: query_filter("order_type", order_type, OrderType::parse)?,
        table_id: table_id.map(str::to_string),
        from: from.map(|v| time("from", v)).transpose()?,
        to: to.map(|v| time("to", v)).transpose()?,
        before: cursor.map(str::to_string),
        limit: pagination::limit(limit)?,
    };
    caller
        .read(move |conn, _| {
            let exponent = settings::load(conn)?.exponent();
            let rows = queries::list_orders(conn, &filter, exponent)?;
            Reply::ok(pagination::page(rows, filter.limit, |o| o.id.clone()))
        })
        .await
}

/// Create an order. Prices are taken from the menu now and kept with the lines.
#[utoipa::path(tag = "Orders", request_body = NewOrder,
    params(("Idempotency-Key" = Option<String>, Header, description = "Repeat-safe key; a repeat within 24 h returns the first response")),
    responses((status = 201, body = Order), (status = 422, body = Problem)))]
#[post("/orders", data = "<body>")]
async fn create_order(
    caller: Caller,
    key: IdempotencyKey,
    body: JsonBody<NewOrder>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::OrdersWrite)?;
    caller
        .write(move |tx, caller| {
            key.run(tx, &caller.actor(), &body.raw, |tx| {
                let settings = settings::load(tx)?;
                let row = queries::create_order(
                    tx,
                    caller.tenant_id(),
                    &caller.actor(),
                    &settings,
                    &body,
                )?;
                Reply::created(queries::order_json(tx, &row, settings.exponent())?)
            })
        })
        .await
}

/// Get an order with its lines and totals.
#[utoipa::path(tag = "Orders", responses((status = 200, body = Order), (status = 404, body = Problem)))]
#[get("/orders/<id>")]
async fn get_order(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    caller.require(Permission::OrdersRead)?;
    let id = path_id(id, "order")?;
    caller
        .read(move |conn, _| {
            let exponent = settings::load(conn)?.exponent();
            Reply::ok(queries::get_order(conn, &id, exponent)?)
        })
        .await
}

/// Change an open order's notes, table or customer.
#[utoipa::path(tag = "Orders", request_body = OrderPatch, responses(
    (status = 200, body = Order), (status = 404, body = Problem), (status = 409, body = Problem)))]
#[patch("/orders/<id>", data = "<body>")]
async fn update_order(
    caller: Caller,
    id: &str,
    body: JsonBody<OrderPatch>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::OrdersWrite)?;
    let id = path_id(id, "order")?;
    write_order(caller, move |tx, caller| {
        queries::update_order(tx, caller.tenant_id(), &id, &body)
    })
    .await
}

/// Add lines to an open order.
#[utoipa::path(tag = "Orders", request_body = NewLines, responses(
    (status = 200, body = Order), (status = 409, body = Problem), (status = 422, body = Problem)))]
#[post("/orders/<id>/items", data = "<body>")]
async fn add_items(caller: Caller, id: &str, body: JsonBody<NewLines>) -> Result<Reply, ApiError> {
    caller.require(Permission::OrdersWrite)?;
    let id = path_id(id, "order")?;
    write_order(caller, move |tx, caller| {
        queries::add_lines(tx, caller.tenant_id(), &id, &body.items)
    })
    .await
}

/// Change a line's quantity or notes.
#[utoipa::path(tag = "Orders", request_body = LinePatch, responses(
    (status = 200, body = Order), (status = 404, body = Problem), (status = 409, body = Problem)))]
#[patch("/orders/<id>/items/<item_id>", data = "<body>")]
async fn update_item(
    caller: Caller,
    id: &str,
    item_id: &str,
    body: JsonBody<LinePatch>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::OrdersWrite)?;
    let id = path_id(id, "order")?;
    let item_id = path_id(item_id, "order item")?;
    write_order(caller, move |tx, caller| {
        queries::update_line(tx, caller.tenant_id(), &id, &item_id, &body)
    })
    .await
}

/// Remove a line from an open order.
#[utoipa::path(tag = "Orders", responses(
    (status = 200, body = Order), (status = 404, body = Problem), (status = 409, body = Problem)))]
#[delete("/orders/<id>/items/<item_id>")]
async fn delete_item(caller: Caller, id: &str, item_id: &str) -> Result<Reply, ApiError> {
    caller.require(Permission::OrdersWrite)?;
    let id = path_id(id, "order")?;
    let item_id = path_id(item_id, "order item")?;
    write_order(caller, move |tx, caller| {
        queries::delete_line(tx, caller.tenant_id(), &id, &item_id)
    })
    .await
}

/// Move an order forward: pending, confirmed, preparing, ready, served, completed.
/// Completing needs the order fully paid. Kitchen staff may set preparing and ready.
#[utoipa::path(tag = "Orders", request_body = StatusChange, responses(
    (status = 200, body = Order), (status = 409, body = Problem, description = "Illegal move; names current_status")))]
#[post("/orders/<id>/status", data = "<body>")]
async fn change_status(
    caller: Caller,
    id: &str,
    body: JsonBody<StatusChange>,
) -> Result<Reply, ApiError> {
    let next = body.status;
    if next == OrderStatus::Cancelled {
        caller.require(Permission::OrdersCancel)?;
    } else {
        caller.require(Permission::OrdersAdvance)?;
    }
    if caller.role == Role::Kitchen && !matches!(next, OrderStatus::Preparing | OrderStatus::Ready)
    {
        return Err(ApiError::forbidden(
            "permission_denied",
            "kitchen staff may only mark orders preparing or ready",
        ));
    }
    let id = path_id(id, "order")?;
    write_order(caller, move |tx, caller| {
        queries::change_status(tx, caller.tenant_id(), &id, next, None)
    })
    .await
}

/// Cancel an order that is not yet completed.
#[utoipa::path(tag = "Orders", request_body = Cancellation, responses(
    (status = 200, body = Order), (status = 409, body = Problem)))]
#[post("/orders/<id>/cancel", data = "<body>")]
async fn cancel_order(
    caller: Caller,
    id: &str,
    body: JsonBody<Cancellation>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::OrdersCancel)?;
    let id = path_id(id, "order")?;
    let mut checks = crate::api::validate::Checks::new();
    let reason = checks.optional_text("reason", body.reason.as_deref(), 500);
    checks.finish()?;
    write_order(caller, move |tx, caller| {
        queries::change_status(tx, caller.tenant_id(), &id, OrderStatus::Cancelled, reason)
    })
    .await
}

/// Take a payment. Cash above the balance returns change; card above it is refused.
#[utoipa::path(tag = "Orders", request_body = NewPayment,
    params(("Idempotency-Key" = Option<String>, Header, description = "Repeat-safe key; a repeat within 24 h returns the first response")),
    responses((status = 201, body = PaymentReceipt), (status = 409, body = Problem), (status = 422, body = Problem)))]
#[post("/orders/<id>/payments", data = "<body>")]
async fn add_payment(
    caller: Caller,
    id: &str,
    key: IdempotencyKey,
    body: JsonBody<NewPayment>,
) -> Result<Reply, ApiError> {
    caller.require(Permission::PaymentsTake)?;
    let id = path_id(id, "order")?;
    caller
        .write(move |tx, caller| {
            key.run(tx, &caller.actor(), &body.raw, |tx| {
                let exponent = settings::load(tx)?.exponent();
                let (payment, row) = queries::add_payment(
                    tx,
                    caller.tenant_id(),
                    &caller.actor(),
                    &id,
                    &body,
                    exponent,
                )?;
                Reply::created(PaymentReceipt {
                    change_due: payment.change_due,
                    payment,
                    order: queries::order_json(tx, &row, exponent)?,
                })
            })
        })
        .await
}

/// Payments of an order, oldest first.
#[utoipa::path(tag = "Orders", responses((status = 200, body = Page<Payment>), (status = 404, body = Problem)))]
#[get("/orders/<id>/payments")]
async fn list_payments(caller: Caller, id: &str) -> Result<Reply, ApiError> {
    caller.require(Permission::OrdersRead)?;
    let id = path_id(id, "order")?;
    caller
        .read(move |conn, _| {
            let exponent = settings::load(conn)?.exponent();
            Reply::ok(Page {
                data: queries::list_payments(conn, &id, exponent)?,
                next_cursor: None,
            })
        })
        .await
}
