//! Deliveroo, the delivery marketplace, on the delivery route (Order Events
//! webhook: `order.new` and `order.status_update`).
//!
//! Verification follows <https://api-docs.deliveroo.com/docs/securing-webhooks>:
//! `X-Deliveroo-Hmac-Sha256` is the hex HMAC-SHA256, keyed with the webhook
//! secret, of the `X-Deliveroo-Sequence-Guid` header value, a space, and the raw
//! body (the `" \n "` separator of that page is for the legacy `new_order` POS
//! webhook, which this adapter does not take).
//!
//! Payloads follow <https://api-docs.deliveroo.com/reference/order-events-webhook-1>
//! and <https://api-docs.deliveroo.com/docs/fulfillment-types>: prices are
//! `{fractional, currency_code}`, fractional being minor units; statuses are
//! `placed`, `accepted`, `confirmed` (a scheduled order being prepared),
//! `rejected` and `canceled`.

use serde_json::Value;

use super::{
    any_matches, hmac_of, Adapter, Credentials, Encoding, Failure, Received, Rejection, Verified,
};
use crate::domain::partners::model::{
    DeliveryFee, DeliveryItem, DeliveryOrder, DeliveryStatus, Instruction, IntegrationKind,
};

pub struct Deliveroo;

impl Adapter for Deliveroo {
    fn name(&self) -> &'static str {
        "deliveroo"
    }

    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Delivery]
    }

    fn check_secret(&self, secret: &str) -> Result<(), String> {
        if secret.trim().is_empty() {
            Err("paste the webhook secret Deliveroo gave".into())
        } else {
            Ok(())
        }
    }

    fn verify(
        &self,
        received: &Received,
        credentials: &Credentials,
    ) -> Result<Verified, Rejection> {
        let guid = received.required("X-Deliveroo-Sequence-Guid")?;
        let signature = Encoding::Hex.decode(received.required("X-Deliveroo-Hmac-Sha256")?)?;
        let mac = hmac_of(
            credentials.secret.as_bytes(),
            &[guid.as_bytes(), b" ", received.body],
        );
        any_matches(&mac, [signature])?;
        Ok(Verified {
            event_id: Some(guid.to_owned()),
        })
    }

    fn parse(&self, _kind: IntegrationKind, body: &[u8]) -> Result<Vec<Instruction>, Failure> {
        let event: Value = serde_json::from_slice(body)
            .map_err(|e| Failure::Invalid(format!("the body is not JSON: {e}")))?;
        let order = &event["body"]["order"];
        match event["event"].as_str() {
            Some("order.new") => Ok(vec![Instruction::DeliveryOrder(delivery_order(order)?)]),
            Some("order.status_update") => {
                let external_id = text(&order["id"]).ok_or_else(|| {
                    Failure::Invalid("order.status_update has no order.id".into())
                })?;
                let status = order["status"].as_str().unwrap_or_default();
                Ok(vec![match delivery_status(status) {
                    Some(status) => Instruction::DeliveryStatus {
                        external_id,
                        status,
                    },
                    None => Instruction::Ignore {
                        reason: format!("Deliveroo status {status} is not acted on"),
                    },
                }])
            }
            Some(other) => Ok(vec![Instruction::Ignore {
                reason: format!("Deliveroo event {other} is not acted on"),
            }]),
            None => Err(Failure::Invalid("the message has no event".into())),
        }
    }
}

fn delivery_status(status: &str) -> Option<DeliveryStatus> {
    match status {
        "pending" | "placed" => Some(DeliveryStatus::Placed),
        "accepted" | "confirmed" => Some(DeliveryStatus::Accepted),
        "rejected" | "canceled" => Some(DeliveryStatus::Cancelled),
        _ => None,
    }
}

fn delivery_order(order: &Value) -> Result<DeliveryOrder, Failure> {
    let external_id =
        text(&order["id"]).ok_or_else(|| Failure::Invalid("order.new has no order.id".into()))?;
    let invalid = |what: &str| Failure::Invalid(format!("order {external_id}: {what}"));
    let currency = text(&order["total_price"]["currency_code"])
        .or_else(|| {
            order["items"]
                .as_array()?
                .iter()
                .find_map(|item| text(&item["unit_price"]["currency_code"]))
        })
        .ok_or_else(|| invalid("no currency_code"))?;
    let items = order["items"]
        .as_array()
        .ok_or_else(|| invalid("no items"))?
        .iter()
        .map(|item| {
            Ok(DeliveryItem {
                external_id: text(&item["id"]),
                sku: text(&item["pos_item_id"]),
                name: text(&item["name"]).ok_or_else(|| invalid("an item has no name"))?,
                quantity: item["quantity"]
                    .as_i64()
                    .ok_or_else(|| invalid("an item has no quantity"))?,
                unit_price: item["unit_price"]["fractional"]
                    .as_i64()
                    .ok_or_else(|| invalid("an item has no unit_price.fractional"))?,
                notes: modifiers(item),
            })
        })
        .collect::<Result<Vec<_>, Failure>>()?;
    let customer = &order["customer"];
    Ok(DeliveryOrder {
        display_id: text(&order["display_id"]),
        currency: currency.to_uppercase(),
        customer_name: text(&customer["first_name"]).or_else(|| text(&customer["name"])),
        customer_phone: text(&customer["contact_number"]).or_else(|| text(&customer["phone"])),
        notes: text(&order["order_notes"]).or_else(|| text(&order["notes"])),
        items,
        fees: fees(order),
        status: order["status"].as_str().and_then(delivery_status),
        external_id,
    })
}

