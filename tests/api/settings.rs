//! Tenant settings.

use brigade::auth::Role;
use serde_json::json;

use crate::helpers::TestApp;

#[test]
fn settings_are_read_and_changed() {
    let app = TestApp::spawn();
    let settings = app.user(Role::Kitchen).get("/settings").expect(200);
    assert_eq!(
        settings,
        json!({"business_name": "Test Bistro", "currency": "USD", "timezone": "UTC", "business_day_start_hour": 4,
               "reservation_grace_minutes": 15, "auto_confirm_reservations": false, "table_hold_minutes": 60,
               "kitchen_auto_ready": true, "attendance_review_hours": 14})
    );
    let changed = app
        .user(Role::Manager)
        .patch(
            "/settings",
            json!({"timezone": "Europe/Paris", "reservation_grace_minutes": 20, "auto_confirm_reservations": true}),
        )
        .expect(200);
    assert_eq!(changed["timezone"], "Europe/Paris");
    assert_eq!(changed["reservation_grace_minutes"], 20);
    assert_eq!(changed["auto_confirm_reservations"], true);
    assert_eq!(
        changed["table_hold_minutes"], 60,
        "absent fields keep their value"
    );
}

#[test]
fn bad_settings_are_refused_and_change_nothing() {
    let app = TestApp::spawn();
    let refused = app
        .owner
        .patch(
            "/settings",
            json!({"timezone": "Mars/Olympus", "reservation_grace_minutes": -1, "table_hold_minutes": 10000}),
        )
        .expect_problem(422, "validation_failed");
    assert_eq!(refused["errors"].as_array().unwrap().len(), 3);
    app.owner
        .patch("/settings", json!({"currency": "EUR"}))
        .expect_problem(422, "validation_failed");
    app.owner
        .patch("/settings", json!({"auto_confirm_reservations": "yes"}))
        .expect_problem(422, "validation_failed");
    app.owner
        .post_raw("/settings", "application/json", b"{}")
        .expect_problem(404, "route_not_found");
    let settings = app.owner.get("/settings").expect(200);
    assert_eq!(
        (
            settings["timezone"].as_str(),
            settings["reservation_grace_minutes"].as_i64()
        ),
        (Some("UTC"), Some(15))
    );
}

#[test]
fn only_owners_and_managers_change_settings() {
    let app = TestApp::spawn();
    for role in [Role::Host, Role::Server, Role::Cashier, Role::Kitchen] {
        app.user(role)
            .patch("/settings", json!({"table_hold_minutes": 30}))
            .expect_problem(403, "permission_denied");
    }
}
