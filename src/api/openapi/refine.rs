//! Finishing the generated document in one place, so no handler has to repeat
//! what every handler shares: operation ids named after the path, the
//! problem answers the plumbing can give (auth, bodies, ids, queries), formats
//! of ids and timestamps, and which response fields are always present.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use crate::api::pagination::{DEFAULT_LIMIT, MAX_LIMIT};
use crate::domain::dining::sessions::MAX_PARTY_SIZE;

/// The last path segment of a `POST` that acts on a resource instead of
/// creating one under it: `POST /orders/{id}/fire` is `orders_fire`.
const ACTIONS: &[&str] = &[
    "acknowledge",
    "activate",
    "approve",
    "break-end",
    "break-start",
    "bump",
    "call",
    "cancel",
    "change-password",
    "check-in",
    "clock-in",
    "clock-out",
    "close",
    "complete",
    "confirm",
    "copy-week",
    "deactivate",
    "fire",
    "login",
    "move",
    "no-show",
    "pair",
    "pause",
    "pin",
    "preview",
    "publish",
    "reactivate",
    "reject",
    "ready",
    "recall",
    "reset-password",
    "restore",
    "retry",
    "revoke",
    "rotate-secret",
    "seat",
    "split",
    "start",
    "status",
    "test",
];

/// Response fields left out when empty (`skip_serializing_if`): the only
/// properties of response schemas that are not always present.
const SOMETIMES_ABSENT: &[(&str, &str)] = &[
    ("QueueTicket", "tracking_token"),
    ("WebhookEndpoint", "secret"),
    ("Problem", "errors"),
];

/// What each group is for, shown as the tag's description.
const TAGS: &[(&str, &str)] = &[
    ("Auth", "Log in and see who the credentials belong to."),
    (
        "Menu",
        "Categories and items with prices, tax rates, stations and modifiers.",
    ),
    (
        "Orders",
        "Orders, their lines, coupon codes, status changes, courses and payments.",
    ),
    (
        "Campaigns",
        "Discount campaigns (percent or amount off, buy-one-get-one, bundles) and their coupon codes.",
    ),
    ("Tables", "Floors, tables and their layout."),
    (
        "Integrations",
        "Delivery platforms and payment gateways that push messages to the box, their menu maps, and the inbox of what they sent.",
    ),
    (
        "POS",
        "What a point-of-sale terminal needs at a glance: the seatmap.",
    ),
    ("Queue", "The walk-in waitlist."),
    (
        "Sessions",
        "Seated parties at their tables, from seating to closing.",
    ),
    (
        "Reservations",
        "Bookings, their time-slot rules and availability.",
    ),
    (
        "Kitchen",
        "Stations, the tickets fired orders make, and the cooks' moves.",
    ),
    (
        "Public",
        "What guests reach without logging in: availability, booking, their place in the queue.",
    ),
    (
        "Settings",
        "The business's settings and its webhook endpoint.",
    ),
    (
        "Webhooks",
        "Signed event deliveries: their history, retries and a test event.",
    ),
    ("Notifications", "What needs attention now."),
    (
        "Users",
        "Staff accounts: roles, contact, wages, PINs, deactivation and password resets.",
    ),
    (
        "Devices",
        "Setup keys that pair terminals and screens, and the paired devices.",
    ),
    (
        "Attendance",
        "Clocking in and out and breaks, and the time records with their minutes.",
    ),
    (
        "Shifts",
        "The staff schedule: drafting, publishing and copying shifts, and the schedule against attendance.",
    ),
    ("Events", "The live event stream (server-sent events)."),
    (
        "Admin",
        "The owner's backups of the business, and restoring it from one.",
    ),
    ("OpenAPI", "This document."),
];

