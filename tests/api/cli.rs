//! The `brigade` binary as an installer and a first-time user run it.

use serde_json::json;

use crate::helpers::{Client, Res};
use crate::process::{brigade, serve, serve_no_demo, stdout};

fn value_after(lines: &[String], label: &str) -> String {
    lines
        .iter()
        .find_map(|l| l.trim().strip_prefix(label))
        .unwrap_or_else(|| panic!("{label} not printed in {lines:?}"))
        .trim()
        .to_string()
}

fn login(base: &str, tenant: &str, email: &str, password: &str) -> Client {
    let res: Res =
        Client::anonymous(base).post("/auth/login", json!({"email": email, "password": password}));
    let body = res.expect(200);
    Client {
        token: Some(body["access_token"].as_str().unwrap().to_string()),
        ..Client::anonymous(base).with_tenant(tenant)
    }
}

#[test]
fn first_start_seeds_the_demo_tenant_and_prints_its_login_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(dir.path());
    let tenant = value_after(&server.output, "Tenant id (X-Tenant-ID):");
    let email = value_after(&server.output, "Owner login:");
    let password = value_after(&server.output, "Password:");
    assert!(
        server.output.iter().any(|l| l.contains("/api/v1")),
        "{:?}",
        server.output
    );
    let owner = login(&server.base, &tenant, &email, &password);
    assert_eq!(owner.get("/auth/me").expect(200)["tenant"]["slug"], "demo");
    let items = owner.get("/menu/items?limit=200").expect(200);
    let items = items["data"].as_array().unwrap();
    assert!(items.len() >= 15, "{} items", items.len());
    assert!(
        items
            .iter()
            .filter(|i| !i["modifiers"].as_array().unwrap().is_empty())
            .count()
            >= 8
    );
    assert!(
        owner.get("/menu/categories").expect(200)["data"]
            .as_array()
            .unwrap()
            .len()
            >= 3
    );
    let tenant_file = dir.path().join("tenants").join(format!("{tenant}.db"));
    let conn = rusqlite::Connection::open(&tenant_file).unwrap();
    let floors: i64 = conn
        .query_row("SELECT COUNT(*) FROM floors", [], |r| r.get(0))
        .unwrap();
    let tables: i64 = conn
        .query_row("SELECT COUNT(*) FROM tables", [], |r| r.get(0))
        .unwrap();
    assert_eq!(floors, 2);
    assert!(tables >= 8);
    // The demo can take an order end to end.
    // A starter, which the happy hour on drinks leaves alone.
    let item = items.iter().find(|i| i["name"] == "Tomato soup").unwrap()["id"]
        .as_str()
        .unwrap();
    let order = owner
        .post(
            "/orders",
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect(201);
    assert!(order["total_amount"].as_f64().unwrap() > 0.0);
    // Its welcome code takes 10 % off, on top of nothing else.
    let campaigns = owner.get("/campaigns?status=active").expect(200)["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect::<Vec<_>>();
    assert_eq!(campaigns.len(), 2, "{campaigns:?}");
    let id = order["id"].as_str().unwrap();
    let coupon = owner
        .post(
            &format!("/orders/{id}/coupons"),
            json!({"code": "welcome10"}),
        )
        .expect(200);
    let subtotal = coupon["subtotal"].as_f64().unwrap();
    assert_eq!(
        coupon["discount_amount"].as_f64().unwrap(),
        (subtotal * 10.0).round() / 100.0
    );
    // And a guest can book it: lunch and dinner slots, half-hourly.
    let (date, _) = crate::helpers::next_week_at_seven();
    let guest = Client::anonymous(&server.base);
    let availability = guest
        .get(&format!(
            "/public/demo/availability?date={date}&party_size=2"
        ))
        .expect(200);
    let slots: Vec<&str> = availability["slots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["starts_at"].as_str().unwrap())
        .collect();
    assert_eq!(slots.len(), 5 + 8, "{slots:?}");
    assert!(slots[0].ends_with("T12:00:00.000Z"), "{slots:?}");
    assert!(slots[12].ends_with("T21:30:00.000Z"), "{slots:?}");
    guest
        .post(
            "/public/demo/reservations",
            json!({"name": "Ada", "phone": "555-0100", "party_size": 2, "starts_at": slots[6]}),
        )
        .expect(201);
    drop(server);

    let again = serve(dir.path());
    assert!(
        !again.output.iter().any(|l| l.contains("Password")),
        "{:?}",
        again.output
    );
    let owner = login(&again.base, &tenant, &email, &password);
    assert_eq!(
        owner.get("/orders").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn no_demo_starts_empty() {
    let dir = tempfile::tempdir().unwrap();
    let output = brigade(dir.path(), &["tenant", "list"]);
    assert_eq!(stdout(&output).lines().count(), 1, "only the header");
    let server = serve_no_demo(dir.path());
    assert!(
        !server.output.iter().any(|l| l.contains("demo")),
        "{:?}",
        server.output
    );
    drop(server);
    assert_eq!(
        stdout(&brigade(dir.path(), &["tenant", "list"]))
            .lines()
            .count(),
        1
    );
}

#[test]
fn setup_commands_create_a_tenant_a_user_and_an_api_key() {
    let dir = tempfile::tempdir().unwrap();
    let tenant = stdout(&brigade(
        dir.path(),
        &[
            "tenant",
            "create",
            "--name",
            "Chez Nous",
            "--slug",
            "chez-nous",
            "--currency",
            "EUR",
            "--timezone",
            "Europe/Paris",
        ],
    ));
    assert!(tenant.parse::<uuid::Uuid>().is_ok(), "{tenant}");
    let list = stdout(&brigade(dir.path(), &["tenant", "list"]));
    assert!(list.contains("chez-nous") && list.contains(&tenant) && list.contains("Chez Nous"));
    stdout(&brigade(
        dir.path(),
        &[
            "user",
            "create",
            "--tenant",
            "chez-nous",
            "--email",
            "Chef@Chez.example",
            "--name",
            "Chef",
            "--role",
            "manager",
            "--password",
            "s3cret-pass",
        ],
    ));
    let key = stdout(&brigade(
        dir.path(),
        &[
            "api-key", "create", "--tenant", &tenant, "--name", "POS 1", "--role", "cashier",
        ],
    ));
    assert!(key.starts_with("brk_"));

    let duplicate = brigade(
        dir.path(),
        &["tenant", "create", "--name", "Again", "--slug", "chez-nous"],
    );
    assert!(!duplicate.status.success());
    assert!(String::from_utf8_lossy(&duplicate.stderr).contains("already exists"));
    for bad in [
        vec!["tenant", "create", "--name", "X", "--slug", "Bad Slug"],
        vec!["serve", "--webhook-timeout", "0"],
        vec![
            "tenant",
            "create",
            "--name",
            "X",
            "--slug",
            "ok",
            "--timezone",
            "Mars/Base",
        ],
        vec![
            "user",
            "create",
            "--tenant",
            "nowhere",
            "--email",
            "a@b.example",
            "--name",
            "A",
            "--role",
            "owner",
            "--password",
            "longenough",
        ],
        vec![
            "user",
            "create",
            "--tenant",
            "chez-nous",
            "--email",
            "a@b.example",
            "--name",
            "A",
            "--role",
            "owner",
            "--password",
            "short",
        ],
        vec![
            "user",
            "create",
            "--tenant",
            "chez-nous",
            "--email",
            "a@b.example",
            "--name",
            "A",
            "--role",
            "chef",
            "--password",
            "longenough",
        ],
    ] {
        assert!(
            !brigade(dir.path(), &bad).status.success(),
            "{bad:?} should fail"
        );
    }

    let server = serve(dir.path());
    let manager = login(&server.base, &tenant, "chef@chez.example", "s3cret-pass");
    assert_eq!(manager.get("/auth/me").expect(200)["role"], "manager");
    let pos = Client {
        token: Some(key),
        ..Client::anonymous(&server.base).with_tenant(&tenant)
    };
    assert_eq!(pos.get("/auth/me").expect(200)["role"], "cashier");
    // EUR has cents; the time zone is the tenant's own.
    let category = manager
        .post("/menu/categories", json!({"name": "Plats"}))
        .expect(201);
    let item = manager
        .post(
            "/menu/items",
            json!({"name": "Steak", "category_id": category["id"], "price": 21.5}),
        )
        .expect(201);
    assert_eq!(item["price"], 21.5);
}

#[test]
fn a_setup_key_made_on_the_command_line_prints_a_scannable_qr_code_and_pairs() {
    use qrcode::render::unicode::Dense1x2;

    let dir = tempfile::tempdir().unwrap();
    stdout(&brigade(
        dir.path(),
        &[
            "tenant",
            "create",
            "--name",
            "Chez Nous",
            "--slug",
            "chez-nous",
        ],
    ));
    let printed = stdout(&brigade(
        dir.path(),
        &[
            "setup-key",
            "create",
            "--tenant",
            "chez-nous",
            "--name",
            "Kitchen 1",
            "--role",
            "kitchen",
            "--expires",
            "30m",
            "--server-url",
            "http://192.168.1.10:8000",
        ],
    ));
    let lines: Vec<String> = printed.lines().map(str::to_string).collect();
    let code = value_after(&lines, "Code:");
    let url = value_after(&lines, "Pairing URL:");
    assert_eq!(
        url,
        format!("http://192.168.1.10:8000/kitchen/pair?code={code}")
    );
    // The QR code is the qrcode crate's own rendering of the pairing URL, drawn
    // light on dark so it scans on a dark terminal.
    let expected = qrcode::QrCode::new(url.as_bytes())
        .unwrap()
        .render::<Dense1x2>()
        .dark_color(Dense1x2::Light)
        .light_color(Dense1x2::Dark)
        .quiet_zone(true)
        .build();
    assert!(
        printed.contains(expected.trim_end()),
        "the QR code is not the rendering of {url}:\n{printed}"
    );
    let width = qrcode::QrCode::new(url.as_bytes()).unwrap().width();
    assert_eq!(
        expected.lines().next().unwrap().chars().count(),
        width + 8,
        "one character a module, with a 4-module quiet zone each side"
    );

    let refused = brigade(
        dir.path(),
        &[
            "setup-key",
            "create",
            "--tenant",
            "chez-nous",
            "--name",
            "K",
            "--role",
            "kitchen",
            "--expires",
            "8d",
        ],
    );
    assert!(!refused.status.success());

    // The printed code pairs a device with the running server.
    let server = serve_no_demo(dir.path());
    let paired = Client::anonymous(&server.base)
        .post(
            "/devices/pair",
            json!({"code": code, "device_name": "Pass"}),
        )
        .expect(201);
    assert_eq!(paired["device"]["role"], "kitchen");
    assert_eq!(paired["tenant"]["slug"], "chez-nous");
}
