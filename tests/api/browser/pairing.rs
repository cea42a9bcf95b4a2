//! Pairing a device where a setup key's QR code leads: a kitchen screen signs
//! itself in as the device and runs the display until the device is revoked;
//! any other device is shown its credential once. Wrong and refused codes show
//! the server's message and leave the form usable.

use brigade::auth::Role;
use serde_json::{json, Value};

use super::Browser;
use crate::helpers::TestApp;

/// A phone held upright.
const PHONE: (u32, u32) = (390, 844);

/// A setup key made through the API by a manager; its `pair_url` as a path on
/// the test server, and its code.
fn setup_key(app: &TestApp, name: &str, role: &str) -> (String, String) {
    let key = app
        .user(Role::Manager)
        .post("/devices/setup-keys", json!({"name": name, "role": role}))
        .expect(201);
    let url = key["pair_url"].as_str().unwrap();
    let code = key["code"].as_str().unwrap().to_string();
    let path = url
        .strip_prefix(&app.base)
        .unwrap_or_else(|| panic!("{url} is not on {}", app.base));
    assert_eq!(path, format!("/kitchen/pair?code={code}"));
    (path.to_string(), code)
}

/// Types `text` into the code field with the keyboard, after clearing it;
/// the field upper-cases what is typed, so `Browser::fill` would not match.
fn type_code(browser: &mut Browser, text: &str) {
    let _: Value = browser.eval(
        "(() => { const el = document.querySelector('input[name=code]'); el.focus(); el.select(); return null; })()",
    );
    browser.press("Backspace");
    browser.type_text(text);
}

fn device(app: &TestApp, name: &str) -> Option<Value> {
    let listed = app.owner.get("/devices").expect(200);
    listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == name)
        .cloned()
}

#[test]
fn a_kitchen_screen_pairs_from_the_qr_code_and_runs_the_display_until_revoked() {
    let app = TestApp::spawn();
    let (path, code) = setup_key(&app, "Pass", "kitchen");
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.tablet();
    browser.open(&path);
    browser.wait_for_text("h1", "Pair this device");
    assert_eq!(browser.value("input[name=code]"), code);
    assert_eq!(browser.value("input[name=device_name]"), "Kitchen screen");
    browser.screenshot("pair");

    // A wrong code shows the server's message; the form stays as typed.
    type_code(&mut browser, "zzzzz-zzzzz");
    assert_eq!(
        browser.value("input[name=code]"),
        "ZZZZZ-ZZZZZ",
        "upper-cased"
    );
    browser.fill("input[name=device_name]", "Pass screen");
    browser.click("[data-action=pair]");
    browser.wait_for_text(".notice.error", "No setup key has this code");
    assert_eq!(browser.value("input[name=device_name]"), "Pass screen");
    assert!(device(&app, "Pass screen").is_none());

    // Typed loosely, the right code pairs; the screen is the device, signed in.
    type_code(&mut browser, &code.to_lowercase().replace('-', " "));
    browser.click("[data-action=pair]");
    browser.wait_for("[data-station=Kitchen]");
    assert_eq!(browser.path(), "/kitchen/");
    assert!(browser
        .text(".picker-foot")
        .contains("Signed in as Pass screen"));
    let listed = device(&app, "Pass screen").expect("the device is listed");
    assert_eq!(listed["role"], "kitchen");
    assert!(listed["revoked_at"].is_null());
    let saved: Value = browser.eval("JSON.parse(localStorage.getItem('brigade.session'))");
    assert_eq!(saved["tenant"]["id"], app.tenant_id.as_str());
    assert_eq!(saved["user"]["id"], listed["id"]);
    assert!(
        saved["token"].as_str().unwrap().starts_with("brk_"),
        "{saved}"
    );
    browser.screenshot("pair-done");

    // A restart comes back as the device, with no password.
    browser.reload();
    browser.click("[data-station=Kitchen]");
    browser.wait_for_text("[data-current-station]", "Kitchen");
    browser.wait_for_text(".board-empty", "No tickets");
    browser.screenshot("pair-board");

    // Revoking the device ends the display's session at once.
    app.owner
        .post(
            &format!("/devices/{}/revoke", listed["id"].as_str().unwrap()),
            json!({}),
        )
        .expect(200);
    browser.wait_for("input[name=email]");
    browser.wait_for_text(".notice.info", "Your session has ended");
    let saved: Value = browser.eval("localStorage.getItem('brigade.session')");
    assert!(saved.is_null());
    browser.finish();
}

#[test]
fn a_terminal_is_shown_its_key_once_and_refused_codes_keep_the_form() {
    let app = TestApp::spawn();
    let (path, code) = setup_key(&app, "Bar", "cashier");
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.set_viewport(PHONE);
    browser.open(&path);
    browser.fill("input[name=device_name]", "Bar terminal");
    browser.click("[data-action=pair]");
    browser.wait_for_text(
        ".pair-done",
        "Enter this key in the terminal's settings; it is shown once",
    );
    let key = browser.text("[data-key]");
    assert!(key.starts_with("brk_"), "{key}");
    assert!(browser.text(".pair-done").contains("Cashier"));
    browser.click("[data-action=copy]");
    browser.wait_for(".pair-done [role=status]");
    // Not signed in here: the key belongs in the terminal.
    let saved: Value = browser.eval("localStorage.getItem('brigade.session')");
    assert!(saved.is_null());
    browser.screenshot("pair-terminal");

    // The key works as the device's credential.
    let terminal = crate::helpers::Client {
        token: Some(key),
        ..crate::helpers::Client::anonymous(&app.base).with_tenant(&app.tenant_id)
    };
    terminal.get("/orders").expect(200);
    assert_eq!(device(&app, "Bar terminal").unwrap()["role"], "cashier");

    // The used code is refused; after five refusals the address must wait.
    browser.open(&path);
    browser.click("[data-action=pair]");
    browser.wait_for_text(".notice.error", "used");
    for _ in 0..4 {
        browser.fill("input[name=code]", "WRONG-CODE1");
        browser.click("[data-action=pair]");
        browser.wait_for_text(".notice.error", "No setup key has this code");
        browser.wait_until(
            "the Pair button is enabled again",
            "!document.querySelector('[data-action=pair]').disabled",
        );
    }
    browser.fill("input[name=code]", &code);
    browser.click("[data-action=pair]");
    browser.wait_for_text(
        ".notice.error",
        "Too many attempts; try again in 15 minutes.",
    );
    assert!(browser.exists("[data-action=pair]:not([disabled])"));
    browser.screenshot("pair-refused");
    browser.finish();
}
