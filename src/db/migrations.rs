//! Embedded, numbered SQL migrations applied at open and tracked in `PRAGMA user_version`.
//!
//! Each script's number is the prefix of its file name (`0003_dining_room.sql` is
//! number 3), and a schema's scripts are numbered 1 to N with none missing or
//! repeated. A file at `user_version` n has had scripts 1 to n applied; the next
//! one it gets is number n + 1.
//!
//! Before a file that already has a schema is upgraded, a copy of it is kept
//! (`<label>-v<old version>-<time>.db` in the pre-upgrade folder), so an upgrade
//! that goes wrong can be undone by hand.

use std::path::Path;

use rusqlite::Connection;
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "migrations/registry"]
struct RegistryMigrations;

#[derive(RustEmbed)]
#[folder = "migrations/tenant"]
struct TenantMigrations;

#[derive(Clone, Copy, Debug)]
pub enum Schema {
    Registry,
    Tenant,
}

impl Schema {
    fn label(self) -> &'static str {
        match self {
            Schema::Registry => "registry",
            Schema::Tenant => "tenant",
        }
    }

    /// Names of the embedded `.sql` files, in no particular order.
    fn script_names(self) -> Vec<String> {
        let names: Vec<String> = match self {
            Schema::Registry => RegistryMigrations::iter().map(|n| n.into_owned()).collect(),
            Schema::Tenant => TenantMigrations::iter().map(|n| n.into_owned()).collect(),
        };
        names.into_iter().filter(|n| n.ends_with(".sql")).collect()
    }

    fn script_text(self, name: &str) -> Option<String> {
        let file = match self {
            Schema::Registry => RegistryMigrations::get(name),
            Schema::Tenant => TenantMigrations::get(name),
        }?;
        Some(String::from_utf8_lossy(&file.data).into_owned())
    }
}

/// One migration script.
struct Script {
    number: u32,
    name: String,
    sql: String,
}

/// Where the copy made before an upgrade goes, and the name it starts with
/// (`registry`, or the tenant's slug).
pub struct PreUpgrade<'a> {
    pub dir: &'a Path,
    pub label: &'a str,
}

/// Brings the file up to the newest schema this binary knows. A file from a newer
/// binary is refused rather than touched. Each step reads the version inside its own
/// write transaction, so two openers at once (two requests, or the server and the
/// command line) never apply the same script twice.
pub fn migrate(
    conn: &mut Connection,
    schema: Schema,
    pre_upgrade: Option<PreUpgrade>,
) -> Result<(), String> {
    migrate_to(conn, schema, latest_version(schema) as u32, pre_upgrade)
}

/// As [`migrate`], up to schema version `target` only: how files of an older
/// schema are made, to test upgrades.
pub fn migrate_to(
    conn: &mut Connection,
    schema: Schema,
    target: u32,
    pre_upgrade: Option<PreUpgrade>,
) -> Result<(), String> {
    let scripts = scripts(schema)?;
    let latest = scripts.len();
    if let Some(pre_upgrade) = pre_upgrade {
        keep_copy_before_upgrade(conn, target, &pre_upgrade)?;
    }
    loop {
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| e.to_string())?;
        let current = version(&tx)?;
        if current as usize > latest {
            return Err(format!(
                "the database is at schema version {current}, but this Brigade knows only up to {latest}; \
                 it was written by a newer version, so upgrade Brigade instead of opening it with this one"
            ));
        }
        let Some(script) = scripts
            .iter()
            .find(|s| s.number == current + 1 && s.number <= target)
        else {
            return Ok(());
        };
        tx.execute_batch(&script.sql)
            .and_then(|_| tx.pragma_update(None, "user_version", script.number))
            .and_then(|_| tx.commit())
            .map_err(|e| format!("migration {} failed: {e}", script.name))?;
    }
}

fn version(conn: &Connection) -> Result<u32, String> {
    let current = conn
        .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
        .map_err(|e| e.to_string())?;
    u32::try_from(current)
        .map_err(|_| format!("the database has an invalid schema version {current}"))
}

/// Copies a file that has a schema older than `target` before it is upgraded.
/// A new file (version 0) has nothing to keep.
fn keep_copy_before_upgrade(
    conn: &Connection,
    target: u32,
    pre_upgrade: &PreUpgrade,
) -> Result<(), String> {
    let current = version(conn)?;
    if current == 0 || current >= target {
        return Ok(());
    }
    std::fs::create_dir_all(pre_upgrade.dir)
        .map_err(|e| format!("cannot create {}: {e}", pre_upgrade.dir.display()))?;
    let at = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ");
    let dest = pre_upgrade
        .dir
        .join(format!("{}-v{current}-{at}.db", pre_upgrade.label));
    super::copy_database(conn, &dest, &mut |_, _| {})
        .map_err(|e| format!("cannot keep a copy before upgrading: {e}"))?;
    log::info!(
        "kept a copy of {} at schema version {current} in {} before upgrading it",
        pre_upgrade.label,
        dest.display()
    );
    Ok(())
}

/// Highest schema version this binary knows for `schema`.
///
/// # Panics
///
/// If the embedded scripts are misnumbered, which the tests rule out for any
/// build; opening a file reports the same problem as an error.
pub fn latest_version(schema: Schema) -> usize {
    match scripts(schema) {
        Ok(scripts) => scripts.len(),
        Err(e) => panic!("{e}"),
    }
}

