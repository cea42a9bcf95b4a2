//! The document's request schemas and the server agree. For the main write
//! operations, requests generated from the document's own schemas are accepted
//! when the schema allows them, but for a rule the document states on the field
//! the server names or a conflict code it lists, and refused with 422 when the
//! schema forbids them. Never a 500.
//!
//! Fields that name things that must exist (a menu item, a table, a booking
//! time) get stand-ins from the generator, swapped for real ids made for each
//! case, so a case is judged on its shape rather than on an unknown id.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::strategy::{BoxedStrategy, Union};
use proptest::test_runner::{Config as ProptestConfig, RngAlgorithm, TestCaseError, TestRng};
use proptest::test_runner::{TestError, TestRunner};
use serde_json::{json, Map, Value};

use crate::helpers::{next_week_at_seven, TestApp};
use crate::sweep::resolve;

/// Schema-valid and schema-invalid cases run for each operation.
const CASES: u32 = 40;

/// Fields filled from per-case real values, and how many stand-ins each has.
type Pools = &'static [(&'static str, usize)];

/// What a case's request is sent to, and the real values for its stand-ins.
struct Target {
    path: String,
    values: BTreeMap<&'static str, Vec<Value>>,
}

/// One operation under test: its id in the document, the pooled fields of its
/// body and how a case gets its target.
struct Operation {
    id: &'static str,
    pools: Pools,
    target: fn(&World) -> Target,
}

/// The tenant a group of operations runs against, with what every case shares.
struct World {
    app: TestApp,
    doc: Value,
    items: Vec<String>,
    category: Value,
    floor: String,
}

const MODIFIERS: [&str; 2] = ["Large", "Extra cheese"];

impl World {
    fn new() -> World {
        // The public booking route's per-address limit is not what is judged here.
        let app = TestApp::spawn_with(|config| config.public_requests_per_minute = 100_000);
        let category = app
            .owner
            .post("/menu/categories", json!({"name": "Mains"}))
            .expect(201)["id"]
            .clone();
        let items = (0..2)
            .map(|i| {
                app.owner
                    .post(
                        "/menu/items",
                        json!({"name": format!("Dish {i}"), "category_id": &category,
                            "price": 12.5, "tax_rate": 8.0,
                            "modifiers": MODIFIERS.map(|name| json!({"name": name, "price": 1.0}))}),
                    )
                    .expect(201)["id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        let floor = app
            .owner
            .post("/floors", json!({"name": "Room"}))
            .expect(201)["id"]
            .as_str()
            .unwrap()
            .to_string();
        // Every day bookable, for parties as large as the schema allows.
        app.open_for_bookings(10_000, 100);
        let doc = app.owner.get("/openapi.json").expect(200);
        World {
            app,
            doc,
            items,
            category,
            floor,
        }
    }

    fn post(&self, path: &str, body: Value) -> Value {
        self.app.owner.post(path, body).expect(201)
    }

    /// Fresh tables on the shared floor, so no case finds another's party there.
    fn tables(&self, count: usize) -> Vec<Value> {
        (0..count)
            .map(|_| {
                let name = unique("T");
                self.post(
                    "/tables",
                    json!({"floor_id": self.floor, "name": name, "seats": 4}),
                )["id"]
                    .clone()
            })
            .collect()
    }

    fn order(&self, body: Value) -> Value {
        let mut body = body;
        body["items"] = json!([{"menu_item_id": self.items[0], "quantity": 2}]);
        self.post("/orders", body)
    }

    fn reservation(&self) -> Value {
        let (_, starts_at) = next_week_at_seven();
        self.post(
            "/reservations",
            json!({"name": "Ada", "phone": "555 0100", "party_size": 2, "starts_at": starts_at,
                "outside_rules": true}),
        )
    }

    /// What an order's lines may name: the menu, its modifiers, a table and an
    /// open seating session.
    fn order_values(&self) -> BTreeMap<&'static str, Vec<Value>> {
        let tables = self.tables(2);
        let session = self.post(
            "/sessions",
            json!({"table_ids": [tables[1]], "party_size": 2}),
        );
        BTreeMap::from([
            (
                "menu_item_id",
                self.items.iter().map(|i| json!(i)).collect(),
            ),
            ("modifiers", MODIFIERS.map(|m| json!(m)).to_vec()),
            ("table_id", vec![tables[0].clone()]),
            ("session_id", vec![session["id"].clone()]),
        ])
    }

    /// Booking times a week ahead on the half hour, and tables free to hold.
    fn booking_values(&self) -> BTreeMap<&'static str, Vec<Value>> {
        let (date, _) = next_week_at_seven();
        BTreeMap::from([
            (
                "starts_at",
                ["12:00", "19:00", "21:30"]
                    .map(|time| json!(format!("{date}T{time}:00Z")))
                    .to_vec(),
            ),
            ("table_ids", self.tables(2)),
        ])
    }
}

const ORDER_POOLS: Pools = &[
    ("menu_item_id", 2),
    ("modifiers", 2),
    ("table_id", 1),
    ("session_id", 1),
];
const BOOKING_POOLS: Pools = &[("starts_at", 3), ("table_ids", 2)];

/// What menu and kitchen writes may name.
fn menu_values(w: &World) -> BTreeMap<&'static str, Vec<Value>> {
    BTreeMap::from([
        ("category_id", vec![w.category.clone()]),
        ("station_id", vec![json!(w.app.station(&unique("Station")))]),
    ])
}

