//! Stripe, the card payment gateway, on the payment route.
//!
//! Verification follows <https://docs.stripe.com/webhooks#verify-manually>: the
//! `Stripe-Signature` header is `t=<unix time>,v1=<hex>[,v1=<hex>…][,v0=…]`, each
//! `v1` an HMAC-SHA256 of `"{t}.{raw body}"` keyed with the endpoint's whole
//! `whsec_…` secret as bytes. Several `v1` entries arrive while a secret is being
//! rolled; any one matching accepts. The timestamp must be within 300 s of now,
//! either way, as Stripe's own libraries require.

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;

use super::{
    any_matches, hmac_of, json_event_id, Adapter, Credentials, Failure, Received, Rejection,
    Verified,
};
use crate::domain::partners::model::{Instruction, IntegrationKind};

/// How far the signed timestamp may be from now, in seconds (Stripe's default).
const TOLERANCE_SECONDS: i64 = 300;

pub struct Stripe;

impl Adapter for Stripe {
    fn name(&self) -> &'static str {
        "stripe"
    }

    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Payment]
    }

    fn check_secret(&self, secret: &str) -> Result<(), String> {
        if secret.starts_with("whsec_") && secret.len() > "whsec_".len() {
            Ok(())
        } else {
            Err("a Stripe signing secret starts with whsec_".into())
        }
    }

    fn verify(
        &self,
        received: &Received,
        credentials: &Credentials,
    ) -> Result<Verified, Rejection> {
        let header = received.required("Stripe-Signature")?;
        let mut timestamp = None;
        let mut signatures = Vec::new();
        for part in header.split(',') {
            match part.trim().split_once('=') {
                Some(("t", value)) => timestamp = value.parse::<i64>().ok(),
                Some(("v1", value)) => signatures.push(value),
                _ => {}
            }
        }
        let timestamp = timestamp
            .ok_or_else(|| Rejection::unauthorized("Stripe-Signature has no timestamp"))?;
        if signatures.is_empty() {
            return Err(Rejection::unauthorized(
                "Stripe-Signature has no v1 signature",
            ));
        }
        if !within_tolerance(timestamp, received.now) {
            return Err(Rejection::unauthorized(format!(
                "timestamp outside the {TOLERANCE_SECONDS} s tolerance"
            )));
        }
        let mac = hmac_of(
            credentials.secret.as_bytes(),
            &[timestamp.to_string().as_bytes(), b".", received.body],
        );
        any_matches(&mac, signatures.iter().filter_map(|s| hex::decode(s).ok()))?;
        json_event_id(received.body, "id")
    }

    fn parse(&self, _kind: IntegrationKind, body: &[u8]) -> Result<Vec<Instruction>, Failure> {
        let event: Value = serde_json::from_slice(body)
            .map_err(|e| Failure::Invalid(format!("the body is not JSON: {e}")))?;
        let event_type = event["type"]
            .as_str()
            .ok_or_else(|| Failure::Invalid("the event has no type".into()))?;
        let object = &event["data"]["object"];
        match event_type {
            "payment_intent.succeeded" => {
                let amount = object["amount_received"]
                    .as_i64()
                    .or_else(|| object["amount"].as_i64())
                    .ok_or_else(|| invalid(event_type, "data.object.amount_received"))?;
                Ok(vec![Instruction::Payment {
                    order_id: order_id(object, event_type)?,
                    amount,
                    currency: currency(object, event_type)?,
                    reference: text(object, "id", event_type)?,
                }])
            }
            "charge.refunded" => refunds(object, event_type),
            other => Ok(vec![Instruction::Ignore {
                reason: format!("Stripe event {other} is not acted on"),
            }]),
        }
    }
}

fn within_tolerance(timestamp: i64, now: DateTime<Utc>) -> bool {
    let Some(signed) = DateTime::from_timestamp(timestamp, 0) else {
        return false;
    };
    (now - signed).abs() <= TimeDelta::seconds(TOLERANCE_SECONDS)
}

