//! Field checks shared by every group. Each check records a field error and
//! returns a usable value, so one response can list every problem at once.
//! Also the id and filter parsers and the PATCH helper that tells absent from `null`.

use uuid::Uuid;

use crate::error::{ApiError, FieldError};

#[derive(Default)]
pub struct Checks {
    errors: Vec<FieldError>,
}

impl Checks {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn fail(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.errors.push(FieldError::new(field, message));
    }

    /// Trimmed text of 1 to `max` characters.
    pub fn text(&mut self, field: &str, value: &str, max: usize) -> String {
        let value = value.trim();
        if value.is_empty() {
            self.fail(field, "must not be empty");
        } else if value.chars().count() > max {
            self.fail(field, format!("must be at most {max} characters"));
        }
        value.to_string()
    }

    /// Optional text: empty becomes `None`.
    pub fn optional_text(
        &mut self,
        field: &str,
        value: Option<&str>,
        max: usize,
    ) -> Option<String> {
        let value = value.map(str::trim).filter(|v| !v.is_empty())?;
        if value.chars().count() > max {
            self.fail(field, format!("must be at most {max} characters"));
        }
        Some(value.to_string())
    }

    /// An optional email address, as `optional_text`: a name, `@` and a domain,
    /// without spaces.
    pub fn optional_email(&mut self, field: &str, value: Option<&str>) -> Option<String> {
        let email = self.optional_text(field, value, 254)?;
        let well_formed = email
            .split_once('@')
            .is_some_and(|(name, domain)| !name.is_empty() && !domain.is_empty())
            && !email.contains(char::is_whitespace);
        if !well_formed {
            self.fail(field, "must be an email address");
        }
        Some(email)
    }

    /// A money amount in minor units of a currency with `exponent` decimals.
    pub fn money(&mut self, field: &str, value: f64, exponent: u32) -> i64 {
        crate::money::to_minor(value, exponent).unwrap_or_else(|message| {
            self.fail(field, message);
            0
        })
    }

    pub fn integer_in(
        &mut self,
        field: &str,
        value: i64,
        range: std::ops::RangeInclusive<i64>,
    ) -> i64 {
        if !range.contains(&value) {
            self.fail(
                field,
                format!("must be between {} and {}", range.start(), range.end()),
            );
        }
        value
    }

    pub fn id(&mut self, field: &str, value: &str) -> String {
        match value.parse::<Uuid>() {
            Ok(id) => id.to_string(),
            Err(_) => {
                self.fail(field, "must be a UUID");
                value.to_string()
            }
        }
    }

    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }

    pub fn finish(self) -> Result<(), ApiError> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::validation(self.errors))
        }
    }
}

/// A resource id from the path. A malformed id cannot name anything, so it is a 404
/// like any unknown id.
pub fn path_id(value: &str, what: &str) -> Result<String, ApiError> {
    value
        .parse::<Uuid>()
        .map(|id| id.to_string())
        .map_err(|_| ApiError::not_found(what))
}

/// An optional query filter such as `?status=`: absent is `None`, a value `parse`
/// does not know is a 422 naming the parameter.
pub fn query_filter<T>(
    field: &str,
    value: Option<&str>,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Option<T>, ApiError> {
    value
        .map(|v| {
            parse(v).ok_or_else(|| {
                ApiError::invalid_field(field, format!("{v:?} is not a valid value"))
            })
        })
        .transpose()
}

/// An optional RFC 3339 query parameter such as `?from=`, normalised to the
/// stored form; anything else is a 422 naming the parameter.
pub fn query_time(field: &str, value: Option<&str>) -> Result<Option<String>, ApiError> {
    value
        .map(|v| {
            crate::time::parse_rfc3339(v)
                .map(crate::time::rfc3339)
                .ok_or_else(|| ApiError::invalid_field(field, "must be an RFC 3339 timestamp"))
        })
        .transpose()
}

/// For PATCH bodies: tells an absent field (`None`) from an explicit `null`
/// (`Some(None)`), so `null` can clear a value.
pub fn nullable<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    serde::Deserialize::deserialize(deserializer).map(Some)
}
