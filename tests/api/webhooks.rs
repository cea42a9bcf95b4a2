use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use brigade::auth::Role;
use brigade::events::delivery::{deliver_due, Sender, Step};
use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{json, Value};

use crate::helpers::{next_week_at_seven, Client, TestApp};
use crate::process;
use crate::receiver::{dead_url, Answer, Receiver};

/// Sets the tenant's endpoint, enabled, and returns the signing secret shown once.
fn set_endpoint(client: &Client, url: &str) -> String {
    let body = client
        .put("/settings/webhook", json!({"url": url, "enabled": true}))
        .expect(200);
    body["secret"]
        .as_str()
        .expect("the first PUT shows the secret")
        .to_string()
}

fn delivery(client: &Client, event_id: &str) -> Value {
    client
        .get(&format!("/webhooks/deliveries/{event_id}"))
        .expect(200)
}

/// Waits until the delivery has at least `attempts` attempts recorded.
#[track_caller]
fn wait_for_attempts(client: &Client, event_id: &str, attempts: i64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let body = delivery(client, event_id);
        if body["attempt_count"].as_i64().unwrap() >= attempts {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "no attempt {attempts} yet: {body}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn time(value: &Value) -> DateTime<Utc> {
    brigade::time::parse_rfc3339(value.as_str().expect("a timestamp")).unwrap()
}

/// Runs one delivery step for a tenant with the clock stopped at `now`.
fn step(app: &TestApp, tenant_id: &str, now: DateTime<Utc>) -> Step {
    let tenant = app.app().db.tenant(tenant_id.parse().unwrap()).unwrap();
    let sender = Sender::new(app.app().config.webhook_timeout);
    deliver_due(&tenant, &sender, &|| now, 100).unwrap()
}

/// A new takeaway order; returns the id of its `order.created` event.
fn order_event(app: &TestApp) -> String {
    let item = app.menu_item(12.5, 0.0);
    let order = app.order(&item, 2);
    let events = app.outbox(&app.tenant_id);
    let event = events.last().unwrap();
    assert_eq!(event["data"]["order"]["id"], order["id"]);
    event["id"].as_str().unwrap().to_string()
}

#[test]
fn a_committed_order_arrives_signed_and_verifiable() {
    let app = TestApp::spawn();
    let receiver = Receiver::start();
    let secret = set_endpoint(&app.owner, &receiver.url);
    let event_id = order_event(&app);

    let request = &receiver.wait_for(1)[0];
    assert!(
        request.signed_with(&secret),
        "the receiver's own HMAC check accepts it"
    );
    assert!(!request.signed_with("whsec_other"));
    assert_eq!(request.header("Content-Type"), Some("application/json"));
    assert!(request
        .header("User-Agent")
        .unwrap()
        .starts_with("Brigade/"));
    assert_eq!(
        request.header("X-Brigade-Event-Id"),
        Some(event_id.as_str())
    );
    assert_eq!(request.header("X-Brigade-Event"), Some("order.created"));
    let envelope = request.json();
    assert_eq!(
        envelope,
        app.outbox(&app.tenant_id)[0],
        "the stored envelope, as stored"
    );
    assert_eq!(envelope["id"], event_id.as_str());
    assert_eq!(envelope["event"], "order.created");
    assert_eq!(envelope["tenant_id"], app.tenant_id.as_str());
    let order = &envelope["data"]["order"];
    assert_eq!(order["total_amount"], 25.0);
    for field in [
        "id",
        "order_number",
        "status",
        "order_type",
        "total_amount",
        "table_name",
    ] {
        assert!(order.get(field).is_some(), "order.{field} is in the event");
    }

    let record = wait_for_attempts(&app.owner, &event_id, 1);
    assert_eq!(record["status"], "delivered");
    assert_eq!(record["attempts"][0]["status_code"], 200);
    assert_eq!(record["attempts"][0]["error_class"], Value::Null);
    assert_eq!(record["attempts"][0]["response_snippet"], "ok");
    assert_eq!(record["next_attempt_at"], Value::Null);
    assert_eq!(record["payload"], envelope);
}

#[test]
fn a_failed_attempt_is_retried_with_the_same_event_id_and_a_valid_signature() {
    let app = TestApp::spawn();
    let receiver = Receiver::start();
    receiver.then(vec![Answer::Status(500)]);
    let secret = set_endpoint(&app.owner, &receiver.url);
    let event_id = order_event(&app);

    let first = wait_for_attempts(&app.owner, &event_id, 1);
    assert_eq!(first["status"], "pending");
    assert_eq!(first["attempts"][0]["status_code"], 500);
    assert_eq!(first["attempts"][0]["error_class"], "http_status");
    assert_eq!(first["last_error"], "HTTP 500");
    let due = time(&first["next_attempt_at"]);
    assert_eq!(
        step(&app, &app.tenant_id, due),
        Step {
            delivered: 1,
            failed_attempts: 0
        }
    );

    let requests = receiver.wait_for(2);
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.json()["id"], event_id.as_str());
        assert!(request.signed_with(&secret));
    }
    assert_eq!(
        requests[0].body, requests[1].body,
        "the same bytes both times"
    );
    let record = delivery(&app.owner, &event_id);
    assert_eq!(record["status"], "delivered");
    assert_eq!(record["attempt_count"], 2);
}

