//! Login throttling per account and per client address.

use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

pub struct LoginLimiter {
    per_account: DefaultKeyedRateLimiter<String>,
    per_address: DefaultKeyedRateLimiter<IpAddr>,
}

impl LoginLimiter {
    pub fn new(attempts_per_minute: u32) -> Self {
        let per_minute = NonZeroU32::new(attempts_per_minute.max(1)).unwrap_or(NonZeroU32::MIN);
        // An address may serve several staff (one POS terminal), so it gets more room.
        let per_address = per_minute.saturating_mul(NonZeroU32::new(3).unwrap_or(NonZeroU32::MIN));
        LoginLimiter {
            per_account: RateLimiter::keyed(Quota::per_minute(per_minute)),
            per_address: RateLimiter::keyed(Quota::per_minute(per_address)),
        }
    }

    /// `Err(seconds)` to wait when either limit is exhausted; records the attempt.
    pub fn check(&self, email: &str, address: Option<IpAddr>) -> Result<(), u64> {
        let now = DefaultClock::default().now();
        let wait = |not_until: governor::NotUntil<_>| not_until.wait_time_from(now).as_secs() + 1;
        if let Some(address) = address {
            self.per_address.check_key(&address).map_err(wait)?;
        }
        self.per_account
            .check_key(&email.to_lowercase())
            .map_err(wait)?;
        self.per_account.retain_recent();
        self.per_address.retain_recent();
        Ok(())
    }
}
