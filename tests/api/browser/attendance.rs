//! The attendance screen in a real browser: a correction approved from the
//! queue and its history, a flagged open record closed by a manager's edit, and
//! the payroll lock.

use brigade::auth::Role;
use brigade::time::Clock;
use chrono::{DateTime, TimeZone, Utc};
use serde_json::{json, Value};

use super::Browser;
use crate::helpers::{Client, TestApp};

fn at(h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2030, 3, 6, h, m, 0).unwrap()
}

fn record_of(client: &Client, id: &str) -> Value {
    client.get("/attendance").expect(200)["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .cloned()
        .unwrap()
}

#[test]
fn a_manager_approves_a_correction_closes_a_flagged_record_and_locks_the_period() {
    let app = TestApp::spawn_with_clock(|_| {}, Clock::fixed(at(6, 0)));
    let clock = &app.app().clock;
    let (sam, ben) = (app.user(Role::Server), app.user(Role::Kitchen));
    let open = ben.post("/attendance/clock-in", json!({})).expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string();
    clock.set(at(9, 0));
    let day = sam.post("/attendance/clock-in", json!({})).expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string();
    clock.set(at(17, 0));
    sam.post("/attendance/clock-out", json!({})).expect(200);
    clock.set(at(21, 0));
    let correction = sam
        .post(
            &format!("/attendance/{day}/corrections"),
            json!({"clock_out": "2030-03-06T18:00:00Z", "reason": "closed the bar"}),
        )
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string();

    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.nav("attendance");
    browser.set_value("input[name=week]", "2030-03-06");
    browser.wait_for(&format!("tr[data-record='{open}'].flagged"));
    browser.wait_for(&format!("tr[data-correction='{correction}']"));
    browser.screenshot("attendance-queue");

    browser.fill(
        &format!("tr[data-correction='{correction}'] input[name=note]"),
        "seen on camera",
    );
    browser.click(&format!(
        "tr[data-correction='{correction}'] [data-action=approve]"
    ));
    browser.wait_gone(&format!("tr[data-correction='{correction}']"));
    let approved = record_of(&app.owner, &day);
    assert_eq!(approved["clock_out"], "2030-03-06T18:00:00.000Z");
    let decided = app
        .owner
        .get("/attendance/corrections?status=approved")
        .expect(200);
    assert_eq!(decided["data"][0]["note"], "seen on camera");
    browser.wait_for_text(&format!("tr[data-record='{day}'] [data-worked]"), "9 h 00");

    browser.click(&format!(
        "tr[data-record='{day}'] [data-action=show-history]"
    ));
    browser.wait_for("[data-panel=history] tr[data-history=correction]");
    assert!(browser.exists("[data-panel=history] tr[data-history=clock_out]"));
    // The change names the owner who approved it.
    browser.wait_for_text(
        "[data-panel=history] tr[data-history=correction]",
        "by Test User",
    );
    browser.screenshot("attendance-history");

    browser.click(&format!(
        "tr[data-record='{open}'] [data-action=edit-record]"
    ));
    browser.set_value("input[name=edit-clock-out]", "2030-03-06T14:00");
    browser.click("[data-action=save-edit]");
    browser.wait_for("[data-error-for=edit-reason]");
    browser.fill("input[name=edit-reason]", "forgot to clock out");
    browser.click("[data-action=save-edit]");
    browser.wait_gone(&format!("tr[data-record='{open}'].flagged"));
    let closed = record_of(&app.owner, &open);
    assert_eq!(closed["clock_out"], "2030-03-06T14:00:00.000Z");
    let history = app
        .owner
        .get(&format!("/attendance/{open}/history"))
        .expect(200);
    assert_eq!(history[0]["change"], "edit");
    assert_eq!(history[0]["reason"], "forgot to clock out");

    browser.set_value("input[name=lock-until]", "2030-03-06T20:00");
    browser.click("[data-action=lock]");
    browser.wait_for_text("[data-lock]", "Locked for payroll");
    assert_eq!(
        app.owner.get("/attendance/lock").expect(200)["locked_until"],
        "2030-03-06T20:00:00.000Z"
    );
    browser.screenshot("attendance-locked");
    browser.finish();
}
