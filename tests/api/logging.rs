//! The server's log: a line per request under the id the client got back, with
//! the route's pattern and the tenant id, and nothing a guest or a login sent.

use serde_json::json;

use crate::helpers::{Client, TestApp};
use crate::process::serve_with;

fn request_id(res: &crate::helpers::Res) -> String {
    let id = res.header("X-Request-Id").expect("an X-Request-Id header");
    uuid::Uuid::parse_str(id).expect("the request id is a UUID");
    id.to_string()
}

#[test]
fn every_answer_carries_its_own_request_id() {
    let app = TestApp::spawn();
    let first = request_id(&app.owner.get("/orders"));
    let refused = request_id(&app.owner.get("/orders/not-an-id"));
    let unknown = request_id(&Client::anonymous(&app.base).get("/no-such-route"));
    assert_ne!(first, refused);
    assert_ne!(refused, unknown);
    assert_ne!(first, unknown);
}

#[test]
fn a_request_is_logged_by_its_route_never_with_what_was_sent() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = serve_with(dir.path(), &["--log-level", "info"]);
    let tenant = server
        .output
        .iter()
        .find_map(|l| l.strip_prefix("  Tenant id (X-Tenant-ID): "))
        .unwrap()
        .to_string();
    let guest = Client::anonymous(&server.base);
    let booking = guest.post(
        "/public/demo/reservations",
        json!({"name": "Ada Lovelace", "phone": "555-0199", "email": "ada@example.com",
               "party_size": 2, "starts_at": "2031-01-01T19:00:00.000Z"}),
    );
    let search =
        guest.get("/public/demo/availability?date=2031-01-01&party_size=2&note=ada%40example.com");
    let login = guest.with_tenant(&tenant).post(
        "/auth/login",
        json!({"email": "ada@example.com", "password": "not-the-password-x1"}),
    );
    let junk_tenant = guest.with_tenant("ada@example.com").get("/orders");
    let (booking, search, login, junk_tenant) = (
        request_id(&booking),
        request_id(&search),
        request_id(&login),
        request_id(&junk_tenant),
    );

    let lines = server.kill_and_read_the_rest();
    let line = |id: &str| {
        let found: Vec<&String> = lines.iter().filter(|l| l.contains(id)).collect();
        assert_eq!(found.len(), 1, "one line for request {id}: {lines:#?}");
        found[0].clone()
    };
    let booking = line(&booking);
    assert!(booking.contains(" INFO "), "{booking}");
    assert!(
        booking.contains(
            "method=POST route=/api/v1/public/<tenant_slug>/reservations tenant=none status="
        ),
        "{booking}"
    );
    let search = line(&search);
    assert!(
        search.contains("method=GET route=/api/v1/public/<tenant_slug>/availability"),
        "{search}"
    );
    let login = line(&login);
    assert!(
        login.contains(&format!(
            "route=/api/v1/auth/login tenant={tenant} status=401"
        )),
        "{login}"
    );
    assert!(line(&junk_tenant).contains("tenant=none"));
    for secret in [
        "Ada",
        "ada@",
        "ada%40",
        "555-0199",
        "not-the-password",
        "2031-01-01",
    ] {
        assert!(
            !lines.iter().any(|l| l.contains(secret)),
            "{secret:?} was logged: {lines:#?}"
        );
    }
}

#[test]
fn below_info_no_request_is_logged() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = serve_with(dir.path(), &["--no-demo", "--log-level", "warn"]);
    let id = request_id(&Client::anonymous(&server.base).get("/openapi.json"));
    let lines = server.kill_and_read_the_rest();
    assert!(!lines.iter().any(|l| l.contains(&id)), "{lines:#?}");
}
