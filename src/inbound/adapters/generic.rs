//! Any partner that signs the Standard Webhooks way, on either route, sending
//! Brigade's own JSON shapes.
//!
//! Verification follows the Standard Webhooks specification
//! (<https://www.standardwebhooks.com/>,
//! <https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md>):
//! headers `webhook-id`, `webhook-timestamp` (unix seconds) and
//! `webhook-signature`, a space-separated list of `v1,<base64>` entries, any one
//! matching accepting. Each is the HMAC-SHA256 of `"{id}.{timestamp}.{raw body}"`
//! keyed with the base64-decoded secret after its `whsec_` prefix. The timestamp
//! must be within 5 minutes of now, either way.
//!
//! Bodies, amounts in minor units of `currency` (ISO 4217):
//!
//! On the payment route:
//! ```json
//! {"type": "payment.succeeded", "order_id": "…", "amount": 1250, "currency": "EUR", "reference": "…"}
//! {"type": "payment.refunded",  "order_id": "…", "amount": 500,  "currency": "EUR", "reference": "…"}
//! ```
//! `order_id` is Brigade's order id; `reference` is the sender's id of the
//! payment or refund, recorded once.
//!
//! On the delivery route (`?` marks an optional field):
//! ```json
//! {"type": "order.created",
//!  "order": {"id": "…", "display_id?": "…", "currency": "EUR",
//!            "customer?": {"name?": "…", "phone?": "…"}, "notes?": "…",
//!            "items": [{"id?": "…", "sku?": "…", "name": "…", "quantity": 2,
//!                       "unit_price": 450, "notes?": "…"}],
//!            "fees?": [{"name": "…", "amount": 250}],
//!            "status?": "placed|accepted|picked_up|delivered|cancelled"}}
//! {"type": "order.status", "order_id": "…", "status": "accepted|picked_up|delivered|cancelled"}
//! ```
//! `order.id` and `order_id` are the sender's id of the order.

use base64::{engine::general_purpose::STANDARD, Engine};
use chrono::{DateTime, TimeDelta};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use super::{any_matches, hmac_of, Adapter, Credentials, Failure, Received, Rejection, Verified};
use crate::domain::partners::model::{
    DeliveryFee, DeliveryItem, DeliveryOrder, DeliveryStatus, Instruction, IntegrationKind,
};

/// The specification's tolerance, in seconds.
const TOLERANCE_SECONDS: i64 = 300;

pub struct Generic;

impl Adapter for Generic {
    fn name(&self) -> &'static str {
        "generic"
    }

    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Delivery, IntegrationKind::Payment]
    }

    fn check_secret(&self, secret: &str) -> Result<(), String> {
        match key(secret) {
            Some(key) if !key.is_empty() => Ok(()),
            _ => Err("a Standard Webhooks secret is whsec_ followed by base64".into()),
        }
    }

    fn verify(
        &self,
        received: &Received,
        credentials: &Credentials,
    ) -> Result<Verified, Rejection> {
        let id = received.required("webhook-id")?;
        let timestamp = received.required("webhook-timestamp")?;
        let signatures = received.required("webhook-signature")?;
        let signed_at = timestamp
            .trim()
            .parse::<i64>()
            .ok()
            .and_then(|t| DateTime::from_timestamp(t, 0))
            .ok_or_else(|| Rejection::unauthorized("webhook-timestamp is not a unix time"))?;
        if (received.now - signed_at).abs() > TimeDelta::seconds(TOLERANCE_SECONDS) {
            return Err(Rejection::unauthorized(format!(
                "timestamp outside the {TOLERANCE_SECONDS} s tolerance"
            )));
        }
        let key = key(credentials.secret)
            .ok_or_else(|| Rejection::unauthorized("the secret is not whsec_ and base64"))?;
        let mac = hmac_of(
            &key,
            &[
                id.as_bytes(),
                b".",
                timestamp.trim().as_bytes(),
                b".",
                received.body,
            ],
        );
        let entries = signatures
            .split_whitespace()
            .filter_map(|entry| entry.strip_prefix("v1,"))
            .filter_map(|signature| STANDARD.decode(signature).ok());
        any_matches(&mac, entries)?;
        Ok(Verified {
            event_id: Some(id.to_owned()),
        })
    }

    fn parse(&self, kind: IntegrationKind, body: &[u8]) -> Result<Vec<Instruction>, Failure> {
        let message: Value = serde_json::from_slice(body)
            .map_err(|e| Failure::Invalid(format!("the body is not JSON: {e}")))?;
        let message_type = message["type"]
            .as_str()
            .ok_or_else(|| Failure::Invalid("the message has no type".into()))?
            .to_owned();
        let instruction = match (kind, message_type.as_str()) {
            (IntegrationKind::Payment, "payment.succeeded") => {
                let m: Money = fields(message)?;
                Instruction::Payment {
                    order_id: m.order_id,
                    amount: m.amount,
                    currency: m.currency.to_uppercase(),
                    reference: m.reference,
                }
            }
            (IntegrationKind::Payment, "payment.refunded") => {
                let m: Money = fields(message)?;
                Instruction::Refund {
                    order_id: m.order_id,
                    amount: m.amount,
                    currency: m.currency.to_uppercase(),
                    reference: m.reference,
                }
            }
            (IntegrationKind::Delivery, "order.created") => {
                let m: Created = fields(message)?;
                Instruction::DeliveryOrder(m.order.into())
            }
            (IntegrationKind::Delivery, "order.status") => {
                let m: StatusChange = fields(message)?;
                Instruction::DeliveryStatus {
                    external_id: m.order_id,
                    status: m.status.into(),
                }
            }
            (kind, other) => {
                return Err(Failure::Invalid(format!(
                    "unknown type {other} for a {} integration",
                    kind.as_str()
                )))
            }
        };
        Ok(vec![instruction])
    }
}

