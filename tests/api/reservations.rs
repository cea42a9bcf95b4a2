//! Reservations: time slots, availability, the lifecycle, the guest journey and
//! automatic no-shows.

use brigade::auth::Role;
use chrono::{Duration, Utc};
use serde_json::{json, Value};

use crate::helpers::{event_names, next_week_at_seven, TestApp};

fn book(app: &TestApp, starts_at: &str, party_size: i64) -> Value {
    app.owner
        .post(
            "/reservations",
            json!({"name": "Grace", "phone": "555-0199", "email": "grace@example.com", "party_size": party_size,
                   "starts_at": starts_at}),
        )
        .expect(201)
}

fn post(app: &TestApp, path: &str, body: Value) -> Value {
    app.owner.post(path, body).expect(200)
}

#[test]
fn the_whole_guest_journey_is_traceable_in_the_outbox() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4, 2]);
    app.open_for_bookings(20, 8);
    let item = app.menu_item(30.0, 0.0);
    let (_, starts_at) = next_week_at_seven();
    let reservation = book(&app, &starts_at, 3);
    assert_eq!(reservation["status"], "pending");
    assert_eq!(reservation["source"], "staff");
    let id = reservation["id"].as_str().unwrap();
    post(&app, &format!("/reservations/{id}/confirm"), json!({}));
    let checked_in = post(
        &app,
        &format!("/reservations/{id}/check-in"),
        json!({"mode": "seat", "table_ids": [tables[0]]}),
    );
    let session = &checked_in["session"];
    assert_eq!(checked_in["reservation"]["status"], "checked_in");
    assert_eq!(checked_in["reservation"]["session_id"], session["id"]);
    assert_eq!(session["reservation_id"], id);
    assert_eq!(session["party_size"], 3);
    let order = app
        .owner
        .post(
            "/orders",
            json!({"order_type": "dine_in", "session_id": session["id"], "items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect(201);
    assert_eq!(order["table_name"], "T1");
    let order_id = order["id"].as_str().unwrap();
    app.owner
        .post(
            &format!("/orders/{order_id}/payments"),
            json!({"method": "card", "amount": 30.0}),
        )
        .expect(201);
    post(
        &app,
        &format!("/orders/{order_id}/status"),
        json!({"status": "completed"}),
    );
    let closed = post(
        &app,
        &format!("/sessions/{}/close", session["id"].as_str().unwrap()),
        json!({}),
    );
    assert_eq!(closed["status"], "closed");
    let finished = app.owner.get(&format!("/reservations/{id}")).expect(200);
    assert_eq!(finished["status"], "completed");

    let outbox = app.outbox(&app.tenant_id);
    assert_eq!(
        event_names(&outbox, &["reservation.", "session.", "order."]),
        [
            "reservation.created",
            "reservation.confirmed",
            "reservation.checked_in",
            "session.created",
            "order.created",
            "order.updated",
            "order.completed",
            "session.closed",
            "reservation.completed"
        ]
    );
    let completed = outbox.last().unwrap();
    assert_eq!(
        completed["data"]["reservation"],
        json!({"id": id, "status": "completed", "name": "Grace", "party_size": 3, "starts_at": starts_at,
               "table_ids": [], "queue_ticket_id": null, "session_id": session["id"], "source": "staff"})
    );
    let closed_event = &outbox[outbox.len() - 2]["data"]["session"];
    assert_eq!(closed_event["reservation_id"], id);
    assert_eq!(closed_event["table_names"], json!(["T1"]));
}

#[test]
fn checking_in_to_the_queue_then_seating_from_it_links_everything() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4]);
    app.open_for_bookings(20, 8);
    let (_, starts_at) = next_week_at_seven();
    let id = book(&app, &starts_at, 2)["id"]
        .as_str()
        .unwrap()
        .to_string();
    post(&app, &format!("/reservations/{id}/confirm"), json!({}));
    let checked_in = post(
        &app,
        &format!("/reservations/{id}/check-in"),
        json!({"mode": "queue"}),
    );
    let ticket = &checked_in["queue_ticket"];
    assert_eq!(ticket["status"], "waiting");
    assert_eq!(ticket["reservation_id"], id.as_str());
    assert_eq!(ticket["name"], "Grace");
    assert_eq!(checked_in["reservation"]["queue_ticket_id"], ticket["id"]);
    let ticket_id = ticket["id"].as_str().unwrap();
    let session = app
        .owner
        .post(
            &format!("/queue/{ticket_id}/seat"),
            json!({"table_ids": [tables[0]]}),
        )
        .expect(201);
    assert_eq!(session["reservation_id"], id.as_str());
    assert_eq!(session["queue_ticket_id"], ticket_id);
    let seated = app.owner.get(&format!("/reservations/{id}")).expect(200);
    assert_eq!(
        (seated["status"].as_str(), &seated["session_id"]),
        (Some("checked_in"), &session["id"])
    );
    post(
        &app,
        &format!("/sessions/{}/close", session["id"].as_str().unwrap()),
        json!({}),
    );
    assert_eq!(
        app.owner.get(&format!("/queue/{ticket_id}")).expect(200)["status"],
        "completed"
    );
    assert_eq!(
        app.owner.get(&format!("/reservations/{id}")).expect(200)["status"],
        "completed"
    );
    assert_eq!(
        event_names(&app.outbox(&app.tenant_id), &["reservation.", "session."]),
        [
            "reservation.created",
            "reservation.confirmed",
            "reservation.checked_in",
            "session.created",
            "session.closed",
            "reservation.completed"
        ]
    );
}

