//! Staff SQL and the rules of changing accounts: only an owner touches an owner,
//! the last active owner stays one, and deactivation or a password reset ends
//! every session of the account at once (its token generation goes up).

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::model::{StaffChanges, StaffFields, StaffMember};
use super::User;
use crate::auth::Role;
use crate::domain::{settings, Tx};
use crate::error::ApiError;

const COLUMNS: &str = "id, name, email, role, phone, hourly_wage, pin_digest IS NOT NULL, \
                       active, must_change_password, created_at, updated_at";

fn member(r: &Row, exponent: u32) -> rusqlite::Result<StaffMember> {
    let role: String = r.get(3)?;
    let wage: Option<i64> = r.get(5)?;
    Ok(StaffMember {
        id: r.get(0)?,
        name: r.get(1)?,
        email: r.get(2)?,
        role: role.parse().map_err(|e: String| {
            rusqlite::Error::FromSqlConversionFailure(3, rusqlite::types::Type::Text, e.into())
        })?,
        phone: r.get(4)?,
        hourly_wage: Some(wage.map(|w| crate::money::to_json(w, exponent))),
        has_pin: r.get(6)?,
        active: r.get(7)?,
        must_change_password: r.get(8)?,
        created_at: r.get(9)?,
        updated_at: r.get(10)?,
    })
}

/// Staff in the order they were added, `limit + 1` rows after `cursor` (an id).
pub fn list_staff(
    conn: &Connection,
    active: Option<bool>,
    cursor: Option<&str>,
    limit: u32,
) -> Result<Vec<StaffMember>, ApiError> {
    let exponent = settings::load(conn)?.exponent();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM users WHERE (?1 IS NULL OR active = ?1) AND (?2 IS NULL OR id > ?2) \
         ORDER BY id LIMIT ?3"
    ))?;
    let rows = stmt.query_map(params![active, cursor, limit + 1], |r| member(r, exponent))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn get_staff(conn: &Connection, id: &str) -> Result<StaffMember, ApiError> {
    let exponent = settings::load(conn)?.exponent();
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM users WHERE id = ?1"))?
        .query_row([id], |r| member(r, exponent))
        .optional()?
        .ok_or_else(|| ApiError::not_found("user"))
}

fn refuse_taken_pin(tx: &Tx, digest: &str, user_id: &str) -> Result<(), ApiError> {
    let taken = tx
        .prepare_cached("SELECT 1 FROM users WHERE pin_digest = ?1 AND id <> ?2")?
        .exists(params![digest, user_id])?;
    if taken {
        return Err(ApiError::conflict(
            "pin_taken",
            "another staff member has this PIN; choose another",
        )
        .with("field", "pin"));
    }
    Ok(())
}

/// Adds a staff member whose (temporary) password is `password_hash`.
pub fn insert_staff(
    tx: &mut Tx,
    acting: Role,
    fields: &StaffFields,
    password_hash: &str,
    pin_digest: Option<&str>,
) -> Result<StaffMember, ApiError> {
    if fields.role == Role::Owner && acting != Role::Owner {
        return Err(owner_protected());
    }
    let id = uuid::Uuid::now_v7().to_string();
    if let Some(digest) = pin_digest {
        refuse_taken_pin(tx, digest, &id)?;
    }
    tx.execute(
        "INSERT INTO users (id, email, name, role, password_hash, phone, hourly_wage, pin_digest, \
         must_change_password, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, ?9, ?9)",
        params![
            id,
            fields.email,
            fields.name,
            fields.role.as_str(),
            password_hash,
            fields.phone,
            fields.hourly_wage,
            pin_digest,
            tx.now_text()
        ],
    )?;
    get_staff(tx, &id)
}

