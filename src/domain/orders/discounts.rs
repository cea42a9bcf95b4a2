//! The discounts an order carries: campaigns price an open order every time
//! its lines or coupon codes change (not when it is paid, so a happy hour that
//! ends between ordering and paying keeps its discount), and what they give is
//! kept per line, where its tax is computed. Coupon codes go on and off open
//! orders; their uses, and the campaigns', count when the order completes.

use chrono::{DateTime, Datelike, Timelike, Utc};
use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::model::{totals, LineAmount, NewLine, OrderType};
use super::read::{find_order, OrderRow};
use super::split;
use super::write::{require_open, touch};
use crate::domain::campaigns::{self, engine, CampaignDefinition, Rules, Weekday};
use crate::domain::event::Event;
use crate::domain::menu;
use crate::domain::settings::{self, TenantSettings};
use crate::domain::Tx;
use crate::error::ApiError;
use crate::money::to_json;

/// A discount as the order shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OrderDiscount {
    pub campaign_id: String,
    /// The code that unlocked it, for a campaign that requires one.
    pub coupon_code: Option<String>,
    pub name: String,
    pub amount: f64,
    pub lines: Vec<LineDiscount>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LineDiscount {
    pub line_id: String,
    pub amount: f64,
}

/// `POST /orders/{id}/coupons`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewOrderCoupon {
    /// The code as the guest gives it; letters are matched in any case.
    #[schema(min_length = 1, max_length = 40)]
    pub code: String,
}

/// A basket of `lines` at `now`, as the tenant's clock and calendar see it.
fn basket(
    settings: &TenantSettings,
    now: DateTime<Utc>,
    order_type: OrderType,
    lines: Vec<engine::BasketLine>,
) -> engine::Basket {
    let local = now.with_timezone(&settings.timezone);
    engine::Basket {
        lines,
        order_type: order_type.as_str().to_string(),
        now,
        local_time: local.time().with_nanosecond(0).unwrap_or(local.time()),
        business_weekday: Weekday::of(settings.business_date(now).weekday()),
    }
}

