use brigade::auth::Role;
use serde_json::json;

use crate::helpers::{Client, TestApp, PASSWORD};

#[test]
fn login_returns_a_bearer_token_that_authenticates() {
    let app = TestApp::spawn();
    app.create_user(&app.tenant_id, "cashier@test.example", Role::Cashier);
    // No X-Tenant-ID: the email finds its tenant.
    let body = Client::anonymous(&app.base)
        .post(
            "/auth/login",
            json!({"email": "Cashier@Test.example", "password": PASSWORD}),
        )
        .expect(200);
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["expires_in"], 12 * 3600);
    assert_eq!(body["user"]["role"], "cashier");
    assert_eq!(body["user"]["email"], "cashier@test.example");
    assert_eq!(body["tenant"]["id"], app.tenant_id.as_str());
    assert_eq!(body["tenant"]["slug"], "test-bistro");
    let client = Client {
        token: Some(body["access_token"].as_str().unwrap().to_string()),
        ..Client::anonymous(&app.base).with_tenant(&app.tenant_id)
    };
    let me = client.get("/auth/me").expect(200);
    assert_eq!(me["principal"], "user");
    assert_eq!(me["role"], "cashier");
    assert_eq!(me["user"]["email"], "cashier@test.example");
}

#[test]
fn wrong_password_and_unknown_email_are_refused_alike() {
    let app = TestApp::spawn();
    app.create_user(&app.tenant_id, "a@test.example", Role::Server);
    let anon = Client::anonymous(&app.base);
    let wrong = anon
        .post(
            "/auth/login",
            json!({"email": "a@test.example", "password": "nope-nope"}),
        )
        .expect_problem(401, "invalid_credentials");
    let unknown = anon
        .post(
            "/auth/login",
            json!({"email": "b@test.example", "password": "nope-nope"}),
        )
        .expect_problem(401, "invalid_credentials");
    assert_eq!(wrong["detail"], unknown["detail"]);
}

#[test]
fn login_is_rate_limited_per_account_with_retry_after() {
    let app = TestApp::spawn_with(|c| c.login_attempts_per_minute = 3);
    app.create_user(&app.tenant_id, "a@test.example", Role::Server);
    let anon = Client::anonymous(&app.base);
    for _ in 0..3 {
        anon.post(
            "/auth/login",
            json!({"email": "a@test.example", "password": "wrong-one"}),
        )
        .expect(401);
    }
    let res = anon.post(
        "/auth/login",
        json!({"email": "a@test.example", "password": PASSWORD}),
    );
    let retry_after: u64 = res
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .unwrap();
    assert!(retry_after >= 1);
    res.expect_problem(429, "rate_limited");
}

#[test]
fn login_is_rate_limited_per_client_address() {
    let app = TestApp::spawn_with(|c| c.login_attempts_per_minute = 2);
    let anon = Client::anonymous(&app.base);
    // Every attempt uses a fresh account, so only the address limit (3 × 2) can refuse.
    let refused_at = (0..10).find(|i| {
        let res = anon.post(
            "/auth/login",
            json!({"email": format!("u{i}@test.example"), "password": "whatever1"}),
        );
        res.status == 429
    });
    // The owner's login in spawn_with was the address's first attempt.
    assert_eq!(refused_at, Some(5));
}

#[test]
fn api_key_authenticates_with_its_role() {
    let app = TestApp::spawn();
    let key = app.api_key(Role::Kitchen);
    let me = key.get("/auth/me").expect(200);
    assert_eq!(me["principal"], "api_key");
    assert_eq!(me["role"], "kitchen");
    assert!(me["user"].is_null());
    key.get("/orders").expect(200);
    let item = app.menu_item(5.0, 0.0);
    key.post(
        "/orders",
        json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]}),
    )
    .expect_problem(403, "permission_denied");
}

