//! Crash safety of the real binary: orders and payments are driven against it with
//! a webhook receiver attached, it is SIGKILLed at random moments and restarted on
//! the same data dir, and nothing acknowledged or committed may be lost.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::Rng;
use serde_json::json;

use crate::helpers::Client;
use crate::process::{brigade, serve_no_demo, stdout};
use crate::receiver::Receiver;

/// What the server acknowledged: order id → payment ids.
type Acknowledged = Arc<Mutex<BTreeMap<String, Vec<String>>>>;

fn drive(client: Client, item: String, acknowledged: Acknowledged, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::SeqCst) {
        let res = client.try_post(
            "/orders",
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 2}]}),
        );
        let Some(res) = res else { return };
        if res.status != 201 {
            continue;
        }
        let id = res.body["id"].as_str().unwrap().to_string();
        let total = res.body["total_amount"].as_f64().unwrap();
        acknowledged.lock().unwrap().insert(id.clone(), Vec::new());
        let Some(paid) = client.try_post(
            &format!("/orders/{id}/payments"),
            json!({"method": "card", "amount": total}),
        ) else {
            return;
        };
        if paid.status == 201 {
            let payment = paid.body["payment"]["id"].as_str().unwrap().to_string();
            acknowledged
                .lock()
                .unwrap()
                .get_mut(&id)
                .unwrap()
                .push(payment);
        }
    }
}

fn integrity_ok(path: &Path) -> bool {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0))
        .unwrap()
        == "ok"
}

#[test]
fn sigkill_at_random_moments_loses_no_acknowledged_order_or_committed_event() {
    let dir = tempfile::tempdir().unwrap();
    let tenant = stdout(&brigade(
        dir.path(),
        &[
            "tenant",
            "create",
            "--name",
            "Crash Cafe",
            "--slug",
            "crash",
        ],
    ));
    let key = stdout(&brigade(
        dir.path(),
        &[
            "api-key", "create", "--tenant", "crash", "--name", "pos", "--role", "owner",
        ],
    ));
    let receiver = Receiver::start();
    let mut server = serve_no_demo(dir.path());
    let client = |base: &str| Client {
        token: Some(key.clone()),
        ..Client::anonymous(base).with_tenant(&tenant)
    };
    let setup = client(&server.base);
    let secret = setup
        .put(
            "/settings/webhook",
            json!({"url": receiver.url, "enabled": true}),
        )
        .expect(200)["secret"]
        .as_str()
        .unwrap()
        .to_string();
    let category = setup
        .post("/menu/categories", json!({"name": "Food"}))
        .expect(201);
    let item = setup
        .post(
            "/menu/items",
            json!({"name": "Soup", "category_id": category["id"], "price": 4.5, "tax_rate": 5}),
        )
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string();

    let acknowledged: Acknowledged = Arc::default();
    let mut rng = rand::rng();
    for _ in 0..4 {
        let stop = Arc::new(AtomicBool::new(false));
        let drivers: Vec<_> = (0..4)
            .map(|_| {
                let (client, item, acknowledged, stop) = (
                    client(&server.base),
                    item.clone(),
                    acknowledged.clone(),
                    stop.clone(),
                );
                std::thread::spawn(move || drive(client, item, acknowledged, stop))
            })
            .collect();
        std::thread::sleep(Duration::from_millis(rng.random_range(150..900)));
        server.kill();
        stop.store(true, Ordering::SeqCst);
        for driver in drivers {
            driver.join().unwrap();
        }
        server = serve_no_demo(dir.path());
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(
        acknowledged.len() >= 4,
        "the load made orders: {}",
        acknowledged.len()
    );

    let check = client(&server.base);
    for (id, payments) in &acknowledged {
        let order = check.get(&format!("/orders/{id}")).expect(200);
        assert_eq!(
            order["items"].as_array().unwrap().len(),
            1,
            "order {id} kept its line"
        );
        let stored: BTreeSet<String> = check.get(&format!("/orders/{id}/payments")).expect(200)
            ["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap().to_string())
            .collect();
        for payment in payments {
            assert!(
                stored.contains(payment),
                "payment {payment} of order {id} was lost"
            );
        }
    }

    let tenant_file = dir.path().join("tenants").join(format!("{tenant}.db"));
    let committed: BTreeSet<String> = {
        let conn = rusqlite::Connection::open(&tenant_file).unwrap();
        let mut stmt = conn.prepare("SELECT event_id FROM outbox").unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let delivered: BTreeSet<String> = loop {
        let delivered: BTreeSet<String> = receiver
            .received()
            .iter()
            .map(|r| r.json()["id"].as_str().unwrap().to_string())
            .collect();
        if committed.is_subset(&delivered) || Instant::now() > deadline {
            break delivered;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let missing: Vec<_> = committed.difference(&delivered).collect();
    assert!(
        missing.is_empty(),
        "{} committed events never arrived: {missing:?}",
        missing.len()
    );
    let invented: Vec<_> = delivered.difference(&committed).collect();
    assert!(
        invented.is_empty(),
        "delivered events that were never committed: {invented:?}"
    );
    assert!(receiver.received().iter().all(|r| r.signed_with(&secret)));
    drop(server);
    assert!(integrity_ok(&tenant_file));
    assert!(integrity_ok(&dir.path().join("registry.db")));
}