/// The order as campaigns see it, at the moment of the change.
fn basket_of(tx: &Tx, order: &OrderRow) -> Result<engine::Basket, ApiError> {
    let mut stmt = tx.prepare_cached(
        "SELECT l.id, l.menu_item_id, m.category_id, l.unit_price, l.quantity FROM order_items l \
         LEFT JOIN menu_items m ON m.id = l.menu_item_id WHERE l.order_id = ?1 ORDER BY l.created_at, l.id",
    )?;
    let lines = stmt
        .query_map([&order.id], |r| {
            Ok(engine::BasketLine {
                line_id: r.get(0)?,
                menu_item_id: r.get(1)?,
                category_id: r.get(2)?,
                unit_price: r.get(3)?,
                quantity: r.get(4)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(basket(tx.settings()?, tx.now(), order.order_type, lines))
}

fn codes_on(conn: &Connection, order_id: &str) -> Result<Vec<String>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT code FROM order_coupons WHERE order_id = ?1 ORDER BY added_at, code",
    )?;
    let rows = stmt.query_map([order_id], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Prices an open, unsplit order with the campaigns that apply now and keeps
/// the result: the order's discounts and each line's share. The caller then
/// touches the order, which totals it.
pub(super) fn reprice(tx: &Tx, order_id: &str) -> Result<(), ApiError> {
    let order = find_order(tx, order_id)?;
    let basket = basket_of(tx, &order)?;
    let offers = campaigns::offers(tx, &codes_on(tx, order_id)?)?;
    let discounts = engine::price(&basket, &offers);
    tx.prepare_cached("DELETE FROM order_discounts WHERE order_id = ?1")?
        .execute([order_id])?;
    tx.prepare_cached(
        "UPDATE order_items SET discount_amount = 0 WHERE order_id = ?1 AND discount_amount <> 0",
    )?
    .execute([order_id])?;
    let mut total = 0;
    for (position, discount) in discounts.iter().enumerate() {
        let lines: Vec<(&str, i64)> = discount
            .lines
            .iter()
            .map(|(id, amount)| (id.as_str(), *amount))
            .collect();
        tx.prepare_cached(
            "INSERT INTO order_discounts (order_id, position, campaign_id, coupon_code, name, amount, lines) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?
        .execute(params![
            order_id,
            position as i64,
            discount.campaign_id,
            discount.coupon_code,
            discount.name,
            discount.amount,
            serde_json::to_string(&lines).map_err(|e| ApiError::internal(e.to_string()))?
        ])?;
        for (line_id, amount) in &discount.lines {
            tx.prepare_cached(
                "UPDATE order_items SET discount_amount = discount_amount + ?2 WHERE id = ?1",
            )?
            .execute(params![line_id, amount])?;
        }
        total += discount.amount;
    }
    tx.prepare_cached("UPDATE orders SET discount_amount = ?2 WHERE id = ?1")?
        .execute(params![order_id, total])?;
    Ok(())
}

/// The discounts of an order, in the order they were applied.
pub fn discounts_of(
    conn: &Connection,
    order_id: &str,
    exponent: u32,
) -> Result<Vec<OrderDiscount>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT campaign_id, coupon_code, name, amount, lines FROM order_discounts \
         WHERE order_id = ?1 ORDER BY position",
    )?;
    let rows = stmt.query_map([order_id], |r| {
        let lines: String = r.get(4)?;
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get::<_, i64>(3)?, lines))
    })?;
    rows.map(|row| {
        let (campaign_id, coupon_code, name, amount, lines) = row?;
        let lines: Vec<(String, i64)> =
            serde_json::from_str(&lines).map_err(|e| ApiError::internal(e.to_string()))?;
        Ok(OrderDiscount {
            campaign_id,
            coupon_code,
            name,
            amount: to_json(amount, exponent),
            lines: lines
                .into_iter()
                .map(|(line_id, amount)| LineDiscount {
                    line_id,
                    amount: to_json(amount, exponent),
                })
                .collect(),
        })
    })
    .collect()
}

/// The codes on an order.
pub fn coupons_of(conn: &Connection, order_id: &str) -> Result<Vec<String>, ApiError> {
    codes_on(conn, order_id)
}

/// Puts a coupon code on an open order and prices it again. A code that does
/// not exist, has expired, is used up, or gives this order nothing is refused
/// (422, `reason` says which).
pub fn add_coupon(tx: &mut Tx, order_id: &str, code: &str) -> Result<OrderRow, ApiError> {
    apply_code(tx, order_id, code, "code")
}

/// [`add_coupon`], naming `field` in what it refuses.
pub(super) fn apply_code(
    tx: &mut Tx,
    order_id: &str,
    code: &str,
    field: &str,
) -> Result<OrderRow, ApiError> {
    let refused = |reason: &str, detail: String| {
        ApiError::invalid_field(field, detail).with("reason", reason)
    };
    let order = find_order(tx, order_id)?;
    require_open(&order)?;
    split::require_unsplit(&order)?;
    let code = campaigns::normalize_code(code);
    if code.is_empty() || code.len() > 40 {
        return Err(ApiError::invalid_field(
            field,
            "give the code, up to 40 characters",
        ));
    }
    let on_order = codes_on(tx, order_id)?;
    if on_order.contains(&code) {
        return Err(
            ApiError::conflict("coupon_on_order", "the code is already on this order")
                .with("current_status", order.status.as_str()),
        );
    }
    if let Some((reason, detail)) = campaigns::refuse_code(tx, &code, tx.now_text())? {
        return Err(refused(reason, detail));
    }
    let mut codes = on_order;
    codes.push(code.clone());
    let basket = basket_of(tx, &order)?;
    let offers = campaigns::offers(tx, &codes)?;
    let Some(offer) = offers
        .iter()
        .find(|offer| offer.coupon_code.as_deref() == Some(code.as_str()))
    else {
        return Err(refused(
            "not_applicable",
            "the code's campaign is not running".into(),
        ));
    };
    if let Some(why) = engine::why_not(&basket, offer) {
        return Err(refused("not_applicable", why));
    }
    if engine::discount_of(&basket, offer).amount == 0 {
        return Err(refused(
            "not_applicable",
            "no line of the order qualifies".into(),
        ));
    }
    if !engine::price(&basket, &offers)
        .iter()
        .any(|d| d.coupon_code.as_deref() == Some(code.as_str()))
    {
        return Err(refused(
            "not_applicable",
            "another campaign on this order gives more, and they do not combine".into(),
        ));
    }
    tx.prepare_cached("INSERT INTO order_coupons (order_id, code, added_at) VALUES (?1, ?2, ?3)")?
        .execute(params![order_id, code, tx.now_text().to_string()])?;
    reprice(tx, order_id)?;
    touch(tx, order_id, Event::OrderUpdated)
}

/// Takes a code off an open order and prices it again.
pub fn remove_coupon(tx: &mut Tx, order_id: &str, code: &str) -> Result<OrderRow, ApiError> {
    let order = find_order(tx, order_id)?;
    require_open(&order)?;
    split::require_unsplit(&order)?;
    let removed = tx
        .prepare_cached("DELETE FROM order_coupons WHERE order_id = ?1 AND code = ?2")?
        .execute(params![order_id, campaigns::normalize_code(code)])?;
    if removed == 0 {
        return Err(ApiError::not_found("coupon on this order"));
    }
    reprice(tx, order_id)?;
    touch(tx, order_id, Event::OrderUpdated)
}

/// The order completed: each code it holds and each campaign that discounted
/// it counts one use. A code used up meanwhile by another order stops the
/// completion (409 `coupon_used_up`): take it off and price again.
pub(super) fn count_uses(tx: &Tx, order: &OrderRow) -> Result<(), ApiError> {
    for code in codes_on(tx, &order.id)? {
        if !campaigns::use_code(tx, &code)? {
            return Err(ApiError::conflict(
                "coupon_used_up",
                format!(
                    "the code {code} was used up by another order; remove it and check out again"
                ),
            )
            .with("current_status", order.status.as_str())
            .with("code", code));
        }
    }
    for campaign_id in campaigns_on(tx, &order.id)? {
        campaigns::count_campaign_use(tx, &campaign_id, 1)?;
    }
    Ok(())
}

/// A completed order refunded in full gives its codes' and campaigns' uses back.
pub(super) fn release_uses(tx: &Tx, order_id: &str) -> Result<(), ApiError> {
    for code in codes_on(tx, order_id)? {
        campaigns::release_code(tx, &code)?;
    }
    for campaign_id in campaigns_on(tx, order_id)? {
        campaigns::count_campaign_use(tx, &campaign_id, -1)?;
    }
    Ok(())
}

fn campaigns_on(conn: &Connection, order_id: &str) -> Result<Vec<String>, ApiError> {
    let mut stmt = conn
        .prepare_cached("SELECT DISTINCT campaign_id FROM order_discounts WHERE order_id = ?1")?;
    let rows = stmt.query_map([order_id], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn campaign_conditions_know_every_order_type() {
        for order_type in [OrderType::DineIn, OrderType::Takeaway, OrderType::Delivery] {
            assert!(campaigns::ORDER_TYPES.contains(&order_type.as_str()));
        }
    }
}

/// `POST /campaigns/preview`: what an order would get from a campaign, saved
/// or not, before it runs.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CampaignPreview {
    pub campaign: CampaignDefinition,
    pub order_type: OrderType,
    #[schema(min_items = 1, max_items = 100)]
    pub items: Vec<NewLine>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PreviewResult {
    /// Whether the campaign's conditions hold for this order now.
    pub applies: bool,
    /// Why it does not apply, when it does not.
    pub reason: Option<String>,
    pub lines: Vec<PreviewLine>,
    pub subtotal: f64,
    pub discount_amount: f64,
    pub tax_amount: f64,
    pub total_amount: f64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PreviewLine {
    pub menu_item_id: String,
    pub name: String,
    pub quantity: i64,
    pub line_total: f64,
    pub discount_amount: f64,
}

/// Prices `request.items` with the campaign alone, as if it were running now.
pub fn preview(
    conn: &Connection,
    now: DateTime<Utc>,
    request: &CampaignPreview,
) -> Result<PreviewResult, ApiError> {
    let settings = settings::load(conn)?;
    let exponent = settings.exponent();
    let rules = Rules::from_definition(&request.campaign, exponent)?;
    let priced = super::write::price_lines(conn, &request.items, "items")?;
    let mut lines = Vec::with_capacity(priced.len());
    for (i, line) in priced.iter().enumerate() {
        lines.push(engine::BasketLine {
            line_id: i.to_string(),
            menu_item_id: Some(line.menu_item_id.clone()),
            category_id: Some(menu::get_item(conn, &line.menu_item_id)?.fields.category_id),
            unit_price: line.unit_price,
            quantity: line.quantity,
        });
    }
    let basket = basket(&settings, now, request.order_type, lines);
    let offer = engine::Offer {
        campaign_id: String::new(),
        name: request.campaign.name.clone(),
        rules,
        stackable: request.campaign.stackable,
        uses: 0,
        coupon_code: None,
    };
    let reason = engine::why_not(&basket, &offer);
    let discount = reason
        .is_none()
        .then(|| engine::discount_of(&basket, &offer));
    let off = |i: usize| {
        discount.as_ref().map_or(0, |d| {
            d.lines
                .iter()
                .find(|(id, _)| *id == i.to_string())
                .map_or(0, |(_, amount)| *amount)
        })
    };
    let amounts: Vec<LineAmount> = priced
        .iter()
        .enumerate()
        .map(|(i, line)| LineAmount {
            gross: line.unit_price * line.quantity,
            discount: off(i),
            tax_rate: line.tax_rate,
        })
        .collect();
    let (subtotal, discount_amount, tax, total) = totals(&amounts);
    Ok(PreviewResult {
        applies: reason.is_none(),
        reason,
        lines: priced
            .iter()
            .zip(&amounts)
            .map(|(line, amount)| PreviewLine {
                menu_item_id: line.menu_item_id.clone(),
                name: line.name.clone(),
                quantity: line.quantity,
                line_total: to_json(amount.gross, exponent),
                discount_amount: to_json(amount.discount, exponent),
            })
            .collect(),
        subtotal: to_json(subtotal, exponent),
        discount_amount: to_json(discount_amount, exponent),
        tax_amount: to_json(tax, exponent),
        total_amount: to_json(total, exponent),
    })
}
