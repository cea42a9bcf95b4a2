//! The schedule: a manager drafts a shift by dragging along a day, moves one to
//! another day by dragging it, sees an overlap named, publishes the week and
//! copies it to the next.

use brigade::auth::Role;
use chrono::{Datelike, Duration, NaiveDate, Utc};
use serde_json::{json, Value};

use super::Browser;
use crate::helpers::TestApp;

/// A staff member named `name`; returns their id.
fn person(app: &TestApp, role: Role, name: &str) -> String {
    let id = app.user(role).get("/auth/me").expect(200)["user"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.owner
        .patch(&format!("/users/{id}"), json!({"name": name}))
        .expect(200);
    id
}

fn at(date: NaiveDate, clock: &str) -> String {
    format!("{date}T{clock}:00Z")
}

/// The middle left and right of a day cell's time track at two local hours.
fn along_cell(
    browser: &mut Browser,
    cell: &str,
    from_hour: f64,
    to_hour: f64,
) -> ((f64, f64), (f64, f64)) {
    let r: Value = browser.eval(&format!(
        "(() => {{ const r = document.querySelector({cell:?}).getBoundingClientRect(); \
         return [r.left, r.width, r.bottom - 8]; }})()"
    ));
    let (left, width, y) = (
        r[0].as_f64().unwrap(),
        r[1].as_f64().unwrap(),
        r[2].as_f64().unwrap(),
    );
    let x = |hour: f64| left + width * (hour - 6.0) / 18.0;
    ((x(from_hour), y), (x(to_hour), y))
}

fn middle(browser: &mut Browser, selector: &str) -> (f64, f64) {
    let r: Value = browser.eval(&format!(
        "(() => {{ const r = document.querySelector({selector:?}).getBoundingClientRect(); \
         return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
    ));
    (r[0].as_f64().unwrap(), r[1].as_f64().unwrap())
}

fn shifts_of(app: &TestApp, user_id: &str) -> Vec<Value> {
    app.owner
        .get(&format!("/shifts?user_id={user_id}"))
        .expect(200)["data"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_manager_drags_shifts_onto_the_week_publishes_it_and_copies_it_forward() {
    let app = TestApp::spawn();
    let today = Utc::now().date_naive();
    let monday = today - Duration::days(i64::from(today.weekday().num_days_from_monday()));
    let day = |n: i64| monday + Duration::days(n);
    let sam = person(&app, Role::Server, "Sam Server");
    let ada = person(&app, Role::Cashier, "Ada Cashier");
    let sams_monday = app
        .owner
        .post("/shifts", json!({"user_id": sam, "starts_at": at(day(0), "09:00"), "ends_at": at(day(0), "17:00")}))
        .expect(201);
    app.owner
        .post("/shifts", json!({"user_id": ada, "starts_at": at(day(1), "08:00"), "ends_at": at(day(1), "16:00"), "break_minutes": 30}))
        .expect(201);

    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.nav("schedule");
    browser.wait_for_text("[data-person]", "Sam Server");
    browser.wait_for_text(
        &format!("[data-user='{sam}'][data-date='{}'] [data-shift]", day(0)),
        "09:00–17:00",
    );

    // Drag along Ada's Wednesday from 10:00 to 16:00: a draft over those hours.
    let wednesday = format!("[data-user='{ada}'][data-date='{}']", day(2));
    let (from, to) = along_cell(&mut browser, &wednesday, 10.0, 16.0);
    browser.drag(from, to);
    browser.wait_for_text(&format!("{wednesday} [data-shift]"), "10:00–16:00");
    browser.wait_for_text(".notice.success", "Shift drafted");
    let drafted: Vec<Value> = shifts_of(&app, &ada)
        .into_iter()
        .filter(|s| s["starts_at"] == format!("{}T10:00:00.000Z", day(2)))
        .collect();
    assert_eq!(drafted.len(), 1, "{:?}", shifts_of(&app, &ada));
    assert_eq!(drafted[0]["ends_at"], format!("{}T16:00:00.000Z", day(2)));
    assert_eq!(drafted[0]["status"], "draft");

    // Sam's Monday onto Ada's Tuesday: she works then already, and it says so.
    let sams_chip = format!("[data-shift='{}']", sams_monday["id"].as_str().unwrap());
    let grab = middle(&mut browser, &sams_chip);
    let tuesday = middle(
        &mut browser,
        &format!("[data-user='{ada}'][data-date='{}']", day(1)),
    );
    browser.drag(grab, (tuesday.0, tuesday.1 + 20.0));
    browser.wait_for_text(".notice.error", "Ada Cashier already works");
    browser.wait_for(".shift-chip.clash");
    browser.screenshot("schedule-overlap");
    assert_eq!(
        shifts_of(&app, &sam)[0]["starts_at"],
        format!("{}T09:00:00.000Z", day(0))
    );

    // Onto Sam's own Thursday: moved, same hours.
    let grab = middle(&mut browser, &sams_chip);
    let thursday = middle(
        &mut browser,
        &format!("[data-user='{sam}'][data-date='{}']", day(3)),
    );
    browser.drag(grab, thursday);
    browser.wait_for_text(".notice.success", "Shift moved");
    browser.wait_for_text(
        &format!("[data-user='{sam}'][data-date='{}'] [data-shift]", day(3)),
        "09:00–17:00",
    );
    let moved = &shifts_of(&app, &sam)[0];
    assert_eq!(
        (moved["starts_at"].clone(), moved["ends_at"].clone()),
        (
            json!(format!("{}T09:00:00.000Z", day(3))),
            json!(format!("{}T17:00:00.000Z", day(3)))
        )
    );

    // A click on an empty cell opens the form.
    let friday = format!("[data-user='{sam}'][data-date='{}']", day(4));
    browser.click(&friday);
    browser.wait_for("input[name=start]");
    browser.set_value("input[name=start]", "12:00");
    browser.set_value("input[name=end]", "18:30");
    browser.fill("input[name=notes]", "Terrace");
    browser.click("button[data-action=save-shift]");
    browser.wait_for_text(&format!("{friday} [data-shift]"), "12:00–18:30");
    browser.screenshot("schedule");

    browser.click("button[data-action=publish-week]");
    browser.wait_for_text(".notice.success", "4 shifts published");
    browser.wait_gone(".shift-chip.draft");
    assert!(shifts_of(&app, &ada)
        .iter()
        .all(|s| s["status"] == "published"));

    browser.click("button[data-action=next-week]");
    browser.wait_for(&format!("[data-week='{}']", day(7)));
    browser.click("button[data-action=copy-week]");
    browser.wait_for_text(
        ".notice.success",
        "4 shifts copied from last week as drafts",
    );
    browser.wait_for_text(
        &format!(
            "[data-user='{sam}'][data-date='{}'] .shift-chip.draft",
            day(10)
        ),
        "09:00–17:00",
    );
    browser.screenshot("schedule-copied");
    browser.finish();
}
