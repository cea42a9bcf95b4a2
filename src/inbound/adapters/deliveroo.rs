//! `deliveroo` (delivery). Deliveroo's order events webhook signs each
//! message as documented at
//! <https://api-docs.deliveroo.com/docs/securing-webhooks>: the
//! `X-Deliveroo-Hmac-Sha256` header is the lowercase hex HMAC-SHA256, keyed
//! with the webhook secret, of the `X-Deliveroo-Sequence-Guid` header's value,
//! a space, and the raw body. The sequence guid identifies the message.
//!
//! `order.new` creates the order from `body.order` (items matched through the
//! menu map by `pos_item_id`, prices from `unit_price.fractional`, the
//! delivery fee as a fee line); `order.status_update` moves it: `accepted`
//! and `confirmed` accept it, `canceled`/`rejected` cancel it,
//! `picked_up`/`delivered` complete it.

use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use super::{Adapter, Credentials, Failure, Received, Rejection, Verified};
use crate::domain::partners::model::{
    DeliveryFee, DeliveryItem, DeliveryOrder, DeliveryStatus, Instruction, IntegrationKind,
};

pub struct Deliveroo;

fn status_of(text: &str) -> Option<DeliveryStatus> {
    Some(match text {
        "placed" | "pending" => DeliveryStatus::Placed,
        "accepted" | "confirmed" => DeliveryStatus::Accepted,
        "picked_up" | "in_delivery" => DeliveryStatus::PickedUp,
        "delivered" => DeliveryStatus::Delivered,
        "canceled" | "cancelled" | "rejected" => DeliveryStatus::Cancelled,
        _ => return None,
    })
}

fn text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_string)
}

fn order_of(order: &Value) -> Result<DeliveryOrder, Failure> {
    let external_id =
        text(&order["id"]).ok_or_else(|| Failure::Invalid("the order has no id".into()))?;
    let mut currency = None;
    let mut items = Vec::new();
    for (i, item) in order["items"].as_array().into_iter().flatten().enumerate() {
        let price = &item["unit_price"];
        currency = currency.or_else(|| text(&price["currency_code"]));
        items.push(DeliveryItem {
            external_id: text(&item["pos_item_id"]),
            sku: text(&item["pos_item_id"]),
            name: text(&item["name"])
                .ok_or_else(|| Failure::Invalid(format!("items[{i}] has no name")))?,
            quantity: item["quantity"]
                .as_i64()
                .ok_or_else(|| Failure::Invalid(format!("items[{i}] has no quantity")))?,
            unit_price: price["fractional"].as_i64().ok_or_else(|| {
                Failure::Invalid(format!("items[{i}] has no unit_price.fractional"))
            })?,
            notes: None,
        });
    }
    let fees = order["delivery"]["delivery_fee"]["fractional"]
        .as_i64()
        .filter(|fee| *fee > 0)
        .map(|amount| DeliveryFee {
            name: "Delivery fee".into(),
            amount,
        })
        .into_iter()
        .collect();
    let customer = &order["customer"];
    let name = [text(&customer["first_name"]), text(&customer["last_name"])]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    Ok(DeliveryOrder {
        external_id,
        display_id: text(&order["display_id"]),
        currency: currency
            .or_else(|| text(&order["total_price"]["currency_code"]))
            .ok_or_else(|| Failure::Invalid("the order names no currency".into()))?
            .to_ascii_uppercase(),
        customer_name: (!name.is_empty()).then_some(name),
        customer_phone: text(&customer["contact_number"]),
        notes: text(&order["order_notes"]),
        items,
        fees,
        status: order["status"].as_str().and_then(status_of),
    })
}

