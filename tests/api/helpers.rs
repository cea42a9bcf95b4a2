//! `TestApp`: the real server on 127.0.0.1, a free port and a fresh temp data dir,
//! with a tenant and its owner ready, and a small HTTP client that speaks to it.

use std::sync::Arc;

use brigade::auth::{keys, Role};
use brigade::local_server::{loopback_config, LocalServer};
use brigade::time::Clock;
use brigade::{App, Config};
use serde_json::{json, Value};
use tempfile::TempDir;
use uuid::Uuid;

pub const PASSWORD: &str = "correct horse battery";

pub struct Res {
    pub status: u16,
    pub body: Value,
    pub headers: Vec<(String, String)>,
}

impl Res {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Asserts the status, printing the body when it differs.
    #[track_caller]
    pub fn expect(self, status: u16) -> Value {
        assert_eq!(
            self.status, status,
            "unexpected status; body: {}",
            self.body
        );
        self.body
    }

    /// Asserts a problem+json error with this status and code.
    #[track_caller]
    pub fn expect_problem(self, status: u16, code: &str) -> Value {
        assert_eq!(
            self.status, status,
            "unexpected status; body: {}",
            self.body
        );
        assert_eq!(
            self.header("content-type"),
            Some("application/problem+json"),
            "errors are problem+json"
        );
        assert_eq!(self.body["code"], code, "unexpected problem: {}", self.body);
        assert_eq!(self.body["status"], status);
        self.body
    }
}

#[derive(Clone)]
pub struct Client {
    pub base: String,
    pub token: Option<String>,
    pub tenant_id: Option<String>,
    pub agent: ureq::Agent,
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into()
}

/// An answer as the tests read it: status, headers and the body as JSON (or text).
pub fn read(mut response: ureq::http::Response<ureq::Body>) -> Res {
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    Res {
        status,
        body,
        headers,
    }
}

impl Client {
    pub fn anonymous(base: &str) -> Client {
        Client {
            base: base.to_string(),
            token: None,
            tenant_id: None,
            agent: agent(),
        }
    }

    pub fn with_tenant(&self, tenant_id: &str) -> Client {
        Client {
            tenant_id: Some(tenant_id.to_string()),
            ..self.clone()
        }
    }

    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<(&str, &[u8])>,
    ) -> Res {
        let url = format!("{}/api/v1{path}", self.base);
        let mut builder = ureq::http::Request::builder().method(method).uri(&url);
        if let Some(token) = &self.token {
            builder = builder.header("Authorization", format!("Bearer {token}"));
        }
        if let Some(tenant) = &self.tenant_id {
            builder = builder.header("X-Tenant-ID", tenant);
        }
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        let response = match body {
            Some((content_type, bytes)) => {
                let request = builder
                    .header("Content-Type", content_type)
                    .body(bytes.to_vec())
                    .unwrap();
                self.agent.run(request)
            }
            None => self.agent.run(builder.body(()).unwrap()),
        };
        read(response.expect("the server answers"))
    }

    /// A POST that may find no server (it was killed): `None` then.
    pub fn try_post(&self, path: &str, body: Value) -> Option<Res> {
        let request = ureq::http::Request::builder()
            .method("POST")
            .uri(format!("{}/api/v1{path}", self.base))
            .header(
                "Authorization",
                format!("Bearer {}", self.token.as_deref().unwrap_or("")),
            )
            .header("X-Tenant-ID", self.tenant_id.as_deref().unwrap_or(""))
            .header("Content-Type", "application/json")
            .body(body.to_string().into_bytes())
            .unwrap();
        self.agent.run(request).ok().map(read)
    }

    pub fn get(&self, path: &str) -> Res {
        self.request("GET", path, &[], None)
    }

    pub fn delete(&self, path: &str) -> Res {
        self.request("DELETE", path, &[], None)
    }

    pub fn post(&self, path: &str, body: Value) -> Res {
        self.send("POST", path, body, &[])
    }

    pub fn patch(&self, path: &str, body: Value) -> Res {
        self.send("PATCH", path, body, &[])
    }

    pub fn put(&self, path: &str, body: Value) -> Res {
        self.send("PUT", path, body, &[])
    }

    pub fn send(&self, method: &str, path: &str, body: Value, headers: &[(&str, &str)]) -> Res {
        let bytes = body.to_string().into_bytes();
        self.request(method, path, headers, Some(("application/json", &bytes)))
    }

    pub fn post_raw(&self, path: &str, content_type: &str, body: &[u8]) -> Res {
        self.request("POST", path, &[], Some((content_type, body)))
    }
}

pub struct TestApp {
    pub dir: TempDir,
    pub base: String,
    pub tenant_id: String,
    pub owner: Client,
    running: Option<LocalServer>,
}

pub fn test_config(dir: &std::path::Path) -> Config {
    loopback_config(dir)
}

