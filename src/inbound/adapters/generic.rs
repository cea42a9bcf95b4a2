//! `generic`: for aggregators and platforms without an adapter of their own,
//! on both routes. Messages are signed by the Standard Webhooks scheme
//! (<https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md>):
//! `webhook-id`, `webhook-timestamp` (Unix seconds, within 5 minutes of now)
//! and `webhook-signature`, space-separated `v1,<base64>` entries of
//! HMAC-SHA256 over `{id}.{timestamp}.{body}`, keyed with the base64 after the
//! secret's `whsec_` prefix. Any one matching entry accepts (key rotation).
//!
//! The bodies, amounts in minor units of `currency`:
//!
//! - payment route: `{"type": "payment.succeeded" | "payment.refunded",
//!   "order_id": "<Brigade order id>", "amount": 1250, "currency": "USD",
//!   "reference": "<the gateway's id>"}`;
//! - delivery route: `{"type": "order.created", "order": {"id": "<platform id>",
//!   "display_id"?, "currency", "customer"?: {"name"?, "phone"?}, "notes"?,
//!   "items": [{"id"?, "sku"?, "name", "quantity", "unit_price", "notes"?}],
//!   "fees"?: [{"name", "amount"}], "status"?: "placed" | "accepted" |
//!   "picked_up" | "delivered" | "cancelled"}}` and `{"type": "order.status",
//!   "order_id": "<platform id>", "status": …}`.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde::Deserialize;
use sha2::Sha256;

use super::{Adapter, Credentials, Failure, Received, Rejection, Verified};
use crate::domain::partners::model::{
    DeliveryFee, DeliveryItem, DeliveryOrder, DeliveryStatus, Instruction, IntegrationKind,
};

/// How far a message's timestamp may be from now, either way.
const TOLERANCE_SECS: i64 = 5 * 60;

pub struct Generic;

fn key_of(secret: &str) -> Result<Vec<u8>, String> {
    let encoded = secret
        .strip_prefix("whsec_")
        .ok_or("a Standard Webhooks secret starts with whsec_")?;
    STANDARD
        .decode(encoded)
        .map_err(|_| "the part after whsec_ is not base64".to_string())
}

#[derive(Deserialize)]
#[serde(tag = "type")]
enum Message {
    #[serde(rename = "payment.succeeded")]
    PaymentSucceeded(Money),
    #[serde(rename = "payment.refunded")]
    PaymentRefunded(Money),
    #[serde(rename = "order.created")]
    OrderCreated { order: Order },
    #[serde(rename = "order.status")]
    OrderStatus {
        order_id: String,
        status: DeliveryStatus,
    },
}

#[derive(Deserialize)]
struct Money {
    order_id: String,
    amount: i64,
    currency: String,
    reference: String,
}

#[derive(Deserialize)]
struct Order {
    id: String,
    display_id: Option<String>,
    currency: String,
    customer: Option<Customer>,
    notes: Option<String>,
    items: Vec<Item>,
    #[serde(default)]
    fees: Vec<Fee>,
    status: Option<DeliveryStatus>,
}

#[derive(Deserialize)]
struct Customer {
    name: Option<String>,
    phone: Option<String>,
}

#[derive(Deserialize)]
struct Item {
    id: Option<String>,
    sku: Option<String>,
    name: String,
    quantity: i64,
    unit_price: i64,
    notes: Option<String>,
}

#[derive(Deserialize)]
struct Fee {
    name: String,
    amount: i64,
}

