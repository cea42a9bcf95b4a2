//! Staff accounts: stored in the tenant's file, indexed by email in the registry so
//! a login can find its tenant.

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
}

pub fn find_account(conn: &Connection, id: &str) -> Result<Option<Account>, ApiError> {
    let row: Option<(String, String, String, String, String, bool)> = conn
        .query_row(
            "SELECT id, name, email, role, password_hash, active FROM users WHERE id = ?1",
            [id],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            },
        )
        .optional()?;
    row.map(|(id, name, email, role, password_hash, active)| {
        Ok(Account {
            user: User {
                id,
                name,
                email,
                role: role.parse().map_err(ApiError::internal)?,
            },
            password_hash,
            active,
        })
    })
    .transpose()
}

/// The role of an active user; `None` for an unknown or deactivated one. Read on
/// every request, so a demotion or deactivation takes effect at once.
pub fn active_role(conn: &Connection, id: &str) -> Result<Option<Role>, ApiError> {
    let row: Option<(String, bool)> = conn
        .prepare_cached("SELECT role, active FROM users WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    match row {
        Some((role, true)) => role.parse().map(Some).map_err(ApiError::internal),
        _ => Ok(None),
    }
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
    dbs.registry()?.execute(
        "INSERT OR REPLACE INTO login_index (email, tenant_id, user_id) VALUES (?1, ?2, ?3)",
        params![user.email, tenant.info.id.to_string(), user.id],
    )?;
    Ok(user)
}
