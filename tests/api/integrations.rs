//! Inbound integrations: connecting partners, receiving their signed messages at
//! `/webhook/...`, the inbox and its worker, and what messages do to orders.
//! Messages are signed here with each scheme's published algorithm, by the
//! tests' own HMAC code, not with the server's.

use std::time::{Duration, Instant};

use base64::Engine;
use brigade::auth::Role;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use crate::helpers::{agent, read, Client, Res, TestApp};
use crate::process::{brigade, serve_no_demo, stdout};

/// A Standard Webhooks secret: `whsec_` and base64 of the key.
pub const GENERIC_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap();
    mac.update(message);
    mac.finalize().into_bytes().to_vec()
}

/// Standard Webhooks headers for `body`, sent `age_secs` ago.
pub fn generic_headers(secret: &str, id: &str, body: &str, age_secs: i64) -> Vec<(String, String)> {
    let timestamp = chrono::Utc::now().timestamp() - age_secs;
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.trim_start_matches("whsec_"))
        .unwrap();
    let signed = hmac_sha256(&key, format!("{id}.{timestamp}.{body}").as_bytes());
    vec![
        ("webhook-id".into(), id.into()),
        ("webhook-timestamp".into(), timestamp.to_string()),
        (
            "webhook-signature".into(),
            format!(
                "v1,{}",
                base64::engine::general_purpose::STANDARD.encode(signed)
            ),
        ),
    ]
}

/// Posts a partner's message to `/webhook/{kind}/{slug}/{name}`.
pub fn deliver(base: &str, path: &str, headers: &[(String, String)], body: &[u8]) -> Res {
    try_deliver(base, path, headers, body).expect("the server answers")
}