/// A name no other case has used.
fn unique(prefix: &str) -> String {
    format!(
        "{prefix} {}",
        &uuid::Uuid::now_v7().simple().to_string()[20..]
    )
}

fn id_of(value: &Value) -> String {
    value["id"].as_str().unwrap().to_string()
}

const ORDERS: &[Operation] = &[
    Operation {
        id: "orders_create",
        pools: ORDER_POOLS,
        target: |w| Target {
            path: "/orders".into(),
            values: w.order_values(),
        },
    },
    Operation {
        id: "orders_items_create",
        pools: ORDER_POOLS,
        target: |w| Target {
            path: format!(
                "/orders/{}/items",
                id_of(&w.order(json!({"order_type": "takeaway"})))
            ),
            values: w.order_values(),
        },
    },
    Operation {
        id: "orders_items_update",
        pools: &[],
        target: |w| {
            let order = w.order(json!({"order_type": "takeaway"}));
            Target {
                path: format!(
                    "/orders/{}/items/{}",
                    id_of(&order),
                    id_of(&order["items"][0])
                ),
                values: BTreeMap::new(),
            }
        },
    },
    Operation {
        id: "orders_update",
        pools: &[("table_id", 1)],
        target: |w| {
            let tables = w.tables(2);
            let order = w.order(json!({"order_type": "dine_in", "table_id": tables[0]}));
            Target {
                path: format!("/orders/{}", id_of(&order)),
                values: BTreeMap::from([("table_id", vec![tables[1].clone()])]),
            }
        },
    },
    Operation {
        id: "orders_payments_create",
        pools: &[],
        target: |w| Target {
            path: format!(
                "/orders/{}/payments",
                id_of(&w.order(json!({"order_type": "takeaway"})))
            ),
            values: BTreeMap::new(),
        },
    },
    Operation {
        id: "orders_refunds_create",
        pools: &[("line_id", 1)],
        target: |w| {
            let order = w.order(json!({"order_type": "takeaway"}));
            let id = id_of(&order);
            w.post(
                &format!("/orders/{id}/payments"),
                json!({"method": "card", "amount": order["total_amount"]}),
            );
            w.app
                .owner
                .post(
                    &format!("/orders/{id}/status"),
                    json!({"status": "completed"}),
                )
                .expect(200);
            Target {
                path: format!("/orders/{id}/refunds"),
                values: BTreeMap::from([("line_id", vec![order["items"][0]["id"].clone()])]),
            }
        },
    },
];

const TABLES: &[Operation] = &[
    Operation {
        id: "tables_create",
        pools: &[("floor_id", 1)],
        target: |w| Target {
            path: "/tables".into(),
            values: BTreeMap::from([("floor_id", vec![json!(w.floor)])]),
        },
    },
    Operation {
        id: "tables_update",
        pools: &[("floor_id", 1)],
        target: |w| Target {
            path: format!("/tables/{}", w.tables(1)[0].as_str().unwrap()),
            values: BTreeMap::from([("floor_id", vec![json!(w.floor)])]),
        },
    },
];

const QUEUE: &[Operation] = &[
    Operation {
        id: "queue_create",
        pools: &[],
        target: |_| Target {
            path: "/queue".into(),
            values: BTreeMap::new(),
        },
    },
    Operation {
        id: "queue_seat",
        pools: &[("table_ids", 2)],
        target: |w| {
            let ticket = w.post("/queue", json!({"name": "Grace", "party_size": 2}));
            Target {
                path: format!("/queue/{}/seat", id_of(&ticket)),
                values: BTreeMap::from([("table_ids", w.tables(2))]),
            }
        },
    },
];

