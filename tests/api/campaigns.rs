//! Campaigns and coupons: worked examples whose figures are computed by hand
//! here, the combining rules, coupon codes on orders, and the campaign
//! routes' transitions, bad input and roles.

use brigade::auth::Role;
use brigade::time::Clock;
use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::helpers::{Client, TestApp};

struct Shop {
    app: TestApp,
}

impl Shop {
    fn new() -> Shop {
        Shop {
            app: TestApp::spawn(),
        }
    }

    fn category(&self, name: &str) -> String {
        id(&self
            .app
            .owner
            .post("/menu/categories", json!({"name": name}))
            .expect(201))
    }

    fn item(&self, category: &str, name: &str, price: f64, tax_rate: f64) -> String {
        id(&self
            .app
            .owner
            .post(
                "/menu/items",
                json!({"name": name, "category_id": category, "price": price, "tax_rate": tax_rate}),
            )
            .expect(201))
    }

    /// A campaign made and activated.
    fn running(&self, definition: Value) -> String {
        let campaign = id(&self.app.owner.post("/campaigns", definition).expect(201));
        self.app
            .owner
            .post(&format!("/campaigns/{campaign}/activate"), json!({}))
            .expect(200);
        campaign
    }

    fn order(&self, lines: &[(&str, i64)]) -> Value {
        let items: Vec<Value> = lines
            .iter()
            .map(|(item, quantity)| json!({"menu_item_id": item, "quantity": quantity}))
            .collect();
        self.app
            .owner
            .post("/orders", json!({"order_type": "takeaway", "items": items}))
            .expect(201)
    }
}

fn id(value: &Value) -> String {
    value["id"].as_str().unwrap().to_string()
}

fn amounts(order: &Value) -> (f64, f64, f64, f64) {
    (
        order["subtotal"].as_f64().unwrap(),
        order["discount_amount"].as_f64().unwrap(),
        order["tax_amount"].as_f64().unwrap(),
        order["total_amount"].as_f64().unwrap(),
    )
}

fn line_of<'a>(order: &'a Value, item: &str) -> &'a Value {
    order["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|line| line["menu_item_id"] == item)
        .unwrap()
}

#[test]
fn twenty_percent_off_a_category_is_taxed_on_the_discounted_lines() {
    let shop = Shop::new();
    let (burgers, beers) = (shop.category("Burgers"), shop.category("Beers"));
    let burger = shop.item(&burgers, "Burger", 12.5, 8.0);
    let beer = shop.item(&beers, "Lager", 5.0, 20.0);
    let campaign = shop.running(
        json!({"name": "Beer o'clock", "kind": "percent_off", "percent": 20,
        "applies_to": {"category_ids": [beers]}}),
    );

    let order = shop.order(&[(&burger, 2), (&beer, 3)]);
    // Burgers 25.00 at 8 %: 2.00 tax. Beers 15.00 less 20 % = 12.00 at 20 %: 2.40.
    assert_eq!(amounts(&order), (40.0, 3.0, 4.4, 41.4));
    assert_eq!(line_of(&order, &beer)["discount_amount"], 3.0);
    assert_eq!(line_of(&order, &burger)["discount_amount"], 0.0);
    let discount = &order["discounts"][0];
    assert_eq!(discount["campaign_id"], campaign.as_str());
    assert_eq!(discount["name"], "Beer o'clock");
    assert_eq!(discount["amount"], 3.0);
    assert_eq!(
        discount["lines"],
        json!([{"line_id": line_of(&order, &beer)["id"], "amount": 3.0}])
    );
    // The event carries the discounted total, and only the contract's fields.
    let created = shop
        .app
        .outbox(&shop.app.tenant_id)
        .into_iter()
        .find(|e| e["event"] == "order.created")
        .unwrap();
    assert_eq!(created["data"]["order"]["total_amount"], 41.4);
    assert!(created["data"]["order"].get("discounts").is_none());

    // A change of lines prices the order again: one beer, 1.00 off.
    let beer_line = line_of(&order, &beer)["id"].as_str().unwrap().to_string();
    let changed = shop
        .app
        .owner
        .patch(
            &format!("/orders/{}/items/{beer_line}", id(&order)),
            json!({"quantity": 1}),
        )
        .expect(200);
    // 25.00 + 2.00 tax; 5.00 less 1.00 = 4.00 at 20 %: 0.80.
    assert_eq!(amounts(&changed), (30.0, 1.0, 2.8, 31.8));
}

