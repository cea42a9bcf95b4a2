//! Refunds of completed orders, and cancelling an order that has payments.

use brigade::auth::Role;
use serde_json::{json, Value};

use crate::helpers::{event_names, Client, TestApp};

/// A takeaway order of `lines`, paid by card and completed.
fn completed(app: &TestApp, lines: Value) -> Value {
    let order = app
        .owner
        .post("/orders", json!({"order_type": "takeaway", "items": lines}))
        .expect(201);
    let id = order["id"].as_str().unwrap();
    app.owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "card", "amount": order["total_amount"]}),
        )
        .expect(201);
    app.owner
        .post(
            &format!("/orders/{id}/status"),
            json!({"status": "completed"}),
        )
        .expect(200)
}

fn refund(client: &Client, order: &Value, body: Value) -> crate::helpers::Res {
    client.post(
        &format!("/orders/{}/refunds", order["id"].as_str().unwrap()),
        body,
    )
}

fn line(order: &Value, index: usize) -> Value {
    order["items"][index]["id"].clone()
}

#[test]
fn lines_are_refunded_with_their_tax_and_the_last_unit_takes_what_is_left() {
    let app = TestApp::spawn();
    let burger = app.named_item("Burger", 12.5, 8.0);
    let water = app.named_item("Water", 0.99, 7.5);
    let order = completed(
        &app,
        json!([{"menu_item_id": burger, "quantity": 2}, {"menu_item_id": water, "quantity": 3}]),
    );
    // 25.00 + 2.00 tax; 2.97 + 0.22 tax (0.22275 rounded): 30.19.
    assert_eq!(order["total_amount"], 30.19);
    let manager = app.user(Role::Manager);

    // One burger: 12.50 and its 8 % tax, 1.00.
    let first = refund(
        &manager,
        &order,
        json!({"lines": [{"line_id": line(&order, 0), "quantity": 1}], "reason": "cold", "method": "card"}),
    )
    .expect(201);
    assert_eq!(first["refund"]["amount"], -13.5);
    assert_eq!(first["refund"]["method"], "card");
    assert_eq!(first["refund"]["reason"], "cold");
    assert_eq!(first["order"]["refunded_amount"], 13.5);
    assert_eq!(first["order"]["status"], "completed");
    assert_eq!(
        first["order"]["paid_amount"], 30.19,
        "payments stay as taken"
    );

    // Two waters: 1.98 and 0.1485 of tax, 0.15: 2.13.
    let second = refund(
        &manager,
        &order,
        json!({"lines": [{"line_id": line(&order, 1), "quantity": 2}], "reason": "spilt", "method": "cash"}),
    )
    .expect(201);
    assert_eq!(second["refund"]["amount"], -2.13);
    // No third water beyond the three ordered.
    let refused = refund(
        &manager,
        &order,
        json!({"lines": [{"line_id": line(&order, 1), "quantity": 2}], "reason": "again", "method": "cash"}),
    )
    .expect_problem(422, "validation_failed");
    assert_eq!(refused["errors"][0]["field"], "lines[0].quantity");
    assert_eq!(
        refused["errors"][0]["message"],
        "only 1 of this line left to refund"
    );

    // The last units give back what is left: 30.19 - 13.50 - 2.13 = 14.56.
    let last = refund(
        &manager,
        &order,
        json!({"lines": [
            {"line_id": line(&order, 0), "quantity": 1},
            {"line_id": line(&order, 1), "quantity": 1}
        ], "reason": "closing the table", "method": "card"}),
    )
    .expect(201);
    assert_eq!(last["refund"]["amount"], -14.56);
    assert_eq!(last["order"]["refunded_amount"], 30.19);
    refund(
        &manager,
        &order,
        json!({"reason": "more", "method": "card"}),
    )
    .expect_problem(409, "nothing_to_refund");

    let id = order["id"].as_str().unwrap();
    let payments = app.owner.get(&format!("/orders/{id}/payments")).expect(200)["data"]
        .as_array()
        .unwrap()
        .clone();
    let amounts: Vec<f64> = payments
        .iter()
        .map(|p| p["amount"].as_f64().unwrap())
        .collect();
    assert_eq!(amounts, vec![30.19, -13.5, -2.13, -14.56]);
    let events = event_names(&app.outbox(&app.tenant_id), &["order."]);
    assert_eq!(
        events[events.len() - 3..],
        ["order.updated", "order.updated", "order.updated"],
        "each refund emits order.updated: {events:?}"
    );
}

#[test]
fn the_last_unit_of_a_line_takes_the_rounding_cent() {
    let app = TestApp::spawn();
    let water = app.named_item("Water", 0.99, 7.5);
    let order = completed(&app, json!([{"menu_item_id": water, "quantity": 3}]));
    // 2.97 + 0.22275 of tax, rounded to 0.22: 3.19.
    assert_eq!(order["total_amount"], 3.19);
    let one = json!({"lines": [{"line_id": line(&order, 0), "quantity": 1}], "reason": "r", "method": "cash"});
    // A unit alone is 0.99 + 0.07425 of tax, 0.07: 1.06, twice; the last is 1.07.
    let amounts: Vec<f64> = (0..3)
        .map(|_| {
            refund(&app.owner, &order, one.clone()).expect(201)["refund"]["amount"]
                .as_f64()
                .unwrap()
        })
        .collect();
    assert_eq!(amounts, vec![-1.06, -1.06, -1.07]);
}

