//! Setup commands: tenants, users and API keys, run against the data dir directly.

use std::path::Path;

use clap::Subcommand;

use crate::auth::{keys, Role};
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