#[test]
fn buy_two_get_one_frees_the_cheapest_of_three_and_of_four() {
    let shop = Shop::new();
    let beers = shop.category("Beers");
    let lager = shop.item(&beers, "Lager", 5.0, 20.0);
    let ipa = shop.item(&beers, "IPA", 6.5, 20.0);
    let stout = shop.item(&beers, "Stout", 7.0, 20.0);
    let cider = shop.item(&beers, "Cider", 4.0, 20.0);
    shop.running(json!({"name": "3 for 2", "kind": "bogo",
        "buy": {"quantity": 2, "items": {"category_ids": [beers]}}, "get": {"quantity": 1}}));

    let three = shop.order(&[(&lager, 1), (&ipa, 1), (&stout, 1)]);
    // 18.50; the lager (5.00) is free; 13.50 at 20 % is 2.70.
    assert_eq!(amounts(&three), (18.5, 5.0, 2.7, 16.2));
    assert_eq!(line_of(&three, &lager)["discount_amount"], 5.0);

    let four = shop.order(&[(&lager, 1), (&ipa, 1), (&stout, 1), (&cider, 1)]);
    // Four units make one group of three: the cheapest, the cider (4.00), is
    // free. 22.50 less 4.00 = 18.50 at 20 % is 3.70.
    assert_eq!(amounts(&four), (22.5, 4.0, 3.7, 22.2));
    assert_eq!(line_of(&four, &cider)["discount_amount"], 4.0);
    assert_eq!(line_of(&four, &lager)["discount_amount"], 0.0);
}

#[test]
fn a_bundle_shares_its_saving_over_its_units_and_their_tax_rates() {
    let shop = Shop::new();
    let (burgers, sides, drinks) = (
        shop.category("Burgers"),
        shop.category("Sides"),
        shop.category("Drinks"),
    );
    let burger = shop.item(&burgers, "Burger", 12.0, 8.0);
    let fries = shop.item(&sides, "Fries", 5.0, 8.0);
    let soda = shop.item(&drinks, "Soda", 3.0, 20.0);
    shop.running(json!({"name": "Meal deal", "kind": "fixed_price_bundle",
        "bundle": {"price": 15, "slots": [{"category_ids": [burgers]}, {"category_ids": [sides]}, {"category_ids": [drinks]}]}}));

    let order = shop.order(&[(&burger, 1), (&fries, 1), (&soda, 1)]);
    // 20.00 for 15.00: 5.00 shared 12:5:3, so 3.00, 1.25 and 0.75. Taxable
    // 9.00 + 3.75 = 12.75 at 8 % is 1.02; 2.25 at 20 % is 0.45.
    assert_eq!(amounts(&order), (20.0, 5.0, 1.47, 16.47));
    assert_eq!(line_of(&order, &burger)["discount_amount"], 3.0);
    assert_eq!(line_of(&order, &fries)["discount_amount"], 1.25);
    assert_eq!(line_of(&order, &soda)["discount_amount"], 0.75);

    // No drink: no bundle.
    let incomplete = shop.order(&[(&burger, 1), (&fries, 2)]);
    assert_eq!(amounts(&incomplete).1, 0.0);
    assert_eq!(incomplete["discounts"], json!([]));
}

