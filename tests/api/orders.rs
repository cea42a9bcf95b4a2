use brigade::auth::Role;
use serde_json::{json, Value};

use crate::helpers::{event_names, TestApp};

fn order_with(app: &TestApp, body: Value) -> Value {
    app.owner.post("/orders", body).expect(201)
}

fn set_status(app: &TestApp, id: &str, status: &str) -> crate::helpers::Res {
    app.owner
        .post(&format!("/orders/{id}/status"), json!({ "status": status }))
}

#[test]
fn creating_an_order_captures_prices_and_writes_order_created() {
    let app = TestApp::spawn();
    let item = app.menu_item(12.5, 10.0);
    let order = order_with(
        &app,
        json!({
            "order_type": "takeaway",
            "customer": {"name": "Ada", "phone": "555-0100"},
            "notes": "no onions",
            "items": [{"menu_item_id": item, "quantity": 2, "modifiers": ["Large"], "notes": "hot"}]
        }),
    );
    assert_eq!(order["status"], "pending");
    assert_eq!(order["order_type"], "takeaway");
    assert_eq!(order["version"], 1);
    assert!(order["order_number"].as_str().unwrap().ends_with("-001"));
    assert_eq!(order["items"][0]["unit_price"], 13.75);
    assert_eq!(order["items"][0]["line_total"], 27.5);
    assert_eq!(order["items"][0]["modifiers"][0]["name"], "Large");
    assert_eq!(order["subtotal"], 27.5);
    assert_eq!(order["tax_amount"], 2.75);
    assert_eq!(order["total_amount"], 30.25);
    assert_eq!(order["balance_due"], 30.25);
    assert_eq!(order["customer"]["name"], "Ada");

    // A later price change does not touch the order.
    app.owner
        .patch(&format!("/menu/items/{item}"), json!({"price": 99}))
        .expect(200);
    let again = app
        .owner
        .get(&format!("/orders/{}", order["id"].as_str().unwrap()))
        .expect(200);
    assert_eq!(again["items"][0]["unit_price"], 13.75);

    let events = app.outbox(&app.tenant_id);
    assert_eq!(events.len(), 1);
    let event = &events[0];
    assert!(event["id"].as_str().unwrap().starts_with("evt_"));
    assert_eq!(event["event"], "order.created");
    assert_eq!(event["tenant_id"], app.tenant_id.as_str());
    assert!(event["created_at"].as_str().unwrap().ends_with('Z'));
    let data = &event["data"]["order"];
    assert_eq!(data["id"], order["id"]);
    assert_eq!(data["order_number"], order["order_number"]);
    assert_eq!(data["status"], "pending");
    assert_eq!(data["order_type"], "takeaway");
    assert_eq!(data["total_amount"], 30.25);
    assert!(data["table_name"].is_null());
    assert_eq!(
        data.as_object().unwrap().len(),
        6,
        "exactly the contract's order fields"
    );
}