#[test]
fn illegal_reservation_moves_are_refused_with_the_current_status() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[4]);
    app.open_for_bookings(20, 8);
    let (_, starts_at) = next_week_at_seven();
    let id = book(&app, &starts_at, 2)["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (verb, body) in [
        ("complete", json!({})),
        ("check-in", json!({"mode": "queue"})),
    ] {
        let refused = app
            .owner
            .post(&format!("/reservations/{id}/{verb}"), body)
            .expect_problem(409, "illegal_transition");
        assert_eq!(refused["current_status"], "pending");
    }
    let cancelled = post(
        &app,
        &format!("/reservations/{id}/cancel"),
        json!({"by": "customer", "reason": "ill"}),
    );
    assert_eq!(cancelled["cancelled_by"], "customer");
    for verb in ["confirm", "no-show", "complete"] {
        let refused = app
            .owner
            .post(&format!("/reservations/{id}/{verb}"), json!({}))
            .expect_problem(409, "illegal_transition");
        assert_eq!(refused["current_status"], "cancelled");
    }
    app.owner
        .patch(&format!("/reservations/{id}"), json!({"party_size": 3}))
        .expect_problem(409, "reservation_closed");
    let events = app.outbox(&app.tenant_id);
    let cancelled_event = events
        .iter()
        .find(|e| e["event"] == "reservation.cancelled")
        .unwrap();
    assert_eq!(
        cancelled_event["data"]["reservation"]["cancelled_by"],
        "customer"
    );
    assert_eq!(
        event_names(&events, &["reservation."]),
        ["reservation.created", "reservation.cancelled"]
    );
}