#[test]
fn an_amount_or_everything_left_is_refunded_but_never_more_than_was_paid() {
    let app = TestApp::spawn();
    let burger = app.named_item("Burger", 10.0, 0.0);
    let order = completed(&app, json!([{"menu_item_id": burger, "quantity": 4}]));
    let refused = refund(
        &app.owner,
        &order,
        json!({"amount": 40.01, "reason": "too much", "method": "card"}),
    )
    .expect_problem(409, "refund_exceeds_paid");
    assert_eq!(refused["refundable"], 40.0);
    refund(
        &app.owner,
        &order,
        json!({"amount": 15.5, "reason": "late", "method": "other", "reference": "voucher 7"}),
    )
    .expect(201);
    // Lines worth more than is left are refused too.
    refund(
        &app.owner,
        &order,
        json!({"lines": [{"line_id": line(&order, 0), "quantity": 3}], "reason": "r", "method": "card"}),
    )
    .expect_problem(409, "refund_exceeds_paid");
    let rest = refund(
        &app.owner,
        &order,
        json!({"reason": "closing down", "method": "card"}),
    )
    .expect(201);
    assert_eq!(rest["refund"]["amount"], -24.5);
    assert_eq!(rest["order"]["refunded_amount"], 40.0);
}

#[test]
fn only_owners_and_managers_refund_and_only_completed_orders() {
    let app = TestApp::spawn();
    let burger = app.named_item("Burger", 10.0, 0.0);
    let order = completed(&app, json!([{"menu_item_id": burger, "quantity": 1}]));
    let body = json!({"amount": 1, "reason": "r", "method": "cash"});
    for role in [Role::Cashier, Role::Server, Role::Host, Role::Kitchen] {
        refund(&app.user(role), &order, body.clone()).expect_problem(403, "permission_denied");
    }
    let open = app.order(&burger, 1);
    let refused =
        refund(&app.owner, &open, body.clone()).expect_problem(409, "order_not_completed");
    assert_eq!(refused["current_status"], "pending");
    let id = order["id"].as_str().unwrap();
    let after = app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(
        after["refunded_amount"], 0.0,
        "no refusal gave anything back"
    );
    assert_eq!(after["version"], order["version"]);
}

#[test]
fn bad_refunds_are_refused_and_change_nothing() {
    let app = TestApp::spawn();
    let burger = app.named_item("Burger", 10.0, 0.0);
    let order = completed(&app, json!([{"menu_item_id": burger, "quantity": 2}]));
    let other = completed(&app, json!([{"menu_item_id": burger, "quantity": 1}]));
    let line_of = |order: &Value| json!([{"line_id": line(order, 0), "quantity": 1}]);
    let cases = [
        (
            json!({"lines": line_of(&order), "amount": 5, "reason": "r", "method": "cash"}),
            "amount",
        ),
        (
            json!({"lines": line_of(&other), "reason": "r", "method": "cash"}),
            "lines[0].line_id",
        ),
        (
            json!({"lines": [{"line_id": uuid::Uuid::now_v7(), "quantity": 1}], "reason": "r", "method": "cash"}),
            "lines[0].line_id",
        ),
        (
            json!({"lines": [{"line_id": "nope", "quantity": 1}], "reason": "r", "method": "cash"}),
            "lines[0].line_id",
        ),
        (
            json!({"lines": [{"line_id": line(&order, 0), "quantity": 1}, {"line_id": line(&order, 0), "quantity": 1}], "reason": "r", "method": "cash"}),
            "lines[1].line_id",
        ),
        (
            json!({"lines": [], "reason": "r", "method": "cash"}),
            "lines",
        ),
        (
            json!({"lines": [{"line_id": line(&order, 0), "quantity": 0}], "reason": "r", "method": "cash"}),
            "lines[0].quantity",
        ),
        (
            json!({"amount": 0, "reason": "r", "method": "cash"}),
            "amount",
        ),
        (
            json!({"amount": 1.001, "reason": "r", "method": "cash"}),
            "amount",
        ),
        (
            json!({"amount": 1, "reason": "  ", "method": "cash"}),
            "reason",
        ),
        (json!({"amount": 1, "method": "cash"}), "reason"),
        (
            json!({"amount": 1, "reason": "r", "method": "cheque"}),
            "method",
        ),
        (
            json!({"amount": "1", "reason": "r", "method": "cash"}),
            "amount",
        ),
        (
            json!({"amount": 1, "reason": "r", "method": "cash", "to": "me"}),
            "to",
        ),
    ];
    for (body, field) in cases {
        let refused =
            refund(&app.owner, &order, body.clone()).expect_problem(422, "validation_failed");
        let fields: Vec<&str> = refused["errors"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["field"].as_str())
            .collect();
        // A missing field is named in the message about the body.
        let named_in_detail = refused["detail"].as_str().unwrap().contains(field);
        assert!(
            fields.iter().any(|f| f.starts_with(field)) || named_in_detail,
            "{body} should name {field}: {refused}"
        );
    }
    let id = order["id"].as_str().unwrap();
    app.owner
        .post_raw(
            &format!("/orders/{id}/refunds"),
            "application/json",
            b"{\"amount\": ",
        )
        .expect_problem(400, "malformed_json");
    let unknown = json!({"id": uuid::Uuid::now_v7()});
    refund(
        &app.owner,
        &unknown,
        json!({"reason": "r", "method": "cash"}),
    )
    .expect_problem(404, "not_found");
    let (_, stranger) = app.second_tenant("elsewhere");
    refund(&stranger, &order, json!({"reason": "r", "method": "cash"}))
        .expect_problem(404, "not_found");
    let after = app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(after["refunded_amount"], 0.0);
    let payments = app.owner.get(&format!("/orders/{id}/payments")).expect(200);
    assert_eq!(
        payments["data"].as_array().unwrap().len(),
        1,
        "only the payment"
    );
}