#[test]
fn missing_or_bad_credentials_are_401_and_missing_tenant_is_400() {
    let app = TestApp::spawn();
    let anon = Client::anonymous(&app.base).with_tenant(&app.tenant_id);
    let res = anon.get("/orders");
    assert_eq!(res.header("www-authenticate"), Some("Bearer"));
    res.expect_problem(401, "unauthorized");
    let forged = Client {
        token: Some("eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl".into()),
        ..anon.clone()
    };
    forged.get("/orders").expect_problem(401, "unauthorized");
    let bad_key = Client {
        token: Some("brk_not-a-real-key".into()),
        ..anon.clone()
    };
    bad_key.get("/orders").expect_problem(401, "unauthorized");
    let no_tenant = Client {
        tenant_id: None,
        ..app.owner.clone()
    };
    no_tenant
        .get("/orders")
        .expect_problem(400, "tenant_header_required");
    app.owner
        .with_tenant("not-a-uuid")
        .get("/orders")
        .expect_problem(400, "invalid_tenant_header");
}

#[test]
fn credentials_of_one_tenant_are_refused_for_another() {
    let app = TestApp::spawn();
    let (other_id, _) = app.second_tenant("other");
    app.owner
        .with_tenant(&other_id)
        .get("/orders")
        .expect_problem(403, "tenant_mismatch");
    app.api_key(Role::Owner)
        .with_tenant(&other_id)
        .get("/orders")
        .expect_problem(403, "tenant_mismatch");
}

#[test]
fn one_email_in_two_tenants_needs_x_tenant_id_to_log_in() {
    let app = TestApp::spawn();
    let (other_id, _) = app.second_tenant("other");
    app.create_user(&app.tenant_id, "both@test.example", Role::Manager);
    app.create_user(&other_id, "both@test.example", Role::Cashier);
    let anon = Client::anonymous(&app.base);
    anon.post(
        "/auth/login",
        json!({"email": "both@test.example", "password": PASSWORD}),
    )
    .expect_problem(400, "tenant_required");
    let body = anon
        .send(
            "POST",
            "/auth/login",
            json!({"email": "both@test.example", "password": PASSWORD}),
            &[("X-Tenant-ID", &other_id)],
        )
        .expect(200);
    assert_eq!(body["tenant"]["id"], other_id.as_str());
    assert_eq!(body["user"]["role"], "cashier");
}

#[test]
fn login_refuses_malformed_bodies() {
    let app = TestApp::spawn();
    let anon = Client::anonymous(&app.base);
    anon.post_raw("/auth/login", "application/json", b"{\"email\":")
        .expect_problem(400, "malformed_json");
    let body = anon
        .post("/auth/login", json!({"email": "a@test.example"}))
        .expect_problem(422, "validation_failed");
    assert!(body["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("password"));
    anon.post("/auth/login", json!({"email": 5, "password": "x"}))
        .expect_problem(422, "validation_failed");
    anon.post_raw("/auth/login", "text/plain", b"email=a")
        .expect_problem(415, "unsupported_media_type");
}

/// The login screen offers a choice of business from the refusal: it names the
/// businesses these credentials open, and no other.
#[test]
fn a_login_that_needs_a_business_names_the_ones_the_credentials_open() {
    let app = TestApp::spawn();
    let (other_id, _) = app.second_tenant("other");
    let (third_id, _) = app.second_tenant("third");
    app.create_user(&app.tenant_id, "both@test.example", Role::Manager);
    app.create_user(&other_id, "both@test.example", Role::Cashier);
    let db = app.app().db.tenant(third_id.parse().unwrap()).unwrap();
    brigade::domain::staff::create_user(
        &app.app().db,
        &db,
        "both@test.example",
        "Same email, other password",
        Role::Host,
        "another password entirely",
    )
    .unwrap();
    let refused = Client::anonymous(&app.base)
        .post(
            "/auth/login",
            json!({"email": "both@test.example", "password": PASSWORD}),
        )
        .expect_problem(400, "tenant_required");
    let mut named: Vec<(String, String)> = refused["tenants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap().to_string(),
                t["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    named.sort();
    let mut expected = vec![
        (app.tenant_id.clone(), "Test Bistro".to_string()),
        (other_id, "Other Place".to_string()),
    ];
    expected.sort();
    assert_eq!(named, expected);
}