/// One refund per entry of the charge's refund list; a charge that comes without
/// the list (older API versions leave it out) is one refund of `amount_refunded`.
fn refunds(charge: &Value, event_type: &str) -> Result<Vec<Instruction>, Failure> {
    let order_id = order_id(charge, event_type)?;
    let charge_currency = currency(charge, event_type)?;
    let Some(list) = charge["refunds"]["data"].as_array() else {
        return Ok(vec![Instruction::Refund {
            order_id,
            amount: charge["amount_refunded"]
                .as_i64()
                .ok_or_else(|| invalid(event_type, "data.object.amount_refunded"))?,
            currency: charge_currency,
            reference: text(charge, "id", event_type)?,
        }]);
    };
    list.iter()
        // A failed or canceled refund gave nothing back.
        .filter(|refund| !matches!(refund["status"].as_str(), Some("failed" | "canceled")))
        .map(|refund| {
            Ok(Instruction::Refund {
                order_id: order_id.clone(),
                amount: refund["amount"]
                    .as_i64()
                    .ok_or_else(|| invalid(event_type, "refunds.data[].amount"))?,
                currency: refund["currency"]
                    .as_str()
                    .map_or_else(|| charge_currency.clone(), str::to_uppercase),
                reference: text(refund, "id", event_type)?,
            })
        })
        .collect()
}

fn order_id(object: &Value, event_type: &str) -> Result<String, Failure> {
    object["metadata"]["order_id"]
        .as_str()
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| Failure::Invalid(format!("{event_type} has no metadata.order_id")))
}

fn currency(object: &Value, event_type: &str) -> Result<String, Failure> {
    object["currency"]
        .as_str()
        .map(str::to_uppercase)
        .ok_or_else(|| invalid(event_type, "data.object.currency"))
}

fn text(object: &Value, field: &str, event_type: &str) -> Result<String, Failure> {
    object[field]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| invalid(event_type, field))
}

