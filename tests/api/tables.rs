//! Floors, tables, layout and the seatmap.

use brigade::auth::Role;
use serde_json::json;

use crate::helpers::{next_slot, next_week_at_seven, TestApp};

#[test]
fn floors_and_tables_are_created_listed_changed_and_deleted() {
    let app = TestApp::spawn();
    let floor = app
        .owner
        .post("/floors", json!({"name": "Terrace", "position": 2}))
        .expect(201);
    let floor_id = floor["id"].as_str().unwrap();
    let table = app
        .owner
        .post(
            "/tables",
            json!({"floor_id": floor_id, "name": "A1", "seats": 4, "shape": "round", "x": 10, "y": 20.5,
                   "width": 2, "height": 2, "rotation": 45}),
        )
        .expect(201);
    assert_eq!(table["shape"], "round");
    assert_eq!(table["y"], 20.5);
    assert_eq!(table["active"], true);
    let id = table["id"].as_str().unwrap();
    let listed = app
        .owner
        .get(&format!("/tables?floor_id={floor_id}"))
        .expect(200);
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    let changed = app
        .owner
        .patch(
            &format!("/tables/{id}"),
            json!({"seats": 6, "active": false}),
        )
        .expect(200);
    assert_eq!(changed["seats"], 6);
    assert_eq!(changed["active"], false);
    app.owner
        .patch(&format!("/floors/{floor_id}"), json!({"name": "Garden"}))
        .expect(200);
    assert_eq!(
        app.owner.get(&format!("/floors/{floor_id}")).expect(200)["name"],
        "Garden"
    );
    app.owner
        .delete(&format!("/floors/{floor_id}"))
        .expect_problem(409, "floor_not_empty");
    app.owner.delete(&format!("/tables/{id}")).expect(204);
    app.owner.delete(&format!("/floors/{floor_id}")).expect(204);
    app.owner
        .get(&format!("/floors/{floor_id}"))
        .expect_problem(404, "not_found");
}

