//! Setup commands: tenants, users, API keys and setup keys, run against the data
//! dir directly.

use std::path::Path;

use clap::Subcommand;

use crate::auth::{devices, keys, Role};
use crate::db::{Databases, TenantInfo};
use crate::domain::staff;

#[derive(Subcommand)]
pub enum TenantCommand {
    /// Create a tenant and print its id.
    Create {
        #[arg(long)]
        name: String,
        /// Short name used in public URLs: lowercase letters, digits and hyphens.
        #[arg(long)]
        slug: String,
        /// ISO 4217 currency code.
        #[arg(long, default_value = "USD")]
        currency: String,
        /// IANA time zone, such as Europe/Paris; defines the business day.
        #[arg(long, default_value = "UTC")]
        timezone: String,
    },
    /// List tenants.
    List,
}

#[derive(Subcommand)]
pub enum UserCommand {
    /// Create a staff account.
    Create {
        /// Tenant slug or id.
        #[arg(long)]
        tenant: String,
        #[arg(long)]
        email: String,
        #[arg(long)]
        name: String,
        /// owner, manager, cashier, server, host or kitchen.
        #[arg(long)]
        role: Role,
        /// Prompted for when omitted.
        #[arg(long, env = "BRIGADE_USER_PASSWORD")]
        password: Option<String>,
    },
}

#[derive(Subcommand)]
pub enum ApiKeyCommand {
    /// Create an API key; it is printed once and only its hash is kept.
    Create {
        /// Tenant slug or id.
        #[arg(long)]
        tenant: String,
        #[arg(long)]
        name: String,
        #[arg(long)]
        role: Role,
    },
}

#[derive(Subcommand)]
pub enum SetupKeyCommand {
    /// Create a setup key to pair a device; prints its code and a QR code once.
    Create {
        /// Tenant slug or id.
        #[arg(long)]
        tenant: String,
        /// What the device is for, such as "Kitchen 1".
        #[arg(long)]
        name: String,
        /// The role the device acts with; any role but owner.
        #[arg(long)]
        role: Role,
        /// How long the key stays valid: minutes, hours or days, such as 30m, 2h,
        /// 7d (at most 7 days).
        #[arg(long, default_value = "15m", value_parser = parse_expiry)]
        expires: i64,
        /// The server's address as devices reach it, carried by the QR code.
        #[arg(
            long,
            env = "BRIGADE_SERVER_URL",
            default_value = "http://localhost:8000"
        )]
        server_url: String,
    },
}

/// `30m`, `2h` or `7d` as minutes, from 1 minute to 7 days.
fn parse_expiry(text: &str) -> Result<i64, String> {
    let text = text.trim();
    let split = text.len().saturating_sub(1);
    let (number, unit) = text.split_at(split);
    let per_unit = match unit {
        "m" => 1,
        "h" => 60,
        "d" => 24 * 60,
        _ => return Err("give a number of minutes, hours or days, such as 30m, 2h or 7d".into()),
    };
    let minutes = number
        .parse::<i64>()
        .ok()
        .and_then(|n| n.checked_mul(per_unit))
        .ok_or_else(|| format!("{text:?} is not a duration such as 30m, 2h or 7d"))?;
    if !(1..=devices::MAX_EXPIRY_MINUTES).contains(&minutes) {
        return Err("a setup key lasts from 1 minute to 7 days".into());
    }
    Ok(minutes)
}

impl clap::ValueEnum for Role {
    fn value_variants<'a>() -> &'a [Self] {
        &Role::ALL
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()))
    }
}

fn open(data_dir: &Path) -> Result<Databases, String> {
    Databases::open(data_dir, false)
}

fn find_tenant(dbs: &Databases, tenant: &str) -> Result<TenantInfo, String> {
    dbs.find_tenant(tenant)
        .ok_or_else(|| format!("no tenant {tenant:?}; see `brigade tenant list`"))
}

pub fn valid_slug(slug: &str) -> bool {
    (2..=40).contains(&slug.len())
        && slug
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !slug.starts_with('-')
        && !slug.ends_with('-')
}