#[test]
fn availability_shrinks_as_bookings_fill_a_slot_and_an_over_capacity_booking_is_refused() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[4, 4, 4]);
    app.open_for_bookings(6, 6);
    let (date, starts_at) = next_week_at_seven();
    let slot_covers = |party: i64| -> Option<i64> {
        let available = app
            .owner
            .get(&format!(
                "/reservations/availability?date={date}&party_size={party}"
            ))
            .expect(200);
        available["slots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["starts_at"] == starts_at.as_str())
            .map(|s| s["remaining_covers"].as_i64().unwrap())
    };
    assert_eq!(slot_covers(2), Some(6));
    book(&app, &starts_at, 4);
    assert_eq!(slot_covers(2), Some(2));
    assert_eq!(slot_covers(3), None, "a party of 3 no longer fits");
    let refused = app
        .owner
        .post(
            "/reservations",
            json!({"name": "Late", "phone": "1", "party_size": 3, "starts_at": starts_at}),
        )
        .expect_problem(409, "slot_full");
    assert_eq!(refused["remaining_covers"], 2);
    book(&app, &starts_at, 2);
    assert_eq!(slot_covers(1), None);
    // The next slot still has covers, but the room's 12 seats are partly held by
    // the overlapping stays of the first slot.
    let next = (chrono::DateTime::parse_from_rfc3339(&starts_at).unwrap() + Duration::minutes(30))
        .with_timezone(&Utc)
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let available = app
        .owner
        .get(&format!(
            "/reservations/availability?date={date}&party_size=1"
        ))
        .expect(200);
    let next_slot = available["slots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["starts_at"] == next.as_str())
        .unwrap();
    assert_eq!(next_slot["remaining_covers"], 6);
    assert_eq!(
        app.owner.get("/reservations?status=pending").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        app.owner
            .get(&format!("/reservations?date={date}"))
            .expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn staff_can_book_outside_the_rules_and_guests_cannot() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[4, 4, 4, 4]);
    app.open_for_bookings(4, 4);
    let (date, starts_at) = next_week_at_seven();
    let booking = |party_size: i64, at: &str, outside_rules: Option<bool>| {
        let mut body =
            json!({"name": "Ada", "phone": "555", "party_size": party_size, "starts_at": at});
        if let Some(outside) = outside_rules {
            body["outside_rules"] = json!(outside);
        }
        body
    };
    // A party larger than the day allows, and a time between slots.
    let off_slot = starts_at.replace("T19:00", "T19:10");
    for (party, at) in [(6, starts_at.as_str()), (2, off_slot.as_str())] {
        let refused = app
            .owner
            .post("/reservations", booking(party, at, Some(false)))
            .expect_problem(422, "validation_failed");
        assert!(refused["errors"][0]["field"].as_str().is_some());
        app.owner
            .post("/reservations", booking(party, at, Some(true)))
            .expect(201);
    }
    let mut wrong_type = booking(6, &starts_at, None);
    wrong_type["outside_rules"] = json!("yes");
    app.owner
        .post("/reservations", wrong_type)
        .expect_problem(422, "validation_failed");
    // The large party fills the 19:00 slot for everyone else.
    app.owner
        .post("/reservations", booking(2, &starts_at, None))
        .expect_problem(409, "slot_full");
    let available = app
        .owner
        .get(&format!(
            "/reservations/availability?date={date}&party_size=1"
        ))
        .expect(200);
    assert!(!available["slots"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["starts_at"] == starts_at.as_str()));
    // Guests cannot ask for it.
    let guest = crate::helpers::Client::anonymous(&app.base);
    let eight = starts_at.replace("T19:00", "T20:00");
    let refused = guest
        .post(
            "/public/test-bistro/reservations",
            booking(2, &eight, Some(true)),
        )
        .expect_problem(422, "validation_failed");
    assert!(refused["detail"]
        .as_str()
        .unwrap()
        .contains("outside_rules"));
    guest
        .post("/public/test-bistro/reservations", booking(2, &eight, None))
        .expect(201);
    // A closed day: no rules at all for it.
    app.owner
        .put("/reservations/time-slots", json!({"days": []}))
        .expect(200);
    app.owner
        .post("/reservations", booking(2, &starts_at, None))
        .expect_problem(422, "validation_failed");
    let moved = app
        .owner
        .post("/reservations", booking(2, &off_slot, Some(true)))
        .expect(201);
    // It is 90 minutes long when the day has no rules to say otherwise.
    let ends = chrono::DateTime::parse_from_rfc3339(moved["ends_at"].as_str().unwrap()).unwrap()
        - chrono::DateTime::parse_from_rfc3339(moved["starts_at"].as_str().unwrap()).unwrap();
    assert_eq!(ends, Duration::minutes(90));
    // Changing a booking may go outside the rules the same way.
    let id = moved["id"].as_str().unwrap();
    app.owner
        .patch(&format!("/reservations/{id}"), json!({"party_size": 10}))
        .expect_problem(422, "validation_failed");
    assert_eq!(
        app.owner
            .patch(
                &format!("/reservations/{id}"),
                json!({"party_size": 10, "outside_rules": true})
            )
            .expect(200)["party_size"],
        10
    );
}

#[test]
fn table_capacity_limits_overlapping_bookings() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[4]);
    app.open_for_bookings(20, 8);
    let (_, starts_at) = next_week_at_seven();
    book(&app, &starts_at, 4);
    let next = (chrono::DateTime::parse_from_rfc3339(&starts_at).unwrap() + Duration::minutes(60))
        .with_timezone(&Utc)
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    app.owner
        .post(
            "/reservations",
            json!({"name": "B", "phone": "1", "party_size": 2, "starts_at": next}),
        )
        .expect_problem(409, "slot_full");
}

