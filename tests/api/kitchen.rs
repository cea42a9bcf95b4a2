//! The kitchen: tickets made from fired orders and kept in step with them, the
//! cooks' moves, the board, all-day counts, stations, roles and bad input.

use brigade::auth::Role;
use serde_json::{json, Value};

use crate::helpers::{event_names, Client, TestApp};

/// A grill station and a bar station; a burger that names the grill, and a lager
/// that cooks at its category's station, the bar.
struct Kitchen {
    app: TestApp,
    burger: String,
    beer: String,
    grill: String,
    bar: String,
}

fn item(app: &TestApp, category: &Value, name: &str, station_id: Option<&str>) -> String {
    app.owner
        .post(
            "/menu/items",
            json!({"name": name, "category_id": category["id"], "price": 10, "tax_rate": 0,
                   "station_id": station_id, "modifiers": [{"name": "Rare", "price": 0}]}),
        )
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn kitchen() -> Kitchen {
    let app = TestApp::spawn();
    let (grill, bar) = (app.station("Grill"), app.station("Bar"));
    let food = app
        .owner
        .post("/menu/categories", json!({"name": "Food"}))
        .expect(201);
    let drinks = app
        .owner
        .post(
            "/menu/categories",
            json!({"name": "Drinks", "station_id": bar}),
        )
        .expect(201);
    assert_eq!(drinks["station_id"], bar.as_str());
    let burger = item(&app, &food, "Burger", Some(&grill));
    let beer = item(&app, &drinks, "Lager", None);
    Kitchen {
        app,
        burger,
        beer,
        grill,
        bar,
    }
}

impl Kitchen {
    fn order(&self, lines: Value) -> Value {
        self.app
            .owner
            .post("/orders", json!({"order_type": "takeaway", "items": lines}))
            .expect(201)
    }

    fn fire(&self, order: &Value) -> Value {
        self.app
            .owner
            .post(
                &format!("/orders/{}/status", order["id"].as_str().unwrap()),
                json!({"status": "confirmed"}),
            )
            .expect(200)
    }

    fn board(&self, query: &str) -> Vec<Value> {
        self.app
            .owner
            .get(&format!("/kitchen/tickets{query}"))
            .expect(200)["data"]
            .as_array()
            .unwrap()
            .clone()
    }

    fn act(&self, client: &Client, ticket: &Value, verb: &str) -> crate::helpers::Res {
        client.post(
            &format!("/kitchen/tickets/{}/{verb}", ticket["id"].as_str().unwrap()),
            json!({}),
        )
    }
}

fn line_ids(ticket: &Value) -> Vec<(String, i64, i64)> {
    ticket["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["name"].as_str().unwrap().to_string(),
                i["quantity"].as_i64().unwrap(),
                i["voided_quantity"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_fired_order_sends_one_ticket_per_station_and_nothing_before() {
    let k = kitchen();
    let order = k.order(json!([
        {"menu_item_id": k.burger, "quantity": 2, "modifiers": ["Rare"], "notes": "no onion"},
        {"menu_item_id": k.beer, "quantity": 1}
    ]));
    assert!(k.board("").is_empty(), "a pending order is not fired");
    k.fire(&order);
    let board = k.board("");
    assert_eq!(board.len(), 2);
    let grill = board
        .iter()
        .find(|t| t["station_id"] == k.grill.as_str())
        .unwrap();
    assert_eq!(grill["order_number"], order["order_number"]);
    assert_eq!(grill["order_type"], "takeaway");
    assert_eq!(grill["server_name"], "Test User", "the owner placed it");
    assert_eq!(grill["status"], "open");
    assert_eq!(grill["addition"], false);
    assert_eq!(grill["items"][0]["name"], "Burger");
    assert_eq!(grill["items"][0]["quantity"], 2);
    assert_eq!(grill["items"][0]["modifiers"], json!(["Rare"]));
    assert_eq!(grill["items"][0]["notes"], "no onion");
    assert_eq!(grill["items"][0]["state"], "queued");
    let bar = board
        .iter()
        .find(|t| t["station_id"] == k.bar.as_str())
        .unwrap();
    assert_eq!(line_ids(bar), [("Lager".to_string(), 1, 0)]);
    // Each station sees its own; an expo station would see both.
    assert_eq!(k.board(&format!("?station_id={}", k.grill)).len(), 1);
    let expo = k
        .app
        .owner
        .post("/kitchen/stations", json!({"name": "Pass", "kind": "expo"}))
        .expect(201);
    assert_eq!(
        k.board(&format!("?station_id={}", expo["id"].as_str().unwrap()))
            .len(),
        2
    );
    // The tickets' events are streamed but not sent to a webhook endpoint that
    // did not ask for them.
    let outbox = k.app.outbox(&k.app.tenant_id);
    assert_eq!(
        event_names(&outbox, &["kitchen."]),
        ["kitchen.ticket.created", "kitchen.ticket.created"]
    );
    let deliveries = k
        .app
        .owner
        .get("/webhooks/deliveries?limit=200")
        .expect(200);
    assert!(deliveries["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| !d["event"].as_str().unwrap().starts_with("kitchen.")));
    // Moving the order along later fires nothing twice.
    k.app
        .owner
        .post(
            &format!("/orders/{}/status", order["id"].as_str().unwrap()),
            json!({"status": "preparing"}),
        )
        .expect(200);
    assert_eq!(k.board("").len(), 2);
}

#[test]
fn additions_voids_and_cancellations_reach_the_kitchen() {
    let k = kitchen();
    let order = k.order(json!([
        {"menu_item_id": k.burger, "quantity": 3},
        {"menu_item_id": k.beer, "quantity": 2}
    ]));
    let order_id = order["id"].as_str().unwrap();
    let fired = k.fire(&order);
    let burger_line = fired["items"][0]["id"].as_str().unwrap().to_string();
    let beer_line = fired["items"][1]["id"].as_str().unwrap().to_string();

    // Added lines make an addition ticket.
    k.app
        .owner
        .post(
            &format!("/orders/{order_id}/items"),
            json!({"items": [{"menu_item_id": k.burger, "quantity": 1}]}),
        )
        .expect(200);
    let grill: Vec<Value> = k.board(&format!("?station_id={}", k.grill));
    assert_eq!(grill.len(), 2);
    assert_eq!(grill[1]["addition"], true);
    assert_eq!(line_ids(&grill[1]), [("Burger".to_string(), 1, 0)]);

    // A reduced line stays with its voided part; a removed line is all void.
    k.app
        .owner
        .patch(
            &format!("/orders/{order_id}/items/{burger_line}"),
            json!({"quantity": 1}),
        )
        .expect(200);
    k.app
        .owner
        .delete(&format!("/orders/{order_id}/items/{beer_line}"))
        .expect(200);
    let grill = k.board(&format!("?station_id={}", k.grill));
    assert_eq!(line_ids(&grill[0]), [("Burger".to_string(), 3, 2)]);
    let bar = k.board(&format!("?station_id={}", k.bar));
    assert_eq!(line_ids(&bar[0]), [("Lager".to_string(), 2, 2)]);

    // A voided item cannot be cooked.
    let kitchen_user = k.app.user(Role::Kitchen);
    kitchen_user
        .post(
            &format!(
                "/kitchen/tickets/{}/items/{beer_line}/start",
                bar[0]["id"].as_str().unwrap()
            ),
            json!({}),
        )
        .expect_problem(409, "illegal_transition");

    // Cancelling the order cancels its tickets until acknowledged.
    k.app
        .owner
        .post(&format!("/orders/{order_id}/cancel"), json!({}))
        .expect(200);
    let board = k.board("");
    assert_eq!(board.len(), 3);
    assert!(board.iter().all(|t| t["status"] == "cancelled"));
    for ticket in &board {
        k.act(&kitchen_user, ticket, "acknowledge").expect(200);
    }
    assert!(
        k.board("").is_empty(),
        "acknowledged tickets leave the board"
    );
    k.act(&kitchen_user, &board[0], "acknowledge")
        .expect_problem(409, "illegal_transition");
    k.act(&kitchen_user, &board[0], "bump")
        .expect_problem(409, "illegal_transition");
}

#[test]
fn bumping_every_ticket_makes_the_order_ready_and_recall_reopens() {
    let k = kitchen();
    let order = k.order(json!([
        {"menu_item_id": k.burger, "quantity": 1},
        {"menu_item_id": k.beer, "quantity": 1}
    ]));
    let order_id = order["id"].as_str().unwrap().to_string();
    k.fire(&order);
    let cook = k.app.user(Role::Kitchen);
    let board = k.board("");
    let first = k.act(&cook, &board[0], "start").expect(200);
    assert!(first["started_at"].is_string());
    assert_eq!(first["items"][0]["state"], "cooking");
    let bumped = k.act(&cook, &board[0], "bump").expect(200);
    assert_eq!(bumped["status"], "done");
    let get = |id: &str| k.app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(
        get(&order_id)["status"],
        "confirmed",
        "one ticket still open"
    );
    k.act(&cook, &board[0], "bump")
        .expect_problem(409, "illegal_transition");
    let recalled = k.act(&cook, &board[0], "recall").expect(200);
    assert_eq!(recalled["status"], "open");
    assert_eq!(recalled["bumped_at"], Value::Null);
    k.act(&cook, &board[0], "bump").expect(200);
    k.act(&cook, &board[1], "bump").expect(200);
    assert_eq!(get(&order_id)["status"], "ready", "every ticket is bumped");
    let outbox = k.app.outbox(&k.app.tenant_id);
    let order_events = event_names(&outbox, &["order."]);
    assert_eq!(order_events.last().unwrap(), "order.updated");
    assert_eq!(
        outbox.last().unwrap()["data"]["order"]["status"],
        "ready",
        "the move to ready is an order event"
    );
    assert!(k.board("").is_empty());
    assert_eq!(k.board("?status=done").len(), 2);
}

#[test]
fn with_auto_ready_off_the_order_waits_for_the_floor() {
    let k = kitchen();
    k.app
        .owner
        .patch("/settings", json!({"kitchen_auto_ready": false}))
        .expect(200);
    let order = k.order(json!([{"menu_item_id": k.burger, "quantity": 1}]));
    k.fire(&order);
    let cook = k.app.user(Role::Kitchen);
    k.act(&cook, &k.board("")[0], "bump").expect(200);
    let id = order["id"].as_str().unwrap();
    assert_eq!(
        k.app.owner.get(&format!("/orders/{id}")).expect(200)["status"],
        "confirmed"
    );
}

#[test]
fn items_move_queued_cooking_ready_and_never_back() {
    let k = kitchen();
    let order = k.order(json!([{"menu_item_id": k.burger, "quantity": 1}]));
    let line = k.fire(&order)["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let ticket = &k.board("")[0];
    let cook = k.app.user(Role::Kitchen);
    let path = |verb: &str| {
        format!(
            "/kitchen/tickets/{}/items/{line}/{verb}",
            ticket["id"].as_str().unwrap()
        )
    };
    assert_eq!(
        cook.post(&path("start"), json!({})).expect(200)["items"][0]["state"],
        "cooking"
    );
    cook.post(&path("start"), json!({}))
        .expect_problem(409, "illegal_transition");
    assert_eq!(
        cook.post(&path("ready"), json!({})).expect(200)["items"][0]["state"],
        "ready"
    );
    cook.post(&path("ready"), json!({}))
        .expect_problem(409, "illegal_transition");
    let unknown = uuid::Uuid::now_v7();
    cook.post(
        &format!(
            "/kitchen/tickets/{}/items/{unknown}/ready",
            ticket["id"].as_str().unwrap()
        ),
        json!({}),
    )
    .expect_problem(404, "not_found");
}

#[test]
fn all_day_counts_what_is_left_to_cook() {
    let k = kitchen();
    let first = k.order(json!([
        {"menu_item_id": k.burger, "quantity": 2, "modifiers": ["Rare"]},
        {"menu_item_id": k.beer, "quantity": 1}
    ]));
    let second = k.order(json!([
        {"menu_item_id": k.burger, "quantity": 3, "modifiers": ["Rare"]},
        {"menu_item_id": k.burger, "quantity": 1}
    ]));
    k.fire(&first);
    let fired = k.fire(&second);
    // One line of the second order is already cooked.
    let grill_tickets = k.board(&format!("?station_id={}", k.grill));
    let cook = k.app.user(Role::Kitchen);
    let plain_line = fired["items"][1]["id"].as_str().unwrap();
    cook.post(
        &format!(
            "/kitchen/tickets/{}/items/{plain_line}/ready",
            grill_tickets[1]["id"].as_str().unwrap()
        ),
        json!({}),
    )
    .expect(200);
    let all = k
        .app
        .owner
        .get(&format!("/kitchen/all-day?station_id={}", k.grill))
        .expect(200);
    assert_eq!(
        all["items"],
        json!([{"name": "Burger", "modifiers": ["Rare"], "quantity": 5}])
    );
    let everything = k.app.owner.get("/kitchen/all-day").expect(200);
    assert_eq!(
        everything["items"],
        json!([
            {"name": "Burger", "modifiers": ["Rare"], "quantity": 5},
            {"name": "Lager", "modifiers": [], "quantity": 1}
        ])
    );
}

#[test]
fn roles_tenants_and_bad_input_are_refused() {
    let k = kitchen();
    let order = k.order(json!([{"menu_item_id": k.burger, "quantity": 1}]));
    k.fire(&order);
    let ticket = k.board("")[0].clone();
    // A cashier reads the board but cannot bump; a host cannot read it.
    let cashier = k.app.user(Role::Cashier);
    assert_eq!(
        cashier.get("/kitchen/tickets").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    k.act(&cashier, &ticket, "bump")
        .expect_problem(403, "permission_denied");
    k.app
        .user(Role::Host)
        .get("/kitchen/tickets")
        .expect_problem(403, "permission_denied");
    // The kitchen works tickets but reads no reservations and edits no stations.
    let cook = k.app.user(Role::Kitchen);
    cook.get("/reservations")
        .expect_problem(403, "permission_denied");
    cook.post("/kitchen/stations", json!({"name": "Wok"}))
        .expect_problem(403, "permission_denied");
    // Another tenant's ticket is unknown.
    let (_, other) = k.app.second_tenant("other");
    other
        .post(
            &format!("/kitchen/tickets/{}/bump", ticket["id"].as_str().unwrap()),
            json!({}),
        )
        .expect_problem(404, "not_found");
    other
        .get(&format!(
            "/kitchen/tickets/{}",
            ticket["id"].as_str().unwrap()
        ))
        .expect_problem(404, "not_found");
    // Bad input changes nothing.
    k.app
        .owner
        .post_raw("/kitchen/stations", "application/json", b"{\"name\": ")
        .expect_problem(400, "malformed_json");
    k.app
        .owner
        .post("/kitchen/stations", json!({"kind": "prep"}))
        .expect_problem(422, "validation_failed");
    k.app
        .owner
        .post(
            "/kitchen/stations",
            json!({"name": "Wok", "warn_after_minutes": "soon"}),
        )
        .expect_problem(422, "validation_failed");
    k.app
        .owner
        .post(
            "/kitchen/stations",
            json!({"name": "Wok", "warn_after_minutes": 20, "late_after_minutes": 10}),
        )
        .expect_problem(422, "validation_failed");
    k.app
        .owner
        .get("/kitchen/tickets?station_id=not-a-station")
        .expect_problem(422, "validation_failed");
    k.app
        .owner
        .get("/kitchen/tickets?status=eaten")
        .expect_problem(422, "validation_failed");
    let stations = k.app.owner.get("/kitchen/stations").expect(200);
    assert_eq!(
        stations["data"].as_array().unwrap().len(),
        3,
        "Kitchen, Grill, Bar"
    );
}

#[test]
fn stations_are_managed_and_the_default_stays() {
    let k = kitchen();
    let stations = k.app.owner.get("/kitchen/stations").expect(200);
    let default = stations["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["is_default"] == true)
        .unwrap()
        .clone();
    assert_eq!(default["name"], "Kitchen");
    let default_id = default["id"].as_str().unwrap();
    k.app
        .owner
        .delete(&format!("/kitchen/stations/{default_id}"))
        .expect_problem(409, "station_in_use");
    k.app
        .owner
        .patch(
            &format!("/kitchen/stations/{default_id}"),
            json!({"active": false}),
        )
        .expect_problem(422, "validation_failed");
    // A line whose station is gone goes to the default station.
    k.app
        .owner
        .patch(
            &format!("/kitchen/stations/{}", k.bar),
            json!({"active": false, "warn_after_minutes": 3, "late_after_minutes": 6}),
        )
        .expect(200);
    let order = k.order(json!([{"menu_item_id": k.beer, "quantity": 1}]));
    k.fire(&order);
    assert_eq!(k.board("")[0]["station_name"], "Kitchen");
    // A station with tickets stays; one the menu points at stays until the
    // menu points elsewhere; one nothing uses goes.
    k.app
        .owner
        .delete(&format!("/kitchen/stations/{default_id}"))
        .expect_problem(409, "station_in_use");
    let refused = k
        .app
        .owner
        .delete(&format!("/kitchen/stations/{}", k.grill))
        .expect_problem(409, "station_in_use");
    assert!(
        refused["detail"].as_str().unwrap().contains("1 menu item"),
        "{refused}"
    );
    // A removed (archived) item no longer holds its station.
    k.app
        .owner
        .delete(&format!("/menu/items/{}", k.burger))
        .expect(204);
    k.app
        .owner
        .delete(&format!("/kitchen/stations/{}", k.grill))
        .expect(204);
    k.app
        .owner
        .get(&format!("/kitchen/stations/{}", k.grill))
        .expect_problem(404, "not_found");
    // The bar was off when the lager was fired, so it has no tickets; its
    // category still points at it.
    let bar = k
        .app
        .owner
        .delete(&format!("/kitchen/stations/{}", k.bar))
        .expect_problem(409, "station_in_use");
    assert_eq!(
        bar["detail"],
        "1 category sends its lines here; point it at another station first, \
         or switch the station off (active: false)"
    );
}

#[test]
fn items_and_categories_point_at_a_station_and_an_item_overrides_its_category() {
    let k = kitchen();
    // The lager names no station: its category's bar takes it. Pointing it at
    // the grill overrides the category; clearing the category's station sends
    // an item without its own to the default station.
    let lager = k
        .app
        .owner
        .get(&format!("/menu/items/{}", k.beer))
        .expect(200);
    assert!(lager["station_id"].is_null());
    let order = k.order(json!([{"menu_item_id": k.beer, "quantity": 1}]));
    assert_eq!(order["items"][0]["station_id"], k.bar.as_str());
    k.fire(&order);
    assert_eq!(k.board("")[0]["station_name"], "Bar");

    k.app
        .owner
        .patch(
            &format!("/menu/items/{}", k.beer),
            json!({"station_id": k.grill}),
        )
        .expect(200);
    let order = k.order(json!([{"menu_item_id": k.beer, "quantity": 1}]));
    assert_eq!(order["items"][0]["station_id"], k.grill.as_str());

    let category_id = lager["category_id"].as_str().unwrap();
    k.app
        .owner
        .patch(
            &format!("/menu/items/{}", k.beer),
            json!({"station_id": null}),
        )
        .expect(200);
    let category = k
        .app
        .owner
        .patch(
            &format!("/menu/categories/{category_id}"),
            json!({"station_id": null}),
        )
        .expect(200);
    assert!(category["station_id"].is_null());
    let order = k.order(json!([{"menu_item_id": k.beer, "quantity": 1}]));
    assert!(order["items"][0]["station_id"].is_null());
    k.fire(&order);
    let board = k.board("");
    assert_eq!(board.last().unwrap()["station_name"], "Kitchen");
}

#[test]
fn a_menu_station_must_exist_in_the_tenant() {
    let k = kitchen();
    let (_, other) = k.app.second_tenant("other-bistro");
    let foreign = other
        .post("/kitchen/stations", json!({"name": "Wok"}))
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let item_url = format!("/menu/items/{}", k.burger);
    // Another tenant's station, an unknown id, a name, a number.
    let unknown = uuid::Uuid::now_v7().to_string();
    for bad in [json!(foreign), json!(unknown), json!("grill"), json!(7)] {
        let problem = k
            .app
            .owner
            .patch(&item_url, json!({"station_id": bad}))
            .expect_problem(422, "validation_failed");
        assert!(
            problem.to_string().contains("station_id"),
            "{bad}: {problem}"
        );
    }
    k.app
        .owner
        .post(
            "/menu/categories",
            json!({"name": "Wok dishes", "station_id": foreign}),
        )
        .expect_problem(422, "validation_failed");
    // Nothing changed.
    let burger = k.app.owner.get(&item_url).expect(200);
    assert_eq!(burger["station_id"], k.grill.as_str());
    let categories = k.app.owner.get("/menu/categories").expect(200);
    assert_eq!(categories["data"].as_array().unwrap().len(), 2);
    // A cashier may not repoint the menu.
    let cashier = k.app.user(Role::Cashier);
    cashier
        .patch(&item_url, json!({"station_id": k.bar}))
        .expect_problem(403, "permission_denied");
}

#[test]
fn a_webhook_endpoint_gets_kitchen_events_only_when_it_lists_them() {
    let k = kitchen();
    let receiver = crate::receiver::Receiver::start();
    k.app
        .owner
        .put(
            "/settings/webhook",
            json!({"url": receiver.url, "enabled": true,
                   "events": ["order.created", "kitchen.ticket.created", "kitchen.ticket.bumped", "kitchen.ticket.created"]}),
        )
        .expect_problem(422, "validation_failed");
    k.app
        .owner
        .put(
            "/settings/webhook",
            json!({"url": receiver.url, "enabled": true, "events": ["order.confirmed"]}),
        )
        .expect_problem(422, "validation_failed");
    let endpoint = k
        .app
        .owner
        .put(
            "/settings/webhook",
            json!({"url": receiver.url, "enabled": true,
                   "events": ["order.created", "kitchen.ticket.created", "kitchen.ticket.bumped"]}),
        )
        .expect(200);
    assert_eq!(
        endpoint["events"],
        json!([
            "order.created",
            "kitchen.ticket.created",
            "kitchen.ticket.bumped"
        ])
    );
    let order = k.order(json!([{"menu_item_id": k.burger, "quantity": 1}]));
    k.fire(&order);
    let ticket = k.board("")[0].clone();
    k.act(&k.app.user(Role::Kitchen), &ticket, "bump")
        .expect(200);
    let names: Vec<String> = receiver
        .wait_for(3)
        .iter()
        .map(|r| r.json()["event"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "order.created",
            "kitchen.ticket.created",
            "kitchen.ticket.bumped"
        ],
        "neither order.updated nor the order's move to ready"
    );
    // The move to ready happened and nothing is left to send: the three are all.
    let statuses: Vec<String> = k
        .app
        .outbox(&k.app.tenant_id)
        .iter()
        .filter(|e| e["event"] == "order.updated")
        .map(|e| {
            e["data"]["order"]["status"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert!(statuses.iter().any(|s| s == "ready"), "{statuses:?}");
    // The receiver may have the last event a moment before its delivery is
    // recorded as done.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let pending = loop {
        let pending = k
            .app
            .owner
            .get("/webhooks/deliveries?status=pending")
            .expect(200);
        if pending["data"] == json!([]) || std::time::Instant::now() > deadline {
            break pending;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(pending["data"], json!([]));
    assert_eq!(receiver.received().len(), 3);
    let bumped = receiver.received()[2].json();
    assert_eq!(bumped["data"]["ticket"]["id"], ticket["id"]);
    assert_eq!(bumped["data"]["ticket"]["status"], "done");
    // Without a list, the contract's twelve.
    let fresh = TestApp::spawn();
    let endpoint = fresh
        .owner
        .put(
            "/settings/webhook",
            json!({"url": receiver.url, "enabled": false}),
        )
        .expect(200);
    assert_eq!(endpoint["events"].as_array().unwrap().len(), 12);
}

#[test]
fn held_courses_wait_until_the_floor_fires_them() {
    let k = kitchen();
    let (_, tables) = k.app.floor_with_tables(&[4]);
    let order = k
        .app
        .owner
        .post(
            "/orders",
            json!({"order_type": "dine_in", "table_id": tables[0], "hold_courses": true, "items": [
                {"menu_item_id": k.beer, "quantity": 2},
                {"menu_item_id": k.burger, "quantity": 2, "course": 2}
            ]}),
        )
        .expect(201);
    let id = order["id"].as_str().unwrap();
    assert_eq!(order["fired_course"], 1);
    assert_eq!(order["items"][1]["course"], 2);
    let fire = |course: i64| {
        k.app
            .owner
            .post(&format!("/orders/{id}/fire"), json!({"course": course}))
    };
    fire(2).expect_problem(409, "order_not_fired");
    k.fire(&order);
    let board = k.board("");
    assert_eq!(board.len(), 1, "only the first course: {board:?}");
    assert_eq!(board[0]["station_id"], k.bar.as_str());
    fire(1).expect_problem(409, "course_already_fired");
    fire(10).expect_problem(422, "validation_failed");
    k.app
        .user(Role::Kitchen)
        .post(&format!("/orders/{id}/fire"), json!({"course": 2}))
        .expect_problem(403, "permission_denied");
    let fired = fire(2).expect(200);
    assert_eq!(fired["fired_course"], 2);
    let grill = k.board(&format!("?station_id={}", k.grill));
    assert_eq!(grill.len(), 1);
    assert_eq!(grill[0]["addition"], false, "a fired course is no addition");
    assert_eq!(grill[0]["items"][0]["course"], 2);
    fire(2).expect_problem(409, "course_already_fired");
    // Without held courses there is nothing to fire; takeaway holds nothing.
    let plain = k.order(json!([{"menu_item_id": k.burger, "quantity": 1, "course": 2}]));
    k.fire(&plain);
    k.app
        .owner
        .post(
            &format!("/orders/{}/fire", plain["id"].as_str().unwrap()),
            json!({"course": 2}),
        )
        .expect_problem(409, "no_course_held");
    k.app
        .owner
        .post(
            "/orders",
            json!({"order_type": "takeaway", "hold_courses": true,
                   "items": [{"menu_item_id": k.burger, "quantity": 1}]}),
        )
        .expect_problem(422, "validation_failed");
}

#[test]
fn stats_give_ticket_times_per_station_on_a_worked_example() {
    let k = kitchen();
    let cook = k.app.user(Role::Kitchen);
    for _ in 0..4 {
        let order = k.order(json!([{"menu_item_id": k.burger, "quantity": 1}]));
        k.fire(&order);
    }
    let beer = k.order(json!([{"menu_item_id": k.beer, "quantity": 1}]));
    k.fire(&beer);
    for ticket in k.board("") {
        k.act(&cook, &ticket, "bump").expect(200);
    }
    // The grill's tickets took 60, 120, 180 and 600 seconds; the bar's 30.
    let file = k.app.tenant_file();
    let grill_ids: Vec<String> = {
        let mut stmt = file
            .prepare("SELECT id FROM kitchen_tickets WHERE station_id = ?1 ORDER BY created_at, id")
            .unwrap();
        let rows = stmt.query_map([&k.grill], |r| r.get(0)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    for (id, seconds) in grill_ids.iter().zip([60, 120, 180, 600]) {
        file.execute(
            "UPDATE kitchen_tickets SET created_at = '2026-01-10T19:00:00.000Z', \
             bumped_at = strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-10T19:00:00.000Z', ?2 || ' seconds') WHERE id = ?1",
            rusqlite::params![id, seconds],
        )
        .unwrap();
    }
    file.execute(
        "UPDATE kitchen_tickets SET created_at = '2026-01-10T20:00:00.000Z', bumped_at = '2026-01-10T20:00:30.000Z' \
         WHERE station_id = ?1",
        [&k.bar],
    )
    .unwrap();
    let stats = k
        .app
        .owner
        .get("/kitchen/stats?from=2026-01-10T00:00:00Z&to=2026-01-11T00:00:00Z")
        .expect(200);
    let station = |id: &str| {
        stats["stations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["station_id"] == id)
            .unwrap()
            .clone()
    };
    let grill = station(&k.grill);
    assert_eq!(grill["tickets"], 4);
    assert_eq!(grill["average_seconds"], 240);
    assert_eq!(grill["p90_seconds"], 600);
    let bar = station(&k.bar);
    assert_eq!(
        (bar["tickets"].clone(), bar["p90_seconds"].clone()),
        (json!(1), json!(30))
    );
    let later = k
        .app
        .owner
        .get("/kitchen/stats?from=2026-01-11T00:00:00Z")
        .expect(200);
    assert_eq!(later["stations"], json!([]));
    k.app
        .owner
        .get("/kitchen/stats?from=yesterday")
        .expect_problem(422, "validation_failed");
}

#[test]
fn another_tenants_stations_and_orders_are_unknown_and_bad_settings_are_refused() {
    let k = kitchen();
    let (_, other) = k.app.second_tenant("other");
    let order = k.order(json!([{"menu_item_id": k.burger, "quantity": 1}]));
    let id = order["id"].as_str().unwrap();
    k.fire(&order);
    other
        .post(&format!("/orders/{id}/fire"), json!({"course": 2}))
        .expect_problem(404, "not_found");
    other
        .patch(
            &format!("/kitchen/stations/{}", k.grill),
            json!({"name": "Mine"}),
        )
        .expect_problem(404, "not_found");
    other
        .delete(&format!("/kitchen/stations/{}", k.grill))
        .expect_problem(404, "not_found");
    other
        .get(&format!("/kitchen/tickets?station_id={}", k.grill))
        .expect_problem(422, "validation_failed");
    k.app
        .owner
        .patch(
            &format!("/kitchen/stations/{}", uuid::Uuid::now_v7()),
            json!({"name": "Ghost"}),
        )
        .expect_problem(404, "not_found");
    k.app
        .owner
        .patch("/settings", json!({"kitchen_auto_ready": "yes"}))
        .expect_problem(422, "validation_failed");
    k.app
        .owner
        .get("/kitchen/stats?to=tomorrow")
        .expect_problem(422, "validation_failed");
    // Nothing of that changed anything.
    let station = k
        .app
        .owner
        .get(&format!("/kitchen/stations/{}", k.grill))
        .expect(200);
    assert_eq!(station["name"], "Grill");
    assert_eq!(
        k.app.owner.get("/settings").expect(200)["kitchen_auto_ready"],
        true
    );
    assert_eq!(k.board("").len(), 1);
}

#[test]
fn stations_named_in_free_text_become_station_ids_on_upgrade() {
    use brigade::db::migrations::{latest_version, migrate, Schema};
    // A file from before the kitchen: items name their station in free text,
    // once in two spellings.
    let dir = tempfile::tempdir().unwrap();
    let mut conn = rusqlite::Connection::open(dir.path().join("old.db")).unwrap();
    for script in ["0001_core.sql", "0002_webhooks.sql", "0003_dining_room.sql"] {
        let sql = std::fs::read_to_string(format!(
            "{}/migrations/tenant/{script}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        conn.execute_batch(&sql).unwrap();
    }
    conn.execute_batch(
        "PRAGMA user_version = 3;
         INSERT INTO menu_categories (id, name, created_at, updated_at) VALUES ('c', 'Food', 't', 't');
         INSERT INTO menu_items (id, category_id, name, price, kitchen_station, created_at, updated_at) VALUES
           ('burger', 'c', 'Burger', 1000, 'grill', 't', 't'),
           ('steak', 'c', 'Steak', 2000, ' Grill ', 't', 't'),
           ('soup', 'c', 'Soup', 500, 'kitchen', 't', 't'),
           ('bread', 'c', 'Bread', 300, NULL, 't', 't'),
           ('lager', 'c', 'Lager', 500, 'Bar', 't', 't');
         INSERT INTO orders (id, order_number, business_date, status, order_type, created_at, updated_at)
           VALUES ('o', '0001', '2030-01-01', 'open', 'takeaway', 't', 't');
         INSERT INTO order_items (id, order_id, menu_item_id, name, unit_price, quantity, tax_rate,
           kitchen_station, created_at, updated_at)
           VALUES ('l1', 'o', 'lager', 'Lager', 500, 1, 0, 'Bar', 't', 't'),
                  ('l2', 'o', 'soup', 'Soup', 500, 1, 0, 'kitchen', 't', 't');",
    )
    .unwrap();
    migrate(&mut conn, Schema::Tenant, None).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version as usize, latest_version(Schema::Tenant));
    let station_of = |table: &str, id: &str| -> Option<String> {
        conn.query_row(
            &format!(
                "SELECT s.name FROM {table} t LEFT JOIN kitchen_stations s ON s.id = t.station_id \
                 WHERE t.id = ?1"
            ),
            [id],
            |r| r.get(0),
        )
        .unwrap()
    };
    let grill = station_of("menu_items", "burger").expect("the burger has a station");
    assert!(grill.eq_ignore_ascii_case("grill"), "{grill}");
    assert_eq!(station_of("menu_items", "steak"), Some(grill));
    assert_eq!(station_of("menu_items", "lager").as_deref(), Some("Bar"));
    // The default station's name and no name both mean the default station.
    assert_eq!(station_of("menu_items", "soup"), None);
    assert_eq!(station_of("menu_items", "bread"), None);
    assert_eq!(station_of("order_items", "l1").as_deref(), Some("Bar"));
    assert_eq!(station_of("order_items", "l2"), None);
    let stations: i64 = conn
        .query_row("SELECT COUNT(*) FROM kitchen_stations", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stations, 3, "Grill, Bar and the default Kitchen");
    let text_columns: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM pragma_table_info('menu_items') WHERE name = 'kitchen_station'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(text_columns, 0);
}

#[test]
fn a_closed_order_fires_nothing_and_a_closed_ticket_moves_no_item() {
    let k = kitchen();
    let (_, tables) = k.app.floor_with_tables(&[4]);
    let held = |status: &str| {
        let order = k
            .app
            .owner
            .post(
                "/orders",
                json!({"order_type": "dine_in", "table_id": tables[0], "hold_courses": true, "items": [
                    {"menu_item_id": k.burger, "quantity": 1, "course": 2}
                ]}),
            )
            .expect(201);
        let id = order["id"].as_str().unwrap().to_string();
        k.fire(&order);
        if status == "completed" {
            k.app
                .owner
                .post(
                    &format!("/orders/{id}/payments"),
                    json!({"method": "cash", "amount": 10}),
                )
                .expect(201);
        }
        k.app
            .owner
            .post(&format!("/orders/{id}/status"), json!({"status": status}))
            .expect(200);
        id
    };
    for status in ["cancelled", "completed"] {
        let id = held(status);
        let refused = k
            .app
            .owner
            .post(&format!("/orders/{id}/fire"), json!({"course": 2}))
            .expect_problem(409, "order_closed");
        assert_eq!(refused["current_status"], status);
        let order = k.app.owner.get(&format!("/orders/{id}")).expect(200);
        assert_eq!(order["fired_course"], 1, "{status}: nothing was fired");
    }
    assert!(
        k.board(&format!("?station_id={}", k.grill)).is_empty(),
        "no held course reached the grill"
    );

    // A bumped ticket and a cancelled order's ticket keep their items as they are.
    let cook = k.app.user(Role::Kitchen);
    let item_move = |ticket: &Value, verb: &str| {
        cook.post(
            &format!(
                "/kitchen/tickets/{}/items/{}/{verb}",
                ticket["id"].as_str().unwrap(),
                ticket["items"][0]["line_id"].as_str().unwrap()
            ),
            json!({}),
        )
    };
    let done = k.order(json!([{"menu_item_id": k.beer, "quantity": 1}]));
    k.fire(&done);
    let ticket = k.board(&format!("?station_id={}", k.bar))[0].clone();
    k.act(&cook, &ticket, "bump").expect(200);
    let cancelled = k.order(json!([{"menu_item_id": k.burger, "quantity": 1}]));
    k.fire(&cancelled);
    let voided = k.board(&format!("?station_id={}", k.grill))[0].clone();
    k.app
        .owner
        .post(
            &format!("/orders/{}/cancel", cancelled["id"].as_str().unwrap()),
            json!({}),
        )
        .expect(200);
    for (ticket, state) in [(&ticket, "done"), (&voided, "cancelled")] {
        let read = || {
            k.app
                .owner
                .get(&format!(
                    "/kitchen/tickets/{}",
                    ticket["id"].as_str().unwrap()
                ))
                .expect(200)
        };
        let before = read();
        assert_eq!(before["status"], state);
        for verb in ["start", "ready"] {
            let refused = item_move(ticket, verb).expect_problem(409, "illegal_transition");
            assert_eq!(
                refused["current_status"], state,
                "{verb} on a {state} ticket"
            );
        }
        assert_eq!(read(), before, "a refused move changes nothing");
    }
}

#[test]
fn tickets_and_their_progress_survive_a_restart() {
    let mut k = kitchen();
    let order = k.order(json!([
        {"menu_item_id": k.burger, "quantity": 2},
        {"menu_item_id": k.beer, "quantity": 1}
    ]));
    k.fire(&order);
    let grill = k.board(&format!("?station_id={}", k.grill))[0].clone();
    let owner = k.app.owner.clone();
    k.act(&owner, &grill, "start").expect(200);
    k.app.restart();
    let board = k.board("");
    assert_eq!(board.len(), 2, "both tickets are back: {board:?}");
    let after = board.iter().find(|t| t["id"] == grill["id"]).unwrap();
    assert_eq!(after["status"], "open");
    assert_eq!(
        after["items"][0]["state"], "cooking",
        "started before the restart"
    );
    assert_eq!(after["items"][0]["quantity"], 2);
    // The kitchen carries on where it was.
    let owner = k.app.owner.clone();
    for ticket in &board {
        k.act(&owner, ticket, "bump").expect(200);
    }
    let order = k
        .app
        .owner
        .get(&format!("/orders/{}", order["id"].as_str().unwrap()))
        .expect(200);
    assert_eq!(order["status"], "ready");
}
