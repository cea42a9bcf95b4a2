//! Paired devices (POS terminals, kitchen screens, phones) and the setup keys that
//! pair them. Both live in the registry: a device redeems its key without logging
//! in and without knowing its tenant, so the code itself must find the tenant.
//!
//! A setup key is a short code typed or scanned once; only its SHA-256 is kept (a
//! fast hash is enough for a random code that expires within days, is single-use
//! and whose wrong guesses are limited per address). Redeeming it creates an API
//! key bound to the new device, its role and tenant; the device's id is the key's
//! id, so revoking either ends both.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rand::Rng;
use rocket::tokio::sync::broadcast;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use uuid::Uuid;

use super::{keys, Role};
use crate::db::Databases;
use crate::error::ApiError;
use crate::time::rfc3339;

/// Letters and digits that cannot be mistaken for one another when typed.
const CODE_ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
/// Ten characters of 31: about 2^49 codes.
const CODE_LENGTH: usize = 10;

pub const DEFAULT_EXPIRY_MINUTES: i64 = 15;
pub const MAX_EXPIRY_MINUTES: i64 = 7 * 24 * 60;

/// A new code, shown as two groups of five (`7KQ2M-XW9PD`).
fn new_code() -> String {
    let mut rng = rand::rng();
    let raw: String = (0..CODE_LENGTH)
        .map(|_| CODE_ALPHABET[rng.random_range(0..CODE_ALPHABET.len())] as char)
        .collect();
    format!("{}-{}", &raw[..5], &raw[5..])
}

/// What a typed code is compared by: case, spaces and dashes do not matter.
fn code_hash(code: &str) -> String {
    let normal: String = code
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    hex::encode(Sha256::digest(normal.as_bytes()))
}

/// A setup key not yet redeemed, as listed (its code is never shown again).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SetupKey {
    pub id: String,
    pub name: String,
    pub role: Role,
    pub created_at: String,
    pub expires_at: String,
}

/// A setup key just created: the code, shown this once.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct NewSetupKey {
    #[serde(flatten)]
    pub key: SetupKey,
    /// The code to type on the device, such as `7KQ2M-XW9PD`.
    pub code: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Device {
    pub id: String,
    pub name: String,
    pub role: Role,
    /// The name of the setup key it was paired with.
    pub setup_key_name: String,
    pub paired_at: String,
    pub paired_address: Option<String>,
    pub last_seen_at: Option<String>,
    pub last_seen_address: Option<String>,
    pub revoked_at: Option<String>,
}

/// The setup key's refusals, each its own answer.
fn refuse(code: &'static str, detail: &str) -> ApiError {
    ApiError::new(rocket::http::Status::Unauthorized, code, detail)
}

/// Creates a setup key for `tenant_id`, valid `expires_in` from `now`.
pub fn create_setup_key(
    registry: &Connection,
    tenant_id: Uuid,
    name: &str,
    role: Role,
    expires_in: chrono::Duration,
    created_by: &str,
    now: DateTime<Utc>,
) -> Result<NewSetupKey, ApiError> {
    let code = new_code();
    let key = SetupKey {
        id: Uuid::now_v7().to_string(),
        name: name.to_string(),
        role,
        created_at: rfc3339(now),
        expires_at: rfc3339(now + expires_in),
    };
    registry.execute(
        "INSERT INTO setup_keys (id, tenant_id, name, role, code_hash, created_by, created_at, expires_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            key.id,
            tenant_id.to_string(),
            key.name,
            role.as_str(),
            code_hash(&code),
            created_by,
            key.created_at,
            key.expires_at
        ],
    )?;
    Ok(NewSetupKey { key, code })
}

fn parse_role(text: String) -> rusqlite::Result<Role> {
    text.parse().map_err(|e: String| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, e.into())
    })
}

