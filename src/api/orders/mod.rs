//! Orders over HTTP: the lifecycle from pending to completed or cancelled, lines
//! and payments. The rules live in `domain::orders`.

use rocket::{delete, get, patch, post};

use crate::api::body::{ActionBody, JsonBody};
use crate::api::idempotency::IdempotencyKey;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::auth::{perm, Can, Permission};
use crate::domain::dining::sessions;
use crate::domain::orders::{self, *};
use crate::domain::settings;
use crate::domain::validate::{path_id, query_filter, query_time, Checks};
use crate::domain::Tx;
use crate::error::{ApiError, Problem};

super::group![
    list_orders,
    create_order,
    get_order,
    update_order,
    add_items,
    update_item,
    delete_item,
    change_status,
    fire_course,
    cancel_order,
    add_payment,
    list_payments,
    refund_order,
    get_receipt,
    split_order
];

/// Runs an order change and answers with the order as it now is.
async fn write_order<F>(caller: &crate::auth::Caller, change: F) -> Result<Reply, ApiError>
where
    F: FnOnce(&mut Tx) -> Result<OrderRow, ApiError> + Send + 'static,
{
    caller
        .write(move |tx| {
            let row = change(tx)?;
            Reply::ok(orders::order_json(tx, &row, tx.exponent()?)?)
        })
        .await
}

/// List orders, newest first.
///
/// Roles: any signed-in role.
/// Each order comes whole, lines and totals included. `from` and `to` bound the creation
/// time; `status`, `order_type` and `table_id` filter.
#[utoipa::path(tag = "Orders", responses((status = 200, body = Page<Order>), (status = 422, body = Problem)))]
#[get("/orders?<status>&<order_type>&<table_id>&<from>&<to>&<limit>&<cursor>")]
#[allow(clippy::too_many_arguments)]
async fn list_orders(
    caller: Can<perm::OrdersRead>,
    status: Option<&str>,
    order_type: Option<&str>,
    table_id: Option<&str>,
    from: Option<&str>,
    to: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let filter = OrderFilter {
        status: query_filter("status", status, OrderStatus::parse)?,
        order_type: query_filter("order_type", order_type, OrderType::parse)?,
        table_id: table_id.map(str::to_string),
        from: query_time("from", from)?,
        to: query_time("to", to)?,
        before: cursor.map(str::to_string),
        limit: pagination::limit(limit)?,
    };
    caller
        .read(move |conn| {
            let exponent = settings::load(conn)?.exponent();
            let rows = orders::list_orders(conn, &filter, exponent)?;
            Reply::ok(pagination::page(rows, filter.limit, |o| o.id.clone()))
        })
        .await
}

/// Create an order. Prices are taken from the menu now and kept with the lines.
///
/// Roles: owner, manager, cashier, server.
/// The order starts `pending`; its lines go to the kitchen once it moves on. Emits
/// `order.created`. Takes `Idempotency-Key`: a repeat by the same caller within 24 h
/// returns the first answer and creates nothing.
#[utoipa::path(tag = "Orders", request_body(content = NewOrder, example = json!({
    "order_type": "dine_in", "table_id": "01890a5d-ac96-774b-bcce-b302099a8057",
    "items": [
        {"menu_item_id": "01890a5d-ac96-774b-bcce-b302099a8058", "quantity": 2, "modifiers": ["Extra cheese"], "notes": "No onions"},
        {"menu_item_id": "01890a5d-ac96-774b-bcce-b302099a8059", "quantity": 1, "course": 2}]})),
    params(("Idempotency-Key" = Option<String>, Header, description = "Repeat-safe key; a repeat within 24 h returns the first response")),
    responses((status = 201, body = Order), (status = 422, body = Problem)))]
#[post("/orders", data = "<body>")]
async fn create_order(
    caller: Can<perm::OrdersWrite>,
    key: IdempotencyKey,
    body: JsonBody<NewOrder>,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| {
            key.run(tx, &body.raw, |tx| {
                let row = sessions::create_order(tx, &body)?;
                Reply::created(orders::order_json(tx, &row, tx.exponent()?)?)
            })
        })
        .await
}

