use std::collections::BTreeSet;

use brigade::api::openapi::document;
use brigade::auth::Role;
use brigade::build_rocket;

use crate::helpers::{test_config, Client, TestApp};

/// `/api/v1/orders/<id>?<status>` → `/api/v1/orders/{id}`.
fn openapi_path(uri: &str) -> String {
    let path = uri.split('?').next().unwrap();
    path.split('/')
        .map(
            |segment| match segment.strip_prefix('<').and_then(|s| s.strip_suffix('>')) {
                Some(name) => format!("{{{}}}", name.trim_end_matches("..")),
                None => segment.to_string(),
            },
        )
        .collect::<Vec<_>>()
        .join("/")
}

#[test]
fn every_mounted_route_is_described() {
    let dir = tempfile::tempdir().unwrap();
    let app = brigade::App::open(test_config(dir.path())).unwrap();
    let rocket = build_rocket(app);
    let doc = serde_json::to_value(document()).unwrap();
    let paths = doc["paths"].as_object().unwrap();
    let mut missing = BTreeSet::new();
    // The web apps and the document viewer are pages, the health probes are
    // for the box's service manager, and the partners' routes take each
    // platform's own format (README, "Inbound integrations"): none is an API
    // operation.
    let pages: BTreeSet<String> = brigade::web::routes()
        .iter()
        .chain(&brigade::health::routes())
        .chain(&brigade::inbound::receive::routes())
        .map(|r| r.uri.to_string())
        .collect();
    for route in rocket.routes() {
        let path = openapi_path(&route.uri.to_string());
        if path == "/api/v1/openapi.json" || pages.contains(&route.uri.to_string()) {
            continue;
        }
        let method = route.method.as_str().to_lowercase();
        if paths.get(&path).and_then(|p| p.get(&method)).is_none() {
            missing.insert(format!("{method} {path}"));
        }
    }
    assert!(
        missing.is_empty(),
        "routes missing from openapi.json: {missing:?}"
    );
}

