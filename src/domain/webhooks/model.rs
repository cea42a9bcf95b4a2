//! Webhook endpoint and delivery types, and the endpoint's validation.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::domain::event::{CONTRACT_EVENTS, OTHER_EVENTS};
use crate::domain::validate::Checks;
use crate::error::ApiError;

pub const MAX_URL_LENGTH: usize = 2000;

/// The endpoint as shown after it was set: the secret only by its last characters.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookEndpoint {
    /// null until an endpoint has been set.
    pub url: Option<String>,
    pub enabled: bool,
    pub secret_last4: Option<String>,
    /// The events sent to it: the contract's twelve unless others were chosen.
    pub events: Vec<String>,
    pub updated_at: Option<String>,
    /// The signing secret, present only in the answer that created it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EndpointInput {
    /// Where events are POSTed: an http or https URL with a host.
    #[schema(min_length = 1, max_length = 2000)]
    pub url: String,
    pub enabled: bool,
    /// The events to send; absent keeps the current list (at first, the contract's
    /// twelve). Names from the contract's catalogue and `kitchen.ticket.*`.
    #[schema(min_items = 1)]
    pub events: Option<Vec<String>>,
}

impl EndpointInput {
    /// The chosen events, each known and listed once, when a list was sent.
    pub fn validated_events(&self) -> Result<Option<Vec<String>>, ApiError> {
        let Some(events) = &self.events else {
            return Ok(None);
        };
        let mut checks = Checks::new();
        if events.is_empty() {
            checks.fail(
                "events",
                "list at least one event, or switch the endpoint off",
            );
        }
        for (i, name) in events.iter().enumerate() {
            let known =
                CONTRACT_EVENTS.contains(&name.as_str()) || OTHER_EVENTS.contains(&name.as_str());
            if !known {
                checks.fail(
                    format!("events[{i}]"),
                    format!("{name:?} is not an event Brigade sends"),
                );
            } else if events[..i].contains(name) {
                checks.fail(format!("events[{i}]"), "is listed twice");
            }
        }
        checks.finish()?;
        Ok(Some(events.clone()))
    }

    /// The URL, trimmed, once known to be an absolute http(s) URL with a host.
    pub fn validated_url(&self) -> Result<String, ApiError> {
        let mut checks = Checks::new();
        let url = checks.text("url", &self.url, MAX_URL_LENGTH);
        if checks.is_ok() {
            match url.parse::<ureq::http::Uri>() {
                Ok(uri)
                    if matches!(uri.scheme_str(), Some("http" | "https"))
                        && uri.host().is_some_and(|h| !h.is_empty()) => {}
                _ => checks.fail("url", "must be an http or https URL with a host"),
            }
        }
        checks.finish()?;
        Ok(url)
    }
}

/// A new signing secret: 32 random bytes in hex behind a recognisable prefix.
pub fn new_secret() -> String {
    format!("whsec_{}", hex::encode(crate::auth::random_bytes(32)))
}

/// A secret's last four characters, shown to tell which one is set.
pub fn last4(secret: &str) -> String {
    let skip = secret.chars().count().saturating_sub(4);
    secret.chars().skip(skip).collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    Pending,
    Delivered,
    Failed,
}

impl DeliveryStatus {
    pub const ALL: [DeliveryStatus; 3] = [
        DeliveryStatus::Pending,
        DeliveryStatus::Delivered,
        DeliveryStatus::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Delivered => "delivered",
            DeliveryStatus::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// One POST to the endpoint and what came of it.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryAttempt {
    pub attempted_at: String,
    /// HTTP status of the answer; null when none came.
    pub status_code: Option<u16>,
    /// null when acknowledged; otherwise http_status, redirect, timeout, connection or other.
    pub error_class: Option<String>,
    pub duration_ms: i64,
    /// The first bytes of the answer's body.
    pub response_snippet: String,
}

/// The delivery of one event.
#[derive(Debug, Serialize, ToSchema)]
pub struct Delivery {
    pub event_id: String,
    pub event: String,
    pub created_at: String,
    pub status: DeliveryStatus,
    pub attempt_count: i64,
    /// When the next attempt is due; null unless pending.
    pub next_attempt_at: Option<String>,
    pub delivered_at: Option<String>,
    pub last_error: Option<String>,
    /// The envelope exactly as delivered.
    #[schema(value_type = Object)]
    pub payload: Value,
    /// Oldest first.
    pub attempts: Vec<DeliveryAttempt>,
    #[serde(skip)]
    pub seq: i64,
}

/// An event id from the path; anything else names no delivery.
pub fn event_id(text: &str) -> Result<String, ApiError> {
    let valid = text.strip_prefix("evt_").is_some_and(|rest| {
        !rest.is_empty() && rest.len() <= 64 && rest.bytes().all(|b| b.is_ascii_alphanumeric())
    });
    if valid {
        Ok(text.to_string())
    } else {
        Err(ApiError::not_found("delivery"))
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TestEvent {
    /// The `webhook.test` event now queued for delivery.
    pub event_id: String,
}