#[test]
fn happy_hour_runs_in_its_window_across_the_business_day_boundary() {
    let friday_evening: DateTime<Utc> = "2026-11-20T18:00:00Z".parse().unwrap();
    let clock = Clock::fixed(friday_evening);
    let app = TestApp::spawn_with_clock(|_| {}, clock.clone());
    // The business day starts at 04:00 UTC: 01:30 on Saturday is still Friday night.
    app.owner
        .patch(
            "/settings",
            json!({"timezone": "UTC", "business_day_start_hour": 4}),
        )
        .expect(200);
    let shop = Shop { app };
    let drinks = shop.category("Drinks");
    let cocktail = shop.item(&drinks, "Spritz", 10.0, 0.0);
    shop.running(
        json!({"name": "Late happy hour", "kind": "percent_off", "percent": 50,
        "conditions": {"weekdays": ["fri"], "time_windows": [{"from": "22:00", "to": "02:00"}]}}),
    );

    for (at, discounted) in [
        ("2026-11-20T21:59:00Z", false),
        ("2026-11-20T22:00:00Z", true),
        ("2026-11-20T23:30:00Z", true),
        // Saturday by the calendar, Friday by the business day.
        ("2026-11-21T01:30:00Z", true),
        ("2026-11-21T02:00:00Z", false),
        // Saturday night is Saturday's business day.
        ("2026-11-21T23:00:00Z", false),
    ] {
        clock.set(at.parse().unwrap());
        let order = shop.order(&[(&cocktail, 1)]);
        let expected = if discounted { 5.0 } else { 0.0 };
        assert_eq!(amounts(&order).1, expected, "at {at}");
    }

    // Paid after the window closed: the order keeps the price it was given.
    clock.set("2026-11-20T23:59:00Z".parse().unwrap());
    let order = shop.order(&[(&cocktail, 2)]);
    assert_eq!(amounts(&order).3, 10.0);
    clock.set("2026-11-21T03:00:00Z".parse().unwrap());
    let paid = shop
        .app
        .owner
        .post(
            &format!("/orders/{}/payments", id(&order)),
            json!({"method": "cash", "amount": 10}),
        )
        .expect(201);
    assert_eq!(paid["order"]["balance_due"], 0.0);
}

