//! The floor plan: the live seatmap that follows the room, and the layout
//! editor (drag, keyboard, save, add and delete tables).

use brigade::auth::Role;
use chromiumoxide::cdp::browser_protocol::network::{
    EmulateNetworkConditionsByRuleParams, NetworkConditions,
};
use serde_json::{json, Value};

use super::{new_user, Browser};
use crate::helpers::{next_slot, TestApp, PASSWORD};

/// A floor "Main room" with T1 and T2 (squares) and T3 (round), three units apart.
fn main_room(app: &TestApp) -> (String, Vec<String>) {
    let floor = app
        .owner
        .post("/floors", json!({"name": "Main room"}))
        .expect(201);
    let floor_id = floor["id"].as_str().unwrap().to_string();
    let tables = [
        ("T1", 2, "square", 0.0),
        ("T2", 4, "square", 3.0),
        ("T3", 6, "round", 6.0),
    ]
    .iter()
    .map(|(name, seats, shape, x)| {
        app.owner
            .post(
                "/tables",
                json!({"floor_id": floor_id, "name": name, "seats": seats, "shape": shape,
                           "x": x, "y": 0.0, "width": 1.0, "height": 1.0}),
            )
            .expect(201)["id"]
            .as_str()
            .unwrap()
            .to_string()
    })
    .collect();
    (floor_id, tables)
}

fn table<'a>(tables: &'a Value, name: &str) -> &'a Value {
    tables["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no table {name} in {tables}"))
}

/// The middle of a table's shape on screen, and screen pixels per floor unit.
fn table_on_screen(browser: &mut Browser, name: &str) -> (f64, f64, f64) {
    let at: Value = browser.eval(&format!(
        r#"(() => {{
          const shape = document.querySelector('[data-table-name="{name}"] rect, [data-table-name="{name}"] ellipse');
          const svg = shape.ownerSVGElement;
          const r = shape.getBoundingClientRect();
          const perUnit = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width * Number(svg.dataset.scale);
          return [r.left + r.width / 2, r.top + r.height / 2, perUnit];
        }})()"#
    ));
    (
        at[0].as_f64().unwrap(),
        at[1].as_f64().unwrap(),
        at[2].as_f64().unwrap(),
    )
}

fn offline(browser: &mut Browser, offline: bool) {
    let page = browser.page().clone();
    let everything = NetworkConditions::new("", 0.0, -1.0, -1.0);
    let conditions = EmulateNetworkConditionsByRuleParams::new(offline, vec![everything]);
    browser.block_on(async { page.execute(conditions).await.unwrap() });
}

#[test]
fn the_live_plan_colours_tables_by_state_and_follows_the_room() {
    let app = TestApp::spawn();
    let (_, tables) = main_room(&app);
    app.open_for_bookings(20, 8);
    // T2 seats a party with an order; a booking at T3 starts within the hour.
    let session = app
        .owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[1]], "party_size": 3}),
        )
        .expect(201);
    let item = app.menu_item(12.5, 0.0);
    app.owner
        .post(
            "/orders",
            json!({"order_type": "dine_in", "session_id": session["id"],
                   "items": [{"menu_item_id": item, "quantity": 2}]}),
        )
        .expect(201);
    app.owner
        .post(
            "/reservations",
            json!({"name": "Grace", "phone": "555-0100", "party_size": 4,
                   "starts_at": next_slot(), "table_ids": [tables[2]]}),
        )
        .expect(201);

    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    // A server reads the room but does not edit it.
    browser.login(&new_user(&app, Role::Server), PASSWORD);
    browser.nav("floor");
    browser.wait_for("[data-table-name=T1][data-state=free]");
    browser.wait_for("[data-table-name=T2][data-state=occupied]");
    browser.wait_for("[data-table-name=T3][data-state=reserved_soon]");
    let label = |browser: &mut Browser, name: &str| -> String {
        browser.eval(&format!(
            "document.querySelector('[data-table-name={name}]').textContent"
        ))
    };
    assert!(
        label(&mut browser, "T2").contains("3 guests · $25.00"),
        "the party and the open amount in the tenant's money"
    );
    assert!(label(&mut browser, "T3").contains("Grace"));
    assert!(
        !browser.exists("[data-action=edit-mode]"),
        "no editing for a server"
    );
    browser.wait_for_text(".floor-legend", "Reserved soon");
    browser.click("[data-table-name=T2]");
    browser.wait_for_text("[data-panel=table-details]", "3 guests");
    browser.screenshot("floor-live");

    // A party seated elsewhere shows up without a reload.
    app.owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect(201);
    browser.wait_for("[data-table-name=T1][data-state=occupied]");
    browser.finish();
}

