//! Checkout at the counter: tenders, completion and the receipt in one step.

use brigade::auth::Role;
use serde_json::{json, Value};

use crate::helpers::{event_names, Client, Res, TestApp};

struct Counter {
    app: TestApp,
    burger: String,
    beer: String,
}

/// Burgers at 12.50 with 8 % tax and beers at 5.00 with 20 %.
fn counter() -> Counter {
    let app = TestApp::spawn();
    let (burger, beer) = (
        app.named_item("Burger", 12.5, 8.0),
        app.named_item("Beer", 5.0, 20.0),
    );
    Counter { app, burger, beer }
}

impl Counter {
    /// Two burgers and a beer: 25.00 + 2.00 tax and 5.00 + 1.00 tax, 33.00.
    fn lines(&self) -> Value {
        json!([{"menu_item_id": self.burger, "quantity": 2}, {"menu_item_id": self.beer, "quantity": 1}])
    }

    /// A pending takeaway order of [`Counter::lines`].
    fn open_order(&self) -> Value {
        self.app
            .owner
            .post(
                "/orders",
                json!({"order_type": "takeaway", "items": self.lines()}),
            )
            .expect(201)
    }

    fn checkout(&self, client: &Client, key: &str, body: Value) -> Res {
        client.send("POST", "/pos/checkout", body, &[("Idempotency-Key", key)])
    }

    fn order_count(&self) -> usize {
        self.app.owner.get("/orders").expect(200)["data"]
            .as_array()
            .unwrap()
            .len()
    }
}

#[test]
fn a_new_order_is_paid_with_card_and_cash_and_completed_with_its_receipt() {
    let c = counter();
    let body = json!({"order": {"order_type": "takeaway", "items": c.lines()},
        "tenders": [{"method": "card", "amount": 20, "reference": "auth-7"}, {"method": "cash", "amount": 20}]});
    let done = c.checkout(&c.app.owner, "till-1", body).expect(200);
    let order = &done["order"];
    assert_eq!(order["status"], "completed");
    assert_eq!(order["total_amount"], 33.0);
    assert_eq!(order["paid_amount"], 33.0);
    assert_eq!(order["balance_due"], 0.0);
    assert_eq!(done["change_due"], 7.0);

    let receipt = &done["receipt"];
    assert_eq!(receipt["business_name"], "Test Bistro");
    assert_eq!(receipt["order_number"], order["order_number"]);
    assert_eq!(receipt["currency"], "USD");
    assert_eq!(receipt["lines"][0]["name"], "Burger");
    assert_eq!(receipt["lines"][0]["quantity"], 2);
    assert_eq!(receipt["lines"][0]["amount"], 25.0);
    assert_eq!(receipt["subtotal"], 30.0);
    assert_eq!(
        receipt["taxes"],
        json!([{"rate": 8.0, "taxable": 25.0, "tax": 2.0}, {"rate": 20.0, "taxable": 5.0, "tax": 1.0}])
    );
    assert_eq!(receipt["total_amount"], 33.0);
    assert_eq!(
        receipt["tenders"],
        json!([
            {"method": "card", "amount": 20.0, "tendered": 20.0, "tip": 0.0, "reference": "auth-7"},
            {"method": "cash", "amount": 13.0, "tendered": 20.0, "tip": 0.0, "reference": null}
        ])
    );
    assert_eq!(receipt["change_due"], 7.0);
    assert!(receipt["closed_at"].is_string());

    // Confirmed on the way, so the kitchen has it; then paid and completed.
    let events = event_names(&c.app.outbox(&c.app.tenant_id), &["order."]);
    assert_eq!(
        events,
        [
            "order.created",
            "order.updated",
            "order.updated",
            "order.updated",
            "order.completed"
        ]
    );
    let board = c.app.owner.get("/kitchen/tickets").expect(200);
    assert_eq!(board["data"].as_array().unwrap().len(), 1);
    // The receipt can be printed again.
    let id = order["id"].as_str().unwrap();
    let again = c
        .app
        .owner
        .get(&format!("/orders/{id}/receipt"))
        .expect(200);
    assert_eq!(&again, receipt);
}