/// The tenant's setup keys still waiting to be redeemed, newest first.
pub fn pending_setup_keys(
    registry: &Connection,
    tenant_id: Uuid,
    now: DateTime<Utc>,
) -> Result<Vec<SetupKey>, ApiError> {
    let mut stmt = registry.prepare_cached(
        "SELECT id, name, role, created_at, expires_at FROM setup_keys \
         WHERE tenant_id = ?1 AND used_at IS NULL AND expires_at > ?2 ORDER BY created_at DESC",
    )?;
    let rows = stmt.query_map(params![tenant_id.to_string(), rfc3339(now)], |r| {
        Ok(SetupKey {
            id: r.get(0)?,
            name: r.get(1)?,
            role: parse_role(r.get(2)?)?,
            created_at: r.get(3)?,
            expires_at: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Withdraws a setup key before it is used.
pub fn delete_setup_key(registry: &Connection, tenant_id: Uuid, id: &str) -> Result<(), ApiError> {
    let deleted = registry.execute(
        "DELETE FROM setup_keys WHERE id = ?1 AND tenant_id = ?2 AND used_at IS NULL",
        params![id, tenant_id.to_string()],
    )?;
    if deleted == 0 {
        return Err(ApiError::not_found("setup key"));
    }
    Ok(())
}

/// A device just paired, with the credential it keeps.
pub struct Paired {
    pub tenant_id: Uuid,
    pub device: Device,
    pub api_key: String,
}

/// Redeems `code`: creates the device and its API key, and uses the key up, in
/// one registry transaction, so two devices racing for one code cannot both win.
pub fn pair(
    registry: &mut Connection,
    code: &str,
    device_name: &str,
    address: Option<IpAddr>,
    now: DateTime<Utc>,
) -> Result<Paired, ApiError> {
    let tx = registry.transaction()?;
    let found: Option<(String, String, String, String, String, Option<String>)> = tx
        .query_row(
            "SELECT id, tenant_id, name, role, expires_at, used_at FROM setup_keys WHERE code_hash = ?1",
            [code_hash(code)],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
        )
        .optional()?;
    let (key_id, tenant_id, key_name, role, expires_at, used_at) =
        found.ok_or_else(|| refuse("invalid_setup_key", "no setup key has this code"))?;
    if used_at.is_some() {
        return Err(refuse(
            "setup_key_used",
            "this setup key was already used; ask a manager for a new one",
        ));
    }
    if expires_at <= rfc3339(now) {
        return Err(refuse(
            "setup_key_expired",
            "this setup key has expired; ask a manager for a new one",
        ));
    }
    let tenant: Uuid = tenant_id.parse().map_err(ApiError::internal)?;
    let role: Role = role.parse().map_err(ApiError::internal)?;
    let (device_id, api_key) = keys::create(&tx, tenant, device_name, role)?;
    let device = Device {
        id: device_id,
        name: device_name.to_string(),
        role,
        setup_key_name: key_name,
        paired_at: rfc3339(now),
        paired_address: address.map(|a| a.to_string()),
        last_seen_at: None,
        last_seen_address: None,
        revoked_at: None,
    };
    tx.execute(
        "INSERT INTO devices (id, tenant_id, name, role, setup_key_name, paired_at, paired_address) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            device.id,
            tenant_id,
            device.name,
            role.as_str(),
            device.setup_key_name,
            device.paired_at,
            device.paired_address
        ],
    )?;
    tx.execute(
        "UPDATE setup_keys SET used_at = ?2, device_id = ?3 WHERE id = ?1",
        params![key_id, device.paired_at, device.id],
    )?;
    tx.commit()?;
    Ok(Paired {
        tenant_id: tenant,
        device,
        api_key,
    })
}

const DEVICE_COLUMNS: &str = "id, name, role, setup_key_name, paired_at, paired_address, \
                              last_seen_at, last_seen_address, revoked_at";

fn device(r: &rusqlite::Row) -> rusqlite::Result<Device> {
    Ok(Device {
        id: r.get(0)?,
        name: r.get(1)?,
        role: parse_role(r.get(2)?)?,
        setup_key_name: r.get(3)?,
        paired_at: r.get(4)?,
        paired_address: r.get(5)?,
        last_seen_at: r.get(6)?,
        last_seen_address: r.get(7)?,
        revoked_at: r.get(8)?,
    })
}

/// The tenant's devices, revoked ones last, newest first.
pub fn list_devices(registry: &Connection, tenant_id: Uuid) -> Result<Vec<Device>, ApiError> {
    let mut stmt = registry.prepare_cached(&format!(
        "SELECT {DEVICE_COLUMNS} FROM devices WHERE tenant_id = ?1 \
         ORDER BY revoked_at IS NOT NULL, paired_at DESC"
    ))?;
    let rows = stmt.query_map([tenant_id.to_string()], device)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The tenant's device `id` if it is not revoked.
pub fn live_device(
    registry: &Connection,
    tenant_id: Uuid,
    id: &str,
) -> Result<Option<Device>, ApiError> {
    Ok(registry
        .prepare_cached(&format!(
            "SELECT {DEVICE_COLUMNS} FROM devices \
             WHERE id = ?1 AND tenant_id = ?2 AND revoked_at IS NULL"
        ))?
        .query_row(params![id, tenant_id.to_string()], device)
        .optional()?)
}

/// Ends a device's access at once: its API key is revoked with it.
pub fn revoke_device(
    registry: &mut Connection,
    tenant_id: Uuid,
    id: &str,
    now: DateTime<Utc>,
) -> Result<Device, ApiError> {
    let tx = registry.transaction()?;
    let now = rfc3339(now);
    let changed = tx.execute(
        "UPDATE devices SET revoked_at = COALESCE(revoked_at, ?3) WHERE id = ?1 AND tenant_id = ?2",
        params![id, tenant_id.to_string(), now],
    )?;
    if changed == 0 {
        return Err(ApiError::not_found("device"));
    }
    tx.execute(
        "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?2) WHERE id = ?1",
        params![id, now],
    )?;
    let revoked = tx.query_row(
        &format!("SELECT {DEVICE_COLUMNS} FROM devices WHERE id = ?1"),
        [id],
        device,
    )?;
    tx.commit()?;
    Ok(revoked)
}

/// Revoked device credentials, announced to the open event streams so a
/// revoked screen's stream ends at once rather than when it next reconnects.
pub struct Revocations(broadcast::Sender<String>);

impl Default for Revocations {
    fn default() -> Self {
        Revocations(broadcast::channel(64).0)
    }
}

impl Revocations {
    /// Tells every open stream that the API key `id` is revoked.
    pub fn announce(&self, id: &str) {
        // No stream open is no one to tell.
        let _ = self.0.send(id.to_string());
    }

    /// Resolves once the API key `id` is revoked, or once revocations were
    /// missed (the receiver fell behind): the stream then ends and the client's
    /// reconnection is authenticated afresh.
    pub async fn until_revoked(receiver: &mut broadcast::Receiver<String>, id: &str) {
        loop {
            match receiver.recv().await {
                Ok(revoked) if revoked == id => return,
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(_)) => return,
                Err(broadcast::error::RecvError::Closed) => std::future::pending().await,
            }
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<String> {
        self.0.subscribe()
    }
}

/// When each API key was last recorded as seen, so a busy terminal writes its
/// last-seen time to the registry about once a minute, not on every request.
#[derive(Default)]
pub struct LastSeen {
    recorded: Mutex<HashMap<String, (Instant, Option<IpAddr>)>>,
}

const SEEN_INTERVAL: Duration = Duration::from_secs(60);

impl LastSeen {
    /// Records that the API key `id` (a device's, or any other: then nothing is
    /// written) was used from `address` now, unless recorded within the last minute
    /// from the same address.
    pub fn record(
        &self,
        dbs: &Databases,
        id: &str,
        address: Option<IpAddr>,
        now: DateTime<Utc>,
    ) -> Result<(), ApiError> {
        {
            let mut recorded = crate::lock(&self.recorded);
            let fresh = Instant::now();
            if let Some((at, from)) = recorded.get(id) {
                if fresh.duration_since(*at) < SEEN_INTERVAL && *from == address {
                    return Ok(());
                }
            }
            recorded.retain(|_, (at, _)| fresh.duration_since(*at) < SEEN_INTERVAL);
            recorded.insert(id.to_string(), (fresh, address));
        }
        dbs.registry()?
            .prepare_cached(
                "UPDATE devices SET last_seen_at = ?2, last_seen_address = ?3 WHERE id = ?1",
            )?
            .execute(params![id, rfc3339(now), address.map(|a| a.to_string())])?;
        Ok(())
    }
}

/// What a setup key's QR code opens: the pairing page of the kitchen app on the
/// server at `origin` (such as `http://192.168.1.10:8000`), with the code as a
/// query parameter. The page posts `{code, device_name}` to `/devices/pair`.
pub fn pair_url(origin: &str, code: &str) -> String {
    format!("{}/kitchen/pair?code={code}", origin.trim_end_matches('/'))
}

fn qr_code(text: &str) -> Result<qrcode::QrCode, ApiError> {
    qrcode::QrCode::new(text.as_bytes()).map_err(ApiError::internal)
}

/// `text` as a QR code in SVG, for the admin screen.
pub fn qr_svg(text: &str) -> Result<String, ApiError> {
    Ok(qr_code(text)?
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(200, 200)
        .quiet_zone(true)
        .build())
}

/// `text` as a QR code for a terminal, two modules a character: dark modules are
/// spaces and light ones blocks, so it scans on a dark terminal background.
pub fn qr_terminal(text: &str) -> Result<String, ApiError> {
    Ok(qr_code(text)?
        .render::<qrcode::render::unicode::Dense1x2>()
        .dark_color(qrcode::render::unicode::Dense1x2::Light)
        .light_color(qrcode::render::unicode::Dense1x2::Dark)
        .quiet_zone(true)
        .build())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_typable_and_compared_loosely() {
        let code = new_code();
        assert_eq!(code.len(), CODE_LENGTH + 1);
        assert!(code
            .chars()
            .all(|c| c == '-' || CODE_ALPHABET.contains(&(c as u8))));
        let sloppy = code.to_lowercase().replace('-', " ");
        assert_eq!(code_hash(&sloppy), code_hash(&code));
        assert_ne!(code_hash(&new_code()), code_hash(&code));
    }
}
