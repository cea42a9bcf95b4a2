//! Seating sessions: opening, moving, closing, their orders and events.

use brigade::auth::Role;
use serde_json::{json, Value};

use crate::helpers::{event_names, TestApp};

fn dine_in(app: &TestApp, session: &Value, item: &str) -> Value {
    let order = app
        .owner
        .post(
            "/orders",
            json!({"order_type": "dine_in", "session_id": session["id"], "items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect(201);
    assert_eq!(order["session_id"], session["id"]);
    order
}

#[test]
fn a_session_opens_at_free_tables_and_records_its_event() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[2, 4]);
    let session = app
        .user(Role::Server)
        .post(
            "/sessions",
            json!({"table_ids": [tables[1], tables[0]], "party_size": 5}),
        )
        .expect(201);
    assert_eq!(session["status"], "open");
    assert_eq!(
        session["tables"][0]["name"], "T2",
        "tables keep the order asked"
    );
    let events = app.outbox(&app.tenant_id);
    let created = events
        .iter()
        .find(|e| e["event"] == "session.created")
        .unwrap();
    assert_eq!(
        created["data"]["session"],
        json!({"id": session["id"], "status": "open", "table_ids": [tables[1], tables[0]], "table_names": ["T2", "T1"],
               "party_size": 5, "queue_ticket_id": null, "reservation_id": null,
               "opened_at": session["opened_at"], "closed_at": null})
    );
    let listed = app.owner.get("/sessions?status=open").expect(200);
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    assert_eq!(
        app.owner.get("/sessions?status=closed").expect(200)["data"],
        json!([])
    );
}

#[test]
fn opening_a_session_on_an_occupied_table_is_refused() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4, 4]);
    app.owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect(201);
    let refused = app
        .owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[1], tables[0]], "party_size": 6}),
        )
        .expect_problem(409, "table_occupied");
    assert_eq!(refused["tables"], json!(["T1"]));
    assert_eq!(
        app.owner.get("/sessions").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "nothing opened"
    );
    let events = event_names(&app.outbox(&app.tenant_id), &["session."]);
    assert_eq!(events, ["session.created"]);
}

#[test]
fn bad_session_requests_change_nothing() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4]);
    let unknown = uuid::Uuid::now_v7().to_string();
    for body in [
        json!({"table_ids": [tables[0]], "party_size": 0}),
        json!({"table_ids": [tables[0]], "party_size": 101}),
        json!({"table_ids": [], "party_size": 2}),
        json!({"table_ids": [unknown], "party_size": 2}),
        json!({"table_ids": ["not-a-uuid"], "party_size": 2}),
        json!({"table_ids": [tables[0]], "party_size": "two"}),
        json!({"table_ids": [tables[0]]}),
        json!({"table_ids": [tables[0]], "party_size": 2, "queue_ticket_id": unknown}),
        json!({"table_ids": [tables[0]], "party_size": 2, "reservation_id": unknown}),
    ] {
        app.owner
            .post("/sessions", body)
            .expect_problem(422, "validation_failed");
    }
    app.owner
        .post_raw("/sessions", "application/json", b"{")
        .expect_problem(400, "malformed_json");
    app.owner
        .get(&format!("/sessions/{unknown}"))
        .expect_problem(404, "not_found");
    assert_eq!(app.owner.get("/sessions").expect(200)["data"], json!([]));
    assert!(event_names(&app.outbox(&app.tenant_id), &["session."]).is_empty());
}

#[test]
fn a_session_moves_to_other_free_tables() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[2, 4, 4]);
    let session = app
        .owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect(201);
    let other = app
        .owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[2]], "party_size": 2}),
        )
        .expect(201);
    let id = session["id"].as_str().unwrap();
    app.owner
        .post(
            &format!("/sessions/{id}/move"),
            json!({"table_ids": [tables[2]]}),
        )
        .expect_problem(409, "table_occupied");
    let item = app.menu_item(6.0, 0.0);
    let order = dine_in(&app, &session, &item);
    let moved = app
        .owner
        .post(
            &format!("/sessions/{id}/move"),
            json!({"table_ids": [tables[1]]}),
        )
        .expect(200);
    assert_eq!(moved["tables"], json!([{"id": tables[1], "name": "T2"}]));
    // Its open order follows it, and says so.
    let order = app
        .owner
        .get(&format!("/orders/{}", order["id"].as_str().unwrap()))
        .expect(200);
    assert_eq!(order["table_name"], "T2");
    let last = app.outbox(&app.tenant_id).pop().unwrap();
    assert_eq!(last["event"], "order.updated");
    assert_eq!(last["data"]["order"]["table_name"], "T2");
    // The old table is free again.
    app.owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect(201);
    app.owner
        .post(
            &format!("/sessions/{}/close", other["id"].as_str().unwrap()),
            json!({}),
        )
        .expect(200);
}

