//! The back office's everyday screens in a real browser: the menu, the
//! waitlist, orders, integrations and settings. Each change made through a
//! screen is checked in the API it went through.

use serde_json::{json, Value};

use super::Browser;
use crate::helpers::TestApp;
use crate::receiver::dead_url;

#[test]
fn a_manager_builds_the_menu_and_86s_an_item() {
    let app = TestApp::spawn();
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    let (grill, bar) = (app.station("Grill"), app.station("Bar"));
    browser.login_as_owner();
    browser.nav("menu");
    browser.click("[data-action=new-category]");
    browser.fill("input[name=category-name]", "Small plates");
    browser.select("select[name=category-station]", &bar);
    browser.click("[data-action=save-category]");
    browser.wait_for("[data-category='Small plates']");
    let category_of = |name: &str| -> Value {
        app.owner.get("/menu/categories").expect(200)["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .expect("the category is in the API")
            .clone()
    };
    assert_eq!(category_of("Small plates")["station_id"], bar.as_str());

    browser.click("[data-action=new-item]");
    browser.fill("input[name=name]", "Padrón peppers");
    browser.fill("input[name=description]", "Blistered, sea salt");
    browser.fill("input[name=price]", "6.50");
    browser.fill("input[name=tax_rate]", "10");
    browser.select("select[name=station_id]", &grill);
    browser.click("[data-action=save-item]");
    browser.wait_for("tr[data-item='Padrón peppers']");

    let items = app.owner.get("/menu/items").expect(200);
    let item = items["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "Padrón peppers")
        .expect("the item is in the API")
        .clone();
    assert_eq!(item["price"], 6.5);
    assert_eq!(item["tax_rate"], 10.0);
    assert_eq!(item["station_id"], grill.as_str());
    // The category's station changes from the list; the item keeps its own.
    browser.select("select[name=category-station-current]", "");
    let saved = (0..50).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(100));
        category_of("Small plates")["station_id"].is_null()
    });
    assert!(saved, "the category's station was not cleared");
    browser.wait_for_text("tr[data-item='Padrón peppers'] td:nth-child(2)", "Grill");
    assert_eq!(item["available"], true);

    browser.click("tr[data-item='Padrón peppers'] [data-action=toggle-available]");
    browser.wait_for("tr.unavailable[data-item='Padrón peppers']");
    let id = item["id"].as_str().unwrap();
    assert_eq!(
        app.owner.get(&format!("/menu/items/{id}")).expect(200)["available"],
        false,
        "86'd in one click"
    );
    browser.screenshot("menu");
    browser.finish();
}

#[test]
fn a_field_the_server_refuses_shows_its_message_beside_it() {
    let app = TestApp::spawn();
    app.menu_item(4.0, 0.0);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.nav("menu");
    browser.click("[data-action=new-item]");
    browser.fill("input[name=name]", "Too precise");
    // A valid number to the form, but dollars have two decimals: the server's 422.
    browser.fill("input[name=price]", "3.999");
    browser.click("[data-action=save-item]");
    browser.wait_for("[data-error-for=price]");
    assert!(
        browser.text("[data-error-for=price]").contains("decimal"),
        "{}",
        browser.text("[data-error-for=price]")
    );
    assert_eq!(
        browser.value("input[name=name]"),
        "Too precise",
        "what was typed is kept"
    );
    browser.screenshot("menu-field-error");
    let items = app.owner.get("/menu/items").expect(200);
    assert_eq!(
        items["data"].as_array().unwrap().len(),
        1,
        "nothing created"
    );
    browser.finish();
}

#[test]
fn a_host_adds_a_party_to_the_waitlist_and_seats_it() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[2, 4]);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    let host = super::new_user(&app, brigade::auth::Role::Host);
    browser.login(&host, crate::helpers::PASSWORD);
    browser.nav("waitlist");
    browser.click("[data-action=add-party]");
    browser.fill("input[name=name]", "Lovelace");
    browser.fill("input[name=party_size]", "3");
    browser.fill("input[name=phone]", "555-0100");
    browser.click("[data-action=save-party]");
    browser.wait_for("tr[data-party=Lovelace]");
    browser.wait_for_text(".notice.success", "Q-001");
    browser.screenshot("waitlist");

    browser.click("tr[data-party=Lovelace] [data-action=seat]");
    browser.click("[data-table-name=T2]");
    browser.click("[data-action=confirm-seat]");
    browser.wait_gone("tr[data-party=Lovelace]");

    let sessions = app.owner.get("/sessions?status=open").expect(200);
    let session = &sessions["data"][0];
    assert_eq!(session["party_size"], 3);
    assert_eq!(session["tables"][0]["id"], tables[1].as_str());
    let ticket_id = session["queue_ticket_id"].as_str().unwrap();
    assert_eq!(
        app.owner.get(&format!("/queue/{ticket_id}")).expect(200)["status"],
        "seated"
    );
    browser.finish();
}