impl Adapter for Deliveroo {
    fn name(&self) -> &'static str {
        "deliveroo"
    }

    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Delivery]
    }

    fn verify(
        &self,
        received: &Received,
        credentials: &Credentials,
    ) -> Result<Verified, Rejection> {
        let guid = received
            .header("x-deliveroo-sequence-guid")
            .ok_or_else(|| Rejection::unauthorized("no X-Deliveroo-Sequence-Guid header"))?;
        let signature = received
            .header("x-deliveroo-hmac-sha256")
            .and_then(|h| hex::decode(h.trim()).ok())
            .ok_or_else(|| Rejection::unauthorized("no hex X-Deliveroo-Hmac-Sha256 header"))?;
        let mut mac = Hmac::<Sha256>::new_from_slice(credentials.secret.as_bytes())
            .expect("HMAC takes any key");
        mac.update(guid.as_bytes());
        mac.update(b" ");
        mac.update(received.body);
        mac.verify_slice(&signature)
            .map_err(|_| Rejection::unauthorized("X-Deliveroo-Hmac-Sha256 does not match"))?;
        Ok(Verified {
            event_id: Some(guid.to_string()),
        })
    }

    fn parse(&self, _: IntegrationKind, body: &[u8]) -> Result<Vec<Instruction>, Failure> {
        let message: Value = serde_json::from_slice(body)
            .map_err(|e| Failure::Invalid(format!("not a Deliveroo event: {e}")))?;
        let order = &message["body"]["order"];
        match message["event"].as_str().unwrap_or_default() {
            "order.new" => Ok(vec![Instruction::DeliveryOrder(order_of(order)?)]),
            "order.status_update" => {
                let external_id = text(&order["id"])
                    .ok_or_else(|| Failure::Invalid("the order has no id".into()))?;
                let status = order["status"].as_str().unwrap_or_default();
                Ok(vec![match status_of(status) {
                    Some(status) => Instruction::DeliveryStatus {
                        external_id,
                        status,
                    },
                    None => Instruction::Ignore {
                        reason: format!("Brigade does not act on the status {status:?}"),
                    },
                }])
            }
            other => Ok(vec![Instruction::Ignore {
                reason: format!("Brigade does not act on {other:?}"),
            }]),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use serde_json::json;

    use super::*;

    const NONE: Value = Value::Null;

    fn signed(secret: &str, guid: &str, body: &str) -> Vec<(String, String)> {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(format!("{guid} {body}").as_bytes());
        vec![
            ("x-deliveroo-sequence-guid".into(), guid.into()),
            (
                "x-deliveroo-hmac-sha256".into(),
                hex::encode(mac.finalize().into_bytes()),
            ),
        ]
    }

    fn received<'a>(headers: &'a [(String, String)], body: &'a [u8]) -> Received<'a> {
        Received {
            url: "https://box.example/webhook/delivery/bistro/deliveroo",
            headers,
            body,
            now: Utc::now(),
        }
    }

    #[test]
    fn a_message_verifies_over_its_sequence_guid_and_body() {
        let body = json!({"event": "order.status_update", "body": {"order": {"id": "gb:1", "status": "canceled"}}}).to_string();
        let headers = signed("roo-secret", "b6f2c1e0-guid", &body);
        let credentials = Credentials {
            secret: "roo-secret",
            options: &NONE,
        };
        assert_eq!(
            Deliveroo.verify(&received(&headers, body.as_bytes()), &credentials),
            Ok(Verified {
                event_id: Some("b6f2c1e0-guid".into())
            })
        );
        let wrong = Credentials {
            secret: "other",
            options: &NONE,
        };
        assert!(Deliveroo
            .verify(&received(&headers, body.as_bytes()), &wrong)
            .is_err());
        let changed = body.replace("canceled", "accepted");
        assert!(Deliveroo
            .verify(&received(&headers, changed.as_bytes()), &credentials)
            .is_err());
        let mut other_guid = headers.clone();
        other_guid[0].1 = "another-guid".into();
        assert!(Deliveroo
            .verify(&received(&other_guid, body.as_bytes()), &credentials)
            .is_err());
        assert!(Deliveroo
            .verify(&received(&[], body.as_bytes()), &credentials)
            .is_err());
        assert_eq!(
            Deliveroo.parse(IntegrationKind::Delivery, body.as_bytes()),
            Ok(vec![Instruction::DeliveryStatus {
                external_id: "gb:1".into(),
                status: DeliveryStatus::Cancelled
            }])
        );
    }

    #[test]
    fn a_new_order_becomes_a_delivery_order() {
        let body = json!({"event": "order.new", "body": {"order": {
            "id": "gb:2", "display_id": "7F3A", "status": "placed", "order_notes": "ring twice",
            "customer": {"first_name": "Sam", "contact_number": "+44 20 7946 0000"},
            "items": [{"pos_item_id": "BURG", "name": "Burger", "quantity": 2,
                       "unit_price": {"fractional": 899, "currency_code": "GBP"}}],
            "delivery": {"delivery_fee": {"fractional": 249, "currency_code": "GBP"}}}}});
        assert_eq!(
            Deliveroo.parse(IntegrationKind::Delivery, body.to_string().as_bytes()),
            Ok(vec![Instruction::DeliveryOrder(DeliveryOrder {
                external_id: "gb:2".into(),
                display_id: Some("7F3A".into()),
                currency: "GBP".into(),
                customer_name: Some("Sam".into()),
                customer_phone: Some("+44 20 7946 0000".into()),
                notes: Some("ring twice".into()),
                items: vec![DeliveryItem {
                    external_id: Some("BURG".into()),
                    sku: Some("BURG".into()),
                    name: "Burger".into(),
                    quantity: 2,
                    unit_price: 899,
                    notes: None,
                }],
                fees: vec![DeliveryFee {
                    name: "Delivery fee".into(),
                    amount: 249
                }],
                status: Some(DeliveryStatus::Placed),
            })])
        );
    }
}
