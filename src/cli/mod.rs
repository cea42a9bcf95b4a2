//! The `brigade` command line: serve, the setup commands an installer runs, and
//! backups and restores.

mod admin;
mod backup;
mod serve;
mod settings_file;
mod tls;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "brigade",
    version,
    about = "On-premise restaurant operations server"
)]
struct Cli {
    /// Where registry.db and the tenant files live.
    #[arg(
        long,
        env = "BRIGADE_DATA_DIR",
        default_value = "brigade-data",
        global = true
    )]
    data_dir: PathBuf,
    /// Settings file (TOML; keys are option names, as in `port = 8000`); flags and
    /// BRIGADE_* variables override it.
    #[arg(long, env = "BRIGADE_CONFIG", global = true, value_name = "FILE", default_value = settings_file::DEFAULT_PATH)]
    config: PathBuf,
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: serve::ServeArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Run the server (the default).
    Serve(serve::ServeArgs),
    /// Create and list tenants (restaurant businesses).
    #[command(subcommand)]
    Tenant(admin::TenantCommand),
    /// Manage staff accounts.
    #[command(subcommand)]
    User(admin::UserCommand),
    /// Manage API keys for integrations and devices.
    #[command(subcommand, name = "api-key")]
    ApiKey(admin::ApiKeyCommand),
    /// Back up the data dir while the server runs (`--to DIR`), or verify a backup.
    Backup(backup::BackupArgs),
    /// Restore a verified backup into the data dir of a stopped server.
    Restore(backup::RestoreArgs),
    /// Create setup keys to pair devices (POS terminals, kitchen screens, phones).
    #[command(subcommand, name = "setup-key")]
    SetupKey(admin::SetupKeyCommand),
    /// HTTPS on the LAN: the certificate terminals install.
    #[command(subcommand)]
    Tls(tls::TlsCommand),
}

pub fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().collect();
    if let Err(message) = settings_file::apply(&args, &Cli::command()) {
        eprintln!("error: {message}");
        return ExitCode::FAILURE;
    }
    let cli = Cli::parse_from(args);
    let result = match cli.command {
        None => serve::run(&cli.data_dir, cli.serve),
        Some(Command::Serve(args)) => serve::run(&cli.data_dir, args),
        Some(Command::Tenant(command)) => admin::tenant(&cli.data_dir, command),
        Some(Command::User(command)) => admin::user(&cli.data_dir, command),
        Some(Command::ApiKey(command)) => admin::api_key(&cli.data_dir, command),
        Some(Command::Backup(args)) => backup::backup(&cli.data_dir, args),
        Some(Command::Restore(args)) => backup::restore(&cli.data_dir, args),
        Some(Command::SetupKey(command)) => admin::setup_key(&cli.data_dir, command),
        Some(Command::Tls(command)) => tls::run(&cli.data_dir, command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
