//! `brigade tls`: what a terminal needs to trust the box's HTTPS.

use std::path::{Path, PathBuf};

use clap::Subcommand;

use crate::tls;

#[derive(Subcommand)]
pub enum TlsCommand {
    /// Write the box's CA certificate (PEM), made now if there is none yet, for
    /// terminals and browsers to install as trusted.
    ExportCa {
        /// Write it to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

pub fn run(data_dir: &Path, command: TlsCommand) -> Result<(), String> {
    match command {
        TlsCommand::ExportCa { out } => {
            let pem = tls::export_ca(data_dir)?;
            let fingerprint = tls::fingerprint_of_pem(&pem)?;
            match out {
                None => print!("{pem}"),
                Some(path) => {
                    std::fs::write(&path, &pem)
                        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                    println!("Wrote the CA certificate to {}", path.display());
                    println!("Fingerprint (SHA-256): {fingerprint}");
                }
            }
            Ok(())
        }
    }
}
