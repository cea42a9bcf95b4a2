//! Consistent copies of a live database file with SQLite's online backup API.
//!
//! The copy reads one snapshot: the source connection holds a read transaction
//! for the whole copy, so writers keep committing (WAL readers never block them)
//! and the backup is never restarted by their commits, however long it takes.
//! The copy leaves WAL mode, so it is one self-contained file whose bytes do not
//! change when it is opened read-only (checksums stay true).

use std::path::Path;

use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

/// Pages copied per step; between steps the progress callback runs.
const PAGES_PER_STEP: i32 = 1024;

/// Copies the database `source` is connected to into a new file at `dest`,
/// calling `progress(copied_pages, total_pages)` as it goes. Returns the copy's
/// schema version (`PRAGMA user_version`).
pub fn copy_database(
    source: &Connection,
    dest: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<u32, String> {
    if dest.exists() {
        return Err(format!("{} already exists", dest.display()));
    }
    let mut target = Connection::open(dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    // One snapshot for the whole copy: steps made inside this read transaction
    // see no later commit, so the backup never restarts.
    source
        .execute_batch("BEGIN DEFERRED")
        .and_then(|_| source.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(())))
        .map_err(|e| format!("cannot start reading: {e}"))?;
    let copied = step_all(source, &mut target, progress);
    let ended = source.execute_batch("COMMIT");
    copied?;
    ended.map_err(|e| format!("cannot end reading: {e}"))?;
    let version: i64 = target
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| e.to_string())?;
    target
        .query_row("PRAGMA journal_mode=DELETE", [], |_| Ok(()))
        .map_err(|e| e.to_string())?;
    target
        .close()
        .map_err(|(_, e)| format!("cannot close {}: {e}", dest.display()))?;
    sync_file(dest)?;
    u32::try_from(version).map_err(|_| format!("invalid schema version {version}"))
}

fn step_all(
    source: &Connection,
    target: &mut Connection,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), String> {
    let backup = Backup::new(source, target).map_err(|e| e.to_string())?;
    loop {
        let step = backup
            .step(PAGES_PER_STEP)
            .map_err(|e| format!("copy failed: {e}"))?;
        let state = backup.progress();
        let total = state.pagecount.max(0) as u64;
        progress(total - (state.remaining.max(0) as u64).min(total), total);
        match step {
            StepResult::Done => return Ok(()),
            StepResult::More => {}
            // Busy or locked: only the destination can be, and it is ours alone,
            // so this is a failure rather than something to wait for.
            _ => return Err("the copy's destination is locked".into()),
        }
    }
}

/// Opens an existing database file for copying; never creates one.
pub fn open_existing(path: &Path) -> Result<Connection, String> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(|e| e.to_string())?;
    Ok(conn)
}

/// Flushes a file's content to disk.
pub fn sync_file(path: &Path) -> Result<(), String> {
    std::fs::File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| format!("cannot sync {}: {e}", path.display()))
}

/// Flushes a directory, so the names created or renamed in it survive a power cut.
pub fn sync_dir(path: &Path) -> Result<(), String> {
    sync_file(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_one_snapshot_while_another_connection_keeps_writing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("source.db");
        let source = Connection::open(&path).unwrap();
        source
            .execute_batch(
                "PRAGMA journal_mode=WAL; PRAGMA user_version=7; \
                 CREATE TABLE t (x BLOB); \
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) \
                 INSERT INTO t SELECT randomblob(3000) FROM n;",
            )
            .unwrap();
        let writer = Connection::open(&path).unwrap();
        let dest = dir.path().join("copy.db");
        let mut calls = Vec::new();
        let version = copy_database(&source, &dest, &mut |done, total| {
            calls.push((done, total));
            // Commits made during the copy neither restart it nor enter it.
            writer
                .execute("INSERT INTO t VALUES (randomblob(3000))", [])
                .unwrap();
        })
        .unwrap();
        assert_eq!(version, 7);
        assert!(calls.len() > 1, "progress is reported per step: {calls:?}");
        assert!(calls.windows(2).all(|w| w[0].0 < w[1].0), "{calls:?}");
        let (done, total) = *calls.last().unwrap();
        assert_eq!(done, total);
        let copy = Connection::open_with_flags(&dest, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let rows: i64 = copy
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 3000);
        let mode: String = copy
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "delete");
        let written: i64 = source
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(written, 3000 + calls.len() as i64);
        assert!(copy_database(&source, &dest, &mut |_, _| {}).is_err());
    }
}
