//! When a failed delivery is tried again: the retry ladder as data, jitter, the
//! receiver's `Retry-After`, and the 24 h cut-off. Pure functions of their inputs.

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};

/// Delay after the first, second, ... failed attempt of a round. After the last
/// one, a final attempt is made at the end of the window.
pub const RETRY_DELAYS: [Duration; 6] = [
    Duration::from_secs(5),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 3600),
    Duration::from_secs(5 * 3600),
    Duration::from_secs(10 * 3600),
];

/// How long a round of attempts lasts, from its first attempt.
pub const WINDOW: Duration = Duration::from_secs(24 * 3600);

/// Each ladder delay is spread by up to this fraction either way, so receivers that
/// come back after an outage are not hit by every queued retry at once.
pub const JITTER: f64 = 0.2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    RetryAt(DateTime<Utc>),
    Failed,
}

/// A random jitter factor in `1 ± JITTER`.
pub fn random_jitter() -> f64 {
    1.0 + JITTER * (rand::random::<f64>() * 2.0 - 1.0)
}

/// What follows the `attempts_in_round`-th failed attempt (counting this one) made
/// at `now`, in a round that started at `round_started_at`.
///
/// `retry_after` (from a 429 or 503) can push the retry later than the ladder, never
/// past the window's end; `jitter` is a factor from [`random_jitter`].
pub fn after_failure(
    round_started_at: DateTime<Utc>,
    attempts_in_round: u32,
    now: DateTime<Utc>,
    retry_after: Option<Duration>,
    jitter: f64,
) -> Next {
    let deadline = round_started_at + delta(WINDOW);
    if now >= deadline {
        return Next::Failed;
    }
    let ladder = RETRY_DELAYS
        .get(attempts_in_round.saturating_sub(1) as usize)
        .map(|delay| delta(delay.mul_f64(jitter)));
    let Some(ladder) = ladder else {
        return Next::RetryAt(deadline);
    };
    let delay = match retry_after {
        Some(asked) => ladder.max(delta(asked)),
        None => ladder,
    };
    Next::RetryAt((now + delay).min(deadline))
}

/// `Retry-After` as delay-seconds or an HTTP date, relative to `now`.
pub fn parse_retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = DateTime::parse_from_rfc2822(value)
        .ok()?
        .with_timezone(&Utc);
    (at - now).to_std().ok()
}

fn delta(duration: Duration) -> TimeDelta {
    TimeDelta::from_std(duration).unwrap_or(TimeDelta::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + seconds, 0).unwrap()
    }

    #[test]
    fn the_ladder_is_followed_then_a_last_attempt_at_the_deadline_then_failed() {
        let start = at(0);
        let mut now = start;
        let mut gaps = Vec::new();
        for attempt in 1.. {
            match after_failure(start, attempt, now, None, 1.0) {
                Next::RetryAt(next) => {
                    gaps.push((next - now).num_seconds());
                    now = next;
                }
                Next::Failed => break,
            }
        }
        assert_eq!(gaps[..6], [5, 300, 1800, 7200, 18000, 36000]);
        assert_eq!(
            now,
            start + TimeDelta::hours(24),
            "the last attempt is at the deadline"
        );
        assert_eq!(gaps.len(), 7, "8 attempts in all");
    }

    #[test]
    fn jitter_spreads_a_delay_by_at_most_twenty_percent() {
        for _ in 0..1000 {
            let factor = random_jitter();
            assert!((0.8..=1.2).contains(&factor));
        }
        assert_eq!(
            after_failure(at(0), 2, at(0), None, 0.8),
            Next::RetryAt(at(240))
        );
        assert_eq!(
            after_failure(at(0), 2, at(0), None, 1.2),
            Next::RetryAt(at(360))
        );
    }

    #[test]
    fn retry_after_can_delay_a_retry_but_not_past_the_deadline() {
        let asked = Some(Duration::from_secs(60));
        assert_eq!(
            after_failure(at(0), 1, at(0), asked, 1.0),
            Next::RetryAt(at(60))
        );
        let shorter = Some(Duration::from_secs(1));
        assert_eq!(
            after_failure(at(0), 1, at(0), shorter, 1.0),
            Next::RetryAt(at(5))
        );
        let huge = Some(Duration::from_secs(100 * 3600));
        assert_eq!(
            after_failure(at(0), 1, at(0), huge, 1.0),
            Next::RetryAt(at(24 * 3600))
        );
    }

    #[test]
    fn retry_after_accepts_seconds_and_http_dates() {
        assert_eq!(
            parse_retry_after("120", at(0)),
            Some(Duration::from_secs(120))
        );
        let date = at(30).to_rfc2822();
        assert_eq!(
            parse_retry_after(&date, at(0)),
            Some(Duration::from_secs(30))
        );
        assert_eq!(parse_retry_after("soon", at(0)), None);
    }
}
