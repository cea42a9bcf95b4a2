use std::collections::BTreeSet;

use brigade::api::openapi::document;
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
    // The web apps and the document viewer are pages, not API operations.
    let pages: BTreeSet<String> = brigade::web::routes()
        .iter()
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
