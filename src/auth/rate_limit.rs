//! Throttling: logins per account and per client address, and failed guesses
//! (PINs per device, setup keys per address).

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant};

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

/// Counts failures only (a wrong PIN, an unknown setup key), so a terminal whose
/// staff type their PINs right is never slowed down, while guessing stops after
/// `max_failures` misses within `window` of the first one. (governor's limiters
/// count every attempt, right or wrong.)
pub struct FailureLimiter<K> {
    max_failures: u32,
    window: Duration,
    failures: Mutex<HashMap<K, (u32, Instant)>>,
}

impl<K: Eq + Hash + Clone> FailureLimiter<K> {
    pub fn new(max_failures: u32, window: Duration) -> Self {
        FailureLimiter {
            max_failures: max_failures.max(1),
            window,
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// `Err(seconds)` to wait while `key` has used up its failures.
    pub fn check(&self, key: &K) -> Result<(), u64> {
        let now = Instant::now();
        let mut failures = crate::lock(&self.failures);
        failures.retain(|_, (_, since)| now.duration_since(*since) < self.window);
        match failures.get(key) {
            Some((count, since)) if *count >= self.max_failures => {
                Err((self.window - now.duration_since(*since)).as_secs() + 1)
            }
            _ => Ok(()),
        }
    }

    pub fn record_failure(&self, key: K) {
        let now = Instant::now();
        let mut failures = crate::lock(&self.failures);
        let entry = failures.entry(key).or_insert((0, now));
        if now.duration_since(entry.1) >= self.window {
            *entry = (0, now);
        }
        entry.0 += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_beyond_the_limit_are_refused_until_the_window_passes() {
        let limiter = FailureLimiter::new(2, Duration::from_millis(50));
        limiter.record_failure("a");
        assert!(limiter.check(&"a").is_ok());
        limiter.record_failure("a");
        assert!(limiter.check(&"a").is_err());
        assert!(limiter.check(&"b").is_ok(), "other keys are not affected");
        std::thread::sleep(Duration::from_millis(60));
        assert!(limiter.check(&"a").is_ok());
    }
}
