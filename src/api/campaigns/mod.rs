//! Campaigns over HTTP: discount campaigns and their states, coupon batches,
//! and coupon codes on orders. The rules and the pricing engine live in
//! `domain::campaigns`; what orders keep of them in `domain::orders`.

use rocket::{delete, get, patch, post};

use crate::api::body::JsonBody;
use crate::api::pagination::{self, Page};
use crate::api::reply::Reply;
use crate::auth::{perm, Can};
use crate::domain::campaigns::{self, *};
use crate::domain::orders::{self, CampaignPreview, NewOrderCoupon, Order, PreviewResult};
use crate::domain::settings;
use crate::domain::validate::{path_id, query_filter};
use crate::error::{ApiError, Problem};

super::group![
    list_campaigns,
    create_campaign,
    preview_campaign,
    get_campaign,
    update_campaign,
    delete_campaign,
    activate_campaign,
    pause_campaign,
    create_coupons,
    list_coupons,
    add_order_coupon,
    remove_order_coupon,
];

/// List discount campaigns, newest first.
///
/// Roles: owner, manager, cashier, server.
/// `status` keeps one state: `draft`, `active` or `paused`. Each shows its rules,
/// conditions and how many completed orders it discounted.
#[utoipa::path(tag = "Campaigns", responses(
    (status = 200, body = Page<Campaign>), (status = 403, body = Problem), (status = 422, body = Problem)))]
#[get("/campaigns?<status>&<limit>&<cursor>")]
async fn list_campaigns(
    caller: Can<perm::CampaignsRead>,
    status: Option<&str>,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let status = query_filter("status", status, CampaignStatus::parse)?;
    let limit = pagination::limit(limit)?;
    let cursor = cursor.map(str::to_string);
    caller
        .read(move |conn| {
            let exponent = settings::load(conn)?.exponent();
            let rows = campaigns::list_campaigns(conn, status, cursor.as_deref(), limit, exponent)?;
            Reply::ok(pagination::page(rows, limit, |c| c.id.clone()))
        })
        .await
}

/// Create a discount campaign (as a draft).
///
/// Roles: owner, manager.
/// Each kind needs its own rules: `percent_off` a `percent`, `amount_off` an `amount`
/// (both optionally `applies_to` items or categories), `bogo` its `buy` and `get`,
/// `fixed_price_bundle` its `bundle`. It prices nothing until activated. No webhook event.
#[utoipa::path(tag = "Campaigns", request_body(content = CampaignDefinition, example = json!({
    "name": "Happy hour", "kind": "percent_off", "percent": 20,
    "applies_to": {"category_ids": ["01890a5d-ac96-774b-bcce-b302099a8058"]},
    "conditions": {"weekdays": ["mon", "tue", "wed", "thu", "fri"], "time_windows": [{"from": "17:00", "to": "19:00"}]}})),
    responses((status = 201, body = Campaign), (status = 403, body = Problem), (status = 422, body = Problem)))]
#[post("/campaigns", data = "<body>")]
async fn create_campaign(
    caller: Can<perm::CampaignsManage>,
    body: JsonBody<CampaignDefinition>,
) -> Result<Reply, ApiError> {
    caller
        .write(move |tx| Reply::created(campaigns::create_campaign(tx, &body)?))
        .await
}

/// Price a sample order with a campaign, saved or not, as if it ran now.
///
/// Roles: owner, manager.
/// Nothing is saved. The answer says whether the campaign's conditions hold now (and
/// why not), and what each line would get from this campaign alone.
#[utoipa::path(tag = "Campaigns", request_body(content = CampaignPreview, example = json!({
    "campaign": {"name": "Meal deal", "kind": "fixed_price_bundle", "bundle": {"price": 15, "slots": [
        {"category_ids": ["01890a5d-ac96-774b-bcce-b302099a8058"]}, {"category_ids": ["01890a5d-ac96-774b-bcce-b302099a8059"]}]}},
    "order_type": "takeaway",
    "items": [{"menu_item_id": "01890a5d-ac96-774b-bcce-b302099a8060", "quantity": 1}]})),
    responses((status = 200, body = PreviewResult), (status = 403, body = Problem), (status = 422, body = Problem)))]