#[test]
fn bad_bookings_are_refused_and_change_nothing() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[4]);
    app.open_for_bookings(20, 6);
    let (date, starts_at) = next_week_at_seven();
    let past = (Utc::now() - Duration::days(2))
        .format("%Y-%m-%dT19:00:00.000Z")
        .to_string();
    let off_slot = starts_at.replace("19:00:00", "19:10:00");
    let unknown = uuid::Uuid::now_v7().to_string();
    for body in [
        json!({"name": "A", "phone": "1", "party_size": 2, "starts_at": past}),
        json!({"name": "A", "phone": "1", "party_size": 0, "starts_at": starts_at}),
        json!({"name": "A", "phone": "1", "party_size": 7, "starts_at": starts_at}),
        json!({"name": "A", "phone": "1", "party_size": 2, "starts_at": off_slot}),
        json!({"name": "A", "phone": "1", "party_size": 2, "starts_at": "tomorrow"}),
        json!({"name": "A", "phone": "1", "party_size": 2, "starts_at": starts_at, "table_ids": [unknown]}),
        json!({"name": "A", "phone": "1", "party_size": 2, "starts_at": starts_at, "email": "nope"}),
        json!({"name": "A", "party_size": 2, "starts_at": starts_at}),
    ] {
        app.owner
            .post("/reservations", body)
            .expect_problem(422, "validation_failed");
    }
    let yesterday = (Utc::now() - Duration::days(1))
        .format("%Y-%m-%d")
        .to_string();
    app.owner
        .get(&format!(
            "/reservations/availability?date={yesterday}&party_size=2"
        ))
        .expect_problem(422, "validation_failed");
    app.owner
        .get(&format!(
            "/reservations/availability?date={date}&party_size=0"
        ))
        .expect_problem(422, "validation_failed");
    app.owner
        .get(&format!(
            "/reservations/availability?date={date}&party_size=7"
        ))
        .expect_problem(422, "validation_failed");
    app.owner
        .get("/reservations/availability?date=soon&party_size=2")
        .expect_problem(422, "validation_failed");
    app.owner
        .get(&format!("/reservations/availability?date={date}"))
        .expect_problem(422, "validation_failed");
    app.owner
        .get("/reservations/availability")
        .expect_problem(422, "validation_failed");
    app.owner
        .put("/reservations/time-slots", json!({"days": [{"weekday": "monday", "windows": [{"start": "22:00", "end": "18:00"}],
            "slot_minutes": 30, "max_covers_per_slot": 10, "max_party_size": 6, "stay_minutes": 90}]}))
        .expect_problem(422, "validation_failed");
    assert_eq!(
        app.owner.get("/reservations/time-slots").expect(200)["days"]
            .as_array()
            .unwrap()
            .len(),
        7
    );
    assert_eq!(
        app.owner.get("/reservations").expect(200)["data"],
        json!([])
    );
    assert!(event_names(&app.outbox(&app.tenant_id), &["reservation."]).is_empty());
}