const RESERVATIONS: &[Operation] = &[
    Operation {
        id: "reservations_create",
        pools: BOOKING_POOLS,
        target: |w| Target {
            path: "/reservations".into(),
            values: w.booking_values(),
        },
    },
    Operation {
        id: "reservations_update",
        pools: BOOKING_POOLS,
        target: |w| Target {
            path: format!("/reservations/{}", id_of(&w.reservation())),
            values: w.booking_values(),
        },
    },
    Operation {
        id: "reservations_cancel",
        pools: &[],
        target: |w| Target {
            path: format!("/reservations/{}/cancel", id_of(&w.reservation())),
            values: BTreeMap::new(),
        },
    },
    Operation {
        id: "reservations_check_in",
        pools: &[("table_ids", 2)],
        target: |w| {
            let reservation = id_of(&w.reservation());
            w.app
                .owner
                .post(&format!("/reservations/{reservation}/confirm"), json!({}))
                .expect(200);
            Target {
                path: format!("/reservations/{reservation}/check-in"),
                values: BTreeMap::from([("table_ids", w.tables(2))]),
            }
        },
    },
];

const MENU_AND_KITCHEN: &[Operation] = &[
    Operation {
        id: "menu_categories_create",
        pools: &[("station_id", 1)],
        target: |w| Target {
            path: "/menu/categories".into(),
            values: menu_values(w),
        },
    },
    Operation {
        id: "menu_categories_update",
        pools: &[("station_id", 1)],
        target: |w| Target {
            path: format!(
                "/menu/categories/{}",
                id_of(&w.post("/menu/categories", json!({"name": unique("Category")})))
            ),
            values: menu_values(w),
        },
    },
    Operation {
        id: "menu_items_create",
        pools: &[("category_id", 1), ("station_id", 1)],
        target: |w| Target {
            path: "/menu/items".into(),
            values: menu_values(w),
        },
    },
    Operation {
        id: "menu_items_update",
        pools: &[("category_id", 1), ("station_id", 1)],
        target: |w| Target {
            path: format!(
                "/menu/items/{}",
                id_of(&w.post(
                    "/menu/items",
                    json!({"name": unique("Dish"), "category_id": w.category, "price": 4.5})
                ))
            ),
            values: menu_values(w),
        },
    },
    Operation {
        id: "kitchen_stations_create",
        pools: &[],
        target: |_| Target {
            path: "/kitchen/stations".into(),
            values: BTreeMap::new(),
        },
    },
    Operation {
        id: "kitchen_stations_update",
        pools: &[],
        target: |w| Target {
            path: format!("/kitchen/stations/{}", w.app.station(&unique("Station"))),
            values: BTreeMap::new(),
        },
    },
];

/// A staff member of their own for each case, so no change of one case meets another's.
fn staff_member(w: &World) -> String {
    let email = format!("{}@staff.example", unique("member").replace(' ', "."));
    id_of(
        &w.app
            .owner
            .post(
                "/users",
                json!({"name": "Sam", "email": email, "role": "server", "password": "temporary-1"}),
            )
            .expect(201),
    )
}

const STAFF_AND_DEVICES: &[Operation] = &[
    Operation {
        id: "users_create",
        pools: &[],
        target: |_| Target {
            path: "/users".into(),
            values: BTreeMap::new(),
        },
    },
    Operation {
        id: "users_update",
        pools: &[],
        target: |w| Target {
            path: format!("/users/{}", staff_member(w)),
            values: BTreeMap::new(),
        },
    },
    Operation {
        id: "users_reset_password",
        pools: &[],
        target: |w| Target {
            path: format!("/users/{}/reset-password", staff_member(w)),
            values: BTreeMap::new(),
        },
    },
    Operation {
        id: "devices_setup_keys_create",
        pools: &[],
        target: |_| Target {
            path: "/devices/setup-keys".into(),
            values: BTreeMap::new(),
        },
    },
];

