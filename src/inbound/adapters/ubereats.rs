//! `ubereats` (delivery). Uber signs each webhook as documented at
//! <https://developer.uber.com/docs/eats/guides/webhooks>: `X-Uber-Signature`
//! is the lowercase hex HMAC-SHA256 of the raw body, keyed with the app's
//! client secret. Notifications are thin (`event_type`, `meta.resource_id`,
//! `resource_href`), so the order itself is fetched from the Order API
//! (`GET /v2/eats/order/{order_id}`) with a token from Uber's OAuth client
//! credentials grant (scope `eats.order`).
//!
//! Options: `client_id` (required to fetch), `api_base_url` (default
//! `https://api.uber.com`) and `token_url` (default
//! `https://login.uber.com/oauth/v2/token`), settable so a stand-in can serve
//! them. The token only ever goes to `api_base_url`: a `resource_href`
//! elsewhere is not followed.
//!
//! `orders.notification` fetches and creates the order (items matched
//! through the menu map by `external_data`, then by id; prices from
//! `price.unit_price.amount`, in minor units of `currency_code`);
//! `orders.cancel` cancels it; other events change nothing.

use std::time::Duration;

use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use super::{Adapter, Credentials, Failure, Received, Rejection, Verified};
use crate::domain::partners::model::{
    DeliveryItem, DeliveryOrder, DeliveryStatus, Instruction, IntegrationKind,
};

const API_BASE_URL: &str = "https://api.uber.com";
const TOKEN_URL: &str = "https://login.uber.com/oauth/v2/token";

pub struct UberEats;

fn text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_string)
}

fn option<'a>(options: &'a Value, name: &str, default: &'a str) -> &'a str {
    options[name]
        .as_str()
        .unwrap_or(default)
        .trim_end_matches('/')
}

/// What one HTTP exchange came to: a retry for network trouble and 5xx or 429,
/// invalid for any other refusal.
fn answer(
    response: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    what: &str,
) -> Result<Value, Failure> {
    let mut response = response.map_err(|e| Failure::Retry(format!("{what}: {e}")))?;
    let status = response.status().as_u16();
    if status >= 500 || status == 429 {
        return Err(Failure::Retry(format!("{what} answered {status}")));
    }
    if status >= 400 {
        return Err(Failure::Invalid(format!("{what} answered {status}")));
    }
    let text = response
        .body_mut()
        .read_to_string()
        .map_err(|e| Failure::Retry(format!("{what}: {e}")))?;
    serde_json::from_str(&text)
        .map_err(|e| Failure::Invalid(format!("{what} did not answer JSON: {e}")))
}

fn status_of(state: &str) -> Option<DeliveryStatus> {
    Some(match state {
        "CREATED" | "OFFERED" => DeliveryStatus::Placed,
        "ACCEPTED" => DeliveryStatus::Accepted,
        "FINISHED" => DeliveryStatus::PickedUp,
        "DENIED" | "CANCELED" | "CANCELLED" => DeliveryStatus::Cancelled,
        _ => return None,
    })
}

/// The Order API's order as Brigade's.
fn order_of(order: &Value) -> Result<DeliveryOrder, Failure> {
    let mut currency = None;
    let mut items = Vec::new();
    for (i, item) in order["cart"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let price = &item["price"]["unit_price"];
        currency = currency.or_else(|| text(&price["currency_code"]));
        items.push(DeliveryItem {
            external_id: text(&item["id"]),
            sku: text(&item["external_data"]),
            name: text(&item["title"])
                .ok_or_else(|| Failure::Invalid(format!("cart.items[{i}] has no title")))?,
            quantity: item["quantity"]
                .as_i64()
                .ok_or_else(|| Failure::Invalid(format!("cart.items[{i}] has no quantity")))?,
            unit_price: price["amount"].as_i64().ok_or_else(|| {
                Failure::Invalid(format!("cart.items[{i}] has no price.unit_price.amount"))
            })?,
            notes: text(&item["special_instructions"]),
        });
    }
    let eater = &order["eater"];
    let name = [text(&eater["first_name"]), text(&eater["last_name"])]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    Ok(DeliveryOrder {
        external_id: text(&order["id"])
            .ok_or_else(|| Failure::Invalid("the order has no id".into()))?,
        display_id: text(&order["display_id"]),
        currency: currency
            .ok_or_else(|| Failure::Invalid("the order names no currency".into()))?
            .to_ascii_uppercase(),
        customer_name: (!name.is_empty()).then_some(name),
        customer_phone: text(&eater["phone"]),
        notes: text(&order["cart"]["special_instructions"]),
        items,
        fees: Vec::new(),
        status: order["current_state"].as_str().and_then(status_of),
    })
}

