//! Webhook delivery against the real server and real receivers on 127.0.0.1:
//! commit-to-delivery latency with events committed at a steady rate, the same
//! with a second tenant whose receiver hangs, and deliveries per second from a
//! backlog (saturation).
//!
//! Latency runs from the event's `created_at` (stamped in the committing
//! transaction) to its arrival at the receiver, both on this machine's clock.
//! `cargo bench --bench webhooks`; `BRIGADE_BENCH_SECONDS` sets each phase's length.

#[allow(dead_code)] // the bench uses the receiver, not every helper of the tests
#[path = "../tests/api/receiver.rs"]
mod receiver;
mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, UNIX_EPOCH};

use receiver::{Answer, Receiver};
use serde_json::{json, Value};
use support::{ms, percentile, phase_duration, record, Api};

const RATE: u64 = 1000;
const SENDERS: u64 = 8;
const BACKLOG: usize = 2000;

fn enable(api: &Api, url: &str, enabled: bool) {
    let (status, _) = api.call(
        "PUT",
        "/settings/webhook",
        Some(&json!({"url": url, "enabled": enabled})),
    );
    assert_eq!(status, 200);
}

/// Commits `webhook.test` events at `rate` per second for `duration`, from
/// `SENDERS` threads on a fixed schedule; returns how many were committed.
fn steady(api: &Arc<Api>, rate: u64, duration: Duration) -> usize {
    let stop = Arc::new(AtomicBool::new(false));
    let interval = Duration::from_secs_f64(SENDERS as f64 / rate as f64);
    let threads: Vec<_> = (0..SENDERS)
        .map(|s| {
            let (api, stop) = (Api::new(&api.base, &api.tenant, &api.key), stop.clone());
            std::thread::spawn(move || {
                let start = Instant::now() + interval.mul_f64(s as f64 / SENDERS as f64);
                let mut sent = 0;
                while !stop.load(Ordering::Relaxed) {
                    let due = start + interval * sent as u32;
                    if let Some(wait) = due.checked_duration_since(Instant::now()) {
                        std::thread::sleep(wait);
                    }
                    if api.call("POST", "/webhooks/test", Some(&json!({}))).0 == 202 {
                        sent += 1;
                    }
                }
                sent
            })
        })
        .collect();
    std::thread::sleep(duration);
    stop.store(true, Ordering::Relaxed);
    threads.into_iter().map(|t| t.join().unwrap()).sum()
}

/// Commit-to-delivery latencies of everything `receiver` got from `from` on.
/// Arrival instants become wall-clock times through one paired reading.
fn latencies(receiver: &Receiver, from: usize, expected: usize) -> Vec<Duration> {
    let (instant, wall) = (Instant::now(), std::time::SystemTime::now());
    let deadline = Instant::now() + Duration::from_secs(30);
    while receiver.received().len() < from + expected && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    receiver.received()[from..]
        .iter()
        .map(|r| {
            let envelope: Value = r.json();
            let created =
                brigade::time::parse_rfc3339(envelope["created_at"].as_str().unwrap()).unwrap();
            let created = Duration::from_millis(created.timestamp_millis() as u64);
            let arrived = wall - instant.saturating_duration_since(r.at);
            arrived
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .saturating_sub(created)
        })
        .collect()
}

/// Deliveries per second for a backlog queued while the endpoints were off.
fn saturation(apis: &[Api]) -> f64 {
    let receivers: Vec<Receiver> = apis.iter().map(|_| Receiver::start()).collect();
    for (api, receiver) in apis.iter().zip(&receivers) {
        enable(api, &receiver.url, false);
        for _ in 0..BACKLOG / apis.len() {
            api.call("POST", "/webhooks/test", Some(&json!({})));
        }
    }
    let started = Instant::now();
    for (api, receiver) in apis.iter().zip(&receivers) {
        enable(api, &receiver.url, true);
    }
    let per_tenant = BACKLOG / apis.len();
    while receivers.iter().any(|r| r.received().len() < per_tenant) {
        std::thread::sleep(Duration::from_millis(2));
    }
    (per_tenant * apis.len()) as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    let duration = phase_duration();
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(support::config(dir.path()));
    let (tenant, key) = support::tenant(&server.app, "healthy");
    let healthy = Arc::new(Api::new(&server.base, &tenant, &key));
    let receiver = Receiver::start();
    enable(&healthy, &receiver.url, true);
    println!(
        "Brigade webhook benchmark: {RATE} events/s for {:.0} s per phase",
        duration.as_secs_f64()
    );

    let committed = steady(&healthy, RATE, duration);
    let mut alone = latencies(&receiver, 0, committed);
    alone.sort();
    let delivered_alone = alone.len();

    // A second tenant whose receiver accepts connections and never answers.
    let (slow_tenant, slow_key) = support::tenant(&server.app, "hanging");
    let hanging_api = Arc::new(Api::new(&server.base, &slow_tenant, &slow_key));
    let hanging = Receiver::start();
    hanging.answer(Answer::Hang(Duration::from_secs(120)));
    enable(&hanging_api, &hanging.url, true);
    let slow_load = {
        let api = hanging_api.clone();
        std::thread::spawn(move || steady(&api, 50, duration))
    };
    let before = receiver.received().len();
    let committed_beside = steady(&healthy, RATE, duration);
    slow_load.join().unwrap();
    let mut beside = latencies(&receiver, before, committed_beside);
    beside.sort();

    let solo = {
        let (t, k) = support::tenant(&server.app, "saturate");
        saturation(&[Api::new(&server.base, &t, &k)])
    };
    let spread = {
        let apis: Vec<Api> = (0..4)
            .map(|n| {
                let (t, k) = support::tenant(&server.app, &format!("saturate-{n}"));
                Api::new(&server.base, &t, &k)
            })
            .collect();
        saturation(&apis)
    };
    drop(server);

    println!();
    println!(
        "healthy tenant alone        {committed:>6} committed, {delivered_alone:>6} delivered   p50 {:>6.2} ms   p99 {:>6.2} ms",
        ms(percentile(&alone, 50.0)),
        ms(percentile(&alone, 99.0))
    );
    println!(
        "beside a hanging tenant     {committed_beside:>6} committed, {:>6} delivered   p50 {:>6.2} ms   p99 {:>6.2} ms",
        beside.len(),
        ms(percentile(&beside, 50.0)),
        ms(percentile(&beside, 99.0))
    );
    println!(
        "p99 beside ÷ p99 alone = {:.2}   (the hanging receiver must not move it)",
        percentile(&beside, 99.0).as_secs_f64() / percentile(&alone, 99.0).as_secs_f64().max(1e-6)
    );
    println!("saturation: {solo:.0} deliveries/s for one tenant, {spread:.0} across four");
    println!("targets at {RATE} events/s: p50 ≤ 5 ms, p99 ≤ 50 ms");
    record(
        "webhooks",
        json!({
            "rate_per_second": RATE,
            "phase_seconds": duration.as_secs_f64(),
            "alone": {"committed": committed, "delivered": delivered_alone,
                      "p50_ms": ms(percentile(&alone, 50.0)), "p99_ms": ms(percentile(&alone, 99.0))},
            "beside_hanging_tenant": {"committed": committed_beside, "delivered": beside.len(),
                      "p50_ms": ms(percentile(&beside, 50.0)), "p99_ms": ms(percentile(&beside, 99.0))},
            "saturation_deliveries_per_second": {"one_tenant": solo, "four_tenants": spread},
        }),
    );
}
