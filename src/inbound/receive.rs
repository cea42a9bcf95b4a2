//! The contract's inbound routes, `POST /webhook/delivery/{tenant_slug}/{platform}`
//! and `POST /webhook/payment/{tenant_slug}/{gateway}`: no staff sign-in, the
//! platform's signature instead. A message is verified on its raw bytes, stored
//! in the tenant's inbox and answered at once; the worker processes it after.

use std::net::IpAddr;
use std::sync::Arc;

use rocket::data::{Data, ToByteUnit};
use rocket::http::{ContentType, Status};
use rocket::request::{FromRequest, Outcome, Request};
use rocket::response::{self, Responder, Response};
use rocket::{post, routes, Route, State};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::adapters::{self, Acknowledgement, Credentials, Received};
use crate::domain::partners::{self, integration_url, IntegrationKind, MessageStatus, NewMessage};
use crate::error::ApiError;
use crate::App;

/// The largest message accepted; platforms' order messages are a few KiB.
pub const BODY_LIMIT_KIB: u64 = 256;
/// How much of a refused message's body is kept to show what was sent.
const REJECTED_BODY_KEPT: usize = 16 * 1024;
/// Headers never stored: credentials.
const NOT_KEPT: [&str; 3] = ["authorization", "proxy-authorization", "cookie"];

pub fn routes() -> Vec<Route> {
    routes![receive]
}

/// The request's headers (names in lower case) and the sender's address.
pub struct Sent {
    headers: Vec<(String, String)>,
    address: Option<IpAddr>,
}

#[rocket::async_trait]
impl<'r> FromRequest<'r> for Sent {
    type Error = std::convert::Infallible;

    async fn from_request(request: &'r Request<'_>) -> Outcome<Self, Self::Error> {
        let headers = request
            .headers()
            .iter()
            .map(|h| {
                (
                    h.name().as_str().to_ascii_lowercase(),
                    h.value().to_string(),
                )
            })
            .collect();
        Outcome::Success(Sent {
            headers,
            address: request.client_ip(),
        })
    }
}

/// The answer to an accepted message, in the form its platform expects.
pub struct Accepted {
    acknowledgement: Acknowledgement,
    body: Value,
}

impl<'r> Responder<'r, 'static> for Accepted {
    fn respond_to(self, _: &'r Request<'_>) -> response::Result<'static> {
        let (content_type, body) = match self.acknowledgement {
            Acknowledgement::AdyenAccepted => (ContentType::Plain, "[accepted]".to_string()),
            Acknowledgement::Json => (ContentType::JSON, self.body.to_string()),
        };
        Response::build()
            .status(Status::Ok)
            .header(content_type)
            .sized_body(body.len(), std::io::Cursor::new(body))
            .ok()
    }
}

/// Receives a partner's message for the tenant `slug`.
#[post("/webhook/<kind>/<slug>/<name>", data = "<data>")]
async fn receive(
    app: &State<Arc<App>>,
    kind: &str,
    slug: &str,
    name: &str,
    sent: Sent,
    data: Data<'_>,
) -> Result<Accepted, ApiError> {
    let app = app.inner().clone();
    if let Some(address) = sent.address {
        app.inbound
            .rejections
            .check(&address)
            .map_err(ApiError::too_many_requests)?;
    }
    let refuse = |error: ApiError| {
        if let Some(address) = sent.address {
            app.inbound.rejections.record_failure(address);
        }
        error
    };
    let body = data
        .open(BODY_LIMIT_KIB.kibibytes())
        .into_bytes()
        .await
        .map_err(|e| {
            ApiError::bad_request("unreadable_body", format!("cannot read the body: {e}"))
        })?;
    if !body.is_complete() {
        return Err(refuse(ApiError::new(
            Status::PayloadTooLarge,
            "body_too_large",
            format!("a message may be at most {BODY_LIMIT_KIB} KiB"),
        )));
    }
    let body = body.into_inner();
    let no_integration = || ApiError::not_found("integration");
    let (Some(kind), Some(tenant)) = (IntegrationKind::parse(kind), app.db.tenant_by_slug(slug))
    else {
        log::warn!("inbound: a message for {kind}/{slug}/{name}, which this box does not serve");
        return Err(refuse(no_integration()));
    };
    let tenant = app.db.tenant(tenant.id)?;
    let (stored_name, read_name, reader) = (name.to_string(), name.to_string(), tenant.clone());
    let integration = crate::db::run_blocking(move || {
        reader.read(|conn| partners::stored_integration(conn, kind, &read_name))
    })
    .await?;
    let adapter = adapters::find(kind, name);
    let checked = match (&integration, adapter) {
        (Some(integration), Some(adapter)) if integration.enabled => {
            let secret = app
                .inbound
                .sealer
                .open(&integration.secret_sealed)
                .map_err(ApiError::internal)?;
            let url = integration_url(&app.config.public_base(), kind, slug, name);
            let received = Received {
                url: &url,
                headers: &sent.headers,
                body: &body,
                now: app.clock.now(),
            };
            let credentials = Credentials {
                secret: &secret,
                options: &integration.options,
            };
            adapter
                .verify(&received, &credentials)
                .map_err(|r| (Status::new(r.status), r.reason))
        }
        (Some(_), Some(_)) => Err((Status::NotFound, "the integration is disabled".to_string())),
        _ => Err((Status::NotFound, "no such integration".to_string())),
    };
    let kept: Map<String, Value> = sent
        .headers
        .iter()
        .filter(|(n, _)| !NOT_KEPT.contains(&n.as_str()))
        .fold(Map::new(), |mut kept, (n, v)| {
            let joined = match kept.get(n).and_then(Value::as_str) {
                Some(earlier) => format!("{earlier}, {v}"),
                None => v.clone(),
            };
            kept.insert(n.clone(), Value::String(joined));
            kept
        });
    let rejection = checked.as_ref().err().cloned();
    let message = NewMessage {
        kind,
        name: stored_name,
        event_id: checked.as_ref().ok().and_then(|v| v.event_id.clone()),
        body_sha256: hex::encode(Sha256::digest(&body)),
        headers: Value::Object(kept),
        body: match &rejection {
            Some(_) => body.iter().copied().take(REJECTED_BODY_KEPT).collect(),
            None => body,
        },
        remote_address: sent.address.map(|a| a.to_string()),
        rejected: rejection.as_ref().map(|(_, reason)| reason.clone()),
    };
    let stored = app
        .write_queued(&tenant, format!("partner:{name}"), move |tx| {
            partners::store_message(tx, message)
        })
        .await?;
    if let Some((status, reason)) = rejection {
        let error = if status == Status::NotFound {
            no_integration()
        } else if status == Status::Unauthorized {
            ApiError::new(status, "signature_invalid", reason)
        } else {
            ApiError::new(status, "message_invalid", reason)
        };
        return Err(refuse(error));
    }
    if stored.status == MessageStatus::Received {
        app.inbound.wake(tenant.info.id);
    }
    Ok(Accepted {
        acknowledgement: adapter.map_or(Acknowledgement::Json, |a| a.acknowledgement()),
        body: json!({
            "received": true,
            "id": stored.id,
            "duplicate": stored.status == MessageStatus::Duplicate,
        }),
    })
}