/// The signing key: the base64 after `whsec_`.
fn key(secret: &str) -> Option<Vec<u8>> {
    STANDARD.decode(secret.strip_prefix("whsec_")?).ok()
}

/// The message read as `T`; a wrong field is named by its path.
fn fields<T: DeserializeOwned>(message: Value) -> Result<T, Failure> {
    serde_path_to_error::deserialize(message).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            Failure::Invalid(e.inner().to_string())
        } else {
            Failure::Invalid(format!("{path}: {}", e.inner()))
        }
    })
}

#[derive(Deserialize)]
struct Money {
    order_id: String,
    amount: i64,
    currency: String,
    reference: String,
}

#[derive(Deserialize)]
struct Created {
    order: Order,
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

#[derive(Deserialize)]
struct StatusChange {
    order_id: String,
    status: Moved,
}

/// The statuses an `order.status` may carry: an order is placed only once, by
/// `order.created`.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Moved {
    Accepted,
    PickedUp,
    Delivered,
    Cancelled,
}

impl From<Moved> for DeliveryStatus {
    fn from(moved: Moved) -> Self {
        match moved {
            Moved::Accepted => DeliveryStatus::Accepted,
            Moved::PickedUp => DeliveryStatus::PickedUp,
            Moved::Delivered => DeliveryStatus::Delivered,
            Moved::Cancelled => DeliveryStatus::Cancelled,
        }
    }
}

impl From<Order> for DeliveryOrder {
    fn from(order: Order) -> Self {
        let (customer_name, customer_phone) =
            order.customer.map_or((None, None), |c| (c.name, c.phone));
        DeliveryOrder {
            external_id: order.id,
            display_id: order.display_id,
            currency: order.currency.to_uppercase(),
            customer_name,
            customer_phone,
            notes: order.notes,
            items: order
                .items
                .into_iter()
                .map(|item| DeliveryItem {
                    external_id: item.id,
                    sku: item.sku,
                    name: item.name,
                    quantity: item.quantity,
                    unit_price: item.unit_price,
                    notes: item.notes,
                })
                .collect(),
            fees: order
                .fees
                .into_iter()
                .map(|fee| DeliveryFee {
                    name: fee.name,
                    amount: fee.amount,
                })
                .collect(),
            status: order.status,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use hmac::{Hmac, Mac};
    use serde_json::json;
    use sha2::Sha256;

    // The specification's published vector (standard-webhooks/standard-webhooks,
    // libraries/python/tests/test_webhooks.py, `test_sign_function`).
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const TIMESTAMP: i64 = 1_614_265_330;
    const PAYLOAD: &[u8] = br#"{"test": 2432232314}"#;
    const SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&key(secret).unwrap()).unwrap();
        mac.update(format!("{id}.{timestamp}.").as_bytes());
        mac.update(body);
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }

    fn verify_with(
        headers: &[(&str, String)],
        body: &[u8],
        secret: &str,
        now: i64,
    ) -> Result<Verified, Rejection> {
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect();
        let received = Received {
            url: "https://brigade.example/webhook/payment/bistro/generic",
            headers: &headers,
            body,
            now: DateTime::from_timestamp(now, 0).unwrap(),
        };
        Generic.verify(
            &received,
            &Credentials {
                secret,
                options: &json!({}),
            },
        )
    }

