//! Adyen, the payment gateway, on the payment route (standard webhooks, JSON).
//!
//! Verification follows
//! <https://docs.adyen.com/development-resources/webhooks/verify-hmac-signatures/>:
//! every `NotificationRequestItem` carries `additionalData.hmacSignature`, the
//! base64 HMAC-SHA256, keyed with the hex-decoded HMAC key, of
//! `pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success`
//! (absent fields as empty strings, `value` and `currency` from `amount`). Every
//! item of a message must verify. When the options name a `username` and
//! `password`, the basic authentication Adyen sends
//! (<https://docs.adyen.com/development-resources/webhooks/>)
//! must match too. Adyen expects `[accepted]` as the answer.

use base64::{engine::general_purpose::STANDARD, Engine};
use hmac::Mac;
use serde_json::Value;

use super::{
    hmac_of, Acknowledgement, Adapter, Credentials, Failure, Received, Rejection, Verified,
};
use crate::domain::partners::model::{Instruction, IntegrationKind};

pub struct Adyen;

impl Adapter for Adyen {
    fn name(&self) -> &'static str {
        "adyen"
    }

    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Payment]
    }

    fn check_options(&self, options: &Value) -> Result<(), String> {
        basic_auth(options).map(|_| ())
    }

    fn check_secret(&self, secret: &str) -> Result<(), String> {
        match hex::decode(secret) {
            Ok(key) if !key.is_empty() => Ok(()),
            _ => Err("an Adyen HMAC key is an even number of hex digits".into()),
        }
    }

    fn verify(
        &self,
        received: &Received,
        credentials: &Credentials,
    ) -> Result<Verified, Rejection> {
        // Options that fail their check never let a message through unauthenticated.
        let auth = basic_auth(credentials.options).map_err(Rejection::unauthorized)?;
        if let Some((username, password)) = auth {
            let sent = received.required("Authorization")?;
            let expected = format!(
                "Basic {}",
                STANDARD.encode(format!("{username}:{password}"))
            );
            if !constant_time_eq(sent.trim().as_bytes(), expected.as_bytes()) {
                return Err(Rejection::unauthorized(
                    "basic authentication does not match",
                ));
            }
        }
        let items = items(received.body).map_err(Rejection::bad_request)?;
        let key = hex::decode(credentials.secret)
            .map_err(|_| Rejection::unauthorized("the HMAC key is not hex"))?;
        for (n, item) in items.iter().enumerate() {
            let signature = item["additionalData"]["hmacSignature"]
                .as_str()
                .ok_or_else(|| Rejection::unauthorized(format!("item {n} has no hmacSignature")))?;
            let signature = STANDARD.decode(signature).map_err(|_| {
                Rejection::unauthorized(format!("the signature of item {n} is not base64"))
            })?;
            hmac_of(&key, &[signing_string(item).as_bytes()])
                .verify_slice(&signature)
                .map_err(|_| {
                    Rejection::unauthorized(format!("signature of item {n} does not match"))
                })?;
        }
        let event_id = items
            .iter()
            .map(|item| format!("{}:{}", text(item, "pspReference"), text(item, "eventCode")))
            .collect::<Vec<_>>()
            .join(",");
        Ok(Verified {
            event_id: Some(event_id),
        })
    }

    fn parse(&self, _kind: IntegrationKind, body: &[u8]) -> Result<Vec<Instruction>, Failure> {
        let items = items(body).map_err(Failure::Invalid)?;
        items.iter().map(instruction).collect()
    }

    fn acknowledgement(&self) -> Acknowledgement {
        Acknowledgement::AdyenAccepted
    }
}

fn instruction(item: &Value) -> Result<Instruction, Failure> {
    let event_code = text(item, "eventCode");
    let psp_reference = text(item, "pspReference");
    if text(item, "success") != "true" {
        return Ok(Instruction::Ignore {
            reason: format!("{event_code} {psp_reference} did not succeed"),
        });
    }
    let order_id = text(item, "merchantReference");
    if order_id.is_empty() {
        return Err(Failure::Invalid(format!(
            "{event_code} {psp_reference} has no merchantReference"
        )));
    }
    let amount = item["amount"]["value"].as_i64().ok_or_else(|| {
        Failure::Invalid(format!("{event_code} {psp_reference} has no amount.value"))
    })?;
    let currency = item["amount"]["currency"]
        .as_str()
        .unwrap_or_default()
        .to_uppercase();
    Ok(match event_code.as_str() {
        "AUTHORISATION" => Instruction::Payment {
            order_id,
            amount,
            currency,
            reference: psp_reference,
        },
        "REFUND" => Instruction::Refund {
            order_id,
            amount,
            currency,
            reference: psp_reference,
        },
        other => Instruction::Ignore {
            reason: format!("Adyen event {other} is not acted on"),
        },
    })
}