/// Get an order with its lines and totals.
///
/// Roles: any signed-in role.
/// `balance_due` is what is left to pay; amounts are decimals in the business's currency.
#[utoipa::path(tag = "Orders", responses((status = 200, body = Order), (status = 404, body = Problem)))]
#[get("/orders/<id>")]
async fn get_order(caller: Can<perm::OrdersRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    caller
        .read(move |conn| {
            let exponent = settings::load(conn)?.exponent();
            Reply::ok(orders::get_order(conn, &id, exponent)?)
        })
        .await
}

/// Change an open order's notes, table or customer.
///
/// Roles: owner, manager, cashier, server.
/// Absent fields keep their value; `null` clears one. Emits `order.updated` when
/// something changed.
#[utoipa::path(tag = "Orders", request_body = OrderPatch, responses(
    (status = 200, body = Order), (status = 404, body = Problem), (status = 409, body = Problem, description = "Codes: `order_closed`")))]
#[patch("/orders/<id>", data = "<body>")]
async fn update_order(
    caller: Can<perm::OrdersWrite>,
    id: &str,
    body: JsonBody<OrderPatch>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    write_order(&caller, move |tx| orders::update_order(tx, &id, &body)).await
}

/// Add lines to an open order.
///
/// Roles: owner, manager, cashier, server.
/// Prices and stations come from the menu now. On an order already in the kitchen the new
/// lines go out on new tickets (`kitchen.ticket.created`). Emits `order.updated`.
#[utoipa::path(tag = "Orders", request_body = NewLines, responses(
    (status = 200, body = Order), (status = 409, body = Problem, description = "Codes: `order_closed`"), (status = 422, body = Problem)))]
#[post("/orders/<id>/items", data = "<body>")]
async fn add_items(
    caller: Can<perm::OrdersWrite>,
    id: &str,
    body: JsonBody<NewLines>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    write_order(&caller, move |tx| orders::add_lines(tx, &id, &body.items)).await
}

/// Change a line's quantity or notes.
///
/// Roles: owner, manager, cashier, server.
/// Refused when the total would fall below what is already paid. On an order in the
/// kitchen its tickets follow the new quantity (`kitchen.ticket.updated` or
/// `kitchen.ticket.created`). Emits `order.updated`.
#[utoipa::path(tag = "Orders", request_body = LinePatch, responses(
    (status = 200, body = Order), (status = 404, body = Problem), (status = 409, body = Problem, description = "Codes: `order_closed`, `total_below_paid`")))]
#[patch("/orders/<id>/items/<item_id>", data = "<body>")]
async fn update_item(
    caller: Can<perm::OrdersWrite>,
    id: &str,
    item_id: &str,
    body: JsonBody<LinePatch>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    let item_id = path_id(item_id, "order item")?;
    write_order(&caller, move |tx| {
        orders::update_line(tx, &id, &item_id, &body)
    })
    .await
}

/// Remove a line from an open order.
///
/// Roles: owner, manager, cashier, server.
/// Refused when the total would fall below what is already paid; the line is voided on
/// its kitchen tickets (`kitchen.ticket.updated`). Emits `order.updated`.
#[utoipa::path(tag = "Orders", responses(
    (status = 200, body = Order), (status = 404, body = Problem), (status = 409, body = Problem, description = "Codes: `order_closed`, `total_below_paid`")))]
#[delete("/orders/<id>/items/<item_id>")]
async fn delete_item(
    caller: Can<perm::OrdersWrite>,
    id: &str,
    item_id: &str,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    let item_id = path_id(item_id, "order item")?;
    write_order(&caller, move |tx| orders::delete_line(tx, &id, &item_id)).await
}

/// Move an order forward: pending, confirmed, preparing, ready, served, completed.
/// Completing needs the order fully paid. Kitchen staff may set preparing and ready.
///
/// Roles: owner, manager, cashier, server, kitchen.
/// Kitchen may only set `preparing` and `ready`, and `cancelled` needs a role that may
/// cancel (owner, manager, cashier); others get 403. Moves only go forward and may skip
/// steps; leaving `pending` sends the lines to the kitchen (`kitchen.ticket.created`).
/// Emits `order.completed` on completion, `order.cancelled` on cancellation, otherwise
/// `order.updated`.
#[utoipa::path(tag = "Orders", request_body = StatusChange, responses(
    (status = 200, body = Order), (status = 409, body = Problem, description = "Illegal move, a balance still due, or cancelling a paid order (use `POST /orders/{id}/cancel` with `refund_payments`). Codes: `illegal_transition` (names `current_status`), `balance_due`, `has_payments` (names `refundable`)")))]
