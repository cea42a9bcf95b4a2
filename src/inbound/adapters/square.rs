//! Square, the card payment gateway, on the payment route.
//!
//! Verification follows
//! <https://developer.squareup.com/docs/webhooks/step3validate>: the
//! `x-square-hmacsha256-signature` header is the base64 HMAC-SHA256, keyed with
//! the subscription's signature key, of the notification URL exactly as
//! registered in the Square dashboard followed by the raw body. The URL is the
//! one shown on Brigade's integrations screen ([`Received::url`]), so a message
//! replayed to another tenant's URL does not verify.
//!
//! Refunds: Square's refund object names the payment (`payment_id`), not the
//! order it paid for, so a refund is recorded on the order named by the refund's
//! `reference_id` when it carries one, else on the order the payment was
//! recorded on (its reference is the Square payment id).

use serde_json::Value;

use super::{
    any_matches, hmac_of, json_event_id, Adapter, Credentials, Encoding, Failure, Received,
    Rejection, Verified,
};
use crate::domain::partners::model::{Instruction, IntegrationKind};

const SIGNATURE_HEADER: &str = "x-square-hmacsha256-signature";

pub struct Square;

impl Adapter for Square {
    fn name(&self) -> &'static str {
        "square"
    }

    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Payment]
    }

    fn check_secret(&self, secret: &str) -> Result<(), String> {
        if secret.trim().is_empty() {
            Err("paste the subscription's signature key".into())
        } else {
            Ok(())
        }
    }

    fn verify(
        &self,
        received: &Received,
        credentials: &Credentials,
    ) -> Result<Verified, Rejection> {
        let signature = Encoding::Base64.decode(received.required(SIGNATURE_HEADER)?)?;
        let mac = hmac_of(
            credentials.secret.as_bytes(),
            &[received.url.as_bytes(), received.body],
        );
        any_matches(&mac, [signature])?;
        json_event_id(received.body, "event_id")
    }

    fn parse(&self, _kind: IntegrationKind, body: &[u8]) -> Result<Vec<Instruction>, Failure> {
        let event: Value = serde_json::from_slice(body)
            .map_err(|e| Failure::Invalid(format!("the body is not JSON: {e}")))?;
        let event_type = event["type"]
            .as_str()
            .ok_or_else(|| Failure::Invalid("the event has no type".into()))?;
        match event_type {
            "payment.created" | "payment.updated" => {
                let payment = &event["data"]["object"]["payment"];
                let status = payment["status"].as_str().unwrap_or_default();
                if status != "COMPLETED" {
                    return Ok(vec![ignore(event_type, status)]);
                }
                let (amount, currency) = money(payment, event_type)?;
                Ok(vec![Instruction::Payment {
                    order_id: field(payment, "reference_id", event_type)?,
                    amount,
                    currency,
                    reference: field(payment, "id", event_type)?,
                }])
            }
            "refund.created" | "refund.updated" => {
                let refund = &event["data"]["object"]["refund"];
                let status = refund["status"].as_str().unwrap_or_default();
                if status != "COMPLETED" {
                    return Ok(vec![ignore(event_type, status)]);
                }
                let (amount, currency) = money(refund, event_type)?;
                let reference = field(refund, "id", event_type)?;
                Ok(vec![match refund["reference_id"].as_str() {
                    Some(order_id) => Instruction::Refund {
                        order_id: order_id.to_string(),
                        amount,
                        currency,
                        reference,
                    },
                    None => Instruction::RefundOfPayment {
                        payment_reference: field(refund, "payment_id", event_type)?,
                        amount,
                        currency,
                        reference,
                    },
                }])
            }
            other => Ok(vec![Instruction::Ignore {
                reason: format!("Square event {other} is not acted on"),
            }]),
        }
    }
}

fn ignore(event_type: &str, status: &str) -> Instruction {
    Instruction::Ignore {
        reason: format!("{event_type} with status {status} is not complete"),
    }
}

fn money(object: &Value, event_type: &str) -> Result<(i64, String), Failure> {
    let amount = object["amount_money"]["amount"]
        .as_i64()
        .ok_or_else(|| missing(event_type, "amount_money.amount"))?;
    let currency = object["amount_money"]["currency"]
        .as_str()
        .ok_or_else(|| missing(event_type, "amount_money.currency"))?;
    Ok((amount, currency.to_uppercase()))
}

fn field(object: &Value, name: &str, event_type: &str) -> Result<String, Failure> {
    object[name]
        .as_str()
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| missing(event_type, name))
}

