//! The JSON request body guard: checks the media type and size, and turns every
//! parse failure into a clear problem (400 for broken JSON, 422 naming the field
//! for a missing, unknown or wrong-typed one).

use rocket::data::{self, Data, FromData, ToByteUnit};
use rocket::http::Status;
use rocket::request::Request;
use serde::de::DeserializeOwned;

use crate::error::{remember_failure, ApiError, FieldError};

pub struct JsonBody<T> {
    pub value: T,
    /// The raw bytes, for idempotency fingerprints.
    pub raw: Vec<u8>,
}

impl<T> std::ops::Deref for JsonBody<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request(
            "malformed_json",
            "the request body is empty; send a JSON object",
        ));
    }
    // Syntax first, so broken JSON is always a 400 whatever its content.
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        ApiError::bad_request("malformed_json", format!("the body is not valid JSON: {e}"))
    })?;
    // serde would read a struct from an array too; every body here is an object.
    if !value.is_object() {
        return Err(ApiError::invalid_field("body", "must be a JSON object"));
    }
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        let field = if path == "." {
            "body".to_string()
        } else {
            path
        };
        ApiError::validation(vec![FieldError::new(field, err.into_inner().to_string())])
    })
}

/// Reads a JSON body: a JSON media type, within the route's size limit. When
/// `bare_allowed`, a request with no media type and no body is `None`.
async fn read_body<'r>(
    req: &'r Request<'_>,
    data: Data<'r>,
    bare_allowed: bool,
) -> Result<Option<Vec<u8>>, ApiError> {
    let content_type = req.content_type();
    let is_json = content_type
        .map(|ct| ct.is_json() || ct.sub().as_str().ends_with("+json"))
        .unwrap_or(false);
    let may_be_bare = bare_allowed && content_type.is_none();
    if !(is_json || may_be_bare) {
        return Err(unsupported_media_type());
    }
    let limit = req.limits().get("json").unwrap_or(256.kibibytes());
    let bytes = data.open(limit).into_bytes().await.map_err(|e| {
        ApiError::bad_request(
            "unreadable_body",
            format!("the body could not be read: {e}"),
        )
    })?;
    if !bytes.is_complete() {
        return Err(ApiError::new(
            Status::PayloadTooLarge,
            "payload_too_large",
            format!("the body is larger than the {limit} this route accepts"),
        ));
    }
    let raw = bytes.into_inner();
    match (is_json, raw.is_empty()) {
        (true, _) => Ok(Some(raw)),
        (false, true) => Ok(None),
        // Something was sent without saying it is JSON.
        (false, false) => Err(unsupported_media_type()),
    }
}

fn unsupported_media_type() -> ApiError {
    ApiError::new(
        Status::UnsupportedMediaType,
        "unsupported_media_type",
        "send the body as Content-Type: application/json",
    )
}

fn outcome<'r, T>(
    req: &'r Request<'_>,
    result: Result<T, ApiError>,
) -> data::Outcome<'r, T, ApiError> {
    match result {
        Ok(body) => data::Outcome::Success(body),
        Err(err) => {
            remember_failure(req, &err);
            data::Outcome::Error((err.status, err))
        }
    }
}

#[rocket::async_trait]
impl<'r, T: DeserializeOwned> FromData<'r> for JsonBody<T> {
    type Error = ApiError;

    async fn from_data(req: &'r Request<'_>, data: Data<'r>) -> data::Outcome<'r, Self> {
        let result = async {
            let raw = read_body(req, data, false).await?.unwrap_or_default();
            let value = parse(&raw)?;
            Ok(JsonBody { value, raw })
        }
        .await;
        outcome(req, result)
    }
}

/// The body of an action (`POST /things/{id}/<verb>`) whose fields are all
/// optional: a request with no body and no media type means the defaults, so
/// `curl -X POST …/close` works like `-d '{}'`. A body declared as JSON must be
/// JSON, an empty one included.
pub struct ActionBody<T>(pub T);

impl<T> std::ops::Deref for ActionBody<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

#[rocket::async_trait]
impl<'r, T: DeserializeOwned + Default> FromData<'r> for ActionBody<T> {
    type Error = ApiError;

    async fn from_data(req: &'r Request<'_>, data: Data<'r>) -> data::Outcome<'r, Self> {
        let result = async {
            match read_body(req, data, true).await? {
                Some(raw) => Ok(ActionBody(parse(&raw)?)),
                None => Ok(ActionBody(T::default())),
            }
        }
        .await;
        outcome(req, result)
    }
}