#[test]
fn a_manager_drags_a_table_saves_the_layout_and_finds_it_after_a_reload() {
    let app = TestApp::spawn();
    let (floor_id, tables) = main_room(&app);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.login(&new_user(&app, Role::Manager), PASSWORD);
    browser.nav("floor");
    browser.wait_for("[data-table-name=T1]");
    browser.click("[data-action=edit-mode]");
    browser.wait_for("[data-action=save-layout]");

    // One unit right and two down, under the mouse.
    let (x, y, unit) = table_on_screen(&mut browser, "T1");
    browser.drag((x, y), (x + unit, y + 2.0 * unit));
    browser.wait_for_text("[data-unsaved]", "1 unsaved change");
    assert_eq!(browser.value("#field-table-x"), "1");
    assert_eq!(browser.value("#field-table-y"), "2");
    // The arrow keys move the selected table a quarter unit.
    browser.press("ArrowRight");
    browser.wait_until(
        "x to follow the key",
        "document.querySelector('#field-table-x').value === '1.25'",
    );
    browser.set_value("#field-table-rotation", "90");
    browser.screenshot("floor-edit");

    // Offline, the save fails and the moved table stays where it was put.
    browser.ignore_console("ERR_INTERNET_DISCONNECTED");
    offline(&mut browser, true);
    browser.click("[data-action=save-layout]");
    browser.wait_for_text("[role=alert]", "cannot be reached");
    assert_eq!(browser.text("[data-unsaved]"), "1 unsaved change");
    assert_eq!(browser.value("#field-table-x"), "1.25");
    offline(&mut browser, false);
    browser.click("[data-action=save-layout]");
    browser.wait_for_text(".notice.success", "Layout saved");
    browser.wait_for_text("[data-unsaved]", "All changes saved");

    let saved = app
        .owner
        .get(&format!("/tables?floor_id={floor_id}"))
        .expect(200);
    let t1 = table(&saved, "T1");
    assert_eq!(
        (t1["x"].as_f64(), t1["y"].as_f64()),
        (Some(1.25), Some(2.0))
    );
    assert_eq!(t1["rotation"].as_f64(), Some(90.0));
    assert_eq!(
        table(&saved, "T2")["x"].as_f64(),
        Some(3.0),
        "only the moved table"
    );

    browser.reload();
    browser.wait_for("[data-table-name=T1]");
    browser.click("[data-action=edit-mode]");
    browser.click("[data-table-name=T1]");
    assert_eq!(browser.value("#field-table-x"), "1.25");
    assert_eq!(browser.value("#field-table-y"), "2");
    let transform: String = browser
        .eval("document.querySelector('[data-table-name=T1] > g').getAttribute('transform')");
    assert!(transform.starts_with("translate(75 120)"), "{transform}");

    // A table that served guests cannot be deleted: the server says why.
    app.owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[1]], "party_size": 2}),
        )
        .expect(201);
    browser.click("[data-table-name=T2]");
    browser.click("[data-action=delete-table]");
    browser.click("[data-action=confirm-delete]");
    browser.wait_for_text("[data-problem=table_in_use]", "seated guests");
    browser.screenshot("floor-delete-in-use");
    browser.click_text(".dialog button", "Close");

    // A new table from the dialog lands on the floor and in the API.
    browser.click("[data-action=add-table]");
    assert_eq!(
        browser.value("#field-new-table-name"),
        "T4",
        "the next free name"
    );
    browser.set_value("#field-new-table-seats", "6");
    browser.select("#field-new-table-shape", "rect");
    browser.click("[data-action=confirm-add-table]");
    browser.wait_for("[data-table-name=T4]");
    let after = app.owner.get("/tables").expect(200);
    let t4 = table(&after, "T4");
    assert_eq!(
        (t4["seats"].as_i64(), t4["shape"].as_str()),
        (Some(6), Some("rect"))
    );
    browser.finish();
}
