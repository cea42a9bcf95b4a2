//! Reservations: booking from the dialog, the moves of a booking up to check-in,
//! the server's refusals shown where they belong, and the weekly booking hours.

use brigade::auth::Role;
use serde_json::{json, Value};

use super::{new_user, Browser};
use crate::helpers::{next_week_at_seven, TestApp, PASSWORD};

/// The reservations of a local day, as the API lists them.
fn day(app: &TestApp, date: &str) -> Vec<Value> {
    app.owner
        .get(&format!("/reservations?date={date}"))
        .expect(200)["data"]
        .as_array()
        .unwrap()
        .clone()
}

/// The first time the booking dialog offers, once it has looked them up.
fn first_offered_time(browser: &mut Browser) -> Option<String> {
    browser.wait_until(
        "the free times",
        "!document.querySelector('#field-starts_at').disabled",
    );
    browser.eval(
        "Array.from(document.querySelectorAll('#field-starts_at option')).map((o) => o.value).find((v) => v) ?? null",
    )
}

#[test]
fn a_host_books_a_guest_from_the_dialog_and_seats_them_at_check_in() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[2, 4]);
    app.open_for_bookings(20, 8);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login(&new_user(&app, Role::Host), PASSWORD);
    browser.nav("reservations");
    browser.wait_for_text("[data-panel=reservations]", "No reservations");
    assert!(
        !browser.exists("[data-tab=hours]"),
        "booking hours are for managers"
    );

    browser.click("[data-action=new-reservation]");
    // Nothing typed yet: the form says what is missing and sends nothing.
    browser.click("[data-action=save-reservation]");
    browser.wait_for_text("[data-error-for=name]", "name");
    browser.wait_for("[data-error-for=phone]");
    browser.fill("#field-name", "Ada");
    browser.fill("#field-phone", "555-0100");
    browser.set_value("#field-party_size", "2");
    browser.fill("#field-notes", "Window seat");
    // Late in the (UTC) day there may be no slot left today: book tomorrow then.
    let mut time = first_offered_time(&mut browser);
    if time.is_none() {
        let tomorrow = (chrono::Utc::now() + chrono::Duration::days(1))
            .format("%Y-%m-%d")
            .to_string();
        browser.set_value("#field-date", &tomorrow);
        time = first_offered_time(&mut browser);
    }
    let time = time.expect("a free time");
    browser.select("#field-starts_at", &time);
    browser.screenshot("reservations-new");
    browser.click("[data-action=save-reservation]");
    browser.wait_for("[data-reservation-name=Ada][data-status=pending]");
    browser.wait_for_text(".notice.success", "Booked Ada");

    let date = &time[..10];
    let booked = day(&app, date);
    assert_eq!(booked.len(), 1, "{booked:?}");
    let id = booked[0]["id"].as_str().unwrap().to_string();
    assert_eq!(booked[0]["name"], "Ada");
    assert_eq!(booked[0]["party_size"], 2);
    assert_eq!(booked[0]["notes"], "Window seat");
    assert_eq!(booked[0]["starts_at"], time.as_str());

    browser.click("[data-reservation-name=Ada] [data-action=confirm]");
    browser.wait_for("[data-reservation-name=Ada][data-status=confirmed]");
    browser.click("[data-reservation-name=Ada] [data-action=check-in]");
    browser.wait_for("[data-choice=T1]");
    browser.click("[data-choice=T1] input");
    browser.screenshot("reservations-check-in");
    browser.click("[data-action=confirm-check-in]");
    browser.wait_for("[data-reservation-name=Ada][data-status=checked_in]");
    browser.wait_for_text(".notice.success", "seated at T1");
    browser.wait_for_text("[data-reservation-name=Ada]", "T1");
    browser.screenshot("reservations-day");

    let checked_in = app.owner.get(&format!("/reservations/{id}")).expect(200);
    assert_eq!(checked_in["status"], "checked_in");
    let session = checked_in["session_id"].as_str().expect("a session");
    let session = app.owner.get(&format!("/sessions/{session}")).expect(200);
    assert_eq!(session["tables"][0]["name"], "T1");
    assert_eq!(session["party_size"], 2);
    browser.finish();
}