#[test]
fn an_order_is_found_read_and_cancelled_with_a_reason() {
    let app = TestApp::spawn();
    let item = app.menu_item(12.0, 10.0);
    let order = app.order(&item, 2);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.nav("orders");
    let number = order["order_number"].as_str().unwrap();
    browser.wait_for(&format!("tr[data-order='{number}']"));
    browser.click(&format!("tr[data-order='{number}'] a"));
    browser.wait_for_text("main.content h1", number);
    assert!(
        browser.text("main.content").contains("$26.40"),
        "the total with tax"
    );
    browser.screenshot("order");
    browser.click("[data-action=cancel-order]");
    browser.fill("input[name=reason]", "Guest left");
    browser.click("[data-action=confirm-cancel]");
    browser.wait_for_text("main.content h1", "Cancelled");
    browser.wait_for_text("[data-panel=order-events]", "order.cancelled");
    assert!(browser
        .text("[data-panel=order-events]")
        .contains("order.created"));
    let id = order["id"].as_str().unwrap();
    let cancelled = app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(cancelled["cancel_reason"], "Guest left");
    browser.finish();
}

#[test]
fn a_manager_refunds_a_line_and_cancels_a_paid_order_with_its_payments() {
    let app = TestApp::spawn();
    let item = app.menu_item(12.0, 10.0);
    let pay = |order: &Value, amount: f64| {
        let id = order["id"].as_str().unwrap();
        app.owner
            .post(
                &format!("/orders/{id}/payments"),
                json!({"method": "card", "amount": amount, "reference": "auth-1"}),
            )
            .expect(201);
        id.to_string()
    };
    // Two lines of 2 × 12.00 at 10 %: 52.80, paid and completed.
    let done = app
        .owner
        .post(
            "/orders",
            json!({"order_type": "takeaway", "items": [
                {"menu_item_id": item, "quantity": 2}, {"menu_item_id": item, "quantity": 2, "notes": "no onions"}
            ]}),
        )
        .expect(201);
    let done_id = pay(&done, 52.8);
    app.owner
        .post(
            &format!("/orders/{done_id}/status"),
            json!({"status": "completed"}),
        )
        .expect(200);
    let open = app.order(&item, 1);
    let open_id = pay(&open, 13.2);

    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    let manager = super::new_user(&app, brigade::auth::Role::Manager);
    browser.login(&manager, crate::helpers::PASSWORD);
    browser.open(&format!("/admin/orders/{done_id}"));
    browser.click("[data-action=refund-order]");
    let line = done["items"][0]["id"].as_str().unwrap();
    browser.fill(&format!("input[name='units-{line}']"), "1");
    browser.fill("input[name=reason]", "Cold fries");
    browser.select("select[name=method]", "cash");
    browser.screenshot("refund");
    browser.click("[data-action=confirm-refund]");
    // One unit: 12.00 and its 1.20 of tax.
    browser.wait_for_text("[data-total=refunded]", "$13.20");
    assert!(browser.text("main.content").contains("Cold fries"));
    let refunded = app.owner.get(&format!("/orders/{done_id}")).expect(200);
    assert_eq!(refunded["refunded_amount"], 13.2);
    assert_eq!(refunded["items"][0]["refunded_quantity"], 1);
    let payments = app
        .owner
        .get(&format!("/orders/{done_id}/payments"))
        .expect(200);
    assert_eq!(payments["data"][1]["method"], "cash");
    assert_eq!(payments["data"][1]["reason"], "Cold fries");
    browser.screenshot("order-refunded");

    browser.open(&format!("/admin/orders/{open_id}"));
    browser.click("[data-action=cancel-order]");
    browser.wait_for_text("[data-panel=cancel-refund]", "$13.20 was paid");
    browser.fill("input[name=reason]", "Guest left");
    browser.click("[data-action=confirm-cancel]");
    browser.wait_for_text("main.content h1", "Cancelled");
    let cancelled = app.owner.get(&format!("/orders/{open_id}")).expect(200);
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(cancelled["refunded_amount"], 13.2);
    browser.finish();
}

