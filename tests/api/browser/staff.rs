//! The staff and devices screens in a real browser: adding, editing and
//! deactivating staff; a setup key with its QR code, a device that pairs with it
//! (through the API, while the screen is open) appearing in the list, and
//! revoking it.

use serde_json::{json, Value};

use super::Browser;
use crate::helpers::{Client, TestApp};

fn member(app: &TestApp, email: &str) -> Option<Value> {
    app.owner.get("/users?limit=200").expect(200)["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == email)
        .cloned()
}

#[test]
fn an_owner_adds_edits_and_deactivates_a_staff_member() {
    let app = TestApp::spawn();
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.nav("staff");
    browser.click("[data-action=new-user]");
    browser.fill("input[name=name]", "Grace Hopper");
    browser.fill("input[name=email]", "grace@test.example");
    browser.select("select[name=role]", "cashier");
    browser.fill("input[name=phone]", "555-0199");
    browser.fill("input[name=hourly_wage]", "19.50");
    browser.fill("input[name=pin]", "12");
    browser.fill("input[name=password]", "temporary pass");
    browser.click("[data-action=save-user]");
    browser.wait_for("[data-error-for=pin]");
    browser.fill("input[name=pin]", "4812");
    browser.click("[data-action=save-user]");
    browser.wait_for("tr[data-user='grace@test.example']");
    let grace = member(&app, "grace@test.example").expect("added through the API");
    assert_eq!(grace["role"], "cashier");
    assert_eq!(grace["hourly_wage"], 19.5);
    assert_eq!(grace["has_pin"], true);
    assert_eq!(grace["must_change_password"], true);

    browser.click("tr[data-user='grace@test.example'] [data-action=edit-user]");
    browser.select("select[name=role]", "server");
    browser.click("[data-action=save-user]");
    browser.wait_for_text(
        "tr[data-user='grace@test.example'] td:nth-child(2)",
        "Server",
    );
    browser.screenshot("staff");

    browser.click("tr[data-user='grace@test.example'] [data-action=deactivate-user]");
    browser.click("tr[data-user='grace@test.example'] [data-action=confirm]");
    browser.wait_for_text(
        "tr[data-user='grace@test.example'] [data-status]",
        "Inactive",
    );
    assert_eq!(member(&app, "grace@test.example").unwrap()["active"], false);
    browser.finish();
}

#[test]
fn a_device_paired_with_a_setup_key_appears_in_the_devices_list_and_is_revoked() {
    let app = TestApp::spawn();
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.nav("devices");
    browser.fill("input[name=key-name]", "Kitchen 1");
    browser.select("select[name=key-role]", "kitchen");
    browser.click("[data-action=create-setup-key]");
    browser.wait_for("[data-code]");
    let code = browser.text("[data-code]");
    assert_eq!(code.trim().len(), 11, "{code}");
    assert!(browser.exists("[data-panel=setup-key] img[src^='data:image/svg+xml']"));
    browser.wait_for("tr[data-setup-key='Kitchen 1']");
    browser.screenshot("setup-key");

    // The device pairs from elsewhere; the open screen shows it.
    let paired = Client::anonymous(&app.base)
        .post(
            "/devices/pair",
            json!({"code": code.trim(), "device_name": "Pass screen"}),
        )
        .expect(201);
    let device = Client {
        token: Some(paired["api_key"].as_str().unwrap().to_string()),
        ..Client::anonymous(&app.base).with_tenant(&app.tenant_id)
    };
    device.get("/kitchen/stations").expect(200);
    browser.wait_for("tr[data-device='Pass screen']");
    browser.wait_gone("tr[data-setup-key='Kitchen 1']");
    browser.wait_gone("[data-code]");
    browser.wait_for_text("tr[data-device='Pass screen'] td:nth-child(4)", "127.0.0.1");
    browser.screenshot("devices");

    browser.click("tr[data-device='Pass screen'] [data-action=revoke-device]");
    browser.click("tr[data-device='Pass screen'] [data-action=confirm]");
    browser.wait_for_text("tr[data-device='Pass screen'] [data-status]", "Revoked");
    device
        .get("/kitchen/stations")
        .expect_problem(401, "unauthorized");
    browser.finish();
}

#[test]
fn a_temporary_password_is_replaced_at_the_first_login() {
    let app = TestApp::spawn();
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    app.owner
        .post(
            "/users",
            json!({"name": "Linus", "email": "linus@test.example", "role": "manager",
                   "password": "temporary pass"}),
        )
        .expect(201);
    browser.submit_login("linus@test.example", "temporary pass");
    browser.wait_for("input[name=new_password]");
    browser.fill("input[name=current_password]", "temporary pass");
    browser.fill("input[name=new_password]", "linus own pass");
    browser.fill("input[name=new_password_again]", "linus own pass");
    browser.click("[data-action=change-password]");
    browser.wait_for("nav.sidebar");
    assert_eq!(
        member(&app, "linus@test.example").unwrap()["must_change_password"],
        false
    );
    browser.finish();
}