#[test]
fn an_open_order_is_settled_with_a_tip() {
    let c = counter();
    let order = c.open_order();
    let id = order["id"].as_str().unwrap();
    let cashier = c.app.user(Role::Cashier);
    let done = c
        .checkout(
            &cashier,
            "till-2",
            json!({"order_id": id, "tenders": [{"method": "card", "amount": 33, "tip": 4.5}]}),
        )
        .expect(200);
    assert_eq!(done["order"]["status"], "completed");
    assert_eq!(done["order"]["tip_amount"], 4.5);
    assert_eq!(done["receipt"]["tip_amount"], 4.5);
    assert_eq!(done["change_due"], 0.0);
}

#[test]
fn a_checkout_that_cannot_pay_in_full_changes_nothing() {
    let c = counter();
    let order = c.open_order();
    let id = order["id"].as_str().unwrap();
    let events_before = c.app.outbox(&c.app.tenant_id).len();
    // The card would charge 30.00 where 23.00 is left after the cash.
    let refused = c
        .checkout(
            &c.app.owner,
            "k1",
            json!({"order_id": id, "tenders": [{"method": "cash", "amount": 10}, {"method": "card", "amount": 30}]}),
        )
        .expect_problem(409, "overpayment");
    assert_eq!(refused["tender"], 1);
    assert_eq!(refused["balance_due"], 23.0);
    let short = c
        .checkout(
            &c.app.owner,
            "k2",
            json!({"order_id": id, "tenders": [{"method": "card", "amount": 10}]}),
        )
        .expect_problem(409, "balance_due");
    assert_eq!(short["balance_due"], 23.0);
    let after = c
        .checkout(
            &c.app.owner,
            "k3",
            json!({"order_id": id, "tenders": [{"method": "card", "amount": 33}, {"method": "cash", "amount": 5}]}),
        )
        .expect_problem(409, "nothing_due");
    assert_eq!(after["tender"], 1);
    let unchanged = c.app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(unchanged["status"], "pending");
    assert_eq!(unchanged["paid_amount"], 0.0);
    assert_eq!(unchanged["version"], order["version"]);
    let payments = c
        .app
        .owner
        .get(&format!("/orders/{id}/payments"))
        .expect(200);
    assert!(payments["data"].as_array().unwrap().is_empty());
    assert_eq!(c.app.outbox(&c.app.tenant_id).len(), events_before);
    assert!(
        c.app.owner.get("/kitchen/tickets").expect(200)["data"]
            .as_array()
            .unwrap()
            .is_empty(),
        "nothing reached the kitchen"
    );
    // A new order that cannot be paid is not placed either.
    c.checkout(
        &c.app.owner,
        "k4",
        json!({"order": {"order_type": "takeaway", "items": c.lines()},
            "tenders": [{"method": "card", "amount": 40}]}),
    )
    .expect_problem(409, "overpayment");
    assert_eq!(c.order_count(), 1);
}

#[test]
fn a_checkout_needs_its_key_and_a_repeat_takes_nothing_twice() {
    let c = counter();
    let body = json!({"order": {"order_type": "takeaway", "items": c.lines()},
        "tenders": [{"method": "cash", "amount": 50}]});
    c.app
        .owner
        .post("/pos/checkout", body.clone())
        .expect_problem(400, "idempotency_key_required");
    assert_eq!(c.order_count(), 0);
    let first = c.checkout(&c.app.owner, "same", body.clone()).expect(200);
    let again = c.checkout(&c.app.owner, "same", body).expect(200);
    assert_eq!(first["order"]["id"], again["order"]["id"]);
    assert_eq!(c.order_count(), 1);
}