// The public booking runs first, while every day is open for bookings.
const SETTINGS_AND_DINING_ROOM: &[Operation] = &[
    Operation {
        id: "public_reservations_create",
        pools: &[("starts_at", 3)],
        target: |w| Target {
            path: "/public/test-bistro/reservations".into(),
            values: w.booking_values(),
        },
    },
    Operation {
        id: "settings_update",
        pools: &[("timezone", 3)],
        target: |_| Target {
            path: "/settings".into(),
            values: BTreeMap::from([(
                "timezone",
                ["UTC", "Europe/Paris", "America/New_York"]
                    .map(|z| json!(z))
                    .to_vec(),
            )]),
        },
    },
    Operation {
        id: "settings_webhook_replace",
        pools: &[("url", 1), ("events", 3)],
        target: |_| Target {
            path: "/settings/webhook".into(),
            values: BTreeMap::from([
                // A closed port: deliveries fail at once and are retried later.
                ("url", vec![json!("http://127.0.0.1:9/hooks")]),
                (
                    "events",
                    ["order.created", "payment.completed", "reservation.created"]
                        .map(|e| json!(e))
                        .to_vec(),
                ),
            ]),
        },
    },
    Operation {
        id: "reservations_time_slots_replace",
        pools: &[],
        target: |_| Target {
            path: "/reservations/time-slots".into(),
            values: BTreeMap::new(),
        },
    },
    Operation {
        id: "floors_create",
        pools: &[],
        target: |_| Target {
            path: "/floors".into(),
            values: BTreeMap::new(),
        },
    },
    Operation {
        id: "floors_update",
        pools: &[],
        target: |w| Target {
            path: format!(
                "/floors/{}",
                id_of(&w.post("/floors", json!({"name": unique("Floor")})))
            ),
            values: BTreeMap::new(),
        },
    },
    Operation {
        id: "floors_layout_replace",
        pools: &[("id", 2)],
        target: |w| Target {
            path: format!("/floors/{}/layout", w.floor),
            values: BTreeMap::from([("id", w.tables(2))]),
        },
    },
    Operation {
        id: "sessions_create",
        pools: &[
            ("table_ids", 2),
            ("queue_ticket_id", 1),
            ("reservation_id", 1),
        ],
        target: |w| {
            let ticket = w.post("/queue", json!({"name": "Ada", "party_size": 2}));
            Target {
                path: "/sessions".into(),
                values: BTreeMap::from([
                    ("table_ids", w.tables(2)),
                    ("queue_ticket_id", vec![ticket["id"].clone()]),
                    ("reservation_id", vec![w.reservation()["id"].clone()]),
                ]),
            }
        },
    },
    Operation {
        id: "sessions_move",
        pools: &[("table_ids", 2)],
        target: |w| {
            let tables = w.tables(3);
            let session = w.post(
                "/sessions",
                json!({"table_ids": [tables[0]], "party_size": 2}),
            );
            Target {
                path: format!("/sessions/{}/move", id_of(&session)),
                values: BTreeMap::from([("table_ids", tables[1..].to_vec())]),
            }
        },
    },
];

/// Builds values from a request schema of the document.
struct Generator<'a> {
    doc: &'a Value,
    pools: Pools,
}

/// A stand-in for the `k`-th real value of a pooled field.
fn stand_in(field: &str, k: usize) -> Value {
    json!(format!("@{field}#{k}"))
}