pub fn refine(doc: &mut Value) {
    let page_schemas = page_schemas(doc);
    let schemas = doc["components"]["schemas"].clone();
    if let Some(paths) = doc["paths"].as_object_mut() {
        let gets: BTreeSet<String> = paths
            .iter()
            .filter(|(_, item)| item.get("get").is_some())
            .map(|(path, _)| path.clone())
            .collect();
        for (path, item) in paths.iter_mut() {
            let Some(item) = item.as_object_mut() else {
                continue;
            };
            for (method, operation) in item.iter_mut() {
                let id = operation_id(method, path, gets.contains(path), operation, &page_schemas);
                operation["operationId"] = json!(id);
                complete_responses(operation);
                format_parameters(operation);
                describe_query(operation, &schemas);
            }
        }
    }
    let request_schemas = request_schemas(doc);
    if let Some(schemas) = doc["components"]["schemas"].as_object_mut() {
        for (name, schema) in schemas.iter_mut() {
            format_properties(schema);
            if !request_schemas.contains(name) {
                require_every_property(name, schema);
            }
        }
    }
    doc["tags"] = TAGS
        .iter()
        .map(|(name, description)| json!({"name": name, "description": description}))
        .collect();
}

/// `{group}_{resource…}_{verb}` from the path: `GET /orders` is `orders_list`,
/// `PATCH /menu/items/{id}` `menu_items_update`, `POST
/// /kitchen/tickets/{id}/bump` `kitchen_tickets_bump`.
fn operation_id(
    method: &str,
    path: &str,
    has_get: bool,
    operation: &Value,
    page_schemas: &BTreeSet<String>,
) -> String {
    let mut words: Vec<String> = path
        .trim_start_matches(super::super::BASE)
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
        .map(|s| s.replace(['-', '.'], "_"))
        .collect();
    let last = path.rsplit('/').next().unwrap_or_default();
    let verb = match method {
        "post" if ACTIONS.contains(&last) && !has_get => {
            words.pop();
            last.replace('-', "_")
        }
        "post" => "create".to_string(),
        "get" if returns_page(operation, page_schemas) => "list".to_string(),
        "get" => "get".to_string(),
        "put" => "replace".to_string(),
        "patch" => "update".to_string(),
        other => other.to_string(),
    };
    words.push(verb);
    words.join("_")
}

fn page_schemas(doc: &Value) -> BTreeSet<String> {
    doc["components"]["schemas"]
        .as_object()
        .map(|schemas| {
            schemas
                .keys()
                .filter(|name| name.starts_with("Page_"))
                .map(|name| format!("#/components/schemas/{name}"))
                .collect()
        })
        .unwrap_or_default()
}

fn returns_page(operation: &Value, page_schemas: &BTreeSet<String>) -> bool {
    operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        .as_str()
        .is_some_and(|r| page_schemas.contains(r))
}

/// The problem answers every operation of a kind can give, by status, with the
/// codes the shared plumbing answers with.
fn shared_problems(operation: &Value) -> BTreeMap<&'static str, Vec<&'static str>> {
    let mut problems: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let parameters = operation["parameters"].as_array();
    let has_parameter = |place: &str, name: Option<&str>| {
        parameters.is_some_and(|list| {
            list.iter()
                .any(|p| p["in"] == place && name.is_none_or(|n| p["name"] == n))
        })
    };
    // No `security` of its own: the document's bearer token and tenant apply.
    if operation.get("security").is_none() {
        problems
            .entry("400")
            .or_default()
            .extend(["tenant_header_required", "invalid_tenant_header"]);
        problems.entry("401").or_default().push("unauthorized");
        problems
            .entry("403")
            .or_default()
            .extend(["permission_denied", "tenant_mismatch"]);
    }
    if operation.get("requestBody").is_some() {
        problems
            .entry("400")
            .or_default()
            .extend(["malformed_json", "unreadable_body"]);
        problems.entry("413").or_default().push("payload_too_large");
        problems
            .entry("415")
            .or_default()
            .push("unsupported_media_type");
        problems.entry("422").or_default().push("validation_failed");
    }
    if has_parameter("query", None) {
        problems.entry("422").or_default().push("validation_failed");
    }
    if has_parameter("path", None) {
        problems.entry("404").or_default().push("not_found");
    }
    if has_parameter("header", Some("Idempotency-Key")) {
        problems
            .entry("400")
            .or_default()
            .push("invalid_idempotency_key");
        problems
            .entry("422")
            .or_default()
            .push("idempotency_key_reused");
    }
    for codes in problems.values_mut() {
        codes.dedup();
    }
    problems
}

