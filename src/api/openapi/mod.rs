//! The OpenAPI 3.1 description of the whole API, served at `/api/v1/openapi.json`,
//! merged from every group in `GROUPS` and finished by `refine`; tests check
//! every mounted route is here and the document is valid OpenAPI 3.1.

mod refine;

use rocket::get;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::Paths;

use super::reply::Reply;
use crate::error::ApiError;

super::group![openapi_json];

/// The document, with every path written in full (`/api/v1/...`).
pub fn document() -> serde_json::Value {
    let mut doc = utoipa::openapi::OpenApiBuilder::new()
        .info(
            utoipa::openapi::InfoBuilder::new()
                .title("Brigade API")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(
                    "Restaurant operations API. Every request but login carries \
                     `Authorization: Bearer <token or API key>` and `X-Tenant-ID`. \
                     Errors are application/problem+json.",
                ))
                .build(),
        )
        .build();
    for group in super::GROUPS {
        doc.merge((group.openapi)());
    }
    let mut paths = Paths::new();
    for (path, item) in std::mem::take(&mut doc.paths.paths) {
        paths.paths.insert(format!("{}{path}", super::BASE), item);
    }
    doc.paths = paths;
    let components = doc.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        "bearer",
        SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
    );
    components.add_security_scheme(
        "tenant",
        SecurityScheme::ApiKey(utoipa::openapi::security::ApiKey::Header(
            utoipa::openapi::security::ApiKeyValue::new("X-Tenant-ID"),
        )),
    );
    doc.security = Some(vec![utoipa::openapi::security::SecurityRequirement::new(
        "bearer",
        Vec::<String>::new(),
    )
    .add("tenant", Vec::<String>::new())]);
    let mut doc = serde_json::to_value(doc).expect("the document serializes");
    refine::refine(&mut doc);
    doc
}

/// This document.
///
/// Public: no sign-in.
/// Every path is written in full (`/api/v1/...`); the same document is browsable at
/// `/api/v1/docs/`.
#[utoipa::path(tag = "OpenAPI", security(()), responses((status = 200, body = Object, description = "The OpenAPI document")))]
#[get("/openapi.json")]
async fn openapi_json() -> Result<Reply, ApiError> {
    // The routes are fixed at build time: build the document once.
    static DOCUMENT: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    Reply::ok(DOCUMENT.get_or_init(document))
}
