//! Pricing: which campaigns an order gets and how much each takes off which
//! line. Pure: the order comes in as a basket, the campaigns as offers.
//!
//! The rules, in order:
//! 1. An offer applies when all its conditions hold (see [`why_not`]).
//! 2. Each offer's discount goes to lines: `percent_off` takes its percentage
//!    of each line it covers, rounded half up per line; `amount_off` (capped
//!    at what it covers) and a bundle's saving are shared in proportion to the
//!    lines' amounts, the leftover cents to the largest remainders; `bogo`
//!    takes its percentage off each unit it frees, the cheapest first.
//! 3. Every stackable offer applies, and of the others only the one that gives
//!    the most (the first created on a tie). The winner goes first.
//! 4. No line is discounted below zero: a later discount takes only what is
//!    left of a line.

use chrono::{DateTime, NaiveTime, Utc};

use super::model::{CampaignKind, Rules, Selection, Weekday};
use crate::money::{percentage, share};

/// An order line as pricing sees it: amounts in minor units, the unit price
/// with its modifiers.
#[derive(Debug, Clone)]
pub struct BasketLine {
    pub line_id: String,
    pub menu_item_id: Option<String>,
    pub category_id: Option<String>,
    pub unit_price: i64,
    pub quantity: i64,
}

impl BasketLine {
    fn amount(&self) -> i64 {
        self.unit_price * self.quantity
    }

    fn in_selection(&self, selection: &Selection) -> bool {
        selection.holds(self.menu_item_id.as_deref(), self.category_id.as_deref())
    }
}

#[derive(Debug, Clone)]
pub struct Basket {
    pub lines: Vec<BasketLine>,
    pub order_type: String,
    pub now: DateTime<Utc>,
    /// The local time of day, in the tenant's time zone.
    pub local_time: NaiveTime,
    /// The weekday of the business day the order belongs to.
    pub business_weekday: Weekday,
}

impl Basket {
    pub fn subtotal(&self) -> i64 {
        self.lines.iter().map(BasketLine::amount).sum()
    }
}

/// A campaign that may price the order: active, and when it requires a
/// coupon, with one of its codes on the order.
#[derive(Debug, Clone)]
pub struct Offer {
    pub campaign_id: String,
    pub name: String,
    pub rules: Rules,
    pub stackable: bool,
    pub uses: i64,
    pub coupon_code: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Discount {
    pub campaign_id: String,
    pub coupon_code: Option<String>,
    pub name: String,
    pub amount: i64,
    /// Line id and the amount taken off it; lines given nothing are left out.
    pub lines: Vec<(String, i64)>,
}

/// Why the offer does not apply to the basket, in words for the cashier; `None`
/// when every condition holds.
pub fn why_not(basket: &Basket, offer: &Offer) -> Option<String> {
    let rules = &offer.rules;
    if rules.starts_at.is_some_and(|start| basket.now < start) {
        return Some("the campaign has not started yet".into());
    }
    if rules.ends_at.is_some_and(|end| basket.now >= end) {
        return Some("the campaign has ended".into());
    }
    if !rules.weekdays.is_empty() && !rules.weekdays.contains(&basket.business_weekday) {
        return Some("the campaign does not run on this day".into());
    }
    let t = basket.local_time;
    let in_window = |(from, to): &(NaiveTime, NaiveTime)| {
        if from < to {
            *from <= t && t < *to
        } else {
            t >= *from || t < *to
        }
    };
    if !rules.time_windows.is_empty() && !rules.time_windows.iter().any(in_window) {
        return Some("the campaign does not run at this time of day".into());
    }
    if !rules.order_types.is_empty() && !rules.order_types.contains(&basket.order_type) {
        return Some(format!(
            "the campaign does not apply to {} orders",
            basket.order_type
        ));
    }
    if let Some(min) = rules.min_subtotal {
        if basket.subtotal() < min {
            return Some("the order's subtotal is below the campaign's minimum".into());
        }
    }
    if rules.max_uses.is_some_and(|max| offer.uses >= max) {
        return Some("the campaign has reached its number of uses".into());
    }
    None
}

/// The discounts the basket gets from `offers` (in the order the campaigns were
/// created), as the rules above say.
pub fn price(basket: &Basket, offers: &[Offer]) -> Vec<Discount> {
    let candidates: Vec<Discount> = offers
        .iter()
        .filter(|offer| why_not(basket, offer).is_none())
        .map(|offer| discount_of(basket, offer))
        .filter(|discount| discount.amount > 0)
        .collect();
    let mut best: Option<&Discount> = None;
    for (discount, offer) in candidates.iter().zip(offers_of(&candidates, offers)) {
        if !offer.stackable && best.is_none_or(|b| discount.amount > b.amount) {
            best = Some(discount);
        }
    }
    let mut chosen: Vec<&Discount> = best.into_iter().collect();
    chosen.extend(
        candidates
            .iter()
            .zip(offers_of(&candidates, offers))
            .filter(|(_, offer)| offer.stackable)
            .map(|(discount, _)| discount),
    );
    let mut left: Vec<(String, i64)> = basket
        .lines
        .iter()
        .map(|l| (l.line_id.clone(), l.amount()))
        .collect();
    chosen
        .into_iter()
        .map(|discount| {
            let lines: Vec<(String, i64)> = discount
                .lines
                .iter()
                .filter_map(|(line_id, amount)| {
                    let remaining = left.iter_mut().find(|(id, _)| id == line_id)?;
                    let taken = (*amount).min(remaining.1);
                    remaining.1 -= taken;
                    (taken > 0).then(|| (line_id.clone(), taken))
                })
                .collect();
            Discount {
                amount: lines.iter().map(|(_, amount)| amount).sum(),
                lines,
                ..discount.clone()
            }
        })
        .filter(|discount| discount.amount > 0)
        .collect()
}

fn offers_of<'a>(
    candidates: &'a [Discount],
    offers: &'a [Offer],
) -> impl Iterator<Item = &'a Offer> + 'a {
    candidates.iter().filter_map(move |discount| {
        offers
            .iter()
            .find(|offer| offer.campaign_id == discount.campaign_id)
    })
}

