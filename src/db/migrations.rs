//! Embedded, numbered SQL migrations applied at open and tracked in `PRAGMA user_version`.

use rusqlite::Connection;
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "migrations/registry"]
struct RegistryMigrations;

#[derive(RustEmbed)]
#[folder = "migrations/tenant"]
struct TenantMigrations;

#[derive(Clone, Copy)]
pub enum Schema {
    Registry,
    Tenant,
}

fn scripts(schema: Schema) -> Vec<(String, String)> {
    let names: Vec<String> = match schema {
        Schema::Registry => RegistryMigrations::iter().map(|n| n.into_owned()).collect(),
        Schema::Tenant => TenantMigrations::iter().map(|n| n.into_owned()).collect(),
    };
    let mut scripts: Vec<(String, String)> = names
        .into_iter()
        .filter(|n| n.ends_with(".sql"))
        .filter_map(|name| {
            let file = match schema {
                Schema::Registry => RegistryMigrations::get(&name),
                Schema::Tenant => TenantMigrations::get(&name),
            }?;
            Some((name, String::from_utf8_lossy(&file.data).into_owned()))
        })
        .collect();
    scripts.sort();
    scripts
}

/// Brings the file up to the newest schema this binary knows. A file from a newer
/// binary is refused rather than touched. Each step reads the version inside its own
/// write transaction, so two openers at once (two requests, or the server and the
/// command line) never apply the same script twice.
pub fn migrate(conn: &mut Connection, schema: Schema) -> Result<(), String> {
    let scripts = scripts(schema);
    loop {
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| e.to_string())?;
        let current = tx
            .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
            .map_err(|e| e.to_string())? as usize;
        if current > scripts.len() {
            return Err(format!(
                "the database is at schema version {current}, but this Brigade knows only up to {}; \
                 it was written by a newer version, so upgrade Brigade instead of opening it with this one",
                scripts.len()
            ));
        }
        let Some((name, sql)) = scripts.get(current) else {
            return Ok(());
        };
        tx.execute_batch(sql)
            .and_then(|_| tx.pragma_update(None, "user_version", (current + 1) as i64))
            .and_then(|_| tx.commit())
            .map_err(|e| format!("migration {name} failed: {e}"))?;
    }
}

/// Highest schema version this binary knows for `schema`.
pub fn latest_version(schema: Schema) -> usize {
    scripts(schema).len()
}

#[cfg(test)]
mod tests {
    use super::*;

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
                        migrate(&mut conn, Schema::Tenant)
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
