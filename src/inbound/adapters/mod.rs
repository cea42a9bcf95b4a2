//! One adapter per partner platform: how its messages are verified, on the raw
//! bytes and exactly as the platform documents, and what they ask for, as
//! [`Instruction`]s. Adapters are pure (no database, no clock of their own); the
//! receiving route and the inbox worker call them.

pub mod adyen;
pub mod deliveroo;
pub mod generic;
pub mod square;
pub mod stripe;
pub mod ubereats;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use crate::domain::partners::model::{Instruction, IntegrationKind};

/// A partner's request as it arrived, before anything is parsed.
pub struct Received<'a> {
    /// The URL the partner was given for this integration, exactly as shown on
    /// the integrations screen (Square signs it).
    pub url: &'a str,
    /// Header names in lower case, values as sent.
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
    pub now: DateTime<Utc>,
}

impl Received<'_> {
    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Header `name` (as the platform spells it), which the message must carry.
    pub fn required(&self, name: &str) -> Result<&str, Rejection> {
        self.header(&name.to_ascii_lowercase())
            .ok_or_else(|| Rejection::unauthorized(format!("no {name} header")))
    }
}

/// How a platform writes its signatures.
#[derive(Clone, Copy)]
pub enum Encoding {
    Hex,
    Base64,
}

impl Encoding {
    /// The signature's bytes; text in another encoding refuses the message.
    pub fn decode(self, text: &str) -> Result<Vec<u8>, Rejection> {
        match self {
            Encoding::Hex => hex::decode(text.trim())
                .map_err(|_| Rejection::unauthorized("the signature is not hex")),
            Encoding::Base64 => STANDARD
                .decode(text.trim())
                .map_err(|_| Rejection::unauthorized("the signature is not base64")),
        }
    }
}

/// HMAC-SHA256 keyed with `key` over `parts`, one after the other: what every
/// platform here signs with.
pub fn hmac_of(key: &[u8], parts: &[&[u8]]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    for part in parts {
        mac.update(part);
    }
    mac
}

/// Accepts when any of `signatures` is `mac`, each compared in constant time
/// (several are sent while a secret is rolled).
pub fn any_matches(
    mac: &Hmac<Sha256>,
    signatures: impl IntoIterator<Item = Vec<u8>>,
) -> Result<(), Rejection> {
    if signatures
        .into_iter()
        .any(|signature| mac.clone().verify_slice(&signature).is_ok())
    {
        Ok(())
    } else {
        Err(Rejection::unauthorized("signature does not match"))
    }
}

/// A verified JSON body's event id, the text at `field`; a body that is not
/// JSON is refused.
pub fn json_event_id(body: &[u8], field: &str) -> Result<Verified, Rejection> {
    let event: Value =
        serde_json::from_slice(body).map_err(|_| Rejection::bad_request("the body is not JSON"))?;
    Ok(Verified {
        event_id: event[field].as_str().map(str::to_owned),
    })
}

/// What an integration was configured with.
pub struct Credentials<'a> {
    /// The signing secret or key, as the platform's dashboard shows it.
    pub secret: &'a str,
    /// The adapter's options (see [`Adapter::check_options`]).
    pub options: &'a Value,
}

/// A message whose signature holds.
#[derive(Debug, PartialEq)]
pub struct Verified {
    /// The platform's id of the event, used to acknowledge repeats without
    /// processing them twice; `None` when the platform sends none.
    pub event_id: Option<String>,
}

/// Why a message was refused; nothing of it is processed.
#[derive(Debug, PartialEq)]
pub struct Rejection {
    /// 401 for a missing or wrong signature or credentials, 400 for a message
    /// that cannot be read at all.
    pub status: u16,
    /// Said to the sender and kept with the attempt: which check failed, never
    /// the expected value.
    pub reason: String,
}

impl Rejection {
    pub fn unauthorized(reason: impl Into<String>) -> Rejection {
        Rejection {
            status: 401,
            reason: reason.into(),
        }
    }

    pub fn bad_request(reason: impl Into<String>) -> Rejection {
        Rejection {
            status: 400,
            reason: reason.into(),
        }
    }
}

/// Why a verified message could not be carried out.
#[derive(Debug, PartialEq)]
pub enum Failure {
    /// Worth trying again later (the platform's API did not answer).
    Retry(String),
    /// Will not work as it is: the message is kept as failed with the reason.
    Invalid(String),
}

/// The body of the answer to an accepted message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acknowledgement {
    /// `{"received": true}` as JSON.
    Json,
    /// Adyen's `[accepted]`, as plain text.
    AdyenAccepted,
}

/// A partner platform.
pub trait Adapter: Sync {
    /// The `{platform}` or `{gateway}` of the route (`"stripe"`).
    fn name(&self) -> &'static str;

    /// The routes it may be configured on.
    fn kinds(&self) -> &'static [IntegrationKind];

    /// Checks the adapter's options when an integration is saved; `Err` names
    /// the wrong option. Options are a JSON object.
    fn check_options(&self, options: &Value) -> Result<(), String> {
        let _ = options;
        Ok(())
    }

    /// Checks the secret's form when an integration is saved (a `whsec_` prefix,
    /// hex, …); `Err` says what is wrong.
    fn check_secret(&self, secret: &str) -> Result<(), String> {
        let _ = secret;
        Ok(())
    }

    /// Verifies the message on its raw bytes, before anything is parsed.
    fn verify(&self, received: &Received, credentials: &Credentials)
        -> Result<Verified, Rejection>;

    /// What the message asks for. Called by the worker, after verification held.
    fn parse(&self, kind: IntegrationKind, body: &[u8]) -> Result<Vec<Instruction>, Failure>;

    /// Fetches an order named by a thin notification ([`Instruction::FetchOrder`]).
    fn fetch(
        &self,
        http: &ureq::Agent,
        credentials: &Credentials,
        external_id: &str,
        href: Option<&str>,
    ) -> Result<Vec<Instruction>, Failure> {
        let _ = (http, credentials, href);
        Err(Failure::Invalid(format!(
            "{} does not fetch orders (order {external_id})",
            self.name()
        )))
    }

    /// The answer's body once a message is accepted.
    fn acknowledgement(&self) -> Acknowledgement {
        Acknowledgement::Json
    }
}

/// Every adapter Brigade has.
pub const ADAPTERS: &[&dyn Adapter] = &[
    &stripe::Stripe,
    &square::Square,
    &adyen::Adyen,
    &ubereats::UberEats,
    &deliveroo::Deliveroo,
    &generic::Generic,
];

/// The adapter called `name` that serves `kind`.
pub fn find(kind: IntegrationKind, name: &str) -> Option<&'static dyn Adapter> {
    ADAPTERS
        .iter()
        .copied()
        .find(|a| a.name() == name && a.kinds().contains(&kind))
}