/// As [`deliver`]; `None` when no server answered (it was killed).
pub fn try_deliver(
    base: &str,
    path: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Option<Res> {
    let mut request = ureq::http::Request::builder()
        .method("POST")
        .uri(format!("{base}/webhook/{path}"))
        .header("Content-Type", "application/json");
    for (name, value) in headers {
        request = request.header(name.as_str(), value.as_str());
    }
    agent()
        .run(request.body(body.to_vec()).unwrap())
        .ok()
        .map(read)
}

/// Sends a generic (Standard Webhooks) message with a fresh id.
pub fn send_generic(base: &str, path: &str, body: &Value) -> Res {
    let body = body.to_string();
    let id = format!("msg_{}", uuid::Uuid::now_v7().simple());
    deliver(
        base,
        path,
        &generic_headers(GENERIC_SECRET, &id, &body, 0),
        body.as_bytes(),
    )
}

/// Sends a generic message and returns it as stored once the worker is done with it.
fn send_and_settle(app: &TestApp, path: &str, body: &Value) -> Value {
    let sent = send_generic(&app.base, path, body);
    assert_eq!(sent.status, 200, "{:?}", sent.body);
    settled(&app.owner, sent.body["id"].as_str().unwrap())
}

/// Waits until the message `id` is no longer `received` (at most 20 s).
#[track_caller]
pub fn settled(owner: &Client, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let message = owner
            .get(&format!("/integrations/messages/{id}"))
            .expect(200);
        if message["status"] != "received" {
            return message;
        }
        assert!(
            Instant::now() < deadline,
            "message {id} was never processed: {message}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn connect_generic(owner: &Client, kind: &str) -> Value {
    owner
        .put(
            &format!("/integrations/{kind}/generic"),
            json!({"secret": GENERIC_SECRET}),
        )
        .expect(201)
}

fn payment(order_id: &Value, amount: i64, reference: &str) -> Value {
    json!({"type": "payment.succeeded", "order_id": order_id, "amount": amount,
           "currency": "USD", "reference": reference})
}

#[test]
fn an_integration_is_connected_with_its_url_and_its_secret_never_shows_again() {
    let app = TestApp::spawn();
    let created = connect_generic(&app.owner, "payment");
    assert_eq!(created["kind"], "payment");
    assert_eq!(created["name"], "generic");
    assert_eq!(created["enabled"], true);
    assert_eq!(created["secret_last4"], "LaSw");
    assert!(created.get("secret").is_none());
    assert_eq!(
        created["auto_accept"],
        Value::Null,
        "payments accept no orders"
    );
    assert_eq!(connect_generic(&app.owner, "delivery")["auto_accept"], true);
    let url = created["url"].as_str().unwrap();
    assert!(
        url.ends_with("/webhook/payment/test-bistro/generic"),
        "{url}"
    );

    let listed = app.owner.get("/integrations").expect(200);
    assert_eq!(listed["integrations"].as_array().unwrap().len(), 2);
    assert!(listed["available"]
        .as_array()
        .unwrap()
        .contains(&json!({"kind": "delivery", "name": "ubereats"})));
    assert!(!listed.to_string().contains(GENERIC_SECRET));

    // The secret is sealed in the tenant's file, not written as it is.
    let sealed: Vec<u8> = app
        .tenant_file()
        .query_row("SELECT secret_sealed FROM integrations", [], |r| r.get(0))
        .unwrap();
    assert!(!sealed
        .windows(12)
        .any(|w| w == &GENERIC_SECRET.as_bytes()[..12]));

    // The last four are characters, not bytes, whatever the secret is written in.
    let accented = app
        .owner
        .put(
            "/integrations/payment/square",
            json!({"secret": " clé-secrète-ü "}),
        )
        .expect(201);
    assert_eq!(accented["secret_last4"], "te-ü");
    app.owner.delete("/integrations/payment/square").expect(204);

    let changed = app
        .owner
        .put("/integrations/payment/generic", json!({"enabled": false}))
        .expect(200);
    assert_eq!(changed["enabled"], false);
    assert_eq!(changed["secret_last4"], "LaSw");

    app.owner
        .delete("/integrations/payment/generic")
        .expect(204);
    app.owner
        .delete("/integrations/payment/generic")
        .expect_problem(404, "not_found");
}

#[test]
fn integration_settings_refuse_bad_input_and_other_roles() {
    let app = TestApp::spawn();
    let owner = &app.owner;
    owner
        .put("/integrations/payment/generic", json!({"enabled": true}))
        .expect_problem(422, "validation_failed");
    owner
        .put("/integrations/payment/square", json!({"secret": "   "}))
        .expect_problem(422, "validation_failed");
    owner
        .put(
            "/integrations/payment/square",
            json!({"secret": "x".repeat(501)}),
        )
        .expect_problem(422, "validation_failed");
    owner
        .put("/integrations/payment/ubereats", json!({"secret": "x"}))
        .expect_problem(404, "not_found");
    owner
        .put("/integrations/parcels/generic", json!({"secret": "x"}))
        .expect_problem(404, "not_found");
    owner
        .put("/integrations/payment/generic", json!({"secret": 42}))
        .expect_problem(422, "validation_failed");
    owner
        .put(
            "/integrations/payment/generic",
            json!({"secret": GENERIC_SECRET, "colour": 1}),
        )
        .expect_problem(422, "validation_failed");
    owner
        .put(
            "/integrations/payment/generic",
            json!({"secret": GENERIC_SECRET, "options": [1]}),
        )
        .expect_problem(422, "validation_failed");
    owner
        .put(
            "/integrations/payment/generic",
            json!({"secret": GENERIC_SECRET, "auto_accept": false}),
        )
        .expect_problem(422, "validation_failed");
    owner
        .post_raw("/integrations/messages/x/retry", "application/json", b"")
        .expect_problem(404, "not_found");
    let malformed = owner.request(
        "PUT",
        "/integrations/payment/generic",
        &[],
        Some(("application/json", b"{\"secret\":")),
    );
    malformed.expect_problem(400, "malformed_json");
    for role in [Role::Cashier, Role::Server, Role::Kitchen, Role::Host] {
        app.user(role)
            .put(
                "/integrations/payment/generic",
                json!({"secret": GENERIC_SECRET}),
            )
            .expect_problem(403, "permission_denied");
        let user = app.user(role);
        for path in [
            "/integrations",
            "/integrations/messages",
            "/integrations/delivery/generic/menu-map",
        ] {
            user.get(path).expect_problem(403, "permission_denied");
        }
        user.put(
            "/integrations/delivery/generic/menu-map",
            json!({"entries": []}),
        )
        .expect_problem(403, "permission_denied");
        user.delete("/integrations/payment/generic")
            .expect_problem(403, "permission_denied");
    }
    assert!(owner.get("/integrations").expect(200)["integrations"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn a_signed_payment_is_recorded_once_and_a_repeat_is_acknowledged_as_a_duplicate() {
    let app = TestApp::spawn();
    connect_generic(&app.owner, "payment");
    let item = app.menu_item(10.0, 0.0);
    let order = app.order(&item, 2);
    let body = payment(&order["id"], 2000, "pay_123").to_string();
    let headers = generic_headers(GENERIC_SECRET, "msg_first", &body, 0);

    let answer = deliver(
        &app.base,
        "payment/test-bistro/generic",
        &headers,
        body.as_bytes(),
    );
    assert_eq!(answer.status, 200);
    assert_eq!(answer.body["received"], true);
    assert_eq!(answer.body["duplicate"], false);
    let message = settled(&app.owner, answer.body["id"].as_str().unwrap());
    assert_eq!(message["status"], "processed", "{message}");
    assert_eq!(message["order_id"], order["id"]);
    assert_eq!(message["event_id"], "msg_first");
    assert_eq!(message["body"], body);

    let again = deliver(
        &app.base,
        "payment/test-bistro/generic",
        &headers,
        body.as_bytes(),
    );
    assert_eq!(again.status, 200);
    assert_eq!(again.body["duplicate"], true);
    let duplicate = app
        .owner
        .get(&format!(
            "/integrations/messages/{}",
            again.body["id"].as_str().unwrap()
        ))
        .expect(200);
    assert_eq!(duplicate["status"], "duplicate");
    assert_eq!(duplicate["duplicate_of"], answer.body["id"]);

    // The same body under a new message id is a duplicate too.
    let resent = send_generic(
        &app.base,
        "payment/test-bistro/generic",
        &payment(&order["id"], 2000, "pay_123"),
    );
    assert_eq!(resent.body["duplicate"], true);
    // The same gateway payment in another message is processed, and not recorded twice.
    let mut retold = payment(&order["id"], 2000, "pay_123");
    retold["attempt"] = json!(2);
    assert_eq!(
        send_and_settle(&app, "payment/test-bistro/generic", &retold)["status"],
        "processed"
    );

    let order = app
        .owner
        .get(&format!("/orders/{}", order["id"].as_str().unwrap()))
        .expect(200);
    assert_eq!(order["paid_amount"], 20.0);
    assert_eq!(order["balance_due"], 0.0);
    let payments = app
        .owner
        .get(&format!(
            "/orders/{}/payments",
            order["id"].as_str().unwrap()
        ))
        .expect(200);
    let payments = payments
        .as_array()
        .or(payments["data"].as_array())
        .unwrap()
        .clone();
    assert_eq!(payments.len(), 1);
    assert_eq!(payments[0]["method"], "card");
    assert_eq!(payments[0]["reference"], "pay_123");
    let events = crate::helpers::event_names(&app.outbox(&app.tenant_id), &["order."]);
    assert_eq!(events, ["order.created", "order.updated"]);
}

#[test]
fn a_bad_signature_stale_timestamp_unknown_slug_or_disabled_integration_is_refused_and_nothing_processed(
) {
    let app = TestApp::spawn();
    connect_generic(&app.owner, "payment");
    let item = app.menu_item(10.0, 0.0);
    let order = app.order(&item, 1);
    let body = payment(&order["id"], 1000, "pay_1").to_string();
    let path = "payment/test-bistro/generic";

    // A refused message is kept to show what was sent, never its credentials.
    let mut wrong_secret =
        generic_headers("whsec_c2VjcmV0LW9mLXNvbWVvbmUtZWxzZQ==", "msg_a", &body, 0);
    wrong_secret.push(("Authorization".into(), "Basic c2VjcmV0OnNlY3JldA==".into()));
    let refused = deliver(&app.base, path, &wrong_secret, body.as_bytes());
    assert_eq!(refused.status, 401);
    assert_eq!(
        refused.header("content-type"),
        Some("application/problem+json")
    );
    assert_eq!(refused.body["code"], "signature_invalid");

    let signed = generic_headers(GENERIC_SECRET, "msg_b", &body, 0);
    let changed = body.replace("1000", "1");
    assert_eq!(
        deliver(&app.base, path, &signed, changed.as_bytes()).status,
        401
    );

    let stale = generic_headers(GENERIC_SECRET, "msg_c", &body, 600);
    assert_eq!(
        deliver(&app.base, path, &stale, body.as_bytes()).status,
        401
    );

    assert_eq!(deliver(&app.base, path, &[], body.as_bytes()).status, 401);

    let unknown = deliver(
        &app.base,
        "payment/no-such-place/generic",
        &signed,
        body.as_bytes(),
    );
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.body["code"], "not_found");
    assert_eq!(
        deliver(
            &app.base,
            "payment/test-bistro/stripe",
            &signed,
            body.as_bytes()
        )
        .status,
        404
    );
    assert_eq!(
        deliver(
            &app.base,
            "parcels/test-bistro/generic",
            &signed,
            body.as_bytes()
        )
        .status,
        404
    );

    app.owner
        .put("/integrations/payment/generic", json!({"enabled": false}))
        .expect(200);
    assert_eq!(
        deliver(&app.base, path, &signed, body.as_bytes()).status,
        404
    );

    std::thread::sleep(Duration::from_millis(300));
    let order = app
        .owner
        .get(&format!("/orders/{}", order["id"].as_str().unwrap()))
        .expect(200);
    assert_eq!(order["paid_amount"], 0.0);
    let rejected = app
        .owner
        .get("/integrations/messages?status=rejected")
        .expect(200);
    let rejected = rejected["data"].as_array().unwrap();
    assert_eq!(rejected.len(), 6, "{rejected:?}");
    assert!(rejected.iter().all(|m| m["reason"].is_string()));
    assert!(rejected
        .iter()
        .any(|m| m["headers"]["webhook-signature"].is_string()));
    assert!(rejected
        .iter()
        .all(|m| m["headers"].get("authorization").is_none()));
    let summary = app.owner.get("/notifications/summary").expect(200);
    assert_eq!(summary["inbound"]["rejected_24h"], 6);
    assert_eq!(
        app.owner
            .get("/integrations/messages?status=processed")
            .expect(200)["data"],
        json!([])
    );
    app.owner
        .get("/integrations/messages?status=lost")
        .expect_problem(422, "validation_failed");
}

#[test]
fn an_address_sending_refused_messages_is_rate_limited_and_a_body_over_the_limit_is_413() {
    let app = TestApp::spawn();
    connect_generic(&app.owner, "payment");
    let body = b"{}";
    let wrong = generic_headers("whsec_c2VjcmV0LW9mLXNvbWVvbmUtZWxzZQ==", "msg_x", "{}", 0);
    for _ in 0..20 {
        assert_eq!(
            deliver(&app.base, "payment/test-bistro/generic", &wrong, body).status,
            401
        );
    }
    let limited = deliver(&app.base, "payment/test-bistro/generic", &wrong, body);
    assert_eq!(limited.status, 429);
    assert_eq!(limited.body["code"], "rate_limited");
    assert!(limited.header("retry-after").is_some());

    let other = TestApp::spawn();
    connect_generic(&other.owner, "payment");
    let huge = vec![b' '; 300 * 1024];
    let answer = deliver(&other.base, "payment/test-bistro/generic", &[], &huge);
    assert_eq!(answer.status, 413);
    assert_eq!(answer.body["code"], "body_too_large");
}

#[test]
fn a_payment_for_an_unknown_order_or_another_currency_is_parked_and_retried_by_a_manager() {
    let app = TestApp::spawn();
    connect_generic(&app.owner, "payment");
    let path = "payment/test-bistro/generic";
    let unknown = send_generic(
        &app.base,
        path,
        &payment(&json!("0190f5b2-0000-7000-8000-000000000000"), 500, "pay_u"),
    );
    let parked = settled(&app.owner, unknown.body["id"].as_str().unwrap());
    assert_eq!(parked["status"], "parked");
    assert!(
        parked["reason"].as_str().unwrap().contains("no order"),
        "{parked}"
    );

    let item = app.menu_item(5.0, 0.0);
    let order = app.order(&item, 1);
    let mut euros = payment(&order["id"], 500, "pay_e");
    euros["currency"] = json!("EUR");
    let euros = send_generic(&app.base, path, &euros);
    let parked_euros = settled(&app.owner, euros.body["id"].as_str().unwrap());
    assert_eq!(parked_euros["status"], "parked");
    assert!(parked_euros["reason"].as_str().unwrap().contains("EUR"));
    assert_eq!(
        app.owner.get("/notifications/summary").expect(200)["inbound"]["parked"],
        2
    );

    assert_eq!(
        send_and_settle(&app, path, &json!({"type": "payment.succeeded"}))["status"],
        "failed"
    );

    // A retry runs it again: still parked while the cause stays.
    let retried = app
        .owner
        .post_raw(
            &format!(
                "/integrations/messages/{}/retry",
                parked["id"].as_str().unwrap()
            ),
            "application/json",
            b"",
        )
        .expect(200);
    assert_eq!(retried["status"], "received");
    let again = settled(&app.owner, parked["id"].as_str().unwrap());
    assert_eq!(again["status"], "parked");
    assert_eq!(again["attempts"], 2);

    let good = send_generic(&app.base, path, &payment(&order["id"], 500, "pay_g"));
    let processed = settled(&app.owner, good.body["id"].as_str().unwrap());
    app.owner
        .post_raw(
            &format!(
                "/integrations/messages/{}/retry",
                processed["id"].as_str().unwrap()
            ),
            "application/json",
            b"",
        )
        .expect_problem(409, "illegal_transition");
    app.user(Role::Cashier)
        .post_raw(
            &format!(
                "/integrations/messages/{}/retry",
                parked["id"].as_str().unwrap()
            ),
            "application/json",
            b"",
        )
        .expect_problem(403, "permission_denied");
}

#[test]
fn a_message_for_one_tenant_never_touches_another_even_with_its_secret() {
    let app = TestApp::spawn();
    connect_generic(&app.owner, "payment");
    let (_, other_owner) = app.second_tenant("other-place");
    other_owner
        .put(
            "/integrations/payment/generic",
            json!({"secret": "whsec_b3RoZXItcGxhY2Utc2VjcmV0LWtleQ=="}),
        )
        .expect(201);
    let item = app.menu_item(10.0, 0.0);
    let order = app.order(&item, 1);
    let body = payment(&order["id"], 1000, "pay_x").to_string();

    // Signed with B's secret, sent to A's URL: refused.
    let with_b_secret =
        generic_headers("whsec_b3RoZXItcGxhY2Utc2VjcmV0LWtleQ==", "msg_1", &body, 0);
    assert_eq!(
        deliver(
            &app.base,
            "payment/test-bistro/generic",
            &with_b_secret,
            body.as_bytes()
        )
        .status,
        401
    );
    // Signed with A's secret, sent to B's URL: refused too.
    let with_a_secret = generic_headers(GENERIC_SECRET, "msg_2", &body, 0);
    assert_eq!(
        deliver(
            &app.base,
            "payment/other-place/generic",
            &with_a_secret,
            body.as_bytes()
        )
        .status,
        401
    );
    // Properly sent to B, naming A's order: B has no such order, so it parks in B.
    let to_b = deliver(
        &app.base,
        "payment/other-place/generic",
        &with_b_secret,
        body.as_bytes(),
    );
    assert_eq!(to_b.status, 200);
    assert_eq!(
        settled(&other_owner, to_b.body["id"].as_str().unwrap())["status"],
        "parked"
    );
    app.owner
        .get(&format!(
            "/integrations/messages/{}",
            to_b.body["id"].as_str().unwrap()
        ))
        .expect_problem(404, "not_found");
    app.owner
        .post_raw(
            &format!(
                "/integrations/messages/{}/retry",
                to_b.body["id"].as_str().unwrap()
            ),
            "application/json",
            b"",
        )
        .expect_problem(404, "not_found");

    let order = app
        .owner
        .get(&format!("/orders/{}", order["id"].as_str().unwrap()))
        .expect(200);
    assert_eq!(order["paid_amount"], 0.0);
    assert_eq!(
        app.owner.get("/integrations/messages").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_delivery_order_arrives_mapped_to_the_menu_fires_to_the_kitchen_and_follows_the_platform() {
    let app = TestApp::spawn();
    connect_generic(&app.owner, "delivery");
    let burger = app.named_item("Burger", 9.0, 10.0);
    let fries = app.named_item("Fries", 3.0, 10.0);
    app.owner
        .put(
            "/integrations/delivery/generic/menu-map",
            json!({"entries": [{"external_id": "sku-burger", "menu_item_id": burger}]}),
        )
        .expect(200);
    let path = "delivery/test-bistro/generic";
    let placed = json!({"type": "order.created", "order": {
        "id": "ext-42", "display_id": "B7C2", "currency": "USD",
        "customer": {"name": "Ada", "phone": "+1 555 0100"}, "notes": "no onions",
        "items": [
            {"sku": "sku-burger", "name": "Classic burger", "quantity": 2, "unit_price": 1050},
            {"name": "fries", "quantity": 1, "unit_price": 350},
            {"name": "Mystery shake", "quantity": 1, "unit_price": 499}
        ],
        "fees": [{"name": "Delivery fee", "amount": 299}]}});
    let answer = send_generic(&app.base, path, &placed);
    let message = settled(&app.owner, answer.body["id"].as_str().unwrap());
    assert_eq!(message["status"], "processed", "{message}");
    let order_id = message["order_id"].as_str().unwrap().to_string();
    let order = app.owner.get(&format!("/orders/{order_id}")).expect(200);
    assert_eq!(order["order_type"], "delivery");
    assert_eq!(order["status"], "confirmed", "auto-accepted");
    assert_eq!(
        order["external"],
        json!({"platform": "generic", "id": "ext-42", "display_id": "B7C2"})
    );
    assert_eq!(order["customer"]["name"], "Ada");
    let items = order["items"].as_array().unwrap();
    let line = |name: &str| items.iter().find(|l| l["name"] == name).unwrap().clone();
    assert_eq!(line("Classic burger")["menu_item_id"], burger.as_str());
    assert_eq!(
        line("Classic burger")["unit_price"],
        10.5,
        "the platform's price"
    );
    assert_eq!(
        line("fries")["menu_item_id"],
        fries.as_str(),
        "matched by name"
    );
    assert_eq!(
        line("Mystery shake")["unit_price"],
        4.99,
        "kept as an open item"
    );
    assert_eq!(line("Delivery fee")["unit_price"], 2.99);
    // 21.00 + 3.50 at 10 % tax, 4.99 and 2.99 untaxed.
    assert_eq!(order["subtotal"], 32.48);
    assert_eq!(order["tax_amount"], 2.45);
    assert_eq!(order["total_amount"], 34.93);

    let tickets = app.owner.get("/kitchen/tickets").expect(200);
    let ticket_lines: Vec<String> = tickets["data"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| {
            t["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["name"].as_str().unwrap().to_string())
        })
        .collect();
    assert!(
        ticket_lines.contains(&"Classic burger".to_string()),
        "{ticket_lines:?}"
    );
    assert!(ticket_lines.contains(&"Mystery shake".to_string()));
    assert!(
        !ticket_lines.contains(&"Delivery fee".to_string()),
        "fees are not cooked"
    );

    // The same order again is a duplicate; sent anew, as accepted, it makes no
    // second order. Its pick-up completes it, paid through the platform.
    assert_eq!(
        send_generic(&app.base, path, &placed).body["duplicate"],
        true
    );
    let mut again = placed.clone();
    again["order"]["status"] = json!("accepted");
    assert_eq!(
        send_and_settle(&app, path, &again)["order_id"],
        order_id.as_str()
    );
    assert_eq!(
        send_and_settle(
            &app,
            path,
            &json!({"type": "order.status", "order_id": "ext-42", "status": "picked_up"})
        )["status"],
        "processed"
    );
    let order = app.owner.get(&format!("/orders/{order_id}")).expect(200);
    assert_eq!(order["status"], "completed");
    assert_eq!(order["paid_amount"], 34.93);
    let created = crate::helpers::event_names(&app.outbox(&app.tenant_id), &["order.created"]);
    assert_eq!(created.len(), 1);
    let completed = crate::helpers::event_names(&app.outbox(&app.tenant_id), &["order.completed"]);
    assert_eq!(completed.len(), 1);

    // A cancellation of an order already completed cannot apply: parked.
    assert_eq!(
        send_and_settle(
            &app,
            path,
            &json!({"type": "order.status", "order_id": "ext-42", "status": "cancelled"})
        )["status"],
        "parked"
    );
    assert_eq!(
        send_and_settle(
            &app,
            path,
            &json!({"type": "order.status", "order_id": "ext-0", "status": "accepted"})
        )["status"],
        "parked"
    );
}

#[test]
fn a_platform_cancellation_cancels_the_order_and_its_tickets() {
    let app = TestApp::spawn();
    connect_generic(&app.owner, "delivery");
    app.owner
        .put(
            "/integrations/delivery/generic",
            json!({"auto_accept": false}),
        )
        .expect(200);
    let path = "delivery/test-bistro/generic";
    let placed = send_generic(
        &app.base,
        path,
        &json!({"type": "order.created", "order": {
        "id": "ext-7", "currency": "USD", "items": [{"name": "Soup", "quantity": 1, "unit_price": 600}]}}),
    );
    let order_id = settled(&app.owner, placed.body["id"].as_str().unwrap())["order_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        app.owner.get(&format!("/orders/{order_id}")).expect(200)["status"],
        "pending"
    );
    let accepted = send_generic(
        &app.base,
        path,
        &json!({"type": "order.status", "order_id": "ext-7", "status": "accepted"}),
    );
    settled(&app.owner, accepted.body["id"].as_str().unwrap());
    assert_eq!(
        app.owner.get(&format!("/orders/{order_id}")).expect(200)["status"],
        "confirmed"
    );
    assert_eq!(
        send_and_settle(
            &app,
            path,
            &json!({"type": "order.status", "order_id": "ext-7", "status": "cancelled"})
        )["status"],
        "processed"
    );
    let order = app.owner.get(&format!("/orders/{order_id}")).expect(200);
    assert_eq!(order["status"], "cancelled");
    assert_eq!(order["cancel_reason"], "cancelled on generic");
}

#[test]
fn the_menu_map_refuses_unknown_items_and_duplicates() {
    let app = TestApp::spawn();
    let item = app.menu_item(1.0, 0.0);
    let owner = &app.owner;
    owner
        .put("/integrations/delivery/generic/menu-map", json!({"entries": [{"external_id": "a", "menu_item_id": "0190f5b2-0000-7000-8000-000000000000"}]}))
        .expect_problem(422, "validation_failed");
    owner
        .put("/integrations/delivery/generic/menu-map", json!({"entries": [
            {"external_id": "a", "menu_item_id": item}, {"external_id": "a", "menu_item_id": item}]}))
        .expect_problem(422, "validation_failed");
    owner
        .put(
            "/integrations/delivery/generic/menu-map",
            json!({"entries": [{"external_id": "a"}]}),
        )
        .expect_problem(422, "validation_failed");
    owner
        .put(
            "/integrations/delivery/stripe/menu-map",
            json!({"entries": []}),
        )
        .expect_problem(404, "not_found");
    let (_, other) = app.second_tenant("other-place");
    other
        .put(
            "/integrations/delivery/generic/menu-map",
            json!({"entries": [{"external_id": "a", "menu_item_id": item}]}),
        )
        .expect_problem(422, "validation_failed");
    assert_eq!(
        owner
            .get("/integrations/delivery/generic/menu-map")
            .expect(200)["entries"],
        json!([])
    );
    owner
        .put(
            "/integrations/delivery/generic/menu-map",
            json!({"entries": [{"external_id": "a", "menu_item_id": item}]}),
        )
        .expect(200);
    assert_eq!(
        owner
            .get("/integrations/delivery/generic/menu-map")
            .expect(200)["entries"],
        json!([{"external_id": "a", "menu_item_id": item}])
    );
}

/// 200 payment messages, the server SIGKILLed and restarted halfway: every
/// message acknowledged is carried out exactly once. A message whose answer
/// was lost is sent again with its id, as a platform retries.
#[test]
fn messages_acknowledged_across_a_kill_and_restart_are_processed_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let tenant = stdout(&brigade(
        dir.path(),
        &["tenant", "create", "--name", "Inbox Inn", "--slug", "inbox"],
    ));
    let key = stdout(&brigade(
        dir.path(),
        &[
            "api-key", "create", "--tenant", "inbox", "--name", "pos", "--role", "owner",
        ],
    ));
    let mut server = serve_no_demo(dir.path());
    let client = |base: &str| Client {
        token: Some(key.clone()),
        ..Client::anonymous(base).with_tenant(&tenant)
    };
    let setup = client(&server.base);
    connect_generic(&setup, "payment");
    let category = setup
        .post("/menu/categories", json!({"name": "Food"}))
        .expect(201);
    let item = setup
        .post(
            "/menu/items",
            json!({"name": "Soup", "category_id": category["id"], "price": 4.5}),
        )
        .expect(201)["id"]
        .clone();
    let orders: Vec<String> = (0..200)
        .map(|_| {
            setup
                .post("/orders", json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]}))
                .expect(201)["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();

    let mut acknowledged = Vec::new();
    for (i, order_id) in orders.iter().enumerate() {
        if i == 100 {
            server.kill();
            // Sent while the box is down: not acknowledged, so the platform retries.
            let body = payment(&json!(order_id), 450, &format!("pay_{i}")).to_string();
            let headers = generic_headers(GENERIC_SECRET, &format!("msg_{i}"), &body, 0);
            assert!(try_deliver(
                &server.base,
                "payment/inbox/generic",
                &headers,
                body.as_bytes()
            )
            .is_none());
            server = serve_no_demo(dir.path());
        }
        let body = payment(&json!(order_id), 450, &format!("pay_{i}")).to_string();
        let headers = generic_headers(GENERIC_SECRET, &format!("msg_{i}"), &body, 0);
        let answer = deliver(
            &server.base,
            "payment/inbox/generic",
            &headers,
            body.as_bytes(),
        );
        assert_eq!(answer.status, 200, "{:?}", answer.body);
        acknowledged.push(answer.body["id"].as_str().unwrap().to_string());
        // Some answers are "lost" and the message is sent again.
        if i % 25 == 0 {
            let again = deliver(
                &server.base,
                "payment/inbox/generic",
                &headers,
                body.as_bytes(),
            );
            assert_eq!(again.body["duplicate"], true);
        }
    }
    let check = client(&server.base);
    for id in &acknowledged {
        assert_eq!(settled(&check, id)["status"], "processed");
    }
    for order_id in &orders {
        let order = check.get(&format!("/orders/{order_id}")).expect(200);
        assert_eq!(order["paid_amount"], 4.5, "{order_id}");
        let payments = check
            .get(&format!("/orders/{order_id}/payments"))
            .expect(200);
        let payments = payments
            .as_array()
            .or(payments["data"].as_array())
            .unwrap()
            .clone();
        assert_eq!(payments.len(), 1, "{order_id}");
    }
}

/// `Stripe-Signature` for `body` signed at `timestamp`, by Stripe's documented scheme.
fn stripe_header(secret: &str, timestamp: i64, body: &str) -> Vec<(String, String)> {
    let signature = hex::encode(hmac_sha256(
        secret.as_bytes(),
        format!("{timestamp}.{body}").as_bytes(),
    ));
    vec![(
        "Stripe-Signature".into(),
        format!("t={timestamp},v1={signature}"),
    )]
}

#[test]
fn a_stripe_payment_intent_pays_the_order_and_a_refunded_charge_refunds_it() {
    let app = TestApp::spawn();
    let secret = "whsec_brigade_stripe_test_secret";
    app.owner
        .put("/integrations/payment/stripe", json!({"secret": secret}))
        .expect(201);
    app.owner
        .put(
            "/integrations/payment/stripe",
            json!({"secret": "sk_live_wrong_kind"}),
        )
        .expect_problem(422, "validation_failed");
    let item = app.menu_item(12.0, 0.0);
    let order = app.order(&item, 2);
    let order_id = order["id"].as_str().unwrap().to_string();
    let now = chrono::Utc::now().timestamp();
    let succeeded =
        json!({"id": "evt_pi_1", "type": "payment_intent.succeeded", "data": {"object": {
        "id": "pi_1", "amount": 2400, "amount_received": 2400, "currency": "usd",
        "metadata": {"order_id": order_id}}}})
        .to_string();
    let answer = deliver(
        &app.base,
        "payment/test-bistro/stripe",
        &stripe_header(secret, now, &succeeded),
        succeeded.as_bytes(),
    );
    assert_eq!(answer.status, 200);
    assert_eq!(
        settled(&app.owner, answer.body["id"].as_str().unwrap())["status"],
        "processed"
    );
    let paid = app.owner.get(&format!("/orders/{order_id}")).expect(200);
    assert_eq!(paid["paid_amount"], 24.0);
    assert_eq!(paid["balance_due"], 0.0);

    let stale = deliver(
        &app.base,
        "payment/test-bistro/stripe",
        &stripe_header(secret, now - 400, &succeeded),
        succeeded.as_bytes(),
    );
    assert_eq!(stale.status, 401);

    app.owner
        .post(
            &format!("/orders/{order_id}/status"),
            json!({"status": "completed"}),
        )
        .expect(200);
    let refunded = json!({"id": "evt_ch_1", "type": "charge.refunded", "data": {"object": {
        "id": "ch_1", "currency": "usd", "amount_refunded": 1200, "metadata": {"order_id": order_id},
        "refunds": {"data": [{"id": "re_1", "amount": 1200}]}}}})
    .to_string();
    let answer = deliver(
        &app.base,
        "payment/test-bistro/stripe",
        &stripe_header(secret, now, &refunded),
        refunded.as_bytes(),
    );
    assert_eq!(
        settled(&app.owner, answer.body["id"].as_str().unwrap())["status"],
        "processed"
    );
    let order = app.owner.get(&format!("/orders/{order_id}")).expect(200);
    assert_eq!(order["refunded_amount"], 12.0);
    let events = crate::helpers::event_names(&app.outbox(&app.tenant_id), &["order."]);
    assert_eq!(events.last().map(String::as_str), Some("order.updated"));
}

/// A stand-in for Uber's OAuth token endpoint and Order API on 127.0.0.1: it
/// hands out one token and serves `order` to requests bearing it.
fn uber_stand_in(order: Value) -> String {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().map_while(Result::ok) {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let (mut length, mut authorized) = (0, false);
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let lower = line.to_ascii_lowercase();
                if let Some(value) = lower.strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap();
                }
                authorized |= lower.trim() == "authorization: bearer stand-in-token";
                if line.trim().is_empty() {
                    break;
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let form = String::from_utf8_lossy(&body).to_string();
            let (status, answer) = if request_line.starts_with("POST /oauth/v2/token") {
                if form.contains("client_secret=uber-client-secret")
                    && form.contains("grant_type=client_credentials")
                {
                    (
                        200,
                        json!({"access_token": "stand-in-token", "token_type": "Bearer", "expires_in": 2592000}),
                    )
                } else {
                    (401, json!({"error": "invalid_client"}))
                }
            } else if request_line.starts_with("GET /v2/eats/order/153dd7f1") && authorized {
                (200, order.clone())
            } else {
                (404, json!({"code": "not_found"}))
            };
            let text = answer.to_string();
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    base
}

#[test]
fn an_uber_eats_notification_fetches_the_order_which_fires_to_the_kitchen_and_is_announced() {
    let app = TestApp::spawn();
    let receiver = crate::receiver::Receiver::start();
    app.owner
        .put(
            "/settings/webhook",
            json!({"url": receiver.url, "enabled": true}),
        )
        .expect(200);
    let burger = app.named_item("Burger", 10.0, 10.0);
    let stand_in = uber_stand_in(json!({
        "id": "153dd7f1", "display_id": "DD7F1", "current_state": "CREATED",
        "eater": {"first_name": "Ada", "phone": "+1 555 0101"},
        "cart": {"items": [
            {"id": "item-1", "external_data": "SKU-B", "title": "Burger", "quantity": 2,
             "price": {"unit_price": {"amount": 1099, "currency_code": "USD"}}},
            {"id": "item-2", "title": "Lemonade", "quantity": 1,
             "price": {"unit_price": {"amount": 350, "currency_code": "USD"}}}]}}));
    app.owner
        .put(
            "/integrations/delivery/ubereats",
            json!({"secret": "uber-client-secret", "options": {
                "client_id": "brigade-app", "api_base_url": stand_in,
                "token_url": format!("{stand_in}/oauth/v2/token")}}),
        )
        .expect(201);
    app.owner
        .put(
            "/integrations/delivery/ubereats/menu-map",
            json!({"entries": [{"external_id": "SKU-B", "menu_item_id": burger}]}),
        )
        .expect(200);
    let body = json!({"event_id": "evt-uber-1", "event_type": "orders.notification", "event_time": 1700000000,
        "meta": {"resource_id": "153dd7f1", "status": "pos", "user_id": "u-1"},
        "resource_href": "https://api.uber.com/v2/eats/order/153dd7f1"})
    .to_string();
    let signature = hex::encode(hmac_sha256(b"uber-client-secret", body.as_bytes()));
    let headers = vec![("X-Uber-Signature".to_string(), signature.clone())];
    let answer = deliver(
        &app.base,
        "delivery/test-bistro/ubereats",
        &headers,
        body.as_bytes(),
    );
    assert_eq!(answer.status, 200);
    let message = settled(&app.owner, answer.body["id"].as_str().unwrap());
    assert_eq!(message["status"], "processed", "{message}");
    let order_id = message["order_id"].as_str().unwrap();
    let order = app.owner.get(&format!("/orders/{order_id}")).expect(200);
    assert_eq!(order["external"]["display_id"], "DD7F1");
    assert_eq!(order["status"], "confirmed", "accepted at once and fired");
    assert_eq!(order["items"][0]["menu_item_id"], burger.as_str());
    assert_eq!(order["subtotal"], 25.48);
    let tickets = app.owner.get("/kitchen/tickets").expect(200);
    assert_eq!(tickets["data"][0]["order_id"], order_id);

    let created = receiver.wait_for(1);
    assert!(created.iter().any(
        |r| r.json()["event"] == "order.created" && r.json()["data"]["order"]["id"] == order_id
    ));

    let wrong = vec![("X-Uber-Signature".to_string(), signature.replace('a', "b"))];
    assert_eq!(
        deliver(
            &app.base,
            "delivery/test-bistro/ubereats",
            &wrong,
            body.as_bytes()
        )
        .status,
        401
    );
}

#[test]
fn adyen_is_answered_accepted_and_square_verifies_against_the_url_it_was_given() {
    let app = TestApp::spawn();
    let key = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056";
    app.owner
        .put("/integrations/payment/adyen", json!({"secret": key}))
        .expect(201);
    let item = app.menu_item(31.5, 0.0);
    let order = app.order(&item, 1);
    let mut fields = json!({"pspReference": "QFQTPCQ8HXSKGK82", "merchantAccountCode": "BrigadeBistroPOS",
        "merchantReference": order["id"], "amount": {"value": 3150, "currency": "USD"},
        "eventCode": "AUTHORISATION", "success": "true"});
    let signing = format!(
        "QFQTPCQ8HXSKGK82::BrigadeBistroPOS:{}:3150:USD:AUTHORISATION:true",
        order["id"].as_str().unwrap()
    );
    let signature = base64::engine::general_purpose::STANDARD
        .encode(hmac_sha256(&hex::decode(key).unwrap(), signing.as_bytes()));
    fields["additionalData"] = json!({"hmacSignature": signature});
    let body = json!({"live": "false", "notificationItems": [{"NotificationRequestItem": fields}]})
        .to_string();
    let answer = deliver(&app.base, "payment/test-bistro/adyen", &[], body.as_bytes());
    assert_eq!(answer.status, 200);
    assert_eq!(answer.body, json!("[accepted]"));
    assert!(answer
        .header("content-type")
        .unwrap()
        .starts_with("text/plain"));
    let message = app.owner.get("/integrations/messages").expect(200)["data"][0].clone();
    assert_eq!(
        settled(&app.owner, message["id"].as_str().unwrap())["status"],
        "processed"
    );
    assert_eq!(
        app.owner
            .get(&format!("/orders/{}", order["id"].as_str().unwrap()))
            .expect(200)["paid_amount"],
        31.5
    );

    let square = app
        .owner
        .put(
            "/integrations/payment/square",
            json!({"secret": "square-signature-key"}),
        )
        .expect(201);
    let url = square["url"].as_str().unwrap();
    let event = json!({"type": "payment.updated", "event_id": "sq-1", "data": {"object": {"payment": {
        "id": "P1", "status": "COMPLETED", "reference_id": order["id"], "amount_money": {"amount": 100, "currency": "USD"}}}}})
    .to_string();
    let sign = |url: &str| {
        let signature = hmac_sha256(b"square-signature-key", format!("{url}{event}").as_bytes());
        vec![(
            "x-square-hmacsha256-signature".to_string(),
            base64::engine::general_purpose::STANDARD.encode(signature),
        )]
    };
    let wrong_url = deliver(
        &app.base,
        "payment/test-bistro/square",
        &sign("https://elsewhere.example/hook"),
        event.as_bytes(),
    );
    assert_eq!(wrong_url.status, 401);
    assert_eq!(
        deliver(
            &app.base,
            "payment/test-bistro/square",
            &sign(url),
            event.as_bytes()
        )
        .status,
        200
    );
}

/// A platform whose API does not answer: the message is tried again with a
/// growing pause, and given up as failed 24 hours after it arrived. The
/// worker's step is driven here with a clock of the test's own.
#[test]
fn a_message_whose_platform_does_not_answer_is_retried_then_failed_after_24_hours() {
    let app = TestApp::spawn();
    let dead = crate::receiver::dead_url();
    let dead = dead.trim_end_matches("/hook");
    app.owner
        .put(
            "/integrations/delivery/ubereats",
            json!({"secret": "uber-client-secret", "options": {
                "client_id": "brigade-app", "api_base_url": dead, "token_url": format!("{dead}/oauth/v2/token")}}),
        )
        .expect(201);
    let body = json!({"event_id": "evt-uber-2", "event_type": "orders.notification",
        "meta": {"resource_id": "153dd7f1"}})
    .to_string();
    let headers = vec![(
        "X-Uber-Signature".to_string(),
        hex::encode(hmac_sha256(b"uber-client-secret", body.as_bytes())),
    )];
    let id = deliver(
        &app.base,
        "delivery/test-bistro/ubereats",
        &headers,
        body.as_bytes(),
    )
    .body["id"]
        .as_str()
        .unwrap()
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(20);
    let first = loop {
        let message = app
            .owner
            .get(&format!("/integrations/messages/{id}"))
            .expect(200);
        if message["attempts"] == 1 {
            break message;
        }
        assert!(Instant::now() < deadline, "never attempted: {message}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(first["status"], "received");
    assert!(
        first["reason"].as_str().unwrap().contains("token"),
        "{first}"
    );
    let received = brigade::time::parse_rfc3339(first["received_at"].as_str().unwrap()).unwrap();
    let next = brigade::time::parse_rfc3339(first["next_attempt_at"].as_str().unwrap()).unwrap();
    assert!(next > received, "tried again later, not at once");

    let tenant = app.app().db.tenant(app.tenant_id.parse().unwrap()).unwrap();
    let agent = crate::helpers::agent();
    let worker = brigade::inbound::worker::process_due;
    worker(
        app.app(),
        &tenant,
        &agent,
        next + chrono::Duration::seconds(1),
    )
    .unwrap();
    let second = app
        .owner
        .get(&format!("/integrations/messages/{id}"))
        .expect(200);
    assert_eq!(second["attempts"], 2);
    assert_eq!(second["status"], "received");
    let later = brigade::time::parse_rfc3339(second["next_attempt_at"].as_str().unwrap()).unwrap();
    assert!(
        later - next >= chrono::Duration::seconds(9),
        "the next step of the ladder is longer: {next} then {later}"
    );

    worker(
        app.app(),
        &tenant,
        &agent,
        received + chrono::Duration::hours(25),
    )
    .unwrap();
    let failed = app
        .owner
        .get(&format!("/integrations/messages/{id}"))
        .expect(200);
    assert_eq!(failed["status"], "failed");
    assert!(failed["reason"]
        .as_str()
        .unwrap()
        .starts_with("gave up after 24 hours"));
    assert_eq!(
        app.owner.get("/notifications/summary").expect(200)["inbound"]["failed"],
        1
    );
    app.owner
        .post_raw(
            &format!("/integrations/messages/{id}/retry"),
            "application/json",
            b"",
        )
        .expect(200);
}

/// Square's refunds name the payment, not the order: the refund lands on the
/// order the payment was recorded on.
#[test]
fn a_square_refund_finds_its_order_through_the_payment_it_refunds() {
    let app = TestApp::spawn();
    let url = app
        .owner
        .put(
            "/integrations/payment/square",
            json!({"secret": "square-signature-key"}),
        )
        .expect(201)["url"]
        .as_str()
        .unwrap()
        .to_string();
    let send = |event: Value| {
        let body = event.to_string();
        let signature = hmac_sha256(b"square-signature-key", format!("{url}{body}").as_bytes());
        let headers = vec![(
            "x-square-hmacsha256-signature".to_string(),
            base64::engine::general_purpose::STANDARD.encode(signature),
        )];
        let answer = deliver(
            &app.base,
            "payment/test-bistro/square",
            &headers,
            body.as_bytes(),
        );
        settled(&app.owner, answer.body["id"].as_str().unwrap())
    };
    let item = app.menu_item(8.0, 0.0);
    let order = app.order(&item, 1);
    let order_id = order["id"].as_str().unwrap();
    let paid = send(
        json!({"type": "payment.updated", "event_id": "sq-p", "data": {"object": {"payment": {
        "id": "sq-pay-1", "status": "COMPLETED", "reference_id": order_id,
        "amount_money": {"amount": 800, "currency": "USD"}}}}}),
    );
    assert_eq!(paid["status"], "processed", "{paid}");
    app.owner
        .post(
            &format!("/orders/{order_id}/status"),
            json!({"status": "completed"}),
        )
        .expect(200);
    let refunded = send(
        json!({"type": "refund.updated", "event_id": "sq-r", "data": {"object": {"refund": {
        "id": "sq-ref-1", "status": "COMPLETED", "payment_id": "sq-pay-1",
        "amount_money": {"amount": 300, "currency": "USD"}}}}}),
    );
    assert_eq!(refunded["status"], "processed", "{refunded}");
    assert_eq!(refunded["order_id"], order_id);
    let order = app.owner.get(&format!("/orders/{order_id}")).expect(200);
    assert_eq!(order["refunded_amount"], 3.0);

    let stray = send(
        json!({"type": "refund.updated", "event_id": "sq-r2", "data": {"object": {"refund": {
        "id": "sq-ref-2", "status": "COMPLETED", "payment_id": "sq-pay-unknown",
        "amount_money": {"amount": 300, "currency": "USD"}}}}}),
    );
    assert_eq!(stray["status"], "parked");
    assert!(stray["reason"].as_str().unwrap().contains("sq-pay-unknown"));
}
