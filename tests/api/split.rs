//! Split bills: an order becomes checks that add up to it to the cent, each
//! paid and completed on its own, the order completing with the last.

use brigade::auth::Role;
use serde_json::{json, Value};

use crate::helpers::{event_names, TestApp};

fn order(app: &TestApp, lines: Value) -> Value {
    app.owner
        .post("/orders", json!({"order_type": "takeaway", "items": lines}))
        .expect(201)
}

fn split(app: &TestApp, order: &Value, body: Value) -> crate::helpers::Res {
    app.owner.post(
        &format!("/orders/{}/split", order["id"].as_str().unwrap()),
        body,
    )
}

fn unit(order: &Value, line: usize, quantity: i64) -> Value {
    json!({"line_id": order["items"][line]["id"], "quantity": quantity})
}

fn amounts(check: &Value) -> (f64, f64, f64) {
    (
        check["subtotal"].as_f64().unwrap(),
        check["tax_amount"].as_f64().unwrap(),
        check["total_amount"].as_f64().unwrap(),
    )
}

fn settle(app: &TestApp, check: &Value) -> Value {
    app.owner
        .send(
            "POST",
            "/pos/checkout",
            json!({"order_id": check["id"], "tenders": [{"method": "card", "amount": check["total_amount"]}]}),
            &[("Idempotency-Key", check["id"].as_str().unwrap())],
        )
        .expect(200)
}

