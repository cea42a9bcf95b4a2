//! The kitchen display: a screen signed in once with its station remembered,
//! tickets that arrive live, lines and tickets moved by tap and by a bump
//! bar's keys, voids, additions and cancellations as a cook must see them, the
//! all-day panel, and the offline banner across a server restart.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use brigade::auth::Role;
use serde_json::{json, Value};

use super::{new_user, Browser};
use crate::helpers::{agent, TestApp, PASSWORD};

/// A 1080p TV on the wall of the pass.
const TV: (u32, u32) = (1920, 1080);

/// Burger (with modifiers), Fries and Caesar salad, on the default station.
struct Menu {
    burger: String,
    fries: String,
    salad: String,
}

fn menu(app: &TestApp) -> Menu {
    let category = app
        .owner
        .post("/menu/categories", json!({"name": "Mains"}))
        .expect(201);
    let item = |name: &str, price: f64| {
        app.owner
            .post(
                "/menu/items",
                json!({"name": name, "category_id": category["id"], "price": price, "tax_rate": 0,
                       "modifiers": [{"name": "Rare", "price": 0}, {"name": "Bacon", "price": 2}]}),
            )
            .expect(201)["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    Menu {
        burger: item("Burger", 14.0),
        fries: item("Fries", 5.0),
        salad: item("Caesar salad", 11.0),
    }
}

/// Creates an order and confirms it, which sends it to the kitchen.
fn fire(app: &TestApp, order: Value) -> Value {
    let created = app.owner.post("/orders", order).expect(201);
    app.owner
        .post(
            &format!("/orders/{}/status", id(&created)),
            json!({"status": "confirmed"}),
        )
        .expect(200)
}

fn id(value: &Value) -> &str {
    value["id"].as_str().expect("an id")
}

fn number(order: &Value) -> &str {
    order["order_number"].as_str().expect("an order number")
}

/// The selector of an order's ticket card(s).
fn card(order: &Value) -> String {
    format!("[data-order-number=\"{}\"]", number(order))
}

fn order_status(app: &TestApp, order: &Value) -> String {
    app.owner.get(&format!("/orders/{}", id(order))).expect(200)["status"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Waits until the order has `status` in the API.
fn wait_for_order(app: &TestApp, order: &Value, status: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = order_status(app, order);
        if now == status {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "order {} is {now}, not {status}",
            number(order)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Signs the display in on the login it shows and chooses `station`.
fn sign_in(browser: &mut Browser, email: &str, station: &str) {
    browser.wait_for("input[name=email]");
    browser.submit_login(email, PASSWORD);
    browser.click(&format!("[data-station=\"{station}\"]"));
    browser.wait_for_text("[data-current-station]", station);
}

fn open_display(browser: &mut Browser, email: &str, station: &str) {
    browser.open("/kitchen/");
    sign_in(browser, email, station);
}

/// The order numbers of the cards on the board, left to right.
fn board(browser: &mut Browser) -> Vec<String> {
    browser.eval("Array.from(document.querySelectorAll('[data-ticket-id]')).map((c) => c.dataset.orderNumber)")
}

#[test]
fn orders_reach_the_display_live_and_are_bumped_by_tap_and_by_key() {
    let app = TestApp::spawn();
    let menu = menu(&app);
    let cook = new_user(&app, Role::Kitchen);
    let floor = app
        .owner
        .post("/floors", json!({"name": "Room"}))
        .expect(201);
    let table = app
        .owner
        .post(
            "/tables",
            json!({"floor_id": floor["id"], "name": "12", "seats": 4}),
        )
        .expect(201);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    open_display(&mut browser, &cook, "Kitchen");
    browser.wait_for_text(".board-empty", "No tickets");

    // Orders confirmed through the API come without a reload, oldest first.
    let dine_in = fire(
        &app,
        json!({"order_type": "dine_in", "table_id": table["id"], "items": [
            {"menu_item_id": menu.burger, "quantity": 2, "modifiers": ["Rare", "Bacon"], "notes": "no onion"},
            {"menu_item_id": menu.fries, "quantity": 2, "course": 2}]}),
    );
    browser.wait_for(&card(&dine_in));
    let takeaway = fire(
        &app,
        json!({"order_type": "takeaway", "customer": {"name": "Ada"},
               "items": [{"menu_item_id": menu.salad, "quantity": 1}]}),
    );
    let changed = fire(
        &app,
        json!({"order_type": "takeaway", "customer": {"name": "Grace"}, "items": [
            {"menu_item_id": menu.burger, "quantity": 3},
            {"menu_item_id": menu.fries, "quantity": 1}]}),
    );
    let cancelled = fire(
        &app,
        json!({"order_type": "delivery", "customer": {"name": "Linus"},
               "items": [{"menu_item_id": menu.salad, "quantity": 2}]}),
    );
    // Two burgers come off one line, the fries off the other; a salad is added.
    let lines = changed["items"].as_array().unwrap();
    app.owner
        .patch(
            &format!("/orders/{}/items/{}", id(&changed), id(&lines[0])),
            json!({"quantity": 1}),
        )
        .expect(200);
    app.owner
        .delete(&format!("/orders/{}/items/{}", id(&changed), id(&lines[1])))
        .expect(200);
    app.owner
        .post(
            &format!("/orders/{}/items", id(&changed)),
            json!({"items": [{"menu_item_id": menu.salad, "quantity": 1}]}),
        )
        .expect(200);
    app.owner
        .post(&format!("/orders/{}/cancel", id(&cancelled)), json!({}))
        .expect(200);
    browser.wait_for(&format!("{}[data-status=cancelled]", card(&cancelled)));
    browser.wait_for_text(&format!("{}[data-ticket-id]", card(&changed)), "ADDITION");
    assert_eq!(
        board(&mut browser),
        [
            number(&dine_in),
            number(&takeaway),
            number(&changed),
            number(&cancelled),
            number(&changed)
        ],
        "one card per ticket, oldest first, none twice"
    );

    // What the cook reads on each card.
    // (The order type is set in capitals by the style sheet.)
    let first = browser.text(&card(&dine_in)).to_lowercase();
    for expected in [
        "table 12", "dine in", "burger", "rare", "bacon", "no onion", "fries", "course 2",
    ] {
        assert!(first.contains(expected), "{expected:?} is not on {first:?}");
    }
    assert!(browser.text(&card(&takeaway)).contains("Ada"));
    let voids: Value = browser.eval(&format!(
        r#"(() => {{ const c = document.querySelector('{}'); return {{
            text: c.innerText,
            struck: Array.from(c.querySelectorAll('del')).map((d) => d.textContent) }}; }})()"#,
        card(&changed)
    ));
    let text = voids["text"].as_str().unwrap();
    assert!(text.contains("VOID"), "voids are marked: {text}");
    assert_eq!(
        voids["struck"],
        json!(["2", "Fries"]),
        "the burgers taken off and the removed fries are struck through"
    );
    let gone = browser.text(&card(&cancelled));
    assert!(gone.contains("CANCELLED"), "{gone}");

    // A tap moves a line on: queued, cooking, ready.
    let line = format!("{} [data-line-id]", card(&dine_in));
    assert_eq!(
        browser.attribute(&line, "data-state").as_deref(),
        Some("queued")
    );
    browser.click(&line);
    browser.wait_for(&format!(
        "{} [data-line-id][data-state=cooking]",
        card(&dine_in)
    ));
    browser.click(&format!(
        "{} [data-line-id][data-state=cooking]",
        card(&dine_in)
    ));
    browser.wait_for(&format!(
        "{} [data-line-id][data-state=ready]",
        card(&dine_in)
    ));
    let tickets = app.owner.get("/kitchen/tickets").expect(200);
    let ticket = tickets["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["order_id"] == id(&dine_in))
        .unwrap();
    assert_eq!(ticket["items"][0]["state"], "ready");
    browser.screenshot("kitchen-board");

    browser.set_viewport(TV);
    browser.wait_for(&card(&dine_in));
    let type_size: f64 = browser
        .eval("parseFloat(getComputedStyle(document.querySelector('.line .name')).fontSize)");
    assert!(type_size >= 24.0, "item names at {type_size}px on a TV");
    browser.screenshot("kitchen-tv");

    // On a tablet every target is big enough for a finger.
    browser.tablet();
    let small: Vec<String> = browser.eval(
        r#"Array.from(document.querySelectorAll('button')).filter((b) => b.offsetParent)
            .map((b) => [b.getBoundingClientRect(), b]).filter(([r]) => r.height < 44 || r.width < 44)
            .map(([r, b]) => `${b.dataset.action || b.className}: ${Math.round(r.width)}×${Math.round(r.height)}`)"#,
    );
    assert!(small.is_empty(), "targets under 44 px: {small:?}");
    browser.desktop();

    // Tapping the header bumps the ticket, and the order is ready.
    browser.click(&format!("{} [data-action=bump]", card(&dine_in)));
    browser.wait_gone(&card(&dine_in));
    wait_for_order(&app, &dine_in, "ready");

    // A bump bar: a digit picks the card, Enter bumps it, R brings it back.
    browser.press("1");
    browser.wait_for(&format!("{}.selected", card(&takeaway)));
    browser.press("Enter");
    browser.wait_gone(&card(&takeaway));
    wait_for_order(&app, &takeaway, "ready");
    browser.wait_for_text("[data-action=recall]", number(&takeaway));
    browser.press("r");
    browser.wait_for(&card(&takeaway));
    assert_eq!(browser.count(&card(&takeaway)), 1);
    browser.press("Escape");
    browser.press("1");
    browser.press("Enter");
    browser.wait_gone(&card(&takeaway));

    // A cancelled ticket stays until the cook has seen it.
    browser.click(&format!("{} [data-action=acknowledge]", card(&cancelled)));
    browser.wait_gone(&card(&cancelled));
    assert_eq!(
        board(&mut browser),
        [number(&changed), number(&changed)],
        "the changed order's ticket and its addition"
    );
    browser.finish();
}

#[test]
fn the_screen_keeps_its_station_and_sound_and_counts_all_day() {
    let app = TestApp::spawn();
    let menu = menu(&app);
    let cook = new_user(&app, Role::Kitchen);
    let station = |name: &str, kind: &str| {
        app.owner
            .post("/kitchen/stations", json!({"name": name, "kind": kind}))
            .expect(201)
    };
    let bar = station("Bar", "prep");
    station("Pass", "expo");
    let category = app
        .owner
        .post(
            "/menu/categories",
            json!({"name": "Drinks", "station_id": bar["id"]}),
        )
        .expect(201);
    let lager = app
        .owner
        .post(
            "/menu/items",
            json!({"name": "Lager", "category_id": category["id"], "price": 5, "tax_rate": 0}),
        )
        .expect(201);
    let order = fire(
        &app,
        json!({"order_type": "takeaway", "items": [
            {"menu_item_id": menu.burger, "quantity": 2, "modifiers": ["Rare"]},
            {"menu_item_id": menu.burger, "quantity": 1},
            {"menu_item_id": lager["id"], "quantity": 3}]}),
    );

    // /kitchen leads to the display.
    let answer = agent()
        .get(&format!("{}/kitchen", app.base))
        .call()
        .expect("the server answers");
    assert_eq!(answer.status().as_u16(), 308);
    assert_eq!(
        answer
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok()),
        Some("/kitchen/")
    );

    // Any path under it without a file extension is the display itself.
    let route = agent()
        .get(&format!("{}/kitchen/anywhere", app.base))
        .call()
        .expect("the server answers");
    assert_eq!(route.status().as_u16(), 200);
    assert!(route
        .headers()
        .get("content-security-policy")
        .is_some_and(|v| v.to_str().unwrap().contains("script-src 'self'")));

    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    browser.open("/kitchen/");
    browser.wait_for("input[name=email]");
    browser.submit_login(&cook, PASSWORD);
    browser.wait_for("[data-station]");
    let offered = browser.texts("[data-station]");
    assert_eq!(offered.len(), 3, "every active station: {offered:?}");
    browser.click("[data-station=\"Kitchen\"]");
    browser.wait_for(&card(&order));
    assert_eq!(
        browser.count("[data-ticket-id]"),
        1,
        "the bar's ticket is not the kitchen's"
    );

    // Sound off, all day on; a reload keeps the session, the station and both.
    browser.click("[data-action=sound]");
    browser.wait_for_text("[data-action=sound][aria-pressed=false]", "Muted");
    browser.click("[data-action=all-day]");
    browser.wait_for_text("[data-panel=all-day]", "Burger");
    let counts = browser.texts("[data-panel=all-day] li");
    assert_eq!(counts.len(), 2, "{counts:?}");
    assert!(
        counts
            .iter()
            .any(|c| c.starts_with('2') && c.contains("Rare")),
        "{counts:?}"
    );
    browser.reload();
    browser.wait_for_text("[data-current-station]", "Kitchen");
    browser.wait_for(&card(&order));
    browser.wait_for("[data-action=sound][aria-pressed=false]");
    browser.wait_for_text("[data-panel=all-day]", "Burger");

    // The timer colours the card by the station's thresholds (8 and 15
    // minutes unless set): the page's clock is moved on to see them.
    assert_eq!(
        browser.attribute(&card(&order), "data-level").as_deref(),
        Some("normal")
    );
    let _: Value = browser.eval(
        "(() => { const real = Date.now.bind(Date); window.shift = 0; \
         Date.now = () => real() + window.shift; return null; })()",
    );
    let _: Value = browser.eval("window.shift = 9 * 60000");
    browser.wait_for(&format!("{}[data-level=warn]", card(&order)));
    assert!(browser.text(&card(&order)).contains("9:0"));
    let _: Value = browser.eval("window.shift = 16 * 60000");
    browser.wait_for(&format!("{}[data-level=late]", card(&order)));
    browser.wait_for_text(".late-count", "1 late");
    let _: Value = browser.eval("window.shift = 0");
    browser.wait_for(&format!("{}[data-level=normal]", card(&order)));

    // Sound back on from a tap: the browser allows it now, and a new ticket beeps
    // without a complaint in the console.
    browser.click("[data-action=sound]");
    browser.wait_for_text("[data-action=sound][aria-pressed=true]", "Sound on");
    let beeped = fire(
        &app,
        json!({"order_type": "takeaway", "items": [{"menu_item_id": menu.fries, "quantity": 1}]}),
    );
    browser.wait_for(&card(&beeped));
    browser.wait_for_text("[data-panel=all-day]", "Fries");

    // The menu changes the station: the expo sees every station's tickets.
    browser.click("[data-action=menu]");
    browser.click("[data-station=\"Pass\"]");
    browser.wait_for_text("[data-current-station]", "Pass");
    browser.wait_until(
        "the expo's three tickets",
        "document.querySelectorAll('[data-ticket-id]').length === 3",
    );
    assert!(browser.text(".board").contains("Lager"));
    browser.reload();
    browser.wait_for_text("[data-current-station]", "Pass");

    // Logging out from the menu brings the login back.
    browser.click("[data-action=menu]");
    browser.click("[data-action=logout]");
    browser.wait_for("input[name=email]");
    browser.finish();
}

