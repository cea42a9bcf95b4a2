//! The schedule: drafting shifts, the overlap rule, publishing and the `changed`
//! mark, copying a week, what staff see, and the schedule set beside attendance.

use brigade::auth::Role;
use brigade::time::Clock;
use chrono::{DateTime, TimeZone, Utc};
use serde_json::{json, Value};

use crate::helpers::{Client, TestApp};

/// 2030-03-04 is a Monday.
fn at(day: u32, h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2030, 3, day, h, m, 0).unwrap()
}

fn text(day: u32, h: u32, m: u32) -> String {
    brigade::time::rfc3339(at(day, h, m))
}

fn app_at(start: DateTime<Utc>) -> TestApp {
    TestApp::spawn_with_clock(|_| {}, Clock::fixed(start))
}

/// A staff member of `role` named `name`, with their id.
fn person(app: &TestApp, role: Role, name: &str) -> (Client, String) {
    let client = app.user(role);
    let id = client.get("/auth/me").expect(200)["user"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.owner
        .patch(&format!("/users/{id}"), json!({"name": name}))
        .expect(200);
    (client, id)
}

fn shift(user_id: &str, day: u32, from: (u32, u32), to: (u32, u32), break_minutes: i64) -> Value {
    json!({"user_id": user_id, "starts_at": text(day, from.0, from.1),
           "ends_at": text(day, to.0, to.1), "break_minutes": break_minutes})
}

fn ids(page: &Value) -> Vec<String> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect()
}

