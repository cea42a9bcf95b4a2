//! Clocking in and out and breaks, by the signed-in person or by PIN on a paired
//! device, and the records read back with their minutes.

use brigade::auth::Role;
use brigade::time::Clock;
use chrono::{DateTime, TimeZone, Utc};
use serde_json::{json, Value};

use crate::helpers::{Client, TestApp};

fn at(day: u32, h: u32, m: u32, s: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2030, 3, day, h, m, s).unwrap()
}

fn app_at(start: DateTime<Utc>) -> TestApp {
    TestApp::spawn_with_clock(|_| {}, Clock::fixed(start))
}

fn user_id(client: &Client) -> String {
    client.get("/auth/me").expect(200)["user"]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn records(client: &Client, query: &str) -> Vec<Value> {
    client.get(&format!("/attendance{query}")).expect(200)["data"]
        .as_array()
        .unwrap()
        .clone()
}

fn stored_records(app: &TestApp) -> i64 {
    app.tenant_file()
        .query_row("SELECT count(*) FROM attendance_records", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_day_of_punches_counts_worked_and_break_minutes() {
    let app = app_at(at(4, 9, 0, 0));
    let clock = &app.app().clock;
    let sam = app.user(Role::Server);

    let opened = sam.post("/attendance/clock-in", json!({})).expect(201);
    assert_eq!(opened["clock_in"], "2030-03-04T09:00:00.000Z");
    assert_eq!(opened["clock_out"], Value::Null);
    assert_eq!(opened["user_id"], user_id(&sam));
    assert_eq!(opened["device_id"], Value::Null);
    let twice = sam
        .post("/attendance/clock-in", json!({}))
        .expect_problem(409, "illegal_transition");
    assert_eq!(twice["current_status"], "working");
    sam.post("/attendance/break-end", json!({}))
        .expect_problem(409, "illegal_transition");

    clock.set(at(4, 12, 0, 0));
    sam.post("/attendance/break-start", json!({})).expect(200);
    let on_break = sam
        .post("/attendance/break-start", json!({}))
        .expect_problem(409, "illegal_transition");
    assert_eq!(on_break["current_status"], "on_break");
    clock.set(at(4, 12, 30, 30));
    sam.post("/attendance/break-end", json!({})).expect(200);

    // Open: counted up to now. 4 h present less a 30.5 min break is 209.5 min.
    clock.set(at(4, 13, 0, 0));
    let open = &records(&sam, "")[0];
    assert_eq!(
        (
            open["worked_minutes"].as_i64(),
            open["break_minutes"].as_i64()
        ),
        (Some(209), Some(30))
    );

    // Clocking out during a break ends the break at the same time.
    clock.set(at(4, 15, 0, 0));
    sam.post("/attendance/break-start", json!({})).expect(200);
    clock.set(at(4, 15, 10, 0));
    let closed = sam.post("/attendance/clock-out", json!({})).expect(200);
    assert_eq!(closed["clock_out"], "2030-03-04T15:10:00.000Z");
    assert_eq!(closed["breaks"][1]["ended_at"], "2030-03-04T15:10:00.000Z");
    // 6 h 10 min present, breaks of 30.5 and 10 min: 329.5 worked, 40.5 on break.
    assert_eq!(closed["worked_minutes"], 329);
    assert_eq!(closed["break_minutes"], 40);

    // Closed records stay as they are as time goes on.
    clock.set(at(5, 9, 0, 0));
    let kept = &records(&sam, "")[0];
    assert_eq!(kept["worked_minutes"], 329);
    let out = sam
        .post("/attendance/clock-out", json!({}))
        .expect_problem(409, "illegal_transition");
    assert_eq!(out["current_status"], "clocked_out");
    sam.post("/attendance/break-start", json!({}))
        .expect_problem(409, "illegal_transition");

    // A bare POST is the signed-in person too.
    let next = sam
        .request("POST", "/attendance/clock-in", &[], None)
        .expect(201);
    assert_eq!(next["clock_in"], "2030-03-05T09:00:00.000Z");
    assert_eq!(records(&sam, "").len(), 2);
}

#[test]
fn a_pin_punches_only_from_a_paired_device() {
    let app = app_at(at(4, 8, 0, 0));
    let sam = app
        .owner
        .post(
            "/users",
            json!({"name": "Sam", "email": "sam@test.example", "role": "server",
                   "password": "temporary pass", "pin": "4826"}),
        )
        .expect(201);
    let (device_id, device) = app.paired_device("server");

    app.owner
        .post("/attendance/clock-in", json!({"pin": "4826"}))
        .expect_problem(403, "paired_device_required");
    app.api_key(Role::Cashier)
        .post("/attendance/clock-in", json!({"pin": "4826"}))
        .expect_problem(403, "paired_device_required");
    device
        .post("/attendance/clock-in", json!({}))
        .expect_problem(403, "pin_required");
    device
        .post("/attendance/clock-in", json!({"pin": "9999"}))
        .expect_problem(401, "invalid_pin");
    assert_eq!(stored_records(&app), 0);

    let punched = device
        .post("/attendance/clock-in", json!({"pin": "4826"}))
        .expect(201);
    assert_eq!(punched["user_id"], sam["id"]);
    assert_eq!(punched["user_name"], "Sam");
    assert_eq!(punched["device_id"], device_id.as_str());
    device
        .post("/attendance/clock-in", json!({"pin": "4826"}))
        .expect_problem(409, "illegal_transition");
    let out = device
        .post("/attendance/clock-out", json!({"pin": "4826"}))
        .expect(200);
    assert_eq!(out["id"], punched["id"]);

    // The device itself reads no one's records.
    device
        .get("/attendance")
        .expect_problem(403, "permission_denied");
}

#[test]
fn staff_see_their_own_records_and_managers_everyones() {
    let app = app_at(at(4, 9, 0, 0));
    let clock = &app.app().clock;
    let (ana, ben) = (app.user(Role::Server), app.user(Role::Kitchen));
    ana.post("/attendance/clock-in", json!({})).expect(201);
    clock.set(at(4, 11, 0, 0));
    ben.post("/attendance/clock-in", json!({})).expect(201);
    let (ana_id, ben_id) = (user_id(&ana), user_id(&ben));

    let own = records(&ana, "");
    assert_eq!(own.len(), 1);
    assert_eq!(own[0]["user_id"], ana_id.as_str());
    assert_eq!(records(&ana, &format!("?user_id={ana_id}")).len(), 1);
    ana.get(&format!("/attendance?user_id={ben_id}"))
        .expect_problem(403, "permission_denied");

    let manager = app.user(Role::Manager);
    let everyone = records(&manager, "");
    assert_eq!(
        everyone
            .iter()
            .map(|r| r["user_id"].clone())
            .collect::<Vec<_>>(),
        [json!(ana_id), json!(ben_id)]
    );
    assert_eq!(
        records(&manager, &format!("?user_id={ben_id}"))[0]["user_id"],
        ben_id.as_str()
    );
    let later = records(&manager, "?from=2030-03-04T10:00:00Z");
    assert_eq!(later.len(), 1);
    assert_eq!(later[0]["user_id"], ben_id.as_str());
    let earlier = records(&manager, "?to=2030-03-04T12:00:00%2B02:00");
    assert_eq!(earlier.len(), 1);
    assert_eq!(earlier[0]["user_id"], ana_id.as_str());

    manager
        .get(&format!("/attendance?user_id={}", uuid::Uuid::now_v7()))
        .expect_problem(404, "not_found");
    let (_, other_owner) = app.second_tenant("other-place");
    let stranger = user_id(&other_owner);
    manager
        .get(&format!("/attendance?user_id={stranger}"))
        .expect_problem(404, "not_found");
    manager
        .get("/attendance?user_id=not-an-id")
        .expect_problem(422, "validation_failed");
    manager
        .get("/attendance?from=yesterday")
        .expect_problem(422, "validation_failed");
}

#[test]
fn bad_punches_are_refused_and_change_nothing() {
    let app = app_at(at(4, 9, 0, 0));
    let sam = app.user(Role::Cashier);
    sam.post_raw("/attendance/clock-in", "application/json", b"{\"pin\": ")
        .expect_problem(400, "malformed_json");
    sam.post_raw("/attendance/clock-in", "text/plain", b"hello")
        .expect_problem(415, "unsupported_media_type");
    sam.post(
        "/attendance/clock-in",
        json!({"user_id": user_id(&app.owner)}),
    )
    .expect_problem(422, "validation_failed");
    sam.post("/attendance/clock-in", json!({"pin": 1234}))
        .expect_problem(422, "validation_failed");
    sam.post("/attendance/clock-in", json!([]))
        .expect_problem(422, "validation_failed");
    let (_, device) = app.paired_device("server");
    device
        .post("/attendance/clock-in", json!({"pin": "12a4"}))
        .expect_problem(422, "validation_failed");
    Client::anonymous(&app.base)
        .with_tenant(&app.tenant_id)
        .post("/attendance/clock-in", json!({}))
        .expect_problem(401, "unauthorized");
    assert_eq!(stored_records(&app), 0);
}

#[test]
fn a_record_left_open_past_the_review_time_is_flagged_not_closed() {
    let app = app_at(at(4, 9, 0, 0));
    let clock = &app.app().clock;
    let sam = app.user(Role::Server);
    let manager = app.user(Role::Manager);
    sam.post("/attendance/clock-in", json!({})).expect(201);
    let waiting = || {
        manager.get("/notifications/summary").expect(200)["attendance_needing_review"]
            .as_i64()
            .unwrap()
    };

    // 14 hours by default: at 23:00 exactly the record is not yet past it.
    clock.set(at(4, 23, 0, 0));
    assert_eq!(records(&manager, "")[0]["needs_review"], false);
    assert_eq!(waiting(), 0);
    clock.set(at(4, 23, 0, 1));
    let flagged = &records(&manager, "")[0];
    assert_eq!(flagged["needs_review"], true);
    assert_eq!(flagged["clock_out"], Value::Null);
    assert_eq!(waiting(), 1);

    manager
        .patch("/settings", json!({"attendance_review_hours": 16}))
        .expect(200);
    assert_eq!(records(&manager, "")[0]["needs_review"], false);
    assert_eq!(waiting(), 0);
    manager
        .patch("/settings", json!({"attendance_review_hours": 0}))
        .expect_problem(422, "validation_failed");

    clock.set(at(5, 3, 0, 0));
    assert_eq!(waiting(), 1);
    let closed = sam.post("/attendance/clock-out", json!({})).expect(200);
    assert_eq!(closed["needs_review"], false);
    assert_eq!(closed["worked_minutes"], 18 * 60);
    assert_eq!(waiting(), 0);
}
