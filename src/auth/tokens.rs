//! Login tokens: HS256 JWTs signed with a server secret kept in the registry.

use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    /// User id.
    pub sub: String,
    /// Tenant id.
    pub tid: String,
    pub role: String,
    pub iat: i64,
    pub exp: i64,
    /// The user's token generation when issued; a raised generation refuses the token.
    #[serde(default)]
    pub generation: i64,
    /// The paired device a PIN sign-in was made on: the token ends with the device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
}

pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl TokenKeys {
    pub fn new(secret: &[u8]) -> Self {
        TokenKeys {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
        }
    }

    pub fn issue(&self, claims: &Claims) -> Result<String, String> {
        encode(&Header::new(Algorithm::HS256), claims, &self.encoding).map_err(|e| e.to_string())
    }

    /// The claims of a valid, unexpired token.
    pub fn verify(&self, token: &str) -> Option<Claims> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        decode::<Claims>(token, &self.decoding, &validation)
            .ok()
            .map(|data| data.claims)
    }
}