#[test]
fn a_receiver_that_hangs_past_the_timeout_is_retried() {
    let app = TestApp::spawn_with(|c| c.webhook_timeout = Duration::from_millis(500));
    let receiver = Receiver::start();
    receiver.then(vec![Answer::Hang(Duration::from_secs(3))]);
    set_endpoint(&app.owner, &receiver.url);
    let event_id = order_event(&app);

    let first = wait_for_attempts(&app.owner, &event_id, 1);
    assert_eq!(first["status"], "pending");
    assert_eq!(first["attempts"][0]["error_class"], "timeout");
    assert_eq!(first["attempts"][0]["status_code"], Value::Null);
    step(&app, &app.tenant_id, time(&first["next_attempt_at"]));

    assert_eq!(receiver.wait_for(2)[1].json()["id"], event_id.as_str());
    assert_eq!(delivery(&app.owner, &event_id)["status"], "delivered");
}

#[test]
fn retries_follow_the_backoff_schedule_and_stop_at_24_hours() {
    let app = TestApp::spawn();
    let receiver = Receiver::start();
    receiver.answer(Answer::Status(500));
    set_endpoint(&app.owner, &receiver.url);
    let event_id = order_event(&app);
    let first = wait_for_attempts(&app.owner, &event_id, 1);
    let started = time(&first["attempts"][0]["attempted_at"]);

    let ladder = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600];
    let mut previous = started;
    let mut record = first;
    for expected in ladder {
        let due = time(&record["next_attempt_at"]);
        let gap = (due - previous).num_milliseconds() as f64 / 1000.0;
        let spread = expected as f64 * 0.2;
        assert!(
            (gap - expected as f64).abs() <= spread + 0.001,
            "gap {gap} s, expected {expected} s ± 20 %"
        );
        assert_eq!(step(&app, &app.tenant_id, due).failed_attempts, 1);
        previous = due;
        record = delivery(&app.owner, &event_id);
    }
    let deadline = started + TimeDelta::hours(24);
    assert_eq!(
        time(&record["next_attempt_at"]),
        deadline,
        "one last attempt at the 24 h deadline"
    );
    assert_eq!(
        step(&app, &app.tenant_id, deadline - TimeDelta::seconds(1)),
        Step::default()
    );
    step(&app, &app.tenant_id, deadline);

    let record = delivery(&app.owner, &event_id);
    assert_eq!(record["status"], "failed");
    assert_eq!(record["attempt_count"], 8);
    assert_eq!(record["next_attempt_at"], Value::Null);
    assert_eq!(time(&record["attempts"][7]["attempted_at"]), deadline);
    assert_eq!(
        step(&app, &app.tenant_id, deadline + TimeDelta::days(30)),
        Step::default()
    );
    assert_eq!(receiver.received().len(), 8);
    let summary = app.owner.get("/notifications/summary").expect(200);
    assert_eq!(summary["failed_deliveries"], 1);
    let failed = app
        .owner
        .get("/webhooks/deliveries?status=failed")
        .expect(200);
    assert_eq!(failed["data"][0]["event_id"], event_id.as_str());

    // A manual retry sends it now, and a healthy receiver acknowledges it.
    receiver.answer(Answer::Status(204));
    let retried = app
        .owner
        .post(&format!("/webhooks/deliveries/{event_id}/retry"), json!({}))
        .expect(200);
    assert_eq!(retried["status"], "pending");
    let record = wait_for_attempts(&app.owner, &event_id, 9);
    assert_eq!(record["status"], "delivered");
    assert_eq!(
        app.owner.get("/notifications/summary").expect(200)["failed_deliveries"],
        0
    );
}

#[test]
fn retry_after_on_503_pushes_the_next_attempt_later() {
    let app = TestApp::spawn();
    let receiver = Receiver::start();
    receiver.then(vec![Answer::With(503, vec![("Retry-After", "120".into())])]);
    set_endpoint(&app.owner, &receiver.url);
    let event_id = order_event(&app);

    let record = wait_for_attempts(&app.owner, &event_id, 1);
    // Counted from the answer: the attempt's start plus its duration.
    let gap = time(&record["next_attempt_at"]) - time(&record["attempts"][0]["attempted_at"]);
    let took = TimeDelta::milliseconds(record["attempts"][0]["duration_ms"].as_i64().unwrap());
    let asked = TimeDelta::seconds(120);
    assert!(
        gap >= asked && gap <= asked + took + TimeDelta::milliseconds(2),
        "the receiver asked for 2 minutes, more than the 5 s step; gap {gap}"
    );
}

