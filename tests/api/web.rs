//! How the web apps are served: client-side routes, caching, compression and
//! the content policy, over plain HTTP.

use std::io::{Read, Write};
use std::net::TcpStream;

use flate2::read::GzDecoder;

use crate::helpers::{agent, TestApp};

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A GET of `path` (not under `/api/v1`) with ureq, which follows no redirect.
fn get(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> Answer {
    let mut request = ureq::http::Request::builder()
        .method("GET")
        .uri(format!("{}{path}", app.base));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let mut response = agent()
        .run(request.body(()).unwrap())
        .expect("the server answers");
    Answer {
        status: response.status().as_u16(),
        headers: response
            .headers()
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_string()))
            .collect(),
        body: response.body_mut().read_to_vec().unwrap_or_default(),
    }
}

/// A GET over a bare socket: ureq unpacks gzip and drops `Content-Encoding`,
/// so the compression is looked at here as the bytes came.
fn raw_get(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> Answer {
    let address = app.base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).expect("the server listens");
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).unwrap();
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8(bytes[..end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let body = bytes[end + 4..].to_vec();
    let chunked = headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    Answer {
        status: status.parse().unwrap(),
        headers,
        body: if chunked { unchunk(&body) } else { body },
    }
}

fn unchunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = std::str::from_utf8(&body[..line_end]).unwrap();
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        let start = line_end + 2;
        out.extend_from_slice(&body[start..start + size]);
        body = &body[start + size + 2..];
    }
}

#[test]
fn the_root_leads_to_the_admin_app() {
    let app = TestApp::spawn();
    let root = get(&app, "/", &[]);
    assert!(
        [301, 302, 303, 307, 308].contains(&root.status),
        "{}",
        root.status
    );
    assert_eq!(root.header("location"), Some("/admin/"));
    let bare = get(&app, "/admin", &[]);
    assert_eq!(bare.header("location"), Some("/admin/"));
}

#[test]
fn a_client_side_route_gets_the_app() {
    let app = TestApp::spawn();
    let index = get(&app, "/admin/", &[]);
    assert_eq!(index.status, 200);
    assert!(index
        .text()
        .contains(r#"<script type="module" src="/admin/app.js">"#));
    for route in [
        "/admin/menu",
        "/admin/reservations/2030-01-01",
        "/admin/menu/",
    ] {
        let page = get(&app, route, &[]);
        assert_eq!(page.status, 200, "{route}");
        assert!(
            page.header("content-type")
                .is_some_and(|t| t.starts_with("text/html")),
            "{route}: {:?}",
            page.header("content-type")
        );
        assert_eq!(page.body, index.body, "{route} is the app");
    }
    // A missing file is not the app.
    assert_eq!(get(&app, "/admin/missing.js", &[]).status, 404);
    assert_eq!(get(&app, "/shared/missing.js", &[]).status, 404);
}

#[test]
fn a_script_comes_with_its_policy_and_tag_and_gzipped_when_asked() {
    let app = TestApp::spawn();
    let plain = get(&app, "/admin/app.js", &[("Accept-Encoding", "identity")]);
    assert_eq!(plain.status, 200);
    assert!(
        plain
            .header("content-type")
            .is_some_and(|t| t.contains("javascript")),
        "{:?}",
        plain.header("content-type")
    );
    let policy = plain.header("content-security-policy").expect("a policy");
    assert!(policy.contains("script-src 'self'"), "{policy}");
    assert!(!policy.contains("unsafe-inline"), "{policy}");
    let etag = plain.header("etag").expect("an ETag").to_string();
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    assert_eq!(plain.header("cache-control"), Some("no-cache"));
    assert_eq!(plain.header("content-encoding"), None);

    let zipped = raw_get(
        &app,
        "/admin/app.js",
        &[("Accept-Encoding", "gzip, deflate")],
    );
    assert_eq!(zipped.status, 200);
    assert_eq!(zipped.header("content-encoding"), Some("gzip"));
    assert_eq!(zipped.header("etag"), Some(etag.as_str()));
    assert!(zipped.body.len() < plain.body.len());
    let mut unzipped = Vec::new();
    GzDecoder::new(zipped.body.as_slice())
        .read_to_end(&mut unzipped)
        .expect("gzip");
    assert_eq!(unzipped, plain.body);

    // The app's pages carry the policy too.
    let index = get(&app, "/admin/menu", &[]);
    assert_eq!(index.header("content-security-policy"), Some(policy));
}

#[test]
fn a_known_tag_is_answered_not_modified() {
    let app = TestApp::spawn();
    let first = get(&app, "/shared/api.js", &[]);
    let etag = first.header("etag").expect("an ETag").to_string();
    let again = raw_get(&app, "/shared/api.js", &[("If-None-Match", &etag)]);
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(etag.as_str()));
    let listed = get(
        &app,
        "/shared/api.js",
        &[("If-None-Match", &format!("\"other\", {etag}"))],
    );
    assert_eq!(listed.status, 304);
    let changed = get(&app, "/shared/api.js", &[("If-None-Match", "\"other\"")]);
    assert_eq!(changed.status, 200);
    assert_eq!(changed.body, first.body);
}

#[test]
fn vendored_files_are_cached_for_good() {
    let app = TestApp::spawn();
    let preact = get(&app, "/shared/vendor/preact-htm-3.1.1.module.js", &[]);
    assert_eq!(preact.status, 200);
    assert_eq!(
        preact.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
}