#[test]
fn a_beer_of_three_goes_on_its_own_check_and_the_order_completes_with_the_last() {
    let app = TestApp::spawn();
    let beer = app.named_item("Beer", 5.0, 20.0);
    let burger = app.named_item("Burger", 12.5, 8.0);
    let parent = order(
        &app,
        json!([{"menu_item_id": beer, "quantity": 3}, {"menu_item_id": burger, "quantity": 1}]),
    );
    // 15.00 + 3.00 tax, 12.50 + 1.00 tax.
    assert_eq!(parent["total_amount"], 31.5);
    app.owner
        .post(
            &format!("/orders/{}/status", parent["id"].as_str().unwrap()),
            json!({"status": "confirmed"}),
        )
        .expect(200);
    let tickets_before = app.owner.get("/kitchen/tickets").expect(200)["data"]
        .as_array()
        .unwrap()
        .len();
    let done = split(
        &app,
        &parent,
        json!({"by": "items", "parts": [[unit(&parent, 0, 1)], [unit(&parent, 0, 2), unit(&parent, 1, 1)]]}),
    )
    .expect(201);
    assert_eq!(done["order"]["check_count"], 2);
    let checks = done["checks"].as_array().unwrap();
    let number = parent["order_number"].as_str().unwrap();
    assert_eq!(checks[0]["order_number"], format!("{number}-1"));
    assert_eq!(checks[1]["check_number"], 2);
    assert_eq!(checks[0]["parent_order_id"], parent["id"]);
    // One beer: 5.00 and its 1.00 of tax; two beers and the burger: 22.50 and 3.00.
    assert_eq!(amounts(&checks[0]), (5.0, 1.0, 6.0));
    assert_eq!(amounts(&checks[1]), (22.5, 3.0, 25.5));
    assert_eq!(checks[0]["items"][0]["name"], "Beer");
    assert_eq!(checks[0]["items"][0]["quantity"], 1);
    assert_eq!(checks[1]["items"][0]["quantity"], 2);

    let first = settle(&app, &checks[0]);
    assert_eq!(first["order"]["status"], "completed");
    let id = parent["id"].as_str().unwrap();
    let open = app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(open["status"], "confirmed", "one check is still to pay");
    settle(&app, &checks[1]);
    let closed = app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(closed["status"], "completed");
    assert_eq!(closed["paid_amount"], 31.5);
    assert_eq!(closed["balance_due"], 0.0);
    // The kitchen got the order once: the checks add no tickets.
    let tickets_after = app.owner.get("/kitchen/tickets").expect(200)["data"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(tickets_after, tickets_before);
    let completed = event_names(&app.outbox(&app.tenant_id), &["order.completed"]);
    assert_eq!(completed.len(), 3, "both checks and the order");
}

#[test]
fn shared_tax_adds_up_to_the_cent() {
    let app = TestApp::spawn();
    let water = app.named_item("Water", 0.99, 7.5);
    let parent = order(&app, json!([{"menu_item_id": water, "quantity": 3}]));
    // 2.97 and 0.22275 of tax, rounded to 0.22: 3.19.
    assert_eq!(parent["total_amount"], 3.19);
    let done = split(
        &app,
        &parent,
        json!({"by": "items", "parts": [[unit(&parent, 0, 1)], [unit(&parent, 0, 1)], [unit(&parent, 0, 1)]]}),
    )
    .expect(201);
    let checks: Vec<(f64, f64, f64)> = done["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(amounts)
        .collect();
    // 22 cents of tax in three: 7 each and the odd cent to the first.
    assert_eq!(
        checks,
        vec![(0.99, 0.08, 1.07), (0.99, 0.07, 1.06), (0.99, 0.07, 1.06)]
    );
}

#[test]
fn an_equal_split_gives_the_odd_cents_to_the_first_checks() {
    let app = TestApp::spawn();
    let steak = app.named_item("Steak", 9.26, 8.0);
    let parent = order(&app, json!([{"menu_item_id": steak, "quantity": 1}]));
    // 9.26 and 0.7408 of tax, 0.74: 10.00.
    assert_eq!(parent["total_amount"], 10.0);
    let done = split(&app, &parent, json!({"by": "equal", "parts": 3})).expect(201);
    let checks: Vec<(f64, f64, f64)> = done["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(amounts)
        .collect();
    assert_eq!(
        checks,
        vec![(3.09, 0.25, 3.34), (3.08, 0.25, 3.33), (3.09, 0.24, 3.33)]
    );
    assert!(done["checks"][0]["items"].as_array().unwrap().is_empty());
    for check in done["checks"].as_array().unwrap() {
        settle(&app, check);
    }
    let id = parent["id"].as_str().unwrap();
    let closed = app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(closed["status"], "completed");
    assert_eq!(closed["paid_amount"], 10.0);
}

#[test]
fn a_table_splits_by_seats_into_a_check_per_seat() {
    let app = TestApp::spawn();
    let beer = app.named_item("Beer", 5.0, 20.0);
    let burger = app.named_item("Burger", 12.5, 8.0);
    let parent = order(
        &app,
        json!([
            {"menu_item_id": beer, "quantity": 2, "seat": 1},
            {"menu_item_id": burger, "quantity": 1, "seat": 2},
            {"menu_item_id": beer, "quantity": 1, "seat": 3},
            {"menu_item_id": burger, "quantity": 1},
        ]),
    );
    assert_eq!(parent["items"][0]["seat"], 1);
    assert_eq!(parent["items"][3]["seat"], Value::Null);
    // Beer 15.00 at 20 %: 3.00; burgers 25.00 at 8 %: 2.00.
    assert_eq!(parent["total_amount"], 45.0);
    let id = parent["id"].as_str().unwrap();

    // The second burger is the table's until it is given a seat.
    let refused =
        split(&app, &parent, json!({"by": "seats"})).expect_problem(422, "validation_failed");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("without one: Burger"),
        "{refused}"
    );
    let line = parent["items"][3]["id"].as_str().unwrap();
    let path = format!("/orders/{id}/items/{line}");
    for (seat, field) in [
        (json!(0), "seat"),
        (json!(100), "seat"),
        (json!("one"), "seat"),
    ] {
        let refused = app.owner.patch(&path, json!({"seat": seat})).expect(422);
        assert!(
            refused["detail"].as_str().unwrap().contains(field),
            "{refused}"
        );
    }
    let seated = app.owner.patch(&path, json!({"seat": 1})).expect(200);
    assert_eq!(seated["items"][3]["seat"], 1);

    let done = split(&app, &parent, json!({"by": "seats"})).expect(201);
    let checks = done["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 3, "seats 1, 2 and 3");
    // Seat 1: two beers (10.00, 2.00 tax) and a burger (12.50, 1.00 tax).
    // Seat 2: a burger. Seat 3: a beer.
    assert_eq!(amounts(&checks[0]), (22.5, 3.0, 25.5));
    assert_eq!(amounts(&checks[1]), (12.5, 1.0, 13.5));
    assert_eq!(amounts(&checks[2]), (5.0, 1.0, 6.0));
    let seats: Vec<Vec<(String, i64, i64)>> = checks
        .iter()
        .map(|check| {
            check["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| {
                    (
                        l["name"].as_str().unwrap().to_string(),
                        l["quantity"].as_i64().unwrap(),
                        l["seat"].as_i64().unwrap(),
                    )
                })
                .collect()
        })
        .collect();
    assert_eq!(
        seats,
        vec![
            vec![("Beer".into(), 2, 1), ("Burger".into(), 1, 1)],
            vec![("Burger".into(), 1, 2)],
            vec![("Beer".into(), 1, 3)],
        ]
    );
    for check in checks {
        settle(&app, check);
    }
    assert_eq!(
        app.owner.get(&format!("/orders/{id}")).expect(200)["status"],
        "completed"
    );

    // One seat only, or a seat out of range, is refused.
    let alone = order(
        &app,
        json!([{"menu_item_id": beer, "quantity": 2, "seat": 4}, {"menu_item_id": burger, "quantity": 1, "seat": 4}]),
    );
    let refused =
        split(&app, &alone, json!({"by": "seats"})).expect_problem(422, "validation_failed");
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("all for one seat"),
        "{refused}"
    );
    let refused = app
        .owner
        .post(
            "/orders",
            json!({"order_type": "takeaway", "items": [{"menu_item_id": beer, "quantity": 1, "seat": 100}]}),
        )
        .expect(422);
    assert!(
        refused["detail"]
            .as_str()
            .unwrap()
            .contains("items[0].seat"),
        "{refused}"
    );
}

#[test]
fn a_split_order_and_its_checks_refuse_what_would_break_the_sums() {
    let app = TestApp::spawn();
    let beer = app.named_item("Beer", 5.0, 0.0);
    let parent = order(&app, json!([{"menu_item_id": beer, "quantity": 2}]));
    let id = parent["id"].as_str().unwrap();
    let done = split(&app, &parent, json!({"by": "equal", "parts": 2})).expect(201);
    let check = &done["checks"][0];
    let check_id = check["id"].as_str().unwrap();
    split(&app, &parent, json!({"by": "equal", "parts": 2})).expect_problem(409, "order_split");
    split(&app, check, json!({"by": "equal", "parts": 2})).expect_problem(409, "is_a_check");
    let more = json!({"items": [{"menu_item_id": beer, "quantity": 1}]});
    app.owner
        .post(&format!("/orders/{id}/items"), more.clone())
        .expect_problem(409, "order_split");
    app.owner
        .post(&format!("/orders/{check_id}/items"), more)
        .expect_problem(409, "is_a_check");
    let line = parent["items"][0]["id"].as_str().unwrap();
    app.owner
        .patch(
            &format!("/orders/{id}/items/{line}"),
            json!({"quantity": 5}),
        )
        .expect_problem(409, "order_split");
    app.owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "cash", "amount": 10}),
        )
        .expect_problem(409, "order_split");
    app.owner
        .post(
            &format!("/orders/{id}/status"),
            json!({"status": "completed"}),
        )
        .expect_problem(409, "balance_due");
    app.owner
        .post(&format!("/orders/{check_id}/cancel"), json!({}))
        .expect_problem(409, "is_a_check");
    let unchanged = app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(unchanged["total_amount"], 10.0);
    assert_eq!(unchanged["items"][0]["quantity"], 2);

    // An order with a payment is split before the payment, not after.
    let paid = order(&app, json!([{"menu_item_id": beer, "quantity": 2}]));
    app.owner
        .post(
            &format!("/orders/{}/payments", paid["id"].as_str().unwrap()),
            json!({"method": "cash", "amount": 1}),
        )
        .expect(201);
    split(&app, &paid, json!({"by": "equal", "parts": 2})).expect_problem(409, "has_payments");
    for role in [Role::Host, Role::Kitchen] {
        app.user(role)
            .post(
                &format!("/orders/{}/split", paid["id"].as_str().unwrap()),
                json!({"by": "equal", "parts": 2}),
            )
            .expect_problem(403, "permission_denied");
    }
}

