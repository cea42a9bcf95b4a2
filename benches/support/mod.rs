//! Shared by the load benchmarks: a real server on 127.0.0.1 with a temp data dir,
//! a fixed-concurrency load loop, percentiles and the results file.

#![allow(dead_code)] // each bench target uses part of this

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use brigade::auth::{keys, Role};
use brigade::local_server::{loopback_config, LocalServer};
use brigade::{App, Config};
use serde_json::Value;

/// A server on the loopback; `base` is its API root.
pub struct Server {
    pub app: Arc<App>,
    pub base: String,
    _running: LocalServer,
}

pub fn config(dir: &Path) -> Config {
    loopback_config(dir)
}

pub fn start(config: Config) -> Server {
    let running = LocalServer::start(config).expect("server starts");
    Server {
        app: running.app.clone(),
        base: format!("{}/api/v1", running.origin),
        _running: running,
    }
}

/// A tenant with an owner API key; returns (tenant id, key).
pub fn tenant(app: &App, slug: &str) -> (String, String) {
    let db = app
        .db
        .create_tenant("Bench Bistro", slug, "USD", "UTC")
        .unwrap();
    let registry = app.db.registry().unwrap();
    let (_, key) = keys::create(&registry, db.info.id, "bench", Role::Owner).unwrap();
    (db.info.id.to_string(), key)
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

pub struct Api {
    pub base: String,
    pub tenant: String,
    pub key: String,
    pub agent: ureq::Agent,
}

impl Api {
    pub fn new(base: &str, tenant: &str, key: &str) -> Api {
        Api {
            base: base.to_string(),
            tenant: tenant.to_string(),
            key: key.to_string(),
            agent: agent(),
        }
    }

    /// (status, body)
    pub fn call(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let (status, text) = self.send(method, path, body);
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// The status alone; the body is read but not parsed, so a large answer costs
    /// the load generator little of the CPU it shares with the server.
    pub fn status(&self, method: &str, path: &str, body: Option<&Value>) -> u16 {
        self.send(method, path, body).0
    }

    fn send(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, String) {
        let request = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("Authorization", format!("Bearer {}", self.key))
            .header("X-Tenant-ID", &self.tenant)
            .header("Content-Type", "application/json");
        let result = match body {
            Some(body) => self.agent.run(request.body(body.to_string()).unwrap()),
            None => self.agent.run(request.body(()).unwrap()),
        };
        match result {
            Ok(mut response) => {
                let status = response.status().as_u16();
                let text = response.body_mut().read_to_string().unwrap_or_default();
                (status, text)
            }
            Err(_) => (0, String::new()),
        }
    }
}

/// Latencies of one phase.
pub struct Phase {
    pub name: String,
    pub latencies: Vec<Duration>,
    pub errors: usize,
    pub elapsed: Duration,
}

impl Phase {
    pub fn per_second(&self) -> f64 {
        self.latencies.len() as f64 / self.elapsed.as_secs_f64()
    }

    pub fn percentile(&self, p: f64) -> Duration {
        percentile(&self.latencies, p)
    }

    pub fn print(&self) {
        println!(
            "{:<28} {:>9.0} req/s  p50 {:>7.2} ms  p99 {:>7.2} ms  p99.9 {:>7.2} ms  errors {}",
            self.name,
            self.per_second(),
            ms(self.percentile(50.0)),
            ms(self.percentile(99.0)),
            ms(self.percentile(99.9)),
            self.errors
        );
    }

    pub fn json(&self) -> Value {
        serde_json::json!({
            "requests_per_second": self.per_second(),
            "requests": self.latencies.len(),
            "p50_ms": ms(self.percentile(50.0)),
            "p99_ms": ms(self.percentile(99.0)),
            "p99_9_ms": ms(self.percentile(99.9)),
            "errors": self.errors,
        })
    }
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

pub fn percentile(sorted_or_not: &[Duration], p: f64) -> Duration {
    if sorted_or_not.is_empty() {
        return Duration::ZERO;
    }
    let mut sorted = sorted_or_not.to_vec();
    sorted.sort();
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Runs `work` on `concurrency` threads for `duration`; `work(thread, i)` returns
/// whether the request succeeded.
pub fn load<F>(name: &str, concurrency: usize, duration: Duration, work: F) -> Phase
where
    F: Fn(usize, usize) -> bool + Send + Sync + 'static,
{
    let work = Arc::new(work);
    let stop = Arc::new(AtomicBool::new(false));
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let errors = Arc::new(Mutex::new(0usize));
    let started = Instant::now();
    let threads: Vec<_> = (0..concurrency)
        .map(|t| {
            let (work, stop, latencies, errors) = (
                work.clone(),
                stop.clone(),
                latencies.clone(),
                errors.clone(),
            );
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                let mut failed = 0;
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let at = Instant::now();
                    if work(t, i) {
                        mine.push(at.elapsed());
                    } else {
                        failed += 1;
                    }
                    i += 1;
                }
                latencies.lock().unwrap().extend(mine);
                *errors.lock().unwrap() += failed;
            })
        })
        .collect();
    std::thread::sleep(duration);
    stop.store(true, Ordering::Relaxed);
    for thread in threads {
        let _ = thread.join();
    }
    let elapsed = started.elapsed();
    let latencies = std::mem::take(&mut *latencies.lock().unwrap());
    let errors = *errors.lock().unwrap();
    Phase {
        name: name.to_string(),
        latencies,
        errors,
        elapsed,
    }
}

/// Seconds per load phase: `BRIGADE_BENCH_SECONDS`, default 5.
pub fn phase_duration() -> Duration {
    let seconds = std::env::var("BRIGADE_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5.0);
    Duration::from_secs_f64(seconds)
}

/// Merges `section` into `target/bench-results.json`, so each bench adds its part.
pub fn record(section: &str, value: Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("bench-results.json");
    let mut all: serde_json::Map<String, Value> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    all.insert(section.to_string(), value);
    let _ = std::fs::write(
        &path,
        serde_json::to_string_pretty(&Value::Object(all)).unwrap(),
    );
    println!("results written to {}", path.display());
}

/// Resident memory of a process in MiB, from /proc.
pub fn resident_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}
