//! Staff members: the view, request shapes and their checks, and the POS PIN.

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use utoipa::ToSchema;

use crate::auth::Role;
use crate::domain::validate::{nullable, Checks};
use crate::error::ApiError;

/// A staff member as the staff screens show them.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StaffMember {
    pub id: String,
    pub name: String,
    pub email: String,
    pub role: Role,
    pub phone: Option<String>,
    /// Per hour, in the business's currency; present only for owners and managers.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<f64>)]
    pub hourly_wage: Option<Option<f64>>,
    /// Whether a POS PIN is set (the PIN itself is never shown).
    pub has_pin: bool,
    pub active: bool,
    /// Set by a password reset: the next login must choose a new password.
    pub must_change_password: bool,
    pub created_at: String,
    pub updated_at: String,
}

impl StaffMember {
    /// Leaves the wage out, for callers who may not see wages.
    pub fn without_wage(mut self) -> Self {
        self.hourly_wage = None;
        self
    }
}

/// A new staff member. The password is temporary: they choose their own at first login.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewStaffMember {
    #[schema(min_length = 1, max_length = 120, pattern = r"\S")]
    pub name: String,
    #[schema(max_length = 254)]
    pub email: String,
    pub role: Role,
    /// At least 8 characters, at most 1024 bytes.
    #[schema(min_length = 8, max_length = 1024)]
    pub password: String,
    #[schema(max_length = 40)]
    pub phone: Option<String>,
    /// In the currency's major units, with at most its number of decimals.
    #[schema(minimum = 0, maximum = 10000000)]
    pub hourly_wage: Option<f64>,
    /// 4 to 6 digits, unique in the business.
    #[schema(pattern = "^[0-9]{4,6}$")]
    pub pin: Option<String>,
}

/// Changes to a staff member; `null` clears phone, wage or PIN.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StaffPatch {
    #[schema(min_length = 1, max_length = 120, pattern = r"\S")]
    pub name: Option<String>,
    #[schema(max_length = 254)]
    pub email: Option<String>,
    pub role: Option<Role>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, max_length = 40)]
    pub phone: Option<Option<String>>,
    /// In the currency's major units, with at most its number of decimals.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 10000000)]
    pub hourly_wage: Option<Option<f64>>,
    /// 4 to 6 digits, unique in the business.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, pattern = "^[0-9]{4,6}$")]
    pub pin: Option<Option<String>>,
}

/// Checked fields of a staff member, wage in minor units.
#[derive(Debug, Clone)]
pub struct StaffFields {
    pub name: String,
    pub email: String,
    pub role: Role,
    pub phone: Option<String>,
    pub hourly_wage: Option<i64>,
}

pub const PHONE_MAX: usize = 40;
pub const NAME_MAX: usize = 120;

/// Checked changes of a staff member; the PIN comes as its digest, made where the
/// tenant's PIN key is at hand.
#[derive(Debug, Default)]
pub struct StaffChanges {
    pub name: Option<String>,
    pub email: Option<String>,
    pub role: Option<Role>,
    pub phone: Option<Option<String>>,
    pub hourly_wage: Option<Option<i64>>,
    pub pin_digest: Option<Option<String>>,
}

fn check_email(checks: &mut Checks, email: &str) -> String {
    super::validate_email(email).unwrap_or_else(|message| {
        checks.fail("email", message);
        email.to_string()
    })
}

fn check_wage(checks: &mut Checks, wage: Option<f64>, exponent: u32) -> Option<i64> {
    wage.map(|w| checks.money("hourly_wage", w, exponent))
}