#[test]
fn cancelling_a_split_order_cancels_its_checks_and_refunds_them_when_asked() {
    let app = TestApp::spawn();
    let beer = app.named_item("Beer", 5.0, 0.0);
    let parent = order(&app, json!([{"menu_item_id": beer, "quantity": 2}]));
    let id = parent["id"].as_str().unwrap();
    let done = split(&app, &parent, json!({"by": "equal", "parts": 2})).expect(201);
    let paid_check = done["checks"][0]["id"].as_str().unwrap();
    app.owner
        .post(
            &format!("/orders/{paid_check}/payments"),
            json!({"method": "card", "amount": 5}),
        )
        .expect(201);
    app.owner
        .post(
            &format!("/orders/{id}/cancel"),
            json!({"reason": "fire alarm"}),
        )
        .expect_problem(409, "has_payments");
    let cancelled = app
        .owner
        .post(
            &format!("/orders/{id}/cancel"),
            json!({"reason": "fire alarm", "refund_payments": true}),
        )
        .expect(200);
    assert_eq!(cancelled["status"], "cancelled");
    for check in done["checks"].as_array().unwrap() {
        let check = app
            .owner
            .get(&format!("/orders/{}", check["id"].as_str().unwrap()))
            .expect(200);
        assert_eq!(check["status"], "cancelled");
        assert_eq!(check["cancel_reason"], "fire alarm");
    }
    let refunded = app.owner.get(&format!("/orders/{paid_check}")).expect(200);
    assert_eq!(refunded["refunded_amount"], 5.0);
}