    fn headers(signature: String, timestamp: i64) -> Vec<(&'static str, String)> {
        vec![
            ("webhook-id", ID.to_string()),
            ("webhook-timestamp", timestamp.to_string()),
            ("webhook-signature", signature),
        ]
    }

    #[test]
    fn the_specifications_vector_is_accepted() {
        assert_eq!(sign(SECRET, ID, TIMESTAMP, PAYLOAD), SIGNATURE);
        assert_eq!(
            verify_with(
                &headers(SIGNATURE.into(), TIMESTAMP),
                PAYLOAD,
                SECRET,
                TIMESTAMP
            ),
            Ok(Verified {
                event_id: Some(ID.into())
            })
        );
    }

    #[test]
    fn any_v1_entry_may_match() {
        let now = Utc::now().timestamp();
        let list = format!(
            "v1a,abc v1,{} {}",
            STANDARD.encode([0u8; 32]),
            sign(SECRET, ID, now, PAYLOAD)
        );
        assert!(verify_with(&headers(list, now), PAYLOAD, SECRET, now).is_ok());
    }

    #[test]
    fn a_wrong_secret_is_rejected() {
        let other = "whsec_c2VjcmV0LW9mLWFub3RoZXItZW5kcG9pbnQ=";
        let signature = sign(other, ID, TIMESTAMP, PAYLOAD);
        assert_eq!(
            verify_with(&headers(signature, TIMESTAMP), PAYLOAD, SECRET, TIMESTAMP),
            Err(Rejection::unauthorized("signature does not match"))
        );
    }

    #[test]
    fn a_changed_body_is_rejected() {
        assert_eq!(
            verify_with(
                &headers(SIGNATURE.into(), TIMESTAMP),
                br#"{"test": 2432232315}"#,
                SECRET,
                TIMESTAMP
            ),
            Err(Rejection::unauthorized("signature does not match"))
        );
    }

    #[test]
    fn a_stale_or_future_timestamp_is_rejected() {
        for now in [TIMESTAMP + 301, TIMESTAMP - 301] {
            assert_eq!(
                verify_with(&headers(SIGNATURE.into(), TIMESTAMP), PAYLOAD, SECRET, now),
                Err(Rejection::unauthorized(
                    "timestamp outside the 300 s tolerance"
                ))
            );
        }
    }

