//! The integrations a tenant connects: one per route kind and platform name,
//! with its sealed secret, its switch and the adapter's options.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::model::IntegrationKind;
use crate::domain::Tx;
use crate::error::ApiError;

/// An integration as the API shows it: never its secret.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Integration {
    pub kind: IntegrationKind,
    /// The adapter: `stripe`, `square`, `adyen`, `ubereats`, `deliveroo` or `generic`.
    pub name: String,
    pub enabled: bool,
    /// Delivery only (`null` for payments): an order that arrives placed is
    /// accepted at once and fires to the kitchen; otherwise it waits, pending,
    /// for staff to confirm it.
    pub auto_accept: Option<bool>,
    /// The secret's last four characters, to tell which one is set.
    pub secret_last4: String,
    /// The adapter's options.
    #[schema(value_type = Object)]
    pub options: Value,
    /// The exact URL to paste into the partner's dashboard.
    pub url: String,
    pub created_at: String,
    pub updated_at: String,
}

/// An integration with what only the receiving side needs: the sealed secret.
pub struct StoredIntegration {
    pub enabled: bool,
    pub auto_accept: bool,
    pub secret_sealed: Vec<u8>,
    pub options: Value,
}

/// A change to an integration, checked by the caller against its adapter.
pub struct IntegrationChange {
    /// The new secret, sealed, with its last four characters; required the
    /// first time.
    pub secret: Option<(Vec<u8>, String)>,
    pub enabled: Option<bool>,
    pub auto_accept: Option<bool>,
    pub options: Option<Value>,
}

/// The URL of an integration: `{base}/webhook/{kind}/{slug}/{name}`.
pub fn integration_url(public_base: &str, kind: IntegrationKind, slug: &str, name: &str) -> String {
    format!(
        "{}/webhook/{}/{slug}/{name}",
        public_base.trim_end_matches('/'),
        kind.as_str()
    )
}

const COLUMNS: &str =
    "kind, name, enabled, secret_last4, options, created_at, updated_at, auto_accept";

fn integration_from_row(r: &Row, public_base: &str, slug: &str) -> rusqlite::Result<Integration> {
    let kind: String = r.get(0)?;
    let kind = IntegrationKind::parse(&kind).unwrap_or(IntegrationKind::Payment);
    let name: String = r.get(1)?;
    let options: String = r.get(4)?;
    Ok(Integration {
        url: integration_url(public_base, kind, slug, &name),
        kind,
        name,
        enabled: r.get(2)?,
        secret_last4: r.get(3)?,
        options: serde_json::from_str(&options).unwrap_or(Value::Null),
        created_at: r.get(5)?,
        updated_at: r.get(6)?,
        auto_accept: (kind == IntegrationKind::Delivery)
            .then(|| r.get(7))
            .transpose()?,
    })
}

pub fn list_integrations(
    conn: &Connection,
    public_base: &str,
    slug: &str,
) -> Result<Vec<Integration>, ApiError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM integrations ORDER BY kind, name"
    ))?;
    let rows = stmt.query_map([], |r| integration_from_row(r, public_base, slug))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn get_integration(
    conn: &Connection,
    kind: IntegrationKind,
    name: &str,
    public_base: &str,
    slug: &str,
) -> Result<Integration, ApiError> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM integrations WHERE kind = ?1 AND name = ?2"
    ))?
    .query_row([kind.as_str(), name], |r| {
        integration_from_row(r, public_base, slug)
    })
    .optional()?
    .ok_or_else(|| ApiError::not_found("integration"))
}

/// The integration a message is for, with its sealed secret.
pub fn stored_integration(
    conn: &Connection,
    kind: IntegrationKind,
    name: &str,
) -> Result<Option<StoredIntegration>, ApiError> {
    Ok(conn
        .prepare_cached(
            "SELECT enabled, secret_sealed, options, auto_accept FROM integrations \
             WHERE kind = ?1 AND name = ?2",
        )?
        .query_row([kind.as_str(), name], |r| {
            let options: String = r.get(2)?;
            Ok(StoredIntegration {
                enabled: r.get(0)?,
                secret_sealed: r.get(1)?,
                options: serde_json::from_str(&options).unwrap_or(Value::Null),
                auto_accept: r.get(3)?,
            })
        })
        .optional()?)
}

/// Creates or changes an integration; returns whether it was created.
pub fn put_integration(
    tx: &Tx,
    kind: IntegrationKind,
    name: &str,
    change: IntegrationChange,
) -> Result<bool, ApiError> {
    let now = tx.now_text().to_string();
    let exists = stored_integration(tx, kind, name)?.is_some();
    if !exists {
        let Some((sealed, last4)) = change.secret else {
            return Err(ApiError::invalid_field(
                "secret",
                "is required to set up an integration",
            ));
        };
        let options = change
            .options
            .unwrap_or_else(|| Value::Object(Default::default()));
        tx.execute(
            "INSERT INTO integrations (kind, name, enabled, secret_sealed, secret_last4, options, \
             created_at, updated_at, auto_accept) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8)",
            params![
                kind.as_str(),
                name,
                change.enabled.unwrap_or(true),
                sealed,
                last4,
                options.to_string(),
                now,
                change.auto_accept.unwrap_or(true)
            ],
        )?;
        return Ok(true);
    }
    if let Some((sealed, last4)) = change.secret {
        tx.execute(
            "UPDATE integrations SET secret_sealed = ?3, secret_last4 = ?4 WHERE kind = ?1 AND name = ?2",
            params![kind.as_str(), name, sealed, last4],
        )?;
    }
    if let Some(enabled) = change.enabled {
        tx.execute(
            "UPDATE integrations SET enabled = ?3 WHERE kind = ?1 AND name = ?2",
            params![kind.as_str(), name, enabled],
        )?;
    }
    if let Some(auto_accept) = change.auto_accept {
        tx.execute(
            "UPDATE integrations SET auto_accept = ?3 WHERE kind = ?1 AND name = ?2",
            params![kind.as_str(), name, auto_accept],
        )?;
    }
    if let Some(options) = change.options {
        tx.execute(
            "UPDATE integrations SET options = ?3 WHERE kind = ?1 AND name = ?2",
            params![kind.as_str(), name, options.to_string()],
        )?;
    }
    tx.execute(
        "UPDATE integrations SET updated_at = ?3 WHERE kind = ?1 AND name = ?2",
        params![kind.as_str(), name, now],
    )?;
    Ok(false)
}

/// Removes an integration; its messages stay in the inbox. Messages not yet
/// processed are failed, as nothing can verify or read them any more.
pub fn delete_integration(tx: &Tx, kind: IntegrationKind, name: &str) -> Result<(), ApiError> {
    let removed = tx.execute(
        "DELETE FROM integrations WHERE kind = ?1 AND name = ?2",
        params![kind.as_str(), name],
    )?;
    if removed == 0 {
        return Err(ApiError::not_found("integration"));
    }
    tx.execute(
        "UPDATE inbox_messages SET status = 'failed', reason = 'the integration was removed', \
         next_attempt_at = NULL WHERE kind = ?1 AND name = ?2 AND status IN ('received', 'parked')",
        params![kind.as_str(), name],
    )?;
    Ok(())
}