#[post("/orders/<id>/status", data = "<body>")]
async fn change_status(
    caller: Can<perm::OrdersAdvance>,
    id: &str,
    body: JsonBody<StatusChange>,
) -> Result<Reply, ApiError> {
    let next = body.status;
    caller.require_order_move(next)?;
    let id = path_id(id, "order")?;
    write_order(&caller, move |tx| {
        orders::change_status(tx, &id, next, None)
    })
    .await
}

/// Send a held course, and those before it, to the kitchen.
///
/// Roles: owner, manager, cashier, server.
/// Only for a confirmed order created with `hold_courses`. The fired lines go out on
/// kitchen tickets (`kitchen.ticket.created`). Emits `order.updated`.
#[utoipa::path(tag = "Orders", request_body = FireCourse, responses(
    (status = 200, body = Order), (status = 409, body = Problem, description = "Not confirmed yet, nothing held, or already fired. Codes: `order_not_fired`, `no_course_held`, `course_already_fired`"),
    (status = 422, body = Problem)))]
#[post("/orders/<id>/fire", data = "<body>")]
async fn fire_course(
    caller: Can<perm::OrdersWrite>,
    id: &str,
    body: JsonBody<FireCourse>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    let course = body.course;
    write_order(&caller, move |tx| orders::fire_course(tx, &id, course)).await
}

/// Cancel an order that is not yet completed. The body is optional.
///
/// Roles: owner, manager, cashier.
/// The optional `reason` is kept with the order. Its tickets still in the kitchen show as
/// cancelled until a cook acknowledges them (`kitchen.ticket.updated`). Emits
/// `order.cancelled`. An order with payments needs `refund_payments: true`, which
/// only owners and managers may send: each payment and its tip is refunded by its
/// own method. A split order's open checks are cancelled with it.
#[utoipa::path(tag = "Orders", request_body(content = Option<Cancellation>), responses(
    (status = 200, body = Order), (status = 403, body = Problem, description = "Refunding payments needs an owner or manager. Codes: `permission_denied`"),
    (status = 409, body = Problem, description = "Closed already, or paid and `refund_payments` not set. Codes: `illegal_transition` (names `current_status`), `has_payments` (names `refundable`)")))]
#[post("/orders/<id>/cancel", data = "<body>")]
async fn cancel_order(
    caller: Can<perm::OrdersCancel>,
    id: &str,
    body: ActionBody<Cancellation>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    let mut checks = Checks::new();
    let reason = checks.optional_text("reason", body.reason.as_deref(), 500);
    checks.finish()?;
    let refund_payments = body.refund_payments;
    if refund_payments {
        caller.require(Permission::PaymentsRefund)?;
    }
    write_order(&caller, move |tx| {
        orders::cancel_order(tx, &id, reason, refund_payments)
    })
    .await
}

/// Give money back on a completed order: units of its lines, an amount, or all.
///
/// Roles: owner, manager.
/// The refund is recorded as a payment with a negative amount and its reason; the
/// order's `refunded_amount` grows and `paid_amount` stays. Emits `order.updated`.
/// Takes `Idempotency-Key`.
#[utoipa::path(tag = "Orders", request_body(content = NewRefund, example = json!({
    "lines": [{"line_id": "0192f7a4-5b1c-7d2e-9f30-4a5b6c7d8e9f", "quantity": 1}],
    "reason": "cold dish", "method": "card"})),
    params(("Idempotency-Key" = Option<String>, Header, description = "Repeat-safe key; a repeat within 24 h returns the first response")),
    responses((status = 201, body = RefundReceipt),
    (status = 409, body = Problem, description = "Not completed, or more than is left to refund. Codes: `order_not_completed` (names `current_status`), `refund_exceeds_paid` (names `refundable`), `nothing_to_refund`"),
    (status = 422, body = Problem)))]
#[post("/orders/<id>/refunds", data = "<body>")]
async fn refund_order(
    caller: Can<perm::PaymentsRefund>,
    id: &str,
    key: IdempotencyKey,
    body: JsonBody<NewRefund>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    caller
        .write(move |tx| {
            key.run(tx, &body.raw, |tx| {
                let (refund, row) = orders::refund(tx, &id, &body)?;
                Reply::created(RefundReceipt {
                    refund,
                    order: orders::order_json(tx, &row, tx.exponent()?)?,
                })
            })
        })
        .await
}

