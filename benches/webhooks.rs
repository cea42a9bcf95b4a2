//! Webhook delivery against the real server and a real receiver on 127.0.0.1:
//! commit-to-delivery latency, and deliveries per second from a backlog, for one
//! tenant and for several at once.
//!
//! Latency is measured from the moment the order request is sent, so it includes
//! the request itself; that request's own time is printed as the baseline.

#[allow(dead_code)]
#[path = "../tests/api/helpers.rs"]
mod helpers;
#[allow(dead_code)]
#[path = "../tests/api/receiver.rs"]
mod receiver;

use std::time::{Duration, Instant};

use serde_json::json;

use helpers::{Client, TestApp};
use receiver::Receiver;

const LATENCY_ORDERS: usize = 300;
const BACKLOG: usize = 1000;
const TENANTS: usize = 4;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn millis(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn wait_for(receiver: &Receiver, count: usize) {
    while receiver.received().len() < count {
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn enable(client: &Client, url: &str, enabled: bool) {
    client
        .put("/settings/webhook", json!({"url": url, "enabled": enabled}))
        .expect(200);
}

fn latency(app: &TestApp) {
    let receiver = Receiver::start();
    enable(&app.owner, &receiver.url, true);
    let item = app.menu_item(10.0, 0.0);
    let mut request = Vec::with_capacity(LATENCY_ORDERS);
    let mut delivery = Vec::with_capacity(LATENCY_ORDERS);
    for n in 0..LATENCY_ORDERS {
        let sent = Instant::now();
        app.order(&item, 1);
        request.push(sent.elapsed());
        wait_for(&receiver, n + 1);
        delivery.push(receiver.received()[n].at - sent);
    }
    request.sort();
    delivery.sort();
    let (p50, p99) = (percentile(&delivery, 0.5), percentile(&delivery, 0.99));
    let baseline = percentile(&request, 0.5);
    println!("commit-to-delivery latency over {LATENCY_ORDERS} orders:");
    println!("  p50 {}   p99 {}", millis(p50), millis(p99));
    println!(
        "  baseline (the order request alone) p50 {}; delivery p50 is {:.2}x the request",
        millis(baseline),
        p50.as_secs_f64() / baseline.as_secs_f64()
    );
}

/// Queues `BACKLOG` test events per tenant with the endpoint off, then turns the
/// endpoints on and times until every event has arrived.
fn throughput(clients: &[Client]) {
    let receivers: Vec<Receiver> = clients.iter().map(|_| Receiver::start()).collect();
    for (client, receiver) in clients.iter().zip(&receivers) {
        enable(client, &receiver.url, false);
        for _ in 0..BACKLOG {
            client.post("/webhooks/test", json!({})).expect(202);
        }
    }
    let started = Instant::now();
    for (client, receiver) in clients.iter().zip(&receivers) {
        enable(client, &receiver.url, true);
    }
    for receiver in &receivers {
        wait_for(receiver, BACKLOG);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let total = BACKLOG * clients.len();
    println!(
        "backlog of {BACKLOG} events x {} tenant(s): {total} delivered in {elapsed:.2} s = {:.0} deliveries/s",
        clients.len(),
        total as f64 / elapsed
    );
}

fn main() {
    let app = TestApp::spawn();
    latency(&app);
    throughput(std::slice::from_ref(&app.owner));
    let clients: Vec<Client> = (0..TENANTS)
        .map(|n| app.second_tenant(&format!("bench-{n}")).1)
        .collect();
    throughput(&clients);
}
