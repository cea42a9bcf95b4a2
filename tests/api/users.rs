//! Staff accounts: adding and changing staff, the owner rules, wages shown only
//! to owners and managers, deactivation and password resets ending sessions.

use brigade::auth::Role;
use serde_json::{json, Value};

use crate::helpers::{Client, Res, TestApp};

const TEMPORARY: &str = "temporary pass 1";

fn login(app: &TestApp, email: &str, password: &str) -> Res {
    Client::anonymous(&app.base).send(
        "POST",
        "/auth/login",
        json!({"email": email, "password": password}),
        &[("X-Tenant-ID", &app.tenant_id)],
    )
}

fn client_with(app: &TestApp, token: &Value) -> Client {
    Client {
        token: Some(token.as_str().unwrap().to_string()),
        ..Client::anonymous(&app.base).with_tenant(&app.tenant_id)
    }
}

fn my_id(client: &Client) -> String {
    client.get("/auth/me").expect(200)["principal_id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Adds a staff member through the API and returns them.
fn add(by: &Client, email: &str, role: &str) -> Value {
    by.post(
        "/users",
        json!({"name": "New Hire", "email": email, "role": role, "password": TEMPORARY}),
    )
    .expect(201)
}

/// Adds a staff member, has them choose their password, and returns their client.
fn onboard(app: &TestApp, email: &str, role: &str) -> (String, Client) {
    let member = add(&app.owner, email, role);
    let first = client_with(
        app,
        &login(app, email, TEMPORARY).expect(200)["access_token"],
    );
    let changed = first
        .post(
            "/auth/change-password",
            json!({"current_password": TEMPORARY, "new_password": "my own password"}),
        )
        .expect(200);
    (
        member["id"].as_str().unwrap().to_string(),
        client_with(app, &changed["access_token"]),
    )
}

#[test]
fn staff_are_added_listed_changed_and_choose_their_own_password_first() {
    let app = TestApp::spawn();
    let member = app
        .owner
        .post(
            "/users",
            json!({"name": " Ada Lovelace ", "email": "Ada@Example.com", "role": "server",
                   "password": TEMPORARY, "phone": "555-0100", "hourly_wage": 17.5, "pin": "0042"}),
        )
        .expect(201);
    assert_eq!(member["name"], "Ada Lovelace");
    assert_eq!(member["email"], "ada@example.com");
    assert_eq!(member["role"], "server");
    assert_eq!(member["hourly_wage"], 17.5);
    assert_eq!(member["has_pin"], true);
    assert_eq!(member["active"], true);
    assert_eq!(member["must_change_password"], true);
    assert!(member.get("pin").is_none() && member.get("pin_digest").is_none());
    let id = member["id"].as_str().unwrap();

    let listed = app.owner.get("/users?active=true").expect(200);
    assert!(listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["id"] == id));
    let changed = app
        .owner
        .patch(
            &format!("/users/{id}"),
            json!({"phone": null, "hourly_wage": 18, "role": "cashier", "email": "ada@new.example"}),
        )
        .expect(200);
    assert_eq!(changed["phone"], Value::Null);
    assert_eq!(changed["hourly_wage"], 18.0);
    assert_eq!(changed["role"], "cashier");
    assert_eq!(app.owner.get(&format!("/users/{id}")).expect(200), changed);

    // The new email logs in (the old one no more), with the temporary password,
    // which is good for nothing but choosing a new one.
    login(&app, "ada@example.com", TEMPORARY).expect_problem(401, "invalid_credentials");
    let first = login(&app, "ada@new.example", TEMPORARY).expect(200);
    assert_eq!(first["must_change_password"], true);
    let temporary = client_with(&app, &first["access_token"]);
    temporary
        .get("/orders")
        .expect_problem(403, "password_change_required");
    assert_eq!(temporary.get("/auth/me").expect(200)["role"], "cashier");
    temporary
        .post(
            "/auth/change-password",
            json!({"current_password": "not it at all", "new_password": "my own password"}),
        )
        .expect_problem(422, "validation_failed");
    let changed = temporary
        .post(
            "/auth/change-password",
            json!({"current_password": TEMPORARY, "new_password": "my own password"}),
        )
        .expect(200);
    assert_eq!(changed["must_change_password"], false);
    let own = client_with(&app, &changed["access_token"]);
    own.get("/orders").expect(200);
    // The token of the temporary password ended with it.
    temporary
        .get("/auth/me")
        .expect_problem(401, "unauthorized");
    login(&app, "ada@new.example", TEMPORARY).expect_problem(401, "invalid_credentials");
    assert_eq!(
        login(&app, "ada@new.example", "my own password").expect(200)["must_change_password"],
        false
    );
}

#[test]
fn wages_are_shown_to_owners_and_managers_only() {
    let app = TestApp::spawn();
    let member = app
        .owner
        .post(
            "/users",
            json!({"name": "Paid", "email": "paid@test.example", "role": "host",
                   "password": TEMPORARY, "hourly_wage": 21.25}),
        )
        .expect(201);
    let path = format!("/users/{}", member["id"].as_str().unwrap());
    let manager = app.user(Role::Manager);
    assert_eq!(manager.get(&path).expect(200)["hourly_wage"], 21.25);
    for role in [Role::Cashier, Role::Server, Role::Host, Role::Kitchen] {
        let seen = app.user(role).get(&path).expect(200);
        assert!(seen.get("hourly_wage").is_none(), "{role:?} sees {seen}");
        assert_eq!(seen["name"], "Paid");
        let list = app.user(role).get("/users").expect(200);
        assert!(list["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m.get("hourly_wage").is_none()));
    }
    // A member without a wage shows it as null to who may see wages.
    let unpaid = add(&app.owner, "unpaid@test.example", "server");
    assert_eq!(unpaid["hourly_wage"], Value::Null);
}

#[test]
fn only_an_owner_adds_changes_or_deactivates_an_owner() {
    let app = TestApp::spawn();
    let manager = app.user(Role::Manager);
    let owner_id = my_id(&app.owner);
    let owner_path = format!("/users/{owner_id}");
    manager
        .post(&format!("{owner_path}/deactivate"), json!({}))
        .expect_problem(403, "owner_protected");
    manager
        .patch(&owner_path, json!({"name": "Renamed"}))
        .expect_problem(403, "owner_protected");
    manager
        .post(
            &format!("{owner_path}/reset-password"),
            json!({"password": TEMPORARY}),
        )
        .expect_problem(403, "owner_protected");
    manager
        .post(
            "/users",
            json!({"name": "Boss", "email": "boss@test.example", "role": "owner", "password": TEMPORARY}),
        )
        .expect_problem(403, "owner_protected");
    let server = add(&manager, "server@test.example", "server");
    manager
        .patch(
            &format!("/users/{}", server["id"].as_str().unwrap()),
            json!({"role": "owner"}),
        )
        .expect_problem(403, "owner_protected");
    // The owner is untouched, and a manager still manages other staff.
    assert_eq!(app.owner.get("/auth/me").expect(200)["role"], "owner");
    manager
        .post(
            &format!("/users/{}/deactivate", server["id"].as_str().unwrap()),
            json!({}),
        )
        .expect(200);
    // An owner makes another owner.
    add(&app.owner, "second-owner@test.example", "owner");
}

#[test]
fn the_last_active_owner_cannot_be_demoted_or_deactivated() {
    let app = TestApp::spawn();
    let owner_path = format!("/users/{}", my_id(&app.owner));
    app.owner
        .patch(&owner_path, json!({"role": "manager"}))
        .expect_problem(409, "last_owner");
    app.owner
        .post(&format!("{owner_path}/deactivate"), json!({}))
        .expect_problem(409, "last_owner");
    // An inactive owner does not count.
    let (second_id, _) = onboard(&app, "second@test.example", "owner");
    app.owner
        .post(&format!("/users/{second_id}/deactivate"), json!({}))
        .expect(200);
    app.owner
        .patch(&owner_path, json!({"role": "manager"}))
        .expect_problem(409, "last_owner");
    app.owner
        .post(&format!("/users/{second_id}/reactivate"), json!({}))
        .expect(200);
    // With another active owner, the first may step down.
    let (_, third) = onboard(&app, "third@test.example", "owner");
    app.owner
        .patch(&owner_path, json!({"role": "manager"}))
        .expect(200);
    third
        .post(&format!("{owner_path}/deactivate"), json!({}))
        .expect(200);
}

#[test]
fn a_deactivated_users_token_is_refused_at_once_and_after_reactivation() {
    let app = TestApp::spawn();
    let (id, cashier) = onboard(&app, "cash@test.example", "cashier");
    cashier.get("/orders").expect(200);
    let deactivated = app
        .owner
        .post(&format!("/users/{id}/deactivate"), json!({}))
        .expect(200);
    assert_eq!(deactivated["active"], false);
    cashier.get("/orders").expect_problem(401, "unauthorized");
    login(&app, "cash@test.example", "my own password").expect_problem(401, "invalid_credentials");
    app.owner
        .post(&format!("/users/{id}/deactivate"), json!({}))
        .expect_problem(409, "illegal_transition");
    assert_eq!(
        app.owner.get("/users?active=false").expect(200)["data"][0]["id"],
        id.as_str()
    );
    app.owner
        .post(&format!("/users/{id}/reactivate"), json!({}))
        .expect(200);
    // A token issued before the deactivation stays refused.
    cashier.get("/orders").expect_problem(401, "unauthorized");
    let again = client_with(
        &app,
        &login(&app, "cash@test.example", "my own password").expect(200)["access_token"],
    );
    again.get("/orders").expect(200);
}

#[test]
fn a_password_reset_ends_sessions_and_asks_for_a_new_password() {
    let app = TestApp::spawn();
    let (id, server) = onboard(&app, "srv@test.example", "server");
    server.get("/orders").expect(200);
    let manager = app.user(Role::Manager);
    let reset = manager
        .post(
            &format!("/users/{id}/reset-password"),
            json!({"password": "fresh temporary"}),
        )
        .expect(200);
    assert_eq!(reset["must_change_password"], true);
    server.get("/orders").expect_problem(401, "unauthorized");
    login(&app, "srv@test.example", "my own password").expect_problem(401, "invalid_credentials");
    let temporary = login(&app, "srv@test.example", "fresh temporary").expect(200);
    assert_eq!(temporary["must_change_password"], true);
    client_with(&app, &temporary["access_token"])
        .get("/orders")
        .expect_problem(403, "password_change_required");
}

#[test]
fn emails_and_pins_are_unique_within_a_tenant_only() {
    let app = TestApp::spawn();
    let with_pin = |client: &Client, email: &str, pin: &str| {
        client.post(
            "/users",
            json!({"name": "P", "email": email, "role": "server", "password": TEMPORARY, "pin": pin}),
        )
    };
    with_pin(&app.owner, "a@test.example", "1234").expect(201);
    let taken =
        with_pin(&app.owner, "A@Test.example", "9999").expect_problem(409, "already_exists");
    assert_eq!(taken["field"], "email");
    let taken = with_pin(&app.owner, "b@test.example", "1234").expect_problem(409, "pin_taken");
    assert_eq!(taken["field"], "pin");
    let b = with_pin(&app.owner, "b@test.example", "4321").expect(201);
    app.owner
        .patch(
            &format!("/users/{}", b["id"].as_str().unwrap()),
            json!({"pin": "1234"}),
        )
        .expect_problem(409, "pin_taken");
    app.owner
        .patch(
            &format!("/users/{}", b["id"].as_str().unwrap()),
            json!({"pin": null}),
        )
        .expect(200);
    // Another business may use the same email and PIN.
    let (_, other) = app.second_tenant("other-place");
    with_pin(&other, "a@test.example", "1234").expect(201);
}

#[test]
fn pins_are_stored_as_keyed_digests_only() {
    let app = TestApp::spawn();
    add(&app.owner, "x@test.example", "server");
    app.owner
        .post(
            "/users",
            json!({"name": "P", "email": "pin@test.example", "role": "server", "password": TEMPORARY, "pin": "583920"}),
        )
        .expect(201);
    let path = app
        .dir
        .path()
        .join("tenants")
        .join(format!("{}.db", app.tenant_id));
    let conn = rusqlite::Connection::open(path).unwrap();
    let digest: String = conn
        .query_row(
            "SELECT pin_digest FROM users WHERE email = 'pin@test.example'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(digest.len(), 64);
    assert!(!digest.contains("583920"));
    // Nothing in the tenant file holds the PIN in plain text.
    let bytes = std::fs::read(
        app.dir
            .path()
            .join("tenants")
            .join(format!("{}.db", app.tenant_id)),
    )
    .unwrap();
    assert!(!bytes.windows(6).any(|w| w == b"583920"));
}

#[test]
fn bad_input_to_users_is_refused_with_problems() {
    let app = TestApp::spawn();
    app.owner
        .post_raw("/users", "application/json", b"{\"name\": ")
        .expect_problem(400, "malformed_json");
    let missing = app
        .owner
        .post(
            "/users",
            json!({"name": "N", "email": "n@test.example", "role": "server"}),
        )
        .expect_problem(422, "validation_failed");
    assert!(missing["detail"].as_str().unwrap().contains("password"));
    for (body, field) in [
        (
            json!({"name": "N", "email": "n@test.example", "role": "chef", "password": TEMPORARY}),
            "role",
        ),
        (
            json!({"name": "N", "email": "n@test.example", "role": "server", "password": TEMPORARY, "pin": 1234}),
            "pin",
        ),
        (
            json!({"name": "N", "email": "n@test.example", "role": "server", "password": TEMPORARY, "pin": "12"}),
            "pin",
        ),
        (
            json!({"name": "N", "email": "not-an-email", "role": "server", "password": TEMPORARY}),
            "email",
        ),
        (
            json!({"name": "N", "email": "n@test.example", "role": "server", "password": "short"}),
            "password",
        ),
        (
            json!({"name": "N", "email": "n@test.example", "role": "server", "password": TEMPORARY, "hourly_wage": -1}),
            "hourly_wage",
        ),
        (
            json!({"name": "", "email": "n@test.example", "role": "server", "password": TEMPORARY}),
            "name",
        ),
        (
            json!({"name": "N", "email": "n@test.example", "role": "server", "password": TEMPORARY, "nickname": "x"}),
            "nickname",
        ),
    ] {
        let problem = app
            .owner
            .post("/users", body.clone())
            .expect_problem(422, "validation_failed");
        let fields: Vec<&str> = problem["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap())
            .collect();
        assert!(fields.contains(&field), "{body} gave {problem}");
    }
    let unknown = "0190a0a0-0000-7000-8000-000000000000";
    app.owner
        .get(&format!("/users/{unknown}"))
        .expect_problem(404, "not_found");
    app.owner
        .get("/users/not-a-uuid")
        .expect_problem(404, "not_found");
    app.owner
        .patch(&format!("/users/{unknown}"), json!({"name": "X"}))
        .expect_problem(404, "not_found");
    app.owner
        .post(&format!("/users/{unknown}/deactivate"), json!({}))
        .expect_problem(404, "not_found");
    app.owner
        .patch(&format!("/users/{}", my_id(&app.owner)), json!({"pin": 12}))
        .expect_problem(422, "validation_failed");
    app.owner
        .get("/users?active=maybe")
        .expect_problem(422, "validation_failed");
    app.owner
        .get("/users?limit=0")
        .expect_problem(422, "validation_failed");
    // Another tenant's staff are unknown here.
    let (_, other) = app.second_tenant("elsewhere");
    let theirs = my_id(&other);
    app.owner
        .get(&format!("/users/{theirs}"))
        .expect_problem(404, "not_found");
    app.owner
        .post(
            &format!("/users/{theirs}/reset-password"),
            json!({"password": TEMPORARY}),
        )
        .expect_problem(404, "not_found");
    // Staff other than owners and managers read the list but change nothing.
    let cashier = app.user(Role::Cashier);
    cashier
        .post(
            "/users",
            json!({"name": "N", "email": "n@test.example", "role": "server", "password": TEMPORARY}),
        )
        .expect_problem(403, "permission_denied");
    cashier
        .patch(
            &format!("/users/{}", my_id(&cashier)),
            json!({"hourly_wage": 99}),
        )
        .expect_problem(403, "permission_denied");
    // An API key cannot change a password: it has none.
    app.api_key(Role::Manager)
        .post(
            "/auth/change-password",
            json!({"current_password": "a", "new_password": "bbbbbbbbbb"}),
        )
        .expect_problem(403, "user_required");
}