#[test]
fn another_tenants_reservation_is_not_found_and_roles_are_enforced() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[4, 4]);
    app.open_for_bookings(20, 6);
    let (_, starts_at) = next_week_at_seven();
    let id = book(&app, &starts_at, 2)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, other) = app.second_tenant("rival");
    other
        .get(&format!("/reservations/{id}"))
        .expect_problem(404, "not_found");
    other
        .post(&format!("/reservations/{id}/confirm"), json!({}))
        .expect_problem(404, "not_found");
    let body = json!({"name": "A", "phone": "1", "party_size": 2, "starts_at": starts_at});
    app.user(Role::Kitchen)
        .post("/reservations", body.clone())
        .expect_problem(403, "permission_denied");
    app.user(Role::Server)
        .post(&format!("/reservations/{id}/confirm"), json!({}))
        .expect_problem(403, "permission_denied");
    app.user(Role::Host)
        .put("/reservations/time-slots", json!({"days": []}))
        .expect_problem(403, "permission_denied");
    app.user(Role::Host).post("/reservations", body).expect(201);
    let moved = app
        .user(Role::Host)
        .patch(
            &format!("/reservations/{id}"),
            json!({"party_size": 4, "notes": "window seat"}),
        )
        .expect(200);
    assert_eq!(
        (moved["party_size"].as_i64(), moved["notes"].as_str()),
        (Some(4), Some("window seat"))
    );
}

#[test]
fn auto_confirm_is_a_tenant_setting() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[4]);
    app.open_for_bookings(20, 6);
    app.owner
        .patch("/settings", json!({"auto_confirm_reservations": true}))
        .expect(200);
    let (_, starts_at) = next_week_at_seven();
    assert_eq!(book(&app, &starts_at, 2)["status"], "confirmed");
    assert_eq!(
        event_names(&app.outbox(&app.tenant_id), &["reservation."]),
        ["reservation.created", "reservation.confirmed"]
    );
}

#[test]
fn confirmed_reservations_become_no_shows_after_the_grace_window_and_not_before() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[4]);
    app.open_for_bookings(20, 6);
    let (_, starts_at) = next_week_at_seven();
    let start = chrono::DateTime::parse_from_rfc3339(&starts_at)
        .unwrap()
        .with_timezone(&Utc);
    let confirmed = book(&app, &starts_at, 2)["id"]
        .as_str()
        .unwrap()
        .to_string();
    post(
        &app,
        &format!("/reservations/{confirmed}/confirm"),
        json!({}),
    );
    let pending = book(&app, &starts_at, 2)["id"]
        .as_str()
        .unwrap()
        .to_string();

    let run = |at| brigade::scheduler::run_due(app.app(), at);
    assert_eq!(
        run(start + Duration::minutes(14)),
        0,
        "still within the default 15 minutes"
    );
    assert_eq!(
        app.owner
            .get(&format!("/reservations/{confirmed}"))
            .expect(200)["status"],
        "confirmed"
    );
    assert_eq!(run(start + Duration::minutes(15)), 1);
    assert_eq!(
        app.owner
            .get(&format!("/reservations/{confirmed}"))
            .expect(200)["status"],
        "no_show"
    );
    assert_eq!(
        app.owner
            .get(&format!("/reservations/{pending}"))
            .expect(200)["status"],
        "pending"
    );
    assert_eq!(
        run(start + Duration::minutes(60)),
        0,
        "each no-show happens once"
    );
    let no_shows: Vec<Value> = app
        .outbox(&app.tenant_id)
        .into_iter()
        .filter(|e| e["event"] == "reservation.no_show")
        .collect();
    assert_eq!(no_shows.len(), 1);
    assert_eq!(no_shows[0]["data"]["reservation"]["id"], confirmed.as_str());
    assert_eq!(no_shows[0]["data"]["reservation"]["status"], "no_show");
}

