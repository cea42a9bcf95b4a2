//! Uber Eats, the delivery marketplace, on the delivery route.
//!
//! Verification follows the "Webhook Security" section of
//! <https://developer.uber.com/docs/eats/references/api/webhooks.orders-notification>:
//! `X-Uber-Signature` is the lower-case hex HMAC-SHA256 of the raw body, keyed
//! with the app's client secret.
//!
//! Notifications are thin (`event_id`, `event_type`, `meta.resource_id`,
//! `resource_href`): a new order is fetched with
//! `GET {api_base_url}/v2/eats/order/{order_id}`
//! (<https://developer.uber.com/docs/eats/references/api/v2/get-eats-order-orderid>)
//! under a client-credentials token with the `eats.order` scope, which that page
//! names. In that
//! answer, `cart.items[].price.unit_price` is `{amount, currency_code,
//! formatted_amount}` and the documented example gives `amount: 350` for
//! `"$3.50"`: amounts are minor units already.

use serde_json::Value;

use super::{
    any_matches, hmac_of, json_event_id, Adapter, Credentials, Encoding, Failure, Received,
    Rejection, Verified,
};
use crate::domain::partners::model::{
    DeliveryItem, DeliveryOrder, DeliveryStatus, Instruction, IntegrationKind,
};

const DEFAULT_API_BASE_URL: &str = "https://api.uber.com";
const DEFAULT_TOKEN_URL: &str = "https://login.uber.com/oauth/v2/token";

pub struct UberEats;

