//! Order creates per second over HTTP while backups of a large tenant file run
//! back to back, against the same load with no backup, in the same run.
//!
//! The tenant's file is grown to `BRIGADE_BENCH_BACKUP_MB` (default 1024) with a
//! filler table written straight into it, not through the API.
//! `cargo bench --bench backup`; `BRIGADE_BENCH_SECONDS` sets each phase's length.

mod support;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use brigade::backup::{self, Progress};
use serde_json::json;
use support::{load, phase_duration, record, Api};

const CONCURRENCY: usize = 32;
const FILLER_CHUNK_MB: u64 = 64;

/// Grows the database file at `path` by about `megabytes` with 1 MiB blobs.
fn fill(path: &Path, megabytes: u64) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.busy_timeout(Duration::from_secs(30)).unwrap();
    conn.execute_batch("CREATE TABLE bench_filler (id INTEGER PRIMARY KEY, data BLOB)")
        .unwrap();
    let mut written = 0;
    while written < megabytes {
        let chunk = FILLER_CHUNK_MB.min(megabytes - written);
        conn.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1) \
             INSERT INTO bench_filler (data) SELECT zeroblob(1048576) FROM n",
            [chunk as i64],
        )
        .unwrap();
        written += chunk;
    }
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
}

fn main() {
    let duration = phase_duration();
    let megabytes: u64 = std::env::var("BRIGADE_BENCH_BACKUP_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1024);
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(support::config(dir.path()));
    let (tenant, key) = support::tenant(&server.app, "bench");
    let api = Api::new(&server.base, &tenant, &key);
    let (_, category) = api.call("POST", "/menu/categories", Some(&json!({"name": "Mains"})));
    let (_, item) = api.call(
        "POST",
        "/menu/items",
        Some(&json!({"name": "Dish", "category_id": category["id"], "price": 12.5, "tax_rate": 8.875})),
    );
    let body = Arc::new(json!({"order_type": "takeaway", "items": [
        {"menu_item_id": item["id"], "quantity": 2}
    ]}));

    let tenant_file = server.app.db.tenant_path(tenant.parse().unwrap());
    let filling = Instant::now();
    fill(&tenant_file, megabytes);
    let size = std::fs::metadata(&tenant_file).unwrap().len();
    println!(
        "Brigade backup benchmark: tenant file of {:.0} MB (filled in {:.1} s), concurrency {CONCURRENCY}, {:.0} s per phase",
        size as f64 / 1e6,
        filling.elapsed().as_secs_f64(),
        duration.as_secs_f64()
    );

    let clients: Arc<Vec<Api>> = Arc::new(
        (0..CONCURRENCY)
            .map(|_| Api::new(&server.base, &tenant, &key))
            .collect(),
    );
    let creates = |name: &str| {
        let (clients, body) = (clients.clone(), body.clone());
        load(name, CONCURRENCY, duration, move |t, _| {
            clients[t].status("POST", "/orders", Some(&body)) == 201
        })
    };
    creates("warm-up");
    let without = creates("create order, no backup");

    // Backups of the tenant back to back for the whole phase, each removed once made.
    let backups = tempfile::tempdir().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let backing_up = {
        let (app, stop, root) = (
            server.app.clone(),
            stop.clone(),
            backups.path().to_path_buf(),
        );
        let info = app.db.tenant_by_slug("bench").unwrap();
        std::thread::spawn(move || {
            let mut times = Vec::new();
            while !stop.load(Ordering::SeqCst) {
                let started = Instant::now();
                let (folder, _) = backup::take(
                    &app.db,
                    &root,
                    Some(&info),
                    chrono::Utc::now(),
                    &Progress::hidden(),
                )
                .unwrap();
                times.push(started.elapsed());
                std::fs::remove_dir_all(folder).unwrap();
            }
            times
        })
    };
    let with = creates("create order, during backup");
    stop.store(true, Ordering::SeqCst);
    let times = backing_up.join().unwrap();

    println!();
    without.print();
    with.print();
    let ratio = with.per_second() / without.per_second();
    let backup_seconds: Vec<f64> = times.iter().map(Duration::as_secs_f64).collect();
    let mean = backup_seconds.iter().sum::<f64>() / backup_seconds.len().max(1) as f64;
    println!();
    println!("creates during backup ÷ creates without = {ratio:.2}");
    println!(
        "backups of the {:.0} MB file: {} (started during the phase), {:.1} s each on average ({:.0} MB/s, copy and SHA-256)",
        size as f64 / 1e6,
        times.len(),
        mean,
        size as f64 / 1e6 / mean
    );
    record(
        "backup",
        json!({
            "tenant_file_bytes": size,
            "without_backup": without.json(),
            "during_backup": with.json(),
            "ratio": ratio,
            "backups": times.len(),
            "backup_seconds_mean": mean,
        }),
    );
}
