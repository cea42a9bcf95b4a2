//! Customer routes without staff login: queue tracking, availability, booking.

use serde_json::json;

use crate::helpers::{event_names, next_week_at_seven, Client, TestApp};

#[test]
fn a_guest_tracks_a_ticket_by_its_token_and_sees_nothing_personal() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[4]);
    app.owner
        .post(
            "/queue",
            json!({"name": "First", "party_size": 4, "phone": "555-0001"}),
        )
        .expect(201);
    let ticket = app
        .owner
        .post(
            "/queue",
            json!({"name": "Ada Lovelace", "party_size": 2, "phone": "555-0123", "notes": "pram"}),
        )
        .expect(201);
    let token = ticket["tracking_token"].as_str().unwrap();
    let guest = Client::anonymous(&app.base);
    let seen = guest
        .get(&format!("/public/test-bistro/queue/{token}"))
        .expect(200);
    assert_eq!(
        seen,
        json!({"number": "Q-002", "status": "waiting", "position": 2, "estimated_wait_minutes": 45})
    );
    app.owner
        .post(
            &format!("/queue/{}/call", ticket["id"].as_str().unwrap()),
            json!({}),
        )
        .expect(200);
    let called = guest
        .get(&format!("/public/test-bistro/queue/{token}"))
        .expect(200);
    assert_eq!(called["status"], "called");
    guest
        .get("/public/test-bistro/queue/not-a-real-token")
        .expect_problem(404, "not_found");
}

#[test]
fn another_tenants_slug_does_not_find_the_ticket_and_unknown_slugs_are_404() {
    let app = TestApp::spawn();
    let ticket = app
        .owner
        .post("/queue", json!({"name": "Ada", "party_size": 2}))
        .expect(201);
    let token = ticket["tracking_token"].as_str().unwrap();
    app.second_tenant("other-bistro");
    let guest = Client::anonymous(&app.base);
    guest
        .get(&format!("/public/other-bistro/queue/{token}"))
        .expect_problem(404, "not_found");
    guest
        .get(&format!("/public/no-such-place/queue/{token}"))
        .expect_problem(404, "not_found");
    guest
        .get("/public/no-such-place/availability?date=2030-01-01&party_size=2")
        .expect_problem(404, "not_found");
}

#[test]
fn a_guest_books_a_pending_reservation_from_public_availability() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[4, 4]);
    app.open_for_bookings(6, 6);
    let (date, starts_at) = next_week_at_seven();
    let guest = Client::anonymous(&app.base);
    let available = guest
        .get(&format!(
            "/public/test-bistro/availability?date={date}&party_size=2"
        ))
        .expect(200);
    assert!(available["slots"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["starts_at"] == starts_at.as_str()));
    let receipt = guest
        .post(
            "/public/test-bistro/reservations",
            json!({"name": "Guest", "phone": "555-0111", "email": "g@example.com", "party_size": 2, "starts_at": starts_at}),
        )
        .expect(201);
    assert_eq!(
        receipt,
        json!({"id": receipt["id"], "status": "pending", "party_size": 2, "starts_at": starts_at})
    );
    let stored = app
        .owner
        .get(&format!(
            "/reservations/{}",
            receipt["id"].as_str().unwrap()
        ))
        .expect(200);
    assert_eq!(stored["source"], "customer");
    assert_eq!(stored["phone"], "555-0111");
    // Availability shows covers, never who booked them.
    let after = guest
        .get(&format!(
            "/public/test-bistro/availability?date={date}&party_size=2"
        ))
        .expect(200);
    assert!(!after.to_string().contains("Guest") && !after.to_string().contains("555-0111"));
    let event = app
        .outbox(&app.tenant_id)
        .into_iter()
        .find(|e| e["event"] == "reservation.created")
        .unwrap();
    assert_eq!(event["data"]["reservation"]["source"], "customer");
}

#[test]
fn public_bookings_follow_auto_confirm_and_the_slot_rules() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[4]);
    app.open_for_bookings(4, 4);
    app.owner
        .patch("/settings", json!({"auto_confirm_reservations": true}))
        .expect(200);
    let (_, starts_at) = next_week_at_seven();
    let guest = Client::anonymous(&app.base);
    let booking = |party: i64| json!({"name": "G", "phone": "1", "party_size": party, "starts_at": starts_at});
    assert_eq!(
        guest
            .post("/public/test-bistro/reservations", booking(3))
            .expect(201)["status"],
        "confirmed"
    );
    guest
        .post("/public/test-bistro/reservations", booking(2))
        .expect_problem(409, "slot_full");
    guest
        .post("/public/test-bistro/reservations", booking(5))
        .expect_problem(422, "validation_failed");
    guest
        .post("/public/test-bistro/reservations", booking(0))
        .expect_problem(422, "validation_failed");
    guest
        .post("/public/test-bistro/reservations", json!({"name": "G", "phone": "1", "party_size": 2, "starts_at": starts_at, "table_ids": []}))
        .expect_problem(422, "validation_failed");
    guest
        .post_raw("/public/test-bistro/reservations", "application/json", b"[")
        .expect_problem(400, "malformed_json");
    assert_eq!(
        event_names(&app.outbox(&app.tenant_id), &["reservation."]),
        ["reservation.created", "reservation.confirmed"]
    );
    guest
        .post("/public/other/reservations", booking(1))
        .expect_problem(404, "not_found");
}

#[test]
fn public_routes_are_rate_limited_per_client_address() {
    let app = TestApp::spawn_with(|config| config.public_requests_per_minute = 3);
    let guest = Client::anonymous(&app.base);
    for _ in 0..2 {
        guest
            .get("/public/test-bistro/queue/unknown")
            .expect_problem(404, "not_found");
    }
    // A broken body counts too: the allowance is checked before the body is read.
    guest
        .post_raw("/public/test-bistro/reservations", "application/json", b"{")
        .expect_problem(400, "malformed_json");
    let limited = guest.get("/public/no-such-place/availability?date=2030-01-01&party_size=2");
    assert!(limited.header("retry-after").is_some());
    limited.expect_problem(429, "rate_limited");
}
