//! The success response every handler returns: a status and a JSON body.

use std::io::Cursor;

use rocket::http::{ContentType, Header, Status};
use rocket::request::Request;
use rocket::response::{self, Responder, Response};
use serde::Serialize;

use crate::error::ApiError;

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: Status,
    /// The serialized JSON body, written once (and stored as-is for idempotent replays).
    pub body: String,
    /// Set when an `Idempotency-Key` repeat returns the stored first response.
    pub replayed: bool,
}

impl Reply {
    pub fn with_status(status: Status, body: impl Serialize) -> Result<Self, ApiError> {
        let body = serde_json::to_string(&body).map_err(ApiError::internal)?;
        Ok(Reply {
            status,
            body,
            replayed: false,
        })
    }

    pub fn ok(body: impl Serialize) -> Result<Self, ApiError> {
        Self::with_status(Status::Ok, body)
    }

    pub fn created(body: impl Serialize) -> Result<Self, ApiError> {
        Self::with_status(Status::Created, body)
    }

    pub fn no_content() -> Self {
        Reply {
            status: Status::NoContent,
            body: String::new(),
            replayed: false,
        }
    }
}

impl<'r> Responder<'r, 'static> for Reply {
    fn respond_to(self, _: &'r Request<'_>) -> response::Result<'static> {
        let mut response = Response::build();
        response.status(self.status);
        if self.status != Status::NoContent {
            let body = self.body;
            response
                .header(ContentType::JSON)
                .sized_body(body.len(), Cursor::new(body));
        }
        if self.replayed {
            response.header(Header::new("Idempotent-Replayed", "true"));
        }
        response.ok()
    }
}