/// What one offer alone takes off the basket.
pub fn discount_of(basket: &Basket, offer: &Offer) -> Discount {
    let rules = &offer.rules;
    let per_line: Vec<i64> = match rules.kind {
        CampaignKind::PercentOff => basket
            .lines
            .iter()
            .map(|line| {
                if line.in_selection(&rules.applies_to) {
                    percentage(line.amount(), rules.percent.unwrap_or(0))
                } else {
                    0
                }
            })
            .collect(),
        CampaignKind::AmountOff => {
            let covered: Vec<i64> = basket
                .lines
                .iter()
                .map(|line| {
                    if line.in_selection(&rules.applies_to) {
                        line.amount()
                    } else {
                        0
                    }
                })
                .collect();
            let amount = rules.amount.unwrap_or(0).min(covered.iter().sum());
            share(amount, &covered)
        }
        CampaignKind::Bogo => bogo(basket, rules),
        CampaignKind::FixedPriceBundle => bundles(basket, rules),
    };
    let lines: Vec<(String, i64)> = basket
        .lines
        .iter()
        .zip(per_line)
        .filter(|(_, amount)| *amount > 0)
        .map(|(line, amount)| (line.line_id.clone(), amount.min(line.amount())))
        .collect();
    Discount {
        campaign_id: offer.campaign_id.clone(),
        coupon_code: offer.coupon_code.clone(),
        name: offer.name.clone(),
        amount: lines.iter().map(|(_, amount)| amount).sum(),
        lines,
    }
}

/// Each unit of the basket as (line index, unit price), dearest first.
fn units_where(basket: &Basket, keep: impl Fn(&BasketLine) -> bool) -> Vec<(usize, i64)> {
    let mut units: Vec<(usize, i64)> = basket
        .lines
        .iter()
        .enumerate()
        .filter(|(_, line)| keep(line))
        .flat_map(|(i, line)| {
            std::iter::repeat_n((i, line.unit_price), line.quantity.max(0) as usize)
        })
        .collect();
    units.sort_by_key(|&(i, price)| (std::cmp::Reverse(price), i));
    units
}

/// Buy `n`, get `m`: with one set, every `n + m` units free the cheapest `m`;
/// with a separate get set, every `n` units bought free `m` of the get set's
/// cheapest units (a unit in both sets counts as a get unit).
fn bogo(basket: &Basket, rules: &Rules) -> Vec<i64> {
    let mut per_line = vec![0; basket.lines.len()];
    let (Some((buy_quantity, buy_items)), Some((get_quantity, get_items, rate))) =
        (&rules.buy, &rules.get)
    else {
        return per_line;
    };
    let freed: Vec<(usize, i64)> = match get_items {
        None => {
            let units = units_where(basket, |line| line.in_selection(buy_items));
            let groups = units.len() as i64 / (buy_quantity + get_quantity);
            let free = (groups * get_quantity) as usize;
            units[units.len() - free..].to_vec()
        }
        Some(get_items) => {
            let gets = units_where(basket, |line| line.in_selection(get_items));
            let buys = units_where(basket, |line| {
                line.in_selection(buy_items) && !line.in_selection(get_items)
            });
            let free =
                ((buys.len() as i64 / buy_quantity) * get_quantity).min(gets.len() as i64) as usize;
            gets[gets.len() - free..].to_vec()
        }
    };
    for (i, price) in freed {
        per_line[i] += percentage(price, *rate);
    }
    per_line
}