/// The code a problem of this status carries wherever it comes from.
fn universal_code(status: &str) -> Option<&'static str> {
    match status {
        "401" => Some("unauthorized"),
        "403" => Some("permission_denied"),
        "404" => Some("not_found"),
        "413" => Some("payload_too_large"),
        "415" => Some("unsupported_media_type"),
        "422" => Some("validation_failed"),
        "429" => Some("rate_limited"),
        _ => None,
    }
}

fn status_text(status: &str) -> &'static str {
    match status {
        "200" => "OK",
        "201" => "Created",
        "202" => "Accepted",
        "204" => "Done; no body",
        "400" => "The request cannot be read",
        "401" => "Missing, expired or wrong credentials",
        "403" => "The credentials may not do this",
        "404" => "No such resource in this business",
        "409" => "The resource's state refuses the request",
        "413" => "The body is too large",
        "415" => "The body is not JSON",
        "422" => "A field is missing or wrong; `errors` lists each",
        "429" => "Too many attempts; `Retry-After` says when to try again",
        _ => "Answer",
    }
}

/// Every answer gets a description (OpenAPI requires one) and problem answers
/// the `application/problem+json` type, with the codes they carry listed.
fn complete_responses(operation: &mut Value) {
    let shared = shared_problems(operation);
    let responses = operation["responses"]
        .as_object_mut()
        .expect("every operation lists its responses");
    for (status, codes) in &shared {
        responses
            .entry(status.to_string())
            .or_insert_with(|| json!({}));
        let response = &mut responses[*status];
        let description = response["description"]
            .as_str()
            .filter(|d| !d.is_empty())
            .unwrap_or(status_text(status))
            .trim_end_matches('.')
            .to_string();
        let missing: Vec<String> = codes
            .iter()
            .map(|c| format!("`{c}`"))
            .filter(|c| !description.contains(c.as_str()))
            .collect();
        response["description"] = json!(
            match (missing.is_empty(), description.contains("Codes: ")) {
                (true, _) => format!("{description}."),
                (false, true) => format!("{description}, {}.", missing.join(", ")),
                (false, false) => format!("{description}. Codes: {}.", missing.join(", ")),
            }
        );
    }
    for (status, response) in responses.iter_mut() {
        let Some(response) = response.as_object_mut() else {
            continue;
        };
        let description = response
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if let Some(code) = universal_code(status).filter(|_| !description.contains("Codes: ")) {
            let text = if description.is_empty() {
                status_text(status)
            } else {
                description.trim_end_matches('.')
            };
            let text = format!("{text}. Codes: `{code}`.");
            response.insert("description".into(), json!(text));
        }
        if response
            .get("description")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            response.insert("description".into(), json!(status_text(status)));
        }
        if status.starts_with('4') || status.starts_with('5') {
            response.insert(
                "content".into(),
                json!({"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}),
            );
        }
    }
}

fn is_uuid_name(name: &str) -> bool {
    (name == "id" || name.ends_with("_id")) && name != "event_id" && name != "principal_id"
}

/// The format a string of this name has, if the name tells.
fn format_of(name: &str) -> Option<&'static str> {
    if is_uuid_name(name) {
        Some("uuid")
    } else if name.ends_with("_at") {
        Some("date-time")
    } else if name == "business_date" || name == "date" {
        Some("date")
    } else if name == "email" {
        Some("email")
    } else {
        None
    }
}

fn is_string(schema: &Value) -> bool {
    match &schema["type"] {
        Value::String(t) => t == "string",
        Value::Array(types) => types.iter().any(|t| t == "string"),
        _ => false,
    }
}

fn format_parameters(operation: &mut Value) {
    let Some(parameters) = operation
        .get_mut("parameters")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for parameter in parameters {
        let name = parameter["name"].as_str().unwrap_or_default().to_string();
        let schema = &mut parameter["schema"];
        if name == "event_id" {
            schema["pattern"] = json!("^evt_[A-Za-z0-9]{1,64}$");
        } else if let Some(format) = format_of(&name) {
            if is_string(schema) && schema.get("format").is_none() {
                schema["format"] = json!(format);
            }
        }
    }
}