fn launch(config: Config, clock: Clock) -> (LocalServer, String) {
    let server = LocalServer::start_with_clock(config, clock).expect("the server starts");
    let origin = server.origin.clone();
    (server, origin)
}

impl TestApp {
    /// A server on a fresh data dir with one tenant ("Test Bistro") and its owner.
    pub fn spawn() -> TestApp {
        Self::spawn_with(|_| {})
    }

    pub fn spawn_with(adjust: impl FnOnce(&mut Config)) -> TestApp {
        Self::spawn_with_clock(adjust, Clock::system())
    }

    /// As [`TestApp::spawn_with`], with `clock` as the server's "now".
    pub fn spawn_with_clock(adjust: impl FnOnce(&mut Config), clock: Clock) -> TestApp {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = test_config(dir.path());
        adjust(&mut config);
        let (running, base) = launch(config, clock);
        let tenant_id = create_tenant(&running.app, "Test Bistro", "test-bistro");
        let mut app = TestApp {
            dir,
            base: base.clone(),
            tenant_id: tenant_id.clone(),
            owner: Client::anonymous(&base),
            running: Some(running),
        };
        app.owner = app.client_for(&tenant_id, "owner@test.example", Role::Owner);
        app
    }

    pub fn app(&self) -> &Arc<App> {
        &self.running.as_ref().expect("running").app
    }

    /// Creates another tenant with its owner.
    pub fn second_tenant(&self, slug: &str) -> (String, Client) {
        let tenant_id = create_tenant(self.app(), "Other Place", slug);
        let client = self.client_for(&tenant_id, &format!("owner@{slug}.example"), Role::Owner);
        (tenant_id, client)
    }

    /// A new user of `role` in the main tenant, logged in.
    pub fn user(&self, role: Role) -> Client {
        let email = format!("{}-{}@test.example", role.as_str(), Uuid::now_v7().simple());
        self.client_for(&self.tenant_id.clone(), &email, role)
    }

    pub fn create_user(&self, tenant_id: &str, email: &str, role: Role) {
        let app = self.app();
        let db = app.db.tenant(tenant_id.parse().unwrap()).unwrap();
        brigade::domain::staff::create_user(&app.db, &db, email, "Test User", role, PASSWORD)
            .unwrap();
    }

    fn client_for(&self, tenant_id: &str, email: &str, role: Role) -> Client {
        self.create_user(tenant_id, email, role);
        let body = Client::anonymous(&self.base)
            .send(
                "POST",
                "/auth/login",
                json!({"email": email, "password": PASSWORD}),
                &[("X-Tenant-ID", tenant_id)],
            )
            .expect(200);
        Client {
            token: Some(body["access_token"].as_str().unwrap().to_string()),
            ..Client::anonymous(&self.base).with_tenant(tenant_id)
        }
    }

    /// Pairs a new device of `role` through a setup key; returns its id and a
    /// client with its credential.
    pub fn paired_device(&self, role: &str) -> (String, Client) {
        let key = self
            .owner
            .post(
                "/devices/setup-keys",
                json!({"name": "Front terminal", "role": role}),
            )
            .expect(201);
        let paired = Client::anonymous(&self.base)
            .post(
                "/devices/pair",
                json!({"code": key["code"], "device_name": "Terminal"}),
            )
            .expect(201);
        (
            paired["device"]["id"].as_str().unwrap().to_string(),
            Client {
                token: Some(paired["api_key"].as_str().unwrap().to_string()),
                ..Client::anonymous(&self.base).with_tenant(&self.tenant_id)
            },
        )
    }

    /// An API key client of `role` for the main tenant.
    pub fn api_key(&self, role: Role) -> Client {
        let registry = self.app().db.registry().unwrap();
        let (_, key) =
            keys::create(&registry, self.tenant_id.parse().unwrap(), "test key", role).unwrap();
        Client {
            token: Some(key),
            ..Client::anonymous(&self.base).with_tenant(&self.tenant_id)
        }
    }

    /// Stops the server and starts it again on the same data dir and port-agnostic base.
    pub fn restart(&mut self) {
        self.stop();
        let (running, base) = launch(test_config(self.dir.path()), Clock::system());
        self.base = base.clone();
        self.owner.base = base;
        self.running = Some(running);
    }

    pub fn stop(&mut self) {
        // Dropping the server stops it and waits for it.
        self.running.take();
    }

    /// A connection of its own to a tenant's file, beside the server's.
    pub fn tenant_file_of(&self, tenant_id: &str) -> rusqlite::Connection {
        let path = self
            .dir
            .path()
            .join("tenants")
            .join(format!("{tenant_id}.db"));
        rusqlite::Connection::open(path).unwrap()
    }

    /// The test tenant's file (see [`TestApp::tenant_file_of`]).
    pub fn tenant_file(&self) -> rusqlite::Connection {
        self.tenant_file_of(&self.tenant_id)
    }