#[test]
fn after_rotation_the_retry_is_signed_with_the_new_secret_only() {
    let app = TestApp::spawn();
    let receiver = Receiver::start();
    receiver.then(vec![Answer::Status(500)]);
    let old_secret = set_endpoint(&app.owner, &receiver.url);
    let event_id = order_event(&app);
    let first = wait_for_attempts(&app.owner, &event_id, 1);

    let rotated = app
        .owner
        .post("/settings/webhook/rotate-secret", json!({}))
        .expect(200);
    let new_secret = rotated["secret"].as_str().unwrap().to_string();
    assert_ne!(new_secret, old_secret);
    assert_eq!(rotated["secret_last4"], &new_secret[new_secret.len() - 4..]);
    step(&app, &app.tenant_id, time(&first["next_attempt_at"]));

    let requests = receiver.wait_for(2);
    assert!(requests[0].signed_with(&old_secret));
    assert!(requests[1].signed_with(&new_secret));
    assert!(
        !requests[1].signed_with(&old_secret),
        "the old secret signs nothing more"
    );
}

#[test]
fn deliveries_pending_when_the_server_stops_go_out_after_restart() {
    let mut app = TestApp::spawn();
    let receiver = Receiver::start();
    receiver.answer(Answer::Status(500));
    set_endpoint(&app.owner, &receiver.url);
    let first = order_event(&app);
    let second = order_event(&app);
    wait_for_attempts(&app.owner, &first, 1);
    wait_for_attempts(&app.owner, &second, 1);

    app.restart();
    receiver.answer(Answer::Status(200));

    // Each failed once; the retry comes from the restarted server, on its schedule.
    let requests = receiver.wait_for(4);
    // Each retry is jittered on its own, so they may come in either order.
    let mut ids: Vec<String> = requests[2..]
        .iter()
        .map(|r| r.json()["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    let mut expected = vec![first.clone(), second.clone()];
    expected.sort();
    assert_eq!(ids, expected);
    for event_id in [&first, &second] {
        let record = wait_for_attempts(&app.owner, event_id, 2);
        assert_eq!(record["status"], "delivered");
    }
}

#[test]
fn a_dozen_hanging_receivers_at_once_do_not_delay_a_healthy_tenant() {
    let app = TestApp::spawn_with(|c| c.webhook_timeout = Duration::from_secs(10));
    let stuck = Receiver::start();
    stuck.answer(Answer::Hang(Duration::from_secs(12)));
    // Set up first, so the ten seconds before the first attempt times out are
    // spent only on what the test is about.
    let tenants: Vec<(String, Client, String)> = (0..12)
        .map(|n| {
            let (tenant, owner) = app.second_tenant(&format!("stuck-{n}"));
            let item = app.menu_item_for(&owner, 5.0, 0.0);
            (tenant, owner, item)
        })
        .collect();
    let stuck_events: Vec<(Client, String)> = tenants
        .into_iter()
        .map(|(tenant, owner, item)| {
            set_endpoint(&owner, &stuck.url);
            owner
                .post("/orders", json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]}))
                .expect(201);
            let event = app.outbox(&tenant)[0]["id"].as_str().unwrap().to_string();
            (owner, event)
        })
        .collect();
    stuck.wait_for(12);

    let healthy = Receiver::start();
    set_endpoint(&app.owner, &healthy.url);
    let event = order_event(&app);
    assert_eq!(healthy.wait_for(1)[0].json()["id"], event.as_str());
    for (owner, event) in &stuck_events {
        assert_eq!(
            delivery(owner, event)["attempt_count"],
            0,
            "every stuck attempt is still hanging"
        );
    }
}

#[test]
fn a_hanging_receiver_of_one_tenant_does_not_delay_another() {
    let app = TestApp::spawn_with(|c| c.webhook_timeout = Duration::from_secs(10));
    let stuck = Receiver::start();
    stuck.answer(Answer::Hang(Duration::from_secs(12)));
    set_endpoint(&app.owner, &stuck.url);
    let stuck_event = order_event(&app);
    stuck.wait_for(1);

    let (other_tenant, other_owner) = app.second_tenant("other-place");
    let healthy = Receiver::start();
    set_endpoint(&other_owner, &healthy.url);
    let item = app.menu_item_for(&other_owner, 9.0, 0.0);
    for _ in 0..3 {
        other_owner
            .post(
                "/orders",
                json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]}),
            )
            .expect(201);
    }

    let arrived = healthy.wait_for(3);
    assert!(arrived
        .iter()
        .all(|r| r.json()["tenant_id"] == other_tenant.as_str()));
    let stuck_record = delivery(&app.owner, &stuck_event);
    assert_eq!(
        stuck_record["attempt_count"], 0,
        "the first tenant's attempt is still hanging"
    );

    // A receiver that is gone entirely fails fast and holds nobody up either.
    app.owner
        .put(
            "/settings/webhook",
            json!({"url": dead_url(), "enabled": true}),
        )
        .expect(200);
    other_owner
        .post(
            "/orders",
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect(201);
    healthy.wait_for(4);
}