/// A TCP relay on a port of its own to whichever server it is pointed at: the
/// display keeps one origin (and so its session) while the server's port
/// changes across a restart. While it points at a stopped server, connections
/// are closed at once, as a dead box would.
struct Relay {
    address: String,
    upstream: Arc<Mutex<String>>,
    stopped: Arc<AtomicBool>,
}

impl Relay {
    fn start(base: &str) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a relay port");
        let address = listener.local_addr().unwrap().to_string();
        let upstream = Arc::new(Mutex::new(base.trim_start_matches("http://").to_string()));
        let stopped = Arc::new(AtomicBool::new(false));
        let (to, done) = (upstream.clone(), stopped.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if done.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(client) = client else { continue };
                let target = to.lock().unwrap().clone();
                std::thread::spawn(move || pipe(client, &target));
            }
        });
        Relay {
            address,
            upstream,
            stopped,
        }
    }

    fn base(&self) -> String {
        format!("http://{}", self.address)
    }

    fn point_to(&self, base: &str) {
        *self.upstream.lock().unwrap() = base.trim_start_matches("http://").to_string();
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stopped.store(true, Ordering::SeqCst);
        // Wakes the accepting thread so it sees the flag.
        let _ = TcpStream::connect(&self.address);
    }
}

/// Copies bytes both ways until either side closes.
fn pipe(client: TcpStream, target: &str) {
    let Ok(server) = TcpStream::connect(target) else {
        let _ = client.shutdown(Shutdown::Both);
        return;
    };
    let (Ok(mut client_in), Ok(mut server_out)) = (client.try_clone(), server.try_clone()) else {
        return;
    };
    let upstream = std::thread::spawn(move || {
        copy(&mut client_in, &mut server_out);
        let _ = server_out.shutdown(Shutdown::Write);
    });
    let (mut server_in, mut client_out) = (server, client);
    copy(&mut server_in, &mut client_out);
    let _ = client_out.shutdown(Shutdown::Both);
    let _ = server_in.shutdown(Shutdown::Both);
    let _ = upstream.join();
}

