//! Order creates per second over HTTP with three automatic campaigns running
//! (a percentage off a category, buy two get one, a fixed-price bundle), against
//! the same load with none, in the same run. The load without campaigns runs
//! before and after, and its mean is the baseline, so the tenant file's growth
//! does not favour either side.
//!
//! `cargo bench --bench campaigns`; `BRIGADE_BENCH_SECONDS` sets each phase's length.

mod support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use support::{load, ms, phase_duration, record, Api, Phase};

const CONCURRENCY: usize = 32;
const WARM_UP: Duration = Duration::from_secs(1);

fn creates(name: &str, clients: &Arc<Vec<Api>>, body: &Arc<Value>, duration: Duration) -> Phase {
    let (clients, body) = (clients.clone(), body.clone());
    load(name, CONCURRENCY, duration, move |t, _| {
        clients[t].status("POST", "/orders", Some(&body)) == 201
    })
}

fn main() {
    let duration = phase_duration();
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(support::config(dir.path()));
    let (tenant, key) = support::tenant(&server.app, "bench");
    let api = Api::new(&server.base, &tenant, &key);
    let category = |name: &str| {
        api.call("POST", "/menu/categories", Some(&json!({"name": name})))
            .1["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (mains, drinks) = (category("Mains"), category("Drinks"));
    let item = |name: &str, category: &str, price: f64| {
        let body =
            json!({"name": name, "category_id": category, "price": price, "tax_rate": 8.875});
        api.call("POST", "/menu/items", Some(&body)).1["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (burger, pasta, soda) = (
        item("Burger", &mains, 12.5),
        item("Pasta", &mains, 14.0),
        item("Soda", &drinks, 3.5),
    );
    // Every campaign has something to price in this order.
    let body = Arc::new(json!({"order_type": "takeaway", "items": [
        {"menu_item_id": burger, "quantity": 2},
        {"menu_item_id": pasta, "quantity": 1},
        {"menu_item_id": soda, "quantity": 2}
    ]}));
    let clients: Arc<Vec<Api>> = Arc::new(
        (0..CONCURRENCY)
            .map(|_| Api::new(&server.base, &tenant, &key))
            .collect(),
    );
    println!(
        "Brigade campaign benchmark: concurrency {CONCURRENCY}, {:.0} s per phase, {} cores",
        duration.as_secs_f64(),
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    creates("warm-up", &clients, &body, WARM_UP);
    let before = creates("create order, no campaign", &clients, &body, duration);
    let campaigns = [
        json!({"name": "Drinks 20 %", "kind": "percent_off", "percent": 20,
            "applies_to": {"category_ids": [drinks]}, "stackable": true}),
        json!({"name": "3 for 2 mains", "kind": "bogo",
            "buy": {"quantity": 2, "items": {"category_ids": [mains]}}, "get": {"quantity": 1}}),
        json!({"name": "Meal deal", "kind": "fixed_price_bundle",
            "bundle": {"price": 14, "slots": [{"category_ids": [mains]}, {"category_ids": [drinks]}]}}),
    ];
    let ids: Vec<String> = campaigns
        .iter()
        .map(|definition| {
            let (status, made) = api.call("POST", "/campaigns", Some(definition));
            assert_eq!(status, 201, "{made}");
            let id = made["id"].as_str().unwrap().to_string();
            assert_eq!(
                api.status("POST", &format!("/campaigns/{id}/activate"), None),
                200
            );
            id
        })
        .collect();
    let (_, priced) = api.call("POST", "/orders", Some(&body));
    assert!(
        priced["discount_amount"].as_f64().unwrap() > 0.0,
        "the campaigns price the order: {priced}"
    );
    let with = creates("create order, 3 campaigns", &clients, &body, duration);
    for id in &ids {
        assert_eq!(
            api.status("POST", &format!("/campaigns/{id}/pause"), None),
            200
        );
    }
    let after = creates("create order, none again", &clients, &body, duration);
    drop(server);

    println!();
    for phase in [&before, &with, &after] {
        phase.print();
    }
    let baseline = (before.per_second() + after.per_second()) / 2.0;
    let ratio = with.per_second() / baseline;
    println!();
    println!("with campaigns ÷ without (mean of before and after) = {ratio:.2}   (target ≥ 0.80)");
    println!(
        "p99 with campaigns {:.2} ms, without {:.2} ms; errors {} (target 0)",
        ms(with.percentile(99.0)),
        ms(before.percentile(99.0)),
        with.errors + before.errors + after.errors
    );
    record(
        "campaigns",
        json!({
            "concurrency": CONCURRENCY,
            "phase_seconds": duration.as_secs_f64(),
            "without_before": before.json(),
            "with_three_campaigns": with.json(),
            "without_after": after.json(),
            "ratio": ratio,
        }),
    );
}