/// A confirmed booking for two next week at 19:00 UTC: its id and start.
fn confirmed_next_week(app: &TestApp) -> (String, chrono::DateTime<Utc>) {
    app.floor_with_tables(&[4]);
    app.open_for_bookings(20, 6);
    let (_, starts_at) = next_week_at_seven();
    let start = chrono::DateTime::parse_from_rfc3339(&starts_at)
        .unwrap()
        .with_timezone(&Utc);
    let id = book(app, &starts_at, 2)["id"].as_str().unwrap().to_string();
    post(app, &format!("/reservations/{id}/confirm"), json!({}));
    (id, start)
}

#[test]
fn the_grace_window_follows_the_setting() {
    let app = TestApp::spawn();
    let (_, start) = confirmed_next_week(&app);
    // The scheduler has looked at the tenant and knows its next deadline...
    assert_eq!(brigade::scheduler::run_due(app.app(), start), 0);
    // ...and a longer grace window moves it.
    app.owner
        .patch("/settings", json!({"reservation_grace_minutes": 30}))
        .expect(200);
    assert_eq!(
        brigade::scheduler::run_due(app.app(), start + Duration::minutes(20)),
        0
    );
    assert_eq!(
        brigade::scheduler::run_due(app.app(), start + Duration::minutes(30)),
        1
    );
}

#[test]
fn a_shorter_grace_window_brings_the_next_no_show_forward() {
    let app = TestApp::spawn();
    let (_, start) = confirmed_next_week(&app);
    // The scheduler now expects nothing before the default 15 minutes...
    assert_eq!(brigade::scheduler::run_due(app.app(), start), 0);
    // ...until the setting changes: it must look again, not wait for its old deadline.
    app.owner
        .patch("/settings", json!({"reservation_grace_minutes": 5}))
        .expect(200);
    assert_eq!(
        brigade::scheduler::run_due(app.app(), start + Duration::minutes(6)),
        1
    );
}

#[test]
fn the_no_show_scheduler_acts_on_what_is_due_after_a_restart() {
    let mut app = TestApp::spawn();
    let (id, start) = confirmed_next_week(&app);
    app.restart();
    assert_eq!(
        brigade::scheduler::run_due(app.app(), start + Duration::minutes(10)),
        0
    );
    assert_eq!(
        brigade::scheduler::run_due(app.app(), start + Duration::minutes(16)),
        1
    );
    assert_eq!(
        app.owner.get(&format!("/reservations/{id}")).expect(200)["status"],
        "no_show"
    );
    assert_eq!(
        event_names(&app.outbox(&app.tenant_id), &["reservation.no_show"]).len(),
        1
    );
}

#[test]
fn the_scheduler_thread_stops_with_the_server() {
    let mut app = TestApp::spawn();
    let first = std::sync::Arc::downgrade(app.app());
    app.restart();
    // The stopped server and its scheduler thread let go of the first app.
    let mut waited = 0;
    while first.upgrade().is_some() && waited < 100 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        waited += 1;
    }
    assert!(
        first.upgrade().is_none(),
        "the scheduler thread still holds the stopped app"
    );
}

#[test]
fn the_scheduler_thread_catches_up_on_overdue_reservations_when_the_server_starts() {
    let mut app = TestApp::spawn();
    // A confirmed reservation that started an hour ago, as if the server had been
    // down through its grace window (the API refuses to book in the past).
    let id = uuid::Uuid::now_v7().to_string();
    let started =
        (Utc::now() - Duration::hours(1)).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    app.tenant_file()
        .execute(
            "INSERT INTO reservations (id, status, name, phone, party_size, starts_at, ends_at, source, created_at, updated_at) \
             VALUES (?1, 'confirmed', 'Late', '1', 2, ?2, ?2, 'staff', ?2, ?2)",
            [&id, &started],
        )
        .unwrap();
    app.restart();
    let mut status = String::new();
    for _ in 0..100 {
        status = app.owner.get(&format!("/reservations/{id}")).expect(200)["status"]
            .as_str()
            .unwrap()
            .to_string();
        if status == "no_show" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(status, "no_show");
    assert_eq!(
        event_names(&app.outbox(&app.tenant_id), &["reservation.no_show"]).len(),
        1
    );
}
