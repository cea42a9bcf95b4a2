//! `square` (payments). Square signs each event notification as documented at
//! <https://developer.squareup.com/docs/webhooks/step3validate>: the
//! `x-square-hmacsha256-signature` header is the base64 HMAC-SHA256, keyed
//! with the subscription's signature key, of the notification URL exactly as
//! registered followed by the raw body. So the URL shown on the integrations
//! screen must be the one pasted into Square, character for character.
//!
//! `payment.created` and `payment.updated` with status `COMPLETED` record a
//! card payment on the order named by the payment's `reference_id` (set it
//! to Brigade's order id when taking the payment); `refund.created` and
//! `refund.updated` with status `COMPLETED` record a refund on the order
//! named by the refund's `reference_id`, falling back on the payment's.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use super::{Adapter, Credentials, Failure, Received, Rejection, Verified};
use crate::domain::partners::model::{Instruction, IntegrationKind};

pub struct Square;

impl Adapter for Square {
    fn name(&self) -> &'static str {
        "square"
    }

    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Payment]
    }

    fn verify(
        &self,
        received: &Received,
        credentials: &Credentials,
    ) -> Result<Verified, Rejection> {
        let header = received
            .header("x-square-hmacsha256-signature")
            .ok_or_else(|| Rejection::unauthorized("no x-square-hmacsha256-signature header"))?;
        let signature = STANDARD
            .decode(header.trim())
            .map_err(|_| Rejection::unauthorized("the signature is not base64"))?;
        let mut mac = Hmac::<Sha256>::new_from_slice(credentials.secret.as_bytes())
            .expect("HMAC takes any key");
        mac.update(received.url.as_bytes());
        mac.update(received.body);
        mac.verify_slice(&signature).map_err(|_| {
            Rejection::unauthorized("the signature does not match this URL and body")
        })?;
        super::verified_json(received.body, "event_id")
    }

    fn parse(&self, _: IntegrationKind, body: &[u8]) -> Result<Vec<Instruction>, Failure> {
        let event: Value = serde_json::from_slice(body)
            .map_err(|e| Failure::Invalid(format!("not a Square event: {e}")))?;
        let kind = event["type"].as_str().unwrap_or_default();
        let object = &event["data"]["object"];
        let field = |value: &Value, what: &str| {
            value
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| Failure::Invalid(format!("the {kind} event has no {what}")))
        };
        let money = |money: &Value, what: &str| {
            Ok::<_, Failure>((
                money["amount"].as_i64().ok_or_else(|| {
                    Failure::Invalid(format!("the {kind} event has no {what}.amount"))
                })?,
                field(&money["currency"], &format!("{what}.currency"))?,
            ))
        };
        let ignore = |why: String| Ok(vec![Instruction::Ignore { reason: why }]);
        match kind {
            "payment.created" | "payment.updated" => {
                let payment = &object["payment"];
                let status = payment["status"].as_str().unwrap_or_default();
                if status != "COMPLETED" {
                    return ignore(format!("the payment is {status}, not COMPLETED"));
                }
                let (amount, currency) = money(&payment["amount_money"], "amount_money")?;
                Ok(vec![Instruction::Payment {
                    order_id: field(&payment["reference_id"], "payment.reference_id")?,
                    amount,
                    currency,
                    reference: field(&payment["id"], "payment.id")?,
                }])
            }
            "refund.created" | "refund.updated" => {
                let refund = &object["refund"];
                let status = refund["status"].as_str().unwrap_or_default();
                if status != "COMPLETED" {
                    return ignore(format!("the refund is {status}, not COMPLETED"));
                }
                let (amount, currency) = money(&refund["amount_money"], "amount_money")?;
                let order_id = refund["reference_id"]
                    .as_str()
                    .or(object["payment"]["reference_id"].as_str())
                    .map(str::to_string)
                    .ok_or_else(|| {
                        Failure::Invalid("the refund names no order in reference_id".into())
                    })?;
                Ok(vec![Instruction::Refund {
                    order_id,
                    amount,
                    currency,
                    reference: field(&refund["id"], "refund.id")?,
                }])
            }
            other => ignore(format!("Brigade does not act on {other}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use serde_json::json;

    use super::*;

    /// Checked with Square's own SDK: see `make_vector.py` beside it.
    const VECTOR: &str = include_str!("../../../tests/fixtures/square/payment_updated.json");
    const NO_OPTIONS: Value = Value::Null;

    fn received<'a>(url: &'a str, headers: &'a [(String, String)], body: &'a [u8]) -> Received<'a> {
        Received {
            url,
            headers,
            body,
            now: Utc::now(),
        }
    }

    #[test]
    fn a_notification_checked_by_squares_sdk_verifies_only_at_its_url() {
        let vector: Value = serde_json::from_str(VECTOR).unwrap();
        let key = vector["signature_key"].as_str().unwrap();
        let url = vector["notification_url"].as_str().unwrap();
        let body = vector["body"].as_str().unwrap();
        let headers = vec![(
            "x-square-hmacsha256-signature".to_string(),
            vector["signature"].as_str().unwrap().to_string(),
        )];
        let credentials = Credentials {
            secret: key,
            options: &NO_OPTIONS,
        };
        assert_eq!(
            Square.verify(&received(url, &headers, body.as_bytes()), &credentials),
            Ok(Verified {
                event_id: Some("6a8f5f28-54a1-4eb0-a98a-3111513fd4fc".into())
            })
        );
        let other_url = format!("{url}/");
        assert!(Square
            .verify(
                &received(&other_url, &headers, body.as_bytes()),
                &credentials
            )
            .is_err());
        let changed = body.replace("1850", "1851");
        assert!(Square
            .verify(&received(url, &headers, changed.as_bytes()), &credentials)
            .is_err());
        let wrong = Credentials {
            secret: "another-key",
            options: &NO_OPTIONS,
        };
        assert!(Square
            .verify(&received(url, &headers, body.as_bytes()), &wrong)
            .is_err());
        assert!(Square
            .verify(&received(url, &[], body.as_bytes()), &credentials)
            .is_err());
        assert_eq!(
            Square.parse(IntegrationKind::Payment, body.as_bytes()),
            Ok(vec![Instruction::Payment {
                order_id: "01936a4e-8f00-7000-8000-00000000cafe".into(),
                amount: 1850,
                currency: "USD".into(),
                reference: "KkAkhdMsgzn59SM8A89WgKwekxLZY".into(),
            }])
        );
    }

    #[test]
    fn refunds_are_recorded_and_unfinished_payments_ignored() {
        let refund = json!({"type": "refund.updated", "event_id": "e2", "data": {"object": {"refund": {
            "id": "R1", "status": "COMPLETED", "reference_id": "o-9",
            "amount_money": {"amount": 400, "currency": "USD"}}}}});
        assert_eq!(
            Square.parse(IntegrationKind::Payment, refund.to_string().as_bytes()),
            Ok(vec![Instruction::Refund {
                order_id: "o-9".into(),
                amount: 400,
                currency: "USD".into(),
                reference: "R1".into()
            }])
        );
        let pending = json!({"type": "payment.created", "data": {"object": {"payment": {"id": "P", "status": "APPROVED"}}}});
        assert!(matches!(
            Square
                .parse(IntegrationKind::Payment, pending.to_string().as_bytes())
                .unwrap()[0],
            Instruction::Ignore { .. }
        ));
        let no_order = json!({"type": "payment.updated", "data": {"object": {"payment": {
            "id": "P", "status": "COMPLETED", "amount_money": {"amount": 1, "currency": "USD"}}}}});
        assert!(matches!(
            Square.parse(IntegrationKind::Payment, no_order.to_string().as_bytes()),
            Err(Failure::Invalid(_))
        ));
    }
}
