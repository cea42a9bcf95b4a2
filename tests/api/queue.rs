//! The waitlist: numbering, positions, estimates, moves and seating.

use brigade::auth::Role;
use serde_json::json;

use crate::helpers::{event_names, TestApp};

#[test]
fn tickets_are_numbered_for_the_day_with_positions_and_estimates() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[4]);
    let host = app.user(Role::Host);
    let first = host
        .post(
            "/queue",
            json!({"name": "Lovelace", "party_size": 2, "phone": "555-0101"}),
        )
        .expect(201);
    let second = host
        .post("/queue", json!({"name": "Hopper", "party_size": 4}))
        .expect(201);
    assert_eq!(first["number"], "Q-001");
    assert_eq!(second["number"], "Q-002");
    assert_eq!(first["status"], "waiting");
    assert_eq!(
        (first["position"].as_i64(), second["position"].as_i64()),
        (Some(1), Some(2))
    );
    assert!(first["tracking_token"].as_str().unwrap().len() >= 32);
    // One free table: the first party sits now, the second waits one turn (the
    // documented fallback of 45 minutes without history).
    assert_eq!(first["quoted_wait_minutes"], 0);
    assert_eq!(second["quoted_wait_minutes"], 45);
    let listed = host.get("/queue").expect(200);
    assert_eq!(listed["data"].as_array().unwrap().len(), 2);
    assert!(
        listed["data"][0].get("tracking_token").is_none(),
        "the token is shown once"
    );
    // Cancelling the first moves the second up.
    host.post(
        &format!("/queue/{}/cancel", first["id"].as_str().unwrap()),
        json!({}),
    )
    .expect(200);
    let second_now = host
        .get(&format!("/queue/{}", second["id"].as_str().unwrap()))
        .expect(200);
    assert_eq!(second_now["position"], 1);
    assert_eq!(second_now["estimated_wait_minutes"], 0);
    assert_eq!(
        host.get("/queue?status=cancelled").expect(200)["data"][0]["id"],
        first["id"]
    );
}

#[test]
fn a_couple_does_not_wait_behind_a_large_party_for_another_table() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[2, 8]);
    let host = app.user(Role::Host);
    // The eight-top is taken; a party of eight waits for it.
    host.post(
        "/sessions",
        json!({"table_ids": [tables[1]], "party_size": 7}),
    )
    .expect(201);
    let eight = host
        .post("/queue", json!({"name": "Big table", "party_size": 8}))
        .expect(201);
    assert_eq!(eight["quoted_wait_minutes"], 45);
    // The two-top is free and the party of eight cannot use it.
    let couple = host
        .post("/queue", json!({"name": "Couple", "party_size": 2}))
        .expect(201);
    assert_eq!(couple["position"], 2);
    assert_eq!(couple["quoted_wait_minutes"], 0);
    // A second couple waits for whichever table frees first after the first couple.
    let next = host
        .post("/queue", json!({"name": "Next couple", "party_size": 2}))
        .expect(201);
    assert_eq!(next["quoted_wait_minutes"], 45);
}

#[test]
fn estimates_come_from_recent_table_turns() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4]);
    // The only table is taken: a new party waits until it turns.
    let session = app
        .owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect(201);
    let waiting = app
        .owner
        .post("/queue", json!({"name": "Turing", "party_size": 2}))
        .expect(201);
    assert_eq!(
        waiting["quoted_wait_minutes"], 45,
        "no history: the fallback turn"
    );
    // A session closed at once teaches a turn of about a minute.
    app.owner
        .post(
            &format!("/sessions/{}/close", session["id"].as_str().unwrap()),
            json!({}),
        )
        .expect(200);
    app.owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect(201);
    let later = app
        .owner
        .get(&format!("/queue/{}", waiting["id"].as_str().unwrap()))
        .expect(200);
    assert!(
        later["estimated_wait_minutes"].as_i64().unwrap() <= 1,
        "{later}"
    );
}