#[test]
fn the_document_is_served_with_schemas() {
    let app = TestApp::spawn();
    let doc = Client::anonymous(&app.base)
        .get("/openapi.json")
        .expect(200);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let create = &doc["paths"]["/api/v1/orders"]["post"];
    assert_eq!(
        create["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/NewOrder"
    );
    assert!(doc["components"]["schemas"]["Order"]["properties"]["total_amount"].is_object());
    assert!(doc["components"]["schemas"]["Problem"].is_object());
}

/// The official JSON Schema of OpenAPI 3.1 documents (2022-10-07), as shipped
/// in the `openapi-spec-validator` package.
const OPENAPI_3_1_SCHEMA: &str = include_str!("../vendor/openapi-3.1-schema-2022-10-07.json");

#[test]
fn the_document_is_valid_openapi_3_1() {
    let schema: serde_json::Value = serde_json::from_str(OPENAPI_3_1_SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let doc = serde_json::to_value(document()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{} errors:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

#[test]
fn operations_have_unique_ids_named_after_group_and_action() {
    let doc = document();
    let declared: BTreeSet<&str> = doc["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tag| tag["name"].as_str().unwrap())
        .collect();
    let mut seen = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let id = operation["operationId"].as_str().unwrap().to_string();
            let tag = operation["tags"][0].as_str().unwrap_or_default();
            assert!(declared.contains(tag), "{id}: tag {tag:?} is not declared");
            assert!(
                id.split('_')
                    .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase())),
                "{method} {path}: {id}"
            );
            assert!(seen.insert(id.clone()), "{id} names two operations");
            assert_eq!(operation["tags"].as_array().map(Vec::len), Some(1), "{id}");
            assert!(
                operation["summary"].as_str().is_some_and(|s| !s.is_empty()),
                "{id}"
            );
        }
    }
    let id = |method: &str, path: &str| doc["paths"][path][method]["operationId"].clone();
    assert_eq!(id("post", "/api/v1/orders"), "orders_create");
    assert_eq!(id("get", "/api/v1/orders"), "orders_list");
    assert_eq!(id("patch", "/api/v1/menu/items/{id}"), "menu_items_update");
    assert_eq!(
        id("patch", "/api/v1/orders/{id}/items/{item_id}"),
        "orders_items_update"
    );
    assert_eq!(
        id("post", "/api/v1/kitchen/tickets/{id}/bump"),
        "kitchen_tickets_bump"
    );
    assert_eq!(
        id("post", "/api/v1/orders/{id}/payments"),
        "orders_payments_create"
    );
    assert_eq!(id("post", "/api/v1/auth/login"), "auth_login");
    assert_eq!(id("post", "/api/v1/auth/pin"), "auth_pin");
    assert_eq!(id("post", "/api/v1/devices/pair"), "devices_pair");
    assert_eq!(id("post", "/api/v1/devices/{id}/revoke"), "devices_revoke");
    assert_eq!(
        id("post", "/api/v1/users/{id}/reset-password"),
        "users_reset_password"
    );
    assert_eq!(id("post", "/api/v1/admin/restore"), "admin_restore");
}

#[test]
fn every_answer_is_described_and_every_problem_lists_its_codes() {
    let doc = document();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let responses = operation["responses"].as_object().unwrap();
            let secured = operation.get("security").is_none();
            if secured {
                for status in ["400", "401", "403"] {
                    assert!(responses.contains_key(status), "{method} {path} {status}");
                }
            }
            if operation.get("requestBody").is_some() {
                for status in ["400", "413", "415", "422"] {
                    assert!(responses.contains_key(status), "{method} {path} {status}");
                }
            }
            for (status, response) in responses {
                let description = response["description"].as_str().unwrap_or_default();
                assert!(!description.is_empty(), "{method} {path} {status}");
                if status.starts_with('4') {
                    assert!(
                        description.contains("Codes: `"),
                        "{method} {path} {status} names no code: {description}"
                    );
                    assert!(
                        response["content"]["application/problem+json"].is_object(),
                        "{method} {path} {status}"
                    );
                }
            }
        }
    }
}

