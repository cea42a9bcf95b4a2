//! API keys: `brk_` followed by 40 random characters. Only a SHA-256 of the key is
//! stored (a fast hash is enough for a high-entropy secret); the key is shown once.

use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::Role;

pub const PREFIX: &str = "brk_";

pub fn digest(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// A key found in the registry.
pub struct KeyRecord {
    pub id: String,
    pub tenant_id: Uuid,
    pub role: Role,
}

/// Creates a key for `tenant_id` and returns `(id, key)`; the key is not kept.
pub fn create(
    registry: &Connection,
    tenant_id: Uuid,
    name: &str,
    role: Role,
) -> rusqlite::Result<(String, String)> {
    let key = format!("{PREFIX}{}", super::random_token(40));
    let id = Uuid::now_v7().to_string();
    registry.execute(
        "INSERT INTO api_keys (id, tenant_id, name, role, key_hash, key_prefix, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            id,
            tenant_id.to_string(),
            name,
            role.as_str(),
            digest(&key),
            &key[..PREFIX.len() + 6],
            crate::time::now_rfc3339()
        ],
    )?;
    Ok((id, key))
}

/// The live (unrevoked) key matching `key`, if any.
pub fn find(registry: &Connection, key: &str) -> rusqlite::Result<Option<KeyRecord>> {
    registry
        .prepare_cached(
            "SELECT id, tenant_id, role FROM api_keys WHERE key_hash = ?1 AND revoked_at IS NULL",
        )?
        .query_row([digest(key)], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })
        .optional()
        .map(|found| {
            found.and_then(|(id, tenant, role)| {
                Some(KeyRecord {
                    id,
                    tenant_id: tenant.parse().ok()?,
                    role: role.parse().ok()?,
                })
            })
        })
}