fn missing(event_type: &str, name: &str) -> Failure {
    Failure::Invalid(format!("{event_type} has no {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use chrono::Utc;
    use hmac::{Hmac, Mac};
    use serde_json::json;
    use sha2::Sha256;

    const URL: &str = "https://brigade.example/webhook/payment/bistro/square";
    const KEY: &str = "sq-signature-key";

    fn sign(key: &str, url: &str, body: &[u8]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(key.as_bytes()).unwrap();
        mac.update(url.as_bytes());
        mac.update(body);
        STANDARD.encode(mac.finalize().into_bytes())
    }

    fn verify_with(
        url: &str,
        signature: Option<&str>,
        body: &[u8],
        key: &str,
    ) -> Result<Verified, Rejection> {
        let headers: Vec<(String, String)> = signature
            .map(|s| vec![(SIGNATURE_HEADER.to_string(), s.to_string())])
            .unwrap_or_default();
        let received = Received {
            url,
            headers: &headers,
            body,
            now: Utc::now(),
        };
        Square.verify(
            &received,
            &Credentials {
                secret: key,
                options: &json!({}),
            },
        )
    }

    const BODY: &[u8] = br#"{"event_id":"ev-1","type":"payment.updated"}"#;

    #[test]
    fn a_signed_message_is_accepted_with_its_event_id() {
        let signature = sign(KEY, URL, BODY);
        assert_eq!(
            verify_with(URL, Some(&signature), BODY, KEY),
            Ok(Verified {
                event_id: Some("ev-1".into())
            })
        );
    }

    /// Square's own example, from the tests of its SDKs (`WebhooksHelper`
    /// `isValidWebhookEventSignature` / `verify_signature`).
    #[test]
    fn squares_published_example_is_accepted() {
        let body = r#"{"merchant_id":"MLEFBHHSJGVHD","type":"webhooks.test_notification","event_id":"ac3ac95b-f97d-458c-a6e6-18981597e05f","created_at":"2022-07-13T20:30:59.037339943Z","data":{"type":"webhooks","id":"bc368e64-01aa-407e-b46e-3231809b1129"}}"#;
        assert_eq!(
            verify_with(
                "https://webhook.site/679a4f3a-dcfa-49ee-bac5-9d0edad886b9",
                Some("GF4YkrJgGBDZ9NIYbNXBnMzqb2HoL4RW/S6vkZ9/2N4="),
                body.as_bytes(),
                "Ibxx_5AKakO-3qeNVR61Dw",
            ),
            Ok(Verified {
                event_id: Some("ac3ac95b-f97d-458c-a6e6-18981597e05f".into())
            })
        );
    }

    #[test]
    fn a_message_signed_for_another_url_is_rejected() {
        let signature = sign(
            KEY,
            "https://brigade.example/webhook/payment/other/square",
            BODY,
        );
        assert_eq!(
            verify_with(URL, Some(&signature), BODY, KEY),
            Err(Rejection::unauthorized("signature does not match"))
        );
    }

    #[test]
    fn a_wrong_key_is_rejected() {
        let signature = sign("another-key", URL, BODY);
        assert_eq!(
            verify_with(URL, Some(&signature), BODY, KEY),
            Err(Rejection::unauthorized("signature does not match"))
        );
    }

    #[test]
    fn a_changed_body_is_rejected() {
        let signature = sign(KEY, URL, BODY);
        assert_eq!(
            verify_with(URL, Some(&signature), br#"{"event_id":"ev-2"}"#, KEY),
            Err(Rejection::unauthorized("signature does not match"))
        );
    }

    #[test]
    fn a_missing_header_is_rejected() {
        assert_eq!(
            verify_with(URL, None, BODY, KEY),
            Err(Rejection::unauthorized(
                "no x-square-hmacsha256-signature header"
            ))
        );
    }

    fn payment_event(status: &str) -> Vec<u8> {
        json!({
            "merchant_id": "M1", "type": "payment.updated", "event_id": "ev-3",
            "data": {"type": "payment", "id": "pay-1", "object": {"payment": {
                "id": "pay-1", "status": status, "reference_id": "o-1",
                "amount_money": {"amount": 2350, "currency": "USD"}
            }}}
        })
        .to_string()
        .into_bytes()
    }

    #[test]
    fn a_completed_payment_is_recorded() {
        assert_eq!(
            Square.parse(IntegrationKind::Payment, &payment_event("COMPLETED")),
            Ok(vec![Instruction::Payment {
                order_id: "o-1".into(),
                amount: 2350,
                currency: "USD".into(),
                reference: "pay-1".into(),
            }])
        );
    }

    #[test]
    fn a_payment_not_yet_completed_is_ignored() {
        assert_eq!(
            Square.parse(IntegrationKind::Payment, &payment_event("APPROVED")),
            Ok(vec![Instruction::Ignore {
                reason: "payment.updated with status APPROVED is not complete".into()
            }])
        );
    }

    #[test]
    fn a_completed_refund_is_recorded_on_its_reference() {
        let body = json!({
            "type": "refund.updated", "event_id": "ev-4",
            "data": {"object": {"refund": {
                "id": "ref-1", "status": "COMPLETED", "payment_id": "pay-1",
                "reference_id": "o-1", "amount_money": {"amount": 500, "currency": "USD"}
            }}}
        });
        assert_eq!(
            Square.parse(IntegrationKind::Payment, body.to_string().as_bytes()),
            Ok(vec![Instruction::Refund {
                order_id: "o-1".into(),
                amount: 500,
                currency: "USD".into(),
                reference: "ref-1".into(),
            }])
        );
    }

    #[test]
    fn a_refund_without_a_reference_is_recorded_against_its_payment() {
        let body = json!({
            "type": "refund.created", "event_id": "ev-5",
            "data": {"object": {"refund": {
                "id": "ref-2", "status": "COMPLETED", "payment_id": "pay-1",
                "amount_money": {"amount": 500, "currency": "USD"}
            }}}
        });
        assert_eq!(
            Square.parse(IntegrationKind::Payment, body.to_string().as_bytes()),
            Ok(vec![Instruction::RefundOfPayment {
                payment_reference: "pay-1".into(),
                amount: 500,
                currency: "USD".into(),
                reference: "ref-2".into(),
            }])
        );
    }

    #[test]
    fn a_pending_refund_is_ignored() {
        let body = json!({
            "type": "refund.created",
            "data": {"object": {"refund": {"id": "ref-3", "status": "PENDING"}}}
        });
        assert_eq!(
            Square.parse(IntegrationKind::Payment, body.to_string().as_bytes()),
            Ok(vec![Instruction::Ignore {
                reason: "refund.created with status PENDING is not complete".into()
            }])
        );
    }
}