#[test]
fn the_best_non_stacking_campaign_wins_and_stacking_ones_add() {
    let shop = Shop::new();
    let mains = shop.category("Mains");
    let steak = shop.item(&mains, "Steak", 30.0, 0.0);
    let ten_percent =
        shop.running(json!({"name": "10 % off", "kind": "percent_off", "percent": 10}));
    let five_off = shop.running(json!({"name": "5 off", "kind": "amount_off", "amount": 5}));
    let one_off = shop
        .running(json!({"name": "1 off", "kind": "amount_off", "amount": 1, "stackable": true}));
    let five_percent = shop.running(
        json!({"name": "5 % off", "kind": "percent_off", "percent": 5, "stackable": true}),
    );

    let order = shop.order(&[(&steak, 1)]);
    // 10 % is 3.00, so 5.00 off wins; then 1.00 and 5 % (1.50) stack.
    let given: Vec<(&str, f64)> = order["discounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["campaign_id"].as_str().unwrap(),
                d["amount"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        given,
        [
            (five_off.as_str(), 5.0),
            (one_off.as_str(), 1.0),
            (five_percent.as_str(), 1.5)
        ]
    );
    assert!(!given.iter().any(|(id, _)| *id == ten_percent));
    assert_eq!(amounts(&order), (30.0, 7.5, 0.0, 22.5));

    // Paused, the winner gives way to the next best.
    shop.app
        .owner
        .post(&format!("/campaigns/{five_off}/pause"), json!({}))
        .expect(200);
    let next = shop.order(&[(&steak, 1)]);
    assert_eq!(next["discounts"][0]["campaign_id"], ten_percent.as_str());
    assert_eq!(amounts(&next).1, 5.5);

    // Stacking never takes a line below zero.
    shop.running(
        json!({"name": "On the house", "kind": "percent_off", "percent": 100, "stackable": true}),
    );
    let free = shop.order(&[(&steak, 1)]);
    assert_eq!(amounts(&free), (30.0, 30.0, 0.0, 0.0));
}

/// Runs a campaign that requires a coupon and makes it one named code; answers
/// the campaign's id and the code as made.
fn coupon_campaign(shop: &Shop, definition: Value, code: &str, uses: i64) -> (String, Value) {
    let campaign = shop.running(definition);
    let made = shop
        .app
        .owner
        .post(
            &format!("/campaigns/{campaign}/coupons"),
            json!({"code": code, "uses_per_code": uses}),
        )
        .expect(201);
    (campaign, made[0].clone())
}

fn add_code(client: &Client, order: &Value, code: &str) -> crate::helpers::Res {
    client.post(
        &format!("/orders/{}/coupons", id(order)),
        json!({"code": code}),
    )
}

#[test]
fn a_coupon_code_unlocks_its_campaign_and_says_why_when_it_cannot() {
    let shop = Shop::new();
    let mains = shop.category("Mains");
    let pasta = shop.item(&mains, "Pasta", 20.0, 10.0);
    let (campaign, made) = coupon_campaign(
        &shop,
        json!({"name": "Spring", "kind": "percent_off", "percent": 10, "requires_coupon": true,
            "conditions": {"min_subtotal": 15}}),
        "spring10",
        100,
    );
    assert_eq!(made["code"], "SPRING10");
    let batch = shop
        .app
        .owner
        .post(
            &format!("/campaigns/{campaign}/coupons"),
            json!({"count": 25, "prefix": "SP", "uses_per_code": 1, "expires_at": "2020-01-01T00:00:00Z"}),
        )
        .expect(201);
    let codes: Vec<&str> = batch
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes.len(), 25);
    assert!(codes.iter().all(|c| c.len() == 12 && c.starts_with("SP")));
    let mut unique = codes.clone();
    unique.dedup();
    assert_eq!(unique.len(), 25);

    // Without the code, no discount; with it (any case), 10 %.
    let order = shop.order(&[(&pasta, 1)]);
    assert_eq!(amounts(&order).1, 0.0);
    let with_code = add_code(&shop.app.owner, &order, "Spring10").expect(200);
    // 20.00 less 2.00 = 18.00 at 10 %: 1.80.
    assert_eq!(amounts(&with_code), (20.0, 2.0, 1.8, 19.8));
    assert_eq!(with_code["discounts"][0]["coupon_code"], "SPRING10");
    assert_eq!(with_code["coupon_codes"], json!(["SPRING10"]));
    add_code(&shop.app.owner, &with_code, "SPRING10").expect_problem(409, "coupon_on_order");

    // Each refusal names its reason.
    let other = shop.order(&[(&pasta, 1)]);
    for (code, reason) in [("NOSUCHCODE", "unknown"), (codes[0], "expired")] {
        let refused =
            add_code(&shop.app.owner, &other, code).expect_problem(422, "validation_failed");
        assert_eq!(refused["reason"], reason, "{code}");
    }
    let small = shop
        .app
        .owner
        .post(
            "/orders",
            json!({"order_type": "takeaway", "items": [{"menu_item_id": pasta, "quantity": 1}]}),
        )
        .expect(201);
    let lines = small["items"].as_array().unwrap();
    let line = lines[0]["id"].as_str().unwrap();
    shop.app
        .owner
        .delete(&format!("/orders/{}/items/{line}", id(&small)));
    let pizza = shop.item(&mains, "Slice", 4.0, 10.0);
    shop.app.owner.post(
        &format!("/orders/{}/items", id(&small)),
        json!([{"menu_item_id": pizza, "quantity": 1}]),
    );
    let below =
        add_code(&shop.app.owner, &small, "SPRING10").expect_problem(422, "validation_failed");
    assert_eq!(below["reason"], "not_applicable");
    assert!(
        below["detail"].as_str().unwrap().contains("minimum"),
        "{below}"
    );
    // Nothing was put on the refused orders.
    assert_eq!(
        shop.app
            .owner
            .get(&format!("/orders/{}", id(&other)))
            .expect(200)["coupon_codes"],
        json!([])
    );

    // Taking the code off prices the order again.
    let removed = shop
        .app
        .owner
        .delete(&format!("/orders/{}/coupons/spring10", id(&order)))
        .expect(200);
    assert_eq!(amounts(&removed), (20.0, 0.0, 2.0, 22.0));

    // The codes list shows uses, by page.
    let page = shop
        .app
        .owner
        .get(&format!("/campaigns/{campaign}/coupons?limit=20"))
        .expect(200);
    assert_eq!(page["data"].as_array().unwrap().len(), 20);
    assert!(page["next_cursor"].is_string());
}

