//! A property-based sweep driven from the OpenAPI document: every route gets
//! malformed, truncated, oversized, wrong-typed, boundary and misdirected input.
//! No answer may be a 5xx, and no tenant's data may change.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, TestCaseError, TestRunner};
use serde_json::{json, Map, Value};

use crate::helpers::{Client, TestApp};

/// One operation of the document, with the schema of its JSON body if it has one.
#[derive(Debug, Clone)]
struct Operation {
    method: String,
    path: String,
    body: Option<Value>,
}

pub fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference.rsplit('/').next().unwrap();
            &doc["components"]["schemas"][name]
        }
        None => schema,
    }
}

fn operations(doc: &Value) -> Vec<Operation> {
    let mut ops = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            // A live stream never ends, so there is no answer to check.
            if op["responses"]["200"]["content"]["text/event-stream"].is_object() {
                continue;
            }
            let body = op["requestBody"]["content"]["application/json"]["schema"]
                .as_object()
                .map(|_| {
                    resolve(
                        doc,
                        &op["requestBody"]["content"]["application/json"]["schema"],
                    )
                    .clone()
                });
            ops.push(Operation {
                method: method.to_uppercase(),
                path: path.clone(),
                body,
            });
        }
    }
    ops
}

/// The first declared type of a property ("string", "integer", ...), if any.
fn declared_type(schema: &Value) -> Option<&str> {
    match &schema["type"] {
        Value::String(t) => Some(t),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null"),
        _ => None,
    }
}

/// A value of the wrong type for `schema`.
fn wrong_type(schema: &Value) -> Value {
    match declared_type(schema) {
        Some("string") => json!(12345),
        Some("array") => json!({"not": "a list"}),
        Some("object") => json!([1, 2, 3]),
        _ => json!("wrong"),
    }
}

/// A body with every property present, each of a plausible type.
fn skeleton(doc: &Value, schema: &Value) -> Map<String, Value> {
    let mut body = Map::new();
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        let property = resolve(doc, property);
        let value = match declared_type(property) {
            Some("string") => json!("x"),
            Some("integer") | Some("number") => json!(1),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            _ => json!({}),
        };
        body.insert(name.clone(), value);
    }
    body
}

/// How one request goes wrong.
#[derive(Debug, Clone)]
enum Fault {
    /// The serialized body cut short at this fraction of its length.
    Truncated(f64),
    NotAnObject(usize),
    UnknownField,
    /// The n-th property (modulo their count) given a value of the wrong type.
    WrongType(usize),
    /// The n-th property given an absurd boundary value.
    Absurd(usize, usize),
    Oversized,
    WrongMediaType,
    /// Path ids of nobody, or of the other tenant.
    ForeignIds,
    GarbageQuery(usize),
}

fn fault() -> impl Strategy<Value = Fault> {
    prop_oneof![
        (0.0..0.99f64).prop_map(Fault::Truncated),
        (0..4usize).prop_map(Fault::NotAnObject),
        Just(Fault::UnknownField),
        (0..32usize).prop_map(Fault::WrongType),
        (0..32usize, 0..4usize).prop_map(|(p, v)| Fault::Absurd(p, v)),
        Just(Fault::Oversized),
        Just(Fault::WrongMediaType),
        Just(Fault::ForeignIds),
        (0..5usize).prop_map(Fault::GarbageQuery),
    ]
}

/// Every row of every table of every tenant file, as text.
fn snapshot(app: &TestApp) -> BTreeMap<String, Vec<String>> {
    let mut all = BTreeMap::new();
    for entry in std::fs::read_dir(app.dir.path().join("tenants")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("db") {
            continue;
        }
        let conn = rusqlite::Connection::open(&path).unwrap();
        let tables: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for table in tables {
            let mut stmt = conn.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
            let columns = stmt.column_count();
            let rows: Vec<String> = stmt
                .query_map([], |r| {
                    Ok((0..columns)
                        .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                        .collect::<Vec<_>>()
                        .join("|"))
                })
                .unwrap()
                .map(Result::unwrap)
                .collect();
            all.insert(format!("{}:{table}", path.display()), rows);
        }
    }
    all
}

