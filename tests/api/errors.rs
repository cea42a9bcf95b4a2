//! Every class of bad input gets a clear problem+json answer and changes nothing.

use brigade::auth::Role;
use serde_json::{json, Value};

use crate::helpers::TestApp;

#[test]
fn malformed_truncated_and_wrong_typed_bodies() {
    let app = TestApp::spawn();
    let item = app.menu_item(2.0, 0.0);
    for raw in [
        &b"{"[..],
        b"not json",
        b"{\"order_type\": \"takeaway\",}",
        b"",
        b"[1,2",
        b"{\"a\":1} trailing",
    ] {
        app.owner
            .post_raw("/orders", "application/json", raw)
            .expect_problem(400, "malformed_json");
    }
    let cases = [
        (json!([]), "body"),
        (json!({"items": []}), "body"),
        (json!({"order_type": "takeaway", "items": "many"}), "items"),
        (
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": "2"}]}),
            "items[0].quantity",
        ),
        (
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1.5}]}),
            "items[0].quantity",
        ),
        (
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item}]}),
            "items[0]",
        ),
        (
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1, "price": 0}]}),
            "items[0]",
        ),
        (json!({"order_type": "takeaway", "items": []}), "items"),
        (
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 0}]}),
            "items[0].quantity",
        ),
        (
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": -3}]}),
            "items[0].quantity",
        ),
        (
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1000000}]}),
            "items[0].quantity",
        ),
        (
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 99999999999999999999u128 as f64}]}),
            "items[0].quantity",
        ),
        (
            json!({"order_type": "takeaway", "items": [{"menu_item_id": "x", "quantity": 1}]}),
            "items[0].menu_item_id",
        ),
        (
            json!({"order_type": "delivery", "items": [{"menu_item_id": item, "quantity": 1}]}),
            "customer",
        ),
        (
            json!({"order_type": "takeaway", "notes": "x".repeat(1001), "items": [{"menu_item_id": item, "quantity": 1}]}),
            "notes",
        ),
    ];
    for (body, field) in cases {
        let problem = app
            .owner
            .post("/orders", body.clone())
            .expect_problem(422, "validation_failed");
        let fields: Vec<&str> = problem["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap())
            .collect();
        assert!(
            fields.iter().any(|f| f.starts_with(field)),
            "{body} → {problem}"
        );
    }
    assert_eq!(
        app.owner.get("/orders").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert!(app.outbox(&app.tenant_id).is_empty());
}

#[test]
fn wrong_media_type_and_oversized_bodies() {
    let app = TestApp::spawn_with(|c| c.json_limit = 4096);
    app.owner
        .post_raw("/orders", "text/plain", b"{}")
        .expect_problem(415, "unsupported_media_type");
    app.owner
        .post_raw("/orders", "application/x-www-form-urlencoded", b"a=1")
        .expect_problem(415, "unsupported_media_type");
    let huge = format!(
        "{{\"order_type\":\"takeaway\",\"notes\":\"{}\",\"items\":[]}}",
        "x".repeat(10_000)
    );
    app.owner
        .post_raw("/orders", "application/json", huge.as_bytes())
        .expect_problem(413, "payload_too_large");
}

#[test]
fn bad_ids_in_paths_are_404s_not_500s() {
    let app = TestApp::spawn();
    for path in [
        "/orders/123",
        "/orders/%00",
        "/orders/00000000-0000-0000-0000-000000000000",
        "/menu/items/zzz",
        "/menu/categories/'%20OR%201=1",
    ] {
        app.owner.get(path).expect_problem(404, "not_found");
    }
    app.owner
        .post("/orders/not-an-id/status", json!({"status": "confirmed"}))
        .expect_problem(404, "not_found");
    app.owner
        .delete("/orders/not-an-id/items/also-not")
        .expect_problem(404, "not_found");
}

#[test]
fn unknown_routes_and_methods_are_problem_json() {
    let app = TestApp::spawn();
    app.owner
        .get("/nothing-here")
        .expect_problem(404, "route_not_found");
    app.owner
        .put("/orders", json!({}))
        .expect_problem(404, "route_not_found");
}

/// Every `POST …/<verb>` whose body is optional takes no body at all, as
/// `curl -X POST` sends it, like one without a body.
#[test]
fn actions_with_optional_bodies_accept_an_empty_request() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[2, 4]);
    let bare = |path: &str| app.owner.request("POST", path, &[], None);

    let session = app
        .owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect(201);
    let closed = bare(&format!(
        "/sessions/{}/close",
        session["id"].as_str().unwrap()
    ))
    .expect(200);
    assert_eq!(closed["status"], "closed");

    let item = app.menu_item(5.0, 0.0);
    let order = app.order(&item, 1);
    let cancelled = bare(&format!("/orders/{}/cancel", order["id"].as_str().unwrap())).expect(200);
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(cancelled["cancel_reason"], Value::Null);

    let ticket = app
        .owner
        .post("/queue", json!({"name": "Ada", "party_size": 2}))
        .expect(201);
    let called = bare(&format!("/queue/{}/call", ticket["id"].as_str().unwrap())).expect(200);
    assert_eq!(called["status"], "called");

    // A body that says it is JSON must be JSON; one that is not JSON is refused;
    // a forced close still needs a manager.
    let session = app
        .owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[1]], "party_size": 2}),
        )
        .expect(201);
    let close = format!("/sessions/{}/close", session["id"].as_str().unwrap());
    app.owner
        .post_raw(&close, "text/plain", b"force")
        .expect_problem(415, "unsupported_media_type");
    app.user(Role::Server)
        .post(&close, json!({"force": true}))
        .expect_problem(403, "permission_denied");
    app.owner
        .post_raw(&close, "application/json", b"")
        .expect_problem(400, "malformed_json");
    let closed = app.owner.post(&close, json!({})).expect(200);
    assert_eq!(closed["status"], "closed");
}
