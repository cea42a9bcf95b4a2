//! Kitchen events on the live event stream against the real server on 127.0.0.1:
//! how long after an order is confirmed its `kitchen.ticket.created` reaches ten
//! kitchen screens, beside the confirmation's own `order.updated`.
//!
//! Pending takeaway orders are made up front; ten Server-Sent Event streams are
//! opened with a kitchen key, each read line by line on its own thread, and a
//! warm-up confirmation shows that every stream is live. Orders are then confirmed
//! at a steady rate from a few threads on a fixed schedule. Each `data:` line is
//! kept with the wall-clock time it was read and parsed once the phase is over, so
//! the readers cost the server little CPU. Latency runs from the envelope's
//! `created_at` (stamped in the confirming transaction, to the millisecond, so up
//! to 1 ms high) to arrival on a stream, both on this machine's clock. Every
//! stream must receive both events of every confirmed order; any missing is
//! counted and listed.
//!
//! `cargo bench --bench kitchen`; `BRIGADE_BENCH_SECONDS` sets the phase's length.

mod support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use brigade::auth::{keys, Role};
use serde_json::{json, Value};
use support::{ms, percentile, phase_duration, record, Api};

const RATE: u64 = 200;
const SENDERS: u64 = 4;
const STREAMS: usize = 10;
const TARGET_P99_MS: f64 = 50.0;
const KITCHEN: &str = "kitchen.ticket.created";
const ORDER: &str = "order.updated";
/// A stream silent this long is broken; the end of the server closes them sooner.
const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// Missing events printed one by one; the rest are only counted.
const LIST_MISSING: usize = 20;

/// A `data:` line as it came off a stream.
struct Arrival {
    arrived: SystemTime,
    data: String,
}

/// One kitchen screen: a reader thread and what it has read so far.
struct Stream {
    arrivals: Arc<Mutex<Vec<Arrival>>>,
    thread: JoinHandle<Result<(), String>>,
}

impl Stream {
    fn len(&self) -> usize {
        self.arrivals.lock().unwrap().len()
    }

    /// Whether a `kitchen.ticket.created` for `order_id` has arrived.
    fn has_ticket_for(&self, order_id: &str) -> bool {
        self.arrivals
            .lock()
            .unwrap()
            .iter()
            .any(|a| a.data.contains(KITCHEN) && a.data.contains(order_id))
    }
}

/// An order's event as one stream saw it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Kind {
    Kitchen,
    Order,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Kitchen => KITCHEN,
            Kind::Order => ORDER,
        }
    }
}

/// The confirmation phase: which orders were confirmed, and how the requests went.
struct Confirmed {
    orders: Vec<String>,
    requests: Vec<Duration>,
    failures: usize,
    ran_out: bool,
    elapsed: Duration,
}

/// Latencies per kind over all streams, and what never arrived.
#[derive(Default)]
struct Report {
    latencies: HashMap<Kind, Vec<Duration>>,
    duplicates: usize,
    missing: Vec<(usize, Kind, String)>,
}

impl Report {
    fn of(&self, kind: Kind) -> &[Duration] {
        self.latencies.get(&kind).map_or(&[], Vec::as_slice)
    }

    fn p99(&self, kind: Kind) -> Duration {
        percentile(self.of(kind), 99.0)
    }

    fn summary(&self, kind: Kind, expected: usize) -> Value {
        let latencies = self.of(kind);
        json!({
            "received": latencies.len(),
            "expected": expected,
            "p50_ms": ms(percentile(latencies, 50.0)),
            "p99_ms": ms(percentile(latencies, 99.0)),
            "max_ms": ms(latencies.iter().max().copied().unwrap_or_default()),
        })
    }
}

/// A category and one dish; returns the dish's id.
fn menu_item(api: &Api) -> String {
    let (status, category) = api.call("POST", "/menu/categories", Some(&json!({"name": "Mains"})));
    assert_eq!(status, 201, "category: {category}");
    let body =
        json!({"name": "Soup", "category_id": category["id"], "price": 9.5, "tax_rate": 8.875});
    let (status, item) = api.call("POST", "/menu/items", Some(&body));
    assert_eq!(status, 201, "menu item: {item}");
    item["id"].as_str().unwrap().to_string()
}