#[test]
fn a_redirect_is_a_failed_attempt_and_is_not_followed() {
    let app = TestApp::spawn();
    let elsewhere = Receiver::start();
    let receiver = Receiver::start();
    receiver.then(vec![Answer::With(
        302,
        vec![("Location", elsewhere.url.clone())],
    )]);
    set_endpoint(&app.owner, &receiver.url);
    let event_id = order_event(&app);

    let record = wait_for_attempts(&app.owner, &event_id, 1);
    assert_eq!(record["status"], "pending");
    assert_eq!(record["attempts"][0]["status_code"], 302);
    assert_eq!(record["attempts"][0]["error_class"], "redirect");
    assert!(
        elsewhere.received().is_empty(),
        "the redirect was not followed"
    );
}

#[test]
fn events_wait_while_the_endpoint_is_disabled_and_go_out_once_enabled() {
    let app = TestApp::spawn();
    let receiver = Receiver::start();
    app.owner
        .put(
            "/settings/webhook",
            json!({"url": receiver.url, "enabled": false}),
        )
        .expect(200);
    let event_id = order_event(&app);
    assert_eq!(
        step(&app, &app.tenant_id, Utc::now() + TimeDelta::days(3)),
        Step::default()
    );
    let waiting = delivery(&app.owner, &event_id);
    assert_eq!(waiting["status"], "pending");
    assert_eq!(waiting["attempt_count"], 0);

    app.owner
        .put(
            "/settings/webhook",
            json!({"url": receiver.url, "enabled": true}),
        )
        .expect(200);
    assert_eq!(receiver.wait_for(1)[0].json()["id"], event_id.as_str());
}

#[test]
fn the_test_event_goes_out_through_the_same_path() {
    let app = TestApp::spawn();
    app.owner
        .post("/webhooks/test", json!({}))
        .expect_problem(409, "webhook_not_configured");
    let receiver = Receiver::start();
    let secret = set_endpoint(&app.owner, &receiver.url);

    let key = [("Idempotency-Key", "test-once")];
    let queued = app
        .owner
        .send("POST", "/webhooks/test", json!({}), &key)
        .expect(202);
    let repeat = app.owner.send("POST", "/webhooks/test", json!({}), &key);
    assert_eq!(repeat.header("Idempotent-Replayed"), Some("true"));
    assert_eq!(repeat.expect(202), queued, "a repeat queues nothing more");
    let request = &receiver.wait_for(1)[0];
    assert!(request.signed_with(&secret));
    let envelope = request.json();
    assert_eq!(envelope["id"], queued["event_id"]);
    assert_eq!(envelope["event"], "webhook.test");
    assert_eq!(request.header("X-Brigade-Event"), Some("webhook.test"));
    assert_eq!(
        app.outbox(&app.tenant_id).len(),
        1,
        "one event for the two requests"
    );
}

#[test]
fn the_endpoint_shows_its_secret_once_and_rotation_replaces_it() {
    let app = TestApp::spawn();
    let unset = app.owner.get("/settings/webhook").expect(200);
    assert_eq!(
        unset,
        json!({"url": null, "enabled": false, "secret_last4": null,
               "events": brigade::domain::event::CONTRACT_EVENTS, "updated_at": null})
    );
    app.owner
        .post("/settings/webhook/rotate-secret", json!({}))
        .expect_problem(409, "webhook_not_configured");

    let created = app
        .owner
        .put(
            "/settings/webhook",
            json!({"url": "https://hooks.example.com/brigade", "enabled": true}),
        )
        .expect(200);
    let secret = created["secret"].as_str().unwrap();
    assert!(secret.starts_with("whsec_") && secret.len() > 40);
    let shown = app.owner.get("/settings/webhook").expect(200);
    assert_eq!(shown["url"], "https://hooks.example.com/brigade");
    assert_eq!(shown["enabled"], true);
    assert_eq!(shown["secret_last4"], &secret[secret.len() - 4..]);
    assert!(
        shown.get("secret").is_none(),
        "the secret is shown only once"
    );

    let updated = app
        .owner
        .put(
            "/settings/webhook",
            json!({"url": "http://10.0.0.5:9000/in", "enabled": false}),
        )
        .expect(200);
    assert!(
        updated.get("secret").is_none(),
        "a later PUT keeps the secret"
    );
    assert_eq!(updated["secret_last4"], shown["secret_last4"]);
    assert_eq!(updated["enabled"], false);

    let rotated = app
        .owner
        .post("/settings/webhook/rotate-secret", json!({}))
        .expect(200);
    assert_ne!(rotated["secret"], secret);
    assert_ne!(
        app.owner.get("/settings/webhook").expect(200)["secret_last4"],
        shown["secret_last4"]
    );
}