#[test]
fn bad_checkouts_are_refused() {
    let c = counter();
    let open = c.open_order();
    let (_, stranger) = c.app.second_tenant("elsewhere");
    let foreign_item = c.app.menu_item_for(&stranger, 1.0, 0.0);
    let foreign = stranger
        .post(
            "/orders",
            json!({"order_type": "takeaway", "items": [{"menu_item_id": foreign_item, "quantity": 1}]}),
        )
        .expect(201);
    let tender = json!([{"method": "card", "amount": 33}]);
    let cases = [
        (
            json!({"order_id": open["id"], "order": {"order_type": "takeaway", "items": c.lines()}, "tenders": tender}),
            "order_id",
        ),
        (json!({"tenders": tender}), "order_id"),
        (json!({"order_id": open["id"], "tenders": []}), "tenders"),
        (
            json!({"order_id": open["id"], "tenders": vec![json!({"method": "card", "amount": 1}); 11]}),
            "tenders",
        ),
        (
            json!({"order_id": uuid::Uuid::now_v7(), "tenders": tender}),
            "order_id",
        ),
        (
            json!({"order_id": foreign["id"], "tenders": tender}),
            "order_id",
        ),
        (json!({"order_id": "nope", "tenders": tender}), "order_id"),
        (
            json!({"order_id": open["id"], "tenders": [{"method": "card", "amount": 0}]}),
            "tenders[0].amount",
        ),
        (
            json!({"order_id": open["id"], "tenders": [{"method": "card", "amount": 1.005}]}),
            "tenders[0].amount",
        ),
        (
            json!({"order_id": open["id"], "tenders": [{"method": "cheque", "amount": 33}]}),
            "tenders",
        ),
        (
            json!({"order_id": open["id"], "tenders": "all of it"}),
            "tenders",
        ),
        (
            json!({"order_id": open["id"], "tenders": tender, "discount": 5}),
            "discount",
        ),
        (
            json!({"order": {"order_type": "takeaway", "items": []}, "tenders": tender}),
            "items",
        ),
    ];
    for (i, (body, field)) in cases.into_iter().enumerate() {
        let refused = c
            .checkout(&c.app.owner, &format!("bad-{i}"), body.clone())
            .expect_problem(422, "validation_failed");
        assert!(
            refused["detail"].as_str().unwrap().contains(field),
            "{body} should name {field}: {refused}"
        );
    }
    c.app
        .owner
        .send(
            "POST",
            "/pos/checkout",
            json!(null),
            &[("Idempotency-Key", "null")],
        )
        .expect_problem(422, "validation_failed");
    c.app
        .owner
        .request(
            "POST",
            "/pos/checkout",
            &[("Idempotency-Key", "broken")],
            Some(("application/json", b"{\"tenders\": [")),
        )
        .expect_problem(400, "malformed_json");
    let id = open["id"].as_str().unwrap();
    let after = c.app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(after["status"], "pending");
    assert_eq!(after["paid_amount"], 0.0);
    assert_eq!(c.order_count(), 1);

    // A completed order is checked out once only.
    c.checkout(
        &c.app.owner,
        "done",
        json!({"order_id": id, "tenders": tender}),
    )
    .expect(200);
    let closed = c
        .checkout(
            &c.app.owner,
            "done-again",
            json!({"order_id": id, "tenders": tender}),
        )
        .expect_problem(409, "order_closed");
    assert_eq!(closed["current_status"], "completed");
    for role in [Role::Host, Role::Kitchen] {
        c.checkout(
            &c.app.user(role),
            "role",
            json!({"order_id": id, "tenders": tender}),
        )
        .expect_problem(403, "permission_denied");
    }
}

#[test]
fn the_receipt_of_a_refunded_order_shows_the_refund() {
    let c = counter();
    let done = c
        .checkout(
            &c.app.owner,
            "r",
            json!({"order": {"order_type": "takeaway", "items": c.lines()},
                "tenders": [{"method": "card", "amount": 33}]}),
        )
        .expect(200);
    let id = done["order"]["id"].as_str().unwrap();
    let beer = done["order"]["items"][1]["id"].clone();
    c.app
        .owner
        .post(
            &format!("/orders/{id}/refunds"),
            json!({"lines": [{"line_id": beer, "quantity": 1}], "reason": "flat", "method": "card"}),
        )
        .expect(201);
    let receipt = c
        .app
        .owner
        .get(&format!("/orders/{id}/receipt"))
        .expect(200);
    assert_eq!(receipt["refunded_amount"], 6.0);
    assert_eq!(receipt["tenders"][1]["amount"], -6.0);
    c.app
        .owner
        .get(&format!("/orders/{}/receipt", uuid::Uuid::now_v7()))
        .expect_problem(404, "not_found");
    let (_, stranger) = c.app.second_tenant("elsewhere");
    stranger
        .get(&format!("/orders/{id}/receipt"))
        .expect_problem(404, "not_found");
}
