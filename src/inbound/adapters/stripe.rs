//! `stripe` (payments). Stripe signs each event with the endpoint's secret, as
//! documented at <https://docs.stripe.com/webhooks#verify-manually>: the
//! `Stripe-Signature` header holds `t=<unix seconds>` and one or more `v1=`
//! entries (several while a secret is rolled), each the lowercase hex
//! HMAC-SHA256 of `{t}.{raw body}` keyed with the whole `whsec_…` secret as
//! it is; a timestamp more than 300 s from now is refused against replays.
//!
//! `payment_intent.succeeded` records a card payment of `amount_received` on
//! the order named in the intent's `metadata.order_id`; `charge.refunded`
//! records each of the charge's refunds. Amounts are in minor units.

use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use super::{Adapter, Credentials, Failure, Received, Rejection, Verified};
use crate::domain::partners::model::{Instruction, IntegrationKind};

/// Stripe's default tolerance, in seconds.
const TOLERANCE_SECS: i64 = 300;

pub struct Stripe;

impl Adapter for Stripe {
    fn name(&self) -> &'static str {
        "stripe"
    }

    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Payment]
    }

    fn check_secret(&self, secret: &str) -> Result<(), String> {
        if secret.starts_with("whsec_") {
            Ok(())
        } else {
            Err("a Stripe endpoint secret starts with whsec_".into())
        }
    }

    fn verify(
        &self,
        received: &Received,
        credentials: &Credentials,
    ) -> Result<Verified, Rejection> {
        let header = received
            .header("stripe-signature")
            .ok_or_else(|| Rejection::unauthorized("no Stripe-Signature header"))?;
        let mut timestamp = None;
        let mut signatures = Vec::new();
        for part in header.split(',') {
            match part.trim().split_once('=') {
                Some(("t", t)) => timestamp = Some(t),
                Some(("v1", v1)) => signatures.push(v1),
                _ => {}
            }
        }
        let timestamp =
            timestamp.ok_or_else(|| Rejection::unauthorized("Stripe-Signature has no t="))?;
        let sent_at: i64 = timestamp
            .parse()
            .map_err(|_| Rejection::unauthorized("Stripe-Signature's t= is not Unix seconds"))?;
        if (received.now.timestamp() - sent_at).abs() > TOLERANCE_SECS {
            return Err(Rejection::unauthorized(
                "the timestamp is outside the 300 s tolerance",
            ));
        }
        let matches = signatures
            .iter()
            .filter_map(|s| hex::decode(s).ok())
            .any(|signature| {
                let mut mac = Hmac::<Sha256>::new_from_slice(credentials.secret.as_bytes())
                    .expect("HMAC takes any key");
                mac.update(timestamp.as_bytes());
                mac.update(b".");
                mac.update(received.body);
                mac.verify_slice(&signature).is_ok()
            });
        if !matches {
            return Err(Rejection::unauthorized("no v1 signature matches"));
        }
        let event: Value = serde_json::from_slice(received.body)
            .map_err(|_| Rejection::bad_request("the body is not JSON"))?;
        Ok(Verified {
            event_id: event["id"].as_str().map(str::to_string),
        })
    }

    fn parse(&self, _: IntegrationKind, body: &[u8]) -> Result<Vec<Instruction>, Failure> {
        let event: Value = serde_json::from_slice(body)
            .map_err(|e| Failure::Invalid(format!("not a Stripe event: {e}")))?;
        let kind = event["type"].as_str().unwrap_or_default();
        let object = &event["data"]["object"];
        let order_id = || {
            object["metadata"]["order_id"]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| Failure::Invalid(format!("the {kind} has no metadata.order_id")))
        };
        let text = |value: &Value, what: &str| {
            value
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| Failure::Invalid(format!("the {kind} has no {what}")))
        };
        let amount = |value: &Value, what: &str| {
            value
                .as_i64()
                .ok_or_else(|| Failure::Invalid(format!("the {kind} has no {what}")))
        };
        match kind {
            "payment_intent.succeeded" => {
                let received = match object["amount_received"].as_i64() {
                    Some(amount) => amount,
                    None => amount(&object["amount"], "amount")?,
                };
                Ok(vec![Instruction::Payment {
                    order_id: order_id()?,
                    amount: received,
                    currency: text(&object["currency"], "currency")?.to_ascii_uppercase(),
                    reference: text(&object["id"], "id")?,
                }])
            }
            "charge.refunded" => {
                let order_id = order_id()?;
                let currency = text(&object["currency"], "currency")?.to_ascii_uppercase();
                match object["refunds"]["data"].as_array() {
                    Some(refunds) if !refunds.is_empty() => refunds
                        .iter()
                        .map(|refund| {
                            Ok(Instruction::Refund {
                                order_id: order_id.clone(),
                                amount: amount(&refund["amount"], "refund amount")?,
                                currency: currency.clone(),
                                reference: text(&refund["id"], "refund id")?,
                            })
                        })
                        .collect(),
                    _ => Ok(vec![Instruction::Refund {
                        order_id,
                        amount: amount(&object["amount_refunded"], "amount_refunded")?,
                        currency,
                        reference: text(&object["id"], "id")?,
                    }]),
                }
            }
            other => Ok(vec![Instruction::Ignore {
                reason: format!("Brigade does not act on {other}"),
            }]),
        }
    }
}