#[test]
fn a_code_for_one_use_goes_to_exactly_one_of_two_concurrent_checkouts() {
    let shop = Shop::new();
    let mains = shop.category("Mains");
    let pasta = shop.item(&mains, "Pasta", 20.0, 0.0);
    let (campaign, _) = coupon_campaign(
        &shop,
        json!({"name": "One off", "kind": "amount_off", "amount": 5, "requires_coupon": true}),
        "ONCE",
        1,
    );
    let orders: Vec<Value> = (0..2)
        .map(|_| {
            let order = shop.order(&[(&pasta, 1)]);
            add_code(&shop.app.owner, &order, "ONCE").expect(200)
        })
        .collect();
    let results: Vec<u16> = std::thread::scope(|scope| {
        let running: Vec<_> = orders
            .iter()
            .enumerate()
            .map(|(i, order)| {
                let owner = &shop.app.owner;
                scope.spawn(move || {
                    owner
                        .send(
                            "POST",
                            "/pos/checkout",
                            json!({"order_id": order["id"], "tenders": [{"method": "cash", "amount": 15}]}),
                            &[("Idempotency-Key", &format!("race-{i}"))],
                        )
                        .status
                })
            })
            .collect();
        running.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let mut sorted = results.clone();
    sorted.sort();
    assert_eq!(sorted, [200, 409], "{results:?}");
    let coupons = shop
        .app
        .owner
        .get(&format!("/campaigns/{campaign}/coupons"))
        .expect(200);
    assert_eq!(coupons["data"][0]["uses"], 1);
    let campaign = shop
        .app
        .owner
        .get(&format!("/campaigns/{campaign}"))
        .expect(200);
    assert_eq!(campaign["uses"], 1);
    // The loser is still open and unpaid: nothing of its checkout was kept.
    let loser = orders
        .iter()
        .zip(&results)
        .find(|(_, status)| **status == 409)
        .unwrap()
        .0;
    let loser = shop
        .app
        .owner
        .get(&format!("/orders/{}", id(loser)))
        .expect(200);
    assert_eq!(loser["paid_amount"], 0.0);
    assert_ne!(loser["status"], "completed");
}

#[test]
fn checkout_takes_coupon_codes_and_a_full_refund_gives_the_use_back() {
    let shop = Shop::new();
    let mains = shop.category("Mains");
    let pasta = shop.item(&mains, "Pasta", 20.0, 10.0);
    let (campaign, _) = coupon_campaign(
        &shop,
        json!({"name": "Welcome", "kind": "amount_off", "amount": 4, "requires_coupon": true}),
        "WELCOME",
        1,
    );
    let done = shop
        .app
        .owner
        .send(
            "POST",
            "/pos/checkout",
            json!({"order": {"order_type": "takeaway", "items": [{"menu_item_id": pasta, "quantity": 1}]},
                "coupon_codes": ["welcome"], "tenders": [{"method": "card", "amount": 17.6, "reference": "a1"}]}),
            &[("Idempotency-Key", "welcome-1")],
        )
        .expect(200);
    // 20.00 less 4.00 = 16.00 at 10 %: 1.60, total 17.60.
    assert_eq!(amounts(&done["order"]), (20.0, 4.0, 1.6, 17.6));
    assert_eq!(
        done["receipt"]["discounts"],
        json!([{"name": "Welcome", "coupon_code": "WELCOME", "amount": 4.0}])
    );
    assert_eq!(done["receipt"]["taxes"][0]["taxable"], 16.0);
    let uses = |shop: &Shop| {
        shop.app
            .owner
            .get(&format!("/campaigns/{campaign}/coupons"))
            .expect(200)["data"][0]["uses"]
            .clone()
    };
    assert_eq!(uses(&shop), 1);

    // A used-up code stops a checkout, which changes nothing.
    let refused = shop
        .app
        .owner
        .send(
            "POST",
            "/pos/checkout",
            json!({"order": {"order_type": "takeaway", "items": [{"menu_item_id": pasta, "quantity": 1}]},
                "coupon_codes": ["WELCOME"], "tenders": [{"method": "cash", "amount": 30}]}),
            &[("Idempotency-Key", "welcome-2")],
        )
        .expect_problem(422, "validation_failed");
    assert_eq!(refused["reason"], "used_up");
    assert_eq!(refused["errors"][0]["field"], "coupon_codes[0]");

    // Refunded in full, the order gives its use back.
    let order_id = id(&done["order"]);
    shop.app
        .owner
        .send(
            "POST",
            &format!("/orders/{order_id}/refunds"),
            json!({"reason": "wrong order", "method": "card"}),
            &[("Idempotency-Key", "refund-1")],
        )
        .expect(201);
    assert_eq!(uses(&shop), 0);
    let campaign = shop
        .app
        .owner
        .get(&format!("/campaigns/{campaign}"))
        .expect(200);
    assert_eq!(campaign["uses"], 0);
}

#[test]
fn a_discounted_order_splits_into_checks_that_add_up_to_it() {
    let shop = Shop::new();
    let (mains, drinks) = (shop.category("Mains"), shop.category("Drinks"));
    let pasta = shop.item(&mains, "Pasta", 18.0, 10.0);
    let wine = shop.item(&drinks, "Wine", 7.0, 20.0);
    shop.running(json!({"name": "15 % off", "kind": "percent_off", "percent": 15}));
    let order = shop.order(&[(&pasta, 1), (&wine, 3)]);
    // Pasta 18.00 less 2.70 = 15.30 at 10 %: 1.53. Wine 21.00 less 3.15 =
    // 17.85 at 20 %: 3.57. Total 39.00 - 5.85 + 5.10 = 38.25.
    assert_eq!(amounts(&order), (39.0, 5.85, 5.1, 38.25));
    let wine_line = line_of(&order, &wine)["id"].clone();
    let pasta_line = line_of(&order, &pasta)["id"].clone();
    let split = shop
        .app
        .owner
        .post(
            &format!("/orders/{}/split", id(&order)),
            json!({"by": "items", "parts": [
                [{"line_id": pasta_line, "quantity": 1}, {"line_id": wine_line, "quantity": 1}],
                [{"line_id": wine_line, "quantity": 2}]]}),
        )
        .expect(201);
    let checks = split["checks"].as_array().unwrap();
    let sum = |field: &str| -> f64 {
        let cents: i64 = checks
            .iter()
            .map(|c| (c[field].as_f64().unwrap() * 100.0).round() as i64)
            .sum();
        cents as f64 / 100.0
    };
    assert_eq!(sum("subtotal"), 39.0);
    assert_eq!(sum("discount_amount"), 5.85);
    assert_eq!(sum("tax_amount"), 5.1);
    assert_eq!(sum("total_amount"), 38.25);
    // The first check: pasta (2.70 off) and one wine (1.05 off of 3.15).
    assert_eq!(checks[0]["discount_amount"], 3.75);
    for check in checks {
        let (subtotal, discount, tax, total) = amounts(check);
        assert!((subtotal - discount + tax - total).abs() < 0.001, "{check}");
    }

    let equal = shop.order(&[(&pasta, 1), (&wine, 3)]);
    let split = shop
        .app
        .owner
        .post(
            &format!("/orders/{}/split", id(&equal)),
            json!({"by": "equal", "parts": 3}),
        )
        .expect(201);
    let totals: Vec<f64> = split["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["total_amount"].as_f64().unwrap())
        .collect();
    // 38.25 in three: 12.75 each.
    assert_eq!(totals, [12.75, 12.75, 12.75]);
    let discounts: Vec<f64> = split["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["discount_amount"].as_f64().unwrap())
        .collect();
    assert_eq!(discounts, [1.95, 1.95, 1.95]);
}

#[test]
fn campaigns_move_from_draft_to_active_and_paused_and_are_edited_only_when_not_running() {
    let shop = Shop::new();
    let owner = &shop.app.owner;
    let created = owner
        .post(
            "/campaigns",
            json!({"name": "Lunch", "kind": "amount_off", "amount": 2.5,
                "conditions": {"order_types": ["takeaway"], "max_uses": 100}}),
        )
        .expect(201);
    let campaign = id(&created);
    assert_eq!(created["status"], "draft");
    assert_eq!(created["amount"], 2.5);
    assert_eq!(created["stackable"], false);
    assert_eq!(created["conditions"]["order_types"], json!(["takeaway"]));

    owner
        .post(&format!("/campaigns/{campaign}/pause"), json!({}))
        .expect_problem(409, "illegal_transition");
    owner
        .post(&format!("/campaigns/{campaign}/activate"), json!({}))
        .expect(200);
    owner
        .post(&format!("/campaigns/{campaign}/activate"), json!({}))
        .expect_problem(409, "illegal_transition");
    let active = owner
        .patch(&format!("/campaigns/{campaign}"), json!({"amount": 3}))
        .expect_problem(409, "campaign_active");
    assert_eq!(active["current_status"], "active");
    owner
        .post(&format!("/campaigns/{campaign}/pause"), json!({}))
        .expect(200);
    let edited = owner
        .patch(
            &format!("/campaigns/{campaign}"),
            json!({"kind": "percent_off", "percent": 12.5}),
        )
        .expect(200);
    assert_eq!(edited["kind"], "percent_off");
    assert_eq!(edited["percent"], 12.5);
    assert_eq!(edited["amount"], Value::Null, "the old kind's rules go");
    assert_eq!(edited["version"], 3);

    let listed = owner.get("/campaigns?status=paused").expect(200);
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    assert_eq!(
        owner.get("/campaigns?status=active").expect(200)["data"],
        json!([])
    );
    owner
        .get("/campaigns?status=gone")
        .expect_problem(422, "validation_failed");

    // Unused, it can be deleted; used, it stays.
    owner.delete(&format!("/campaigns/{campaign}")).expect(204);
    owner
        .get(&format!("/campaigns/{campaign}"))
        .expect_problem(404, "not_found");
    let mains = shop.category("Mains");
    let pasta = shop.item(&mains, "Pasta", 10.0, 0.0);
    let used = shop.running(json!({"name": "Used", "kind": "percent_off", "percent": 10}));
    shop.order(&[(&pasta, 1)]);
    owner
        .delete(&format!("/campaigns/{used}"))
        .expect_problem(409, "campaign_used");
    owner
        .post(
            &format!("/campaigns/{used}/coupons"),
            json!({"count": 2, "uses_per_code": 1}),
        )
        .expect_problem(409, "coupons_not_required");
}

#[test]
fn bad_campaigns_are_refused_by_field_and_change_nothing() {
    let shop = Shop::new();
    let owner = &shop.app.owner;
    owner
        .post_raw("/campaigns", "application/json", b"{\"name\": ")
        .expect_problem(400, "malformed_json");
    for (body, field) in [
        (json!({"kind": "percent_off", "percent": 10}), "name"),
        (json!({"name": "x", "kind": "half_off"}), "kind"),
        (json!({"name": "x", "kind": "percent_off"}), "percent"),
        (
            json!({"name": "x", "kind": "percent_off", "percent": "ten"}),
            "percent",
        ),
        (
            json!({"name": "x", "kind": "percent_off", "percent": 120}),
            "percent",
        ),
        (
            json!({"name": "x", "kind": "amount_off", "amount": 5, "percent": 5}),
            "percent",
        ),
        (
            json!({"name": "x", "kind": "bogo", "buy": {"quantity": 0, "items": {}}, "get": {"quantity": 1}}),
            "buy.quantity",
        ),
        (
            json!({"name": "x", "kind": "fixed_price_bundle", "bundle": {"price": 10, "slots": [{}]}}),
            "bundle.slots",
        ),
        (
            json!({"name": "x", "kind": "amount_off", "amount": 1, "conditions": {"time_windows": [{"from": "9:00", "to": "10:00"}]}}),
            "conditions.time_windows[0].from",
        ),
        (
            json!({"name": "x", "kind": "amount_off", "amount": 1, "conditions": {"starts_at": "2026-02-01T00:00:00Z", "ends_at": "2026-01-01T00:00:00Z"}}),
            "conditions.ends_at",
        ),
        (
            json!({"name": "x", "kind": "amount_off", "amount": 1, "colour": "red"}),
            "colour",
        ),
        (
            json!({"name": "x", "kind": "amount_off", "amount": 1, "applies_to": {"item_ids": ["0190b3c4-0000-7000-8000-00000000dead"]}}),
            "item_ids",
        ),
    ] {
        let refused = owner
            .post("/campaigns", body.clone())
            .expect_problem(422, "validation_failed");
        // Serde names a missing or unknown field in the message, the checks in `field`.
        let named = refused["errors"].as_array().unwrap().iter().any(|e| {
            e["field"].as_str().unwrap().contains(field)
                || e["message"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("`{field}`"))
        });
        assert!(named, "{body}: {refused}");
    }
    assert_eq!(owner.get("/campaigns").expect(200)["data"], json!([]));

    // Another business's campaign is unknown here.
    let (_, other_owner) = shop.app.second_tenant("other-place");
    let theirs = id(&other_owner
        .post(
            "/campaigns",
            json!({"name": "Theirs", "kind": "amount_off", "amount": 1}),
        )
        .expect(201));
    owner
        .get(&format!("/campaigns/{theirs}"))
        .expect_problem(404, "not_found");
    owner
        .post(&format!("/campaigns/{theirs}/activate"), json!({}))
        .expect_problem(404, "not_found");
    owner
        .get("/campaigns/not-an-id")
        .expect_problem(404, "not_found");
}

#[test]
fn only_managers_run_campaigns_and_kitchen_staff_do_not_see_them() {
    let shop = Shop::new();
    let cashier = shop.app.user(Role::Cashier);
    let kitchen = shop.app.user(Role::Kitchen);
    let manager = shop.app.user(Role::Manager);
    let body = json!({"name": "x", "kind": "amount_off", "amount": 1});
    cashier
        .post("/campaigns", body.clone())
        .expect_problem(403, "permission_denied");
    kitchen
        .get("/campaigns")
        .expect_problem(403, "permission_denied");
    let made = id(&manager.post("/campaigns", body).expect(201));
    cashier.get(&format!("/campaigns/{made}")).expect(200);
    cashier
        .post(&format!("/campaigns/{made}/activate"), json!({}))
        .expect_problem(403, "permission_denied");
    let pasta = shop.item(&shop.category("Mains"), "Pasta", 10.0, 0.0);
    let order = shop.order(&[(&pasta, 1)]);
    add_code(&kitchen, &order, "ANY").expect_problem(403, "permission_denied");
}

#[test]
fn guessing_coupon_codes_is_stopped() {
    let shop = Shop::new();
    let pasta = shop.item(&shop.category("Mains"), "Pasta", 10.0, 0.0);
    let order = shop.order(&[(&pasta, 1)]);
    let cashier = shop.app.user(Role::Cashier);
    for i in 0..10 {
        add_code(&cashier, &order, &format!("GUESS{i}")).expect_problem(422, "validation_failed");
    }
    let stopped = add_code(&cashier, &order, "GUESS10");
    assert_eq!(stopped.status, 429);
    assert!(stopped.header("retry-after").is_some());
    // Someone else at the same business is not held up.
    add_code(&shop.app.owner, &order, "GUESS11").expect_problem(422, "validation_failed");
}