/// The document's path relative to `/api/v1`, with the test tenant's slug and a
/// fresh random id for every other path parameter: ids nothing has.
fn with_fresh_ids(path: &str) -> String {
    path.trim_start_matches("/api/v1")
        .replace("{tenant_slug}", "test-bistro")
        .split('/')
        .map(|segment| {
            if segment.starts_with('{') {
                uuid::Uuid::now_v7().to_string()
            } else {
                segment.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Calls the operation as `client`, with `{}` as JSON when it takes a body;
/// the status it answers.
fn call(client: &Client, method: &str, relative: &str, operation: &serde_json::Value) -> u16 {
    let method = method.to_uppercase();
    if operation.get("requestBody").is_some() {
        client.send(&method, relative, serde_json::json!({}), &[])
    } else {
        client.request(&method, relative, &[], None)
    }
    .status
}

/// Each operation, called without credentials: those that declare the bearer
/// token and tenant are refused with 401 before anything else; the public ones
/// are not.
#[test]
fn declared_security_matches_what_the_server_asks() {
    let app = TestApp::spawn();
    let anonymous = Client::anonymous(&app.base);
    let doc = document();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let relative = with_fresh_ids(path);
        for (method, operation) in item.as_object().unwrap() {
            let status = call(&anonymous, method, &relative, operation);
            let public = operation.get("security").is_some();
            assert_eq!(
                status == 401,
                !public,
                "{method} {path} answered {status} without credentials"
            );
        }
    }
}

/// Who may call an operation, as the first line of its description states it.
#[derive(Debug, PartialEq)]
enum Access {
    Public,
    Roles(Vec<Role>),
}

/// `Public: no sign-in.`, `Roles: any signed-in role.` or a list such as
/// `Roles: owner, manager.`, its roles in the order of `Role::ALL`; `None` for
/// anything else.
fn stated_access(description: &str) -> Option<Access> {
    let first = description.lines().next()?;
    if first == "Public: no sign-in." {
        return Some(Access::Public);
    }
    let listed = first.strip_prefix("Roles: ")?.strip_suffix('.')?;
    if listed == "any signed-in role" {
        return Some(Access::Roles(Role::ALL.to_vec()));
    }
    let roles = listed
        .split(", ")
        .map(|name| name.parse::<Role>().ok())
        .collect::<Option<Vec<Role>>>()?;
    let in_order: Vec<Role> = Role::ALL
        .into_iter()
        .filter(|role| roles.contains(role))
        .collect();
    // All six are written "any signed-in role"; a role is named once, in order.
    (roles == in_order && roles.len() < Role::ALL.len()).then_some(Access::Roles(roles))
}

/// Every operation has a description besides its summary, and it opens with who
/// may call it: the public operations are exactly those whose own `security`
/// asks for nothing.
#[test]
fn every_operation_says_who_may_call_it() {
    let doc = document();
    let mut count = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let summary = operation["summary"].as_str().unwrap_or_default().trim();
            let description = operation["description"].as_str().unwrap_or_default().trim();
            assert!(
                !description.is_empty(),
                "{method} {path} has no description"
            );
            assert!(
                !description.contains(summary),
                "{method} {path}: the description repeats the summary"
            );
            let access = stated_access(description).unwrap_or_else(|| {
                panic!("{method} {path}: the description does not open with who may call it: {description}")
            });
            assert!(
                description
                    .lines()
                    .nth(1)
                    .is_some_and(|l| !l.trim().is_empty()),
                "{method} {path}: the description says nothing after who may call it"
            );
            assert_eq!(
                access == Access::Public,
                operation.get("security").is_some(),
                "{method} {path}: {description}"
            );
            count += 1;
        }
    }
    assert!(count > 80, "only {count} operations");
}

/// The roles each description names are the server's: every operation is called
/// as each of the six roles, with ids nothing has and `{}` as the body, so a
/// write finds nothing to change (404) or a body to refuse (422). A role not
/// named is refused with 403; a named one is not refused at all, neither 403 nor
/// 401. A public operation is not refused without credentials.
#[test]
fn stated_roles_are_what_the_server_allows() {
    let app = TestApp::spawn();
    let anonymous = Client::anonymous(&app.base);
    let clients: Vec<(Role, Client)> = Role::ALL
        .into_iter()
        .map(|role| (role, app.user(role)))
        .collect();
    let doc = document();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            // The event stream answers 200 and stays open for every role; what
            // each role receives is checked in the webhook tests.
            if operation["responses"]["200"]["content"]
                .get("text/event-stream")
                .is_some()
            {
                continue;
            }
            let description = operation["description"].as_str().unwrap_or_default();
            let Some(access) = stated_access(description) else {
                wrong.push(format!("{method} {path}: no stated access"));
                continue;
            };
            let relative = with_fresh_ids(path);
            match access {
                Access::Public => {
                    let status = call(&anonymous, method, &relative, operation);
                    if status == 401 {
                        wrong.push(format!(
                            "{method} {path}: public, yet 401 without credentials"
                        ));
                    }
                }
                Access::Roles(allowed) => {
                    for (role, client) in &clients {
                        let status = call(client, method, &relative, operation);
                        let named = allowed.contains(role);
                        let role = role.as_str();
                        if named {
                            if status == 401 || status == 403 {
                                wrong.push(format!(
                                    "{method} {path}: {role} is named, yet got {status}"
                                ));
                            }
                        } else if status != 403 {
                            wrong.push(format!(
                                "{method} {path}: {role} is not named, yet got {status}"
                            ));
                        }
                    }
                }
            }
            checked += 1;
        }
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(checked > 80, "only {checked} operations checked");
}

