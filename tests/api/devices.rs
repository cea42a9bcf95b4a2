//! Pairing devices with setup keys, their credentials, revocation, and PIN
//! sign-in on a paired terminal.

use brigade::auth::Role;
use serde_json::{json, Value};

use crate::helpers::{Client, TestApp};

fn setup_key(by: &Client, role: &str) -> Value {
    by.post(
        "/devices/setup-keys",
        json!({"name": "Front terminal", "role": role}),
    )
    .expect(201)
}

fn pair(app: &TestApp, code: &str, name: &str) -> crate::helpers::Res {
    Client::anonymous(&app.base).post("/devices/pair", json!({"code": code, "device_name": name}))
}

fn registry(app: &TestApp) -> rusqlite::Connection {
    rusqlite::Connection::open(app.dir.path().join("registry.db")).unwrap()
}

#[test]
fn a_setup_key_pairs_one_device_once() {
    let app = TestApp::spawn();
    let manager = app.user(Role::Manager);
    let key = manager
        .post(
            "/devices/setup-keys",
            json!({"name": "Kitchen 1", "role": "kitchen", "expires_in_minutes": 30}),
        )
        .expect(201);
    let code = key["code"].as_str().unwrap();
    assert_eq!(code.len(), 11, "{code}");
    assert_eq!(key["role"], "kitchen");
    assert_eq!(
        key["pair_url"],
        format!("{}/kitchen/pair?code={code}", app.base)
    );
    assert!(key["qr_svg"].as_str().unwrap().contains("<svg"));
    let created = brigade::time::parse_rfc3339(key["created_at"].as_str().unwrap()).unwrap();
    let expires = brigade::time::parse_rfc3339(key["expires_at"].as_str().unwrap()).unwrap();
    assert_eq!((expires - created).num_minutes(), 30);
    let pending = manager.get("/devices/setup-keys").expect(200);
    assert_eq!(pending["data"][0]["id"], key["id"]);
    assert!(pending["data"][0].get("code").is_none());

    // Typed loosely: lower case, a space for the dash.
    let typed = code.to_lowercase().replace('-', " ");
    let paired = pair(&app, &typed, "Pass screen").expect(201);
    assert_eq!(paired["tenant"]["id"], app.tenant_id.as_str());
    assert_eq!(paired["device"]["name"], "Pass screen");
    assert_eq!(paired["device"]["role"], "kitchen");
    assert_eq!(paired["device"]["setup_key_name"], "Kitchen 1");
    let device = Client {
        token: Some(paired["api_key"].as_str().unwrap().to_string()),
        ..Client::anonymous(&app.base).with_tenant(&app.tenant_id)
    };
    let me = device.get("/auth/me").expect(200);
    assert_eq!(me["principal"], "api_key");
    assert_eq!(me["role"], "kitchen");
    device.get("/kitchen/stations").expect(200);
    device
        .get("/tables")
        .expect_problem(403, "permission_denied");

    // Single use.
    pair(&app, code, "Second screen").expect_problem(401, "setup_key_used");
    assert!(manager.get("/devices/setup-keys").expect(200)["data"]
        .as_array()
        .unwrap()
        .is_empty());
    let devices = manager.get("/devices").expect(200);
    let listed = &devices["data"][0];
    assert_eq!(listed["id"], paired["device"]["id"]);
    assert_eq!(listed["last_seen_address"], "127.0.0.1");
    assert!(listed["last_seen_at"].is_string());
    assert_eq!(listed["revoked_at"], Value::Null);
}

