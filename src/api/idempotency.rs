//! `Idempotency-Key` for POSTs that create things: a repeat of the same request
//! within 24 hours returns the first response and creates nothing. The record is
//! written in the same transaction as the work, so a key can never point at a
//! change that rolled back.

use chrono::Duration;
use rocket::http::Status;
use rocket::request::{FromRequest, Outcome, Request};
use rusqlite::{params, OptionalExtension};
use sha2::{Digest, Sha256};

use super::reply::Reply;
use crate::domain::Tx;
use crate::error::{remember_failure, ApiError};

const KEEP_FOR_HOURS: i64 = 24;
const MAX_KEY_LENGTH: usize = 255;

/// The optional `Idempotency-Key` header, with the route it was sent to.
pub struct IdempotencyKey {
    key: Option<String>,
    route: String,
}

#[rocket::async_trait]
impl<'r> FromRequest<'r> for IdempotencyKey {
    type Error = ApiError;

    async fn from_request(req: &'r Request<'_>) -> Outcome<Self, Self::Error> {
        let route = format!("{} {}", req.method(), req.uri().path());
        match req.headers().get_one("Idempotency-Key") {
            None => Outcome::Success(IdempotencyKey { key: None, route }),
            Some(key) if !key.is_empty() && key.len() <= MAX_KEY_LENGTH => {
                Outcome::Success(IdempotencyKey {
                    key: Some(key.to_string()),
                    route,
                })
            }
            Some(_) => {
                let err = ApiError::bad_request(
                    "invalid_idempotency_key",
                    format!("Idempotency-Key must be 1 to {MAX_KEY_LENGTH} characters"),
                );
                remember_failure(req, &err);
                Outcome::Error((Status::BadRequest, err))
            }
        }
    }
}

impl IdempotencyKey {
    /// For a route that must not run twice by accident (taking money): the
    /// header is required.
    pub fn require(&self) -> Result<(), ApiError> {
        match self.key {
            Some(_) => Ok(()),
            None => Err(ApiError::bad_request(
                "idempotency_key_required",
                "send an Idempotency-Key header, so a repeated request is not taken twice",
            )),
        }
    }

    /// Runs `work` unless the acting caller already used this key; then the stored
    /// response comes back instead. Reusing a key for another request is a 422.
    pub fn run(
        &self,
        tx: &mut Tx,
        body: &[u8],
        work: impl FnOnce(&mut Tx) -> Result<Reply, ApiError>,
    ) -> Result<Reply, ApiError> {
        let Some(key) = &self.key else {
            return work(tx);
        };
        let actor = tx.actor().to_string();
        let fingerprint = hex::encode(Sha256::digest(body));
        let cutoff = crate::time::rfc3339(tx.now() - Duration::hours(KEEP_FOR_HOURS));
        tx.execute(
            "DELETE FROM idempotency_keys WHERE created_at < ?1",
            [&cutoff],
        )?;
        let stored: Option<(String, String, u16, String)> = tx
            .query_row(
                "SELECT route, request_hash, status, response FROM idempotency_keys \
                 WHERE principal = ?1 AND key = ?2",
                params![actor, key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()?;
        if let Some((route, hash, status, response)) = stored {
            if route != self.route || hash != fingerprint {
                return Err(ApiError::new(
                    Status::UnprocessableEntity,
                    "idempotency_key_reused",
                    "this Idempotency-Key was already used for a different request",
                ));
            }
            return Ok(Reply {
                status: Status::new(status),
                body: response,
                replayed: true,
            });
        }
        let reply = work(tx)?;
        tx.execute(
            "INSERT INTO idempotency_keys (principal, key, route, request_hash, status, response, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                actor,
                key,
                self.route,
                fingerprint,
                reply.status.code,
                reply.body,
                tx.now_text()
            ],
        )?;
        Ok(reply)
    }
}
