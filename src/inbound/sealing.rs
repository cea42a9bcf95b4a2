//! Partner secrets at rest: sealed with ChaCha20-Poly1305 under a key the box
//! keeps in its registry, so a copied tenant file alone does not give away
//! the keys that verify a gateway's messages.

use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng};
use chacha20poly1305::{ChaCha20Poly1305, Nonce};

const NONCE_BYTES: usize = 12;

pub struct Sealer {
    cipher: ChaCha20Poly1305,
}

impl Sealer {
    /// `key` is 32 bytes from the registry's server secrets.
    pub fn new(key: &[u8]) -> Sealer {
        Sealer {
            cipher: ChaCha20Poly1305::new_from_slice(key).expect("the sealing key is 32 bytes"),
        }
    }

    /// The secret, sealed: a fresh nonce followed by the ciphertext and tag.
    pub fn seal(&self, secret: &str) -> Result<Vec<u8>, String> {
        let nonce = ChaCha20Poly1305::generate_nonce(&mut OsRng);
        let sealed = self
            .cipher
            .encrypt(&nonce, secret.as_bytes())
            .map_err(|_| "cannot seal the secret".to_string())?;
        Ok(nonce.iter().copied().chain(sealed).collect())
    }

    pub fn open(&self, sealed: &[u8]) -> Result<String, String> {
        if sealed.len() < NONCE_BYTES {
            return Err("the sealed secret is too short".into());
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE_BYTES);
        let nonce: [u8; NONCE_BYTES] = nonce.try_into().map_err(|_| "bad nonce".to_string())?;
        let plain = self
            .cipher
            .decrypt(&Nonce::from(nonce), ciphertext)
            .map_err(|_| "the secret was sealed with another key".to_string())?;
        String::from_utf8(plain).map_err(|_| "the sealed secret is not text".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_secret_opens_only_with_its_key() {
        let sealer = Sealer::new(&[7; 32]);
        let sealed = sealer.seal("whsec_abc").unwrap();
        assert!(!sealed.windows(9).any(|w| w == b"whsec_abc"));
        assert_eq!(sealer.open(&sealed).unwrap(), "whsec_abc");
        assert_ne!(
            sealer.seal("whsec_abc").unwrap(),
            sealed,
            "a fresh nonce each time"
        );
        assert!(Sealer::new(&[8; 32]).open(&sealed).is_err());
        assert!(sealer.open(&sealed[..5]).is_err());
    }
}