impl Adapter for UberEats {
    fn name(&self) -> &'static str {
        "ubereats"
    }

    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Delivery]
    }

    fn check_options(&self, options: &Value) -> Result<(), String> {
        let object = options.as_object().ok_or("options must be an object")?;
        for (name, value) in object {
            let url = match name.as_str() {
                "client_id" => false,
                "api_base_url" | "token_url" => true,
                _ => {
                    return Err(format!(
                    "unknown option {name}; ubereats takes client_id, api_base_url and token_url"
                ))
                }
            };
            let text = value.as_str().ok_or(format!("{name} must be text"))?;
            if url && !(text.starts_with("https://") || text.starts_with("http://")) {
                return Err(format!("{name} must be an http or https URL"));
            }
        }
        Ok(())
    }

    fn verify(
        &self,
        received: &Received,
        credentials: &Credentials,
    ) -> Result<Verified, Rejection> {
        let signature = received
            .header("x-uber-signature")
            .and_then(|h| hex::decode(h.trim()).ok())
            .ok_or_else(|| Rejection::unauthorized("no hex X-Uber-Signature header"))?;
        let mut mac = Hmac::<Sha256>::new_from_slice(credentials.secret.as_bytes())
            .expect("HMAC takes any key");
        mac.update(received.body);
        mac.verify_slice(&signature)
            .map_err(|_| Rejection::unauthorized("X-Uber-Signature does not match"))?;
        super::verified_json(received.body, "event_id")
    }

    fn parse(&self, _: IntegrationKind, body: &[u8]) -> Result<Vec<Instruction>, Failure> {
        let event: Value = serde_json::from_slice(body)
            .map_err(|e| Failure::Invalid(format!("not an Uber Eats event: {e}")))?;
        let kind = event["event_type"].as_str().unwrap_or_default();
        let order_id = || {
            text(&event["meta"]["resource_id"]).ok_or_else(|| {
                Failure::Invalid(format!("the {kind} event has no meta.resource_id"))
            })
        };
        Ok(vec![match kind {
            "orders.notification" => Instruction::FetchOrder {
                external_id: order_id()?,
                href: text(&event["resource_href"]),
            },
            "orders.cancel" | "orders.failure" => Instruction::DeliveryStatus {
                external_id: order_id()?,
                status: DeliveryStatus::Cancelled,
            },
            other => Instruction::Ignore {
                reason: format!("Brigade does not act on {other:?}"),
            },
        }])
    }

    fn fetch(
        &self,
        http: &ureq::Agent,
        credentials: &Credentials,
        external_id: &str,
        href: Option<&str>,
    ) -> Result<Vec<Instruction>, Failure> {
        let client_id = credentials.options["client_id"]
            .as_str()
            .ok_or_else(|| Failure::Invalid("set the client_id option to fetch orders".into()))?;
        let api = option(credentials.options, "api_base_url", API_BASE_URL);
        let token_url = option(credentials.options, "token_url", TOKEN_URL);
        let token = answer(
            http.post(token_url).send_form([
                ("client_id", client_id),
                ("client_secret", credentials.secret),
                ("grant_type", "client_credentials"),
                ("scope", "eats.order"),
            ]),
            "the token endpoint",
        )?;
        let token = token["access_token"]
            .as_str()
            .ok_or_else(|| Failure::Invalid("the token endpoint gave no access_token".into()))?;
        let url = match href {
            Some(href) if href.starts_with(&format!("{api}/")) => href.to_string(),
            _ => format!("{api}/v2/eats/order/{external_id}"),
        };
        let order = answer(
            http.get(&url)
                .header("Authorization", &format!("Bearer {token}"))
                .config()
                .timeout_global(Some(Duration::from_secs(10)))
                .build()
                .call(),
            "the Order API",
        )?;
        Ok(vec![Instruction::DeliveryOrder(order_of(&order)?)])
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use serde_json::json;

    use super::*;

    const NONE: Value = Value::Null;

    fn signed(secret: &str, body: &str) -> Vec<(String, String)> {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(body.as_bytes());
        vec![(
            "x-uber-signature".into(),
            hex::encode(mac.finalize().into_bytes()),
        )]
    }

    fn received<'a>(headers: &'a [(String, String)], body: &'a [u8]) -> Received<'a> {
        Received {
            url: "https://box.example/webhook/delivery/bistro/ubereats",
            headers,
            body,
            now: Utc::now(),
        }
    }

    #[test]
    fn a_notification_signed_with_the_client_secret_verifies_and_asks_for_a_fetch() {
        let body = json!({"event_id": "c5f7-evt", "event_type": "orders.notification", "event_time": 1700000000,
            "meta": {"resource_id": "153dd7f1", "status": "pos", "user_id": "u"},
            "resource_href": "https://api.uber.com/v2/eats/order/153dd7f1"})
        .to_string();
        let headers = signed("client-secret", &body);
        let credentials = Credentials {
            secret: "client-secret",
            options: &NONE,
        };
        assert_eq!(
            UberEats.verify(&received(&headers, body.as_bytes()), &credentials),
            Ok(Verified {
                event_id: Some("c5f7-evt".into())
            })
        );
        let wrong = Credentials {
            secret: "other",
            options: &NONE,
        };
        assert!(UberEats
            .verify(&received(&headers, body.as_bytes()), &wrong)
            .is_err());
        let changed = body.replace("153dd7f1", "153dd7f2");
        assert!(UberEats
            .verify(&received(&headers, changed.as_bytes()), &credentials)
            .is_err());
        assert!(UberEats
            .verify(&received(&[], body.as_bytes()), &credentials)
            .is_err());
        assert_eq!(
            UberEats.parse(IntegrationKind::Delivery, body.as_bytes()),
            Ok(vec![Instruction::FetchOrder {
                external_id: "153dd7f1".into(),
                href: Some("https://api.uber.com/v2/eats/order/153dd7f1".into()),
            }])
        );
        let cancel =
            json!({"event_type": "orders.cancel", "meta": {"resource_id": "153dd7f1"}}).to_string();
        assert_eq!(
            UberEats.parse(IntegrationKind::Delivery, cancel.as_bytes()),
            Ok(vec![Instruction::DeliveryStatus {
                external_id: "153dd7f1".into(),
                status: DeliveryStatus::Cancelled
            }])
        );
    }

    #[test]
    fn an_order_api_answer_becomes_a_delivery_order() {
        let order = json!({"id": "153dd7f1", "display_id": "DD7F1", "current_state": "ACCEPTED",
            "eater": {"first_name": "Ada", "last_name": "L.", "phone": "+1 555 0101"},
            "cart": {"special_instructions": "extra napkins", "items": [
                {"id": "item-1", "external_data": "SKU-B", "title": "Burger", "quantity": 2,
                 "price": {"unit_price": {"amount": 1099, "currency_code": "USD"}}}]}});
        let parsed = order_of(&order).unwrap();
        assert_eq!(parsed.external_id, "153dd7f1");
        assert_eq!(parsed.display_id.as_deref(), Some("DD7F1"));
        assert_eq!(parsed.customer_name.as_deref(), Some("Ada L."));
        assert_eq!(parsed.status, Some(DeliveryStatus::Accepted));
        assert_eq!(parsed.items[0].unit_price, 1099);
        assert_eq!(parsed.items[0].sku.as_deref(), Some("SKU-B"));
        assert!(UberEats
            .check_options(&json!({"client_id": "x", "api_base_url": "ftp://x"}))
            .is_err());
        assert!(UberEats.check_options(&json!({"colour": "x"})).is_err());
    }
}
