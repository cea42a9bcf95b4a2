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
/// binary is refused rather than touched.
pub fn migrate(conn: &mut Connection, schema: Schema) -> Result<(), String> {
    let scripts = scripts(schema);
    let current: usize = conn
        .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
        .map_err(|e| e.to_string())? as usize;
    if current > scripts.len() {
        return Err(format!(
            "the database is at schema version {current}, but this Brigade knows only up to {}; \
             it was written by a newer version, so upgrade Brigade instead of opening it with this one",
            scripts.len()
        ));
    }
    for (version, (name, sql)) in scripts.iter().enumerate().skip(current) {
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| e.to_string())?;
        tx.execute_batch(sql)
            .and_then(|_| tx.pragma_update(None, "user_version", (version + 1) as i64))
            .and_then(|_| tx.commit())
            .map_err(|e| format!("migration {name} failed: {e}"))?;
    }
    Ok(())
}

/// Highest schema version this binary knows for `schema`.
pub fn latest_version(schema: Schema) -> usize {
    scripts(schema).len()
}