/// `count` pending takeaway orders of one dish, made from `SENDERS` threads.
fn pending_orders(api: &Api, item: &str, count: usize) -> Vec<String> {
    let body = Arc::new(
        json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]}),
    );
    let threads: Vec<_> = (0..SENDERS as usize)
        .map(|s| {
            let (api, body) = (Api::new(&api.base, &api.tenant, &api.key), body.clone());
            let share = count / SENDERS as usize + usize::from(s < count % SENDERS as usize);
            std::thread::spawn(move || {
                (0..share)
                    .map(|_| {
                        let (status, order) = api.call("POST", "/orders", Some(&body));
                        assert_eq!(status, 201, "order: {order}");
                        order["id"].as_str().unwrap().to_string()
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect()
}

/// Opens the event stream with `key` on a thread of its own, which signals
/// `connected` once the server has answered and then keeps every `data:` line.
fn open_stream(api: &Api, key: &str, stop: Arc<AtomicBool>, connected: mpsc::Sender<()>) -> Stream {
    let arrivals = Arc::new(Mutex::new(Vec::new()));
    let url = format!("{}/events/stream", api.base);
    let (tenant, key, kept) = (api.tenant.clone(), key.to_string(), arrivals.clone());
    let thread = std::thread::spawn(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_per_read(Some(READ_TIMEOUT))
            .build()
            .into();
        let response = agent
            .get(&url)
            .header("Authorization", format!("Bearer {key}"))
            .header("X-Tenant-ID", &tenant)
            .header("Accept", "text/event-stream")
            .call()
            .map_err(|e| e.to_string())?;
        if response.status() != 200 {
            return Err(format!("status {}", response.status()));
        }
        let _ = connected.send(());
        for line in BufReader::new(response.into_body().into_reader()).lines() {
            let arrived = SystemTime::now();
            match line {
                Ok(line) => {
                    if let Some(data) = line.strip_prefix("data:") {
                        let data = data.trim_start().to_string();
                        kept.lock().unwrap().push(Arrival { arrived, data });
                    }
                }
                Err(_) if stop.load(Ordering::Relaxed) => break,
                Err(e) => return Err(e.to_string()),
            }
        }
        Ok(())
    });
    Stream { arrivals, thread }
}

/// Waits for every stream to connect, then confirms warm-up orders until one's
/// ticket has reached all of them.
fn warm_up(api: &Api, streams: &[Stream], connected: &mpsc::Receiver<()>, orders: &[String]) {
    for _ in streams {
        connected
            .recv_timeout(Duration::from_secs(30))
            .expect("every event stream connects");
    }
    for order in orders {
        confirm(api, order);
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if streams.iter().all(|s| s.has_ticket_for(order)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    panic!("the warm-up tickets did not reach every stream");
}

fn confirm(api: &Api, order: &str) -> bool {
    let path = format!("/orders/{order}/status");
    let status = api.status("POST", &path, Some(&json!({"status": "confirmed"})));
    (200..300).contains(&status)
}

/// Confirms `orders` at `RATE` per second for `duration`, from `SENDERS` threads
/// on a fixed schedule (a late thread catches up rather than drops its turn).
fn confirm_steady(api: &Api, orders: &[String], duration: Duration) -> Confirmed {
    let stop = Arc::new(AtomicBool::new(false));
    let interval = Duration::from_secs_f64(SENDERS as f64 / RATE as f64);
    let started = Instant::now();
    let threads: Vec<_> = (0..SENDERS as usize)
        .map(|s| {
            let api = Api::new(&api.base, &api.tenant, &api.key);
            let mine: Vec<String> = orders
                .iter()
                .skip(s)
                .step_by(SENDERS as usize)
                .cloned()
                .collect();
            let stop = stop.clone();
            std::thread::spawn(move || {
                let start = started + interval.mul_f64(s as f64 / SENDERS as f64);
                let (mut done, mut requests, mut failures) = (Vec::new(), Vec::new(), 0);
                for (n, order) in mine.into_iter().enumerate() {
                    let due = start + interval * n as u32;
                    if let Some(wait) = due.checked_duration_since(Instant::now()) {
                        std::thread::sleep(wait);
                    }
                    if stop.load(Ordering::Relaxed) {
                        return (done, requests, failures, false);
                    }
                    let at = Instant::now();
                    if confirm(&api, &order) {
                        requests.push(at.elapsed());
                        done.push(order);
                    } else {
                        failures += 1;
                    }
                }
                (done, requests, failures, true)
            })
        })
        .collect();
    std::thread::sleep(duration);
    stop.store(true, Ordering::Relaxed);
    let mut confirmed = Confirmed {
        orders: Vec::new(),
        requests: Vec::new(),
        failures: 0,
        ran_out: false,
        elapsed: Duration::ZERO,
    };
    for thread in threads {
        let (done, requests, failures, ran_out) = thread.join().unwrap();
        confirmed.orders.extend(done);
        confirmed.requests.extend(requests);
        confirmed.failures += failures;
        confirmed.ran_out |= ran_out;
    }
    confirmed.elapsed = started.elapsed();
    confirmed
}

/// Waits until no stream has read anything for a second (at most 30 s).
fn wait_for_quiet(streams: &[Stream]) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen: usize = streams.iter().map(Stream::len).sum();
    let mut last_change = Instant::now();
    while Instant::now() < deadline && last_change.elapsed() < Duration::from_secs(1) {
        std::thread::sleep(Duration::from_millis(50));
        let now: usize = streams.iter().map(Stream::len).sum();
        if now != seen {
            (seen, last_change) = (now, Instant::now());
        }
    }
}

/// Which of the measured events a `data:` line is, for which order, and its latency.
fn classify(arrival: &Arrival) -> Option<(Kind, String, Duration)> {
    let envelope: Value = serde_json::from_str(&arrival.data).ok()?;
    let (kind, order_id) = match envelope["event"].as_str()? {
        KITCHEN => (Kind::Kitchen, &envelope["data"]["ticket"]["order_id"]),
        ORDER if envelope["data"]["order"]["status"] == "confirmed" => {
            (Kind::Order, &envelope["data"]["order"]["id"])
        }
        _ => return None,
    };
    let created = brigade::time::parse_rfc3339(envelope["created_at"].as_str()?)?;
    let created = Duration::from_millis(created.timestamp_millis() as u64);
    let arrived = arrival.arrived.duration_since(UNIX_EPOCH).ok()?;
    Some((
        kind,
        order_id.as_str()?.to_string(),
        arrived.saturating_sub(created),
    ))
}

/// Latencies of both events of every confirmed order on every stream.
fn report(streams: &[Stream], confirmed: &[String]) -> Report {
    let mut report = Report::default();
    for (number, stream) in streams.iter().enumerate() {
        let mut first: HashMap<(Kind, String), Duration> = HashMap::new();
        for arrival in stream.arrivals.lock().unwrap().iter() {
            if let Some((kind, order, latency)) = classify(arrival) {
                if first.insert((kind, order), latency).is_some() {
                    report.duplicates += 1;
                }
            }
        }
        for order in confirmed {
            for kind in [Kind::Order, Kind::Kitchen] {
                match first.get(&(kind, order.clone())) {
                    Some(latency) => report.latencies.entry(kind).or_default().push(*latency),
                    None => report.missing.push((number, kind, order.clone())),
                }
            }
        }
    }
    report
}

/// Ends the streams with the server, then joins the readers; returns their errors.
fn close(streams: Vec<Stream>, stop: &AtomicBool, server: support::Server) -> Vec<String> {
    stop.store(true, Ordering::Relaxed);
    drop(server);
    streams
        .into_iter()
        .enumerate()
        .filter_map(|(n, s)| match s.thread.join() {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(format!("stream {n}: {e}")),
            Err(_) => Some(format!("stream {n}: reader panicked")),
        })
        .collect()
}

fn print_row(name: &str, latencies: &[Duration], expected: usize) {
    println!(
        "{name:<30} {:>8} {:>8}   {:>7.2} {:>7.2} {:>7.2}",
        latencies.len(),
        expected,
        ms(percentile(latencies, 50.0)),
        ms(percentile(latencies, 99.0)),
        ms(latencies.iter().max().copied().unwrap_or_default()),
    );
}

fn main() {
    let duration = phase_duration();
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(support::config(dir.path()));
    let (tenant, owner_key) = support::tenant(&server.app, "kitchen");
    let api = Api::new(&server.base, &tenant, &owner_key);
    let (_, kitchen_key) = keys::create(
        &server.app.db.registry().unwrap(),
        tenant.parse().unwrap(),
        "kitchen",
        Role::Kitchen,
    )
    .unwrap();
    println!(
        "Brigade kitchen benchmark: {RATE} confirms/s for {:.0} s, {STREAMS} kitchen streams, {} cores",
        duration.as_secs_f64(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    let item = menu_item(&api);
    let warm_ups = 3;
    let wanted = (RATE as f64 * (duration.as_secs_f64() + 1.0)) as usize + warm_ups;
    let mut orders = pending_orders(&api, &item, wanted);
    let measured = orders.split_off(warm_ups);

    let stop = Arc::new(AtomicBool::new(false));
    let (connected, all_connected) = mpsc::channel();
    let streams: Vec<Stream> = (0..STREAMS)
        .map(|_| open_stream(&api, &kitchen_key, stop.clone(), connected.clone()))
        .collect();
    warm_up(&api, &streams, &all_connected, &orders);

    let confirmed = confirm_steady(&api, &measured, duration);
    wait_for_quiet(&streams);
    let report = report(&streams, &confirmed.orders);
    let stream_errors = close(streams, &stop, server);

    let expected = confirmed.orders.len() * STREAMS;
    let per_second = confirmed.orders.len() as f64 / confirmed.elapsed.as_secs_f64();
    let (kitchen_p99, order_p99) = (report.p99(Kind::Kitchen), report.p99(Kind::Order));
    let ratio = kitchen_p99.as_secs_f64() / order_p99.as_secs_f64().max(1e-6);
    let met = ms(kitchen_p99) <= TARGET_P99_MS;

    println!();
    println!(
        "confirmed {} orders: {per_second:.1}/s, request p50 {:.2} ms p99 {:.2} ms, {} failed{}",
        confirmed.orders.len(),
        ms(percentile(&confirmed.requests, 50.0)),
        ms(percentile(&confirmed.requests, 99.0)),
        confirmed.failures,
        if confirmed.ran_out {
            ", ran out of pending orders"
        } else {
            ""
        }
    );
    println!(
        "{:<30} {:>8} {:>8}   {:>7} {:>7} {:>7}",
        "created_at → stream (ms)", "received", "expected", "p50", "p99", "max"
    );
    print_row(
        "order.updated (confirmed)",
        report.of(Kind::Order),
        expected,
    );
    print_row(KITCHEN, report.of(Kind::Kitchen), expected);
    println!("kitchen p99 ÷ order p99 = {ratio:.2}");
    println!(
        "target: kitchen p99 ≤ {TARGET_P99_MS:.0} ms — {}",
        if met { "met" } else { "MISSED" }
    );
    println!(
        "missing on streams: {}   duplicates: {}",
        report.missing.len(),
        report.duplicates
    );
    for (stream, kind, order) in report.missing.iter().take(LIST_MISSING) {
        println!("  stream {stream}: no {} for order {order}", kind.name());
    }
    for error in &stream_errors {
        println!("  {error}");
    }

    record(
        "kitchen",
        json!({
            "rate_per_second": RATE,
            "phase_seconds": duration.as_secs_f64(),
            "streams": STREAMS,
            "confirmed": confirmed.orders.len(),
            "confirms_per_second": per_second,
            "confirm_failures": confirmed.failures,
            "confirm_request_p99_ms": ms(percentile(&confirmed.requests, 99.0)),
            "order_updated": report.summary(Kind::Order, expected),
            "kitchen_ticket_created": report.summary(Kind::Kitchen, expected),
            "kitchen_p99_over_order_p99": ratio,
            "target_kitchen_p99_ms": TARGET_P99_MS,
            "target_met": met,
            "missing": report.missing.len(),
            "duplicates": report.duplicates,
            "stream_errors": stream_errors,
        }),
    );
}