/// The limits the document states are the server's: the schema's boundary is
/// accepted and one past it refused with 422.
#[test]
fn request_schemas_state_the_server_limits() {
    use brigade::domain::orders::{MAX_COURSE, MAX_LINES_PER_REQUEST, MAX_QUANTITY};
    let doc = document();
    let schema = |name: &str| doc["components"]["schemas"][name].clone();
    let line = schema("NewLine");
    assert_eq!(line["properties"]["quantity"]["maximum"], MAX_QUANTITY);
    assert_eq!(line["properties"]["quantity"]["minimum"], 1);
    assert_eq!(line["properties"]["course"]["maximum"], MAX_COURSE);
    assert_eq!(line["properties"]["menu_item_id"]["format"], "uuid");
    let order = schema("NewOrder");
    assert_eq!(
        order["properties"]["items"]["maxItems"],
        MAX_LINES_PER_REQUEST
    );
    assert_eq!(order["additionalProperties"], false);
    assert_eq!(
        schema("NewTable")["properties"]["seats"]["maximum"],
        brigade::domain::tables::MAX_SEATS
    );
    for name in ["NewReservation", "NewTicket"] {
        assert_eq!(
            schema(name)["properties"]["party_size"]["maximum"],
            brigade::domain::dining::sessions::MAX_PARTY_SIZE,
            "{name}"
        );
    }
    assert_eq!(
        schema("NewPayment")["properties"]["amount"]["maximum"],
        brigade::money::MAX_MAJOR
    );
    // Response fields are always present; request fields only when required.
    let required = |name: &str| schema(name)["required"].clone();
    assert!(required("Order")
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("table_id")));
    assert!(!required("NewOrder")
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("table_id")));

    let app = TestApp::spawn();
    let item = app.menu_item(1.0, 0.0);
    let lines = |count: usize, quantity: i64| {
        serde_json::json!({"order_type": "takeaway",
            "items": vec![serde_json::json!({"menu_item_id": item, "quantity": quantity}); count]})
    };
    let max_lines = MAX_LINES_PER_REQUEST;
    app.owner
        .post("/orders", lines(max_lines, MAX_QUANTITY))
        .expect(201);
    app.owner
        .post("/orders", lines(max_lines + 1, 1))
        .expect_problem(422, "validation_failed");
    app.owner
        .post("/orders", lines(1, MAX_QUANTITY + 1))
        .expect_problem(422, "validation_failed");
    app.owner
        .post("/orders", lines(0, 1))
        .expect_problem(422, "validation_failed");
}