/// Take a payment. Cash above the balance returns change; card above it is refused.
///
/// Roles: owner, manager, cashier, server.
/// Answers with the payment, the change due and the order; completing the order is a
/// separate status change. Emits `order.updated`. Takes `Idempotency-Key`: a repeat by
/// the same caller within 24 h returns the first answer and creates nothing.
#[utoipa::path(tag = "Orders", request_body(content = NewPayment, example = json!({
    "method": "cash", "amount": 50.00, "tip": 5.00})),
    params(("Idempotency-Key" = Option<String>, Header, description = "Repeat-safe key; a repeat within 24 h returns the first response")),
    responses((status = 201, body = PaymentReceipt), (status = 409, body = Problem, description = "Codes: `order_closed`, `nothing_due`, `overpayment`"), (status = 422, body = Problem)))]
#[post("/orders/<id>/payments", data = "<body>")]
async fn add_payment(
    caller: Can<perm::PaymentsTake>,
    id: &str,
    key: IdempotencyKey,
    body: JsonBody<NewPayment>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    caller
        .write(move |tx| {
            key.run(tx, &body.raw, |tx| {
                let (payment, row) = orders::add_payment(tx, &id, &body)?;
                Reply::created(PaymentReceipt {
                    change_due: payment.change_due,
                    payment,
                    order: orders::order_json(tx, &row, tx.exponent()?)?,
                })
            })
        })
        .await
}

/// Payments of an order, oldest first.
///
/// Roles: any signed-in role.
/// Every payment in one page; `next_cursor` is always null.
#[utoipa::path(tag = "Orders", responses((status = 200, body = Page<Payment>), (status = 404, body = Problem)))]
#[get("/orders/<id>/payments")]
async fn list_payments(caller: Can<perm::OrdersRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    caller
        .read(move |conn| {
            let exponent = settings::load(conn)?.exponent();
            Reply::ok(Page {
                data: orders::list_payments(conn, &id, exponent)?,
                next_cursor: None,
            })
        })
        .await
}

/// The order's receipt as it stands, to print or reprint.
///
/// Roles: any signed-in role.
/// Lines, taxes by rate, every payment and refund, tips and change, as
/// `POST /pos/checkout` answers it. Changes nothing.
#[utoipa::path(tag = "Orders", responses((status = 200, body = Receipt), (status = 404, body = Problem)))]
#[get("/orders/<id>/receipt")]
async fn get_receipt(caller: Can<perm::OrdersRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    caller
        .read(move |conn| {
            let exponent = settings::load(conn)?.exponent();
            let row = orders::find_order(conn, &id)?;
            Reply::ok(orders::receipt(conn, &row, exponent)?)
        })
        .await
}

/// Split the bill into checks, each an order paid and completed on its own.
///
/// Roles: owner, manager, cashier, server.
/// By items (units of lines per check), equally (N checks), or by seats (a check per
/// seat, every line needing one). The checks add up to the order to the cent; the
/// order completes when its last check does. Emits `order.created` for each check and `order.updated` for the order;
/// the kitchen gets nothing new.
#[utoipa::path(tag = "Orders", request_body(content = Split, example = json!({
    "by": "items", "parts": [
        [{"line_id": "0192f7a4-5b1c-7d2e-9f30-4a5b6c7d8e9f", "quantity": 1}],
        [{"line_id": "0192f7a4-5b1c-7d2e-9f30-4a5b6c7d8e9f", "quantity": 2}, {"line_id": "0192f7a4-5b1c-7d2e-9f30-4a5b6c7d8ea0", "quantity": 1}]]})),
    responses((status = 201, body = SplitResult),
    (status = 409, body = Problem, description = "Closed, split already, a check itself, or payments taken. Codes: `order_closed` (names `current_status`), `order_split`, `is_a_check`, `has_payments`"),
    (status = 422, body = Problem)))]
#[post("/orders/<id>/split", data = "<body>")]
async fn split_order(
    caller: Can<perm::OrdersWrite>,
    id: &str,
    body: JsonBody<Split>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    caller
        .write(move |tx| {
            let (order, checks) = orders::split_order(tx, &id, &body)?;
            let exponent = tx.exponent()?;
            Reply::created(SplitResult {
                order: orders::order_json(tx, &order, exponent)?,
                checks: checks
                    .iter()
                    .map(|row| orders::order_json(tx, row, exponent))
                    .collect::<Result<_, _>>()?,
            })
        })
        .await
}
