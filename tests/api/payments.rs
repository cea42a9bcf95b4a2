use brigade::auth::Role;
use serde_json::json;

use crate::helpers::TestApp;

#[test]
fn cash_overpayment_returns_change_and_the_order_can_complete() {
    let app = TestApp::spawn();
    let item = app.menu_item(8.4, 0.0);
    let id = app.order(&item, 1)["id"].as_str().unwrap().to_string();
    let receipt = app
        .owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "cash", "amount": 20, "tip": 1.6}),
        )
        .expect(201);
    assert_eq!(receipt["change_due"], 11.6);
    assert_eq!(receipt["payment"]["amount"], 8.4);
    assert_eq!(receipt["payment"]["tendered"], 20.0);
    assert_eq!(receipt["payment"]["tip"], 1.6);
    assert_eq!(receipt["order"]["paid_amount"], 8.4);
    assert_eq!(receipt["order"]["tip_amount"], 1.6);
    assert_eq!(receipt["order"]["balance_due"], 0.0);
    let completed = app
        .owner
        .post(
            &format!("/orders/{id}/status"),
            json!({"status": "completed"}),
        )
        .expect(200);
    assert_eq!(completed["status"], "completed");
    let payments = app.owner.get(&format!("/orders/{id}/payments")).expect(200);
    assert_eq!(payments["data"].as_array().unwrap().len(), 1);
    assert_eq!(payments["data"][0]["method"], "cash");
    let events: Vec<String> = app
        .outbox(&app.tenant_id)
        .iter()
        .map(|e| e["event"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        events,
        vec!["order.created", "order.updated", "order.completed"]
    );
}

#[test]
fn split_payments_add_up_and_completion_waits_for_the_last_cent() {
    let app = TestApp::spawn();
    let item = app.menu_item(10.0, 0.0);
    let id = app.order(&item, 1)["id"].as_str().unwrap().to_string();
    app.owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "card", "amount": 3.33, "reference": "auth-1"}),
        )
        .expect(201);
    let body = app
        .owner
        .post(
            &format!("/orders/{id}/status"),
            json!({"status": "completed"}),
        )
        .expect_problem(409, "balance_due");
    assert_eq!(body["balance_due"], 6.67);
    assert_eq!(body["current_status"], "pending");
    app.owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "other", "amount": 6.66}),
        )
        .expect(201);
    app.owner
        .post(
            &format!("/orders/{id}/status"),
            json!({"status": "completed"}),
        )
        .expect_problem(409, "balance_due");
    let last = app
        .owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "card", "amount": 0.01}),
        )
        .expect(201);
    assert_eq!(last["order"]["balance_due"], 0.0);
    app.owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "cash", "amount": 1}),
        )
        .expect_problem(409, "nothing_due");
    app.owner
        .post(
            &format!("/orders/{id}/status"),
            json!({"status": "completed"}),
        )
        .expect(200);
    app.owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "cash", "amount": 1}),
        )
        .expect_problem(409, "order_closed");
}

#[test]
fn card_overpayment_is_refused_and_changes_nothing() {
    let app = TestApp::spawn();
    let item = app.menu_item(5.0, 0.0);
    let id = app.order(&item, 1)["id"].as_str().unwrap().to_string();
    let body = app
        .owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "card", "amount": 5.01}),
        )
        .expect_problem(409, "overpayment");
    assert_eq!(body["balance_due"], 5.0);
    let order = app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(order["paid_amount"], 0.0);
    assert_eq!(
        app.owner.get(&format!("/orders/{id}/payments")).expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert_eq!(app.outbox(&app.tenant_id).len(), 1);
}

#[test]
fn removing_items_below_what_was_paid_is_refused() {
    let app = TestApp::spawn();
    let item = app.menu_item(5.0, 0.0);
    let order = app.order(&item, 2);
    let id = order["id"].as_str().unwrap();
    let line = order["items"][0]["id"].as_str().unwrap();
    app.owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "card", "amount": 8}),
        )
        .expect(201);
    app.owner
        .patch(
            &format!("/orders/{id}/items/{line}"),
            json!({"quantity": 1}),
        )
        .expect_problem(409, "total_below_paid");
    assert_eq!(
        app.owner.get(&format!("/orders/{id}")).expect(200)["total_amount"],
        10.0
    );
}

#[test]
fn bad_payment_amounts_are_field_errors() {
    let app = TestApp::spawn();
    let item = app.menu_item(5.0, 0.0);
    let id = app.order(&item, 1)["id"].as_str().unwrap().to_string();
    let path = format!("/orders/{id}/payments");
    for (body, field) in [
        (json!({"method": "cash", "amount": -1}), "amount"),
        (json!({"method": "cash", "amount": 0}), "amount"),
        (json!({"method": "cash", "amount": 1.005}), "amount"),
        (json!({"method": "cash", "amount": 1e15}), "amount"),
        (json!({"method": "cash", "amount": "5"}), "amount"),
        (json!({"method": "cash", "amount": 1, "tip": -2}), "tip"),
        (json!({"method": "bitcoin", "amount": 1}), "method"),
        (json!({"amount": 1}), "body"),
    ] {
        let problem = app
            .owner
            .post(&path, body.clone())
            .expect_problem(422, "validation_failed");
        let named = problem["errors"][0]["field"].as_str().unwrap();
        assert!(
            named == field
                || (field == "body" && problem["detail"].as_str().unwrap().contains("method")),
            "{body}: {problem}"
        );
    }
    assert_eq!(
        app.owner.get(&format!("/orders/{id}")).expect(200)["paid_amount"],
        0.0
    );
}

#[test]
fn idempotent_payment_is_taken_once() {
    let app = TestApp::spawn();
    let item = app.menu_item(5.0, 0.0);
    let id = app.order(&item, 1)["id"].as_str().unwrap().to_string();
    let path = format!("/orders/{id}/payments");
    let key = [("Idempotency-Key", "terminal-3-txn-889")];
    let first = app
        .owner
        .send("POST", &path, json!({"method": "card", "amount": 2}), &key)
        .expect(201);
    let repeat = app
        .owner
        .send("POST", &path, json!({"method": "card", "amount": 2}), &key);
    assert_eq!(repeat.header("idempotent-replayed"), Some("true"));
    assert_eq!(repeat.expect(201)["payment"]["id"], first["payment"]["id"]);
    assert_eq!(
        app.owner.get(&format!("/orders/{id}")).expect(200)["paid_amount"],
        2.0
    );
    // The same key on another order's payment is a different request.
    let other = app.order(&item, 1)["id"].as_str().unwrap().to_string();
    app.owner
        .send(
            "POST",
            &format!("/orders/{other}/payments"),
            json!({"method": "card", "amount": 2}),
            &key,
        )
        .expect_problem(422, "idempotency_key_reused");
}

#[test]
fn host_and_kitchen_cannot_take_payments() {
    let app = TestApp::spawn();
    let item = app.menu_item(5.0, 0.0);
    let id = app.order(&item, 1)["id"].as_str().unwrap().to_string();
    for role in [Role::Host, Role::Kitchen] {
        app.user(role)
            .post(
                &format!("/orders/{id}/payments"),
                json!({"method": "cash", "amount": 5}),
            )
            .expect_problem(403, "permission_denied");
    }
    app.user(Role::Cashier)
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "cash", "amount": 5}),
        )
        .expect(201);
}