/// Every list filter the document gives values for takes each of them and
/// refuses anything else with 422, and `limit` holds to its stated bounds.
#[test]
fn query_parameters_state_what_the_server_takes() {
    let app = TestApp::spawn();
    let doc = app.owner.get("/openapi.json").expect(200);
    let mut checked = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let Some(list) = item.get("get") else {
            continue;
        };
        if path.contains('{') {
            continue;
        }
        let path = path.strip_prefix("/api/v1").unwrap();
        for parameter in list["parameters"].as_array().into_iter().flatten() {
            let name = parameter["name"].as_str().unwrap();
            let schema = &parameter["schema"];
            let refused = |query: String| {
                app.owner
                    .get(&format!("{path}?{query}"))
                    .expect_problem(422, "validation_failed");
            };
            if let Some(reference) = schema["$ref"].as_str() {
                let enumerated = reference.rsplit('/').next().unwrap();
                let values = doc["components"]["schemas"][enumerated]["enum"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{path} ?{name}= names {enumerated}, not an enum"));
                for value in values {
                    app.owner
                        .get(&format!("{path}?{name}={}", value.as_str().unwrap()))
                        .expect(200);
                }
                refused(format!("{name}=surely_not_a_value"));
                checked.insert(format!("{path}?{name}"));
            }
            if name == "limit" {
                let max = schema["maximum"].as_u64().unwrap();
                assert_eq!(schema["minimum"], 1);
                app.owner.get(&format!("{path}?limit={max}")).expect(200);
                app.owner.get(&format!("{path}?limit=1")).expect(200);
                refused(format!("limit={}", max + 1));
                refused("limit=0".into());
                checked.insert(format!("{path}?limit"));
            }
            if schema["format"] == "date-time" {
                app.owner
                    .get(&format!("{path}?{name}=2026-01-02T03:04:05Z"))
                    .expect(200);
                refused(format!("{name}=yesterday"));
                checked.insert(format!("{path}?{name}"));
            }
        }
    }
    for expected in [
        "/orders?status",
        "/orders?order_type",
        "/orders?from",
        "/kitchen/tickets?status",
        "/queue?status",
        "/reservations?status",
        "/sessions?status",
        "/webhooks/deliveries?status",
        "/menu/items?limit",
    ] {
        assert!(
            checked.contains(expected),
            "{expected} was not checked: {checked:?}"
        );
    }
    // Availability needs both its parameters, and says so.
    let availability = &doc["paths"]["/api/v1/reservations/availability"]["get"]["parameters"];
    for parameter in availability.as_array().unwrap() {
        assert_eq!(parameter["required"], true, "{parameter}");
    }
    app.owner
        .get("/reservations/availability?party_size=2")
        .expect_problem(422, "validation_failed");
}

/// The `openapi-python-client` generator (PyPI), found through
/// `BRIGADE_OPENAPI_CLIENT_GENERATOR` or on the path. `.ci/run` installs it.
fn client_generator() -> Option<std::path::PathBuf> {
    let named = std::env::var_os("BRIGADE_OPENAPI_CLIENT_GENERATOR").map(std::path::PathBuf::from);
    let found = named.or_else(|| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("openapi-python-client"))
                .find(|path| path.is_file())
        })
    });
    if found.is_none() {
        assert!(
            std::env::var_os("BRIGADE_REQUIRE_CLIENT_GENERATOR").is_none(),
            "openapi-python-client is required but neither BRIGADE_OPENAPI_CLIENT_GENERATOR nor PATH has it"
        );
        eprintln!("skipped: openapi-python-client is not installed");
    }
    found
}

#[test]
fn a_client_generated_from_the_document_logs_in_orders_and_pays() {
    let Some(generator) = client_generator() else {
        return;
    };
    // The generator's own environment holds what the client imports.
    let python = generator.with_file_name("python");
    let app = TestApp::spawn();
    app.menu_item(6.0, 5.0);
    let work = tempfile::tempdir().unwrap();
    let doc_path = work.path().join("openapi.json");
    let served = Client::anonymous(&app.base)
        .get("/openapi.json")
        .expect(200);
    std::fs::write(&doc_path, served.to_string()).unwrap();
    let package = work.path().join("brigade_client");
    let generated = std::process::Command::new(&generator)
        .args(["generate", "--meta", "none", "--path"])
        .arg(&doc_path)
        .arg("--output-path")
        .arg(&package)
        .output()
        .unwrap();
    assert!(
        package.join("client.py").is_file(),
        "no client generated: {}",
        String::from_utf8_lossy(&generated.stdout)
    );
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/client/round_trip.py");
    let run = std::process::Command::new(&python)
        .arg(script)
        .arg(work.path())
        .arg(&app.base)
        .args(["owner@test.example", crate::helpers::PASSWORD])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "the generated client failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let paid: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(paid["total_amount"], 12.6);
    assert_eq!(paid["balance_due"], 0.0);
    assert_eq!(paid["change_due"], 5.0);
    let order = app
        .owner
        .get(&format!("/orders/{}", paid["order_id"].as_str().unwrap()))
        .expect(200);
    assert_eq!(order["paid_amount"], order["total_amount"]);
    assert_eq!(order["items"][0]["quantity"], 2);
}
