//! Partners on the integrations screen in a real browser: a payment gateway
//! connected, changed and disconnected through the form; partners' messages
//! listed by status, opened and retried, and flagged on the dashboard; a
//! delivery platform's menu map edited.

use brigade::auth::Role;
use serde_json::{json, Value};

use super::{new_user, Browser};
use crate::helpers::{TestApp, PASSWORD};
use crate::integrations::{deliver, generic_headers, send_generic, settled, GENERIC_SECRET};

const PAYMENTS: &str = "payment/test-bistro/generic";

fn integrations(app: &TestApp) -> Vec<Value> {
    app.owner.get("/integrations").expect(200)["integrations"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_manager_connects_a_payment_partner_changes_it_and_disconnects_it() {
    let app = TestApp::spawn();
    let manager = new_user(&app, Role::Manager);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login(&manager, PASSWORD);
    browser.nav("integrations");
    browser.wait_for_text("[data-panel=partners]", "No partner connected yet");
    browser.click("[data-action=connect-partner]");
    browser.select("select[name=kind]", "payment");
    browser.select("select[name=partner]", "generic");

    // Options that are not a JSON object are named before anything is sent.
    browser.fill("textarea[name=options]", "[1]");
    browser.fill("input[name=secret]", "not-a-signing-secret");
    browser.click("[data-action=save-partner]");
    browser.wait_for_text("[data-error-for=options]", "JSON object");
    assert!(integrations(&app).is_empty());
    // The server names a secret of the wrong form beside its field.
    browser.fill("textarea[name=options]", "{}");
    browser.click("[data-action=save-partner]");
    browser.wait_for("[data-error-for=secret]");
    assert!(integrations(&app).is_empty());

    browser.fill("input[name=secret]", GENERIC_SECRET);
    assert_eq!(
        browser.attribute("input[name=secret]", "type").as_deref(),
        Some("password")
    );
    browser.click("[data-action=save-partner]");
    let row = "tr[data-partner='payment/generic']";
    browser.wait_for(row);
    browser.wait_for_text("[data-panel=partners]", "is connected");
    let url = browser.text(&format!("{row} [data-url]"));
    assert!(
        url.ends_with("/webhook/payment/test-bistro/generic"),
        "{url}"
    );
    assert!(browser.text(row).contains("····LaSw"));
    let secret_shown: bool = browser.eval(&format!(
        "document.body.innerText.includes({s:?}) || \
         Array.from(document.querySelectorAll('input, textarea')).some((i) => i.value.includes({s:?}))",
        s = GENERIC_SECRET
    ));
    assert!(!secret_shown, "the secret never shows again");
    let connected = integrations(&app);
    assert_eq!(connected.len(), 1);
    assert_eq!(connected[0]["url"], url.as_str());
    assert_eq!(connected[0]["enabled"], true);
    browser.click(&format!("{row} [data-action=copy-url]"));
    browser.wait_until(
        "the copy is answered",
        &format!("/Copied|by hand/.test(document.querySelector(\"{row}\").innerText)"),
    );

    browser.click(&format!("{row} [data-action=edit-partner]"));
    browser.wait_for_text("[data-panel=partner-form] h3", "Change Generic");
    assert_eq!(browser.value("input[name=secret]"), "", "no secret to show");
    browser.click("input[name=enabled]");
    browser.fill("textarea[name=options]", r#"{"note": "front desk"}"#);
    browser.screenshot("integrations-partners");
    browser.click("[data-action=save-partner]");
    browser.wait_for_text(&format!("{row} [data-status]"), "Off");
    let changed = &integrations(&app)[0];
    assert_eq!(changed["enabled"], false);
    assert_eq!(changed["options"], json!({"note": "front desk"}));
    assert_eq!(changed["secret_last4"], "LaSw", "the secret was kept");

    browser.click(&format!("{row} [data-action=disconnect-partner]"));
    browser.click(&format!("{row} [data-action=confirm]"));
    browser.wait_gone(row);
    browser.wait_for_text("[data-panel=partners]", "No partner connected yet");
    assert!(integrations(&app).is_empty());
    browser.finish();
}

#[test]
fn partners_messages_are_listed_by_status_opened_and_retried_and_flagged_on_the_dashboard() {
    let app = TestApp::spawn();
    app.owner
        .put(
            "/integrations/payment/generic",
            json!({"secret": GENERIC_SECRET}),
        )
        .expect(201);
    let item = app.menu_item(10.0, 0.0);
    let order = app.order(&item, 1);
    let paid = send_generic(
        &app.base,
        PAYMENTS,
        &json!({"type": "payment.succeeded", "order_id": order["id"], "amount": 1000,
                "currency": "USD", "reference": "pay_ok"}),
    );
    let processed = settled(&app.owner, paid.body["id"].as_str().unwrap());
    assert_eq!(processed["status"], "processed");
    let unknown = send_generic(
        &app.base,
        PAYMENTS,
        &json!({"type": "payment.succeeded", "order_id": "0190f5b2-0000-7000-8000-000000000000",
                "amount": 500, "currency": "USD", "reference": "pay_for_nobody"}),
    );
    let parked = settled(&app.owner, unknown.body["id"].as_str().unwrap());
    assert_eq!(parked["status"], "parked");
    let parked_id = parked["id"].as_str().unwrap().to_string();
    let body = json!({"type": "payment.succeeded", "amount": 1}).to_string();
    let forged = generic_headers(
        "whsec_c2VjcmV0LW9mLXNvbWVvbmUtZWxzZQ==",
        "msg_forged",
        &body,
        0,
    );
    assert_eq!(
        deliver(&app.base, PAYMENTS, &forged, body.as_bytes()).status,
        401
    );
    let manager = new_user(&app, Role::Manager);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login(&manager, PASSWORD);
    browser.wait_for("[data-panel=inbound-messages]");
    let notice = browser.text("[data-panel=inbound-messages]");
    assert!(notice.contains("1 message parked"), "{notice}");
    assert!(notice.contains("1 message refused"), "{notice}");
    assert!(!notice.contains("failed"), "{notice}");
    browser.screenshot("dashboard-inbound");

    browser.click("[data-panel=inbound-messages] a[data-link=parked]");
    browser.wait_for("[data-panel=messages] [data-filter=parked][aria-selected=true]");
    assert_eq!(browser.path(), "/admin/integrations/messages?status=parked");
    let parked_row = format!("tbody[data-message='{parked_id}']");
    browser.wait_for(&parked_row);
    assert_eq!(browser.count("table.messages tbody"), 1);
    assert_eq!(
        browser.text(&format!("{parked_row} [data-status]")),
        "Parked"
    );
    assert!(browser.text(&parked_row).contains("no order"));

    browser.click("[data-filter=all]");
    browser.wait_until(
        "three messages listed",
        "document.querySelectorAll('table.messages tbody').length === 3",
    );
    let statuses = browser.texts("table.messages [data-status]");
    assert_eq!(
        statuses,
        ["Rejected", "Parked", "Processed"],
        "newest first"
    );
    let processed_row = format!(
        "tbody[data-message='{}']",
        processed["id"].as_str().unwrap()
    );
    assert_eq!(
        browser.attribute(&format!("{processed_row} a[data-order]"), "href"),
        Some(format!("/admin/orders/{}", order["id"].as_str().unwrap()))
    );
    assert!(
        !browser.exists(&format!("{processed_row} [data-action=retry-message]")),
        "only parked and failed messages are retried"
    );
    browser.screenshot("integrations-messages");

    browser.click("[data-filter=rejected]");
    browser.wait_until(
        "only the refused message",
        "document.querySelectorAll('table.messages tbody').length === 1 \
         && document.querySelector('table.messages [data-status]').innerText.trim() === 'Rejected'",
    );
    assert!(browser
        .text("table.messages tbody")
        .contains("signature does not match"));
    assert_eq!(
        browser.path(),
        "/admin/integrations/messages?status=rejected"
    );

    browser.click("[data-filter=parked]");
    browser.wait_for(&parked_row);
    browser.click(&format!("{parked_row} [data-action=open-message]"));
    browser.wait_for_text(&format!("{parked_row} [data-body]"), "pay_for_nobody");
    assert!(browser
        .text(&format!("{parked_row} [data-headers]"))
        .contains("webhook-id"));
    assert_eq!(browser.text(&format!("{parked_row} [data-attempts]")), "1");
    browser.screenshot("integrations-message");

    browser.click(&format!("{parked_row} [data-action=retry-message]"));
    browser.wait_for_text(&format!("{parked_row} [data-attempts]"), "2");
    browser.wait_for_text(&format!("{parked_row} [data-status]"), "Parked");
    let retried = settled(&app.owner, &parked_id);
    assert_eq!(retried["attempts"], 2);
    assert_eq!(retried["status"], "parked", "its order is still unknown");
    browser.finish();
}

#[test]
fn a_delivery_platforms_items_are_mapped_to_the_menu_in_the_editor() {
    let app = TestApp::spawn();
    app.owner
        .put(
            "/integrations/delivery/generic",
            json!({"secret": GENERIC_SECRET}),
        )
        .expect(201);
    let burger = app.named_item("Burger", 9.0, 10.0);
    let fries = app.named_item("Fries", 3.0, 10.0);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login(&new_user(&app, Role::Manager), PASSWORD);
    browser.nav("integrations");
    browser.click("tr[data-partner='delivery/generic'] [data-action=menu-map]");
    browser.wait_for("[data-panel=menu-map]");
    browser.fill("input[name=external-0]", "sku-burger");
    browser.select("select[name=menu-item-0]", &burger);
    browser.click("[data-action=add-map-row]");
    browser.fill("input[name=external-1]", "sku-fries-large");
    // A row without its menu item is named, and nothing is sent.
    browser.click("[data-action=save-menu-map]");
    browser.wait_for_text("[data-error-for=menu-item-1]", "Choose a menu item");
    assert_eq!(
        app.owner
            .get("/integrations/delivery/generic/menu-map")
            .expect(200)["entries"],
        json!([])
    );
    browser.select("select[name=menu-item-1]", &fries);
    browser.click("[data-action=add-map-row]");
    browser.fill("input[name=external-2]", "sku-gone");
    browser.click("[data-map-row='2'] [data-action=remove-map-row]");
    browser.wait_gone("[data-map-row='2']");
    browser.click("[data-action=save-menu-map]");
    browser.wait_for_text(".dialog", "2 items mapped");
    browser.screenshot("integrations-menu-map");
    assert_eq!(
        app.owner
            .get("/integrations/delivery/generic/menu-map")
            .expect(200)["entries"],
        json!([
            {"external_id": "sku-burger", "menu_item_id": burger},
            {"external_id": "sku-fries-large", "menu_item_id": fries}
        ])
    );

    // An order the platform sends shows where it came from.
    let sent = send_generic(
        &app.base,
        "delivery/test-bistro/generic",
        &json!({"type": "order.created", "order": {
            "id": "ext-42", "display_id": "B7C2", "currency": "USD", "customer": {"name": "Ada"},
            "items": [{"sku": "sku-burger", "name": "Classic burger", "quantity": 2, "unit_price": 1050}],
            "fees": [{"name": "Delivery fee", "amount": 299}]}}),
    );
    let order_id = settled(&app.owner, sent.body["id"].as_str().unwrap())["order_id"]
        .as_str()
        .unwrap()
        .to_string();
    browser.open(&format!("/admin/orders/{order_id}"));
    assert_eq!(browser.text("[data-external]"), "Generic · B7C2");
    browser.wait_for_text("body", "Delivery fee");
    browser.screenshot("order-partner");
    browser.finish();
}
