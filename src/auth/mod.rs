//! Who is calling: passwords, login tokens, API keys, paired devices, roles and the
//! permission table, and the `Can<P>` request guard every tenant route takes.

pub mod caller;
pub mod devices;
pub mod keys;
pub mod passwords;
pub mod permissions;
pub mod rate_limit;
pub mod tokens;

pub use caller::{Caller, Can, Principal};
pub use permissions::{perm, Permission, Role};

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
