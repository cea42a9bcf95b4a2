//! Many tenants on one box: 1,000 tenant files in one data dir, then the real
//! `brigade` binary's start time, resident memory idle and after every tenant has
//! been used once, and the first request to a cold tenant against a warm one.
//!
//! `cargo bench --bench tenants`; `BRIGADE_BENCH_TENANTS` changes the count.

mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use support::{ms, record, resident_mib, Api};

fn main() {
    let count: usize = std::env::var("BRIGADE_BENCH_TENANTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let dir = tempfile::tempdir().unwrap();
    let made = Instant::now();
    let tenants: Vec<(String, String)> = {
        let app = brigade::App::open(support::config(dir.path())).unwrap();
        (0..count)
            .map(|i| support::tenant(&app, &format!("t{i:04}")))
            .collect()
    };
    println!(
        "Brigade tenants benchmark: {count} tenants created in {:.1} s",
        made.elapsed().as_secs_f64()
    );

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_brigade"))
        .arg("--data-dir")
        .arg(dir.path())
        .args([
            "serve",
            "--no-demo",
            "--address",
            "127.0.0.1",
            "--port",
            &port.to_string(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("brigade starts");
    let base = format!("http://127.0.0.1:{port}/api/v1");
    let probe = support::agent();
    while probe.get(format!("{base}/openapi.json")).call().is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the server did not start"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let start_time = started.elapsed();
    std::thread::sleep(Duration::from_millis(500));
    let idle = resident_mib(child.id());

    let (cold_tenant, cold_key) = &tenants[count / 2];
    let api = Api::new(&base, cold_tenant, cold_key);
    let at = Instant::now();
    assert_eq!(api.call("GET", "/orders", None).0, 200);
    let cold = at.elapsed();
    let warm: Vec<Duration> = (0..50)
        .map(|_| {
            let at = Instant::now();
            api.call("GET", "/orders", None);
            at.elapsed()
        })
        .collect();
    let warm = support::percentile(&warm, 50.0);

    let touched = Instant::now();
    for (tenant, key) in &tenants {
        let (status, _) = Api::new(&base, tenant, key).call("GET", "/orders", None);
        assert_eq!(status, 200);
    }
    let touch_all = touched.elapsed();
    let after = resident_mib(child.id());
    let _ = child.kill();
    let _ = child.wait();

    println!(
        "server start with {count} tenants     {:>8.1} ms   (target ≤ 2000 ms)",
        ms(start_time)
    );
    println!("resident memory idle                {idle:>8.1} MiB");
    println!("resident memory after all touched   {after:>8.1} MiB (target < 100 MiB)");
    println!("first request, cold tenant          {:>8.2} ms", ms(cold));
    println!(
        "same request, warm (p50 of 50)      {:>8.2} ms   cold ÷ warm = {:.1}",
        ms(warm),
        cold.as_secs_f64() / warm.as_secs_f64()
    );
    println!(
        "touching all {count} tenants once      {:>8.0} ms",
        ms(touch_all)
    );
    record(
        "tenants",
        json!({
            "tenants": count,
            "start_ms": ms(start_time),
            "resident_idle_mib": idle,
            "resident_after_touch_mib": after,
            "cold_first_request_ms": ms(cold),
            "warm_request_p50_ms": ms(warm),
            "touch_all_ms": ms(touch_all),
        }),
    );
}