#[test]
fn a_table_with_orders_or_a_booking_to_come_cannot_be_deleted() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4, 4]);
    app.open_for_bookings(20, 8);
    let item = app.menu_item(3.0, 0.0);
    app.owner
        .post(
            "/orders",
            json!({"order_type": "dine_in", "table_id": tables[0], "items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect(201);
    app.owner
        .delete(&format!("/tables/{}", tables[0]))
        .expect_problem(409, "table_in_use");

    let (_, starts_at) = next_week_at_seven();
    let booking = app
        .owner
        .post(
            "/reservations",
            json!({"name": "Ada", "phone": "555", "party_size": 2, "starts_at": starts_at, "table_ids": [tables[1]]}),
        )
        .expect(201);
    let refused = app
        .owner
        .delete(&format!("/tables/{}", tables[1]))
        .expect_problem(409, "table_in_use");
    assert!(refused["detail"].as_str().unwrap().contains("reservation"));
    assert_eq!(
        app.owner.get(&format!("/tables/{}", tables[1])).expect(200)["id"],
        tables[1].as_str()
    );
    let id = booking["id"].as_str().unwrap();
    app.owner
        .post(
            &format!("/reservations/{id}/cancel"),
            json!({"by": "staff", "reason": "plans changed"}),
        )
        .expect(200);
    app.owner
        .delete(&format!("/tables/{}", tables[1]))
        .expect(204);
}

#[test]
fn table_names_are_unique_and_bad_tables_are_refused() {
    let app = TestApp::spawn();
    let (floor_id, _) = app.floor_with_tables(&[4]);
    app.owner
        .post(
            "/tables",
            json!({"floor_id": floor_id, "name": "T1", "seats": 2}),
        )
        .expect_problem(409, "already_exists");
    let bad = app
        .owner
        .post(
            "/tables",
            json!({"floor_id": floor_id, "name": " ", "seats": 0, "width": -1}),
        )
        .expect_problem(422, "validation_failed");
    let fields: Vec<&str> = bad["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["name", "seats", "width"]);
    app.owner
        .post(
            "/tables",
            json!({"floor_id": uuid::Uuid::now_v7(), "name": "X", "seats": 2}),
        )
        .expect_problem(422, "validation_failed");
    app.owner
        .post(
            "/tables",
            json!({"floor_id": floor_id, "name": "X", "seats": "four"}),
        )
        .expect_problem(422, "validation_failed");
    app.owner
        .post_raw("/tables", "application/json", b"{\"name\":")
        .expect_problem(400, "malformed_json");
    assert_eq!(
        app.owner.get("/tables").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn layout_saves_every_position_of_a_floor_at_once() {
    let app = TestApp::spawn();
    let (floor_id, tables) = app.floor_with_tables(&[2, 4]);
    let saved = app
        .owner
        .put(
            &format!("/floors/{floor_id}/layout"),
            json!({"tables": [{"id": tables[0], "x": 1, "y": 2}, {"id": tables[1], "x": 5, "y": 6, "rotation": 90}]}),
        )
        .expect(200);
    let t2 = saved["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == tables[1].as_str())
        .unwrap();
    assert_eq!(
        (t2["x"].as_f64(), t2["rotation"].as_f64()),
        (Some(5.0), Some(90.0))
    );
    // A table of another floor (or unknown) refuses the whole layout.
    let (_, other) = {
        let floor = app
            .owner
            .post("/floors", json!({"name": "Upstairs"}))
            .expect(201);
        let id = floor["id"].as_str().unwrap().to_string();
        let t = app
            .owner
            .post("/tables", json!({"floor_id": id, "name": "U1", "seats": 2}))
            .expect(201);
        (id, t["id"].as_str().unwrap().to_string())
    };
    app.owner
        .put(
            &format!("/floors/{floor_id}/layout"),
            json!({"tables": [{"id": tables[0], "x": 100, "y": 100}, {"id": other, "x": 0, "y": 0}]}),
        )
        .expect_problem(422, "validation_failed");
    let t1 = app.owner.get(&format!("/tables/{}", tables[0])).expect(200);
    assert_eq!(t1["x"], 1.0, "a refused layout changes nothing");
}

#[test]
fn another_tenants_floor_and_tables_are_not_found() {
    let app = TestApp::spawn();
    let (floor_id, tables) = app.floor_with_tables(&[4]);
    let (_, other) = app.second_tenant("other-place");
    other
        .get(&format!("/tables/{}", tables[0]))
        .expect_problem(404, "not_found");
    other
        .patch(&format!("/floors/{floor_id}"), json!({"name": "Mine"}))
        .expect_problem(404, "not_found");
    other
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect_problem(422, "validation_failed");
}

#[test]
fn only_owners_and_managers_edit_the_floor_plan_and_kitchen_sees_none_of_it() {
    let app = TestApp::spawn();
    app.user(Role::Host)
        .post("/floors", json!({"name": "Bar"}))
        .expect_problem(403, "permission_denied");
    app.user(Role::Manager)
        .post("/floors", json!({"name": "Bar"}))
        .expect(201);
    app.user(Role::Server).get("/tables/seatmap").expect(200);
    app.user(Role::Kitchen)
        .get("/tables/seatmap")
        .expect_problem(403, "permission_denied");
    app.user(Role::Kitchen)
        .get("/pos/seatmap")
        .expect_problem(403, "permission_denied");
}

#[test]
fn seatmap_shows_free_occupied_reserved_soon_and_out_of_service_tables() {
    let app = TestApp::spawn();
    let (_, tables) = app.floor_with_tables(&[4, 4, 4, 4]);
    app.owner
        .patch(&format!("/tables/{}", tables[3]), json!({"active": false}))
        .expect(200);
    let item = app.menu_item(12.5, 0.0);
    let session = app
        .owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 3}),
        )
        .expect(201);
    app.owner
        .post(
            "/orders",
            json!({"order_type": "dine_in", "session_id": session["id"], "items": [{"menu_item_id": item, "quantity": 2}]}),
        )
        .expect(201);
    // A reservation held on T3 at the next slot (within the hour) shows while the
    // hold window reaches it.
    app.open_for_bookings(40, 8);
    app.owner
        .post(
            "/reservations",
            json!({"name": "Ada", "phone": "555-0100", "party_size": 2, "starts_at": next_slot(), "table_ids": [tables[2]]}),
        )
        .expect(201);
    let states = |path: &str| -> Vec<String> {
        let map = app.owner.get(path).expect(200);
        map["floors"][0]["tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["state"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        states("/tables/seatmap"),
        ["occupied", "free", "reserved_soon", "out_of_service"]
    );
    let map = app.owner.get("/tables/seatmap").expect(200);
    assert_eq!(map["floors"][0]["tables"][2]["reservation"]["name"], "Ada");
    app.owner
        .patch("/settings", json!({"table_hold_minutes": 0}))
        .expect(200);
    assert_eq!(
        states("/tables/seatmap"),
        ["occupied", "free", "free", "out_of_service"]
    );
    let map = app.owner.get("/tables/seatmap").expect(200);
    let t1 = &map["floors"][0]["tables"][0];
    assert_eq!(t1["session"]["id"], session["id"]);
    assert_eq!(t1["session"]["party_size"], 3);
    assert_eq!(t1["session"]["open_order_count"], 1);
    assert_eq!(t1["session"]["open_order_amount"], 25.0);
    let pos = app.user(Role::Cashier).get("/pos/seatmap").expect(200);
    let p1 = &pos["floors"][0]["tables"][0];
    assert_eq!(p1["state"], "occupied");
    assert_eq!(p1["session_id"], session["id"]);
    assert_eq!(p1["open_order_amount"], 25.0);
    assert!(p1.get("x").is_none(), "the POS form is compact");

    // Closing the session frees its table.
    app.owner
        .post(
            &format!("/sessions/{}/close", session["id"].as_str().unwrap()),
            json!({"force": true}),
        )
        .expect(200);
    assert_eq!(
        states("/pos/seatmap"),
        ["free", "free", "free", "out_of_service"]
    );
}

#[test]
fn every_dining_room_route_is_in_the_openapi_document() {
    let app = TestApp::spawn();
    let document = crate::helpers::Client::anonymous(&app.base)
        .get("/openapi.json")
        .expect(200);
    let dining = [
        "/floors",
        "/tables",
        "/pos",
        "/queue",
        "/sessions",
        "/reservations",
        "/public",
        "/settings",
    ];
    let mut checked = 0;
    for route in brigade::api::routes() {
        let path = route.uri.path().to_string();
        // The webhook endpoint lives under /settings but belongs to the webhooks group.
        if !dining.iter().any(|prefix| path.starts_with(prefix))
            || path.starts_with("/settings/webhook")
        {
            continue;
        }
        let documented = format!("/api/v1{}", path.replace('<', "{").replace('>', "}"));
        let method = route.method.as_str().to_lowercase();
        assert!(
            document["paths"][&documented][&method].is_object(),
            "{method} {documented} is missing from the OpenAPI document"
        );
        checked += 1;
    }
    assert_eq!(checked, 43);
}
