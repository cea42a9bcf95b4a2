//! Staff accounts: stored in the tenant's file, indexed by email in the registry so
//! a login can find its tenant. Each has a role, contact details, an hourly wage,
//! an optional POS PIN (stored as a keyed digest, see [`model::pin_digest`]) and a
//! token generation that ends its sessions when raised.

pub mod model;
pub mod queries;

pub use model::*;
pub use queries::*;

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use uuid::Uuid;

use crate::auth::{passwords, Role};
use crate::db::{Databases, TenantDb};
use crate::error::ApiError;
use crate::time::now_rfc3339;

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct User {
    pub id: String,
    pub name: String,
    pub email: String,
    pub role: Role,
}

/// A user with what login needs to check.
pub struct Account {
    pub user: User,
    pub password_hash: String,
    pub active: bool,
    pub must_change_password: bool,
    pub token_generation: i64,
}

pub fn find_account(conn: &Connection, id: &str) -> Result<Option<Account>, ApiError> {
    type Row = (String, String, String, String, String, bool, bool, i64);
    let row: Option<Row> = conn
        .prepare_cached(
            "SELECT id, name, email, role, password_hash, active, must_change_password, \
             token_generation FROM users WHERE id = ?1",
        )?
        .query_row([id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
            ))
        })
        .optional()?;
    row.map(
        |(id, name, email, role, password_hash, active, must_change_password, token_generation)| {
            Ok(Account {
                user: User {
                    id,
                    name,
                    email,
                    role: role.parse().map_err(ApiError::internal)?,
                },
                password_hash,
                active,
                must_change_password,
                token_generation,
            })
        },
    )
    .transpose()
}

/// What every request of a logged-in user checks: their current role, whether
/// they are active, which token generation is valid, and whether they must
/// change their password first.
pub struct Standing {
    pub role: Role,
    pub active: bool,
    pub token_generation: i64,
    pub must_change_password: bool,
}

/// Read on every request (one indexed row), so a demotion, deactivation or
/// password reset takes effect at once rather than when the token expires.
pub fn standing(conn: &Connection, id: &str) -> Result<Option<Standing>, ApiError> {
    let row: Option<(String, bool, i64, bool)> = conn
        .prepare_cached(
            "SELECT role, active, token_generation, must_change_password FROM users WHERE id = ?1",
        )?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .optional()?;
    row.map(|(role, active, token_generation, must_change_password)| {
        Ok(Standing {
            role: role.parse().map_err(ApiError::internal)?,
            active,
            token_generation,
            must_change_password,
        })
    })
    .transpose()
}

pub fn validate_email(email: &str) -> Result<String, String> {
    let email = email.trim().to_lowercase();
    let valid = email.len() <= 254
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && domain.contains('.') && !domain.starts_with('.')
        })
        && !email.contains(char::is_whitespace);
    if valid {
        Ok(email)
    } else {
        Err(format!("{email:?} is not a valid email address"))
    }
}

/// Creates a staff account in `tenant` and indexes its email for login.
pub fn create_user(
    dbs: &Databases,
    tenant: &TenantDb,
    email: &str,
    name: &str,
    role: Role,
    password: &str,
) -> Result<User, ApiError> {
    let email = validate_email(email).map_err(|m| ApiError::invalid_field("email", m))?;
    if password.chars().count() < passwords::MIN_LENGTH {
        return Err(ApiError::invalid_field(
            "password",
            format!("must be at least {} characters", passwords::MIN_LENGTH),
        ));
    }
    let user = User {
        id: Uuid::now_v7().to_string(),
        name: name.trim().to_string(),
        email,
        role,
    };
    let hash = passwords::hash(password).map_err(ApiError::internal)?;
    tenant.write(|tx| {
        let now = now_rfc3339();
        tx.execute(
            "INSERT INTO users (id, email, name, role, password_hash, created_at, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
            params![user.id, user.email, user.name, role.as_str(), hash, now],
        )?;
        Ok(())
    })?;
    index_email(dbs, tenant.info.id, &user.id, &user.email)?;
    Ok(user)
}

/// Points the registry's login index at the user's current email, so login finds
/// their tenant.
pub fn index_email(
    dbs: &Databases,
    tenant_id: Uuid,
    user_id: &str,
    email: &str,
) -> Result<(), ApiError> {
    let mut registry = dbs.registry()?;
    let tx = registry.transaction()?;
    tx.execute(
        "DELETE FROM login_index WHERE tenant_id = ?1 AND user_id = ?2",
        params![tenant_id.to_string(), user_id],
    )?;
    tx.execute(
        "INSERT OR REPLACE INTO login_index (email, tenant_id, user_id) VALUES (?1, ?2, ?3)",
        params![email, tenant_id.to_string(), user_id],
    )?;
    tx.commit()?;
    Ok(())
}
