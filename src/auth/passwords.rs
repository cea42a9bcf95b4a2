//! Password hashing with Argon2id (the crate's recommended parameters, random salt).

use argon2::{Argon2, PasswordHasher, PasswordVerifier};

pub const MIN_LENGTH: usize = 8;

pub fn hash(password: &str) -> Result<String, String> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| e.to_string())
}

pub fn verify(stored_hash: &str, password: &str) -> bool {
    Argon2::default()
        .verify_password(password.as_bytes(), stored_hash)
        .is_ok()
}

/// Spends the same time as a real verification, so a login for an unknown email
/// cannot be told apart from a wrong password by its timing.
pub fn verify_dummy(password: &str) {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let dummy = DUMMY.get_or_init(|| hash("not-a-real-password").unwrap_or_default());
    verify(dummy, password);
}