    #[test]
    fn missing_headers_are_rejected() {
        for missing in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
            let mut h = headers(SIGNATURE.into(), TIMESTAMP);
            h.retain(|(name, _)| *name != missing);
            assert_eq!(
                verify_with(&h, PAYLOAD, SECRET, TIMESTAMP),
                Err(Rejection::unauthorized(format!("no {missing} header")))
            );
        }
    }

    #[test]
    fn the_secret_must_be_whsec_and_base64() {
        assert!(Generic.check_secret(SECRET).is_ok());
        assert!(Generic
            .check_secret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
            .is_err());
        assert!(Generic.check_secret("whsec_not base64!").is_err());
    }

    fn parse(kind: IntegrationKind, message: Value) -> Result<Vec<Instruction>, Failure> {
        Generic.parse(kind, message.to_string().as_bytes())
    }

    #[test]
    fn payments_and_refunds_are_read() {
        let money = |t: &str| {
            json!({"type": t, "order_id": "o-1", "amount": 1250, "currency": "eur",
                   "reference": "pay-7"})
        };
        assert_eq!(
            parse(IntegrationKind::Payment, money("payment.succeeded")),
            Ok(vec![Instruction::Payment {
                order_id: "o-1".into(),
                amount: 1250,
                currency: "EUR".into(),
                reference: "pay-7".into(),
            }])
        );
        assert_eq!(
            parse(IntegrationKind::Payment, money("payment.refunded")),
            Ok(vec![Instruction::Refund {
                order_id: "o-1".into(),
                amount: 1250,
                currency: "EUR".into(),
                reference: "pay-7".into(),
            }])
        );
    }

    #[test]
    fn a_created_order_is_read() {
        let message = json!({"type": "order.created", "order": {
            "id": "ext-9", "display_id": "A9", "currency": "EUR",
            "customer": {"name": "Ana", "phone": "+34 600 000 000"}, "notes": "Gate code 12",
            "items": [
                {"id": "i-1", "sku": "PIZ-M", "name": "Margherita", "quantity": 2,
                 "unit_price": 900, "notes": "well done"},
                {"name": "Water", "quantity": 1, "unit_price": 150}
            ],
            "fees": [{"name": "Delivery", "amount": 250}],
            "status": "accepted"
        }});
        assert_eq!(
            parse(IntegrationKind::Delivery, message),
            Ok(vec![Instruction::DeliveryOrder(DeliveryOrder {
                external_id: "ext-9".into(),
                display_id: Some("A9".into()),
                currency: "EUR".into(),
                customer_name: Some("Ana".into()),
                customer_phone: Some("+34 600 000 000".into()),
                notes: Some("Gate code 12".into()),
                items: vec![
                    DeliveryItem {
                        external_id: Some("i-1".into()),
                        sku: Some("PIZ-M".into()),
                        name: "Margherita".into(),
                        quantity: 2,
                        unit_price: 900,
                        notes: Some("well done".into()),
                    },
                    DeliveryItem {
                        external_id: None,
                        sku: None,
                        name: "Water".into(),
                        quantity: 1,
                        unit_price: 150,
                        notes: None,
                    },
                ],
                fees: vec![DeliveryFee {
                    name: "Delivery".into(),
                    amount: 250
                }],
                status: Some(DeliveryStatus::Accepted),
            })])
        );
    }

    #[test]
    fn a_minimal_created_order_is_read() {
        let message = json!({"type": "order.created", "order": {
            "id": "ext-10", "currency": "usd",
            "items": [{"name": "Soup", "quantity": 1, "unit_price": 600}]
        }});
        assert_eq!(
            parse(IntegrationKind::Delivery, message),
            Ok(vec![Instruction::DeliveryOrder(DeliveryOrder {
                external_id: "ext-10".into(),
                display_id: None,
                currency: "USD".into(),
                customer_name: None,
                customer_phone: None,
                notes: None,
                items: vec![DeliveryItem {
                    external_id: None,
                    sku: None,
                    name: "Soup".into(),
                    quantity: 1,
                    unit_price: 600,
                    notes: None,
                }],
                fees: Vec::new(),
                status: None,
            })])
        );
    }

    #[test]
    fn status_changes_are_read() {
        for (theirs, ours) in [
            ("accepted", DeliveryStatus::Accepted),
            ("picked_up", DeliveryStatus::PickedUp),
            ("delivered", DeliveryStatus::Delivered),
            ("cancelled", DeliveryStatus::Cancelled),
        ] {
            assert_eq!(
                parse(
                    IntegrationKind::Delivery,
                    json!({"type": "order.status", "order_id": "ext-9", "status": theirs})
                ),
                Ok(vec![Instruction::DeliveryStatus {
                    external_id: "ext-9".into(),
                    status: ours,
                }])
            );
        }
    }

    #[test]
    fn an_unknown_type_is_invalid_and_named() {
        assert_eq!(
            parse(
                IntegrationKind::Payment,
                json!({"type": "payment.disputed"})
            ),
            Err(Failure::Invalid(
                "unknown type payment.disputed for a payment integration".into()
            ))
        );
        assert_eq!(
            parse(
                IntegrationKind::Delivery,
                json!({"type": "payment.succeeded"})
            ),
            Err(Failure::Invalid(
                "unknown type payment.succeeded for a delivery integration".into()
            ))
        );
    }

    #[test]
    fn a_wrong_field_is_invalid_and_named() {
        assert_eq!(
            parse(
                IntegrationKind::Payment,
                json!({"type": "payment.succeeded", "order_id": "o-1", "currency": "EUR",
                       "reference": "r"})
            ),
            Err(Failure::Invalid("missing field `amount`".into()))
        );
        assert_eq!(
            parse(
                IntegrationKind::Delivery,
                json!({"type": "order.created", "order": {"id": "x", "currency": "EUR",
                       "items": [{"name": "Soup", "quantity": "one", "unit_price": 600}]}})
            ),
            Err(Failure::Invalid(
                "order.items[0].quantity: invalid type: string \"one\", expected i64".into()
            ))
        );
        assert_eq!(
            parse(
                IntegrationKind::Delivery,
                json!({"type": "order.status", "order_id": "x", "status": "placed"})
            ),
            Err(Failure::Invalid(
                "status: unknown variant `placed`, expected one of `accepted`, `picked_up`, `delivered`, `cancelled`".into()
            ))
        );
    }
}
