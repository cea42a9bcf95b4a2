//! `brigade serve`: opens the data dir, seeds the demo tenant on a first start and
//! runs the HTTP server until interrupted.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::builder::BoolishValueParser;
use clap::{ArgAction, Args};

use crate::db::DataDirLock;
use crate::discovery::Announcement;
use crate::logging::LogLevel;
use crate::tls::{self, TlsMode};
use crate::{build_rocket, demo, App, Config};

#[derive(Args, Clone)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "BRIGADE_ADDRESS", default_value = "0.0.0.0")]
    address: IpAddr,
    /// Port to listen on.
    #[arg(long, env = "BRIGADE_PORT", default_value_t = 8000)]
    port: u16,
    /// Do not create the demo tenant on a first start.
    #[arg(long, env = "BRIGADE_NO_DEMO")]
    no_demo: bool,
    /// fsync every commit (PRAGMA synchronous=FULL): safer on power loss, slower.
    #[arg(long, env = "BRIGADE_SYNCHRONOUS_FULL")]
    synchronous_full: bool,
    /// Seconds a webhook receiver has to answer before the attempt counts as failed.
    #[arg(long, env = "BRIGADE_WEBHOOK_TIMEOUT", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=60))]
    webhook_timeout: u64,
    /// Back the server up into this folder on a schedule (one folder per backup).
    #[arg(long, env = "BRIGADE_BACKUP_DIR")]
    backup_dir: Option<PathBuf>,
    /// How often to back up when --backup-dir is set: a number and s, m, h or d.
    #[arg(long, env = "BRIGADE_BACKUP_EVERY", default_value = "24h", value_parser = parse_interval)]
    backup_every: Duration,
    /// How many of the newest backups in --backup-dir to keep.
    #[arg(long, env = "BRIGADE_BACKUP_KEEP", default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..))]
    backup_keep: u32,
    /// How much to log on stdout: off, error, warn, info (a line per request) or debug.
    #[arg(long, env = "BRIGADE_LOG_LEVEL", value_enum, default_value_t = LogLevel::Info)]
    log_level: LogLevel,
    /// HTTPS: `auto` makes the box's own certificate authority in the data dir and
    /// serves with a certificate it signs; `off` is plain HTTP, for one machine.
    #[arg(long, env = "BRIGADE_TLS", value_enum, default_value_t = TlsMode::Off)]
    tls: TlsMode,
    /// Serve HTTPS with this certificate chain (PEM) instead; needs --tls-key.
    #[arg(long, env = "BRIGADE_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --tls-cert.
    #[arg(long, env = "BRIGADE_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Announce the server on the LAN with mDNS as `_brigade._tcp`: on or off.
    #[arg(long, env = "BRIGADE_MDNS", default_value = "on", value_parser = BoolishValueParser::new(), action = ArgAction::Set)]
    mdns: bool,
    /// Where partners (delivery platforms, payment gateways) reach this box, such
    /// as https://pos.example.com: the base of the webhook URLs the integrations
    /// screen shows. Default: this server's own address.
    #[arg(long, env = "BRIGADE_PUBLIC_URL", value_parser = parse_public_url)]
    public_url: Option<String>,
}

/// An http or https URL with a host, without a query.
fn parse_public_url(text: &str) -> Result<String, String> {
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
        .ok_or("must start with https:// or http://")?;
    if rest.is_empty() || rest.starts_with('/') || text.contains(['?', '#', ' ']) {
        return Err("must be a URL with a host and no query, as https://pos.example.com".into());
    }
    Ok(text.trim_end_matches('/').to_string())
}

/// `90s`, `30m`, `24h` or `7d`.
fn parse_interval(text: &str) -> Result<Duration, String> {
    let unit_at = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or("add a unit: s, m, h or d, as in 24h")?;
    let (number, unit) = text.split_at(unit_at);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} does not start with a number"))?;
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86400,
        _ => return Err(format!("unknown unit {unit:?}; use s, m, h or d")),
    };
    match number.checked_mul(seconds) {
        Some(0) => Err("the interval must be longer than zero".into()),
        Some(total) => Ok(Duration::from_secs(total)),
        None => Err("the interval is too long".into()),
    }
}