    /// Every outbox row of a tenant, oldest first, as parsed envelopes.
    pub fn outbox(&self, tenant_id: &str) -> Vec<Value> {
        let conn = self.tenant_file_of(tenant_id);
        let mut stmt = conn
            .prepare("SELECT body FROM outbox ORDER BY seq")
            .unwrap();
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .map(|b| serde_json::from_str(&b.unwrap()).unwrap())
            .collect();
        rows
    }

    /// A kitchen station made through the API; its id.
    pub fn station(&self, name: &str) -> String {
        self.owner
            .post("/kitchen/stations", json!({"name": name}))
            .expect(201)["id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// A category and an item at `price` with `tax_rate` %, made through the API.
    pub fn menu_item(&self, price: f64, tax_rate: f64) -> String {
        self.menu_item_for(&self.owner, price, tax_rate)
    }

    pub fn menu_item_for(&self, owner: &Client, price: f64, tax_rate: f64) -> String {
        let category = owner
            .post(
                "/menu/categories",
                json!({"name": format!("Cat {}", Uuid::now_v7().simple())}),
            )
            .expect(201);
        owner
            .post(
                "/menu/items",
                json!({
                    "name": "Item", "category_id": category["id"], "price": price, "tax_rate": tax_rate,
                    "modifiers": [{"name": "Large", "price": 1.25}]
                }),
            )
            .expect(201)["id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// An item called `name` at `price` with `tax_rate` %, in a category of its
    /// own, made through the API.
    pub fn named_item(&self, name: &str, price: f64, tax_rate: f64) -> String {
        let category = self
            .owner
            .post("/menu/categories", json!({"name": format!("{name}s")}))
            .expect(201);
        self.owner
            .post(
                "/menu/items",
                json!({"name": name, "category_id": category["id"], "price": price, "tax_rate": tax_rate}),
            )
            .expect(201)["id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Creates a takeaway order of `quantity` × the item.
    pub fn order(&self, item: &str, quantity: i64) -> Value {
        self.owner
            .post(
                "/orders",
                json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": quantity}]}),
            )
            .expect(201)
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.stop();
    }
}

pub fn create_tenant(app: &App, name: &str, slug: &str) -> String {
    app.db
        .create_tenant(name, slug, "USD", "UTC")
        .expect("tenant created")
        .info
        .id
        .to_string()
}

/// Dining room set-up shared by the floor, queue, session and reservation tests.
impl TestApp {
    /// A floor with one table per entry of `seats`, named T1, T2, ...; returns the
    /// floor id and the table ids.
    pub fn floor_with_tables(&self, seats: &[i64]) -> (String, Vec<String>) {
        let floor = self
            .owner
            .post("/floors", json!({"name": "Main room"}))
            .expect(201);
        let floor_id = floor["id"].as_str().unwrap().to_string();
        let tables = seats
            .iter()
            .enumerate()
            .map(|(i, seats)| {
                self.owner
                    .post(
                        "/tables",
                        json!({"floor_id": floor_id, "name": format!("T{}", i + 1), "seats": seats}),
                    )
                    .expect(201)["id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        (floor_id, tables)
    }

    /// Bookings every day, all day (UTC), half-hourly.
    pub fn open_for_bookings(&self, max_covers_per_slot: i64, max_party_size: i64) {
        let days: Vec<Value> = [
            "monday",
            "tuesday",
            "wednesday",
            "thursday",
            "friday",
            "saturday",
            "sunday",
        ]
        .iter()
        .map(|day| {
            json!({
                "weekday": day, "windows": [{"start": "00:00", "end": "23:59"}], "slot_minutes": 30,
                "max_covers_per_slot": max_covers_per_slot, "max_party_size": max_party_size,
                "stay_minutes": 90
            })
        })
        .collect();
        self.owner
            .put("/reservations/time-slots", json!({ "days": days }))
            .expect(200);
    }
}

/// A booking time a week ahead at 19:00 UTC: always a future slot.
pub fn next_week_at_seven() -> (String, String) {
    let date = (chrono::Utc::now() + chrono::Duration::days(7)).date_naive();
    let date = date.format("%Y-%m-%d").to_string();
    let starts_at = format!("{date}T19:00:00.000Z");
    (date, starts_at)
}

/// The first half-hour slot at least a minute from now: within the hour.
pub fn next_slot() -> String {
    use chrono::{DurationRound, Utc};
    let now = Utc::now();
    let mut slot =
        now.duration_trunc(chrono::Duration::minutes(30)).unwrap() + chrono::Duration::minutes(30);
    if slot < now + chrono::Duration::minutes(1) {
        slot += chrono::Duration::minutes(30);
    }
    slot.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Names of the outbox events of a tenant, oldest first, that start with `prefix`es.
pub fn event_names(outbox: &[Value], prefixes: &[&str]) -> Vec<String> {
    outbox
        .iter()
        .map(|e| e["event"].as_str().unwrap().to_string())
        .filter(|name| prefixes.iter().any(|p| name.starts_with(p)))
        .collect()
}
