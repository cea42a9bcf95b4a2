//! One error type for the whole API, rendered as RFC 9457 `application/problem+json`.
//!
//! Handlers and guards return `ApiError`; this module is the only place that decides
//! how a failure looks on the wire. Internal errors are logged with context and never
//! shown to the client.

use std::io::Cursor;

use rocket::http::{ContentType, Header, Status};
use rocket::request::Request;
use rocket::response::{self, Responder, Response};
use serde::Serialize;
use serde_json::{Map, Value};

/// One invalid field of a request.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct FieldError {
    /// Path of the field in the request, such as `items[0].quantity`.
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: Status,
    /// Stable machine-readable code; clients switch on this, not on `detail`.
    pub code: &'static str,
    pub detail: String,
    /// Boxed so the common `Result<_, ApiError>` stays small.
    more: Option<Box<ProblemExtras>>,
}

#[derive(Debug, Clone, Default)]
struct ProblemExtras {
    errors: Vec<FieldError>,
    /// Extra members of the problem object, such as `current_status` on a 409.
    members: Map<String, Value>,
    retry_after: Option<u64>,
}

/// The problem document, as documented in the OpenAPI description.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Problem {
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
    pub code: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
}

impl ApiError {
    pub fn new(status: Status, code: &'static str, detail: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            detail: detail.into(),
            more: None,
        }
    }

    fn extras(&mut self) -> &mut ProblemExtras {
        self.more.get_or_insert_with(Default::default)
    }

    pub fn bad_request(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(Status::BadRequest, code, detail)
    }

    pub fn unauthorized(detail: impl Into<String>) -> Self {
        Self::new(Status::Unauthorized, "unauthorized", detail)
    }

    pub fn forbidden(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(Status::Forbidden, code, detail)
    }

    /// `what` is the kind of resource, such as "order".
    pub fn not_found(what: &str) -> Self {
        Self::new(Status::NotFound, "not_found", format!("no such {what}"))
    }

    pub fn conflict(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(Status::Conflict, code, detail)
    }

    /// A 409 for a state machine that refuses a move; the current state is named.
    pub fn illegal_transition(what: &str, current: &str, wanted: &str) -> Self {
        Self::conflict(
            "illegal_transition",
            format!("{what} is {current}; it cannot become {wanted}"),
        )
        .with("current_status", current)
    }

    pub fn validation(errors: Vec<FieldError>) -> Self {
        let detail = errors
            .iter()
            .map(|e| format!("{}: {}", e.field, e.message))
            .collect::<Vec<_>>()
            .join("; ");
        let mut err = Self::new(Status::UnprocessableEntity, "validation_failed", detail);
        err.extras().errors = errors;
        err
    }

    pub fn invalid_field(field: &str, message: impl Into<String>) -> Self {
        Self::validation(vec![FieldError::new(field, message)])
    }

    pub fn too_many_requests(retry_after: u64) -> Self {
        let mut err = Self::new(
            Status::TooManyRequests,
            "rate_limited",
            format!(
                "Too many attempts; try again in {}.",
                wait_in_words(retry_after)
            ),
        );
        err.extras().retry_after = Some(retry_after);
        err
    }

    /// Logs the real cause and returns an opaque 500.
    pub fn internal(context: impl std::fmt::Display) -> Self {
        log::error!("internal error: {context}");
        Self::new(
            Status::InternalServerError,
            "internal_error",
            "the server failed to handle the request; it has been logged",
        )
    }

    /// Tells the client how many seconds to wait before trying again.
    pub fn with_retry_after(mut self, seconds: u64) -> Self {
        self.extras().retry_after = Some(seconds);
        self
    }

    /// An extra member set with [`ApiError::with`].
    pub fn member(&self, key: &str) -> Option<&Value> {
        self.more.as_ref()?.members.get(key)
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extras().members.insert(key.to_string(), value.into());
        self
    }

    pub fn title(&self) -> &'static str {
        self.status.reason().unwrap_or("Error")
    }

    pub fn to_json(&self) -> Value {
        let problem = Problem {
            kind: format!("urn:brigade:problem:{}", self.code),
            title: self.title().to_string(),
            status: self.status.code,
            detail: self.detail.clone(),
            code: self.code.to_string(),
            errors: self
                .more
                .as_ref()
                .map(|m| m.errors.clone())
                .unwrap_or_default(),
        };
        let mut value = serde_json::to_value(problem).unwrap_or(Value::Null);
        if let (Value::Object(map), Some(more)) = (&mut value, &self.more) {
            map.extend(more.members.clone());
        }
        value
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.code, self.code, self.detail)
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(err: rusqlite::Error) -> Self {
        if let rusqlite::Error::SqliteFailure(e, Some(message)) = &err {
            if e.code == rusqlite::ErrorCode::ConstraintViolation {
                if let Some(columns) = message.strip_prefix("UNIQUE constraint failed: ") {
                    let field = columns
                        .split(", ")
                        .last()
                        .and_then(|c| c.rsplit('.').next())
                        .unwrap_or(columns);
                    return ApiError::conflict(
                        "already_exists",
                        format!("{field} is already in use"),
                    )
                    .with("field", field);
                }
            }
        }
        ApiError::internal(format!("database: {err}"))
    }
}