/// The embedded scripts of `schema`, checked and in the order they apply.
fn scripts(schema: Schema) -> Result<Vec<Script>, String> {
    let numbered = check_numbering(&schema.script_names()).map_err(|e| {
        format!(
            "the embedded {} migrations are misnumbered: {e}",
            schema.label()
        )
    })?;
    numbered
        .into_iter()
        .map(|(number, name)| {
            let sql = schema
                .script_text(&name)
                .ok_or_else(|| format!("the embedded migration {name} cannot be read"))?;
            Ok(Script { number, name, sql })
        })
        .collect()
}

/// Numbers each script by its name's prefix, the digits before the first `_`, and
/// returns them in that order. Refuses a name without such a prefix, two names with
/// the same number, and a set not numbered exactly 1 to N.
pub fn check_numbering<S: AsRef<str>>(names: &[S]) -> Result<Vec<(u32, String)>, String> {
    let mut numbered = names
        .iter()
        .map(|name| {
            let name = name.as_ref();
            let number = name
                .split_once('_')
                .map(|(prefix, _)| prefix)
                .filter(|prefix| !prefix.is_empty() && prefix.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|prefix| prefix.parse::<u32>().ok())
                .ok_or_else(|| {
                    format!(
                        "{name} does not start with a number and an underscore, \
                         as in 0003_dining_room.sql"
                    )
                })?;
            Ok((number, name.to_string()))
        })
        .collect::<Result<Vec<_>, String>>()?;
    numbered.sort();
    for pair in numbered.windows(2) {
        if pair[0].0 == pair[1].0 {
            return Err(format!(
                "{} and {} are both number {}",
                pair[0].1, pair[1].1, pair[0].0
            ));
        }
    }
    for (expected, (number, name)) in (1..).zip(&numbered) {
        if *number == 0 {
            return Err(format!("{name} is number 0, but the scripts start at 1"));
        }
        if *number != expected {
            return Err(format!(
                "there is no migration {expected} before {name}; \
                 the scripts are numbered from 1 with none missing"
            ));
        }
    }
    Ok(numbered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_sets_are_numbered_from_one_without_a_gap() {
        for schema in [Schema::Registry, Schema::Tenant] {
            let numbered = check_numbering(&schema.script_names())
                .unwrap_or_else(|e| panic!("{schema:?}: {e}"));
            let numbers: Vec<u32> = numbered.iter().map(|(n, _)| *n).collect();
            assert!(!numbers.is_empty(), "{schema:?} has no migrations");
            assert_eq!(numbers, (1..=numbers.len() as u32).collect::<Vec<_>>());
            assert_eq!(latest_version(schema), numbers.len());
        }
    }

    #[test]
    fn scripts_are_ordered_by_number_not_by_name() {
        let names: Vec<String> = (1..=10).map(|n| format!("{n}_step.sql")).collect();
        let numbered = check_numbering(&names).unwrap();
        assert_eq!(numbered[1], (2, "2_step.sql".to_string()));
        assert_eq!(numbered[9], (10, "10_step.sql".to_string()));
    }

    #[test]
    fn two_scripts_with_the_same_number_are_refused() {
        let err =
            check_numbering(&["0001_core.sql", "0002_webhooks.sql", "0002_menu.sql"]).unwrap_err();
        assert!(err.contains("0002_menu.sql and 0002_webhooks.sql"), "{err}");
        let err = check_numbering(&["0001_core.sql", "1_core_again.sql"]).unwrap_err();
        assert!(err.contains("both number 1"), "{err}");
    }

    #[test]
    fn a_gap_in_the_numbering_is_refused() {
        let err = check_numbering(&["0001_core.sql", "0003_dining_room.sql"]).unwrap_err();
        assert!(err.contains("no migration 2"), "{err}");
        let err = check_numbering(&["0002_webhooks.sql"]).unwrap_err();
        assert!(err.contains("no migration 1"), "{err}");
        let err = check_numbering(&["0000_nothing.sql", "0001_core.sql"]).unwrap_err();
        assert!(err.contains("0000_nothing.sql is number 0"), "{err}");
    }

    #[test]
    fn a_name_without_a_number_is_refused() {
        for name in [
            "dining_room.sql",
            "_dining_room.sql",
            "0003-dining.sql",
            "3a_x.sql",
        ] {
            let err = check_numbering(&["0001_core.sql", name]).unwrap_err();
            assert!(err.contains(name), "{name}: {err}");
        }
    }

    #[test]
    fn no_scripts_is_version_zero() {
        assert_eq!(check_numbering::<&str>(&[]), Ok(Vec::new()));
    }

    #[test]
    fn openers_racing_on_a_new_file_apply_each_script_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("race.db");
        let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
            let openers: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        let mut conn = Connection::open(&path).unwrap();
                        conn.busy_timeout(std::time::Duration::from_secs(10))
                            .unwrap();
                        migrate(&mut conn, Schema::Tenant, None)
                    })
                })
                .collect();
            openers.into_iter().map(|o| o.join().unwrap()).collect()
        });
        assert!(results.iter().all(Result::is_ok), "{results:?}");
        let version: i64 = Connection::open(&path)
            .unwrap()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version as usize, latest_version(Schema::Tenant));
    }
}
