//! Time formats used on the wire and in the database: RFC 3339 UTC with `Z` and
//! millisecond precision, which also sorts correctly as text.

use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, SecondsFormat, Utc};

pub fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub fn now_rfc3339() -> String {
    rfc3339(Utc::now())
}

/// Parses a client-supplied timestamp; any offset is accepted and converted to UTC.
pub fn parse_rfc3339(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Where writes get their `now`: the wall clock, or an instant tests fix and move.
#[derive(Clone)]
pub struct Clock(Option<Arc<Mutex<DateTime<Utc>>>>);

impl Clock {
    pub fn system() -> Self {
        Clock(None)
    }

    pub fn fixed(at: DateTime<Utc>) -> Self {
        Clock(Some(Arc::new(Mutex::new(at))))
    }

    /// Moves a fixed clock to `at`, for every holder of it; the wall clock stays.
    pub fn set(&self, at: DateTime<Utc>) {
        if let Some(fixed) = &self.0 {
            *fixed.lock().unwrap_or_else(PoisonError::into_inner) = at;
        }
    }

    pub fn now(&self) -> DateTime<Utc> {
        match &self.0 {
            Some(fixed) => *fixed.lock().unwrap_or_else(PoisonError::into_inner),
            None => Utc::now(),
        }
    }
}