/// Checks a new staff member; the wage in minor units of a currency with `exponent` decimals.
pub fn check_new(new: &NewStaffMember, exponent: u32) -> Result<StaffFields, ApiError> {
    let mut checks = Checks::new();
    let fields = StaffFields {
        name: checks.text("name", &new.name, NAME_MAX),
        email: check_email(&mut checks, &new.email),
        role: new.role,
        phone: checks.optional_text("phone", new.phone.as_deref(), PHONE_MAX),
        hourly_wage: check_wage(&mut checks, new.hourly_wage, exponent),
    };
    check_password(&mut checks, "password", &new.password);
    if let Some(pin) = &new.pin {
        check_pin(&mut checks, "pin", pin);
    }
    checks.finish()?;
    Ok(fields)
}

/// Checks a patch; `pin_digest` makes the stored form of a new PIN.
pub fn check_patch(
    patch: &StaffPatch,
    exponent: u32,
    pin_digest: impl Fn(&str) -> String,
) -> Result<StaffChanges, ApiError> {
    let mut checks = Checks::new();
    let changes = StaffChanges {
        name: patch
            .name
            .as_ref()
            .map(|n| checks.text("name", n, NAME_MAX)),
        email: patch.email.as_ref().map(|e| check_email(&mut checks, e)),
        role: patch.role,
        phone: patch
            .phone
            .as_ref()
            .map(|p| checks.optional_text("phone", p.as_deref(), PHONE_MAX)),
        hourly_wage: patch
            .hourly_wage
            .map(|w| check_wage(&mut checks, w, exponent)),
        pin_digest: patch.pin.as_ref().map(|pin| {
            pin.as_ref().map(|pin| {
                check_pin(&mut checks, "pin", pin);
                pin_digest(pin)
            })
        }),
    };
    checks.finish()?;
    Ok(changes)
}

/// Checks a PIN: 4 to 6 digits.
pub fn check_pin(checks: &mut Checks, field: &str, pin: &str) {
    if !(4..=6).contains(&pin.len()) || !pin.bytes().all(|b| b.is_ascii_digit()) {
        checks.fail(field, "must be 4 to 6 digits");
    }
}

/// Checks a new password's length.
pub fn check_password(checks: &mut Checks, field: &str, password: &str) {
    let min = crate::auth::passwords::MIN_LENGTH;
    if password.chars().count() < min {
        checks.fail(field, format!("must be at least {min} characters"));
    } else if password.len() > 1024 {
        checks.fail(field, "must be at most 1024 bytes");
    }
}

/// The name of the tenant's PIN key among the registry's server secrets.
pub fn pin_key_name(tenant_id: uuid::Uuid) -> String {
    format!("pin_key:{tenant_id}")
}

/// The stored form of a PIN: HMAC-SHA256 under the tenant's PIN key.
///
/// A PIN has at most a million values, so no hash, however slow, survives an
/// offline search by whoever holds both the digests and their inputs; and a
/// salted hash (argon2) could not be looked up or kept unique by an index. A
/// keyed hash is deterministic, so the unique index and the sign-in lookup
/// work, and its key lives in the registry, apart from the tenant file that
/// holds the digests: a copied tenant file alone reveals no PIN. Online guessing
/// is held back by the per-device limit on wrong PINs.
pub fn pin_digest(pin_key: &[u8], pin: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(pin_key).expect("HMAC takes a key of any length");
    mac.update(pin.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_are_four_to_six_digits() {
        for (pin, ok) in [
            ("1234", true),
            ("123456", true),
            ("123", false),
            ("1234567", false),
            ("12a4", false),
            ("", false),
        ] {
            let mut checks = Checks::new();
            check_pin(&mut checks, "pin", pin);
            assert_eq!(checks.is_ok(), ok, "{pin:?}");
        }
    }

    #[test]
    fn a_pin_digest_depends_on_the_key() {
        assert_eq!(pin_digest(b"k1", "1234"), pin_digest(b"k1", "1234"));
        assert_ne!(pin_digest(b"k1", "1234"), pin_digest(b"k2", "1234"));
        assert_ne!(pin_digest(b"k1", "1234"), pin_digest(b"k1", "1235"));
    }
}
