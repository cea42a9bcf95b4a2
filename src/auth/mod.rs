//! Who is calling: passwords, login tokens, API keys, roles and the permission table,
//! and the `Caller` request guard that every tenant route takes.

pub mod caller;
pub mod keys;
pub mod passwords;
mod permissions;
pub mod rate_limit;
pub mod tokens;

pub use caller::{Caller, Principal};
pub use permissions::{Permission, Role};

use rand::RngCore;

pub fn random_bytes(len: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; len];
    rand::rng().fill_bytes(&mut bytes);
    bytes
}

/// A random string of letters and digits, for generated passwords and keys.
pub fn random_token(len: usize) -> String {
    use rand::distr::{Alphanumeric, SampleString};
    Alphanumeric.sample_string(&mut rand::rng(), len)
}