#[post("/campaigns/preview", data = "<body>")]
async fn preview_campaign(
    caller: Can<perm::CampaignsManage>,
    body: JsonBody<CampaignPreview>,
) -> Result<Reply, ApiError> {
    let now = caller.now();
    caller
        .read(move |conn| Reply::ok(orders::preview(conn, now, &body)?))
        .await
}

/// Get a discount campaign.
///
/// Roles: owner, manager, cashier, server.
/// With its rules, conditions, state and uses.
#[utoipa::path(tag = "Campaigns", responses((status = 200, body = Campaign), (status = 404, body = Problem)))]
#[get("/campaigns/<id>")]
async fn get_campaign(caller: Can<perm::CampaignsRead>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "campaign")?;
    caller
        .read(move |conn| {
            let exponent = settings::load(conn)?.exponent();
            Reply::ok(campaigns::get_campaign(conn, &id, exponent)?)
        })
        .await
}

/// Change a draft or paused campaign.
///
/// Roles: owner, manager.
/// The fields given replace the campaign's; a new `kind` drops the old kind's rules.
/// A running campaign is paused first (409 `campaign_active`). Orders keep the
/// discounts they were priced with until their lines change.
#[utoipa::path(tag = "Campaigns", request_body = CampaignPatch, responses(
    (status = 200, body = Campaign), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Codes: `campaign_active` (names `current_status`)"),
    (status = 422, body = Problem)))]
#[patch("/campaigns/<id>", data = "<body>")]
async fn update_campaign(
    caller: Can<perm::CampaignsManage>,
    id: &str,
    body: JsonBody<CampaignPatch>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "campaign")?;
    caller
        .write(move |tx| Reply::ok(campaigns::update_campaign(tx, &id, body.value)?))
        .await
}

/// Delete a campaign no order has used.
///
/// Roles: owner, manager.
/// A campaign that discounted an order, or whose codes are on one, stays for the
/// record: pause it instead (409 `campaign_used`).
#[utoipa::path(tag = "Campaigns", responses(
    (status = 204), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Codes: `campaign_used` (names `current_status`)")))]
#[delete("/campaigns/<id>")]
async fn delete_campaign(caller: Can<perm::CampaignsManage>, id: &str) -> Result<Reply, ApiError> {
    let id = path_id(id, "campaign")?;
    caller
        .write(move |tx| {
            campaigns::delete_campaign(tx, &id)?;
            Ok(Reply::no_content())
        })
        .await
}