#[test]
fn closing_with_an_unpaid_order_is_refused_unless_a_manager_forces_it() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4]);
    let item = app.menu_item(10.0, 0.0);
    let session = app
        .owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect(201);
    let id = session["id"].as_str().unwrap();
    let order = dine_in(&app, &session, &item);
    assert_eq!(order["table_name"], "T1");
    assert_eq!(order["table_id"], tables[0].as_str());
    let shown = app.owner.get(&format!("/sessions/{id}")).expect(200);
    assert_eq!(shown["orders"][0]["id"], order["id"]);
    assert_eq!(shown["orders"][0]["balance_due"], 10.0);

    let refused = app
        .owner
        .post(&format!("/sessions/{id}/close"), json!({}))
        .expect_problem(409, "unpaid_orders");
    assert_eq!(refused["current_status"], "open");
    let server = app.user(Role::Server);
    server
        .post(&format!("/sessions/{id}/close"), json!({"force": true}))
        .expect_problem(403, "permission_denied");
    assert_eq!(
        app.owner.get(&format!("/sessions/{id}")).expect(200)["status"],
        "open"
    );

    let closed = app
        .user(Role::Manager)
        .post(&format!("/sessions/{id}/close"), json!({"force": true}))
        .expect(200);
    assert_eq!(closed["status"], "closed");
    assert_eq!(
        closed["tables"][0]["name"], "T1",
        "a closed session remembers where it sat"
    );
    let again = app
        .owner
        .post(&format!("/sessions/{id}/close"), json!({}))
        .expect_problem(409, "illegal_transition");
    assert_eq!(again["current_status"], "closed");
    app.owner
        .post(
            &format!("/sessions/{id}/move"),
            json!({"table_ids": [tables[0]]}),
        )
        .expect_problem(409, "illegal_transition");
    // A closed session takes no more orders.
    app.owner
        .post(
            "/orders",
            json!({"order_type": "dine_in", "session_id": id, "items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect_problem(409, "session_closed");
    let closed_event = app
        .outbox(&app.tenant_id)
        .into_iter()
        .find(|e| e["event"] == "session.closed")
        .unwrap();
    assert_eq!(closed_event["data"]["session"]["status"], "closed");
    assert_eq!(
        closed_event["data"]["session"]["closed_at"],
        closed["closed_at"]
    );
}

#[test]
fn a_paid_session_closes_without_force() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4]);
    let item = app.menu_item(8.0, 0.0);
    let session = app
        .owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect(201);
    let order = dine_in(&app, &session, &item);
    app.owner
        .post(
            &format!("/orders/{}/payments", order["id"].as_str().unwrap()),
            json!({"method": "card", "amount": 8.0}),
        )
        .expect(201);
    app.owner
        .post(
            &format!("/sessions/{}/close", session["id"].as_str().unwrap()),
            json!({}),
        )
        .expect(200);
}

#[test]
fn orders_in_sessions_must_be_dine_in_and_sessions_of_this_tenant() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4]);
    let item = app.menu_item(8.0, 0.0);
    let session = app
        .owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect(201);
    app.owner
        .post(
            "/orders",
            json!({"order_type": "takeaway", "session_id": session["id"], "items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect_problem(422, "validation_failed");
    let (other_tenant, other) = app.second_tenant("elsewhere");
    let other_item = app.menu_item_for(&other, 5.0, 0.0);
    other
        .post(
            "/orders",
            json!({"order_type": "dine_in", "session_id": session["id"], "items": [{"menu_item_id": other_item, "quantity": 1}]}),
        )
        .expect_problem(422, "validation_failed");
    other
        .get(&format!("/sessions/{}", session["id"].as_str().unwrap()))
        .expect_problem(404, "not_found");
    assert!(app.outbox(&other_tenant).is_empty());
}

#[test]
fn kitchen_and_cashiers_may_not_seat_guests() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4]);
    let body = json!({"table_ids": [tables[0]], "party_size": 2});
    app.user(Role::Kitchen)
        .post("/sessions", body.clone())
        .expect_problem(403, "permission_denied");
    app.user(Role::Cashier)
        .post("/sessions", body.clone())
        .expect_problem(403, "permission_denied");
    app.user(Role::Kitchen)
        .get("/sessions")
        .expect_problem(403, "permission_denied");
    app.user(Role::Host).post("/sessions", body).expect(201);
}