#[test]
fn a_failed_delivery_shows_on_the_dashboard_and_is_retried() {
    let app = TestApp::spawn();
    // Switched off, so no attempt races the test's own changes to the record.
    app.owner
        .put(
            "/settings/webhook",
            json!({"url": dead_url(), "enabled": false}),
        )
        .expect(200);
    let item = app.menu_item(5.0, 0.0);
    app.order(&item, 1);
    // A delivery that gave up after its 24 hours of retries.
    let event_id: String = app
        .tenant_file()
        .query_row(
            "UPDATE webhook_deliveries SET status = 'failed', last_error = 'connection refused' \
             WHERE seq = (SELECT MIN(seq) FROM webhook_deliveries) RETURNING event_id",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.wait_for("[data-panel=failed-deliveries]");
    assert!(browser
        .text("[data-panel=failed-deliveries]")
        .contains("order.created"));
    browser.screenshot("dashboard-failed-delivery");
    browser.click("[data-panel=failed-deliveries] a");
    let row = format!("tbody[data-delivery='{event_id}']");
    browser.wait_for(&row);
    browser.click(&format!("{row} [data-action=retry]"));
    browser.wait_until(
        "the delivery is pending again",
        &format!("!document.querySelector(\"{row}.failed\")"),
    );
    let delivery = app
        .owner
        .get(&format!("/webhooks/deliveries/{event_id}"))
        .expect(200);
    assert_eq!(
        delivery["status"], "pending",
        "the retry scheduled an attempt"
    );
    browser.finish();
}

#[test]
fn rotating_the_secret_shows_the_new_one_once() {
    let app = TestApp::spawn();
    let first: Value = app
        .owner
        .put(
            "/settings/webhook",
            json!({"url": dead_url(), "enabled": false}),
        )
        .expect(200);
    let first_secret = first["secret"].as_str().unwrap().to_string();
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.nav("integrations");
    browser.click("[data-action=rotate-secret]");
    browser.click("[data-action=confirm]");
    browser.wait_for("[data-secret]");
    let shown = browser.text("[data-secret]");
    assert_ne!(shown, first_secret, "a new secret");
    let endpoint = app.owner.get("/settings/webhook").expect(200);
    assert_eq!(endpoint["secret_last4"], &shown[shown.len() - 4..]);
    browser.screenshot("integrations-secret");
    browser.reload();
    browser.wait_for("[data-action=rotate-secret]");
    assert!(!browser.exists("[data-secret]"), "shown only once");
    browser.finish();
}

#[test]
fn settings_change_through_the_form() {
    let app = TestApp::spawn();
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.nav("settings");
    browser.fill("input[name=business_name]", "Chez Test");
    browser.select("select[name=timezone]", "Europe/Paris");
    browser.fill("input[name=reservation_grace_minutes]", "20");
    browser.click("[data-action=save-settings]");
    browser.wait_for_text(".notice.success", "saved");
    let settings = app.owner.get("/settings").expect(200);
    assert_eq!(settings["business_name"], "Chez Test");
    assert_eq!(settings["timezone"], "Europe/Paris");
    assert_eq!(settings["reservation_grace_minutes"], 20);
    browser.screenshot("settings");
    browser.finish();
}

#[test]
fn a_manager_adds_a_kitchen_station() {
    let app = TestApp::spawn();
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login_as_owner();
    browser.nav("kitchen");
    browser.wait_for("tr[data-station=Kitchen]");
    browser.click("[data-action=new-station]");
    browser.fill("input[name=station-name]", "Grill");
    browser.fill("input[name=warn_after_minutes]", "6");
    browser.fill("input[name=late_after_minutes]", "4");
    browser.click("[data-action=save-station]");
    browser.wait_for("[data-error-for=late_after_minutes]");
    browser.fill("input[name=late_after_minutes]", "12");
    browser.click("[data-action=save-station]");
    browser.wait_for("tr[data-station=Grill]");
    let stations = app.owner.get("/kitchen/stations").expect(200);
    let grill = stations["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Grill")
        .expect("the station is in the API")
        .clone();
    assert_eq!(grill["warn_after_minutes"], 6);
    assert_eq!(grill["late_after_minutes"], 12);
    // A station the menu cooks at stays, and the screen says why; once the
    // item points elsewhere it goes.
    let grill_id = grill["id"].as_str().unwrap();
    let category = app
        .owner
        .post("/menu/categories", json!({"name": "Mains"}))
        .expect(201);
    let steak = app
        .owner
        .post(
            "/menu/items",
            json!({"name": "Steak", "category_id": category["id"], "price": 30, "station_id": grill_id}),
        )
        .expect(201);
    let delete = "tr[data-station=Grill] [data-action=delete-station]";
    browser.click(delete);
    browser.click("tr[data-station=Grill] [data-action=confirm]");
    browser.wait_for_text(".notice.error", "1 menu item sends its lines here");
    browser.screenshot("kitchen-station-in-use");
    app.owner
        .patch(
            &format!("/menu/items/{}", steak["id"].as_str().unwrap()),
            json!({"station_id": null}),
        )
        .expect(200);
    browser.click(delete);
    browser.click("tr[data-station=Grill] [data-action=confirm]");
    browser.wait_gone("tr[data-station=Grill]");
    app.owner
        .get(&format!("/kitchen/stations/{grill_id}"))
        .expect_problem(404, "not_found");
    assert!(!browser.exists("tr[data-station=Kitchen] [data-action=delete-station]"));
    browser.screenshot("kitchen-stations");
    browser.finish();
}
