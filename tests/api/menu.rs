use brigade::auth::Role;
use serde_json::json;

use crate::helpers::TestApp;

#[test]
fn categories_and_items_round_trip_with_exact_prices() {
    let app = TestApp::spawn();
    let category = app
        .owner
        .post("/menu/categories", json!({"name": "Mains", "position": 2}))
        .expect(201);
    let cid = category["id"].as_str().unwrap();
    assert_eq!(category["name"], "Mains");
    let grill = app
        .owner
        .post("/kitchen/stations", json!({"name": "Grill"}))
        .expect(201)["id"]
        .clone();
    let item = app
        .owner
        .post(
            "/menu/items",
            json!({
                "name": "Burger", "description": "Beef", "category_id": cid, "price": 16.5,
                "tax_rate": 8.875, "station_id": grill,
                "modifiers": [{"name": "Bacon", "price": 2.5}, {"name": "No bun", "price": 0}]
            }),
        )
        .expect(201);
    let id = item["id"].as_str().unwrap();
    assert_eq!(item["price"], 16.5);
    assert_eq!(item["tax_rate"], 8.875);
    assert_eq!(item["available"], true);
    assert_eq!(item["station_id"], grill);
    assert_eq!(item["modifiers"][0]["price"], 2.5);
    assert_eq!(
        app.owner.get(&format!("/menu/items/{id}")).expect(200),
        item
    );
    let patched = app
        .owner
        .patch(
            &format!("/menu/items/{id}"),
            json!({"price": 17, "station_id": null, "available": false}),
        )
        .expect(200);
    assert_eq!(patched["price"], 17.0);
    assert!(patched["station_id"].is_null());
    assert_eq!(patched["available"], false);
    assert_eq!(patched["name"], "Burger");
    let listed = app
        .owner
        .get(&format!("/menu/items?category_id={cid}"))
        .expect(200);
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    assert_eq!(
        app.owner.get("/menu/items?available=true").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    app.owner
        .get("/menu/items?available=maybe")
        .expect_problem(422, "validation_failed");
    let renamed = app
        .owner
        .patch(
            &format!("/menu/categories/{cid}"),
            json!({"name": "Big plates"}),
        )
        .expect(200);
    assert_eq!(renamed["name"], "Big plates");
    assert_eq!(
        app.owner.get("/menu/categories").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn deleting_an_item_archives_it_and_keeps_past_orders_intact() {
    let app = TestApp::spawn();
    let item = app.menu_item(4.5, 0.0);
    let order = app.order(&item, 2);
    app.owner.delete(&format!("/menu/items/{item}")).expect(204);
    let archived = app.owner.get(&format!("/menu/items/{item}")).expect(200);
    assert!(archived["archived_at"].is_string());
    assert_eq!(
        app.owner.get("/menu/items").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    let kept = app
        .owner
        .get(&format!("/orders/{}", order["id"].as_str().unwrap()))
        .expect(200);
    assert_eq!(kept["items"][0]["name"], "Item");
    assert_eq!(kept["items"][0]["unit_price"], 4.5);
    assert_eq!(kept["total_amount"], 9.0);
    app.owner
        .delete(&format!("/menu/items/{item}"))
        .expect_problem(404, "not_found");
    app.owner
        .patch(&format!("/menu/items/{item}"), json!({"price": 1}))
        .expect_problem(404, "not_found");
}

#[test]
fn a_category_with_live_items_cannot_be_deleted() {
    let app = TestApp::spawn();
    let item = app.menu_item(1.0, 0.0);
    let cid = app.owner.get(&format!("/menu/items/{item}")).expect(200)["category_id"]
        .as_str()
        .unwrap()
        .to_string();
    app.owner
        .delete(&format!("/menu/categories/{cid}"))
        .expect_problem(409, "category_not_empty");
    app.owner.delete(&format!("/menu/items/{item}")).expect(204);
    app.owner
        .delete(&format!("/menu/categories/{cid}"))
        .expect(204);
    app.owner
        .get(&format!("/menu/categories/{cid}"))
        .expect_problem(404, "not_found");
}

#[test]
fn duplicate_category_names_are_409_naming_the_field() {
    let app = TestApp::spawn();
    app.owner
        .post("/menu/categories", json!({"name": "Drinks"}))
        .expect(201);
    let body = app
        .owner
        .post("/menu/categories", json!({"name": "Drinks"}))
        .expect_problem(409, "already_exists");
    assert_eq!(body["field"], "name");
}

#[test]
fn invalid_items_list_every_bad_field_and_create_nothing() {
    let app = TestApp::spawn();
    let body = app
        .owner
        .post(
            "/menu/items",
            json!({
                "name": " ", "category_id": "nope", "price": 1.999, "tax_rate": 140,
                "modifiers": [{"name": "A", "price": 1}, {"name": "a", "price": -1}]
            }),
        )
        .expect_problem(422, "validation_failed");
    let fields: Vec<&str> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    for field in [
        "name",
        "category_id",
        "price",
        "tax_rate",
        "modifiers[1].name",
        "modifiers[1].price",
    ] {
        assert!(fields.contains(&field), "{field} missing from {fields:?}");
    }
    let unknown_category = app
        .owner
        .post(
            "/menu/items",
            json!({"name": "X", "category_id": uuid::Uuid::now_v7().to_string(), "price": 1}),
        )
        .expect_problem(422, "validation_failed");
    assert_eq!(unknown_category["errors"][0]["field"], "category_id");
    app.owner
        .post(
            "/menu/items",
            json!({"name": "X", "category_id": "c", "price": 1, "colour": "red"}),
        )
        .expect_problem(422, "validation_failed");
    assert_eq!(
        app.owner.get("/menu/items").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
}

#[test]
fn another_tenants_menu_is_invisible() {
    let app = TestApp::spawn();
    let item = app.menu_item(1.0, 0.0);
    let (_, other) = app.second_tenant("other");
    other
        .get(&format!("/menu/items/{item}"))
        .expect_problem(404, "not_found");
    other
        .patch(&format!("/menu/items/{item}"), json!({"price": 2}))
        .expect_problem(404, "not_found");
    other
        .delete(&format!("/menu/items/{item}"))
        .expect_problem(404, "not_found");
    assert_eq!(
        other.get("/menu/items").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert_eq!(
        app.owner.get(&format!("/menu/items/{item}")).expect(200)["price"],
        1.0
    );
}

#[test]
fn only_owners_and_managers_change_the_menu() {
    let app = TestApp::spawn();
    let item = app.menu_item(1.0, 0.0);
    for role in [Role::Cashier, Role::Server, Role::Host, Role::Kitchen] {
        let client = app.user(role);
        client.get("/menu/items").expect(200);
        client
            .post("/menu/categories", json!({"name": "X"}))
            .expect_problem(403, "permission_denied");
        client
            .patch(&format!("/menu/items/{item}"), json!({"price": 9}))
            .expect_problem(403, "permission_denied");
        client
            .delete(&format!("/menu/items/{item}"))
            .expect_problem(403, "permission_denied");
    }
    app.user(Role::Manager)
        .patch(&format!("/menu/items/{item}"), json!({"price": 9}))
        .expect(200);
}