/// Bundles made while every slot can be filled and the bundle saves money,
/// each from the dearest units left (the most the customer can save).
fn bundles(basket: &Basket, rules: &Rules) -> Vec<i64> {
    let mut per_line = vec![0; basket.lines.len()];
    let Some((price, slots)) = &rules.bundle else {
        return per_line;
    };
    let mut left = units_where(basket, |_| true);
    loop {
        let mut taken: Vec<(usize, i64)> = Vec::with_capacity(slots.len());
        for slot in slots {
            let found = left
                .iter()
                .position(|(i, _)| basket.lines[*i].in_selection(slot));
            match found {
                Some(at) => taken.push(left.remove(at)),
                None => return per_line,
            }
        }
        let regular: i64 = taken.iter().map(|(_, price)| price).sum();
        if regular <= *price {
            return per_line;
        }
        let prices: Vec<i64> = taken.iter().map(|(_, price)| *price).collect();
        for ((i, _), saving) in taken.iter().zip(share(regular - price, &prices)) {
            per_line[*i] += saving;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::campaigns::model::CampaignDefinition;

    const BURGERS: &str = "0190b3c4-0000-7000-8000-000000000001";
    const SIDES: &str = "0190b3c4-0000-7000-8000-000000000002";

    fn line(id: &str, category: &str, unit_price: i64, quantity: i64) -> BasketLine {
        BasketLine {
            line_id: id.into(),
            menu_item_id: Some(format!("item-{id}")),
            category_id: Some(category.into()),
            unit_price,
            quantity,
        }
    }

    fn basket(lines: Vec<BasketLine>) -> Basket {
        Basket {
            lines,
            order_type: "dine_in".into(),
            now: "2026-11-20T18:00:00Z".parse().unwrap(),
            local_time: NaiveTime::from_hms_opt(18, 0, 0).unwrap(),
            business_weekday: Weekday::Fri,
        }
    }

    fn offer(id: &str, json: serde_json::Value) -> Offer {
        let definition: CampaignDefinition = serde_json::from_value(json).unwrap();
        Offer {
            campaign_id: id.into(),
            name: definition.name.clone(),
            rules: Rules::from_definition(&definition, 2).unwrap(),
            stackable: definition.stackable,
            uses: 0,
            coupon_code: None,
        }
    }

    #[test]
    fn bogo_frees_the_cheapest_units_of_each_group() {
        let buy_two_get_one = offer(
            "bogo",
            serde_json::json!({"name": "3 for 2", "kind": "bogo",
                "buy": {"quantity": 2, "items": {}}, "get": {"quantity": 1}}),
        );
        // 9.00, 7.00, 5.00: one group, the 5.00 unit is free.
        let three = basket(vec![
            line("a", "c", 900, 1),
            line("b", "c", 700, 1),
            line("c", "c", 500, 1),
        ]);
        assert_eq!(
            discount_of(&three, &buy_two_get_one).lines,
            vec![("c".to_string(), 500)]
        );
        // A fourth unit (4.00) makes no second group: the 4.00 one is free.
        let mut four = three.clone();
        four.lines.push(line("d", "c", 400, 1));
        assert_eq!(
            discount_of(&four, &buy_two_get_one).lines,
            vec![("d".to_string(), 400)]
        );
    }

    #[test]
    fn bundles_use_the_dearest_units_and_save_only_when_cheaper() {
        let meal = offer(
            "meal",
            serde_json::json!({"name": "Meal deal", "kind": "fixed_price_bundle",
                "bundle": {"price": 15, "slots": [{"category_ids": [BURGERS]}, {"category_ids": [SIDES]}]}}),
        );
        let order = basket(vec![
            line("burger", BURGERS, 1200, 1),
            line("fries", SIDES, 500, 2),
        ]);
        // 12.00 + 5.00 = 17.00 for 15.00: 2.00 off, shared 12:5.
        let discount = discount_of(&order, &meal);
        assert_eq!(discount.amount, 200);
        assert_eq!(
            discount.lines,
            vec![("burger".to_string(), 141), ("fries".to_string(), 59)]
        );
    }

    #[test]
    fn the_best_non_stacking_offer_wins_and_stacking_ones_add_but_never_below_zero() {
        let ten = offer(
            "ten",
            serde_json::json!({"name": "10%", "kind": "percent_off", "percent": 10}),
        );
        let five_off = offer(
            "five",
            serde_json::json!({"name": "5 off", "kind": "amount_off", "amount": 5}),
        );
        let all = offer(
            "all",
            serde_json::json!({"name": "All", "kind": "percent_off", "percent": 100, "stackable": true}),
        );
        let order = basket(vec![line("a", "c", 3000, 1)]);
        let discounts = price(&order, &[ten.clone(), five_off.clone()]);
        assert_eq!(discounts.len(), 1);
        assert_eq!(discounts[0].campaign_id, "five", "5.00 beats 3.00");
        let stacked = price(&order, &[ten, five_off, all]);
        let total: i64 = stacked.iter().map(|d| d.amount).sum();
        assert_eq!(total, 3000, "the line is discounted to zero, not below");
        assert_eq!(stacked[1].amount, 2500);
    }

    #[test]
    fn time_windows_run_past_midnight() {
        let late = offer(
            "late",
            serde_json::json!({"name": "Late", "kind": "percent_off", "percent": 10,
                "conditions": {"time_windows": [{"from": "22:00", "to": "02:00"}]}}),
        );
        let mut order = basket(vec![line("a", "c", 1000, 1)]);
        for (hour, applies) in [(23, true), (1, true), (2, false), (18, false)] {
            order.local_time = NaiveTime::from_hms_opt(hour, 0, 0).unwrap();
            assert_eq!(why_not(&order, &late).is_none(), applies, "{hour}:00");
        }
    }
}
