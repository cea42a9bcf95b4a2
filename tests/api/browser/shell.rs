//! The admin app's shell: the login, the sidebar each role gets, the end of a
//! session, and the API document viewer.

use std::time::Duration;

use brigade::auth::Role;

use super::{new_user, Browser, OWNER_EMAIL};
use crate::helpers::{TestApp, PASSWORD};

const OWNER_LINKS: [&str; 14] = [
    "dashboard",
    "floor",
    "waitlist",
    "reservations",
    "orders",
    "menu",
    "campaigns",
    "kitchen",
    "staff",
    "devices",
    "schedule",
    "attendance",
    "integrations",
    "settings",
];

#[test]
fn the_root_shows_the_login_and_the_owner_reaches_the_dashboard() {
    let app = TestApp::spawn();
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.open("/");
    browser.wait_for("input[name=email]");
    assert_eq!(browser.path(), "/admin/", "/ leads to the admin app");
    browser.wait_for("input[name=password]");
    browser.wait_for_text("button[type=submit]", "Log in");
    browser.screenshot("login");

    browser.login_as_owner();
    // The dashboard's heading comes once its figures have loaded.
    browser.wait_for("main.content h1");
    let links: Vec<String> = browser.eval(
        "Array.from(document.querySelectorAll('nav.sidebar a[data-nav]')).map((a) => a.dataset.nav)",
    );
    assert_eq!(links, OWNER_LINKS, "an owner may open every screen");
    assert_eq!(
        browser.attribute("a[data-nav=dashboard]", "aria-current"),
        Some("page".to_string())
    );
    assert!(
        browser.text("nav.sidebar").contains("Test Bistro"),
        "the sidebar names the business"
    );
    browser.screenshot("dashboard");
    browser.tablet();
    browser.wait_for("nav.sidebar");
    browser.screenshot("dashboard-tablet");
    browser.desktop();

    // The session survives a reload and ends with the logout button.
    browser.reload();
    browser.wait_for("nav.sidebar");
    browser.logout();
    assert!(!browser.exists("nav.sidebar"));
    browser.finish();
}

#[test]
fn a_wrong_password_is_refused_on_the_form() {
    let app = TestApp::spawn();
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.open("/admin/");
    browser.submit_login(OWNER_EMAIL, "not the password");
    browser.wait_for_text("[role=alert]", "Wrong email or password");
    assert!(!browser.exists("nav.sidebar"), "no way in");
    assert_eq!(
        browser.value("input[name=email]"),
        OWNER_EMAIL,
        "the email stays for another try"
    );
    browser.wait_for_text("button[type=submit]", "Log in");
    browser.screenshot("login-wrong-password");

    // The right password still works from the same form.
    browser.login(OWNER_EMAIL, PASSWORD);
    // The refused attempt's 401 is the app's business, not a console error.
    browser.finish();
}

#[test]
fn a_host_gets_no_integrations_or_settings() {
    let app = TestApp::spawn();
    let host = new_user(&app, Role::Host);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login(&host, PASSWORD);
    let links: Vec<String> = browser.eval(
        "Array.from(document.querySelectorAll('nav.sidebar a[data-nav]')).map((a) => a.dataset.nav)",
    );
    assert!(
        !links.iter().any(|l| [
            "integrations",
            "settings",
            "staff",
            "devices",
            "campaigns",
            "schedule",
            "attendance"
        ]
        .contains(&l.as_str())),
        "a host's sidebar: {links:?}"
    );
    for screen in ["floor", "waitlist", "reservations"] {
        assert!(
            links.iter().any(|l| l == screen),
            "a host works the {screen}: {links:?}"
        );
    }
    browser.screenshot("host-start");

    browser.open("/admin/integrations");
    browser.wait_for_text("main.content .card h1", "Not available");
    assert!(!browser.exists("a[data-nav=integrations]"));
    browser.screenshot("host-not-available");
    browser.finish();
}

#[test]
fn the_end_of_the_token_sends_the_user_back_to_the_login() {
    let app = TestApp::spawn_with(|c| c.token_ttl = Duration::from_secs(3));
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    // Nothing is clicked: the idle screen ends the session by itself.
    browser.wait_for_text("main.login", "Your session has ended");
    browser.wait_for("input[name=email]");
    assert!(!browser.exists("nav.sidebar"));
    let stored: Option<String> = browser.eval("localStorage.getItem('brigade.session')");
    assert_eq!(stored, None, "the token is forgotten");
    browser.screenshot("session-ended");
    browser.finish();
}

#[test]
fn a_kitchen_account_is_pointed_to_the_kitchen_display() {
    let app = TestApp::spawn();
    let cook = new_user(&app, Role::Kitchen);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.open("/admin/");
    browser.submit_login(&cook, PASSWORD);
    browser.wait_for_text("main", "kitchen display");
    assert_eq!(
        browser.attribute("main a[href^='/kitchen']", "href"),
        Some("/kitchen/".to_string())
    );
    assert!(
        !browser.exists("nav.sidebar"),
        "no back office for the kitchen"
    );
    browser.screenshot("kitchen-account");
    browser.click_text("button", "Log out");
    browser.wait_for("input[name=email]");
    browser.finish();
}

#[test]
fn the_api_docs_render_within_the_content_policy() {
    let app = TestApp::spawn();
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.open("/api/v1/docs/");
    browser.wait_for_text(".swagger-ui .info .title", "Brigade API");
    // The operations are listed from the served document.
    browser.wait_for_text(".swagger-ui .opblock-tag", "Auth");
    browser.wait_for_text(".swagger-ui .opblock-summary-path", "/api/v1/auth/login");
    browser.screenshot("api-docs");
    browser.finish();
}