/// Query parameters arrive as text; the document says what the text must be.
/// A list's filters take the values of the listed field of the same name
/// (`?status=` of `/orders` an `OrderStatus`).
fn describe_query(operation: &mut Value, schemas: &Value) {
    let listed = listed_schema(operation, schemas).cloned();
    let is_availability = operation["operationId"]
        .as_str()
        .is_some_and(|id| id.contains("availability"));
    let Some(parameters) = operation
        .get_mut("parameters")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for parameter in parameters.iter_mut().filter(|p| p["in"] == "query") {
        let name = parameter["name"].as_str().unwrap_or_default().to_string();
        if is_availability && (name == "date" || name == "party_size") {
            parameter["required"] = json!(true);
        }
        let (schema, description) = match name.as_str() {
            "limit" => (
                json!({"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}),
                "Items a page holds.",
            ),
            "cursor" => (
                json!({"type": "string"}),
                "The `next_cursor` of the previous page; absent for the first.",
            ),
            "from" => (
                json!({"type": "string", "format": "date-time"}),
                "From this time on (RFC 3339).",
            ),
            "to" => (
                json!({"type": "string", "format": "date-time"}),
                "Before this time (RFC 3339).",
            ),
            "party_size" => (
                json!({"type": "integer", "minimum": 1, "maximum": MAX_PARTY_SIZE}),
                "Guests in the party.",
            ),
            "available" => (
                json!({"type": "boolean"}),
                "Only items on sale, or only those off it.",
            ),
            _ => match listed.as_ref().map(|item| &item["properties"][&name]) {
                Some(field) if field.get("$ref").is_some() => {
                    (field.clone(), "Only those with this value.")
                }
                _ => continue,
            },
        };
        parameter["schema"] = schema;
        if parameter.get("description").is_none() {
            parameter["description"] = json!(description);
        }
    }
}

/// The schema of the items a list operation answers with, if it is a list.
fn listed_schema<'a>(operation: &Value, schemas: &'a Value) -> Option<&'a Value> {
    let page = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        .as_str()?
        .strip_prefix("#/components/schemas/")?;
    let item = &schemas[page]["properties"]["data"]["items"];
    match item["$ref"].as_str() {
        Some(reference) => schemas.get(reference.strip_prefix("#/components/schemas/")?),
        None => Some(item),
    }
}

fn format_properties(schema: &mut Value) {
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    for (name, property) in properties.iter_mut() {
        if let Some(format) = format_of(name) {
            if is_string(property) && property.get("format").is_none() {
                property["format"] = json!(format);
            }
        }
        // Lists of ids, modifier names and events refuse an entry given twice.
        let listed_once = name.ends_with("_ids") || name == "modifiers" || name == "events";
        if listed_once && is_string(&property["items"]) {
            property["uniqueItems"] = json!(true);
            if name.ends_with("_ids") {
                property["items"]["format"] = json!("uuid");
            }
        }
    }
}

/// Response schemas are serialized whole, `null` included: every property is
/// present, so it is required.
fn require_every_property(name: &str, schema: &mut Value) {
    let Some(properties) = schema["properties"].as_object() else {
        return;
    };
    let required: Vec<Value> = properties
        .keys()
        .filter(|p| !SOMETIMES_ABSENT.contains(&(name, p.as_str())))
        .map(|p| json!(p))
        .collect();
    schema["required"] = Value::Array(required);
}

/// The schemas a request body can contain, directly or through references.
fn request_schemas(doc: &Value) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut pending: Vec<Value> = Vec::new();
    if let Some(paths) = doc["paths"].as_object() {
        for item in paths.values() {
            for operation in item.as_object().into_iter().flat_map(Map::values) {
                pending.push(operation["requestBody"].clone());
            }
        }
    }
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) => {
                if let Some(name) = map
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/components/schemas/"))
                {
                    if found.insert(name.to_string()) {
                        pending.push(doc["components"]["schemas"][name].clone());
                    }
                }
                pending.extend(map.into_iter().map(|(_, v)| v));
            }
            Value::Array(list) => pending.extend(list),
            _ => {}
        }
    }
    found
}