/// The `NotificationRequestItem`s of a notification, or why there are none.
fn items(body: &[u8]) -> Result<Vec<Value>, String> {
    let notification: Value =
        serde_json::from_slice(body).map_err(|_| "the body is not a JSON notification")?;
    let items: Vec<Value> = notification["notificationItems"]
        .as_array()
        .ok_or("the notification has no notificationItems")?
        .iter()
        .map(|wrapper| wrapper["NotificationRequestItem"].clone())
        .collect();
    if items.is_empty() || items.iter().any(|item| !item.is_object()) {
        return Err("a notification item has no NotificationRequestItem".into());
    }
    Ok(items)
}

fn signing_string(item: &Value) -> String {
    let value = match &item["amount"]["value"] {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        _ => String::new(),
    };
    [
        text(item, "pspReference"),
        text(item, "originalReference"),
        text(item, "merchantAccountCode"),
        text(item, "merchantReference"),
        value,
        item["amount"]["currency"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        text(item, "eventCode"),
        text(item, "success"),
    ]
    .join(":")
}

fn text(item: &Value, field: &str) -> String {
    item[field].as_str().unwrap_or_default().to_owned()
}

/// The basic-auth pair of the options, if set; both or neither must be given.
fn basic_auth(options: &Value) -> Result<Option<(&str, &str)>, String> {
    match (&options["username"], &options["password"]) {
        (Value::Null, Value::Null) => Ok(None),
        (Value::String(u), Value::String(p)) if !u.is_empty() && !p.is_empty() => {
            Ok(Some((u.as_str(), p.as_str())))
        }
        _ => Err("username and password are both set, as text, or both left out".into()),
    }
}

/// Compares without stopping at the first difference, so timing tells nothing.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use hmac::{Hmac, Mac};
    use serde_json::json;
    use sha2::Sha256;

    const KEY: &str = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056";

    fn item(event_code: &str, success: &str, psp: &str, value: i64) -> Value {
        json!({
            "amount": {"currency": "EUR", "value": value},
            "eventCode": event_code,
            "eventDate": "2026-11-24T10:00:00+01:00",
            "merchantAccountCode": "BrigadeBistro",
            "merchantReference": "o-1",
            "originalReference": "",
            "paymentMethod": "visa",
            "pspReference": psp,
            "reason": "",
            "success": success
        })
    }

    fn signed(mut item: Value, key: &str) -> Value {
        let mut mac = Hmac::<Sha256>::new_from_slice(&hex::decode(key).unwrap()).unwrap();
        mac.update(signing_string(&item).as_bytes());
        item["additionalData"] = json!({
            "hmacSignature": STANDARD.encode(mac.finalize().into_bytes())
        });
        item
    }

    fn notification(items: Vec<Value>) -> Vec<u8> {
        let items: Vec<Value> = items
            .into_iter()
            .map(|i| json!({"NotificationRequestItem": i}))
            .collect();
        json!({"live": "false", "notificationItems": items})
            .to_string()
            .into_bytes()
    }

    fn verify_with(
        body: &[u8],
        key: &str,
        options: Value,
        authorization: Option<&str>,
    ) -> Result<Verified, Rejection> {
        let headers: Vec<(String, String)> = authorization
            .map(|a| vec![("authorization".to_string(), a.to_string())])
            .unwrap_or_default();
        let received = Received {
            url: "https://brigade.example/webhook/payment/bistro/adyen",
            headers: &headers,
            body,
            now: Utc::now(),
        };
        Adyen.verify(
            &received,
            &Credentials {
                secret: key,
                options: &options,
            },
        )
    }

    #[test]
    fn signed_items_are_accepted_with_their_references_as_event_id() {
        let body = notification(vec![
            signed(item("AUTHORISATION", "true", "PSP1", 1000), KEY),
            signed(item("REFUND", "true", "PSP2", 400), KEY),
        ]);
        assert_eq!(
            verify_with(&body, KEY, json!({}), None),
            Ok(Verified {
                event_id: Some("PSP1:AUTHORISATION,PSP2:REFUND".into())
            })
        );
    }

    /// Adyen's own example, from the HMAC validator tests of its Node library
    /// (Adyen/adyen-node-api-library, `src/__tests__/hmacValidator.spec.ts`).
    #[test]
    fn adyens_published_example_is_accepted() {
        let item = json!({
            "pspReference": "pspReference",
            "originalReference": "originalReference",
            "merchantAccountCode": "merchantAccount",
            "merchantReference": "reference",
            "amount": {"currency": "EUR", "value": 1000},
            "eventCode": "CAPTURE",
            "success": "true",
            "additionalData": {"hmacSignature": "xhpHvYq2u2Np0rstbZ6QjLGu7JWhvf7Iwaa6EviJSX0="}
        });
        assert_eq!(
            signing_string(&item),
            "pspReference:originalReference:merchantAccount:reference:1000:EUR:CAPTURE:true"
        );
        let key = "DFB1EB5485895CFA84146406857104ABB4CBCABDC8AAF103A624C8F6A3EAAB00";
        assert!(verify_with(&notification(vec![item]), key, json!({}), None).is_ok());
    }

    #[test]
    fn a_wrong_key_is_rejected() {
        let other = "00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF";
        let body = notification(vec![signed(
            item("AUTHORISATION", "true", "PSP1", 1000),
            other,
        )]);
        assert_eq!(
            verify_with(&body, KEY, json!({}), None),
            Err(Rejection::unauthorized(
                "signature of item 0 does not match"
            ))
        );
    }

    #[test]
    fn a_changed_item_is_rejected_even_beside_a_good_one() {
        let mut changed = signed(item("AUTHORISATION", "true", "PSP2", 1000), KEY);
        changed["amount"]["value"] = json!(1);
        let body = notification(vec![
            signed(item("AUTHORISATION", "true", "PSP1", 1000), KEY),
            changed,
        ]);
        assert_eq!(
            verify_with(&body, KEY, json!({}), None),
            Err(Rejection::unauthorized(
                "signature of item 1 does not match"
            ))
        );
    }

    #[test]
    fn an_item_without_a_signature_is_rejected() {
        let body = notification(vec![item("AUTHORISATION", "true", "PSP1", 1000)]);
        assert_eq!(
            verify_with(&body, KEY, json!({}), None),
            Err(Rejection::unauthorized("item 0 has no hmacSignature"))
        );
    }

    #[test]
    fn basic_authentication_is_required_when_configured() {
        let body = notification(vec![signed(
            item("AUTHORISATION", "true", "PSP1", 1000),
            KEY,
        )]);
        let options = json!({"username": "adyen", "password": "s3cret"});
        let good = format!("Basic {}", STANDARD.encode("adyen:s3cret"));
        let bad = format!("Basic {}", STANDARD.encode("adyen:guess"));
        assert!(verify_with(&body, KEY, options.clone(), Some(&good)).is_ok());
        assert_eq!(
            verify_with(&body, KEY, options.clone(), Some(&bad)),
            Err(Rejection {
                status: 401,
                reason: "basic authentication does not match".into()
            })
        );
        assert_eq!(
            verify_with(&body, KEY, options, None),
            Err(Rejection::unauthorized("no Authorization header"))
        );
    }

    #[test]
    fn the_answer_is_accepted_in_brackets() {
        assert_eq!(Adyen.acknowledgement(), Acknowledgement::AdyenAccepted);
    }

    #[test]
    fn secrets_and_options_are_checked() {
        assert!(Adyen.check_secret(KEY).is_ok());
        assert!(Adyen.check_secret("ABC").is_err());
        assert!(Adyen.check_secret("xyz0").is_err());
        assert!(Adyen.check_options(&json!({})).is_ok());
        assert!(Adyen
            .check_options(&json!({"username": "a", "password": "b"}))
            .is_ok());
        assert!(Adyen.check_options(&json!({"username": "a"})).is_err());
    }

    #[test]
    fn authorisations_and_refunds_become_payments_and_refunds() {
        let body = notification(vec![
            item("AUTHORISATION", "true", "PSP1", 1000),
            item("AUTHORISATION", "false", "PSP2", 1000),
            item("REFUND", "true", "PSP3", 400),
            item("CAPTURE", "true", "PSP4", 1000),
        ]);
        assert_eq!(
            Adyen.parse(IntegrationKind::Payment, &body),
            Ok(vec![
                Instruction::Payment {
                    order_id: "o-1".into(),
                    amount: 1000,
                    currency: "EUR".into(),
                    reference: "PSP1".into(),
                },
                Instruction::Ignore {
                    reason: "AUTHORISATION PSP2 did not succeed".into()
                },
                Instruction::Refund {
                    order_id: "o-1".into(),
                    amount: 400,
                    currency: "EUR".into(),
                    reference: "PSP3".into(),
                },
                Instruction::Ignore {
                    reason: "Adyen event CAPTURE is not acted on".into()
                },
            ])
        );
    }
}