fn copy(from: &mut TcpStream, to: &mut TcpStream) {
    let mut buffer = [0u8; 16 * 1024];
    loop {
        match from.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if to.write_all(&buffer[..n]).is_err() {
                    return;
                }
            }
        }
    }
}

#[test]
fn the_display_says_it_is_offline_and_catches_up_after_a_restart() {
    let mut app = TestApp::spawn();
    let menu = menu(&app);
    let cook = new_user(&app, Role::Kitchen);
    let relay = Relay::start(&app.base);
    let Some(mut browser) = Browser::launch(&app) else {
        return;
    };
    // While the server is down the browser reports each refused request.
    browser.ignore_console("ERR_EMPTY_RESPONSE");
    browser.ignore_console("ERR_CONNECTION_RESET");
    browser.ignore_console("ERR_CONNECTION_REFUSED");
    browser.ignore_console("ERR_SOCKET_NOT_CONNECTED");
    let page = browser.page().clone();
    browser
        .block_on(page.goto(format!("{}/kitchen/", relay.base())))
        .expect("the display opens through the relay");
    sign_in(&mut browser, &cook, "Kitchen");
    let before = fire(
        &app,
        json!({"order_type": "takeaway", "items": [{"menu_item_id": menu.burger, "quantity": 1}]}),
    );
    let bumped_meanwhile = fire(
        &app,
        json!({"order_type": "takeaway", "items": [{"menu_item_id": menu.salad, "quantity": 1}]}),
    );
    browser.wait_for(&card(&bumped_meanwhile));
    assert!(!browser.exists("[data-banner=offline]"));

    // The server stops: the banner says so. It comes back on another port,
    // where orders are taken and a ticket is bumped while the screen is away.
    app.restart();
    browser.wait_for_text("[data-banner=offline]", "Offline — reconnecting");
    let kitchen = app.user(Role::Kitchen);
    let tickets = kitchen.get("/kitchen/tickets").expect(200);
    let ticket = tickets["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["order_id"] == id(&bumped_meanwhile))
        .unwrap()
        .clone();
    kitchen
        .post(&format!("/kitchen/tickets/{}/bump", id(&ticket)), json!({}))
        .expect(200);
    let during: Vec<Value> = (0..2)
        .map(|_| {
            fire(
                &app,
                json!({"order_type": "takeaway", "items": [{"menu_item_id": menu.fries, "quantity": 2}]}),
            )
        })
        .collect();
    // The board keeps what it knew while it cannot hear.
    browser.wait_for(&card(&before));
    browser.screenshot("kitchen-offline");

    // The way back: the banner goes, and the board is what the server has,
    // each ticket once, without a reload.
    relay.point_to(&app.base);
    browser.wait_gone("[data-banner=offline]");
    for order in &during {
        browser.wait_for(&card(order));
    }
    browser.wait_gone(&card(&bumped_meanwhile));
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(
        board(&mut browser),
        [number(&before), number(&during[0]), number(&during[1])],
        "caught up, nothing twice"
    );
    // And it is live again.
    let after = fire(
        &app,
        json!({"order_type": "takeaway", "items": [{"menu_item_id": menu.salad, "quantity": 3}]}),
    );
    browser.wait_for(&card(&after));
    assert_eq!(browser.count("[data-ticket-id]"), 4);
    browser.finish();
}