#[test]
fn bad_endpoint_input_is_refused_and_changes_nothing() {
    let app = TestApp::spawn();
    for url in [
        "ftp://example.com/x",
        "not a url",
        "http://",
        "/relative/path",
        "",
        "https:///nohost",
    ] {
        let problem = app
            .owner
            .put("/settings/webhook", json!({"url": url, "enabled": true}))
            .expect_problem(422, "validation_failed");
        assert_eq!(problem["errors"][0]["field"], "url", "{url:?}");
    }
    app.owner
        .post_raw("/webhooks/test", "application/json", b"{}")
        .expect_problem(409, "webhook_not_configured");
    let malformed = app.owner.request(
        "PUT",
        "/settings/webhook",
        &[],
        Some(("application/json", b"{\"url\": \"http://a.example\",")),
    );
    malformed.expect_problem(400, "malformed_json");
    let missing = app
        .owner
        .put("/settings/webhook", json!({"url": "http://a.example"}))
        .expect_problem(422, "validation_failed");
    assert!(missing["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("enabled"));
    app.owner
        .put(
            "/settings/webhook",
            json!({"url": "http://a.example", "enabled": "yes"}),
        )
        .expect_problem(422, "validation_failed");
    app.owner
        .put(
            "/settings/webhook",
            json!({"url": "http://a.example", "enabled": true, "secret": "mine"}),
        )
        .expect_problem(422, "validation_failed");
    assert_eq!(
        app.owner.get("/settings/webhook").expect(200)["url"],
        Value::Null
    );
}

#[test]
fn deliveries_are_listed_newest_first_filtered_and_paginated() {
    let app = TestApp::spawn();
    app.owner
        .put(
            "/settings/webhook",
            json!({"url": dead_url(), "enabled": false}),
        )
        .expect(200);
    let ids: Vec<String> = (0..3).map(|_| order_event(&app)).collect();

    let page = app
        .owner
        .get("/webhooks/deliveries?status=pending&limit=2")
        .expect(200);
    let listed: Vec<&Value> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["event_id"])
        .collect();
    assert_eq!(listed, [&json!(ids[2]), &json!(ids[1])]);
    assert_eq!(page["data"][0]["attempts"], json!([]));
    assert!(page["data"][0]["next_attempt_at"].is_string());
    let cursor = page["next_cursor"].as_str().unwrap();
    let rest = app
        .owner
        .get(&format!(
            "/webhooks/deliveries?status=pending&limit=2&cursor={cursor}"
        ))
        .expect(200);
    assert_eq!(rest["data"][0]["event_id"], ids[0].as_str());
    assert_eq!(rest["next_cursor"], Value::Null);
    assert_eq!(
        app.owner
            .get("/webhooks/deliveries?status=delivered")
            .expect(200)["data"],
        json!([])
    );
    assert_eq!(
        app.owner.get("/webhooks/deliveries").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    for bad in ["status=lost", "limit=0", "limit=abc", "cursor=xyz"] {
        app.owner
            .get(&format!("/webhooks/deliveries?{bad}"))
            .expect_problem(422, "validation_failed");
    }
}

#[test]
fn unknown_and_other_tenants_deliveries_are_not_found() {
    let app = TestApp::spawn();
    let (_, other_owner) = app.second_tenant("elsewhere");
    let item = app.menu_item_for(&other_owner, 5.0, 0.0);
    other_owner
        .post(
            "/orders",
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect(201);
    let other_tenant = other_owner.tenant_id.clone().unwrap();
    let theirs = app.outbox(&other_tenant)[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    delivery(&other_owner, &theirs);

    for id in [theirs.as_str(), "evt_0000", "nonsense", "evt_"] {
        app.owner
            .get(&format!("/webhooks/deliveries/{id}"))
            .expect_problem(404, "not_found");
        app.owner
            .post(&format!("/webhooks/deliveries/{id}/retry"), json!({}))
            .expect_problem(404, "not_found");
    }
}

#[test]
fn a_delivered_event_cannot_be_retried() {
    let app = TestApp::spawn();
    let receiver = Receiver::start();
    set_endpoint(&app.owner, &receiver.url);
    let event_id = order_event(&app);
    wait_for_attempts(&app.owner, &event_id, 1);

    let problem = app
        .owner
        .post(&format!("/webhooks/deliveries/{event_id}/retry"), json!({}))
        .expect_problem(409, "illegal_transition");
    assert_eq!(problem["current_status"], "delivered");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(receiver.received().len(), 1, "delivered once only");
}

#[test]
fn only_owners_and_managers_manage_webhooks() {
    let app = TestApp::spawn();
    let manager = app.user(Role::Manager);
    manager
        .put(
            "/settings/webhook",
            json!({"url": "http://a.example/in", "enabled": false}),
        )
        .expect(200);
    manager.get("/webhooks/deliveries").expect(200);
    for role in [Role::Cashier, Role::Kitchen] {
        let client = app.user(role);
        client
            .get("/settings/webhook")
            .expect_problem(403, "permission_denied");
        client
            .put(
                "/settings/webhook",
                json!({"url": "http://b.example/in", "enabled": true}),
            )
            .expect_problem(403, "permission_denied");
        client
            .post("/settings/webhook/rotate-secret", json!({}))
            .expect_problem(403, "permission_denied");
        client
            .get("/webhooks/deliveries")
            .expect_problem(403, "permission_denied");
        client
            .post("/webhooks/test", json!({}))
            .expect_problem(403, "permission_denied");
        client
            .get("/notifications/summary")
            .expect_problem(403, "permission_denied");
    }
    let key = app.api_key(Role::Cashier);
    key.get("/webhooks/deliveries")
        .expect_problem(403, "permission_denied");
    assert_eq!(
        app.owner.get("/settings/webhook").expect(200)["url"],
        "http://a.example/in"
    );
}

/// A Server-Sent Events client: reads `(id, data)` messages off the stream.
struct EventStream {
    lines: BufReader<Box<dyn std::io::Read + Send>>,
}

impl EventStream {
    fn open(client: &Client, last_event_id: Option<&str>) -> EventStream {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(20)))
            .build()
            .into();
        let mut request = agent
            .get(format!("{}/api/v1/events/stream", client.base))
            .header(
                "Authorization",
                format!("Bearer {}", client.token.as_ref().unwrap()),
            )
            .header("X-Tenant-ID", client.tenant_id.as_ref().unwrap());
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        let response = request.call().unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            response
                .headers()
                .get("content-type")
                .unwrap()
                .to_str()
                .unwrap(),
            "text/event-stream"
        );
        EventStream {
            lines: BufReader::new(Box::new(response.into_body().into_reader())),
        }
    }

    fn next(&mut self) -> (String, Value) {
        let (mut id, mut data) = (None, None);
        loop {
            let mut line = String::new();
            assert!(
                self.lines.read_line(&mut line).unwrap() > 0,
                "the stream ended"
            );
            let line = line.trim_end();
            if let Some(value) = line.strip_prefix("id:") {
                id = Some(value.trim().to_string());
            } else if let Some(value) = line.strip_prefix("data:") {
                data = Some(serde_json::from_str(value.trim()).unwrap());
            } else if line.is_empty() {
                if let (Some(id), Some(data)) = (id.take(), data.take()) {
                    return (id, data);
                }
            }
        }
    }
}

#[test]
fn the_event_stream_carries_committed_events_and_resumes_from_last_event_id() {
    let app = TestApp::spawn();
    let kitchen = app.user(Role::Kitchen);
    let mut stream = EventStream::open(&kitchen, None);
    let (other_tenant, other_owner) = app.second_tenant("next-door");
    let other_item = app.menu_item_for(&other_owner, 3.0, 0.0);
    other_owner
        .post("/orders", json!({"order_type": "takeaway", "items": [{"menu_item_id": other_item, "quantity": 1}]}))
        .expect(201);
    assert_eq!(app.outbox(&other_tenant).len(), 1);

    let item = app.menu_item(7.0, 0.0);
    let order = app.order(&item, 1);
    let (id, envelope) = stream.next();
    assert_eq!(
        envelope["event"], "order.created",
        "another tenant's event is not streamed"
    );
    assert_eq!(envelope["id"], id.as_str());
    assert_eq!(envelope["data"]["order"]["id"], order["id"]);
    assert_eq!(envelope, app.outbox(&app.tenant_id)[0]);

    let order_id = order["id"].as_str().unwrap();
    app.owner
        .patch(
            &format!("/orders/{order_id}"),
            json!({"notes": "No onions"}),
        )
        .expect(200);
    app.owner
        .post(
            &format!("/orders/{order_id}/cancel"),
            json!({"reason": "Changed mind"}),
        )
        .expect(200);
    let (updated, _) = stream.next();
    let (cancelled, last) = stream.next();
    assert_eq!(last["event"], "order.cancelled");

    let mut resumed = EventStream::open(&kitchen, Some(&id));
    assert_eq!(resumed.next().0, updated);
    assert_eq!(resumed.next().0, cancelled);
    app.order(&item, 1);
    assert_eq!(
        resumed.next().1["event"],
        "order.created",
        "then live events"
    );

    Client::anonymous(&app.base)
        .get("/events/stream")
        .expect_problem(401, "unauthorized");
}

#[test]
fn resuming_from_far_back_catches_up_page_by_page_and_a_new_stream_starts_now() {
    let app = TestApp::spawn();
    let tenant = app.app().db.tenant(app.tenant_id.parse().unwrap()).unwrap();
    // More than two catch-up pages of history.
    let history: Vec<String> = tenant
        .write(|tx| {
            (0..600)
                .map(|i| {
                    brigade::events::outbox::enqueue(
                        tx,
                        tenant.info.id,
                        "webhook.test",
                        &brigade::time::now_rfc3339(),
                        json!({ "n": i }),
                    )
                })
                .collect()
        })
        .unwrap();
    let kitchen = app.user(Role::Kitchen);
    let mut fresh = EventStream::open(&kitchen, None);
    let mut resumed = EventStream::open(&kitchen, Some(&history[0]));
    for expected in &history[1..] {
        let (id, envelope) = resumed.next();
        assert_eq!(&id, expected);
        assert_eq!(envelope["event"], "webhook.test");
    }
    let item = app.menu_item(7.0, 0.0);
    let order = app.order(&item, 1);
    let (_, live) = resumed.next();
    assert_eq!(live["data"]["order"]["id"], order["id"], "then live events");
    let (_, first) = fresh.next();
    assert_eq!(
        first["data"]["order"]["id"], order["id"],
        "a stream without Last-Event-ID starts with what commits after it opens"
    );
}

#[test]
fn events_of_one_tenant_arrive_in_created_order() {
    let app = TestApp::spawn();
    let receiver = Receiver::start();
    app.owner
        .put(
            "/settings/webhook",
            json!({"url": receiver.url, "enabled": false}),
        )
        .expect(200);
    let item = app.menu_item(4.0, 0.0);
    for _ in 0..3 {
        app.order(&item, 1);
    }
    app.owner
        .put(
            "/settings/webhook",
            json!({"url": receiver.url, "enabled": true}),
        )
        .expect(200);
    for _ in 0..3 {
        app.order(&item, 1);
    }

    let arrived = receiver.wait_for(6);
    let arrived_ids: Vec<Value> = arrived.iter().map(|r| r.json()["id"].clone()).collect();
    let created_ids: Vec<Value> = app
        .outbox(&app.tenant_id)
        .iter()
        .map(|e| e["id"].clone())
        .collect();
    assert_eq!(arrived_ids, created_ids);
    assert!(arrived.windows(2).all(|pair| pair[0].at <= pair[1].at));
}

#[test]
fn an_attempt_cut_off_by_killing_the_server_is_sent_again_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = process::serve(dir.path());
    let printed = |label: &str| {
        let line = server
            .output
            .iter()
            .find_map(|l| l.trim().strip_prefix(label));
        line.unwrap_or_else(|| panic!("{label} not printed"))
            .trim()
            .to_string()
    };
    let (tenant, email, password) = (
        printed("Tenant id (X-Tenant-ID):"),
        printed("Owner login:"),
        printed("Password:"),
    );
    let login = |base: &str| {
        let body = Client::anonymous(base)
            .post("/auth/login", json!({"email": email, "password": password}))
            .expect(200);
        Client {
            token: Some(body["access_token"].as_str().unwrap().to_string()),
            ..Client::anonymous(base).with_tenant(&tenant)
        }
    };
    let owner = login(&server.base);
    let receiver = Receiver::start();
    receiver.then(vec![Answer::Hang(Duration::from_secs(30))]);
    let secret = set_endpoint(&owner, &receiver.url);
    let item = owner.get("/menu/items").expect(200)["data"][0]["id"].clone();
    owner
        .post(
            "/orders",
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect(201);
    let cut_off = receiver.wait_for(1)[0].clone();

    // SIGKILL while the receiver holds the request: no answer was ever recorded.
    server.kill();
    let server = process::serve(dir.path());
    let owner = login(&server.base);

    let again = receiver.wait_for(2)[1].clone();
    assert_eq!(
        again.json()["id"],
        cut_off.json()["id"],
        "the same event id"
    );
    assert_eq!(again.body, cut_off.body);
    assert!(again.signed_with(&secret));
    let event_id = again.json()["id"].as_str().unwrap().to_string();
    let record = wait_for_attempts(&owner, &event_id, 1);
    assert_eq!(record["status"], "delivered");
    assert_eq!(
        record["attempt_count"], 1,
        "the cut-off attempt left no record"
    );
}

#[test]
fn dining_room_events_are_delivered_like_order_events() {
    let app = TestApp::spawn();
    let receiver = Receiver::start();
    let secret = set_endpoint(&app.owner, &receiver.url);
    let (_, tables) = app.floor_with_tables(&[4]);
    let session = app
        .owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect(201);

    let request = &receiver.wait_for(1)[0];
    assert!(request.signed_with(&secret));
    let envelope = request.json();
    assert_eq!(envelope["event"], "session.created");
    assert_eq!(envelope["data"]["session"]["id"], session["id"]);
    assert_eq!(request.header("X-Brigade-Event"), Some("session.created"));
}

#[test]
fn a_receiver_answering_in_9_seconds_is_not_a_failure() {
    let app = TestApp::spawn();
    let receiver = Receiver::start();
    receiver.answer(Answer::Slow(Duration::from_secs(9), 200));
    set_endpoint(&app.owner, &receiver.url);
    let event_id = order_event(&app);
    let record = wait_for_attempts(&app.owner, &event_id, 1);
    assert_eq!(record["status"], "delivered", "{record}");
    assert_eq!(record["attempt_count"], 1);
    assert_eq!(record["attempts"][0]["status_code"], 200);
}

#[test]
fn a_receiver_answering_in_11_seconds_has_failed_the_attempt() {
    let app = TestApp::spawn();
    let receiver = Receiver::start();
    receiver.then(vec![Answer::Slow(Duration::from_secs(11), 200)]);
    set_endpoint(&app.owner, &receiver.url);
    let event_id = order_event(&app);
    let record = wait_for_attempts(&app.owner, &event_id, 1);
    assert_eq!(record["status"], "pending", "{record}");
    assert_eq!(record["attempts"][0]["error_class"], "timeout", "{record}");
    assert!(record["next_attempt_at"].is_string());
    // The retry finds the receiver quick again and is acknowledged.
    let record = wait_for_attempts(&app.owner, &event_id, 2);
    assert_eq!(record["status"], "delivered", "{record}");
}

#[test]
fn a_receiver_that_was_down_gets_everything_once_back_and_then_in_order() {
    let app = TestApp::spawn();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    set_endpoint(&app.owner, &format!("http://127.0.0.1:{port}/hook"));
    let item = app.menu_item(3.0, 0.0);
    let mut while_down = Vec::new();
    for _ in 0..3 {
        let id = app.order(&item, 1)["id"].as_str().unwrap().to_string();
        app.owner
            .post(
                &format!("/orders/{id}/status"),
                json!({"status": "confirmed"}),
            )
            .expect(200);
        while_down.push(id);
    }
    // Every event the endpoint takes: the contract's, not the kitchen's.
    let committed: Vec<String> = app
        .outbox(&app.tenant_id)
        .iter()
        .filter(|e| e["event"].as_str().unwrap().starts_with("order."))
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    let first_try = wait_for_attempts(&app.owner, committed.last().unwrap(), 1);
    assert_eq!(
        first_try["attempts"][0]["error_class"], "connection",
        "{first_try}"
    );

    let receiver = Receiver::start_on(port);
    // Past every first backoff: everything pending goes out now.
    step(&app, &app.tenant_id, Utc::now() + TimeDelta::minutes(10));
    let arrived: std::collections::BTreeSet<String> = receiver
        .wait_for(committed.len())
        .iter()
        .map(|r| r.json()["id"].as_str().unwrap().to_string())
        .collect();
    for id in &committed {
        assert!(
            arrived.contains(id),
            "{id} never arrived after the receiver came back"
        );
    }

    // Healthy again: each order's events arrive in the order they were created.
    let before = receiver.received().len();
    let order = app.order(&item, 1)["id"].as_str().unwrap().to_string();
    for status in ["confirmed", "preparing", "ready"] {
        app.owner
            .post(
                &format!("/orders/{order}/status"),
                json!({"status": status}),
            )
            .expect(200);
    }
    let statuses: Vec<String> = receiver.wait_for(before + 4)[before..]
        .iter()
        .map(|r| r.json())
        .filter(|e| e["data"]["order"]["id"] == order.as_str())
        .map(|e| e["data"]["order"]["status"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(statuses, vec!["pending", "confirmed", "preparing", "ready"]);
}

#[test]
fn each_role_receives_only_the_events_it_may_read() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[4]);
    app.open_for_bookings(20, 8);
    let item = app.menu_item(7.0, 0.0);
    app.order(&item, 1);
    let resume_after = app.outbox(&app.tenant_id)[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (kitchen, host) = (app.user(Role::Kitchen), app.user(Role::Host));
    let mut kitchen_live = EventStream::open(&kitchen, None);
    let mut host_live = EventStream::open(&host, None);
    let (_, starts_at) = next_week_at_seven();
    let booking = app
        .owner
        .post(
            "/reservations",
            json!({"name": "Ada Lovelace", "phone": "555-0100", "party_size": 2, "starts_at": starts_at}),
        )
        .expect(201);
    let order = app.order(&item, 1);

    let (_, first) = host_live.next();
    assert_eq!(first["event"], "reservation.created");
    assert_eq!(first["data"]["reservation"]["id"], booking["id"]);
    let (_, first) = kitchen_live.next();
    assert_eq!(
        first["event"], "order.created",
        "the kitchen never sees the booking: {first}"
    );
    assert_eq!(first["data"]["order"]["id"], order["id"]);

    // Catching up from the outbox filters the same way.
    let (_, replayed) = EventStream::open(&kitchen, Some(&resume_after)).next();
    assert_eq!(replayed["event"], "order.created");
    assert_eq!(replayed["data"]["order"]["id"], order["id"]);
    let (_, replayed) = EventStream::open(&host, Some(&resume_after)).next();
    assert_eq!(replayed["event"], "reservation.created");
}
