//! `adyen` (payments). Adyen's standard notifications carry an HMAC signature
//! per notification item, as documented at
//! <https://docs.adyen.com/development-resources/webhooks/verify-hmac-signatures/>:
//! base64 HMAC-SHA256, keyed with the hex-decoded HMAC key, of
//! `pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success`
//! (absent fields empty), found in the item's `additionalData.hmacSignature`.
//! Every item must verify. When the options hold a `username` and `password`,
//! the request's Basic authentication must match them too. Adyen expects the
//! answer `[accepted]`.
//!
//! `AUTHORISATION` with success `true` records a card payment on the order
//! named by `merchantReference` (Brigade's order id); `REFUND` with success
//! `true` records a refund on it. Other event codes change nothing.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

use super::{Acknowledgement, Adapter, Credentials, Failure, Received, Rejection, Verified};
use crate::domain::partners::model::{Instruction, IntegrationKind};

pub struct Adyen;

/// The notification's items.
fn items(body: &[u8]) -> Result<Vec<Value>, String> {
    let notification: Value =
        serde_json::from_slice(body).map_err(|_| "the body is not JSON".to_string())?;
    let items: Vec<Value> = notification["notificationItems"]
        .as_array()
        .ok_or("the notification has no notificationItems")?
        .iter()
        .map(|i| i["NotificationRequestItem"].clone())
        .collect();
    if items.is_empty() || items.iter().any(Value::is_null) {
        return Err("a notification item is missing".into());
    }
    Ok(items)
}