#[test]
fn a_repeated_refund_with_its_key_gives_back_once() {
    let app = TestApp::spawn();
    let burger = app.named_item("Burger", 10.0, 0.0);
    let order = completed(&app, json!([{"menu_item_id": burger, "quantity": 2}]));
    let id = order["id"].as_str().unwrap();
    let body = json!({"amount": 5, "reason": "r", "method": "cash"});
    let send = || {
        app.owner.send(
            "POST",
            &format!("/orders/{id}/refunds"),
            body.clone(),
            &[("Idempotency-Key", "refund-1")],
        )
    };
    let first = send().expect(201);
    let again = send().expect(201);
    assert_eq!(first["refund"]["id"], again["refund"]["id"]);
    let after = app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(after["refunded_amount"], 5.0);
}

#[test]
fn a_paid_order_is_cancelled_only_with_its_payments_refunded() {
    let app = TestApp::spawn();
    let burger = app.named_item("Burger", 10.0, 0.0);
    let order = app.order(&burger, 2);
    let id = order["id"].as_str().unwrap();
    app.owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "card", "amount": 12, "tip": 2, "reference": "auth-9"}),
        )
        .expect(201);
    app.owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "cash", "amount": 3}),
        )
        .expect(201);
    let refused = app
        .owner
        .post(&format!("/orders/{id}/cancel"), json!({"reason": "left"}))
        .expect_problem(409, "has_payments");
    assert_eq!(refused["refundable"], 15.0);
    app.owner
        .post(
            &format!("/orders/{id}/status"),
            json!({"status": "cancelled"}),
        )
        .expect_problem(409, "has_payments");
    // A cashier may cancel, but not give money back.
    app.user(Role::Cashier)
        .post(
            &format!("/orders/{id}/cancel"),
            json!({"reason": "left", "refund_payments": true}),
        )
        .expect_problem(403, "permission_denied");
    let unchanged = app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(unchanged["status"], "pending");
    assert_eq!(unchanged["refunded_amount"], 0.0);

    let cancelled = app
        .user(Role::Manager)
        .post(
            &format!("/orders/{id}/cancel"),
            json!({"reason": "left", "refund_payments": true}),
        )
        .expect(200);
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(cancelled["cancel_reason"], "left");
    assert_eq!(cancelled["paid_amount"], 15.0);
    assert_eq!(cancelled["refunded_amount"], 15.0);
    assert_eq!(cancelled["tip_amount"], 0.0, "the tip went back too");
    let payments = app.owner.get(&format!("/orders/{id}/payments")).expect(200)["data"]
        .as_array()
        .unwrap()
        .clone();
    let refunds: Vec<(String, f64, f64, String)> = payments
        .iter()
        .filter(|p| p["amount"].as_f64().unwrap() < 0.0)
        .map(|p| {
            (
                p["method"].as_str().unwrap().to_string(),
                p["amount"].as_f64().unwrap(),
                p["tip"].as_f64().unwrap(),
                p["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        refunds,
        vec![
            ("card".into(), -12.0, -2.0, "left".into()),
            ("cash".into(), -3.0, 0.0, "left".into())
        ]
    );
    let events = event_names(&app.outbox(&app.tenant_id), &["order."]);
    assert_eq!(events.last().unwrap(), "order.cancelled");
    // An unpaid order still cancels without being asked about payments.
    let unpaid = app.order(&burger, 1);
    app.user(Role::Cashier)
        .post(
            &format!("/orders/{}/cancel", unpaid["id"].as_str().unwrap()),
            json!({}),
        )
        .expect(200);
}