pub fn run(data_dir: &Path, args: ServeArgs) -> Result<(), String> {
    // Held until the server stops: a restore refuses to replace files under it.
    let _serving = DataDirLock::acquire(data_dir)?;
    let mut config = Config::new(data_dir.to_path_buf());
    config.address = args.address;
    config.port = args.port;
    config.synchronous_full = args.synchronous_full;
    config.webhook_timeout = Duration::from_secs(args.webhook_timeout);
    config.backup_dir = args.backup_dir;
    config.backup_every = args.backup_every;
    config.backup_keep = args.backup_keep as usize;
    config.log_level = args.log_level;
    config.public_url = args.public_url.clone();
    config.tls = match (&args.tls_cert, &args.tls_key, args.tls) {
        (Some(cert), Some(key), _) => Some(tls::provided(cert, key)?),
        (_, _, TlsMode::Auto) => Some(tls::auto(data_dir, &tls::local_names())?),
        _ => None,
    };
    let config_tls = config.tls.clone();
    let app = App::open(config)?;
    let first_start = app.db.tenants().is_empty();
    let demo = if first_start && !args.no_demo {
        Some(demo::seed(&app).map_err(|e| format!("cannot create the demo tenant: {e}"))?)
    } else {
        None
    };
    let host = if args.address.is_unspecified() {
        "localhost".to_string()
    } else {
        args.address.to_string()
    };
    let scheme = if config_tls.is_some() {
        "https"
    } else {
        "http"
    };
    let base = format!("{scheme}://{host}:{}", args.port);
    println!(
        "Brigade {} serving data dir {}",
        env!("CARGO_PKG_VERSION"),
        data_dir.display()
    );
    println!("Admin app:    {base}/admin/");
    println!("API base URL: {base}/api/v1   (reference: {base}/api/v1/docs/)");
    if let Some(files) = &config_tls {
        let whose = if args.tls_cert.is_some() {
            "certificate"
        } else {
            "CA"
        };
        println!("TLS {whose} fingerprint (SHA-256): {}", files.fingerprint);
        if args.tls_cert.is_none() {
            println!("  Terminals trust the box after installing `brigade tls export-ca --out brigade-ca.pem`.");
        }
    }
    // Withdrawn when the server stops and this is dropped.
    let _announcement = if !args.mdns {
        None
    } else {
        let fingerprint = config_tls.as_ref().map(|files| files.fingerprint.as_str());
        match Announcement::start(args.port, fingerprint) {
            Ok(announcement) => Some(announcement),
            Err(message) => {
                eprintln!("warning: {message}; terminals must be given the address by hand");
                None
            }
        }
    };
    if let Some(demo) = demo {
        println!();
        println!(
            "Created the demo tenant {:?} (slug {}).",
            demo.tenant.name, demo.tenant.slug
        );
        println!("  Tenant id (X-Tenant-ID): {}", demo.tenant.id);
        println!("  Owner login: {}", demo.email);
        println!("  Password:    {}", demo.password);
        println!("This password is shown only once.");
    }
    rocket::execute(build_rocket(app).launch())
        .map(|_| ())
        .map_err(|e| format!("the server stopped: {e}"))
}

#[cfg(test)]
mod tests {
    use super::parse_interval;
    use std::time::Duration;

    #[test]
    fn intervals_take_a_number_and_a_unit() {
        assert_eq!(parse_interval("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_interval("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_interval("24h"), Ok(Duration::from_secs(86400)));
        assert_eq!(parse_interval("7d"), Ok(Duration::from_secs(7 * 86400)));
        for bad in ["24", "h", "0h", "1w", "-1h", "1.5h", ""] {
            assert!(parse_interval(bad).is_err(), "{bad}");
        }
    }
}