#[test]
fn refusals_from_the_server_show_next_to_their_fields_and_keep_what_was_typed() {
    let app = TestApp::spawn();
    app.floor_with_tables(&[10, 10, 10]);
    app.open_for_bookings(10, 8);
    let (date, seven) = next_week_at_seven();
    // Booked off the slots, with staff's licence to.
    let off_slot = format!("{date}T19:10:00.000Z");
    app.owner
        .post(
            "/reservations",
            json!({"name": "Grace", "phone": "555-0101", "party_size": 4,
                   "starts_at": off_slot, "outside_rules": true}),
        )
        .expect(201);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.nav("reservations");
    browser.set_value("input[name=day]", &date);
    browser.wait_for("[data-reservation-name=Grace]");

    // A bigger party at a time between slots: the server refuses the time (422).
    browser.click("[data-reservation-name=Grace] [data-action=edit]");
    browser.wait_until(
        "its own time on offer",
        "Array.from(document.querySelectorAll('#field-starts_at option')).some((o) => o.selected && o.text.includes('(current)'))",
    );
    browser.set_value("#field-party_size", "5");
    browser.click("[data-action=save-reservation]");
    browser.wait_for_text("[data-error-for=starts_at]", "not a bookable slot");
    assert_eq!(
        browser.value("#field-party_size"),
        "5",
        "what was typed stays"
    );
    browser.screenshot("reservations-field-error");
    browser.click(".dialog [aria-label=Close]");

    // Too big a party for the day: the availability lookup says so by the party size.
    browser.click("[data-action=new-reservation]");
    browser.set_value("#field-date", &date);
    browser.set_value("#field-party_size", "12");
    browser.wait_for_text("[data-error-for=party_size]", "at most 8");

    // A slot that fills while the dialog is open: 409 as a notice, the form kept.
    browser.set_value("#field-party_size", "6");
    browser.fill("#field-name", "Katherine");
    browser.fill("#field-phone", "555-0102");
    browser.wait_until(
        "seven o'clock on offer",
        &format!("Array.from(document.querySelectorAll('#field-starts_at option')).some((o) => o.value === '{seven}')"),
    );
    browser.select("#field-starts_at", &seven);
    app.owner
        .post(
            "/reservations",
            json!({"name": "Walk-in group", "phone": "1", "party_size": 6, "starts_at": seven}),
        )
        .expect(201);
    browser.click("[data-action=save-reservation]");
    browser.wait_for_text("[data-problem=slot_full]", "room for 4 more guests");
    assert_eq!(browser.value("#field-name"), "Katherine");
    browser.screenshot("reservations-slot-full");
    // Outside the rules, staff take it anyway.
    browser.click("input[name=outside_rules]");
    browser.set_value("#field-starts_at", "19:00");
    browser.click("[data-action=save-reservation]");
    browser.wait_for("[data-reservation-name=Katherine]");
    assert_eq!(day(&app, &date).len(), 3);
    browser.finish();
}

#[test]
fn a_manager_closes_a_day_and_changes_the_booking_hours() {
    let app = TestApp::spawn();
    app.open_for_bookings(20, 8);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.nav("reservations");
    browser.click("[data-tab=hours]");
    browser.wait_for("[data-weekday=monday]");
    // An opening window that ends before it starts is caught before sending.
    browser.set_value("[aria-label='tuesday window 1 closes']", "00:00");
    browser.click("[data-action=save-hours]");
    browser.wait_for_text("[data-weekday=tuesday] .field-error", "end after it starts");
    browser.set_value("[aria-label='tuesday window 1 opens']", "12:00");
    browser.set_value("[aria-label='tuesday window 1 closes']", "15:00");
    browser.click("input[name=sunday-open]");
    browser.set_value("input[name=monday-max_covers_per_slot]", "30");
    browser.screenshot("reservations-hours");
    browser.click("[data-action=save-hours]");
    browser.wait_for_text(".notice.success", "Booking hours saved");

    let rules = app.owner.get("/reservations/time-slots").expect(200);
    let days = rules["days"].as_array().unwrap();
    assert_eq!(days.len(), 6, "Sunday is closed: {rules}");
    assert!(days.iter().all(|d| d["weekday"] != "sunday"));
    let tuesday = days.iter().find(|d| d["weekday"] == "tuesday").unwrap();
    assert_eq!(
        tuesday["windows"],
        json!([{"start": "12:00", "end": "15:00"}])
    );
    let monday = days.iter().find(|d| d["weekday"] == "monday").unwrap();
    assert_eq!(monday["max_covers_per_slot"], 30);
    browser.finish();
}