fn stored_shifts(app: &TestApp) -> i64 {
    app.tenant_file()
        .query_row("SELECT count(*) FROM shifts", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn staff_see_a_shift_once_published_and_marked_changed_after_an_edit() {
    let app = app_at(at(1, 12, 0));
    let (sam, sam_id) = person(&app, Role::Server, "Sam");
    let manager = app.user(Role::Manager);

    let monday = manager
        .post("/shifts", shift(&sam_id, 4, (9, 0), (17, 30), 30))
        .expect(201);
    assert_eq!(monday["status"], "draft");
    assert_eq!(monday["user_name"], "Sam");
    assert_eq!(monday["scheduled_minutes"], 480);
    assert_eq!(monday["published_at"], Value::Null);
    let id = monday["id"].as_str().unwrap().to_string();
    let open = manager
        .post(
            "/shifts",
            json!({"role": "kitchen", "starts_at": text(5, 10, 0), "ends_at": text(5, 14, 0),
                   "notes": "  prep  "}),
        )
        .expect(201);
    assert_eq!(
        (open["user_id"].clone(), open["role"].clone()),
        (Value::Null, json!("kitchen"))
    );
    assert_eq!(open["notes"], "prep");
    let next_week = manager
        .post("/shifts", shift(&sam_id, 11, (9, 0), (12, 0), 0))
        .expect(201);

    // Drafts are the manager's only.
    assert!(ids(&sam.get("/shifts").expect(200)).is_empty());
    sam.get(&format!("/shifts/{id}"))
        .expect_problem(404, "not_found");
    assert!(sam.get("/shifts/me").expect(200)["data"]
        .as_array()
        .unwrap()
        .is_empty());
    assert_eq!(
        manager.get("/shifts?status=draft").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    // Publishing this week leaves next week's draft alone.
    let published = manager
        .post(
            "/shifts/publish",
            json!({"from": text(4, 0, 0), "to": text(11, 0, 0)}),
        )
        .expect(200);
    assert_eq!(
        ids(&json!({"data": published["published"]})),
        vec![id.clone(), open["id"].as_str().unwrap().to_string()]
    );
    assert_eq!(published["published"][0]["published_at"], text(1, 12, 0));
    assert_eq!(
        ids(&sam.get("/shifts").expect(200)),
        vec![id.clone(), open["id"].as_str().unwrap().to_string()]
    );
    let mine = sam.get("/shifts/me").expect(200);
    assert_eq!(ids(&mine), vec![id.clone()]);
    assert_eq!(mine["data"][0]["status"], "published");
    assert_eq!(
        manager
            .get(&format!("/shifts/{}", next_week["id"].as_str().unwrap()))
            .expect(200)["status"],
        "draft"
    );

    // An edit marks it changed for staff, with the new times, until published again.
    let edited = manager
        .patch(
            &format!("/shifts/{id}"),
            json!({"ends_at": text(4, 16, 0), "notes": "close early"}),
        )
        .expect(200);
    assert_eq!(edited["status"], "changed");
    assert_eq!(edited["scheduled_minutes"], 390);
    let seen = sam.get(&format!("/shifts/{id}")).expect(200);
    assert_eq!(
        (seen["status"].clone(), seen["ends_at"].clone()),
        (json!("changed"), json!(text(4, 16, 0)))
    );
    assert_eq!(
        ids(&manager.get("/shifts?status=changed").expect(200)),
        vec![id.clone()]
    );
    app.app().clock.set(at(2, 8, 0));
    let again = manager
        .post(
            "/shifts/publish",
            json!({"from": text(4, 0, 0), "to": text(11, 0, 0)}),
        )
        .expect(200);
    assert_eq!(ids(&json!({"data": again["published"]})), vec![id.clone()]);
    assert_eq!(
        sam.get(&format!("/shifts/{id}")).expect(200)["status"],
        "published"
    );

    // /shifts/me: upcoming by default; a past one only when asked for.
    app.app().clock.set(at(4, 16, 30));
    assert!(ids(&sam.get("/shifts/me").expect(200)).is_empty());
    assert_eq!(
        ids(&sam
            .get(&format!("/shifts/me?from={}", text(4, 0, 0)))
            .expect(200)),
        vec![id.clone()]
    );

    // Deleting takes it away from staff at once.
    manager.delete(&format!("/shifts/{id}")).expect(204);
    sam.get(&format!("/shifts/{id}"))
        .expect_problem(404, "not_found");
    manager
        .delete(&format!("/shifts/{id}"))
        .expect_problem(404, "not_found");
    assert_eq!(stored_shifts(&app), 2);

    // A repeated create with the same Idempotency-Key drafts one shift.
    let body = shift(&sam_id, 12, (9, 0), (12, 0), 0);
    let key = [("Idempotency-Key", "rota-12")];
    let first = manager
        .send("POST", "/shifts", body.clone(), &key)
        .expect(201);
    let again = manager.send("POST", "/shifts", body, &key).expect(201);
    assert_eq!(first["id"], again["id"]);
    assert_eq!(stored_shifts(&app), 3);
}

#[test]
fn a_person_cannot_have_overlapping_shifts() {
    let app = app_at(at(1, 12, 0));
    let (_, sam_id) = person(&app, Role::Server, "Sam");
    let (_, ada_id) = person(&app, Role::Cashier, "Ada");
    let owner = &app.owner;
    let morning = owner
        .post("/shifts", shift(&sam_id, 4, (9, 0), (13, 0), 0))
        .expect(201);

    let clash = owner
        .post("/shifts", shift(&sam_id, 4, (12, 0), (18, 0), 0))
        .expect_problem(409, "shift_overlap");
    assert_eq!(clash["other_shift"]["id"], morning["id"]);
    assert_eq!(clash["other_shift"]["starts_at"], text(4, 9, 0));
    assert_eq!(clash["other_shift"]["ends_at"], text(4, 13, 0));
    assert!(clash["detail"]
        .as_str()
        .unwrap()
        .contains(morning["id"].as_str().unwrap()));
    owner
        .post("/shifts", shift(&sam_id, 4, (10, 0), (11, 0), 0))
        .expect_problem(409, "shift_overlap");
    assert_eq!(stored_shifts(&app), 1);

    // Touching ends, another person, or an open shift at the same time are fine.
    let evening = owner
        .post("/shifts", shift(&sam_id, 4, (13, 0), (18, 0), 0))
        .expect(201);
    owner
        .post("/shifts", shift(&ada_id, 4, (9, 0), (13, 0), 0))
        .expect(201);
    owner
        .post(
            "/shifts",
            json!({"role": "server", "starts_at": text(4, 9, 0), "ends_at": text(4, 13, 0)}),
        )
        .expect(201);

    // Moving a shift onto another, or giving it to someone busy then, is refused too.
    let path = format!("/shifts/{}", evening["id"].as_str().unwrap());
    let moved = owner
        .patch(&path, json!({"starts_at": text(4, 12, 30)}))
        .expect_problem(409, "shift_overlap");
    assert_eq!(moved["other_shift"]["id"], morning["id"]);
    owner
        .patch(
            &format!("/shifts/{}", morning["id"].as_str().unwrap()),
            json!({"user_id": ada_id}),
        )
        .expect_problem(409, "shift_overlap");
    // A shift does not overlap itself.
    owner
        .patch(&path, json!({"starts_at": text(4, 14, 0)}))
        .expect(200);
    let unchanged = owner
        .get(&format!("/shifts/{}", morning["id"].as_str().unwrap()))
        .expect(200);
    assert_eq!(unchanged["user_id"], json!(sam_id));
    assert_eq!(stored_shifts(&app), 4);
}

#[test]
fn copy_week_makes_drafts_and_names_the_copies_it_skipped() {
    let app = app_at(at(1, 12, 0));
    let (_, sam_id) = person(&app, Role::Server, "Sam");
    let (_, ada_id) = person(&app, Role::Cashier, "Ada");
    let owner = &app.owner;
    let monday = owner
        .post("/shifts", shift(&sam_id, 4, (9, 0), (17, 0), 30))
        .expect(201);
    let sunday = owner
        .post("/shifts", shift(&ada_id, 10, (18, 0), (23, 0), 0))
        .expect(201);
    owner
        .post(
            "/shifts",
            json!({"role": "host", "starts_at": text(6, 11, 0), "ends_at": text(6, 15, 0)}),
        )
        .expect(201);
    // Outside the week: not copied.
    owner
        .post("/shifts", shift(&sam_id, 3, (9, 0), (17, 0), 0))
        .expect(201);
    owner
        .post(
            "/shifts/publish",
            json!({"from": text(1, 0, 0), "to": text(11, 0, 0)}),
        )
        .expect(200);
    // Ada already works on the next Sunday evening.
    let busy = owner
        .post("/shifts", shift(&ada_id, 17, (20, 0), (22, 0), 0))
        .expect(201);

    let copied = owner
        .post(
            "/shifts/copy-week",
            json!({"from_week": "2030-03-04", "to_week": "2030-03-11"}),
        )
        .expect(200);
    let created = copied["created"].as_array().unwrap();
    assert_eq!(created.len(), 2);
    assert_eq!(created[0]["user_id"], json!(sam_id));
    assert_eq!(
        (
            created[0]["starts_at"].clone(),
            created[0]["ends_at"].clone()
        ),
        (json!(text(11, 9, 0)), json!(text(11, 17, 0)))
    );
    assert_eq!(created[0]["break_minutes"], 30);
    assert_eq!(created[0]["status"], "draft");
    assert_eq!(
        (created[1]["role"].clone(), created[1]["starts_at"].clone()),
        (json!("host"), json!(text(13, 11, 0)))
    );
    let skipped = copied["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0]["source_id"], sunday["id"]);
    assert_eq!(skipped[0]["starts_at"], text(17, 18, 0));
    assert_eq!(skipped[0]["overlaps"]["id"], busy["id"]);
    assert_eq!(stored_shifts(&app), 7);
    assert_ne!(created[0]["id"], monday["id"]);

    // Copying again skips every assigned shift: they are all there now.
    let again = owner
        .post(
            "/shifts/copy-week",
            json!({"from_week": "2030-03-04", "to_week": "2030-03-11"}),
        )
        .expect(200);
    assert_eq!(again["skipped"].as_array().unwrap().len(), 2);

    for (body, field) in [
        (
            json!({"from_week": "2030-03-05", "to_week": "2030-03-11"}),
            "from_week",
        ),
        (
            json!({"from_week": "2030-03-04", "to_week": "2030-03-04"}),
            "to_week",
        ),
        (
            json!({"from_week": "2030-03-04", "to_week": "next week"}),
            "to_week",
        ),
    ] {
        let refused = owner
            .post("/shifts/copy-week", body)
            .expect_problem(422, "validation_failed");
        assert_eq!(refused["errors"][0]["field"], field);
    }
    assert_eq!(stored_shifts(&app), 8);
}

#[test]
fn compare_sets_the_schedule_beside_attendance_on_a_worked_example() {
    let app = app_at(at(1, 12, 0));
    let clock = &app.app().clock;
    let (sam, sam_id) = person(&app, Role::Server, "Sam");
    let (ada, ada_id) = person(&app, Role::Cashier, "Ada");
    let owner = &app.owner;
    owner
        .patch(&format!("/users/{sam_id}"), json!({"hourly_wage": 15}))
        .expect(200);
    owner
        .patch(&format!("/users/{ada_id}"), json!({"hourly_wage": 12.4}))
        .expect(200);

    // Sam: Mon 09:00-17:00 less 30 = 450, Tue 09:00-13:00 = 240, Wed 09:00-12:00 = 180.
    owner
        .post("/shifts", shift(&sam_id, 4, (9, 0), (17, 0), 30))
        .expect(201);
    owner
        .post("/shifts", shift(&sam_id, 5, (9, 0), (13, 0), 0))
        .expect(201);
    owner
        .post("/shifts", shift(&sam_id, 6, (9, 0), (12, 0), 0))
        .expect(201);
    // Ada: Mon 16:00-22:00 less 15 = 345; her Tuesday draft is not the schedule yet.
    owner
        .post("/shifts", shift(&ada_id, 4, (16, 0), (22, 0), 15))
        .expect(201);
    owner
        .post(
            "/shifts/publish",
            json!({"from": text(4, 0, 0), "to": text(11, 0, 0)}),
        )
        .expect(200);
    owner
        .post("/shifts", shift(&ada_id, 5, (16, 0), (22, 0), 0))
        .expect(201);

    let punch = |who: &Client, day, h, m, what: &str| {
        clock.set(at(day, h, m));
        let status = if what == "clock-in" { 201 } else { 200 };
        who.post(&format!("/attendance/{what}"), json!({}))
            .expect(status);
    };
    // Mon: Sam 09:03 (within the 5 min grace) to 17:00 with 12:00-12:30 off: 477 - 30 = 447.
    punch(&sam, 4, 9, 3, "clock-in");
    punch(&sam, 4, 12, 0, "break-start");
    punch(&sam, 4, 12, 30, "break-end");
    // Ada 15:50 (early) to 22:10: 380.
    punch(&ada, 4, 15, 50, "clock-in");
    punch(&sam, 4, 17, 0, "clock-out");
    punch(&ada, 4, 22, 10, "clock-out");
    // Tue: Sam 09:10 (late) to 13:05: 235. Wed: Sam never comes (missed).
    punch(&sam, 5, 9, 10, "clock-in");
    punch(&sam, 5, 13, 5, "clock-out");
    clock.set(at(7, 10, 0));

    let compared = owner
        .get(&format!(
            "/shifts/compare?from={}&to={}",
            text(4, 0, 0),
            text(11, 0, 0)
        ))
        .expect(200);
    assert_eq!(compared["late_grace_minutes"], 5);
    let people = compared["people"].as_array().unwrap();
    assert_eq!(people.len(), 2);
    let (ada_row, sam_row) = (&people[0], &people[1]);
    assert_eq!(ada_row["user_name"], "Ada");
    assert_eq!(
        [
            &ada_row["shifts"],
            &ada_row["scheduled_minutes"],
            &ada_row["worked_minutes"],
            &ada_row["late_arrivals"],
            &ada_row["missed_shifts"]
        ],
        [&json!(1), &json!(345), &json!(380), &json!(0), &json!(0)]
    );
    // 380 min at 12.40/h = 78.5333: 78.53.
    assert_eq!(
        (
            ada_row["hourly_wage"].clone(),
            ada_row["labour_cost"].clone()
        ),
        (json!(12.4), json!(78.53))
    );
    assert_eq!(sam_row["user_name"], "Sam");
    assert_eq!(
        [
            &sam_row["shifts"],
            &sam_row["scheduled_minutes"],
            &sam_row["worked_minutes"],
            &sam_row["late_arrivals"],
            &sam_row["missed_shifts"]
        ],
        [&json!(3), &json!(870), &json!(682), &json!(1), &json!(1)]
    );
    // 682 min at 15.00/h = 170.50.
    assert_eq!(sam_row["labour_cost"], json!(170.5));
    assert_eq!(
        (
            compared["scheduled_minutes"].clone(),
            compared["worked_minutes"].clone(),
            compared["labour_cost"].clone()
        ),
        (json!(1215), json!(1062), json!(249.03))
    );

    // Wages are the owner's and manager's: staff may not compare.
    sam.get(&format!(
        "/shifts/compare?from={}&to={}",
        text(4, 0, 0),
        text(11, 0, 0)
    ))
    .expect_problem(403, "permission_denied");
    // Without a period: this week from Monday; with one bound, seven days.
    assert_eq!(
        owner.get("/shifts/compare").expect(200)["worked_minutes"],
        1062
    );
    let week_before = owner
        .get(&format!("/shifts/compare?to={}", text(11, 0, 0)))
        .expect(200);
    assert_eq!(week_before["from"], text(4, 0, 0));
    assert_eq!(week_before["scheduled_minutes"], 1215);
    for query in [
        "?from=2030-03-04&to=2030-03-11",
        "?from=2030-03-04T00:00:00Z&to=2030-03-03T00:00:00Z",
        "?from=2030-01-01T00:00:00Z&to=2030-06-01T00:00:00Z",
    ] {
        owner
            .get(&format!("/shifts/compare{query}"))
            .expect_problem(422, "validation_failed");
    }
}

#[test]
fn notifications_count_todays_shifts_nobody_clocked_in_for() {
    let app = app_at(at(7, 8, 0));
    let clock = &app.app().clock;
    let (sam, sam_id) = person(&app, Role::Server, "Sam");
    let (_, ada_id) = person(&app, Role::Cashier, "Ada");
    let owner = &app.owner;
    owner
        .post("/shifts", shift(&sam_id, 7, (9, 0), (17, 0), 0))
        .expect(201);
    // Yesterday's missed shift is not today's concern.
    owner
        .post("/shifts", shift(&sam_id, 6, (9, 0), (17, 0), 0))
        .expect(201);
    owner
        .post(
            "/shifts/publish",
            json!({"from": text(6, 0, 0), "to": text(8, 0, 0)}),
        )
        .expect(200);
    // A draft is not a shift anyone was told about.
    owner
        .post("/shifts", shift(&ada_id, 7, (9, 0), (17, 0), 0))
        .expect(201);
    let unstaffed = || owner.get("/notifications/summary").expect(200)["shifts_unstaffed"].clone();

    clock.set(at(7, 9, 14));
    assert_eq!(unstaffed(), 0);
    clock.set(at(7, 9, 15));
    assert_eq!(unstaffed(), 1);
    sam.post("/attendance/clock-in", json!({})).expect(201);
    assert_eq!(unstaffed(), 0);
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let app = app_at(at(1, 12, 0));
    let (_, sam_id) = person(&app, Role::Server, "Sam");
    let owner = &app.owner;
    let kept = owner
        .post("/shifts", shift(&sam_id, 4, (9, 0), (17, 0), 0))
        .expect(201);
    let path = format!("/shifts/{}", kept["id"].as_str().unwrap());

    owner
        .post_raw("/shifts", "application/json", b"{\"user_id\": ")
        .expect_problem(400, "malformed_json");
    let (_, other) = app.second_tenant("elsewhere");
    let (_, other_person) = {
        let me = other.get("/auth/me").expect(200);
        ((), me["user"]["id"].as_str().unwrap().to_string())
    };
    let theirs = other
        .post("/shifts", shift(&other_person, 4, (9, 0), (17, 0), 0))
        .expect(201);
    let station = app.station("Grill");
    let cases = [
        (
            json!({"user_id": sam_id, "ends_at": text(5, 17, 0)}),
            "starts_at",
        ),
        (
            json!({"user_id": sam_id, "starts_at": 9, "ends_at": text(5, 17, 0)}),
            "starts_at",
        ),
        (
            json!({"user_id": sam_id, "starts_at": "tomorrow", "ends_at": text(5, 17, 0)}),
            "starts_at",
        ),
        (shift(&sam_id, 5, (17, 0), (9, 0), 0), "ends_at"),
        (shift(&sam_id, 5, (9, 0), (9, 0), 0), "ends_at"),
        (
            json!({"user_id": sam_id, "starts_at": text(5, 9, 0), "ends_at": text(6, 10, 0)}),
            "ends_at",
        ),
        (shift(&sam_id, 5, (9, 0), (10, 0), 60), "break_minutes"),
        (shift(&sam_id, 5, (9, 0), (10, 0), -5), "break_minutes"),
        (
            json!({"user_id": sam_id, "starts_at": text(5, 9, 0), "ends_at": text(5, 10, 0), "break_minutes": "ten"}),
            "break_minutes",
        ),
        (shift("not-an-id", 5, (9, 0), (10, 0), 0), "user_id"),
        (shift(&other_person, 5, (9, 0), (10, 0), 0), "user_id"),
        (
            json!({"starts_at": text(5, 9, 0), "ends_at": text(5, 10, 0)}),
            "user_id",
        ),
        (
            json!({"role": "chef", "starts_at": text(5, 9, 0), "ends_at": text(5, 10, 0)}),
            "role",
        ),
        (
            json!({"station_id": theirs["id"], "starts_at": text(5, 9, 0), "ends_at": text(5, 10, 0)}),
            "station_id",
        ),
        (
            json!({"user_id": sam_id, "starts_at": text(5, 9, 0), "ends_at": text(5, 10, 0), "colour": "red"}),
            "colour",
        ),
    ];
    for (body, field) in cases {
        let refused = owner
            .post("/shifts", body.clone())
            .expect_problem(422, "validation_failed");
        assert!(
            // Serde names a missing, unknown or wrong-typed field in the message.
            refused["errors"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["field"] == field || e["message"].as_str().unwrap().contains(field)),
            "{body} should name {field}: {refused}"
        );
    }
    // A station of this business is fine for an open shift.
    owner
        .post(
            "/shifts",
            json!({"station_id": station, "starts_at": text(5, 9, 0), "ends_at": text(5, 10, 0)}),
        )
        .expect(201);

    for (body, field) in [
        (json!({"ends_at": text(4, 8, 0)}), "ends_at"),
        (json!({"user_id": null}), "user_id"),
        (json!({"break_minutes": true}), "break_minutes"),
        (json!({"notes": "x".repeat(501)}), "notes"),
    ] {
        let refused = owner
            .patch(&path, body)
            .expect_problem(422, "validation_failed");
        let error = &refused["errors"][0];
        assert!(
            error["field"] == field || error["message"].as_str().unwrap().contains(field),
            "{refused}"
        );
    }
    owner
        .patch(&path, json!({"ends_at": ")"}))
        .expect_problem(422, "validation_failed");
    let theirs_path = format!("/shifts/{}", theirs["id"].as_str().unwrap());
    owner.get(&theirs_path).expect_problem(404, "not_found");
    owner
        .patch(&theirs_path, json!({"notes": "mine"}))
        .expect_problem(404, "not_found");
    owner.delete(&theirs_path).expect_problem(404, "not_found");
    owner
        .get("/shifts/not-an-id")
        .expect_problem(404, "not_found");
    owner
        .get("/shifts?status=maybe")
        .expect_problem(422, "validation_failed");
    owner
        .get("/shifts?from=monday")
        .expect_problem(422, "validation_failed");
    owner
        .get("/shifts?limit=0")
        .expect_problem(422, "validation_failed");
    owner
        .post(
            "/shifts/publish",
            json!({"from": text(5, 0, 0), "to": text(4, 0, 0)}),
        )
        .expect_problem(422, "validation_failed");
    owner
        .post("/shifts/publish", json!({"from": text(4, 0, 0)}))
        .expect_problem(422, "validation_failed");

    assert_eq!(owner.get(&path).expect(200), kept);
    assert_eq!(stored_shifts(&app), 2);
    assert_eq!(other.get(&theirs_path).expect(200)["notes"], Value::Null);
}

#[test]
fn only_owners_and_managers_manage_the_schedule() {
    let app = app_at(at(1, 12, 0));
    let (_, sam_id) = person(&app, Role::Server, "Sam");
    let made = app
        .owner
        .post("/shifts", shift(&sam_id, 4, (9, 0), (17, 0), 0))
        .expect(201);
    let path = format!("/shifts/{}", made["id"].as_str().unwrap());
    for role in [Role::Cashier, Role::Server, Role::Host, Role::Kitchen] {
        let staff = app.user(role);
        staff
            .post("/shifts", shift(&sam_id, 5, (9, 0), (17, 0), 0))
            .expect_problem(403, "permission_denied");
        staff
            .patch(&path, json!({"notes": "mine"}))
            .expect_problem(403, "permission_denied");
        staff.delete(&path).expect_problem(403, "permission_denied");
        staff
            .post(
                "/shifts/publish",
                json!({"from": text(4, 0, 0), "to": text(5, 0, 0)}),
            )
            .expect_problem(403, "permission_denied");
        staff
            .post(
                "/shifts/copy-week",
                json!({"from_week": "2030-03-04", "to_week": "2030-03-11"}),
            )
            .expect_problem(403, "permission_denied");
        // Asking for drafts shows none.
        assert!(ids(&staff.get("/shifts?status=draft").expect(200)).is_empty());
    }
    // A device credential has no shifts of its own.
    app.api_key(Role::Server)
        .get("/shifts/me")
        .expect_problem(403, "user_required");
    assert_eq!(app.owner.get(&path).expect(200), made);
    assert_eq!(stored_shifts(&app), 1);
}

#[test]
fn the_list_pages_by_start_time_and_filters_by_person() {
    let app = app_at(at(1, 12, 0));
    let (_, sam_id) = person(&app, Role::Server, "Sam");
    let (_, ada_id) = person(&app, Role::Cashier, "Ada");
    let owner = &app.owner;
    let mut made = Vec::new();
    for day in [6, 4, 5] {
        made.push((
            day,
            owner
                .post("/shifts", shift(&sam_id, day, (9, 0), (12, 0), 0))
                .expect(201)["id"]
                .clone(),
        ));
    }
    let ada = owner
        .post("/shifts", shift(&ada_id, 5, (8, 0), (12, 0), 0))
        .expect(201)["id"]
        .clone();
    made.sort_by_key(|(day, _)| *day);

    let first = owner.get("/shifts?limit=2").expect(200);
    assert_eq!(
        ids(&first),
        vec![made[0].1.as_str().unwrap(), ada.as_str().unwrap()]
    );
    let cursor = first["next_cursor"].as_str().unwrap();
    let second = owner
        .get(&format!("/shifts?limit=2&cursor={cursor}"))
        .expect(200);
    assert_eq!(
        ids(&second),
        vec![made[1].1.as_str().unwrap(), made[2].1.as_str().unwrap()]
    );
    assert_eq!(second["next_cursor"], Value::Null);

    let sams = owner
        .get(&format!(
            "/shifts?user_id={sam_id}&from={}&to={}",
            text(5, 0, 0),
            text(7, 0, 0)
        ))
        .expect(200);
    assert_eq!(
        ids(&sams),
        vec![made[1].1.as_str().unwrap(), made[2].1.as_str().unwrap()]
    );
}