impl Adapter for UberEats {
    fn name(&self) -> &'static str {
        "ubereats"
    }

    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Delivery]
    }

    fn check_options(&self, options: &Value) -> Result<(), String> {
        match options["client_id"].as_str() {
            Some(id) if !id.trim().is_empty() => {}
            _ => return Err("client_id is the app's client id, as text".into()),
        }
        for name in ["api_base_url", "token_url"] {
            match &options[name] {
                Value::Null => {}
                Value::String(url) if url.starts_with("https://") || url.starts_with("http://") => {
                }
                _ => return Err(format!("{name} is an http(s) URL")),
            }
        }
        Ok(())
    }

    fn check_secret(&self, secret: &str) -> Result<(), String> {
        if secret.trim().is_empty() {
            Err("paste the app's client secret".into())
        } else {
            Ok(())
        }
    }

    fn verify(
        &self,
        received: &Received,
        credentials: &Credentials,
    ) -> Result<Verified, Rejection> {
        let signature = Encoding::Hex.decode(received.required("X-Uber-Signature")?)?;
        any_matches(
            &hmac_of(credentials.secret.as_bytes(), &[received.body]),
            [signature],
        )?;
        json_event_id(received.body, "event_id")
    }

    fn parse(&self, _kind: IntegrationKind, body: &[u8]) -> Result<Vec<Instruction>, Failure> {
        let event: Value = serde_json::from_slice(body)
            .map_err(|e| Failure::Invalid(format!("the body is not JSON: {e}")))?;
        let event_type = event["event_type"]
            .as_str()
            .ok_or_else(|| Failure::Invalid("the notification has no event_type".into()))?;
        let order_id = || {
            event["meta"]["resource_id"]
                .as_str()
                .filter(|id| !id.is_empty())
                .map(str::to_owned)
                .ok_or_else(|| Failure::Invalid(format!("{event_type} has no meta.resource_id")))
        };
        Ok(vec![match event_type {
            "orders.notification" => Instruction::FetchOrder {
                external_id: order_id()?,
                href: event["resource_href"].as_str().map(str::to_owned),
            },
            "orders.cancel" | "orders.failure" => Instruction::DeliveryStatus {
                external_id: order_id()?,
                status: DeliveryStatus::Cancelled,
            },
            other => Instruction::Ignore {
                reason: format!("Uber Eats event {other} is not acted on"),
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
        let options = credentials.options;
        let client_id = options["client_id"]
            .as_str()
            .ok_or_else(|| Failure::Invalid("the integration has no client_id option".into()))?;
        let api_base_url = options["api_base_url"]
            .as_str()
            .unwrap_or(DEFAULT_API_BASE_URL)
            .trim_end_matches('/');
        let token_url = options["token_url"].as_str().unwrap_or(DEFAULT_TOKEN_URL);

        let token = answer(
            "token request",
            http.post(token_url).send_form([
                ("client_id", client_id),
                ("client_secret", credentials.secret),
                ("grant_type", "client_credentials"),
                ("scope", "eats.order"),
            ]),
        )?;
        let token = token["access_token"]
            .as_str()
            .ok_or_else(|| Failure::Invalid("the token answer has no access_token".into()))?;

        // The bearer token only goes to the configured API: an href naming any
        // other host is not followed.
        let url = href
            .filter(|h| h.starts_with(&format!("{api_base_url}/")))
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{api_base_url}/v2/eats/order/{external_id}"));
        let order = answer(
            "order request",
            http.get(&url)
                .header("Authorization", format!("Bearer {token}"))
                .call(),
        )?;
        Ok(vec![Instruction::DeliveryOrder(delivery_order(&order)?)])
    }
}

/// The JSON of a successful answer; a 4xx will not get better by waiting, a 5xx
/// or an unreachable server may.
fn answer(
    what: &str,
    result: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
) -> Result<Value, Failure> {
    let mut response = match result {
        Ok(response) => response,
        Err(ureq::Error::StatusCode(status)) => return Err(status_failure(what, status)),
        Err(error) => return Err(Failure::Retry(format!("{what} failed: {error}"))),
    };
    let status = response.status().as_u16();
    if !(200..300).contains(&status) {
        return Err(status_failure(what, status));
    }
    let text = response
        .body_mut()
        .read_to_string()
        .map_err(|e| Failure::Retry(format!("{what}: unreadable answer: {e}")))?;
    serde_json::from_str(&text)
        .map_err(|e| Failure::Invalid(format!("{what}: the answer is not JSON: {e}")))
}

fn status_failure(what: &str, status: u16) -> Failure {
    let reason = format!("{what} answered {status}");
    if (400..500).contains(&status) {
        Failure::Invalid(reason)
    } else {
        Failure::Retry(reason)
    }
}

fn delivery_order(order: &Value) -> Result<DeliveryOrder, Failure> {
    let text = |v: &Value| v.as_str().filter(|s| !s.is_empty()).map(str::to_owned);
    let external_id =
        text(&order["id"]).ok_or_else(|| Failure::Invalid("the order has no id".into()))?;
    let items = order["cart"]["items"]
        .as_array()
        .ok_or_else(|| Failure::Invalid(format!("order {external_id} has no cart.items")))?;
    // The documented answer carries the currency on each price; an order-level
    // currency_code is taken when the cart has no priced item.
    let currency = items
        .iter()
        .find_map(|item| text(&item["price"]["unit_price"]["currency_code"]))
        .or_else(|| text(&order["currency_code"]))
        .ok_or_else(|| Failure::Invalid(format!("order {external_id} has no currency")))?;
    let items = items
        .iter()
        .map(|item| {
            Ok(DeliveryItem {
                external_id: text(&item["id"]),
                sku: text(&item["external_data"]),
                name: text(&item["title"]).ok_or_else(|| {
                    Failure::Invalid(format!("order {external_id}: an item has no title"))
                })?,
                quantity: item["quantity"].as_i64().ok_or_else(|| {
                    Failure::Invalid(format!("order {external_id}: an item has no quantity"))
                })?,
                unit_price: item["price"]["unit_price"]["amount"]
                    .as_i64()
                    .ok_or_else(|| {
                        Failure::Invalid(format!(
                            "order {external_id}: an item has no price.unit_price.amount"
                        ))
                    })?,
                notes: text(&item["special_instructions"]),
            })
        })
        .collect::<Result<Vec<_>, Failure>>()?;
    let eater = &order["eater"];
    let name = [text(&eater["first_name"]), text(&eater["last_name"])]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    Ok(DeliveryOrder {
        display_id: text(&order["display_id"]),
        currency: currency.to_uppercase(),
        customer_name: (!name.is_empty()).then_some(name),
        customer_phone: text(&eater["phone"]),
        notes: text(&order["cart"]["special_instructions"]),
        items,
        // Uber settles its own delivery and service fees with the eater; the
        // restaurant's lines are the cart.
        fees: Vec::new(),
        status: order["current_state"].as_str().and_then(status),
        external_id,
    })
}

fn status(state: &str) -> Option<DeliveryStatus> {
    match state {
        "CREATED" => Some(DeliveryStatus::Placed),
        "ACCEPTED" => Some(DeliveryStatus::Accepted),
        "DENIED" | "CANCELED" => Some(DeliveryStatus::Cancelled),
        "FINISHED" => Some(DeliveryStatus::PickedUp),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use hmac::{Hmac, Mac};
    use serde_json::json;
    use sha2::Sha256;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::{Arc, Mutex};
    use std::thread;

    const SECRET: &str = "uber-client-secret";

    fn sign(secret: &str, body: &[u8]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(body);
        hex::encode(mac.finalize().into_bytes())
    }

    fn verify_with(
        signature: Option<&str>,
        body: &[u8],
        secret: &str,
    ) -> Result<Verified, Rejection> {
        let headers: Vec<(String, String)> = signature
            .map(|s| vec![("x-uber-signature".to_string(), s.to_string())])
            .unwrap_or_default();
        let received = Received {
            url: "https://brigade.example/webhook/delivery/bistro/ubereats",
            headers: &headers,
            body,
            now: Utc::now(),
        };
        UberEats.verify(
            &received,
            &Credentials {
                secret,
                options: &json!({"client_id": "app"}),
            },
        )
    }

    fn notification(event_type: &str) -> Vec<u8> {
        json!({
            "event_id": "c4d2261e-2779-4eb6-beb0-cb41235c751e",
            "event_time": 1_763_980_000,
            "event_type": event_type,
            "meta": {"resource_id": "153dd7f1-339d-4619-940c-418943c14636",
                     "status": "pos", "user_id": "89dd9741-66b5-4bb4-b216-a813f3b21b4f"},
            "resource_href": "https://api.uber.com/v2/eats/order/153dd7f1-339d-4619-940c-418943c14636"
        })
        .to_string()
        .into_bytes()
    }

    #[test]
    fn a_signed_notification_is_accepted_with_its_event_id() {
        let body = notification("orders.notification");
        assert_eq!(
            verify_with(Some(&sign(SECRET, &body)), &body, SECRET),
            Ok(Verified {
                event_id: Some("c4d2261e-2779-4eb6-beb0-cb41235c751e".into())
            })
        );
    }

    #[test]
    fn a_wrong_secret_is_rejected() {
        let body = notification("orders.notification");
        assert_eq!(
            verify_with(Some(&sign("other", &body)), &body, SECRET),
            Err(Rejection::unauthorized("signature does not match"))
        );
    }

    #[test]
    fn a_changed_body_is_rejected() {
        let body = notification("orders.notification");
        let changed = notification("orders.cancel");
        assert_eq!(
            verify_with(Some(&sign(SECRET, &body)), &changed, SECRET),
            Err(Rejection::unauthorized("signature does not match"))
        );
    }

    #[test]
    fn a_missing_header_is_rejected() {
        let body = notification("orders.notification");
        assert_eq!(
            verify_with(None, &body, SECRET),
            Err(Rejection::unauthorized("no X-Uber-Signature header"))
        );
    }

    #[test]
    fn options_need_a_client_id() {
        assert!(UberEats.check_options(&json!({"client_id": "app"})).is_ok());
        assert!(UberEats.check_options(&json!({})).is_err());
        assert!(UberEats
            .check_options(&json!({"client_id": "app", "api_base_url": "ftp://x"}))
            .is_err());
    }

    #[test]
    fn notifications_become_fetches_cancellations_or_nothing() {
        let id = "153dd7f1-339d-4619-940c-418943c14636".to_string();
        assert_eq!(
            UberEats.parse(
                IntegrationKind::Delivery,
                &notification("orders.notification")
            ),
            Ok(vec![Instruction::FetchOrder {
                external_id: id.clone(),
                href: Some(format!("https://api.uber.com/v2/eats/order/{id}")),
            }])
        );
        for event_type in ["orders.cancel", "orders.failure"] {
            assert_eq!(
                UberEats.parse(IntegrationKind::Delivery, &notification(event_type)),
                Ok(vec![Instruction::DeliveryStatus {
                    external_id: id.clone(),
                    status: DeliveryStatus::Cancelled,
                }])
            );
        }
        assert_eq!(
            UberEats.parse(
                IntegrationKind::Delivery,
                &notification("store.provisioned")
            ),
            Ok(vec![Instruction::Ignore {
                reason: "Uber Eats event store.provisioned is not acted on".into()
            }])
        );
    }

    /// A stand-in for Uber's token and order endpoints on 127.0.0.1: each
    /// connection gets one answer, by path; every request line and body is kept.
    struct StandIn {
        base: String,
        seen: Arc<Mutex<Vec<String>>>,
    }

    impl StandIn {
        fn start(order_status: u16) -> StandIn {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            let seen = Arc::new(Mutex::new(Vec::new()));
            let log = Arc::clone(&seen);
            thread::spawn(move || {
                for stream in listener.incoming() {
                    let Ok(stream) = stream else { break };
                    answer_one(stream, order_status, &log);
                }
            });
            StandIn { base, seen }
        }

        fn options(&self) -> Value {
            json!({
                "client_id": "app-id",
                "api_base_url": self.base,
                "token_url": format!("{}/oauth/v2/token", self.base),
            })
        }
    }

    fn answer_one(stream: TcpStream, order_status: u16, log: &Mutex<Vec<String>>) {
        let mut reader = BufReader::new(stream);
        let mut request_line = String::new();
        reader.read_line(&mut request_line).unwrap();
        let mut length = 0;
        let mut authorization = String::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line.trim().is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').unwrap();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap(),
                "authorization" => authorization = value.trim().to_string(),
                _ => {}
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let path = request_line
            .split(' ')
            .nth(1)
            .unwrap_or_default()
            .to_string();
        log.lock().unwrap().push(format!(
            "{} {} {}",
            request_line.trim(),
            authorization,
            String::from_utf8_lossy(&body)
        ));
        let (status, answer) = if path == "/oauth/v2/token" {
            (
                200,
                json!({"access_token": "tok-1", "token_type": "Bearer", "expires_in": 2_592_000}),
            )
        } else if path.starts_with("/v2/eats/order/") && authorization == "Bearer tok-1" {
            (order_status, order_json())
        } else {
            (401, json!({"code": "unauthorized"}))
        };
        let answer = answer.to_string();
        let mut stream = reader.into_inner();
        write!(
            stream,
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
            answer.len()
        )
        .unwrap();
    }

    /// Shaped like the documented answer of GET /v2/eats/order/{order_id}.
    fn order_json() -> Value {
        json!({
            "id": "153dd7f1-339d-4619-940c-418943c14636",
            "display_id": "C4636",
            "current_state": "ACCEPTED",
            "eater": {"first_name": "Larry", "last_name": "B.", "phone": "+1 555-555-5555"},
            "cart": {
                "special_instructions": "Ring twice",
                "items": [
                    {"id": "Muffin", "instance_id": "Muffin-1", "title": "Fresh-baked muffin",
                     "external_data": "SKU-MUF", "quantity": 2,
                     "price": {"unit_price": {"amount": 350, "currency_code": "USD",
                                              "formatted_amount": "$3.50"},
                               "total_price": {"amount": 700, "currency_code": "USD",
                                               "formatted_amount": "$7.00"}},
                     "special_instructions": "Warm it"},
                    {"id": "Coffee", "title": "Drip coffee", "quantity": 1,
                     "price": {"unit_price": {"amount": 200, "currency_code": "USD",
                                              "formatted_amount": "$2.00"}}}
                ]
            }
        })
    }

    fn fetched_order() -> DeliveryOrder {
        DeliveryOrder {
            external_id: "153dd7f1-339d-4619-940c-418943c14636".into(),
            display_id: Some("C4636".into()),
            currency: "USD".into(),
            customer_name: Some("Larry B.".into()),
            customer_phone: Some("+1 555-555-5555".into()),
            notes: Some("Ring twice".into()),
            items: vec![
                DeliveryItem {
                    external_id: Some("Muffin".into()),
                    sku: Some("SKU-MUF".into()),
                    name: "Fresh-baked muffin".into(),
                    quantity: 2,
                    unit_price: 350,
                    notes: Some("Warm it".into()),
                },
                DeliveryItem {
                    external_id: Some("Coffee".into()),
                    sku: None,
                    name: "Drip coffee".into(),
                    quantity: 1,
                    unit_price: 200,
                    notes: None,
                },
            ],
            fees: Vec::new(),
            status: Some(DeliveryStatus::Accepted),
        }
    }

    fn fetch_from(
        stand_in: &StandIn,
        agent: &ureq::Agent,
        href: Option<&str>,
    ) -> Result<Vec<Instruction>, Failure> {
        let options = stand_in.options();
        UberEats.fetch(
            agent,
            &Credentials {
                secret: SECRET,
                options: &options,
            },
            "153dd7f1-339d-4619-940c-418943c14636",
            href,
        )
    }

    #[test]
    fn fetch_takes_a_token_then_the_order() {
        let stand_in = StandIn::start(200);
        let agent = ureq::Agent::new_with_defaults();
        assert_eq!(
            fetch_from(&stand_in, &agent, None),
            Ok(vec![Instruction::DeliveryOrder(fetched_order())])
        );
        let seen = stand_in.seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 2);
        assert!(seen[0].starts_with("POST /oauth/v2/token HTTP/1.1"));
        for field in [
            "client_id=app-id",
            "client_secret=uber-client-secret",
            "grant_type=client_credentials",
            "scope=eats.order",
        ] {
            assert!(seen[0].contains(field), "{field} in {}", seen[0]);
        }
        assert!(seen[1].starts_with(
            "GET /v2/eats/order/153dd7f1-339d-4619-940c-418943c14636 HTTP/1.1 Bearer tok-1"
        ));
    }

    #[test]
    fn fetch_never_follows_an_href_to_another_host() {
        let stand_in = StandIn::start(200);
        let agent = ureq::Agent::new_with_defaults();
        let href = format!("{}.evil.example/v2/eats/order/x", stand_in.base);
        assert!(fetch_from(&stand_in, &agent, Some(&href)).is_ok());
        let seen = stand_in.seen.lock().unwrap().clone();
        assert!(seen[1].starts_with("GET /v2/eats/order/153dd7f1-339d-4619-940c-418943c14636 "));
    }

    #[test]
    fn fetch_follows_an_href_on_the_api() {
        let stand_in = StandIn::start(200);
        let agent = ureq::Agent::new_with_defaults();
        let href = format!("{}/v2/eats/order/other-id", stand_in.base);
        assert!(fetch_from(&stand_in, &agent, Some(&href)).is_ok());
        let seen = stand_in.seen.lock().unwrap().clone();
        assert!(seen[1].starts_with("GET /v2/eats/order/other-id "));
    }

    #[test]
    fn a_server_error_is_retried_and_a_client_error_is_not() {
        // Both ways an agent may be set up: statuses as errors or as answers.
        let agents = [
            ureq::Agent::new_with_defaults(),
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .build()
                .into(),
        ];
        for agent in &agents {
            assert_eq!(
                fetch_from(&StandIn::start(503), agent, None),
                Err(Failure::Retry("order request answered 503".into()))
            );
            assert_eq!(
                fetch_from(&StandIn::start(404), agent, None),
                Err(Failure::Invalid("order request answered 404".into()))
            );
        }
    }

    #[test]
    fn an_unreachable_api_is_retried() {
        let port = {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let options =
            json!({"client_id": "app", "token_url": format!("http://127.0.0.1:{port}/t")});
        let result = UberEats.fetch(
            &ureq::Agent::new_with_defaults(),
            &Credentials {
                secret: SECRET,
                options: &options,
            },
            "x",
            None,
        );
        assert!(matches!(result, Err(Failure::Retry(_))), "{result:?}");
    }

    #[test]
    fn order_states_map_to_delivery_statuses() {
        assert_eq!(status("CREATED"), Some(DeliveryStatus::Placed));
        assert_eq!(status("ACCEPTED"), Some(DeliveryStatus::Accepted));
        assert_eq!(status("DENIED"), Some(DeliveryStatus::Cancelled));
        assert_eq!(status("CANCELED"), Some(DeliveryStatus::Cancelled));
        assert_eq!(status("FINISHED"), Some(DeliveryStatus::PickedUp));
        assert_eq!(status("SCHEDULED"), None);
    }
}
