//! Server settings. Defaults live here; the CLI (and its `BRIGADE_*` environment
//! variables) override them.

use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::time::Duration;

use crate::logging::LogLevel;
use crate::tls::TlsFiles;

#[derive(Debug, Clone)]
pub struct Config {
    pub data_dir: PathBuf,
    pub address: IpAddr,
    pub port: u16,
    /// Lifetime of a login token; a whole shift by default.
    pub token_ttl: Duration,
    /// `PRAGMA synchronous=FULL` instead of NORMAL: survives power loss of the last
    /// commits at the cost of an fsync per transaction.
    pub synchronous_full: bool,
    /// Login attempts allowed per minute for one account and for one client address.
    pub login_attempts_per_minute: u32,
    /// Requests per minute one client address may make to the public customer routes.
    pub public_requests_per_minute: u32,
    /// Largest JSON request body accepted, in bytes.
    pub json_limit: u64,
    /// How much goes to the log on stdout (off in tests).
    pub log_level: LogLevel,
    /// How long a webhook receiver has to answer; the contract says 10 s.
    pub webhook_timeout: Duration,
    /// The most threads sending webhooks at once. Each serves one tenant at a time;
    /// they start when a tenant is due and none is free, and end when long idle.
    pub webhook_workers: usize,
    /// Where the server backs itself up; no scheduled backups when `None`.
    pub backup_dir: Option<PathBuf>,
    /// How often the server backs itself up when `backup_dir` is set.
    pub backup_every: Duration,
    /// How many of the newest backups in `backup_dir` are kept.
    pub backup_keep: usize,
    /// HTTPS with these files; plain HTTP when `None`.
    pub tls: Option<TlsFiles>,
    /// Where partners reach the box (`https://pos.example.com`), for the
    /// webhook URLs the integrations screen shows; the server's own address
    /// when `None`.
    pub public_url: Option<String>,
}

impl Config {
    pub fn new(data_dir: PathBuf) -> Self {
        Config {
            data_dir,
            address: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            port: 8000,
            token_ttl: Duration::from_secs(12 * 3600),
            synchronous_full: false,
            login_attempts_per_minute: 10,
            public_requests_per_minute: 60,
            json_limit: 256 * 1024,
            log_level: LogLevel::Info,
            webhook_timeout: Duration::from_secs(10),
            webhook_workers: 64,
            backup_dir: None,
            backup_every: Duration::from_secs(24 * 3600),
            backup_keep: 7,
            tls: None,
            public_url: None,
        }
    }

    /// The base of the URLs partners are given: `public_url`, else this
    /// server's own scheme, address and port.
    pub fn public_base(&self) -> String {
        if let Some(url) = &self.public_url {
            return url.trim_end_matches('/').to_string();
        }
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        let host = if self.address.is_unspecified() {
            "localhost".to_string()
        } else if self.address.is_ipv6() {
            format!("[{}]", self.address)
        } else {
            self.address.to_string()
        };
        format!("{scheme}://{host}:{}", self.port)
    }
}
