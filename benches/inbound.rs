//! Partners' messages over HTTP: signed Standard Webhooks delivery orders
//! posted by 32 senders, each verified, stored in the inbox and answered
//! (what the platform waits for), while the inbox worker turns them into
//! orders. The baseline is the cheapest raw SQLite transaction doing the same
//! row: the inbox insert alone, one connection, the server's PRAGMAs.
//!
//! `cargo bench --bench inbound`; `BRIGADE_BENCH_SECONDS` sets the phase's length.

mod support;

use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use rusqlite::{params, Connection, TransactionBehavior};
use serde_json::json;
use sha2::Sha256;
use support::{load, ms, phase_duration, record, Api, Phase};

const CONCURRENCY: usize = 32;
const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/// A delivery order as the generic adapter takes it, and its signed headers.
fn message(id: &str) -> (String, [(&'static str, String); 3]) {
    let body = json!({"type": "order.created", "order": {
        "id": id, "display_id": &id[id.len() - 4..], "currency": "USD",
        "customer": {"name": "Bench Eater"},
        "items": [{"sku": "soup", "name": "Soup", "quantity": 2, "unit_price": 650},
                  {"name": "Lemonade", "quantity": 1, "unit_price": 350}],
        "fees": [{"name": "Delivery fee", "amount": 299}]}})
    .to_string();
    let timestamp = chrono::Utc::now().timestamp().to_string();
    let key = STANDARD
        .decode(SECRET.trim_start_matches("whsec_"))
        .unwrap();
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{id}.{timestamp}.{body}").as_bytes());
    let signature = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
    (
        body,
        [
            ("webhook-id", id.to_string()),
            ("webhook-timestamp", timestamp),
            ("webhook-signature", signature),
        ],
    )
}

fn acknowledge(origin: &str, duration: Duration) -> Phase {
    let url = format!("{origin}/webhook/delivery/bench/generic");
    let agent = support::agent();
    load(
        "acknowledge a message",
        CONCURRENCY,
        duration,
        move |t, i| {
            let (body, headers) = message(&format!("msg-{}-{t}-{i:06}", std::process::id()));
            let mut request = agent.post(&url).header("Content-Type", "application/json");
            for (name, value) in &headers {
                request = request.header(*name, value);
            }
            request.send(body).is_ok_and(|r| r.status() == 200)
        },
    )
}

/// Inbox rows a second, inserted straight with rusqlite in a transaction each.
fn raw_insert_rate(duration: Duration) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let app = brigade::App::open(support::config(dir.path())).unwrap();
    let (tenant, _) = support::tenant(&app, "raw");
    drop(app);
    let path = dir.path().join("tenants").join(format!("{tenant}.db"));
    let mut conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA busy_timeout=5000; PRAGMA synchronous=NORMAL;",
    )
    .unwrap();
    let started = Instant::now();
    let mut count = 0u64;
    while started.elapsed() < duration {
        let id = uuid::Uuid::now_v7().to_string();
        let (body, headers) = message(&id);
        let now = brigade::time::now_rfc3339();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .unwrap();
        tx.execute(
            "INSERT INTO inbox_messages (id, kind, name, event_id, body_sha256, headers, body, remote_address, \
             received_at, status, next_attempt_at) VALUES (?1, 'delivery', 'generic', ?1, ?2, ?3, ?4, '127.0.0.1', ?5, 'received', ?5)",
            params![id, "0".repeat(64), json!({"webhook-id": headers[0].1}).to_string(), body.as_bytes(), now],
        )
        .unwrap();
        tx.commit().unwrap();
        count += 1;
    }
    count as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    let duration = phase_duration();
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(support::config(dir.path()));
    let (tenant, key) = support::tenant(&server.app, "bench");
    let api = Api::new(&server.base, &tenant, &key);
    let origin = server.base.trim_end_matches("/api/v1").to_string();
    assert_eq!(
        api.status(
            "PUT",
            "/integrations/delivery/generic",
            Some(&json!({"secret": SECRET}))
        ),
        201
    );
    println!(
        "Brigade inbound benchmark: concurrency {CONCURRENCY}, {:.0} s per phase, {} cores",
        duration.as_secs_f64(),
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    acknowledge(&origin, Duration::from_secs(1));
    let acked = acknowledge(&origin, duration);
    let drain_started = Instant::now();
    loop {
        let (_, waiting) = api.call(
            "GET",
            "/integrations/messages?status=received&limit=1",
            None,
        );
        if waiting["data"].as_array().is_some_and(|d| d.is_empty()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let drained_after = drain_started.elapsed();
    let (_, orders) = api.call("GET", "/orders?limit=1", None);
    assert!(
        orders["data"][0]["external"].is_object(),
        "the worker made orders"
    );
    let processed = acked.latencies.len() + acked.errors;
    let worker_rate = processed as f64 / (acked.elapsed + drained_after).as_secs_f64();
    drop(server);
    let raw = raw_insert_rate(duration);

    println!();
    acked.print();
    println!("baseline: the inbox row inserted directly with rusqlite, a transaction each, NORMAL");
    println!("  {raw:>9.0} tx/s");
    let ratio = acked.per_second() / raw;
    println!();
    println!("HTTP messages acknowledged/s ÷ raw inbox inserts/s = {ratio:.2}");
    println!(
        "p99 acknowledgement {:.2} ms (platforms allow seconds); errors {} (target 0)",
        ms(acked.percentile(99.0)),
        acked.errors
    );
    println!(
        "worker: every message turned into an order {:.1} s after the load ended; {worker_rate:.0} orders/s overall",
        drained_after.as_secs_f64()
    );
    record(
        "inbound",
        json!({
            "concurrency": CONCURRENCY,
            "phase_seconds": duration.as_secs_f64(),
            "acknowledge": acked.json(),
            "raw_inbox_insert_tx_per_second": raw,
            "acknowledge_to_raw_ratio": ratio,
            "drained_seconds_after_load": drained_after.as_secs_f64(),
            "worker_orders_per_second": worker_rate,
        }),
    );
}