/// The target's role and standing, refusing a manager's change to an owner.
fn target(tx: &Tx, acting: Role, id: &str) -> Result<(Role, bool), ApiError> {
    let (role, active): (String, bool) = tx
        .prepare_cached("SELECT role, active FROM users WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?
        .ok_or_else(|| ApiError::not_found("user"))?;
    let role: Role = role.parse().map_err(ApiError::internal)?;
    if role == Role::Owner && acting != Role::Owner {
        return Err(owner_protected());
    }
    Ok((role, active))
}

fn owner_protected() -> ApiError {
    ApiError::forbidden(
        "owner_protected",
        "only an owner may add, change or deactivate an owner",
    )
}

/// Refuses a change that would leave the business without an active owner.
fn keep_an_owner(tx: &Tx, id: &str) -> Result<(), ApiError> {
    let others: i64 = tx.query_row(
        "SELECT COUNT(*) FROM users WHERE role = 'owner' AND active = 1 AND id <> ?1",
        [id],
        |r| r.get(0),
    )?;
    if others == 0 {
        return Err(ApiError::conflict(
            "last_owner",
            "this is the last active owner; make someone else an owner first",
        ));
    }
    Ok(())
}

pub fn update_staff(
    tx: &mut Tx,
    acting: Role,
    id: &str,
    changes: &StaffChanges,
) -> Result<StaffMember, ApiError> {
    let (role, active) = target(tx, acting, id)?;
    if let Some(new_role) = changes.role {
        if new_role == Role::Owner && acting != Role::Owner {
            return Err(owner_protected());
        }
        if role == Role::Owner && new_role != Role::Owner && active {
            keep_an_owner(tx, id)?;
        }
    }
    if let Some(Some(digest)) = &changes.pin_digest {
        refuse_taken_pin(tx, digest, id)?;
    }
    tx.execute(
        "UPDATE users SET \
           name = COALESCE(?2, name), email = COALESCE(?3, email), role = COALESCE(?4, role), \
           phone = CASE WHEN ?5 THEN ?6 ELSE phone END, \
           hourly_wage = CASE WHEN ?7 THEN ?8 ELSE hourly_wage END, \
           pin_digest = CASE WHEN ?9 THEN ?10 ELSE pin_digest END, \
           updated_at = ?11 \
         WHERE id = ?1",
        params![
            id,
            changes.name,
            changes.email,
            changes.role.map(Role::as_str),
            changes.phone.is_some(),
            changes.phone.clone().flatten(),
            changes.hourly_wage.is_some(),
            changes.hourly_wage.flatten(),
            changes.pin_digest.is_some(),
            changes.pin_digest.clone().flatten(),
            tx.now_text()
        ],
    )?;
    get_staff(tx, id)
}

/// Deactivates an account: it can no longer log in, and every token it holds is
/// refused from now on, even after a reactivation.
pub fn deactivate_staff(tx: &mut Tx, acting: Role, id: &str) -> Result<StaffMember, ApiError> {
    let (role, active) = target(tx, acting, id)?;
    if !active {
        return Err(ApiError::illegal_transition("user", "inactive", "inactive"));
    }
    if role == Role::Owner {
        keep_an_owner(tx, id)?;
    }
    tx.execute(
        "UPDATE users SET active = 0, token_generation = token_generation + 1, updated_at = ?2 \
         WHERE id = ?1",
        params![id, tx.now_text()],
    )?;
    get_staff(tx, id)
}

pub fn reactivate_staff(tx: &mut Tx, acting: Role, id: &str) -> Result<StaffMember, ApiError> {
    let (_, active) = target(tx, acting, id)?;
    if active {
        return Err(ApiError::illegal_transition("user", "active", "active"));
    }
    tx.execute(
        "UPDATE users SET active = 1, updated_at = ?2 WHERE id = ?1",
        params![id, tx.now_text()],
    )?;
    get_staff(tx, id)
}

/// Sets a temporary password the user must change at their next login, and ends
/// their sessions.
pub fn reset_password(
    tx: &mut Tx,
    acting: Role,
    id: &str,
    password_hash: &str,
) -> Result<StaffMember, ApiError> {
    target(tx, acting, id)?;
    tx.execute(
        "UPDATE users SET password_hash = ?2, must_change_password = 1, \
           token_generation = token_generation + 1, updated_at = ?3 WHERE id = ?1",
        params![id, password_hash, tx.now_text()],
    )?;
    get_staff(tx, id)
}

/// Sets the user's own new password and ends their other sessions; returns the
/// new token generation, for the token that replaces the caller's.
pub fn change_password(tx: &mut Tx, id: &str, password_hash: &str) -> Result<i64, ApiError> {
    tx.query_row(
        "UPDATE users SET password_hash = ?2, must_change_password = 0, \
           token_generation = token_generation + 1, updated_at = ?3 WHERE id = ?1 AND active = 1 \
         RETURNING token_generation",
        params![id, password_hash, tx.now_text()],
        |r| r.get(0),
    )
    .optional()?
    .ok_or_else(|| ApiError::unauthorized("the account is no longer active"))
}

/// The active user whose PIN has this digest.
pub fn find_by_pin(conn: &Connection, digest: &str) -> Result<Option<(User, i64)>, ApiError> {
    let row: Option<(String, String, String, String, i64)> = conn
        .prepare_cached(
            "SELECT id, name, email, role, token_generation FROM users \
             WHERE pin_digest = ?1 AND active = 1",
        )?
        .query_row([digest], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .optional()?;
    row.map(|(id, name, email, role, generation)| {
        let role = role.parse().map_err(ApiError::internal)?;
        Ok((
            User {
                id,
                name,
                email,
                role,
            },
            generation,
        ))
    })
    .transpose()
}