/// The types a schema allows, `null` included.
fn types(schema: &Value) -> Vec<&str> {
    match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

impl Generator<'_> {
    fn valid(&self, schema: &Value, field: Option<&str>) -> BoxedStrategy<Value> {
        let schema = resolve(self.doc, schema);
        if let Some(branches) = schema["oneOf"].as_array() {
            let branches = branches
                .iter()
                .map(|b| self.valid(b, field))
                .collect::<Vec<_>>();
            return Union::new(branches).boxed();
        }
        if let Some(choices) = schema["enum"].as_array() {
            return select(choices.clone()).boxed();
        }
        let of_each_type = types(schema)
            .into_iter()
            .map(|t| self.of_type(schema, t, field))
            .collect::<Vec<_>>();
        assert!(
            !of_each_type.is_empty(),
            "a schema without a type: {schema}"
        );
        Union::new(of_each_type).boxed()
    }

    fn of_type(&self, schema: &Value, kind: &str, field: Option<&str>) -> BoxedStrategy<Value> {
        let pool = field.and_then(|f| self.pools.iter().find(|(name, _)| *name == f));
        match kind {
            "null" => Just(Value::Null).boxed(),
            "boolean" => any::<bool>().prop_map(Value::from).boxed(),
            "integer" => {
                let low = schema["minimum"].as_i64().unwrap_or(-1_000_000);
                let high = schema["maximum"].as_i64().unwrap_or(1_000_000);
                prop_oneof![Just(low), Just(high), low..=high]
                    .prop_map(Value::from)
                    .boxed()
            }
            // Money and measures alike: at most two decimals, in cents.
            "number" => {
                let cents = |bound: &Value| bound.as_f64().map(|b| (b * 100.0).round() as i64);
                let low = cents(&schema["minimum"])
                    .or(cents(&schema["exclusiveMinimum"]).map(|c| c + 1))
                    .unwrap_or(-100_000_000);
                let high = cents(&schema["maximum"])
                    .or(cents(&schema["exclusiveMaximum"]).map(|c| c - 1))
                    .unwrap_or(100_000_000);
                prop_oneof![Just(low), Just(high), low..=high]
                    .prop_map(|c| json!(c as f64 / 100.0))
                    .boxed()
            }
            "string" if pool.is_some() && schema["format"] != "email" => {
                let (name, count) = *pool.unwrap();
                (0..count).prop_map(move |k| stand_in(name, k)).boxed()
            }
            "string" => self.string(schema),
            "array" => {
                let items = self.valid(&schema["items"], field);
                let low = schema["minItems"].as_u64().unwrap_or(0) as usize;
                let high = schema["maxItems"].as_u64().map(|m| m as usize);
                let few = low..=high.unwrap_or(usize::MAX).min(low + 3);
                let lists = match high {
                    Some(high) => prop_oneof![
                        4 => proptest::collection::vec(items.clone(), few),
                        1 => proptest::collection::vec(items, high..=high),
                    ]
                    .boxed(),
                    None => proptest::collection::vec(items, few).boxed(),
                };
                if schema["uniqueItems"] == true {
                    lists
                        .prop_map(|mut list| {
                            let mut seen = Vec::new();
                            list.retain(|v| {
                                !seen.contains(v) && {
                                    seen.push(v.clone());
                                    true
                                }
                            });
                            list
                        })
                        .prop_filter("too few unique items", move |l| l.len() >= low)
                        .prop_map(Value::Array)
                        .boxed()
                } else {
                    lists.prop_map(Value::Array).boxed()
                }
            }
            "object" => self.object(schema),
            other => panic!("no generator for type {other}"),
        }
    }

    fn string(&self, schema: &Value) -> BoxedStrategy<Value> {
        let from_regex = |regex: &str| {
            proptest::string::string_regex(regex)
                .unwrap()
                .prop_map(Value::from)
                .boxed()
        };
        match schema["format"].as_str() {
            Some("uuid") => any::<u128>()
                .prop_map(|n| json!(uuid::Uuid::from_u128(n).to_string()))
                .boxed(),
            Some("date-time") => (0i64..20 * 365 * 86_400)
                .prop_map(|s| {
                    let at = chrono::DateTime::from_timestamp(1_600_000_000 + s, 0).unwrap();
                    json!(at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                })
                .boxed(),
            Some("date") => (0i64..20 * 365)
                .prop_map(|d| {
                    let day = chrono::NaiveDate::from_ymd_opt(2020, 1, 1).unwrap()
                        + chrono::Duration::days(d);
                    json!(day.to_string())
                })
                .boxed(),
            Some("email") => from_regex("[a-z]{1,12}(\\.[a-z]{1,8})?@[a-z]{1,12}\\.example"),
            _ if schema["pattern"].is_string() && schema["pattern"] != "\\S" => {
                let pattern = schema["pattern"].as_str().unwrap();
                from_regex(pattern.trim_start_matches('^').trim_end_matches('$'))
            }
            _ => {
                let low = schema["minLength"].as_u64().unwrap_or(0);
                let high = schema["maxLength"].as_u64().unwrap_or(300);
                // Letters beyond ASCII too: lengths count characters, not bytes.
                let char = "[a-zA-Z0-9éß€]";
                let shorter = format!("{char}[a-zA-Z0-9éß€ ]{{{},{}}}", low.max(1) - 1, high - 1);
                let longest = format!("{char}{{{high}}}");
                if low == 0 {
                    Union::new(vec![
                        Just(json!("")).boxed(),
                        from_regex(&format!("[a-zA-Z0-9éß€ ]{{1,{high}}}")),
                        from_regex(&longest),
                    ])
                    .boxed()
                } else {
                    Union::new(vec![from_regex(&shorter), from_regex(&longest)]).boxed()
                }
            }
        }
    }

    fn object(&self, schema: &Value) -> BoxedStrategy<Value> {
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let fields = schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, property)| {
                let name = name.clone();
                let value = self.valid(property, Some(&name));
                if required.contains(&name.as_str()) {
                    value.prop_map(move |v| Some((name.clone(), v))).boxed()
                } else {
                    proptest::option::of(value)
                        .prop_map(move |v| v.map(|v| (name.clone(), v)))
                        .boxed()
                }
            })
            .collect::<Vec<_>>();
        fields
            .prop_map(|fields| Value::Object(fields.into_iter().flatten().collect::<Map<_, _>>()))
            .boxed()
    }
}

