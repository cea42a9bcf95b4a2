//! `brigade backup` and `brigade restore`: consistent backups taken while the
//! server runs, their verification, and restores into a stopped server's data dir.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::backup::{self, Progress};
use crate::db::Databases;

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BackupArgs {
    #[command(subcommand)]
    command: Option<BackupCommand>,
    /// Folder to back up into; each backup is a new folder in it, named by its time.
    #[arg(long)]
    to: Option<PathBuf>,
    /// Back up only this tenant (slug or id); the registry is then left out.
    #[arg(long)]
    tenant: Option<String>,
}

#[derive(Subcommand)]
pub enum BackupCommand {
    /// Check a backup folder: each file's size, SHA-256, schema version and integrity.
    Verify {
        /// The backup folder (the one holding manifest.json).
        dir: PathBuf,
    },
}

#[derive(Args)]
pub struct RestoreArgs {
    /// The backup folder (the one holding manifest.json); it is verified first.
    dir: PathBuf,
    /// Restore only this tenant's file (slug or id).
    #[arg(long)]
    tenant: Option<String>,
}

pub fn backup(data_dir: &Path, args: BackupArgs) -> Result<(), String> {
    if let Some(BackupCommand::Verify { dir }) = args.command {
        return verify(&dir);
    }
    let to = args.to.ok_or("say where to back up to with --to DIR")?;
    if !data_dir.join("registry.db").is_file() {
        return Err(format!("{} holds no Brigade data", data_dir.display()));
    }
    let dbs = Databases::open(data_dir, false)?;
    let tenant = match &args.tenant {
        Some(wanted) => Some(
            dbs.find_tenant(wanted)
                .ok_or_else(|| format!("no tenant {wanted:?}; see `brigade tenant list`"))?,
        ),
        None => None,
    };
    let (folder, manifest) = backup::take(
        &dbs,
        &to,
        tenant.as_ref(),
        chrono::Utc::now(),
        &Progress::on_terminal(),
    )?;
    let bytes: u64 = manifest.files.iter().map(|f| f.size).sum();
    eprintln!(
        "Backed up {} files ({}) to {}",
        manifest.files.len(),
        megabytes(bytes),
        folder.display()
    );
    println!("{}", folder.display());
    Ok(())
}

fn verify(dir: &Path) -> Result<(), String> {
    let manifest = backup::verify(dir, &Progress::on_terminal())?;
    for file in &manifest.files {
        println!(
            "ok  {}  {}  schema {}{}",
            file.path,
            megabytes(file.size),
            file.schema_version,
            file.tenant_slug
                .as_deref()
                .map(|slug| format!("  ({slug})"))
                .unwrap_or_default()
        );
    }
    eprintln!(
        "The backup of {} is intact: {} files.",
        manifest.created_at,
        manifest.files.len()
    );
    Ok(())
}

pub fn restore(data_dir: &Path, args: RestoreArgs) -> Result<(), String> {
    let restored = backup::restore_stopped(
        data_dir,
        &args.dir,
        args.tenant.as_deref(),
        &Progress::on_terminal(),
    )
    .map_err(|message| match &args.tenant {
        Some(_) if message.contains("in use by a running") => format!(
            "{message}; to restore one tenant while the server runs, its owner calls \
             POST /api/v1/admin/restore (see the README)"
        ),
        _ => message,
    })?;
    for file in &restored {
        println!("restored {}", file.path);
    }
    Ok(())
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}