#[test]
fn an_expired_or_withdrawn_setup_key_is_refused() {
    let app = TestApp::spawn();
    let key = setup_key(&app.owner, "cashier");
    registry(&app)
        .execute(
            "UPDATE setup_keys SET expires_at = '2000-01-01T00:00:00.000Z' WHERE id = ?1",
            [key["id"].as_str().unwrap()],
        )
        .unwrap();
    pair(&app, key["code"].as_str().unwrap(), "Late").expect_problem(401, "setup_key_expired");
    assert!(app.owner.get("/devices/setup-keys").expect(200)["data"]
        .as_array()
        .unwrap()
        .is_empty());

    let withdrawn = setup_key(&app.owner, "cashier");
    app.owner
        .delete(&format!(
            "/devices/setup-keys/{}",
            withdrawn["id"].as_str().unwrap()
        ))
        .expect(204);
    pair(&app, withdrawn["code"].as_str().unwrap(), "Too late")
        .expect_problem(401, "invalid_setup_key");
    assert!(app.owner.get("/devices").expect(200)["data"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn wrong_codes_are_refused_after_five_tries_from_one_address() {
    let app = TestApp::spawn();
    let key = setup_key(&app.owner, "server");
    for _ in 0..5 {
        pair(&app, "AAAAA-AAAAA", "Guess").expect_problem(401, "invalid_setup_key");
    }
    // Even the right code is refused now, from this address.
    let limited = pair(&app, key["code"].as_str().unwrap(), "Guess");
    assert!(limited.header("retry-after").is_some());
    limited.expect_problem(429, "rate_limited");
    assert!(app.owner.get("/devices").expect(200)["data"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn setup_keys_and_device_credentials_are_stored_hashed() {
    let app = TestApp::spawn();
    let key = setup_key(&app.owner, "host");
    let code = key["code"].as_str().unwrap().to_string();
    let paired = pair(&app, &code, "Host stand").expect(201);
    let api_key = paired["api_key"].as_str().unwrap();
    let bytes = std::fs::read(app.dir.path().join("registry.db")).unwrap();
    let wal = std::fs::read(app.dir.path().join("registry.db-wal")).unwrap_or_default();
    for stored in [&bytes, &wal] {
        for secret in [code.replace('-', ""), code.clone(), api_key.to_string()] {
            assert!(
                !stored.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{secret} stored in plain text"
            );
        }
    }
}

#[test]
fn a_revoked_device_is_refused_at_once() {
    let app = TestApp::spawn();
    app.owner
        .post(
            "/users",
            json!({"name": "Sam", "email": "sam@test.example", "role": "server",
                   "password": "temporary pass", "pin": "2468"}),
        )
        .expect(201);
    let (id, device) = app.paired_device("server");
    device.get("/orders").expect(200);
    let signed_in = device.post("/auth/pin", json!({"pin": "2468"})).expect(200);
    let person = Client {
        token: Some(signed_in["access_token"].as_str().unwrap().to_string()),
        ..device.clone()
    };
    person.get("/orders").expect(200);

    let revoked = app
        .owner
        .post(&format!("/devices/{id}/revoke"), json!({}))
        .expect(200);
    assert!(revoked["revoked_at"].is_string());
    device.get("/orders").expect_problem(401, "unauthorized");
    // A PIN sign-in made on it ends with it.
    person.get("/orders").expect_problem(401, "unauthorized");
    let listed = app.owner.get("/devices").expect(200);
    assert_eq!(listed["data"][0]["id"], id.as_str());
    assert!(listed["data"][0]["revoked_at"].is_string());
}

#[test]
fn a_revoked_devices_event_stream_ends_at_once() {
    let app = TestApp::spawn();
    let (id, device) = app.paired_device("kitchen");
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(std::time::Duration::from_secs(10)))
        .build()
        .into();
    let stream = |client: &Client| {
        agent
            .get(format!("{}/api/v1/events/stream", client.base))
            .header(
                "Authorization",
                format!("Bearer {}", client.token.as_ref().unwrap()),
            )
            .header("X-Tenant-ID", client.tenant_id.as_ref().unwrap())
            .call()
    };
    let open = stream(&device).unwrap();
    let owners = stream(&app.owner).unwrap();
    let started = std::time::Instant::now();
    app.owner
        .post(&format!("/devices/{id}/revoke"), json!({}))
        .expect(200);
    // Read to its end: well before the server's 30 s keep-alive, not by timing out.
    let rest = open.into_body().read_to_vec();
    assert!(rest.is_ok(), "{rest:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert!(matches!(stream(&device), Err(ureq::Error::StatusCode(401))));
    // Another caller's stream goes on.
    let item = app.menu_item(12.0, 0.1);
    app.order(&item, 1);
    let mut lines = std::io::BufReader::new(owners.into_body().into_reader());
    let event = std::io::BufRead::lines(&mut lines)
        .map(Result::unwrap)
        .find(|line| line.starts_with("data:"))
        .unwrap();
    assert!(event.contains("order.created"), "{event}");
}

#[test]
fn pin_sign_in_works_only_through_a_paired_device() {
    let app = TestApp::spawn();
    let sam = app
        .owner
        .post(
            "/users",
            json!({"name": "Sam", "email": "sam@test.example", "role": "server",
                   "password": "temporary pass", "pin": "135790"}),
        )
        .expect(201);
    let (_, device) = app.paired_device("kitchen");

    app.owner
        .post("/auth/pin", json!({"pin": "135790"}))
        .expect_problem(403, "paired_device_required");
    app.api_key(Role::Cashier)
        .post("/auth/pin", json!({"pin": "135790"}))
        .expect_problem(403, "paired_device_required");
    Client::anonymous(&app.base)
        .with_tenant(&app.tenant_id)
        .post("/auth/pin", json!({"pin": "135790"}))
        .expect_problem(401, "unauthorized");

    let signed_in = device
        .post("/auth/pin", json!({"pin": "135790"}))
        .expect(200);
    assert_eq!(signed_in["user"]["id"], sam["id"]);
    assert_eq!(signed_in["expires_in"], 3600);
    let person = Client {
        token: Some(signed_in["access_token"].as_str().unwrap().to_string()),
        ..device.clone()
    };
    // The token is Sam's: their role, their name on what they do.
    let me = person.get("/auth/me").expect(200);
    assert_eq!(me["principal"], "user");
    assert_eq!(me["principal_id"], sam["id"]);
    assert_eq!(me["role"], "server");
    person.get("/tables").expect(200);

    // A deactivated member's PIN no longer signs in.
    let sam_path = format!("/users/{}", sam["id"].as_str().unwrap());
    app.owner
        .post(&format!("{sam_path}/deactivate"), json!({}))
        .expect(200);
    person.get("/tables").expect_problem(401, "unauthorized");
    device
        .post("/auth/pin", json!({"pin": "135790"}))
        .expect_problem(401, "invalid_pin");
    app.owner
        .post(&format!("{sam_path}/reactivate"), json!({}))
        .expect(200);

    // Wrong PINs are limited per device: four more wrong ones (five in all), then
    // even the right PIN waits, on this device only.
    for pin in ["0000", "1111", "2222", "3333"] {
        device
            .post("/auth/pin", json!({"pin": pin}))
            .expect_problem(401, "invalid_pin");
    }
    device
        .post("/auth/pin", json!({"pin": "135790"}))
        .expect_problem(429, "rate_limited");
    let (_, other_device) = app.paired_device("cashier");
    other_device
        .post("/auth/pin", json!({"pin": "135790"}))
        .expect(200);
}

#[test]
fn bad_input_to_devices_is_refused_with_problems() {
    let app = TestApp::spawn();
    app.owner
        .post_raw("/devices/setup-keys", "application/json", b"{")
        .expect_problem(400, "malformed_json");
    for body in [
        json!({"role": "kitchen"}),
        json!({"name": "K", "role": "owner"}),
        json!({"name": "K", "role": "chef"}),
        json!({"name": "K", "role": "kitchen", "expires_in_minutes": 0}),
        json!({"name": "K", "role": "kitchen", "expires_in_minutes": 10081}),
        json!({"name": "K", "role": "kitchen", "expires_in_minutes": "15"}),
        json!({"name": "", "role": "kitchen"}),
    ] {
        app.owner
            .post("/devices/setup-keys", body)
            .expect_problem(422, "validation_failed");
    }
    let week = app
        .owner
        .post(
            "/devices/setup-keys",
            json!({"name": "K", "role": "kitchen", "expires_in_minutes": 10080}),
        )
        .expect(201);
    let code = week["code"].as_str().unwrap();
    let anonymous = Client::anonymous(&app.base);
    anonymous
        .post_raw("/devices/pair", "application/json", b"[")
        .expect_problem(400, "malformed_json");
    anonymous
        .post("/devices/pair", json!({"code": code}))
        .expect_problem(422, "validation_failed");
    anonymous
        .post("/devices/pair", json!({"code": code, "device_name": 7}))
        .expect_problem(422, "validation_failed");
    anonymous
        .post("/devices/pair", json!({"code": code, "device_name": "  "}))
        .expect_problem(422, "validation_failed");
    let unknown = "0190a0a0-0000-7000-8000-000000000000";
    app.owner
        .post(&format!("/devices/{unknown}/revoke"), json!({}))
        .expect_problem(404, "not_found");
    app.owner
        .post("/devices/nope/revoke", json!({}))
        .expect_problem(404, "not_found");
    app.owner
        .delete(&format!("/devices/setup-keys/{unknown}"))
        .expect_problem(404, "not_found");
    // Another tenant's devices and keys are unknown here.
    let (other_tenant, other) = app.second_tenant("other-place");
    let theirs = setup_key(&other, "kitchen");
    let their_device = pair(&app, theirs["code"].as_str().unwrap(), "Theirs").expect(201);
    assert_eq!(their_device["tenant"]["id"], other_tenant.as_str());
    app.owner
        .post(
            &format!(
                "/devices/{}/revoke",
                their_device["device"]["id"].as_str().unwrap()
            ),
            json!({}),
        )
        .expect_problem(404, "not_found");
    let their_key = setup_key(&other, "kitchen");
    app.owner
        .delete(&format!(
            "/devices/setup-keys/{}",
            their_key["id"].as_str().unwrap()
        ))
        .expect_problem(404, "not_found");
    assert!(app.owner.get("/devices").expect(200)["data"]
        .as_array()
        .unwrap()
        .is_empty());
    // Only owners and managers manage devices.
    for role in [Role::Cashier, Role::Server, Role::Host, Role::Kitchen] {
        let staff = app.user(role);
        staff
            .post(
                "/devices/setup-keys",
                json!({"name": "K", "role": "kitchen"}),
            )
            .expect_problem(403, "permission_denied");
        staff
            .get("/devices")
            .expect_problem(403, "permission_denied");
    }
    // The PIN must be 4 to 6 digits, as a string.
    let (_, device) = app.paired_device("server");
    device
        .post("/auth/pin", json!({"pin": 1234}))
        .expect_problem(422, "validation_failed");
    device
        .post("/auth/pin", json!({"pin": "12a4"}))
        .expect_problem(422, "validation_failed");
    device
        .post("/auth/pin", json!({}))
        .expect_problem(422, "validation_failed");
}
