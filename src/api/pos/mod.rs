//! Point-of-sale endpoints: the compact seatmap terminals poll, built from the
//! tables group's seatmap query, and checkout at the counter.

mod model;

use rocket::{get, post};

use crate::api::body::JsonBody;
use crate::api::idempotency::IdempotencyKey;
use crate::api::reply::Reply;
use crate::auth::{perm, Can};
use crate::domain::dining::{seatmap, sessions};
use crate::domain::orders::{self, Checkout, CheckoutResult};
use crate::domain::validate::Checks;
use crate::error::{ApiError, Problem};
use crate::money::to_json;
use model::*;

super::group![pos_seatmap, pos_checkout];

/// Every floor's tables with state, party and open order totals, compactly.
///
/// Roles: owner, manager, cashier, server, host.
/// The same state as `GET /tables/seatmap` in a smaller shape, for terminals that poll
/// it.
#[utoipa::path(tag = "POS", responses((status = 200, body = PosSeatmap), (status = 403, body = Problem)))]
#[get("/pos/seatmap")]
async fn pos_seatmap(caller: Can<perm::DiningRead>) -> Result<Reply, ApiError> {
    let now = caller.now();
    caller
        .read(move |conn| Reply::ok(compact(seatmap::seatmap(conn, now)?)))
        .await
}

/// Settle an order at the counter: take its tenders and complete it, or change nothing.
///
/// Roles: owner, manager, cashier, server.
/// A new order is placed (`order.created`), a pending one confirmed so its tickets
/// go to the kitchen, each tender emits `order.updated` and completion
/// `order.completed`. `Idempotency-Key` is required.
#[utoipa::path(tag = "POS", request_body(content = Checkout, example = json!({
    "order": {"order_type": "takeaway", "items": [{"menu_item_id": "01890a5d-ac96-774b-bcce-b302099a8058", "quantity": 2}]},
    "tenders": [{"method": "card", "amount": 20.00, "reference": "auth-1"}, {"method": "cash", "amount": 10.00}]})),
    params(("Idempotency-Key" = String, Header, description = "Required: a repeat within 24 h returns the first answer and takes nothing again")),
    responses((status = 200, body = CheckoutResult),
    (status = 400, body = Problem, description = "Codes: `idempotency_key_required`, `malformed_json`"),
    (status = 409, body = Problem, description = "The order is closed, a tender is too much or comes after the order is paid, or the tenders leave something due; `tender` names the tender. Codes: `order_closed` (names `current_status`), `overpayment` (names `balance_due`), `nothing_due`, `balance_due` (names `balance_due`)"),
    (status = 422, body = Problem)))]
#[post("/pos/checkout", data = "<body>")]
async fn pos_checkout(
    caller: Can<perm::PaymentsTake>,
    key: IdempotencyKey,
    body: JsonBody<Checkout>,
) -> Result<Reply, ApiError> {
    key.require()?;
    caller
        .write(move |tx| {
            key.run(tx, &body.raw, |tx| {
                let order_id = match (&body.order_id, &body.order) {
                    (Some(id), None) => {
                        let mut checks = Checks::new();
                        let id = checks.id("order_id", id);
                        checks.finish()?;
                        orders::find_order(tx, &id)
                            .map_err(|_| ApiError::invalid_field("order_id", "no such order"))?;
                        id
                    }
                    (None, Some(new)) => sessions::create_order(tx, new)?.id,
                    _ => {
                        return Err(ApiError::invalid_field(
                            "order_id",
                            "give the order_id of an open order or a new order, one of the two",
                        ))
                    }
                };
                let (row, change) =
                    orders::checkout(tx, &order_id, &body.coupon_codes, &body.tenders)?;
                let exponent = tx.exponent()?;
                Reply::ok(CheckoutResult {
                    order: orders::order_json(tx, &row, exponent)?,
                    change_due: to_json(change, exponent),
                    receipt: orders::receipt(tx, &row, exponent)?,
                })
            })
        })
        .await
}
