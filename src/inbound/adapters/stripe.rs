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
        super::verified_json(received.body, "id")
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

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use hmac::{Hmac, Mac};
    use serde_json::{json, Value};
    use sha2::Sha256;

    use super::*;

    /// Signed by Stripe's own Python library: see `make_vector.py` beside it.
    const VECTOR: &str =
        include_str!("../../../tests/fixtures/stripe/payment_intent_succeeded.json");
    const NO_OPTIONS: Value = Value::Null;

    fn received<'a>(headers: &'a [(String, String)], body: &'a [u8], now: i64) -> Received<'a> {
        Received {
            url: "https://box.example/webhook/payment/bistro/stripe",
            headers,
            body,
            now: Utc.timestamp_opt(now, 0).unwrap(),
        }
    }

    fn sign(secret: &str, timestamp: i64, body: &str) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(format!("{timestamp}.{body}").as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    #[test]
    fn an_event_signed_by_stripes_library_verifies_and_pays_its_order() {
        let vector: Value = serde_json::from_str(VECTOR).unwrap();
        let (secret, header, payload) = (
            vector["secret"].as_str().unwrap(),
            vector["header"].as_str().unwrap(),
            vector["payload"].as_str().unwrap(),
        );
        let timestamp = vector["timestamp"].as_i64().unwrap();
        let headers = vec![("stripe-signature".to_string(), header.to_string())];
        let credentials = Credentials {
            secret,
            options: &NO_OPTIONS,
        };
        assert_eq!(
            Stripe.verify(
                &received(&headers, payload.as_bytes(), timestamp + 299),
                &credentials
            ),
            Ok(Verified {
                event_id: Some("evt_3QfixtureBrigade".into())
            })
        );
        assert_eq!(
            Stripe.parse(IntegrationKind::Payment, payload.as_bytes()),
            Ok(vec![Instruction::Payment {
                order_id: "01936a4e-8f00-7000-8000-00000000beef".into(),
                amount: 2450,
                currency: "USD".into(),
                reference: "pi_3QfixtureBrigade".into(),
            }])
        );
        // Stale, wrong secret, changed body, no header: refused.
        let stale = Stripe.verify(
            &received(&headers, payload.as_bytes(), timestamp + 301),
            &credentials,
        );
        assert_eq!(
            stale.unwrap_err().reason,
            "the timestamp is outside the 300 s tolerance"
        );
        let wrong = Credentials {
            secret: "whsec_other",
            options: &NO_OPTIONS,
        };
        assert!(Stripe
            .verify(&received(&headers, payload.as_bytes(), timestamp), &wrong)
            .is_err());
        let changed = payload.replace("2450", "2451");
        assert!(Stripe
            .verify(
                &received(&headers, changed.as_bytes(), timestamp),
                &credentials
            )
            .is_err());
        assert_eq!(
            Stripe
                .verify(&received(&[], payload.as_bytes(), timestamp), &credentials)
                .unwrap_err(),
            Rejection::unauthorized("no Stripe-Signature header")
        );
    }

    #[test]
    fn any_v1_signature_of_a_rolled_secret_verifies() {
        let body = json!({"id": "evt_1", "type": "charge.refunded"}).to_string();
        let header = format!(
            "t=1700000000,v1={},v1={},v0=ignored",
            sign("whsec_old", 1700000000, &body),
            sign("whsec_new", 1700000000, &body)
        );
        let headers = vec![("stripe-signature".to_string(), header)];
        for secret in ["whsec_old", "whsec_new"] {
            let credentials = Credentials {
                secret,
                options: &NO_OPTIONS,
            };
            assert!(Stripe
                .verify(
                    &received(&headers, body.as_bytes(), 1700000000),
                    &credentials
                )
                .is_ok());
        }
    }

    #[test]
    fn a_refunded_charge_gives_one_refund_per_stripe_refund() {
        let body = json!({"id": "evt_2", "type": "charge.refunded", "data": {"object": {
            "id": "ch_1", "currency": "usd", "amount_refunded": 700, "metadata": {"order_id": "o-1"},
            "refunds": {"data": [{"id": "re_1", "amount": 500}, {"id": "re_2", "amount": 200}]}}}});
        assert_eq!(
            Stripe.parse(IntegrationKind::Payment, body.to_string().as_bytes()),
            Ok(vec![
                Instruction::Refund {
                    order_id: "o-1".into(),
                    amount: 500,
                    currency: "USD".into(),
                    reference: "re_1".into()
                },
                Instruction::Refund {
                    order_id: "o-1".into(),
                    amount: 200,
                    currency: "USD".into(),
                    reference: "re_2".into()
                },
            ])
        );
        let no_order = json!({"type": "payment_intent.succeeded", "data": {"object": {"id": "pi", "amount": 1, "currency": "usd", "metadata": {}}}});
        assert!(matches!(
            Stripe.parse(IntegrationKind::Payment, no_order.to_string().as_bytes()),
            Err(Failure::Invalid(_))
        ));
        let other = json!({"type": "customer.created"});
        assert!(matches!(
            Stripe
                .parse(IntegrationKind::Payment, other.to_string().as_bytes())
                .unwrap()[0],
            Instruction::Ignore { .. }
        ));
        assert!(Stripe.check_secret("sk_live_1").is_err());
    }
}