#[test]
fn a_repeated_open_with_the_same_idempotency_key_opens_one_session() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4]);
    let body = json!({"table_ids": [tables[0]], "party_size": 2});
    let key = [("Idempotency-Key", "tap-1")];
    let first = app
        .owner
        .send("POST", "/sessions", body.clone(), &key)
        .expect(201);
    let again = app.owner.send("POST", "/sessions", body, &key);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.expect(201)["id"], first["id"]);
    assert_eq!(
        event_names(&app.outbox(&app.tenant_id), &["session."]),
        ["session.created"]
    );
}

/// Completing the queue ticket is a reaction to `session.closed`, run in the
/// same transaction: when it fails, the close is undone with it.
#[test]
fn a_failing_reaction_rolls_back_the_change_that_triggered_it() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4]);
    let ticket = app
        .owner
        .post("/queue", json!({"name": "Grace", "party_size": 3}))
        .expect(201);
    let ticket_id = ticket["id"].as_str().unwrap();
    let session = app
        .owner
        .post(
            &format!("/queue/{ticket_id}/seat"),
            json!({"table_ids": [tables[0]]}),
        )
        .expect(201);
    let session_id = session["id"].as_str().unwrap();
    // Make the reaction fail: the file refuses to complete any queue ticket.
    app.tenant_file()
        .execute_batch(
            "CREATE TRIGGER refuse_completion BEFORE UPDATE OF status ON queue_tickets \
             WHEN NEW.status = 'completed' BEGIN SELECT RAISE(ABORT, 'refused'); END;",
        )
        .unwrap();

    let refused = app
        .owner
        .post(&format!("/sessions/{session_id}/close"), json!({}));
    assert_eq!(refused.status, 500, "{}", refused.body);
    let after = app
        .owner
        .get(&format!("/sessions/{session_id}"))
        .expect(200);
    assert_eq!(after["status"], "open", "the close rolled back");
    assert_eq!(after["closed_at"], Value::Null);
    let ticket = app.owner.get(&format!("/queue/{ticket_id}")).expect(200);
    assert_eq!(ticket["status"], "seated");
    assert_eq!(
        event_names(&app.outbox(&app.tenant_id), &["session."]),
        ["session.created"],
        "no session.closed event was kept"
    );
    let seatmap = app.owner.get("/tables/seatmap").expect(200);
    assert_eq!(seatmap["floors"][0]["tables"][0]["state"], "occupied");
}

#[test]
fn a_server_seats_walk_ins_but_not_from_the_queue_or_a_reservation() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4, 4, 4]);
    app.open_for_bookings(20, 8);
    let ticket = app
        .owner
        .post("/queue", json!({"name": "Ada", "party_size": 2}))
        .expect(201);
    let (_, starts_at) = crate::helpers::next_week_at_seven();
    let reservation = app
        .owner
        .post(
            "/reservations",
            json!({"name": "Grace", "phone": "555", "party_size": 2, "starts_at": starts_at}),
        )
        .expect(201);
    let server = app.user(Role::Server);
    server
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2, "queue_ticket_id": ticket["id"]}),
        )
        .expect_problem(403, "permission_denied");
    server
        .post(
            "/sessions",
            json!({"table_ids": [tables[1]], "party_size": 2, "reservation_id": reservation["id"]}),
        )
        .expect_problem(403, "permission_denied");
    let ticket_id = ticket["id"].as_str().unwrap();
    assert_eq!(
        app.owner.get(&format!("/queue/{ticket_id}")).expect(200)["status"],
        "waiting"
    );
    server
        .post(
            "/sessions",
            json!({"table_ids": [tables[2]], "party_size": 2}),
        )
        .expect(201);
    app.user(Role::Host)
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2, "queue_ticket_id": ticket["id"]}),
        )
        .expect(201);
}