fn invalid(event_type: &str, field: &str) -> Failure {
    Failure::Invalid(format!("{event_type} has no {field}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hmac::{Hmac, Mac};
    use serde_json::json;
    use sha2::Sha256;

    const SECRET: &str = "whsec_test_5d1c0f2a9e7b4c3d";
    const NOW: i64 = 1_763_980_000;

    fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(format!("{timestamp}.").as_bytes());
        mac.update(body);
        hex::encode(mac.finalize().into_bytes())
    }

    fn verify_with(
        header: Option<String>,
        body: &[u8],
        secret: &str,
        now: i64,
    ) -> Result<Verified, Rejection> {
        let headers: Vec<(String, String)> = header
            .map(|h| vec![("stripe-signature".to_string(), h)])
            .unwrap_or_default();
        let received = Received {
            url: "https://brigade.example/webhook/payment/bistro/stripe",
            headers: &headers,
            body,
            now: DateTime::from_timestamp(now, 0).unwrap(),
        };
        Stripe.verify(
            &received,
            &Credentials {
                secret,
                options: &json!({}),
            },
        )
    }

    const BODY: &[u8] = br#"{"id":"evt_1","type":"payment_intent.succeeded"}"#;

    #[test]
    fn a_signed_message_is_accepted_with_its_event_id() {
        let header = format!("t={NOW},v1={}", sign(SECRET, NOW, BODY));
        assert_eq!(
            verify_with(Some(header), BODY, SECRET, NOW + 10),
            Ok(Verified {
                event_id: Some("evt_1".into())
            })
        );
    }

    #[test]
    fn any_v1_signature_may_match_while_the_secret_rolls() {
        let header = format!(
            "t={NOW},v1={},v1={},v0=abc",
            sign("whsec_old", NOW, BODY),
            sign(SECRET, NOW, BODY)
        );
        assert!(verify_with(Some(header), BODY, SECRET, NOW).is_ok());
    }

    #[test]
    fn stripes_own_library_vector_is_accepted() {
        let fixture: Value = serde_json::from_str(include_str!(
            "../../../tests/fixtures/stripe/payment_intent_succeeded.json"
        ))
        .unwrap();
        let payload = fixture["payload"].as_str().unwrap();
        let verified = verify_with(
            Some(fixture["header"].as_str().unwrap().to_owned()),
            payload.as_bytes(),
            fixture["secret"].as_str().unwrap(),
            fixture["timestamp"].as_i64().unwrap(),
        );
        assert_eq!(
            verified,
            Ok(Verified {
                event_id: Some("evt_3QbR7sBrigade0001".into())
            })
        );
        assert_eq!(
            Stripe.parse(IntegrationKind::Payment, payload.as_bytes()),
            Ok(vec![Instruction::Payment {
                order_id: "0193a4c2-7f10-7c55-9a0e-5f3b2d1c9e80".into(),
                amount: 4250,
                currency: "EUR".into(),
                reference: "pi_3QbR7sBrigade0001".into(),
            }])
        );
    }

    #[test]
    fn a_wrong_secret_is_rejected() {
        let header = format!("t={NOW},v1={}", sign("whsec_other", NOW, BODY));
        assert_eq!(
            verify_with(Some(header), BODY, SECRET, NOW),
            Err(Rejection::unauthorized("signature does not match"))
        );
    }

    #[test]
    fn a_changed_body_is_rejected() {
        let header = format!("t={NOW},v1={}", sign(SECRET, NOW, BODY));
        let changed = br#"{"id":"evt_1","type":"payment_intent.succeeded" }"#;
        assert_eq!(
            verify_with(Some(header), changed, SECRET, NOW),
            Err(Rejection::unauthorized("signature does not match"))
        );
    }

    #[test]
    fn a_stale_or_future_timestamp_is_rejected() {
        let header = format!("t={NOW},v1={}", sign(SECRET, NOW, BODY));
        for now in [NOW + 301, NOW - 301] {
            assert_eq!(
                verify_with(Some(header.clone()), BODY, SECRET, now),
                Err(Rejection::unauthorized(
                    "timestamp outside the 300 s tolerance"
                ))
            );
        }
    }

    #[test]
    fn a_missing_header_is_rejected() {
        assert_eq!(
            verify_with(None, BODY, SECRET, NOW),
            Err(Rejection::unauthorized("no Stripe-Signature header"))
        );
    }

    #[test]
    fn the_secret_must_be_a_signing_secret() {
        assert!(Stripe.check_secret(SECRET).is_ok());
        assert!(Stripe.check_secret("sk_live_123").is_err());
    }

    #[test]
    fn a_payment_intent_without_amount_received_uses_amount() {
        let body = json!({
            "id": "evt_2", "type": "payment_intent.succeeded",
            "data": {"object": {"id": "pi_2", "amount": 1200, "currency": "usd",
                                "metadata": {"order_id": "o-2"}}}
        });
        assert_eq!(
            Stripe.parse(IntegrationKind::Payment, body.to_string().as_bytes()),
            Ok(vec![Instruction::Payment {
                order_id: "o-2".into(),
                amount: 1200,
                currency: "USD".into(),
                reference: "pi_2".into(),
            }])
        );
    }

    #[test]
    fn a_refunded_charge_gives_one_refund_per_refund() {
        let body = json!({
            "id": "evt_3", "type": "charge.refunded",
            "data": {"object": {
                "id": "ch_1", "currency": "eur", "amount_refunded": 1500,
                "metadata": {"order_id": "o-3"},
                "refunds": {"object": "list", "data": [
                    {"id": "re_1", "amount": 1000, "currency": "eur", "status": "succeeded"},
                    {"id": "re_2", "amount": 500, "currency": "eur", "status": "pending"},
                    {"id": "re_3", "amount": 700, "currency": "eur", "status": "failed"}
                ]}
            }}
        });
        assert_eq!(
            Stripe.parse(IntegrationKind::Payment, body.to_string().as_bytes()),
            Ok(vec![
                Instruction::Refund {
                    order_id: "o-3".into(),
                    amount: 1000,
                    currency: "EUR".into(),
                    reference: "re_1".into(),
                },
                Instruction::Refund {
                    order_id: "o-3".into(),
                    amount: 500,
                    currency: "EUR".into(),
                    reference: "re_2".into(),
                },
            ])
        );
    }

    #[test]
    fn a_refunded_charge_without_the_list_is_one_refund_of_the_charge() {
        let body = json!({
            "id": "evt_4", "type": "charge.refunded",
            "data": {"object": {"id": "ch_2", "currency": "gbp", "amount_refunded": 800,
                                "metadata": {"order_id": "o-4"}}}
        });
        assert_eq!(
            Stripe.parse(IntegrationKind::Payment, body.to_string().as_bytes()),
            Ok(vec![Instruction::Refund {
                order_id: "o-4".into(),
                amount: 800,
                currency: "GBP".into(),
                reference: "ch_2".into(),
            }])
        );
    }

    #[test]
    fn a_payment_without_an_order_id_is_invalid() {
        let body = json!({
            "id": "evt_5", "type": "payment_intent.succeeded",
            "data": {"object": {"id": "pi_5", "amount": 100, "currency": "eur", "metadata": {}}}
        });
        assert_eq!(
            Stripe.parse(IntegrationKind::Payment, body.to_string().as_bytes()),
            Err(Failure::Invalid(
                "payment_intent.succeeded has no metadata.order_id".into()
            ))
        );
    }

    #[test]
    fn other_events_are_ignored() {
        let body = json!({"id": "evt_6", "type": "customer.created", "data": {"object": {}}});
        assert_eq!(
            Stripe.parse(IntegrationKind::Payment, body.to_string().as_bytes()),
            Ok(vec![Instruction::Ignore {
                reason: "Stripe event customer.created is not acted on".into()
            }])
        );
    }
}