impl Adapter for Generic {
    fn name(&self) -> &'static str {
        "generic"
    }

    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Delivery, IntegrationKind::Payment]
    }

    fn check_secret(&self, secret: &str) -> Result<(), String> {
        key_of(secret).map(|_| ())
    }

    fn verify(
        &self,
        received: &Received,
        credentials: &Credentials,
    ) -> Result<Verified, Rejection> {
        let header = |name: &str| {
            received
                .header(name)
                .ok_or_else(|| Rejection::unauthorized(format!("no {name} header")))
        };
        let (id, timestamp, signatures) = (
            header("webhook-id")?,
            header("webhook-timestamp")?,
            header("webhook-signature")?,
        );
        let sent_at: i64 = timestamp
            .trim()
            .parse()
            .map_err(|_| Rejection::unauthorized("webhook-timestamp is not Unix seconds"))?;
        if (received.now.timestamp() - sent_at).abs() > TOLERANCE_SECS {
            return Err(Rejection::unauthorized(
                "webhook-timestamp is outside the 5 minute tolerance",
            ));
        }
        let key = key_of(credentials.secret).map_err(Rejection::unauthorized)?;
        let mut signed = format!("{id}.{timestamp}.").into_bytes();
        signed.extend_from_slice(received.body);
        let matches = signatures
            .split(' ')
            .filter_map(|entry| entry.strip_prefix("v1,"))
            .filter_map(|b64| STANDARD.decode(b64).ok())
            .any(|signature| {
                let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes any key");
                mac.update(&signed);
                mac.verify_slice(&signature).is_ok()
            });
        if !matches {
            return Err(Rejection::unauthorized("webhook-signature does not match"));
        }
        Ok(Verified {
            event_id: Some(id.to_string()),
        })
    }

    fn parse(&self, kind: IntegrationKind, body: &[u8]) -> Result<Vec<Instruction>, Failure> {
        let message: Message = serde_json::from_slice(body)
            .map_err(|e| Failure::Invalid(format!("not a generic message: {e}")))?;
        let instruction = match (kind, message) {
            (IntegrationKind::Payment, Message::PaymentSucceeded(money)) => Instruction::Payment {
                order_id: money.order_id,
                amount: money.amount,
                currency: money.currency.to_ascii_uppercase(),
                reference: money.reference,
            },
            (IntegrationKind::Payment, Message::PaymentRefunded(money)) => Instruction::Refund {
                order_id: money.order_id,
                amount: money.amount,
                currency: money.currency.to_ascii_uppercase(),
                reference: money.reference,
            },
            (IntegrationKind::Delivery, Message::OrderCreated { order }) => {
                Instruction::DeliveryOrder(DeliveryOrder {
                    external_id: order.id,
                    display_id: order.display_id,
                    currency: order.currency.to_ascii_uppercase(),
                    customer_name: order.customer.as_ref().and_then(|c| c.name.clone()),
                    customer_phone: order.customer.and_then(|c| c.phone),
                    notes: order.notes,
                    items: order
                        .items
                        .into_iter()
                        .map(|i| DeliveryItem {
                            external_id: i.id,
                            sku: i.sku,
                            name: i.name,
                            quantity: i.quantity,
                            unit_price: i.unit_price,
                            notes: i.notes,
                        })
                        .collect(),
                    fees: order
                        .fees
                        .into_iter()
                        .map(|f| DeliveryFee {
                            name: f.name,
                            amount: f.amount,
                        })
                        .collect(),
                    status: order.status,
                })
            }
            (IntegrationKind::Delivery, Message::OrderStatus { order_id, status }) => {
                Instruction::DeliveryStatus {
                    external_id: order_id,
                    status,
                }
            }
            (kind, _) => {
                return Err(Failure::Invalid(format!(
                    "this message type does not belong on the {} route",
                    kind.as_str()
                )))
            }
        };
        Ok(vec![instruction])
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;

    fn received<'a>(headers: &'a [(String, String)], body: &'a [u8], now: i64) -> Received<'a> {
        Received {
            url: "https://box.example/webhook/payment/bistro/generic",
            headers,
            body,
            now: Utc.timestamp_opt(now, 0).unwrap(),
        }
    }

    fn headers(id: &str, timestamp: &str, signature: &str) -> Vec<(String, String)> {
        vec![
            ("webhook-id".into(), id.into()),
            ("webhook-timestamp".into(), timestamp.into()),
            ("webhook-signature".into(), signature.into()),
        ]
    }

    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const OPTIONS: serde_json::Value = serde_json::Value::Null;

    /// The specification's own example message and signature.
    #[test]
    fn the_specifications_example_verifies() {
        let body = br#"{"test": 2432232314}"#;
        let sent = headers(
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            "1614265330",
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        );
        let credentials = Credentials {
            secret: SECRET,
            options: &OPTIONS,
        };
        assert_eq!(
            Generic.verify(&received(&sent, body, 1614265330), &credentials),
            Ok(Verified {
                event_id: Some("msg_p5jXN8AQM9LWM0D4loKWxJek".into())
            })
        );
        // Another entry first (a rotated key) still verifies.
        let rotated = headers(
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            "1614265330",
            "v1,bm90IGl0 v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        );
        assert!(Generic
            .verify(&received(&rotated, body, 1614265330), &credentials)
            .is_ok());
        assert!(Generic
            .verify(
                &received(&sent, br#"{"test": 2432232315}"#, 1614265330),
                &credentials
            )
            .is_err());
        assert!(Generic
            .verify(&received(&sent, body, 1614265330 + 301), &credentials)
            .is_err());
        let other = Credentials {
            secret: "whsec_c2VjcmV0",
            options: &OPTIONS,
        };
        assert!(Generic
            .verify(&received(&sent, body, 1614265330), &other)
            .is_err());
        assert!(Generic
            .verify(&received(&[], body, 1614265330), &credentials)
            .is_err());
    }

    #[test]
    fn each_message_type_becomes_its_instruction() {
        let payment = br#"{"type":"payment.refunded","order_id":"o1","amount":250,"currency":"usd","reference":"re_1"}"#;
        assert_eq!(
            Generic.parse(IntegrationKind::Payment, payment),
            Ok(vec![Instruction::Refund {
                order_id: "o1".into(),
                amount: 250,
                currency: "USD".into(),
                reference: "re_1".into()
            }])
        );
        assert!(Generic.parse(IntegrationKind::Delivery, payment).is_err());
        let status = br#"{"type":"order.status","order_id":"x9","status":"picked_up"}"#;
        assert_eq!(
            Generic.parse(IntegrationKind::Delivery, status),
            Ok(vec![Instruction::DeliveryStatus {
                external_id: "x9".into(),
                status: DeliveryStatus::PickedUp
            }])
        );
        assert!(matches!(
            Generic.parse(IntegrationKind::Delivery, br#"{"type":"order.teleported"}"#),
            Err(Failure::Invalid(_))
        ));
        assert_eq!(
            Generic.check_secret("not-whsec"),
            Err("a Standard Webhooks secret starts with whsec_".into())
        );
    }
}
