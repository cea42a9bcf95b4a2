//! `brigade serve`: opens the data dir, seeds the demo tenant on a first start and
//! runs the HTTP server until interrupted.

use std::net::IpAddr;
use std::path::Path;

use clap::Args;

use crate::db::DataDirLock;
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
}

pub fn run(data_dir: &Path, args: ServeArgs) -> Result<(), String> {
    // Held until the server stops: a restore refuses to replace files under it.
    let _serving = DataDirLock::acquire(data_dir)?;
    let mut config = Config::new(data_dir.to_path_buf());
    config.address = args.address;
    config.port = args.port;
    config.synchronous_full = args.synchronous_full;
    config.webhook_timeout = std::time::Duration::from_secs(args.webhook_timeout);
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
    let base = format!("http://{host}:{}", args.port);
    println!(
        "Brigade {} serving data dir {}",
        env!("CARGO_PKG_VERSION"),
        data_dir.display()
    );
    println!("Admin app:    {base}/admin/");
    println!("API base URL: {base}/api/v1   (reference: {base}/api/v1/docs/)");
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
