//! The web apps, embedded in the binary from `assets/`: the admin app at
//! `/admin/` and the kitchen display at `/kitchen/` (any path under either
//! without a file extension is a client-side route and gets the app), the
//! assets the apps share at `/shared/`, and the API document viewer at
//! `/api/v1/docs`. `/` goes to the admin app.
//!
//! Every file carries an `ETag` (its SHA-256) and is revalidated, except the
//! versioned files under `vendor/`, which are cached for a year. Text is
//! gzipped for browsers that accept it, once per file. A strict
//! Content-Security-Policy allows scripts and styles from the box only.

use std::collections::HashMap;
use std::io::{Cursor, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use flate2::write::GzEncoder;
use flate2::Compression;
use rocket::http::uri::Origin;
use rocket::http::{ContentType, Header, Status};
use rocket::request::Request;
use rocket::response::{self, Redirect, Responder, Response};
use rocket::{get, routes, Route};
use rust_embed::{EmbeddedFile, RustEmbed};

#[derive(RustEmbed)]
#[folder = "assets/admin"]
struct AdminFiles;

#[derive(RustEmbed)]
#[folder = "assets/kitchen"]
struct KitchenFiles;

#[derive(RustEmbed)]
#[folder = "assets/shared"]
struct SharedFiles;

#[derive(RustEmbed)]
#[folder = "assets/docs"]
struct DocsFiles;

/// Scripts, styles, data and frames from the box only; no inline script.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Files smaller than this are not worth compressing.
const GZIP_FROM_BYTES: usize = 1024;

pub fn routes() -> Vec<Route> {
    routes![root, admin, kitchen, shared, docs]
}

#[get("/")]
fn root() -> Redirect {
    Redirect::to("/admin/")
}

/// What `/admin…` or `/kitchen…` answers: a page, or the way to the app's root.
#[derive(rocket::Responder)]
enum AppPage {
    Asset(Asset),
    Redirect(Box<Redirect>),
}

/// The admin app: a file, or the app itself for a client-side route.
#[get("/admin/<path..>")]
fn admin(path: PathBuf, uri: &Origin<'_>) -> AppPage {
    app_page::<AdminFiles>("/admin", path, uri)
}

/// The kitchen display: a file, or the display itself for a client-side route.
#[get("/kitchen/<path..>")]
fn kitchen(path: PathBuf, uri: &Origin<'_>) -> AppPage {
    app_page::<KitchenFiles>("/kitchen", path, uri)
}

/// A file of the app served at `root`, or its `index.html` for a path without a
/// file extension; `root` itself (no slash) goes to `root/`.
fn app_page<Files: RustEmbed>(root: &str, path: PathBuf, uri: &Origin<'_>) -> AppPage {
    if uri.path().as_str() == root {
        return AppPage::Redirect(Box::new(Redirect::permanent(format!("{root}/"))));
    }
    let path = path.to_string_lossy().replace('\\', "/");
    let is_file = path
        .rsplit('/')
        .next()
        .is_some_and(|name| name.contains('.'));
    let found = if is_file {
        Asset::find::<Files>(&path)
    } else {
        Asset::find::<Files>("index.html")
    };
    AppPage::Asset(found.unwrap_or_else(Asset::missing))
}

#[get("/shared/<path..>")]
fn shared(path: PathBuf) -> Asset {
    Asset::find::<SharedFiles>(&path.to_string_lossy()).unwrap_or_else(Asset::missing)
}

/// The OpenAPI document viewer.
#[get("/api/v1/docs/<path..>")]
fn docs(path: PathBuf) -> Asset {
    let path = path.to_string_lossy();
    let path = if path.is_empty() { "index.html" } else { &path };
    Asset::find::<DocsFiles>(path).unwrap_or_else(Asset::missing)
}

/// An embedded file, answered with caching and compression.
pub struct Asset {
    path: String,
    file: Option<EmbeddedFile>,
}

impl Asset {
    fn find<Files: RustEmbed>(path: &str) -> Option<Asset> {
        Files::get(path).map(|file| Asset {
            path: format!("{}:{path}", std::any::type_name::<Files>()),
            file: Some(file),
        })
    }

    fn missing() -> Asset {
        Asset {
            path: String::new(),
            file: None,
        }
    }
}

fn content_type(path: &str) -> ContentType {
    path.rsplit_once('.')
        .and_then(|(_, extension)| ContentType::from_extension(extension))
        .unwrap_or(ContentType::Binary)
}

fn compressible(content_type: &ContentType) -> bool {
    content_type.top() == "text"
        || [ContentType::JavaScript, ContentType::JSON, ContentType::SVG].contains(content_type)
}

/// The gzipped bytes of a file, made once per file and version.
fn gzipped(key: String, data: &[u8]) -> Option<Arc<[u8]>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<[u8]>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(done) = crate::lock(cache).get(&key) {
        return Some(done.clone());
    }
    let mut encoder = GzEncoder::new(Vec::with_capacity(data.len() / 3), Compression::best());
    encoder.write_all(data).ok()?;
    let compressed: Arc<[u8]> = encoder.finish().ok()?.into();
    crate::lock(cache).insert(key, compressed.clone());
    Some(compressed)
}

impl<'r> Responder<'r, 'static> for Asset {
    fn respond_to(self, req: &'r Request<'_>) -> response::Result<'static> {
        let Some(file) = self.file else {
            return Err(Status::NotFound);
        };
        let etag = format!("\"{}\"", hex::encode(&file.metadata.sha256_hash()[..16]));
        let content_type = content_type(&self.path);
        let cache_control = if self.path.contains(":vendor/") {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        };
        let mut response = Response::build();
        response
            .header(Header::new("ETag", etag.clone()))
            .header(Header::new("Cache-Control", cache_control))
            .header(Header::new(
                "Content-Security-Policy",
                CONTENT_SECURITY_POLICY,
            ))
            .header(Header::new("X-Content-Type-Options", "nosniff"))
            .header(Header::new("Referrer-Policy", "no-referrer"))
            .header(Header::new("Vary", "Accept-Encoding"));
        let revalidated = req
            .headers()
            .get("If-None-Match")
            .any(|tags| tags.split(',').any(|tag| tag.trim() == etag));
        if revalidated {
            return response.status(Status::NotModified).ok();
        }
        response.header(content_type.clone());
        let accepts_gzip = req
            .headers()
            .get("Accept-Encoding")
            .any(|accepted| accepted.split(',').any(|e| e.trim().starts_with("gzip")));
        // Both bodies are shared, not copied: the embedded bytes and the cached gzip.
        let data = file.data;
        if accepts_gzip && compressible(&content_type) && data.len() >= GZIP_FROM_BYTES {
            if let Some(compressed) = gzipped(format!("{}{etag}", self.path), &data) {
                return response
                    .header(Header::new("Content-Encoding", "gzip"))
                    .sized_body(compressed.len(), Cursor::new(compressed))
                    .ok();
            }
        }
        response.sized_body(data.len(), Cursor::new(data)).ok()
    }
}