#[test]
fn no_bad_input_reaches_a_5xx_or_changes_any_data() {
    let app = TestApp::spawn();
    let item = app.menu_item(3.0, 7.5);
    let order = app.order(&item, 2);
    let order_id = order["id"].as_str().unwrap().to_string();
    let line_id = order["items"][0]["id"].as_str().unwrap().to_string();
    let category = app.owner.get(&format!("/menu/items/{item}")).expect(200)["category_id"]
        .as_str()
        .unwrap()
        .to_string();
    // The dining room: a floor, a table with a party at it, a ticket, a reservation.
    let (floor, tables) = app.floor_with_tables(&[4, 4]);
    app.open_for_bookings(20, 8);
    let session = app
        .owner
        .post(
            "/sessions",
            json!({"table_ids": [tables[0]], "party_size": 2}),
        )
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let ticket = app
        .owner
        .post("/queue", json!({"name": "Sweep", "party_size": 2}))
        .expect(201);
    let ticket_token = ticket["tracking_token"].as_str().unwrap().to_string();
    let ticket = ticket["id"].as_str().unwrap().to_string();
    let (_, starts_at) = crate::helpers::next_week_at_seven();
    let reservation = app
        .owner
        .post(
            "/reservations",
            json!({"name": "Sweep", "phone": "1", "party_size": 2, "starts_at": starts_at}),
        )
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, other) = app.second_tenant("other-place");
    let foreign_item = app.menu_item_for(&other, 1.0, 0.0);

    let doc = Client::anonymous(&app.base)
        .get("/openapi.json")
        .expect(200);
    let ops = operations(&doc);
    assert!(ops.len() >= 20, "the document lists the routes");
    let before = snapshot(&app);

    // Real ids where the path names them, so validation runs past the lookup.
    let real_id = |path: &str, param: &str| -> String {
        match (param, path) {
            ("item_id", _) => line_id.clone(),
            (_, p) if p.starts_with("/api/v1/orders") => order_id.clone(),
            (_, p) if p.starts_with("/api/v1/menu/items") => item.clone(),
            (_, p) if p.starts_with("/api/v1/menu/categories") => category.clone(),
            ("tenant_slug", _) => "test-bistro".to_string(),
            ("ticket_token", _) => ticket_token.clone(),
            (_, p) if p.starts_with("/api/v1/floors") => floor.clone(),
            (_, p) if p.starts_with("/api/v1/tables") => tables[1].clone(),
            (_, p) if p.starts_with("/api/v1/sessions") => session.clone(),
            (_, p) if p.starts_with("/api/v1/queue") => ticket.clone(),
            (_, p) if p.starts_with("/api/v1/reservations") => reservation.clone(),
            _ => uuid::Uuid::now_v7().to_string(),
        }
    };

    let mut runner = TestRunner::new(ProptestConfig {
        cases: 600,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let statuses = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let exercised = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let strategy = (0..ops.len(), fault());
    let result = runner.run(&strategy, |(index, fault)| {
        let op = &ops[index];
        // A bodiless action (a DELETE, a verb like /cancel) can only be made invalid
        // through its ids; one without ids has no bad input to give.
        let bodiless_action = op.body.is_none() && op.method != "GET";
        if bodiless_action && !op.path.contains('{') {
            return Ok(());
        }
        let fault = if bodiless_action {
            Fault::ForeignIds
        } else {
            fault
        };
        let mut path = String::new();
        for segment in op.path.split('/').filter(|s| !s.is_empty()) {
            path.push('/');
            match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(param) => path.push_str(&match fault {
                    Fault::ForeignIds => foreign_item.clone(),
                    _ => real_id(&op.path, param),
                }),
                None => path.push_str(segment),
            }
        }
        let path = path.strip_prefix("/api/v1").unwrap().to_string();
        let mut content_type = "application/json";
        let body: Option<Vec<u8>> = op.body.as_ref().map(|schema| {
            let mut body = skeleton(&doc, schema);
            let names: Vec<String> = body.keys().cloned().collect();
            let pick = |n: usize| names.get(n % names.len().max(1)).cloned();
            match &fault {
                Fault::Truncated(at) => {
                    let text = Value::Object(body).to_string();
                    return text.as_bytes()[..(text.len() as f64 * at) as usize].to_vec();
                }
                Fault::NotAnObject(kind) => {
                    return [json!([]), json!("text"), json!(42), Value::Null][*kind]
                        .to_string()
                        .into_bytes()
                }
                Fault::UnknownField => {
                    body.insert("surely_not_a_field".into(), json!(1));
                }
                Fault::WrongType(n) => {
                    if let Some(name) = pick(*n) {
                        let property = resolve(&doc, &schema["properties"][&name]);
                        body.insert(name, wrong_type(property));
                    } else {
                        body.insert("surely_not_a_field".into(), json!(1));
                    }
                }
                Fault::Absurd(n, which) => {
                    let absurd = [
                        json!(-1e300),
                        json!(1e300),
                        json!(i64::MIN),
                        json!("\u{0}".repeat(3)),
                    ][*which]
                        .clone();
                    match pick(*n) {
                        Some(name) => {
                            body.insert(name, absurd);
                        }
                        None => {
                            body.insert("surely_not_a_field".into(), absurd);
                        }
                    }
                    // Whatever else passes, the unknown field still makes it invalid.
                    body.insert("surely_not_a_field".into(), json!(true));
                }
                Fault::Oversized => {
                    body.insert("padding".into(), json!("x".repeat(300 * 1024)));
                }
                Fault::WrongMediaType => content_type = "text/plain",
                Fault::ForeignIds | Fault::GarbageQuery(_) => {
                    body.insert("surely_not_a_field".into(), json!(1));
                }
            }
            Value::Object(body).to_string().into_bytes()
        });
        let query = match fault {
            Fault::GarbageQuery(n) => [
                "?limit=-1",
                "?limit=abc",
                "?cursor=%27%3B--",
                "?status=nope&limit=9999",
                "?from=never&to=%00",
            ][n],
            _ => "",
        };
        let target = format!("{path}{query}");
        let res = app.owner.request(
            &op.method,
            &target,
            &[],
            body.as_ref().map(|b| (content_type, b.as_slice())),
        );
        statuses.borrow_mut().insert(res.status);
        exercised.borrow_mut().insert(index);
        prop_assert!(
            res.status < 500,
            "{} {} with {:?} → {}: {}",
            op.method,
            target,
            fault,
            res.status,
            res.body
        );
        if res.status >= 400 {
            prop_assert_eq!(
                res.header("content-type"),
                Some("application/problem+json"),
                "{} {} answered {} without problem+json",
                op.method,
                target,
                res.status
            );
        } else if op.method != "GET" {
            return Err(TestCaseError::fail(format!(
                "{} {} with {:?} was accepted ({}): {}",
                op.method, target, fault, res.status, res.body
            )));
        }
        Ok(())
    });
    if let Err(err) = result {
        panic!("{err}");
    }
    assert!(snapshot(&app) == before, "bad input changed stored data");
    // The sweep reached most routes and every kind of refusal.
    assert!(
        exercised.borrow().len() * 10 >= ops.len() * 8,
        "{} of {} routes",
        exercised.borrow().len(),
        ops.len()
    );
    for status in [400, 404, 413, 415, 422] {
        assert!(
            statuses.borrow().contains(&status),
            "no {status} in {:?}",
            statuses.borrow()
        );
    }
}