#[test]
fn order_numbers_count_up_within_the_business_day() {
    let app = TestApp::spawn();
    let item = app.menu_item(1.0, 0.0);
    let first = app.order(&item, 1)["order_number"]
        .as_str()
        .unwrap()
        .to_string();
    let second = app.order(&item, 1)["order_number"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(&first[..first.len() - 3], &second[..second.len() - 3]);
    assert!(first.ends_with("-001") && second.ends_with("-002"));
}

#[test]
fn three_items_at_ten_cents_with_seven_and_a_half_percent_tax_are_exact() {
    let app = TestApp::spawn();
    let item = app.menu_item(0.10, 7.5);
    let order = order_with(
        &app,
        json!({"order_type": "takeaway", "items": [
            {"menu_item_id": item, "quantity": 1},
            {"menu_item_id": item, "quantity": 1},
            {"menu_item_id": item, "quantity": 1}
        ]}),
    );
    // Tax on the 0.30 sum is 0.0225, rounded half-up to 0.02.
    assert_eq!(order["subtotal"], 0.3);
    assert_eq!(order["tax_amount"], 0.02);
    assert_eq!(order["total_amount"], 0.32);
}

#[test]
fn dine_in_orders_take_the_table_name() {
    let app = TestApp::spawn();
    let item = app.menu_item(5.0, 0.0);
    let table = {
        let db = app.app().db.tenant(app.tenant_id.parse().unwrap()).unwrap();
        db.write(|tx| {
            let now = brigade::time::now_rfc3339();
            tx.execute(
                "INSERT INTO floors (id, name, created_at, updated_at) VALUES ('f1', 'Main', ?1, ?1)",
                [&now],
            )?;
            let id = uuid::Uuid::now_v7().to_string();
            tx.execute(
                "INSERT INTO tables (id, floor_id, name, seats, created_at, updated_at) VALUES (?1, 'f1', 'T9', 4, ?2, ?2)",
                [&id, &now],
            )?;
            Ok(id)
        })
        .unwrap()
    };
    let order = order_with(
        &app,
        json!({"order_type": "dine_in", "table_id": table, "items": [{"menu_item_id": item, "quantity": 1}]}),
    );
    assert_eq!(order["table_name"], "T9");
    assert_eq!(
        app.outbox(&app.tenant_id)[0]["data"]["order"]["table_name"],
        "T9"
    );
    let listed = app
        .owner
        .get(&format!("/orders?table_id={table}"))
        .expect(200);
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    // A takeaway has no table; an unknown table is a field error.
    app.owner
        .post("/orders", json!({"order_type": "takeaway", "table_id": table, "items": [{"menu_item_id": item, "quantity": 1}]}))
        .expect_problem(422, "validation_failed");
    let body = app
        .owner
        .post(
            "/orders",
            json!({"order_type": "dine_in", "table_id": uuid::Uuid::now_v7().to_string(), "items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect_problem(422, "validation_failed");
    assert_eq!(body["errors"][0]["field"], "table_id");
}

#[test]
fn editing_items_recomputes_totals_and_writes_order_updated() {
    let app = TestApp::spawn();
    let item = app.menu_item(4.0, 0.0);
    let order = app.order(&item, 1);
    let id = order["id"].as_str().unwrap();
    let added = app
        .owner
        .post(
            &format!("/orders/{id}/items"),
            json!({"items": [{"menu_item_id": item, "quantity": 2}]}),
        )
        .expect(200);
    assert_eq!(added["total_amount"], 12.0);
    assert_eq!(added["version"], 2);
    let line = added["items"][1]["id"].as_str().unwrap();
    let changed = app
        .owner
        .patch(
            &format!("/orders/{id}/items/{line}"),
            json!({"quantity": 5, "notes": "well done"}),
        )
        .expect(200);
    assert_eq!(changed["total_amount"], 24.0);
    assert_eq!(changed["items"][1]["notes"], "well done");
    let removed = app
        .owner
        .delete(&format!("/orders/{id}/items/{line}"))
        .expect(200);
    assert_eq!(removed["total_amount"], 4.0);
    assert_eq!(removed["items"].as_array().unwrap().len(), 1);
    let patched = app
        .owner
        .patch(
            &format!("/orders/{id}"),
            json!({"notes": "birthday", "customer": {"name": "Bo"}}),
        )
        .expect(200);
    assert_eq!(patched["notes"], "birthday");
    assert_eq!(patched["customer"]["name"], "Bo");
    let cleared = app
        .owner
        .patch(&format!("/orders/{id}"), json!({"notes": null}))
        .expect(200);
    assert!(cleared["notes"].is_null());
    let unchanged = app
        .owner
        .patch(&format!("/orders/{id}"), json!({}))
        .expect(200);
    assert_eq!(
        unchanged["version"], cleared["version"],
        "an empty patch changes nothing"
    );
    let names: Vec<Value> = app
        .outbox(&app.tenant_id)
        .iter()
        .map(|e| e["event"].clone())
        .collect();
    assert_eq!(
        names,
        vec![
            "order.created",
            "order.updated",
            "order.updated",
            "order.updated",
            "order.updated",
            "order.updated"
        ]
    );
    // Unknown line, or a line of another order: 404.
    let other = app.order(&item, 1);
    let other_line = other["items"][0]["id"].as_str().unwrap();
    app.owner
        .delete(&format!("/orders/{id}/items/{other_line}"))
        .expect_problem(404, "not_found");
}

#[test]
fn status_moves_forward_and_each_illegal_move_is_409_naming_the_current_status() {
    let app = TestApp::spawn();
    let item = app.menu_item(3.0, 0.0);
    let id = app.order(&item, 1)["id"].as_str().unwrap().to_string();
    for status in ["confirmed", "preparing", "ready", "served"] {
        assert_eq!(set_status(&app, &id, status).expect(200)["status"], status);
    }
    // Backwards and standing still are refused.
    for status in ["pending", "confirmed", "preparing", "ready", "served"] {
        let body = set_status(&app, &id, status).expect_problem(409, "illegal_transition");
        assert_eq!(body["current_status"], "served");
    }
    let events_before = app.outbox(&app.tenant_id).len();
    app.owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "card", "amount": 3}),
        )
        .expect(201);
    assert_eq!(
        set_status(&app, &id, "completed").expect(200)["status"],
        "completed"
    );
    let events = app.outbox(&app.tenant_id);
    assert_eq!(events.len(), events_before + 2);
    assert_eq!(events.last().unwrap()["event"], "order.completed");
    // Nothing moves out of completed, cancelling included.
    for status in ["pending", "served", "completed", "cancelled"] {
        let body = set_status(&app, &id, status).expect_problem(409, "illegal_transition");
        assert_eq!(body["current_status"], "completed");
    }
    app.owner
        .post(&format!("/orders/{id}/cancel"), json!({}))
        .expect_problem(409, "illegal_transition");
    app.owner
        .post(
            &format!("/orders/{id}/items"),
            json!({"items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect_problem(409, "order_closed");
    assert_eq!(
        app.outbox(&app.tenant_id).len(),
        events.len(),
        "refused changes write no event"
    );
}

#[test]
fn skipping_forward_is_allowed() {
    let app = TestApp::spawn();
    let item = app.menu_item(3.0, 0.0);
    let id = app.order(&item, 1)["id"].as_str().unwrap().to_string();
    assert_eq!(
        set_status(&app, &id, "ready").expect(200)["status"],
        "ready"
    );
}

#[test]
fn cancelling_records_the_reason_and_writes_order_cancelled() {
    let app = TestApp::spawn();
    let item = app.menu_item(3.0, 0.0);
    let id = app.order(&item, 1)["id"].as_str().unwrap().to_string();
    set_status(&app, &id, "preparing").expect(200);
    let cancelled = app
        .owner
        .post(
            &format!("/orders/{id}/cancel"),
            json!({"reason": "customer left"}),
        )
        .expect(200);
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(cancelled["cancel_reason"], "customer left");
    assert!(cancelled["closed_at"].is_string());
    assert_eq!(
        event_names(&app.outbox(&app.tenant_id), &["order."])
            .last()
            .unwrap(),
        "order.cancelled"
    );
    let body = app
        .owner
        .post(&format!("/orders/{id}/cancel"), json!({}))
        .expect_problem(409, "illegal_transition");
    assert_eq!(body["current_status"], "cancelled");
    set_status(&app, &id, "ready").expect_problem(409, "illegal_transition");
}

#[test]
fn lists_filter_and_paginate_newest_first() {
    let app = TestApp::spawn();
    let item = app.menu_item(2.0, 0.0);
    let ids: Vec<String> = (0..5)
        .map(|_| app.order(&item, 1)["id"].as_str().unwrap().to_string())
        .collect();
    set_status(&app, &ids[0], "cancelled").expect(200);
    let page1 = app.owner.get("/orders?limit=2").expect(200);
    assert_eq!(page1["data"][0]["id"], ids[4].as_str());
    assert_eq!(page1["data"].as_array().unwrap().len(), 2);
    let cursor = page1["next_cursor"].as_str().unwrap();
    let page2 = app
        .owner
        .get(&format!("/orders?limit=2&cursor={cursor}"))
        .expect(200);
    assert_eq!(page2["data"][0]["id"], ids[2].as_str());
    let page3 = app
        .owner
        .get(&format!(
            "/orders?limit=2&cursor={}",
            page2["next_cursor"].as_str().unwrap()
        ))
        .expect(200);
    assert_eq!(page3["data"].as_array().unwrap().len(), 1);
    assert!(page3["next_cursor"].is_null());
    let cancelled = app.owner.get("/orders?status=cancelled").expect(200);
    assert_eq!(cancelled["data"].as_array().unwrap().len(), 1);
    assert_eq!(
        app.owner.get("/orders?order_type=delivery").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert_eq!(
        app.owner
            .get("/orders?from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z")
            .expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        2 + 2 + 1
    );
    assert_eq!(
        app.owner.get("/orders?to=2000-01-01T00:00:00Z").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    app.owner
        .get("/orders?status=lost")
        .expect_problem(422, "validation_failed");
    app.owner
        .get("/orders?from=yesterday")
        .expect_problem(422, "validation_failed");
    app.owner
        .get("/orders?limit=0")
        .expect_problem(422, "validation_failed");
    app.owner
        .get("/orders?limit=201")
        .expect_problem(422, "validation_failed");
}

#[test]
fn tenants_see_only_their_own_orders() {
    let app = TestApp::spawn();
    let item = app.menu_item(2.0, 0.0);
    let order = app.order(&item, 1);
    let id = order["id"].as_str().unwrap();
    let (other_id, other) = app.second_tenant("other");
    other
        .get(&format!("/orders/{id}"))
        .expect_problem(404, "not_found");
    other
        .post(
            &format!("/orders/{id}/status"),
            json!({"status": "confirmed"}),
        )
        .expect_problem(404, "not_found");
    other
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "cash", "amount": 2}),
        )
        .expect_problem(404, "not_found");
    assert_eq!(
        other.get("/orders").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    // Another tenant's menu item cannot be ordered.
    let body = other
        .post(
            "/orders",
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect_problem(422, "validation_failed");
    assert_eq!(body["errors"][0]["field"], "items[0].menu_item_id");
    assert!(app.outbox(&other_id).is_empty());
    assert_eq!(
        app.owner.get(&format!("/orders/{id}")).expect(200)["status"],
        "pending"
    );
}

#[test]
fn roles_are_refused_where_the_permission_table_says() {
    let app = TestApp::spawn();
    let item = app.menu_item(2.0, 0.0);
    let id = app.order(&item, 1)["id"].as_str().unwrap().to_string();
    let line = json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]});
    let host = app.user(Role::Host);
    let kitchen = app.user(Role::Kitchen);
    let server = app.user(Role::Server);
    for client in [&host, &kitchen] {
        client
            .post("/orders", line.clone())
            .expect_problem(403, "permission_denied");
        client
            .patch(&format!("/orders/{id}"), json!({"notes": "x"}))
            .expect_problem(403, "permission_denied");
        client
            .post(
                &format!("/orders/{id}/payments"),
                json!({"method": "cash", "amount": 1}),
            )
            .expect_problem(403, "permission_denied");
        client
            .post(&format!("/orders/{id}/cancel"), json!({}))
            .expect_problem(403, "permission_denied");
        client.get(&format!("/orders/{id}")).expect(200);
    }
    host.post(
        &format!("/orders/{id}/status"),
        json!({"status": "confirmed"}),
    )
    .expect_problem(403, "permission_denied");
    server
        .post(&format!("/orders/{id}/cancel"), json!({}))
        .expect_problem(403, "permission_denied");
    server
        .post(
            &format!("/orders/{id}/status"),
            json!({"status": "confirmed"}),
        )
        .expect(200);
    // Kitchen moves orders through preparing and ready only.
    kitchen
        .post(&format!("/orders/{id}/status"), json!({"status": "served"}))
        .expect_problem(403, "permission_denied");
    kitchen
        .post(
            &format!("/orders/{id}/status"),
            json!({"status": "preparing"}),
        )
        .expect(200);
    kitchen
        .post(&format!("/orders/{id}/status"), json!({"status": "ready"}))
        .expect(200);
    let events: Vec<Value> = app
        .outbox(&app.tenant_id)
        .iter()
        .filter(|e| e["event"].as_str().unwrap().starts_with("order."))
        .map(|e| e["event"].clone())
        .collect();
    assert_eq!(
        events.len(),
        4,
        "only the allowed changes wrote events: {events:?}"
    );
}

#[test]
fn unavailable_and_archived_items_and_bad_modifiers_cannot_be_ordered() {
    let app = TestApp::spawn();
    let item = app.menu_item(2.0, 0.0);
    let off = app.menu_item(2.0, 0.0);
    app.owner
        .patch(&format!("/menu/items/{off}"), json!({"available": false}))
        .expect(200);
    let body = app
        .owner
        .post(
            "/orders",
            json!({"order_type": "takeaway", "items": [
                {"menu_item_id": off, "quantity": 1},
                {"menu_item_id": item, "quantity": 1, "modifiers": ["Huge"]},
                {"menu_item_id": item, "quantity": 1, "modifiers": ["Large", "large"]}
            ]}),
        )
        .expect_problem(422, "validation_failed");
    let fields: Vec<&str> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        vec![
            "items[0].menu_item_id",
            "items[1].modifiers[0]",
            "items[2].modifiers[1]"
        ]
    );
    app.owner.delete(&format!("/menu/items/{item}")).expect(204);
    app.owner
        .post(
            "/orders",
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect_problem(422, "validation_failed");
    assert!(app.outbox(&app.tenant_id).is_empty());
}

#[test]
fn idempotent_create_returns_the_first_order_and_creates_nothing() {
    let app = TestApp::spawn();
    let item = app.menu_item(2.0, 0.0);
    let body = json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]});
    let key = [("Idempotency-Key", "pos-7-ticket-42")];
    let first = app.owner.send("POST", "/orders", body.clone(), &key);
    assert!(first.header("idempotent-replayed").is_none());
    let first = first.expect(201);
    let repeat = app.owner.send("POST", "/orders", body.clone(), &key);
    assert_eq!(repeat.header("idempotent-replayed"), Some("true"));
    assert_eq!(repeat.expect(201), first);
    assert_eq!(
        app.owner.get("/orders").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(app.outbox(&app.tenant_id).len(), 1);
    // The same key with another body is a mistake, not a replay.
    let other = json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 2}]});
    app.owner
        .send("POST", "/orders", other, &key)
        .expect_problem(422, "idempotency_key_reused");
    // Keys belong to who sent them: another user's same key is a new order.
    app.user(Role::Cashier)
        .send("POST", "/orders", body, &key)
        .expect(201);
    assert_eq!(
        app.owner.get("/orders").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn concurrent_writes_commit_together_and_a_refused_one_changes_nothing() {
    let app = TestApp::spawn();
    let item = app.menu_item(4.0, 0.0);
    let good = json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]});
    let unknown_item = json!({"order_type": "takeaway",
        "items": [{"menu_item_id": "01900000-0000-7000-8000-000000000000", "quantity": 1}]});
    // 48 requests at once: every third is refused, and requests 4 and 5, and 10
    // and 11, share an Idempotency-Key, so a replay may land in its original's batch.
    let answers: Vec<(usize, u16, Value, bool)> = std::thread::scope(|scope| {
        let requests: Vec<_> = (0..48)
            .map(|i| {
                let (client, good, unknown_item) = (app.owner.clone(), &good, &unknown_item);
                scope.spawn(move || {
                    let body = if i % 3 == 0 { unknown_item } else { good };
                    let key = format!("pair-{}", i / 2);
                    let headers: &[(&str, &str)] = if i < 12 && i % 3 != 0 {
                        &[("Idempotency-Key", key.as_str())]
                    } else {
                        &[]
                    };
                    let res = client.send("POST", "/orders", body.clone(), headers);
                    let replayed = res.header("idempotent-replayed").is_some();
                    (i, res.status, res.body, replayed)
                })
            })
            .collect();
        requests.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let mut created = std::collections::BTreeSet::new();
    for (i, status, body, replayed) in &answers {
        if i % 3 == 0 {
            assert_eq!(*status, 422, "{i}: {body}");
            assert_eq!(body["code"], "validation_failed");
        } else {
            assert_eq!(*status, 201, "{i}: {body}");
            if !replayed {
                assert!(created.insert(body["id"].as_str().unwrap().to_string()));
            }
        }
    }
    // Each pair made one order.
    let replays = answers.iter().filter(|a| a.3).count();
    assert_eq!(replays, 2);
    let listed: std::collections::BTreeSet<String> = app.owner.get("/orders?limit=100").expect(200)
        ["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed, created);
    assert_eq!(listed.len(), 32 - 2);
    let outbox = app.outbox(&app.tenant_id);
    let announced: std::collections::BTreeSet<String> = outbox
        .iter()
        .map(|e| e["data"]["order"]["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(outbox.len(), created.len());
    assert_eq!(announced, created);
    // Order numbers stay unique however the writes were batched.
    let mut numbers: Vec<String> = app.owner.get("/orders?limit=100").expect(200)["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["order_number"].as_str().unwrap().to_string())
        .collect();
    numbers.sort();
    numbers.dedup();
    assert_eq!(numbers.len(), created.len());
}