#[test]
fn bad_splits_are_refused_and_change_nothing() {
    let app = TestApp::spawn();
    let beer = app.named_item("Beer", 5.0, 0.0);
    let burger = app.named_item("Burger", 10.0, 0.0);
    let parent = order(
        &app,
        json!([{"menu_item_id": beer, "quantity": 3}, {"menu_item_id": burger, "quantity": 1}]),
    );
    let other = order(&app, json!([{"menu_item_id": beer, "quantity": 1}]));
    let burger_unit = unit(&parent, 1, 1);
    let cases = [
        // A beer in no part, then one too many.
        (
            json!({"by": "items", "parts": [[unit(&parent, 0, 1)], [unit(&parent, 0, 1), burger_unit.clone()]]}),
            "Beer: the parts hold 2 of its 3 units",
        ),
        (
            json!({"by": "items", "parts": [[unit(&parent, 0, 2)], [unit(&parent, 0, 2), burger_unit.clone()]]}),
            "Beer: the parts hold 4 of its 3 units",
        ),
        (
            json!({"by": "items", "parts": [[unit(&parent, 0, 3), burger_unit.clone()]]}),
            "parts: split into 2 to 20 parts",
        ),
        (
            json!({"by": "items", "parts": [[unit(&parent, 0, 3)], [burger_unit.clone()], []]}),
            "parts[2]: must hold at least one line",
        ),
        (
            json!({"by": "items", "parts": [[unit(&parent, 0, 3)], [burger_unit.clone(), unit(&other, 0, 1)]]}),
            "parts[1][1].line_id: no such line on this order",
        ),
        (
            json!({"by": "items", "parts": [[unit(&parent, 0, 3)], [burger_unit.clone(), burger_unit.clone()]]}),
            "parts[1][1].line_id: is listed twice in this part",
        ),
        (
            json!({"by": "items", "parts": [[unit(&parent, 0, 3)], [{"line_id": "nope", "quantity": 1}]]}),
            "parts[1][0].line_id: must be a UUID",
        ),
        (
            json!({"by": "equal", "parts": 1}),
            "parts: split into 2 to 20 parts",
        ),
        (
            json!({"by": "equal", "parts": 21}),
            "parts: split into 2 to 20 parts",
        ),
        (json!({"by": "equal", "parts": "two"}), "expected i64"),
        (
            json!({"by": "seats"}),
            "by: every line needs a seat to split by seats; without one: Beer, Burger",
        ),
        (json!({"by": "equal", "parts": 2, "extra": 1}), "extra"),
        (json!({"parts": 2}), "by"),
    ];
    for (body, message) in cases {
        let refused = split(&app, &parent, body.clone()).expect_problem(422, "validation_failed");
        assert!(
            refused["detail"].as_str().unwrap().contains(message),
            "{body} should say {message:?}: {refused}"
        );
    }
    let id = parent["id"].as_str().unwrap();
    app.owner
        .post_raw(
            &format!("/orders/{id}/split"),
            "application/json",
            b"{\"by\":",
        )
        .expect_problem(400, "malformed_json");
    let (_, stranger) = app.second_tenant("elsewhere");
    stranger
        .post(
            &format!("/orders/{id}/split"),
            json!({"by": "equal", "parts": 2}),
        )
        .expect_problem(404, "not_found");
    let unchanged = app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(unchanged["check_count"], 0);
    assert_eq!(unchanged["version"], parent["version"]);
    assert_eq!(
        app.owner.get("/orders").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        2,
        "no check was made"
    );
}
