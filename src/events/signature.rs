//! The contract's `X-Service-Signature` header: `t=<unix seconds>,v1=<hex>` where the
//! hex is HMAC-SHA256, keyed with the endpoint's secret, of `t`, a period and the body.

use hmac::{Hmac, Mac};
use sha2::Sha256;

pub const HEADER: &str = "X-Service-Signature";

/// The header value for `body` sent at `timestamp`, signed with `secret` (its UTF-8
/// bytes, exactly as shown to the tenant, are the key).
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!(
        "t={timestamp},v1={}",
        hex::encode(mac.finalize().into_bytes())
    )
}