pub fn tenant(data_dir: &Path, command: TenantCommand) -> Result<(), String> {
    let dbs = open(data_dir)?;
    match command {
        TenantCommand::Create {
            name,
            slug,
            currency,
            timezone,
        } => {
            if !valid_slug(&slug) {
                return Err("the slug must be 2 to 40 lowercase letters, digits or hyphens".into());
            }
            if dbs.tenant_by_slug(&slug).is_some() {
                return Err(format!("a tenant with slug {slug:?} already exists"));
            }
            if name.trim().is_empty() {
                return Err("the name must not be empty".into());
            }
            if currency.len() != 3 || !currency.chars().all(|c| c.is_ascii_uppercase()) {
                return Err("the currency must be an ISO 4217 code such as USD".into());
            }
            if timezone.parse::<chrono_tz::Tz>().is_err() {
                return Err(format!(
                    "unknown time zone {timezone:?}; use an IANA name such as Europe/Paris"
                ));
            }
            let db = dbs
                .create_tenant(name.trim(), &slug, &currency, &timezone)
                .map_err(|e| e.detail)?;
            println!("{}", db.info.id);
        }
        TenantCommand::List => {
            println!("{:<36}  {:<20}  NAME", "ID", "SLUG");
            for t in dbs.tenants() {
                println!("{:<36}  {:<20}  {}", t.id, t.slug, t.name);
            }
        }
    }
    Ok(())
}

pub fn user(data_dir: &Path, command: UserCommand) -> Result<(), String> {
    let dbs = open(data_dir)?;
    let UserCommand::Create {
        tenant,
        email,
        name,
        role,
        password,
    } = command;
    let info = find_tenant(&dbs, &tenant)?;
    let password = match password {
        Some(p) => p,
        None => {
            let first = rpassword::prompt_password("Password: ").map_err(|e| e.to_string())?;
            let again =
                rpassword::prompt_password("Repeat password: ").map_err(|e| e.to_string())?;
            if first != again {
                return Err("the passwords differ".into());
            }
            first
        }
    };
    if name.trim().is_empty() {
        return Err("the name must not be empty".into());
    }
    let db = dbs.tenant(info.id).map_err(|e| e.detail)?;
    let user =
        staff::create_user(&dbs, &db, &email, &name, role, &password).map_err(|e| e.detail)?;
    println!("{}", user.id);
    Ok(())
}

pub fn api_key(data_dir: &Path, command: ApiKeyCommand) -> Result<(), String> {
    let dbs = open(data_dir)?;
    let ApiKeyCommand::Create { tenant, name, role } = command;
    let info = find_tenant(&dbs, &tenant)?;
    if name.trim().is_empty() {
        return Err("the name must not be empty".into());
    }
    let registry = dbs.registry().map_err(|e| e.detail)?;
    let (_, key) =
        keys::create(&registry, info.id, name.trim(), role).map_err(|e| e.to_string())?;
    println!("{key}");
    eprintln!("Store this key now: it is not shown again.");
    Ok(())
}

pub fn setup_key(data_dir: &Path, command: SetupKeyCommand) -> Result<(), String> {
    let dbs = open(data_dir)?;
    let SetupKeyCommand::Create {
        tenant,
        name,
        role,
        expires,
        server_url,
    } = command;
    let info = find_tenant(&dbs, &tenant)?;
    if name.trim().is_empty() {
        return Err("the name must not be empty".into());
    }
    if role == Role::Owner {
        return Err("a device cannot act as an owner".into());
    }
    let registry = dbs.registry().map_err(|e| e.detail)?;
    let key = devices::create_setup_key(
        &registry,
        info.id,
        name.trim(),
        role,
        chrono::Duration::minutes(expires),
        "system:cli",
        chrono::Utc::now(),
    )
    .map_err(|e| e.detail)?;
    let url = devices::pair_url(&server_url, &key.code);
    let qr = devices::qr_terminal(&url).map_err(|e| e.detail)?;
    println!(
        "Setup key for {:?} ({}) of {}",
        key.key.name,
        role.as_str(),
        info.name
    );
    println!("Code:        {}", key.code);
    println!("Pairing URL: {url}");
    println!("Valid until: {}", key.key.expires_at);
    println!();
    println!("{qr}");
    eprintln!("The code is shown only now, and works once.");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_expiry;

    #[test]
    fn expiry_is_minutes_hours_or_days_up_to_a_week() {
        assert_eq!(parse_expiry("30m"), Ok(30));
        assert_eq!(parse_expiry("2h"), Ok(120));
        assert_eq!(parse_expiry("7d"), Ok(7 * 24 * 60));
        for bad in ["8d", "0m", "30", "m", "-5m", "1.5h", ""] {
            assert!(parse_expiry(bad).is_err(), "{bad:?}");
        }
    }
}