/// Swaps stand-ins for the case's real values.
fn fill(value: &mut Value, values: &BTreeMap<&'static str, Vec<Value>>) {
    match value {
        Value::String(text) => {
            if let Some((field, k)) = text.strip_prefix('@').and_then(|t| t.split_once('#')) {
                let real = &values
                    .get(field)
                    .unwrap_or_else(|| panic!("no values for {field}"));
                *value = real[k.parse::<usize>().unwrap() % real.len()].clone();
            }
        }
        Value::Array(list) => list.iter_mut().for_each(|v| fill(v, values)),
        Value::Object(map) => map.values_mut().for_each(|v| fill(v, values)),
        _ => {}
    }
}

/// One way to break a valid body: at a JSON pointer, replace the value, or
/// remove or add a field of the object there.
#[derive(Debug, Clone)]
enum Break {
    Replace(String, Value),
    Remove(String, String),
    Add(String),
}

impl Break {
    fn apply(&self, body: &mut Value) {
        match self {
            Break::Replace(at, value) => *body.pointer_mut(at).unwrap() = value.clone(),
            Break::Remove(at, field) => {
                body.pointer_mut(at)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove(field);
            }
            Break::Add(at) => {
                let object = body.pointer_mut(at).unwrap().as_object_mut().unwrap();
                object.insert("unexpected_field".into(), json!(1));
            }
        }
    }
}

/// The schema branch a present value was made from.
fn branch_for<'a>(doc: &'a Value, schema: &'a Value, value: &Value) -> &'a Value {
    let schema = resolve(doc, schema);
    match schema["oneOf"].as_array() {
        Some(branches) => branches
            .iter()
            .map(|b| resolve(doc, b))
            .find(|b| !(value.is_null() ^ (types(b) == ["null"])))
            .unwrap_or(schema),
        None => schema,
    }
}