/// The fees charged to the customer: the delivery fee of restaurant-delivered
/// orders, the bag fee, and each entry of `fee_breakdown`; zero amounts are left
/// out so the ticket shows only what was paid.
fn fees(order: &Value) -> Vec<DeliveryFee> {
    let fixed = [
        ("Delivery fee", &order["delivery"]["delivery_fee"]),
        ("Bag fee", &order["bag_fee"]),
    ]
    .into_iter()
    .filter_map(|(name, price)| {
        Some(DeliveryFee {
            name: name.into(),
            amount: price["fractional"].as_i64()?,
        })
    });
    let breakdown = order["fee_breakdown"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|fee| {
            Some(DeliveryFee {
                name: text(&fee["type"])?,
                amount: fee["amount"]["fractional"].as_i64()?,
            })
        });
    fixed
        .chain(breakdown)
        .filter(|fee| fee.amount != 0)
        .collect()
}

/// The item's modifiers (`"No tomato"`, extras), by name, as its kitchen note.
fn modifiers(item: &Value) -> Option<String> {
    let names: Vec<String> = item["modifiers"]
        .as_array()?
        .iter()
        .filter_map(|m| m.as_str().map(str::to_owned).or_else(|| text(&m["name"])))
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

fn text(value: &Value) -> Option<String> {
    value.as_str().filter(|s| !s.is_empty()).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use hmac::{Hmac, Mac};
    use serde_json::json;
    use sha2::Sha256;

    const SECRET: &str = "deliveroo-webhook-secret";
    const GUID: &str = "5a3c0e84-1b0f-4a8e-9a51-3c5d7b2f9e10";

    fn sign(secret: &str, guid: &str, body: &[u8]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(format!("{guid} ").as_bytes());
        mac.update(body);
        hex::encode(mac.finalize().into_bytes())
    }

    fn verify_with(
        guid: Option<&str>,
        signature: Option<&str>,
        body: &[u8],
    ) -> Result<Verified, Rejection> {
        let mut headers = Vec::new();
        if let Some(guid) = guid {
            headers.push(("x-deliveroo-sequence-guid".to_string(), guid.to_string()));
        }
        if let Some(signature) = signature {
            headers.push(("x-deliveroo-hmac-sha256".to_string(), signature.to_string()));
        }
        let received = Received {
            url: "https://brigade.example/webhook/delivery/bistro/deliveroo",
            headers: &headers,
            body,
            now: Utc::now(),
        };
        Deliveroo.verify(
            &received,
            &Credentials {
                secret: SECRET,
                options: &json!({}),
            },
        )
    }

    const BODY: &[u8] =
        br#"{"event":"order.status_update","body":{"order":{"id":"gb:1","status":"accepted"}}}"#;

    #[test]
    fn a_signed_message_is_accepted_with_its_sequence_guid() {
        let signature = sign(SECRET, GUID, BODY);
        assert_eq!(
            verify_with(Some(GUID), Some(&signature), BODY),
            Ok(Verified {
                event_id: Some(GUID.into())
            })
        );
    }

    #[test]
    fn a_wrong_secret_is_rejected() {
        let signature = sign("other", GUID, BODY);
        assert_eq!(
            verify_with(Some(GUID), Some(&signature), BODY),
            Err(Rejection::unauthorized("signature does not match"))
        );
    }

    #[test]
    fn a_changed_body_or_guid_is_rejected() {
        let signature = sign(SECRET, GUID, BODY);
        assert_eq!(
            verify_with(Some(GUID), Some(&signature), br#"{"event":"order.new"}"#),
            Err(Rejection::unauthorized("signature does not match"))
        );
        assert_eq!(
            verify_with(Some("another-guid"), Some(&signature), BODY),
            Err(Rejection::unauthorized("signature does not match"))
        );
    }

    #[test]
    fn missing_headers_are_rejected() {
        let signature = sign(SECRET, GUID, BODY);
        assert_eq!(
            verify_with(None, Some(&signature), BODY),
            Err(Rejection::unauthorized(
                "no X-Deliveroo-Sequence-Guid header"
            ))
        );
        assert_eq!(
            verify_with(Some(GUID), None, BODY),
            Err(Rejection::unauthorized("no X-Deliveroo-Hmac-Sha256 header"))
        );
    }

    #[test]
    fn a_new_order_becomes_a_delivery_order() {
        let body = json!({
            "event": "order.new",
            "body": {"order": {
                "id": "gb:32498deb-d730-4dfb-b034-38f2d24f5bfd",
                "order_number": "28401753",
                "display_id": "1753",
                "status": "placed",
                "fulfillment_type": "restaurant",
                "order_notes": "No pickles please.",
                "total_price": {"fractional": 2480, "currency_code": "GBP"},
                "bag_fee": {"fractional": 10, "currency_code": "GBP"},
                "fee_breakdown": [{"type": "SERVICE_FEE", "amount": {"fractional": 0, "currency_code": "GBP"}}],
                "delivery": {"delivery_fee": {"fractional": 250, "currency_code": "GBP"}},
                "customer": {"first_name": "Sam", "contact_number": "+44 20 7946 0000"},
                "items": [
                    {"id": "d1a2", "pos_item_id": "BURG-1", "name": "Cheeseburger",
                     "quantity": 2, "unit_price": {"fractional": 895, "currency_code": "GBP"},
                     "modifiers": [{"name": "No tomato"}, {"name": "Extra cheese"}]},
                    {"pos_item_id": "FRIES", "name": "Fries", "quantity": 1,
                     "unit_price": {"fractional": 350, "currency_code": "GBP"}}
                ]
            }}
        });
        assert_eq!(
            Deliveroo.parse(IntegrationKind::Delivery, body.to_string().as_bytes()),
            Ok(vec![Instruction::DeliveryOrder(DeliveryOrder {
                external_id: "gb:32498deb-d730-4dfb-b034-38f2d24f5bfd".into(),
                display_id: Some("1753".into()),
                currency: "GBP".into(),
                customer_name: Some("Sam".into()),
                customer_phone: Some("+44 20 7946 0000".into()),
                notes: Some("No pickles please.".into()),
                items: vec![
                    DeliveryItem {
                        external_id: Some("d1a2".into()),
                        sku: Some("BURG-1".into()),
                        name: "Cheeseburger".into(),
                        quantity: 2,
                        unit_price: 895,
                        notes: Some("No tomato, Extra cheese".into()),
                    },
                    DeliveryItem {
                        external_id: None,
                        sku: Some("FRIES".into()),
                        name: "Fries".into(),
                        quantity: 1,
                        unit_price: 350,
                        notes: None,
                    },
                ],
                fees: vec![
                    DeliveryFee {
                        name: "Delivery fee".into(),
                        amount: 250
                    },
                    DeliveryFee {
                        name: "Bag fee".into(),
                        amount: 10
                    },
                ],
                status: Some(DeliveryStatus::Placed),
            })])
        );
    }

    #[test]
    fn status_updates_become_delivery_statuses() {
        for (theirs, ours) in [
            ("placed", DeliveryStatus::Placed),
            ("accepted", DeliveryStatus::Accepted),
            ("confirmed", DeliveryStatus::Accepted),
            ("rejected", DeliveryStatus::Cancelled),
            ("canceled", DeliveryStatus::Cancelled),
        ] {
            let body = json!({"event": "order.status_update",
                              "body": {"order": {"id": "gb:1", "status": theirs}}});
            assert_eq!(
                Deliveroo.parse(IntegrationKind::Delivery, body.to_string().as_bytes()),
                Ok(vec![Instruction::DeliveryStatus {
                    external_id: "gb:1".into(),
                    status: ours,
                }])
            );
        }
        let body = json!({"event": "order.status_update",
                          "body": {"order": {"id": "gb:1", "status": "ready"}}});
        assert_eq!(
            Deliveroo.parse(IntegrationKind::Delivery, body.to_string().as_bytes()),
            Ok(vec![Instruction::Ignore {
                reason: "Deliveroo status ready is not acted on".into()
            }])
        );
    }

    #[test]
    fn an_order_item_without_a_price_is_invalid() {
        let body = json!({"event": "order.new", "body": {"order": {
            "id": "gb:2", "total_price": {"fractional": 100, "currency_code": "GBP"},
            "items": [{"name": "Fries", "quantity": 1}]
        }}});
        assert_eq!(
            Deliveroo.parse(IntegrationKind::Delivery, body.to_string().as_bytes()),
            Err(Failure::Invalid(
                "order gb:2: an item has no unit_price.fractional".into()
            ))
        );
    }
}