/// Run a draft or paused campaign: it prices orders from their next change.
///
/// Roles: owner, manager.
/// Orders already open get it when their lines next change.
#[utoipa::path(tag = "Campaigns", responses(
    (status = 200, body = Campaign), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`)")))]
#[post("/campaigns/<id>/activate")]
async fn activate_campaign(
    caller: Can<perm::CampaignsManage>,
    id: &str,
) -> Result<Reply, ApiError> {
    change_status(caller, id, CampaignStatus::Active).await
}

/// Pause a running campaign: it prices no order until activated again.
///
/// Roles: owner, manager.
/// Open orders keep the discount they were priced with until their lines change.
#[utoipa::path(tag = "Campaigns", responses(
    (status = 200, body = Campaign), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Codes: `illegal_transition` (names `current_status`)")))]
#[post("/campaigns/<id>/pause")]
async fn pause_campaign(caller: Can<perm::CampaignsManage>, id: &str) -> Result<Reply, ApiError> {
    change_status(caller, id, CampaignStatus::Paused).await
}

async fn change_status(
    caller: Can<perm::CampaignsManage>,
    id: &str,
    next: CampaignStatus,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "campaign")?;
    caller
        .write(move |tx| Reply::ok(campaigns::change_campaign_status(tx, &id, next)?))
        .await
}

/// Make coupon codes for a campaign that requires one.
///
/// Roles: owner, manager.
/// `count` generates unguessable codes (ten characters without look-alikes, after
/// `prefix`); `code` makes one code chosen by hand (`SPRING10`). Codes are matched in
/// any case. Answers the batch made.
#[utoipa::path(tag = "Campaigns", request_body(content = NewCoupons, example = json!({"count": 50, "prefix": "SPR", "uses_per_code": 1, "expires_at": "2026-06-30T22:00:00Z"})),
    responses((status = 201, body = Vec<Coupon>), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Codes: `coupons_not_required` (the campaign applies without codes), `code_taken`"),
    (status = 422, body = Problem)))]
#[post("/campaigns/<id>/coupons", data = "<body>")]
async fn create_coupons(
    caller: Can<perm::CampaignsManage>,
    id: &str,
    body: JsonBody<NewCoupons>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "campaign")?;
    caller
        .write(move |tx| Reply::created(campaigns::create_coupons(tx, &id, &body)?))
        .await
}

/// List a campaign's coupon codes with their uses.
///
/// Roles: owner, manager, cashier, server.
/// In code order; each names the batch it was made in.
#[utoipa::path(tag = "Campaigns", responses((status = 200, body = Page<Coupon>), (status = 404, body = Problem), (status = 422, body = Problem)))]
#[get("/campaigns/<id>/coupons?<limit>&<cursor>")]
async fn list_coupons(
    caller: Can<perm::CampaignsRead>,
    id: &str,
    limit: Option<&str>,
    cursor: Option<&str>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "campaign")?;
    let limit = pagination::limit(limit)?;
    let cursor = cursor.map(str::to_string);
    caller
        .read(move |conn| {
            let rows = campaigns::list_coupons(conn, &id, cursor.as_deref(), limit)?;
            Reply::ok(pagination::page(rows, limit, |c| c.code.clone()))
        })
        .await
}

/// Put a coupon code on an open order; the order is priced again.
///
/// Roles: owner, manager, cashier, server.
/// A code that cannot apply is 422 with `reason`: `unknown`, `expired`, `used_up` or
/// `not_applicable` (the detail says why). Too many unknown codes from one person in
/// ten minutes are refused with 429. The code's use counts when the order completes.
/// Emits `order.updated`.
#[utoipa::path(tag = "Orders", request_body = NewOrderCoupon, responses(
    (status = 200, body = Order), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Codes: `order_closed` (names `current_status`), `coupon_on_order`, `is_a_check`, `order_split`"),
    (status = 422, body = Problem), (status = 429, body = Problem)))]
#[post("/orders/<id>/coupons", data = "<body>")]
async fn add_order_coupon(
    caller: Can<perm::OrdersWrite>,
    id: &str,
    body: JsonBody<NewOrderCoupon>,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    let guesser = format!("{}:{}", caller.tenant_id(), caller.actor());
    let app = caller.app.clone();
    app.coupon_limiter
        .check(&guesser)
        .map_err(ApiError::too_many_requests)?;
    let result = caller
        .write(move |tx| {
            let row = orders::add_coupon(tx, &id, &body.code)?;
            Reply::ok(orders::order_json(tx, &row, tx.exponent()?)?)
        })
        .await;
    if let Err(error) = &result {
        if error.member("reason").and_then(|r| r.as_str()) == Some("unknown") {
            app.coupon_limiter.record_failure(guesser);
        }
    }
    result
}

/// Take a coupon code off an open order; the order is priced again.
///
/// Roles: owner, manager, cashier, server.
/// Emits `order.updated`.
#[utoipa::path(tag = "Orders", responses(
    (status = 200, body = Order), (status = 404, body = Problem),
    (status = 409, body = Problem, description = "Codes: `order_closed` (names `current_status`), `is_a_check`, `order_split`")))]
#[delete("/orders/<id>/coupons/<code>")]
async fn remove_order_coupon(
    caller: Can<perm::OrdersWrite>,
    id: &str,
    code: &str,
) -> Result<Reply, ApiError> {
    let id = path_id(id, "order")?;
    let code = code.to_string();
    caller
        .write(move |tx| {
            let row = orders::remove_coupon(tx, &id, &code)?;
            Reply::ok(orders::order_json(tx, &row, tx.exponent()?)?)
        })
        .await
}