/// Every way to break `value` that its schema forbids.
fn breaks(doc: &Value, schema: &Value, value: &Value, at: &str) -> Vec<Break> {
    let schema = branch_for(doc, schema, value);
    let replace = |v: Value| Break::Replace(at.to_string(), v);
    let kinds = types(schema);
    let mut found: Vec<Break> = [json!(12345), json!("text"), json!(true), json!({"a": 1})]
        .into_iter()
        .filter(|v| match v {
            Value::Number(_) => !kinds.contains(&"integer") && !kinds.contains(&"number"),
            Value::String(_) => !kinds.contains(&"string") && schema["enum"].is_null(),
            Value::Bool(_) => !kinds.contains(&"boolean"),
            _ => !kinds.contains(&"object"),
        })
        .take(1)
        .map(replace)
        .collect();
    if let Some(choices) = schema["enum"].as_array() {
        if choices.iter().all(Value::is_string) {
            found.push(replace(json!("not_a_choice")));
        }
    }
    match value {
        Value::String(_) => {
            if let Some(max) = schema["maxLength"].as_u64() {
                found.push(replace(json!("x".repeat(max as usize + 1))));
            }
            if schema["minLength"].as_u64().unwrap_or(0) > 0 {
                found.push(replace(json!("")));
            }
            match schema["pattern"].as_str() {
                Some("\\S") => found.push(replace(json!("   "))),
                Some(_) => found.push(replace(json!("~"))),
                None => {}
            }
            match schema["format"].as_str() {
                Some("uuid") => found.push(replace(json!("not-a-uuid"))),
                Some("date-time") => found.push(replace(json!("2030-13-45T25:00:00Z"))),
                Some("date") => found.push(replace(json!("31/12/2030"))),
                Some("email") => found.push(replace(json!("no-at-sign.example"))),
                _ => {}
            }
        }
        Value::Number(_) => {
            if let Some(min) = schema["minimum"].as_f64() {
                found.push(replace(json!(min - 1.0)));
            }
            if let Some(min) = schema["exclusiveMinimum"].as_f64() {
                found.push(replace(json!(min)));
            }
            if let Some(max) = schema["maximum"].as_f64() {
                found.push(replace(json!(max + 1.0)));
            }
            if let Some(max) = schema["exclusiveMaximum"].as_f64() {
                found.push(replace(json!(max)));
            }
            if kinds.contains(&"integer") {
                found.push(replace(json!(1.5)));
            }
        }
        Value::Array(list) => {
            if let (Some(max), Some(first)) = (schema["maxItems"].as_u64(), list.first()) {
                found.push(replace(json!(vec![first.clone(); max as usize + 1])));
            }
            if schema["minItems"].as_u64().unwrap_or(0) > 0 {
                found.push(replace(json!([])));
            }
            for (i, item) in list.iter().enumerate() {
                found.extend(breaks(doc, &schema["items"], item, &format!("{at}/{i}")));
            }
        }
        Value::Object(map) => {
            if schema["additionalProperties"] == false {
                found.push(Break::Add(at.to_string()));
            }
            for required in schema["required"].as_array().into_iter().flatten() {
                let name = required.as_str().unwrap();
                if map.contains_key(name) {
                    found.push(Break::Remove(at.to_string(), name.to_string()));
                }
            }
            for (name, v) in map {
                let property = &schema["properties"][name];
                let pointer = format!("{at}/{}", name.replace('~', "~0").replace('/', "~1"));
                found.extend(breaks(doc, property, v, &pointer));
            }
        }
        _ => {}
    }
    found
}

/// A nullable schema's other branch.
fn non_null<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    let schema = resolve(doc, schema);
    match schema["oneOf"].as_array() {
        Some(branches) => branches
            .iter()
            .map(|b| resolve(doc, b))
            .find(|b| types(b) != ["null"])
            .unwrap_or(schema),
        None => schema,
    }
}

/// Whether the document states a rule on a field the server names in a
/// refusal (`items[0].quantity`): a description on it or on what holds it.
fn documents_rule(doc: &Value, schema: &Value, field: &str) -> bool {
    let described = |s: &Value| {
        s["description"].is_string()
            || s["oneOf"]
                .as_array()
                .is_some_and(|b| b.iter().any(|b| b["description"].is_string()))
    };
    let mut object = resolve(doc, schema);
    for segment in field.split('.') {
        let name = segment.split('[').next().unwrap();
        let Some(property) = object["properties"].get(name) else {
            return false;
        };
        if described(property) {
            return true;
        }
        let mut next = non_null(doc, property);
        for _ in segment.matches('[') {
            next = non_null(doc, &next["items"]);
        }
        object = next;
    }
    false
}

/// The conflict codes an operation's document lists for 409.
fn conflict_codes(operation: &Value) -> Vec<String> {
    let description = operation["responses"]["409"]["description"]
        .as_str()
        .unwrap_or("");
    description
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn operation<'a>(doc: &'a Value, id: &str) -> (&'a str, &'a Value) {
    for item in doc["paths"].as_object().unwrap().values() {
        for (method, op) in item.as_object().unwrap() {
            if op["operationId"] == id {
                return (method.as_str(), op);
            }
        }
    }
    panic!("no operation {id} in the document");
}