#[test]
fn a_ticket_is_called_seated_and_completed_when_its_session_closes() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4]);
    let ticket = app
        .owner
        .post("/queue", json!({"name": "Curie", "party_size": 3}))
        .expect(201);
    let id = ticket["id"].as_str().unwrap();
    assert_eq!(
        app.owner
            .post(&format!("/queue/{id}/call"), json!({}))
            .expect(200)["status"],
        "called"
    );
    let again = app
        .owner
        .post(&format!("/queue/{id}/call"), json!({}))
        .expect_problem(409, "illegal_transition");
    assert_eq!(again["current_status"], "called");
    let session = app
        .owner
        .post(
            &format!("/queue/{id}/seat"),
            json!({"table_ids": [tables[0]]}),
        )
        .expect(201);
    assert_eq!(session["queue_ticket_id"], id);
    assert_eq!(session["party_size"], 3);
    let seated = app.owner.get(&format!("/queue/{id}")).expect(200);
    assert_eq!(
        (seated["status"].as_str(), seated["session_id"].as_str()),
        (Some("seated"), session["id"].as_str())
    );
    for verb in ["call", "cancel", "no-show"] {
        let refused = app
            .owner
            .post(&format!("/queue/{id}/{verb}"), json!({}))
            .expect_problem(409, "illegal_transition");
        assert_eq!(refused["current_status"], "seated");
    }
    app.owner
        .post(
            &format!("/sessions/{}/close", session["id"].as_str().unwrap()),
            json!({}),
        )
        .expect(200);
    assert_eq!(
        app.owner.get(&format!("/queue/{id}")).expect(200)["status"],
        "completed"
    );
    let closed = app
        .outbox(&app.tenant_id)
        .into_iter()
        .find(|e| e["event"] == "session.closed")
        .unwrap();
    assert_eq!(closed["data"]["session"]["queue_ticket_id"], id);
}

#[test]
fn seating_a_ticket_at_an_occupied_table_changes_nothing() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4]);
    app.owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect(201);
    let ticket = app
        .owner
        .post("/queue", json!({"name": "Noether", "party_size": 2}))
        .expect(201);
    let id = ticket["id"].as_str().unwrap();
    app.owner
        .post(
            &format!("/queue/{id}/seat"),
            json!({"table_ids": [tables[0]]}),
        )
        .expect_problem(409, "table_occupied");
    assert_eq!(
        app.owner.get(&format!("/queue/{id}")).expect(200)["status"],
        "waiting"
    );
    assert_eq!(
        event_names(&app.outbox(&app.tenant_id), &["session."]),
        ["session.created"]
    );
    app.owner
        .post(&format!("/queue/{id}/no-show"), json!({}))
        .expect(200);
    app.owner
        .post(
            &format!("/queue/{id}/seat"),
            json!({"table_ids": [tables[0]]}),
        )
        .expect_problem(409, "illegal_transition");
}

#[test]
fn bad_queue_requests_are_refused() {
    let app = TestApp::spawn();
    for body in [
        json!({"name": "A", "party_size": 0}),
        json!({"name": "A", "party_size": 101}),
        json!({"name": "", "party_size": 2}),
        json!({"party_size": 2}),
        json!({"name": "A", "party_size": 2, "vip": true}),
    ] {
        app.owner
            .post("/queue", body)
            .expect_problem(422, "validation_failed");
    }
    app.owner
        .get("/queue?status=lost")
        .expect_problem(422, "validation_failed");
    let unknown = uuid::Uuid::now_v7();
    app.owner
        .post(&format!("/queue/{unknown}/call"), json!({}))
        .expect_problem(404, "not_found");
    app.owner
        .get("/queue/nope")
        .expect_problem(404, "not_found");
    assert_eq!(app.owner.get("/queue").expect(200)["data"], json!([]));
    let ticket = app
        .owner
        .post("/queue", json!({"name": "Mine", "party_size": 2}))
        .expect(201);
    let (_, other) = app.second_tenant("other-queue");
    other
        .post(
            &format!("/queue/{}/call", ticket["id"].as_str().unwrap()),
            json!({}),
        )
        .expect_problem(404, "not_found");
}

#[test]
fn servers_and_kitchen_may_not_run_the_queue() {
    let app = TestApp::spawn();
    let body = json!({"name": "A", "party_size": 2});
    app.user(Role::Server)
        .post("/queue", body.clone())
        .expect_problem(403, "permission_denied");
    app.user(Role::Kitchen)
        .post("/queue", body.clone())
        .expect_problem(403, "permission_denied");
    app.user(Role::Manager).post("/queue", body).expect(201);
}