impl From<r2d2::Error> for ApiError {
    fn from(err: r2d2::Error) -> Self {
        ApiError::internal(format!("connection pool: {err}"))
    }
}

impl<'r> Responder<'r, 'static> for ApiError {
    fn respond_to(self, _: &'r Request<'_>) -> response::Result<'static> {
        let body = self.to_json().to_string();
        let mut response = Response::build();
        response
            .status(self.status)
            .header(ContentType::new("application", "problem+json"))
            .sized_body(body.len(), Cursor::new(body));
        if let Some(seconds) = self.more.as_ref().and_then(|m| m.retry_after) {
            response.header(Header::new("Retry-After", seconds.to_string()));
        }
        if self.status == Status::Unauthorized {
            response.header(Header::new("WWW-Authenticate", "Bearer"));
        }
        response.ok()
    }
}

/// A guard or data guard that failed leaves its error here, so the catcher for the
/// status can render the real problem rather than a generic one.
pub struct GuardFailure(pub std::sync::Mutex<Option<ApiError>>);

pub fn remember_failure(req: &Request<'_>, err: &ApiError) {
    let slot = req.local_cache(|| GuardFailure(std::sync::Mutex::new(None)));
    if let Ok(mut slot) = slot.0.lock() {
        slot.get_or_insert_with(|| err.clone());
    }
}

#[rocket::catch(default)]
pub fn catch_all(status: Status, req: &Request<'_>) -> ApiError {
    let remembered = req
        .local_cache(|| GuardFailure(std::sync::Mutex::new(None)))
        .0
        .lock()
        .ok()
        .and_then(|mut slot| slot.take());
    if let Some(err) = remembered {
        return err;
    }
    match status.code {
        404 => ApiError::new(
            status,
            "route_not_found",
            format!("no route for {} {}", req.method(), req.uri().path()),
        ),
        413 => ApiError::new(
            status,
            "payload_too_large",
            "the request body is larger than this route accepts",
        ),
        415 => ApiError::new(
            status,
            "unsupported_media_type",
            "send the body as Content-Type: application/json",
        ),
        422 => ApiError::new(
            status,
            "validation_failed",
            "the request could not be processed",
        ),
        500 => ApiError::internal(format!(
            "unhandled error for {} {}",
            req.method(),
            req.uri()
        )),
        _ => ApiError::new(
            status,
            "error",
            status.reason().unwrap_or("error").to_string(),
        ),
    }
}

/// A wait as a person reads it: seconds under two minutes, then minutes
/// (rounded up), for the problem's `detail` shown on screens.
fn wait_in_words(seconds: u64) -> String {
    match seconds {
        1 => "1 second".to_string(),
        0..=119 => format!("{seconds} seconds"),
        _ => format!("{} minutes", seconds.div_ceil(60)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_reads_in_seconds_then_whole_minutes() {
        assert_eq!(wait_in_words(1), "1 second");
        assert_eq!(wait_in_words(59), "59 seconds");
        assert_eq!(wait_in_words(120), "2 minutes");
        assert_eq!(wait_in_words(899), "15 minutes");
        assert_eq!(
            ApiError::too_many_requests(900).detail,
            "Too many attempts; try again in 15 minutes."
        );
    }
}
