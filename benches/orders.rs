//! Order throughput and latency over HTTP at concurrency 32, against the rate of the
//! same SQL work done directly with rusqlite on a fresh file in the same run.
//!
//! `cargo bench --bench orders`; `BRIGADE_BENCH_SECONDS` sets each phase's length.

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use brigade::domain::orders::{self, NewLine, NewOrder, OrderType};
use brigade::domain::{self, Context};
use rusqlite::{Connection, TransactionBehavior};
use serde_json::{json, Value};
use support::{load, ms, phase_duration, record, Api};

const CONCURRENCY: usize = 32;
const WARM_UP: Duration = Duration::from_secs(1);

fn main() {
    let duration = phase_duration();
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(support::config(dir.path()));
    let (tenant, key) = support::tenant(&server.app, "bench");
    let api = Api::new(&server.base, &tenant, &key);
    let (_, category) = api.call("POST", "/menu/categories", Some(&json!({"name": "Mains"})));
    let items: Vec<String> = (0..3)
        .map(|i| {
            let body = json!({"name": format!("Dish {i}"), "category_id": category["id"], "price": 12.5, "tax_rate": 8.875,
                "modifiers": [{"name": "Large", "price": 2}]});
            api.call("POST", "/menu/items", Some(&body)).1["id"].as_str().unwrap().to_string()
        })
        .collect();
    let order_body = Arc::new(json!({"order_type": "takeaway", "items": [
        {"menu_item_id": items[0], "quantity": 1},
        {"menu_item_id": items[1], "quantity": 2, "modifiers": ["Large"]},
        {"menu_item_id": items[2], "quantity": 1, "notes": "no salt"}
    ]}));

    println!(
        "Brigade order benchmark: concurrency {CONCURRENCY}, {:.0} s per phase, {} cores",
        duration.as_secs_f64(),
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    let clients: Arc<Vec<Api>> = Arc::new(
        (0..CONCURRENCY)
            .map(|_| Api::new(&server.base, &tenant, &key))
            .collect(),
    );
    let created: Arc<Mutex<Vec<(String, f64)>>> = Arc::new(Mutex::new(Vec::new()));
    // Unmeasured: connections, statement caches and the fresh file's first pages.
    {
        let (clients, body) = (clients.clone(), order_body.clone());
        load("warm-up", CONCURRENCY, WARM_UP, move |t, _| {
            clients[t].status("POST", "/orders", Some(&body)) == 201
        });
    }

    let create = {
        let (clients, body, created) = (clients.clone(), order_body.clone(), created.clone());
        load(
            "create order (3 items)",
            CONCURRENCY,
            duration,
            move |t, _| {
                let (status, order) = clients[t].call("POST", "/orders", Some(&body));
                if status == 201 {
                    created.lock().unwrap().push((
                        order["id"].as_str().unwrap().to_string(),
                        order["total_amount"].as_f64().unwrap(),
                    ));
                }
                status == 201
            },
        )
    };
    let list = {
        let clients = clients.clone();
        load("list 50 orders", CONCURRENCY, duration, move |t, _| {
            clients[t].status("GET", "/orders?limit=50", None) == 200
        })
    };
    let ids: Arc<Vec<(String, f64)>> = Arc::new(created.lock().unwrap().clone());
    let get = {
        let (clients, ids) = (clients.clone(), ids.clone());
        load("get order by id", CONCURRENCY, duration, move |t, i| {
            let (id, _) = &ids[(t * 7919 + i * 31) % ids.len()];
            clients[t].status("GET", &format!("/orders/{id}"), None) == 200
        })
    };
    let pay = {
        let (clients, ids) = (clients.clone(), ids.clone());
        // Each thread pays its own slice of the created orders, so none is paid twice.
        load("pay + complete", CONCURRENCY, duration, move |t, i| {
            let Some((id, total)) = ids.get(i * CONCURRENCY + t) else {
                std::thread::sleep(Duration::from_millis(1));
                return false;
            };
            let paid = clients[t].status(
                "POST",
                &format!("/orders/{id}/payments"),
                Some(&json!({"method": "card", "amount": total})),
            );
            let done = clients[t].status(
                "POST",
                &format!("/orders/{id}/status"),
                Some(&json!({"status": "completed"})),
            );
            paid == 201 && done == 200
        })
    };
    drop(server);

    let raw_normal = raw_create_rate(false, 1, duration);
    let raw_full = raw_create_rate(true, 1, duration);
    let raw_batched = raw_create_rate(false, CONCURRENCY, duration);
    println!();
    for phase in [&create, &list, &get, &pay] {
        phase.print();
    }
    println!();
    println!(
        "baseline: the same order-create SQL directly with rusqlite, one connection, tight loop"
    );
    println!("  synchronous=NORMAL {raw_normal:>9.0} tx/s");
    println!("  synchronous=FULL   {raw_full:>9.0} tx/s");
    println!(
        "  synchronous=NORMAL, {CONCURRENCY} creates per transaction {raw_batched:>9.0} creates/s   (the ceiling for group commit)"
    );
    let ratio = create.per_second() / raw_normal;
    let batched_ratio = create.per_second() / raw_batched;
    println!();
    println!("HTTP creates/s ÷ raw transactions/s (NORMAL) = {ratio:.2}   (target ≥ 0.80)");
    println!("HTTP creates/s ÷ raw batched creates/s       = {batched_ratio:.2}");
    println!(
        "create p99 = {:.2} ms (target ≤ 15 ms), errors = {} (target 0)",
        ms(create.percentile(99.0)),
        create.errors
    );
    record(
        "orders",
        json!({
            "concurrency": CONCURRENCY,
            "phase_seconds": duration.as_secs_f64(),
            "create": create.json(),
            "list_50": list.json(),
            "get": get.json(),
            "pay_and_complete": pay.json(),
            "raw_create_tx_per_second": {"synchronous_normal": raw_normal, "synchronous_full": raw_full},
            "raw_batched_creates_per_second": raw_batched,
            "create_to_raw_ratio": ratio,
            "create_to_raw_batched_ratio": batched_ratio,
        }),
    );
}

/// Order creates per second done in-process: the very query functions the HTTP
/// handler calls, on one connection with the server's PRAGMAs, `per_transaction`
/// creates to each commit.
fn raw_create_rate(synchronous_full: bool, per_transaction: usize, duration: Duration) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let app = brigade::App::open({
        let mut config = support::config(dir.path());
        config.synchronous_full = synchronous_full;
        config
    })
    .unwrap();
    let (tenant, _) = support::tenant(&app, "raw");
    let tenant: uuid::Uuid = tenant.parse().unwrap();
    drop(app);
    let path = dir.path().join("tenants").join(format!("{tenant}.db"));
    let mut conn = Connection::open(&path).unwrap();
    conn.execute_batch(&format!(
        "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA busy_timeout=5000; PRAGMA synchronous={};",
        if synchronous_full { "FULL" } else { "NORMAL" }
    ))
    .unwrap();
    let now = brigade::time::now_rfc3339();
    conn.execute("INSERT INTO menu_categories (id, name, created_at, updated_at) VALUES ('c', 'Mains', ?1, ?1)", [&now]).unwrap();
    let ids: Vec<String> = (0..3)
        .map(|i| {
            let id = uuid::Uuid::now_v7().to_string();
            conn.execute(
                "INSERT INTO menu_items (id, category_id, name, price, tax_rate, modifiers, created_at, updated_at) \
                 VALUES (?1, 'c', ?2, 1250, 8875, '[{\"name\":\"Large\",\"price\":200}]', ?3, ?3)",
                rusqlite::params![id, format!("Dish {i}"), now],
            )
            .unwrap();
            id
        })
        .collect();
    let line = |id: &str, quantity, modifiers: Option<Vec<String>>| NewLine {
        menu_item_id: id.to_string(),
        quantity,
        modifiers,
        notes: None,
        course: None,
        seat: None,
    };
    let order = NewOrder {
        order_type: OrderType::Takeaway,
        table_id: None,
        session_id: None,
        customer: None,
        notes: None,
        items: vec![
            line(&ids[0], 1, None),
            line(&ids[1], 2, Some(vec!["Large".into()])),
            line(&ids[2], 1, None),
        ],
        hold_courses: false,
    };
    let started = Instant::now();
    let mut count = 0u64;
    while started.elapsed() < duration {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .unwrap();
        for _ in 0..per_transaction {
            let context = Context {
                tenant_id: tenant,
                actor: "bench".to_string(),
                now: chrono::Utc::now(),
            };
            let (_, _): (Value, _) = domain::run(&tx, context, |tx| {
                let row = orders::create_order(tx, &order, None)?;
                serde_json::to_value(orders::order_json(tx, &row, tx.exponent()?)?)
                    .map_err(brigade::error::ApiError::internal)
            })
            .unwrap();
        }
        tx.commit().unwrap();
        count += per_transaction as u64;
    }
    count as f64 / started.elapsed().as_secs_f64()
}
