//! The installed server's settings file, `/etc/brigade/brigade.toml` (or
//! `--config FILE`). Each key is a long option's name with `_` for `-`:
//! `data_dir`, `port`, `tls`, `backup_dir`, `log_level`, … The file is read
//! before the command line and fills in only what the environment leaves unset,
//! so an environment variable or a flag always overrides it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Read when present and no other file is named.
pub const DEFAULT_PATH: &str = "/etc/brigade/brigade.toml";

/// Finds the settings file named by `--config` or `BRIGADE_CONFIG`, or the
/// default one if it exists, and sets the environment variable of each setting
/// in it that is not set already.
pub fn apply(args: &[OsString], command: &clap::Command) -> Result<(), String> {
    let Some(path) = chosen_path(args) else {
        return Ok(());
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read the settings file {}: {e}", path.display()))?;
    for (variable, value) in
        settings(&text, command).map_err(|e| format!("{}: {e}", path.display()))?
    {
        if std::env::var_os(&variable).is_none() {
            std::env::set_var(variable, value);
        }
    }
    Ok(())
}

fn chosen_path(args: &[OsString]) -> Option<PathBuf> {
    let mut args = args.iter().map(|arg| arg.to_string_lossy());
    while let Some(arg) = args.next() {
        if arg == "--config" {
            return args.next().map(|path| PathBuf::from(path.as_ref()));
        }
        if let Some(path) = arg.strip_prefix("--config=") {
            return Some(PathBuf::from(path));
        }
    }
    if let Some(path) = std::env::var_os("BRIGADE_CONFIG") {
        return Some(PathBuf::from(path));
    }
    Path::new(DEFAULT_PATH)
        .exists()
        .then(|| PathBuf::from(DEFAULT_PATH))
}

/// Each setting of the file as the environment variable of its option and the
/// value to give it.
fn settings(text: &str, command: &clap::Command) -> Result<Vec<(OsString, String)>, String> {
    let table: toml::Table = text.parse().map_err(|e| format!("not valid TOML: {e}"))?;
    let options: Vec<&clap::Arg> = command
        .get_arguments()
        .chain(
            command
                .get_subcommands()
                .flat_map(|sub| sub.get_arguments()),
        )
        .collect();
    table
        .iter()
        .map(|(key, value)| {
            let long = key.replace('_', "-");
            let option = options
                .iter()
                .find(|option| option.get_long() == Some(long.as_str()))
                .ok_or_else(|| format!("{key:?} is not a setting"))?;
            let variable = option
                .get_env()
                .ok_or_else(|| format!("{key:?} can only be given on the command line"))?;
            let value = match value {
                toml::Value::String(text) => text.clone(),
                toml::Value::Integer(number) => number.to_string(),
                toml::Value::Boolean(flag) => flag.to_string(),
                _ => return Err(format!("{key:?} must be a string, a number or true/false")),
            };
            Ok((variable.to_os_string(), value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::settings;
    use clap::{Arg, ArgAction, Command};

    fn command() -> Command {
        Command::new("brigade")
            .arg(
                Arg::new("data_dir")
                    .long("data-dir")
                    .env("BRIGADE_DATA_DIR"),
            )
            .subcommand(
                Command::new("serve")
                    .arg(Arg::new("port").long("port").env("BRIGADE_PORT"))
                    .arg(Arg::new("mdns").long("mdns").env("BRIGADE_MDNS"))
                    .arg(Arg::new("to").long("to").action(ArgAction::Set)),
            )
    }

    #[test]
    fn keys_become_the_environment_of_their_options() {
        let found = settings(
            "data_dir = \"/var/lib/brigade\"\nport = 8443\nmdns = false\n",
            &command(),
        )
        .unwrap();
        let found: Vec<(String, String)> = found
            .into_iter()
            .map(|(variable, value)| (variable.to_string_lossy().into_owned(), value))
            .collect();
        assert_eq!(
            found,
            [
                ("BRIGADE_DATA_DIR".into(), "/var/lib/brigade".into()),
                ("BRIGADE_MDNS".into(), "false".into()),
                ("BRIGADE_PORT".into(), "8443".into()),
            ]
        );
    }

    #[test]
    fn unknown_keys_command_line_only_options_and_bad_values_are_refused() {
        for (text, says) in [
            ("colour = \"red\"", "\"colour\" is not a setting"),
            ("to = \"/tmp\"", "only be given on the command line"),
            ("port = [1, 2]", "must be a string, a number or true/false"),
            ("port = ", "not valid TOML"),
        ] {
            let error = settings(text, &command()).unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
    }
}