/// Runs schema-valid and schema-invalid cases of each operation against the world.
fn agree(world: &World, operations: &[Operation]) {
    let doc = &world.doc;
    let validate = |schema: &Value| {
        let root = json!({"$ref": schema["$ref"], "components": doc["components"]});
        jsonschema::options()
            .should_validate_formats(true)
            .should_ignore_unknown_formats(true)
            .build(&root)
            .unwrap()
    };
    for op in operations {
        let (method, spec) = operation(doc, op.id);
        let method = method.to_uppercase();
        let schema = &spec["requestBody"]["content"]["application/json"]["schema"];
        let validator = validate(schema);
        let generator = Generator {
            doc,
            pools: op.pools,
        };
        let codes = conflict_codes(spec);
        let accepted = std::cell::Cell::new(0);
        let refusals = std::cell::RefCell::new(Vec::new());
        let send = |target: &Target, body: &Value| {
            world
                .app
                .owner
                .send(&method, &target.path, body.clone(), &[])
        };

        let valid = generator.valid(schema, None);
        let outcome = runner().run(&valid, |mut body| {
            let target = (op.target)(world);
            fill(&mut body, &target.values);
            prop_assert!(validator.is_valid(&body), "generated {body} is not schema-valid");
            let res = send(&target, &body);
            let refused_for = |problem: &Value| -> Result<(), TestCaseError> {
                refusals.borrow_mut().push(problem["detail"].clone());
                for error in problem["errors"].as_array().into_iter().flatten() {
                    let field = error["field"].as_str().unwrap_or("");
                    prop_assert!(
                        documents_rule(doc, schema, field),
                        "{} refused schema-valid {body} at {field} ({}), a rule the document does not state",
                        op.id,
                        error["message"]
                    );
                }
                Ok(())
            };
            match res.status {
                200..=299 => accepted.set(accepted.get() + 1),
                422 if res.body["code"] == "validation_failed" => refused_for(&res.body)?,
                409 => {
                    refusals.borrow_mut().push(res.body["detail"].clone());
                    prop_assert!(
                    codes.iter().any(|c| res.body["code"] == c.as_str()),
                    "{}: 409 {} is not among the listed codes {codes:?}",
                    op.id,
                    res.body
                    )
                }
                status => prop_assert!(
                    false,
                    "{} answered schema-valid {body} with {status}: {}",
                    op.id,
                    res.body
                ),
            }
            Ok(())
        });
        report(op.id, "schema-valid", outcome);
        // Much of what the schema allows goes through: refusals are for documented rules.
        assert!(
            accepted.get() * 4 >= CASES,
            "{}: only {} of {CASES} schema-valid requests accepted; refused for {:?}",
            op.id,
            accepted.get(),
            refusals.borrow()
        );

        let judged = std::cell::Cell::new(0);
        let invalid = (generator.valid(schema, None), any::<Index>());
        let outcome = runner().run(&invalid, |(mut body, pick)| {
            let target = (op.target)(world);
            fill(&mut body, &target.values);
            let options = breaks(doc, schema, &body, "");
            let broken = pick.get(&options);
            broken.apply(&mut body);
            if validator.is_valid(&body) {
                // Still allowed (a nullable field given null, say): nothing to judge.
                return Ok(());
            }
            judged.set(judged.get() + 1);
            let res = send(&target, &body);
            prop_assert!(
                res.status == 422 && res.body["code"] == "validation_failed",
                "{} answered schema-invalid {body} ({broken:?}) with {}: {}",
                op.id,
                res.status,
                res.body
            );
            Ok(())
        });
        report(op.id, "schema-invalid", outcome);
        eprintln!(
            "{}: {} accepted, {} refused as invalid",
            op.id,
            accepted.get(),
            judged.get()
        );
        assert!(
            judged.get() * 2 >= CASES,
            "{}: only {} of {CASES} broken requests were schema-invalid",
            op.id,
            judged.get()
        );
    }
}

fn runner() -> TestRunner {
    TestRunner::new_with_rng(
        ProptestConfig {
            cases: CASES,
            failure_persistence: None,
            max_shrink_iters: 64,
            ..ProptestConfig::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    )
}

fn report(id: &str, kind: &str, outcome: Result<(), TestError<impl std::fmt::Debug>>) {
    if let Err(err) = outcome {
        panic!("{id}, {kind} requests: {err}");
    }
}

#[test]
fn orders_and_payments_take_what_their_schemas_allow() {
    agree(&World::new(), ORDERS);
}

#[test]
fn tables_take_what_their_schemas_allow() {
    agree(&World::new(), TABLES);
}

#[test]
fn the_queue_takes_what_its_schemas_allow() {
    agree(&World::new(), QUEUE);
}

#[test]
fn reservations_take_what_their_schemas_allow() {
    agree(&World::new(), RESERVATIONS);
}

#[test]
fn the_menu_and_kitchen_take_what_their_schemas_allow() {
    agree(&World::new(), MENU_AND_KITCHEN);
}

#[test]
fn settings_and_the_dining_room_take_what_their_schemas_allow() {
    agree(&World::new(), SETTINGS_AND_DINING_ROOM);
}

#[test]
fn staff_and_devices_take_what_their_schemas_allow() {
    agree(&World::new(), STAFF_AND_DEVICES);
}