/// A field as Adyen signs it: text as it is, numbers in decimal, absent empty.
fn signed_field(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn signing_string(item: &Value) -> String {
    [
        &item["pspReference"],
        &item["originalReference"],
        &item["merchantAccountCode"],
        &item["merchantReference"],
        &item["amount"]["value"],
        &item["amount"]["currency"],
        &item["eventCode"],
        &item["success"],
    ]
    .map(signed_field)
    .join(":")
}

impl Adapter for Adyen {
    fn name(&self) -> &'static str {
        "adyen"
    }

    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Payment]
    }

    fn check_secret(&self, secret: &str) -> Result<(), String> {
        hex::decode(secret)
            .map(|_| ())
            .map_err(|_| "an Adyen HMAC key is hexadecimal".into())
    }

    fn check_options(&self, options: &Value) -> Result<(), String> {
        let object = options.as_object().ok_or("options must be an object")?;
        for (name, value) in object {
            if !matches!(name.as_str(), "username" | "password") {
                return Err(format!(
                    "unknown option {name}; adyen takes username and password"
                ));
            }
            if !value.is_string() {
                return Err(format!("{name} must be text"));
            }
        }
        if object.contains_key("username") != object.contains_key("password") {
            return Err("give both username and password, or neither".into());
        }
        Ok(())
    }

    fn verify(
        &self,
        received: &Received,
        credentials: &Credentials,
    ) -> Result<Verified, Rejection> {
        if let (Some(user), Some(password)) = (
            credentials.options["username"].as_str(),
            credentials.options["password"].as_str(),
        ) {
            let expected = format!("Basic {}", STANDARD.encode(format!("{user}:{password}")));
            let sent = received.header("authorization").unwrap_or_default();
            let mut mac =
                Hmac::<Sha256>::new_from_slice(b"basic-auth").expect("HMAC takes any key");
            mac.update(sent.as_bytes());
            let mut want =
                Hmac::<Sha256>::new_from_slice(b"basic-auth").expect("HMAC takes any key");
            want.update(expected.as_bytes());
            // Compared as MACs so the comparison takes the same time wherever they differ.
            mac.verify_slice(&want.finalize().into_bytes())
                .map_err(|_| Rejection::unauthorized("Basic authentication does not match"))?;
        }
        let key = hex::decode(credentials.secret)
            .map_err(|_| Rejection::unauthorized("the HMAC key is not hexadecimal"))?;
        let items = items(received.body).map_err(Rejection::bad_request)?;
        for item in &items {
            let signature = item["additionalData"]["hmacSignature"]
                .as_str()
                .and_then(|s| STANDARD.decode(s).ok())
                .ok_or_else(|| Rejection::unauthorized("an item has no hmacSignature"))?;
            let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes any key");
            mac.update(signing_string(item).as_bytes());
            mac.verify_slice(&signature)
                .map_err(|_| Rejection::unauthorized("an item's hmacSignature does not match"))?;
        }
        let ids: Vec<String> = items
            .iter()
            .map(|i| {
                format!(
                    "{}:{}",
                    signed_field(&i["pspReference"]),
                    signed_field(&i["eventCode"])
                )
            })
            .collect();
        Ok(Verified {
            event_id: Some(ids.join(",")),
        })
    }

    fn parse(&self, _: IntegrationKind, body: &[u8]) -> Result<Vec<Instruction>, Failure> {
        let items = items(body).map_err(Failure::Invalid)?;
        items
            .iter()
            .map(|item| {
                let code = signed_field(&item["eventCode"]);
                let succeeded = signed_field(&item["success"]) == "true";
                let order_id = signed_field(&item["merchantReference"]);
                let reference = signed_field(&item["pspReference"]);
                let amount = item["amount"]["value"].as_i64();
                let currency = signed_field(&item["amount"]["currency"]).to_ascii_uppercase();
                match (code.as_str(), succeeded, amount) {
                    (_, false, _) => Ok(Instruction::Ignore {
                        reason: format!("{code} {reference} did not succeed"),
                    }),
                    ("AUTHORISATION", true, Some(amount)) => Ok(Instruction::Payment {
                        order_id,
                        amount,
                        currency,
                        reference,
                    }),
                    ("REFUND", true, Some(amount)) => Ok(Instruction::Refund {
                        order_id,
                        amount,
                        currency,
                        reference,
                    }),
                    ("AUTHORISATION" | "REFUND", true, None) => Err(Failure::Invalid(format!(
                        "{code} {reference} has no amount.value"
                    ))),
                    _ => Ok(Instruction::Ignore {
                        reason: format!("Brigade does not act on {code}"),
                    }),
                }
            })
            .collect()
    }

    fn acknowledgement(&self) -> Acknowledgement {
        Acknowledgement::AdyenAccepted
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use serde_json::json;

    use super::*;

    /// Signed and checked with Adyen's own library: see `make_vector.py` beside it.
    const VECTOR: &str = include_str!("../../../tests/fixtures/adyen/authorisation.json");

    fn received<'a>(headers: &'a [(String, String)], body: &'a [u8]) -> Received<'a> {
        Received {
            url: "https://box.example/webhook/payment/bistro/adyen",
            headers,
            body,
            now: Utc::now(),
        }
    }

    #[test]
    fn a_notification_signed_by_adyens_library_verifies_and_pays_its_order() {
        let vector: Value = serde_json::from_str(VECTOR).unwrap();
        let key = vector["hmac_key"].as_str().unwrap();
        let body = vector["body"].as_str().unwrap();
        let none = Value::Null;
        let credentials = Credentials {
            secret: key,
            options: &none,
        };
        assert_eq!(
            Adyen.verify(&received(&[], body.as_bytes()), &credentials),
            Ok(Verified {
                event_id: Some("QFQTPCQ8HXSKGK82:AUTHORISATION".into())
            })
        );
        assert_eq!(
            Adyen.parse(IntegrationKind::Payment, body.as_bytes()),
            Ok(vec![Instruction::Payment {
                order_id: "01936a4e-8f00-7000-8000-00000000f00d".into(),
                amount: 3150,
                currency: "USD".into(),
                reference: "QFQTPCQ8HXSKGK82".into(),
            }])
        );
        assert_eq!(Adyen.acknowledgement(), Acknowledgement::AdyenAccepted);
        let changed = body.replace("3150", "3151");
        assert!(Adyen
            .verify(&received(&[], changed.as_bytes()), &credentials)
            .is_err());
        let wrong = Credentials {
            secret: "00112233",
            options: &none,
        };
        assert!(Adyen
            .verify(&received(&[], body.as_bytes()), &wrong)
            .is_err());

        // With Basic authentication set, the request must carry it.
        let options = json!({"username": "adyen", "password": "s3cret"});
        let guarded = Credentials {
            secret: key,
            options: &options,
        };
        assert_eq!(
            Adyen
                .verify(&received(&[], body.as_bytes()), &guarded)
                .unwrap_err(),
            Rejection::unauthorized("Basic authentication does not match")
        );
        let auth = vec![(
            "authorization".to_string(),
            format!("Basic {}", STANDARD.encode("adyen:s3cret")),
        )];
        assert!(Adyen
            .verify(&received(&auth, body.as_bytes()), &guarded)
            .is_ok());
        assert!(Adyen.check_options(&json!({"username": "a"})).is_err());
        assert!(Adyen.check_secret("not hex").is_err());
    }

    #[test]
    fn refunds_record_and_failures_change_nothing() {
        let item = |code: &str, success: &str| {
            json!({"notificationItems": [{"NotificationRequestItem": {
            "pspReference": "P1", "merchantReference": "o-1", "eventCode": code, "success": success,
            "amount": {"value": 500, "currency": "EUR"}}}]})
        };
        assert_eq!(
            Adyen.parse(
                IntegrationKind::Payment,
                item("REFUND", "true").to_string().as_bytes()
            ),
            Ok(vec![Instruction::Refund {
                order_id: "o-1".into(),
                amount: 500,
                currency: "EUR".into(),
                reference: "P1".into()
            }])
        );
        for (code, success) in [("AUTHORISATION", "false"), ("REPORT_AVAILABLE", "true")] {
            assert!(matches!(
                Adyen
                    .parse(
                        IntegrationKind::Payment,
                        item(code, success).to_string().as_bytes()
                    )
                    .unwrap()[0],
                Instruction::Ignore { .. }
            ));
        }
        assert_eq!(
            signing_string(
                &item("REFUND", "true")["notificationItems"][0]["NotificationRequestItem"]
            ),
            "P1:::o-1:500:EUR:REFUND:true"
        );
    }
}
