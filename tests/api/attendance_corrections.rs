//! Changing punches after the fact: corrections a manager approves or rejects,
//! managers' direct edits, each record's history, and the payroll lock.

use brigade::auth::Role;
use brigade::time::Clock;
use chrono::{DateTime, TimeZone, Utc};
use serde_json::{json, Value};

use crate::helpers::{Client, TestApp};

fn at(day: u32, h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2030, 3, day, h, m, 0).unwrap()
}

fn stamp(day: u32, h: u32, m: u32) -> String {
    format!("2030-03-{day:02}T{h:02}:{m:02}:00.000Z")
}

fn user_id(client: &Client) -> String {
    client.get("/auth/me").expect(200)["user"]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// An app at 2030-03-04 09:00 where `sam` (a server) worked 09:00 to 17:00 on
/// the 4th and is now at the 5th, 10:00; the record's id.
fn worked_day() -> (TestApp, Client, String) {
    let app = TestApp::spawn_with_clock(|_| {}, Clock::fixed(at(4, 9, 0)));
    let sam = app.user(Role::Server);
    let record = sam.post("/attendance/clock-in", json!({})).expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.app().clock.set(at(4, 17, 0));
    sam.post("/attendance/clock-out", json!({})).expect(200);
    app.app().clock.set(at(5, 10, 0));
    (app, sam, record)
}

fn record(client: &Client, id: &str) -> Value {
    client.get("/attendance").expect(200)["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .cloned()
        .unwrap()
}

fn history(client: &Client, id: &str) -> Vec<Value> {
    client
        .get(&format!("/attendance/{id}/history"))
        .expect(200)
        .as_array()
        .unwrap()
        .clone()
}

fn pending(manager: &Client) -> i64 {
    manager.get("/notifications/summary").expect(200)["pending_corrections"]
        .as_i64()
        .unwrap()
}

#[test]
fn a_correction_changes_the_record_only_once_approved_with_history() {
    let (app, sam, id) = worked_day();
    let manager = app.user(Role::Manager);
    assert_eq!(pending(&manager), 0);

    let asked = sam
        .post(
            &format!("/attendance/{id}/corrections"),
            json!({"clock_out": "2030-03-04T18:30:00+00:00", "reason": "closed the bar"}),
        )
        .expect(201);
    assert_eq!(asked["status"], "pending");
    assert_eq!(asked["clock_out"], stamp(4, 18, 30));
    assert_eq!(asked["clock_in"], Value::Null);
    assert_eq!(record(&sam, &id)["clock_out"], stamp(4, 17, 0));
    assert_eq!(pending(&manager), 1);

    // Staff see their own corrections; the manager sees the queue.
    let queue = manager
        .get("/attendance/corrections?status=pending")
        .expect(200);
    assert_eq!(queue["data"][0]["id"], asked["id"]);
    assert_eq!(
        sam.get("/attendance/corrections").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let other = app.user(Role::Kitchen);
    assert_eq!(
        other.get("/attendance/corrections").expect(200)["data"],
        json!([])
    );

    let cid = asked["id"].as_str().unwrap();
    let approved = manager
        .post(
            &format!("/attendance/corrections/{cid}/approve"),
            json!({"note": "seen on camera"}),
        )
        .expect(200);
    assert_eq!(approved["status"], "approved");
    assert_eq!(approved["note"], "seen on camera");
    assert_eq!(
        approved["decided_by"],
        format!("user:{}", user_id(&manager))
    );
    let changed = record(&sam, &id);
    assert_eq!(changed["clock_out"], stamp(4, 18, 30));
    assert_eq!(changed["worked_minutes"], 9 * 60 + 30);
    assert_eq!(pending(&manager), 0);

    let entries = history(&sam, &id);
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["change"], "clock_out");
    assert_eq!(entries[0]["clock_out_before"], Value::Null);
    assert_eq!(entries[0]["clock_out_after"], stamp(4, 17, 0));
    assert_eq!(entries[1]["change"], "correction");
    assert_eq!(entries[1]["clock_out_before"], stamp(4, 17, 0));
    assert_eq!(entries[1]["clock_out_after"], stamp(4, 18, 30));
    assert_eq!(entries[1]["clock_in_before"], entries[1]["clock_in_after"]);
    assert_eq!(entries[1]["correction_id"], cid);
    assert_eq!(entries[1]["reason"], "closed the bar");
    assert_eq!(
        entries[1]["changed_by"],
        format!("user:{}", user_id(&manager))
    );
    assert_eq!(entries[1]["changed_at"], stamp(5, 10, 0));

    // Decided once: both ways are now illegal.
    for action in ["approve", "reject"] {
        let refused = manager
            .post(
                &format!("/attendance/corrections/{cid}/{action}"),
                json!({}),
            )
            .expect_problem(409, "illegal_transition");
        assert_eq!(refused["current_status"], "approved");
    }
}

#[test]
fn a_rejected_correction_leaves_the_record() {
    let (app, sam, id) = worked_day();
    let owner = &app.owner;
    let asked = sam
        .post(
            &format!("/attendance/{id}/corrections"),
            json!({"clock_in": "2030-03-04T07:00:00Z", "reason": "came early"}),
        )
        .expect(201);
    let cid = asked["id"].as_str().unwrap();
    let rejected = owner
        .request(
            "POST",
            &format!("/attendance/corrections/{cid}/reject"),
            &[],
            None,
        )
        .expect(200);
    assert_eq!(rejected["status"], "rejected");
    assert_eq!(record(&sam, &id)["clock_in"], stamp(4, 9, 0));
    assert_eq!(history(&sam, &id).len(), 1);
    let refused = owner
        .post(&format!("/attendance/corrections/{cid}/approve"), json!({}))
        .expect_problem(409, "illegal_transition");
    assert_eq!(refused["current_status"], "rejected");
    assert_eq!(
        owner
            .get("/attendance/corrections?status=rejected")
            .expect(200)["data"][0]["id"],
        cid
    );
    assert_eq!(
        owner
            .get("/attendance/corrections?status=pending")
            .expect(200)["data"],
        json!([])
    );

    // A second request on the same record; the list pages by cursor.
    let again = sam
        .post(
            &format!("/attendance/{id}/corrections"),
            json!({"clock_in": "2030-03-04T08:30:00Z", "reason": "half an hour early"}),
        )
        .expect(201);
    let first = owner.get("/attendance/corrections?limit=1").expect(200);
    assert_eq!(first["data"][0]["id"], cid);
    let cursor = first["next_cursor"].as_str().unwrap();
    let second = owner
        .get(&format!("/attendance/corrections?limit=1&cursor={cursor}"))
        .expect(200);
    assert_eq!(second["data"][0]["id"], again["id"]);
    assert_eq!(second["next_cursor"], Value::Null);
    owner
        .get("/attendance/corrections?limit=0")
        .expect_problem(422, "validation_failed");
}

#[test]
fn incoherent_corrections_are_field_errors() {
    let (app, sam, id) = worked_day();
    // A second record later on the 4th, to overlap with.
    app.app().clock.set(at(4, 19, 0));
    let evening = sam.post("/attendance/clock-in", json!({})).expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.app().clock.set(at(4, 22, 0));
    sam.post("/attendance/clock-out", json!({})).expect(200);
    app.app().clock.set(at(5, 10, 0));
    let path = format!("/attendance/{id}/corrections");

    let field = |body: Value| {
        let problem = sam
            .post(&path, body)
            .expect_problem(422, "validation_failed");
        problem["errors"][0]["field"].as_str().unwrap().to_string()
    };
    assert_eq!(
        field(json!({"clock_out": "2030-03-04T08:00:00Z", "reason": "x"})),
        "clock_out"
    );
    assert_eq!(
        field(json!({"clock_out": "2030-03-04T20:00:00Z", "reason": "x"})),
        "clock_out"
    );
    assert_eq!(
        field(json!({"clock_out": "2030-03-06T20:00:00Z", "reason": "x"})),
        "clock_out"
    );
    assert_eq!(
        field(json!({"clock_in": "yesterday", "reason": "x"})),
        "clock_in"
    );
    assert_eq!(
        field(json!({"clock_in": "2030-03-04T08:00:00Z", "reason": "  "})),
        "reason"
    );
    assert_eq!(field(json!({"reason": "nothing to change"})), "clock_in");
    let missing = sam
        .post(&path, json!({"clock_in": "2030-03-04T08:00:00Z"}))
        .expect_problem(422, "validation_failed");
    assert!(missing["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("reason"));
    assert_eq!(field(json!({"clock_in": 8, "reason": "x"})), "clock_in");
    assert_eq!(
        field(json!({"clock_in": "2030-03-04T08:00:00Z", "reason": "x", "user_id": "y"})),
        "user_id"
    );
    sam.post_raw(&path, "application/json", b"{\"reason\": ")
        .expect_problem(400, "malformed_json");
    assert_eq!(
        sam.get("/attendance/corrections").expect(200)["data"],
        json!([])
    );
    // The evening record itself is fine to move within its own gap.
    sam.post(
        &format!("/attendance/{evening}/corrections"),
        json!({"clock_in": "2030-03-04T18:00:00Z", "reason": "started at six"}),
    )
    .expect(201);
}

#[test]
fn only_the_records_own_person_asks_and_only_managers_decide() {
    let (app, sam, id) = worked_day();
    let path = format!("/attendance/{id}/corrections");
    let body = json!({"clock_out": "2030-03-04T18:00:00Z", "reason": "late close"});

    // Someone else's record is as unknown to a staff member as a missing one.
    let ben = app.user(Role::Server);
    ben.post(&path, body.clone())
        .expect_problem(404, "not_found");
    ben.get(&format!("/attendance/{id}/history"))
        .expect_problem(404, "not_found");
    sam.post(
        &format!("/attendance/{}/corrections", uuid::Uuid::now_v7()),
        body.clone(),
    )
    .expect_problem(404, "not_found");
    sam.post("/attendance/not-an-id/corrections", body.clone())
        .expect_problem(404, "not_found");
    app.api_key(Role::Manager)
        .post(&path, body.clone())
        .expect_problem(403, "user_required");

    let asked = sam.post(&path, body.clone()).expect(201);
    let cid = asked["id"].as_str().unwrap();
    for refused in [&sam, &ben, &app.user(Role::Cashier)] {
        refused
            .post(&format!("/attendance/corrections/{cid}/approve"), json!({}))
            .expect_problem(403, "permission_denied");
        refused
            .patch(
                &format!("/attendance/{id}"),
                json!({"clock_out": "2030-03-04T18:00:00Z", "reason": "x"}),
            )
            .expect_problem(403, "permission_denied");
        refused
            .post("/attendance/lock", json!({"until": "2030-03-05T00:00:00Z"}))
            .expect_problem(403, "permission_denied");
    }
    let manager = app.user(Role::Manager);
    manager
        .post(
            &format!("/attendance/corrections/{}/approve", uuid::Uuid::now_v7()),
            json!({}),
        )
        .expect_problem(404, "not_found");
    manager
        .post(
            &format!("/attendance/corrections/{cid}/approve"),
            json!({"note": 3}),
        )
        .expect_problem(422, "validation_failed");
    manager
        .get("/attendance/corrections?status=maybe")
        .expect_problem(422, "validation_failed");

    // Another business's ids name nothing here.
    let (_, other_owner) = app.second_tenant("other-place");
    other_owner
        .post(&format!("/attendance/corrections/{cid}/approve"), json!({}))
        .expect_problem(404, "not_found");
    other_owner
        .patch(
            &format!("/attendance/{id}"),
            json!({"clock_out": "2030-03-04T18:00:00Z", "reason": "x"}),
        )
        .expect_problem(404, "not_found");
    other_owner
        .get(&format!("/attendance/{id}/history"))
        .expect_problem(404, "not_found");
    assert_eq!(pending(&manager), 1);
    assert_eq!(record(&sam, &id)["clock_out"], stamp(4, 17, 0));
}

#[test]
fn a_managers_edit_closes_a_flagged_record_with_who_and_why() {
    let app = TestApp::spawn_with_clock(|_| {}, Clock::fixed(at(4, 9, 0)));
    let sam = app.user(Role::Server);
    let id = sam.post("/attendance/clock-in", json!({})).expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.app().clock.set(at(5, 9, 0));
    let manager = app.user(Role::Manager);
    assert_eq!(record(&manager, &id)["needs_review"], true);

    let path = format!("/attendance/{id}");
    manager
        .patch(&path, json!({"clock_out": "2030-03-04T17:00:00Z"}))
        .expect_problem(422, "validation_failed");
    manager
        .patch(
            &path,
            json!({"clock_out": "2030-03-04T08:00:00Z", "reason": "x"}),
        )
        .expect_problem(422, "validation_failed");
    manager
        .patch(
            &format!("/attendance/{}", uuid::Uuid::now_v7()),
            json!({"clock_out": "2030-03-04T17:00:00Z", "reason": "x"}),
        )
        .expect_problem(404, "not_found");
    let closed = manager
        .patch(
            &path,
            json!({"clock_out": "2030-03-04T17:00:00Z", "reason": "forgot to clock out"}),
        )
        .expect(200);
    assert_eq!(closed["clock_out"], stamp(4, 17, 0));
    assert_eq!(closed["needs_review"], false);
    assert_eq!(closed["worked_minutes"], 8 * 60);
    assert_eq!(
        manager.get("/notifications/summary").expect(200)["attendance_needing_review"],
        0
    );
    // The person can clock in again now the record is closed.
    sam.post("/attendance/clock-in", json!({})).expect(201);

    let entries = history(&manager, &id);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["change"], "edit");
    assert_eq!(entries[0]["clock_out_before"], Value::Null);
    assert_eq!(entries[0]["clock_out_after"], stamp(4, 17, 0));
    assert_eq!(entries[0]["reason"], "forgot to clock out");
    assert_eq!(
        entries[0]["changed_by"],
        format!("user:{}", user_id(&manager))
    );
    assert_eq!(entries[0]["correction_id"], Value::Null);
}

#[test]
fn a_locked_period_refuses_every_change() {
    let (app, sam, id) = worked_day();
    let manager = app.user(Role::Manager);
    assert_eq!(
        manager.get("/attendance/lock").expect(200)["locked_until"],
        Value::Null
    );
    let asked = sam
        .post(
            &format!("/attendance/{id}/corrections"),
            json!({"clock_out": "2030-03-04T18:00:00Z", "reason": "late close"}),
        )
        .expect(201);
    let cid = asked["id"].as_str().unwrap();
    // Sam is clocked in again since the morning of the 5th.
    app.app().clock.set(at(5, 8, 0));
    sam.post("/attendance/clock-in", json!({})).expect(201);
    app.app().clock.set(at(5, 10, 0));

    manager
        .post("/attendance/lock", json!({"until": "2030-03-06T00:00:00Z"}))
        .expect_problem(422, "validation_failed");
    manager
        .post("/attendance/lock", json!({"until": 5}))
        .expect_problem(422, "validation_failed");
    let locked = manager
        .post("/attendance/lock", json!({"until": "2030-03-05T09:00:00Z"}))
        .expect(200);
    assert_eq!(locked["locked_until"], stamp(5, 9, 0));
    assert_eq!(
        sam.get("/attendance/lock").expect(200)["locked_until"],
        stamp(5, 9, 0)
    );

    let refused = manager
        .post(&format!("/attendance/corrections/{cid}/approve"), json!({}))
        .expect_problem(409, "period_locked");
    assert_eq!(refused["locked_until"], stamp(5, 9, 0));
    manager
        .patch(
            &format!("/attendance/{id}"),
            json!({"clock_out": "2030-03-04T18:00:00Z", "reason": "x"}),
        )
        .expect_problem(409, "period_locked");
    sam.post(
        &format!("/attendance/{id}/corrections"),
        json!({"clock_out": "2030-03-04T18:00:00Z", "reason": "again"}),
    )
    .expect_problem(409, "period_locked");
    // The open record started at 08:00, inside the lock: no punches on it.
    sam.post("/attendance/break-start", json!({}))
        .expect_problem(409, "period_locked");
    sam.post("/attendance/clock-out", json!({}))
        .expect_problem(409, "period_locked");
    assert_eq!(record(&sam, &id)["clock_out"], stamp(4, 17, 0));

    // A pending correction inside the lock can still be cleared by rejecting it.
    manager
        .post(
            &format!("/attendance/corrections/{cid}/reject"),
            json!({"note": "locked"}),
        )
        .expect(200);

    let back = manager
        .post("/attendance/lock", json!({"until": "2030-03-05T08:00:00Z"}))
        .expect_problem(409, "lock_moves_forward_only");
    assert_eq!(back["locked_until"], stamp(5, 9, 0));
    manager
        .post("/attendance/lock", json!({"until": "2030-03-05T09:30:00Z"}))
        .expect(200);
}

#[test]
fn a_later_record_stays_open_to_changes_after_a_lock() {
    let (app, sam, id) = worked_day();
    let manager = app.user(Role::Manager);
    manager
        .post("/attendance/lock", json!({"until": "2030-03-04T00:00:00Z"}))
        .expect(200);
    // Moving a record into the locked period is a change to it too.
    manager
        .patch(
            &format!("/attendance/{id}"),
            json!({"clock_in": "2030-03-03T23:00:00Z", "reason": "night shift"}),
        )
        .expect_problem(409, "period_locked");
    let edited = manager
        .patch(
            &format!("/attendance/{id}"),
            json!({"clock_in": "2030-03-04T08:30:00Z", "reason": "opened early"}),
        )
        .expect(200);
    assert_eq!(edited["clock_in"], stamp(4, 8, 30));
    assert_eq!(
        sam.get("/attendance").expect(200)["data"][0]["worked_minutes"],
        510
    );
}
