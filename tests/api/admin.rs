//! The owner's backup routes: one tenant restored while the server runs, bad
//! input refused; and the server's scheduled backups and what the
//! notifications summary says of them.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use brigade::auth::Role;
use brigade::backup::schedule::run_due;
use brigade::backup::{self, Progress};
use brigade::time::Clock;
use chrono::{TimeZone, Utc};
use serde_json::{json, Value};

use crate::helpers::{create_tenant, test_config, Client, TestApp};
use crate::receiver::{Answer, Receiver};

/// A server whose backup dir is `<data dir>/backups`, once its first scheduled
/// backup, made as it starts, is done.
fn with_backups() -> TestApp {
    let test =
        TestApp::spawn_with(|config| config.backup_dir = Some(config.data_dir.join("backups")));
    wait_until("the first scheduled backup", || {
        test.app().backups.state().last_attempt_at.is_some()
    });
    test
}

/// Backs up every tenant of the running server into its backup dir; returns the
/// backup's name.
fn backup_now(test: &TestApp) -> String {
    let app = test.app();
    let root = app.config.backup_dir.clone().unwrap();
    let (folder, _) = backup::take(&app.db, &root, None, Utc::now(), &Progress::hidden()).unwrap();
    folder.file_name().unwrap().to_str().unwrap().to_string()
}

fn takeaway(client: &Client, item: &str) -> String {
    client
        .post(
            "/orders",
            json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]}),
        )
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The ids of the events the receiver was sent, in arrival order.
fn received_ids(receiver: &Receiver) -> Vec<String> {
    receiver
        .received()
        .iter()
        .map(|r| r.json()["id"].as_str().unwrap().to_string())
        .collect()
}

#[track_caller]
pub fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "still waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn one_tenant_is_restored_live_while_the_other_keeps_serving() {
    let test = with_backups();
    let (_, other_owner) = test.second_tenant("other-place");
    let other_item = test.menu_item_for(&other_owner, 4.0, 0.0);
    let item = test.menu_item(3.0, 0.0);
    let receiver = Receiver::start();
    receiver.answer(Answer::Status(500));
    test.owner
        .put(
            "/settings/webhook",
            json!({"url": receiver.url, "enabled": true}),
        )
        .expect(200);

    // Its order.created event failed once: pending in the backup.
    let kept = takeaway(&test.owner, &item);
    receiver.wait_for(1);
    let pending = received_ids(&receiver)[0].clone();
    let name = backup_now(&test);

    // Then it was delivered, and more happened; the restore takes all that back.
    receiver.answer(Answer::Status(200));
    test.owner
        .post(&format!("/webhooks/deliveries/{pending}/retry"), json!({}))
        .expect(200);
    let lost = takeaway(&test.owner, &item);
    receiver.wait_for(3);
    // A delivery attempt still in flight when the restore starts: it is waited for.
    receiver.then(vec![Answer::Hang(Duration::from_secs(3))]);
    takeaway(&test.owner, &item);
    receiver.wait_for(4);

    let stop = Arc::new(AtomicBool::new(false));
    let other_served = Arc::new(AtomicUsize::new(0));
    let other = {
        let (client, stop, served) = (other_owner.clone(), stop.clone(), other_served.clone());
        std::thread::spawn(move || {
            let mut failures = Vec::new();
            while !stop.load(Ordering::SeqCst) {
                let res = client.post(
                    "/orders",
                    json!({"order_type": "takeaway", "items": [{"menu_item_id": other_item, "quantity": 1}]}),
                );
                if res.status == 201 {
                    served.fetch_add(1, Ordering::SeqCst);
                } else {
                    failures.push(res.body);
                }
            }
            failures
        })
    };
    let same = {
        let (client, stop, kept) = (test.owner.clone(), stop.clone(), kept.clone());
        std::thread::spawn(move || {
            let mut answers: Vec<(u16, Value)> = Vec::new();
            while !stop.load(Ordering::SeqCst) {
                let res = client.get(&format!("/orders/{kept}"));
                answers.push((res.status, res.body));
            }
            answers
        })
    };
    let served_before = other_served.load(Ordering::SeqCst);
    let restored = test
        .owner
        .post("/admin/restore", json!({"backup": name}))
        .expect(200);
    let served_during = other_served.load(Ordering::SeqCst) - served_before;
    stop.store(true, Ordering::SeqCst);
    assert_eq!(restored["name"], name.as_str());
    assert_eq!(other.join().unwrap(), Vec::<Value>::new());
    assert!(
        served_during > 0,
        "the other tenant was served during the restore"
    );
    // The tenant's own requests got a clear 503 while it was closed (the restore
    // waited for the hanging delivery attempt), never a failure of another kind.
    let mut refused = 0;
    for (status, body) in same.join().unwrap() {
        match status {
            200 => {}
            503 => {
                assert_eq!(body["code"], "tenant_restoring", "{body}");
                refused += 1;
            }
            _ => panic!("{status}: {body}"),
        }
    }
    assert!(refused > 0);

    // The tenant is as it was at the backup.
    test.owner.get(&format!("/orders/{kept}")).expect(200);
    test.owner
        .get(&format!("/orders/{lost}"))
        .expect_problem(404, "not_found");
    // Its delivery that was pending at the backup goes out again.
    wait_until("the restored pending delivery", || {
        received_ids(&receiver)
            .iter()
            .filter(|id| **id == pending)
            .count()
            >= 3
    });
    // Received a moment before the delivery is recorded as done.
    wait_until("the restored delivery to be recorded as delivered", || {
        test.owner
            .get(&format!("/webhooks/deliveries/{pending}"))
            .expect(200)["status"]
            == "delivered"
    });
}

#[test]
fn the_owner_lists_the_backups_that_hold_the_business() {
    let test = with_backups();
    let before = test.owner.get("/admin/backups").expect(200)["data"]
        .as_array()
        .unwrap()
        .len();
    let first = backup_now(&test);
    std::thread::sleep(Duration::from_millis(5));
    let second = backup_now(&test);
    let list = test.owner.get("/admin/backups").expect(200);
    let names: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), before + 2);
    assert_eq!(names[..2], [second.as_str(), first.as_str()]);
    assert!(list["data"][0]["size"].as_u64().unwrap() > 0);
    assert_eq!(
        list["data"][0]["schema_version"],
        brigade::db::migrations::latest_version(brigade::db::migrations::Schema::Tenant)
    );
}

fn flip_a_byte(file: &Path) {
    let mut bytes = std::fs::read(file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    std::fs::write(file, bytes).unwrap();
}

#[test]
fn a_live_restore_refuses_bad_input_other_roles_and_unusable_backups() {
    let test = with_backups();
    let item = test.menu_item(3.0, 0.0);
    let order = takeaway(&test.owner, &item);
    let good = backup_now(&test);
    let owner = &test.owner;

    owner
        .post_raw("/admin/restore", "application/json", b"{\"backup\":")
        .expect_problem(400, "malformed_json");
    owner
        .post("/admin/restore", json!({"backup": good, "extra": 1}))
        .expect_problem(422, "validation_failed");
    owner
        .post("/admin/restore", json!({}))
        .expect_problem(422, "validation_failed");
    owner
        .post("/admin/restore", json!({"backup": 7}))
        .expect_problem(422, "validation_failed");
    for name in ["../../etc", "2000011T000000.000Z", " 20000101T000000.000Z"] {
        owner
            .post("/admin/restore", json!({"backup": name}))
            .expect_problem(422, "validation_failed");
    }
    owner
        .post("/admin/restore", json!({"backup": "20000101T000000.000Z"}))
        .expect_problem(404, "not_found");
    for role in [Role::Manager, Role::Cashier, Role::Kitchen] {
        test.user(role)
            .post("/admin/restore", json!({"backup": good}))
            .expect_problem(403, "permission_denied");
        test.user(role)
            .get("/admin/backups")
            .expect_problem(403, "permission_denied");
    }
    // Another tenant's credentials, and a tenant that does not exist.
    let (other_tenant, other_owner) = test.second_tenant("other-place");
    owner
        .with_tenant(&other_tenant)
        .post("/admin/restore", json!({"backup": good}))
        .expect_problem(403, "tenant_mismatch");
    owner
        .with_tenant(&uuid::Uuid::now_v7().to_string())
        .post("/admin/restore", json!({"backup": good}))
        .expect_problem(403, "tenant_mismatch");

    let root = test.app().config.backup_dir.clone().unwrap();
    // A backup of the other tenant alone holds nothing of this one.
    let other_info = test.app().db.tenant_by_slug("other-place").unwrap();
    let (other_only, _) = backup::take(
        &test.app().db,
        &root,
        Some(&other_info),
        Utc::now() + chrono::Duration::seconds(1),
        &Progress::hidden(),
    )
    .unwrap();
    owner
        .post(
            "/admin/restore",
            json!({"backup": other_only.file_name().unwrap().to_str().unwrap()}),
        )
        .expect_problem(422, "backup_lacks_tenant");
    other_owner.get("/admin/backups").expect(200);

    // A damaged copy is refused and changes nothing.
    let damaged = root.join("20010101T000000.000Z");
    copy_dir(&root.join(&good), &damaged);
    flip_a_byte(&damaged.join(format!("tenants/{}.db", test.tenant_id)));
    takeaway(owner, &item);
    let body = owner
        .post("/admin/restore", json!({"backup": "20010101T000000.000Z"}))
        .expect_problem(422, "backup_damaged");
    assert!(
        body["detail"].as_str().unwrap().contains("SHA-256"),
        "{body}"
    );
    assert_eq!(
        owner.get("/orders").expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    owner.get(&format!("/orders/{order}")).expect(200);

    // A server without a backup dir has no backups to restore from.
    let plain = TestApp::spawn();
    plain
        .owner
        .post("/admin/restore", json!({"backup": good}))
        .expect_problem(409, "backups_not_configured");
    plain
        .owner
        .get("/admin/backups")
        .expect_problem(409, "backups_not_configured");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn backup_names(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn scheduled_backups_on_an_injected_clock_keep_exactly_the_newest_n() {
    let dir = tempfile::tempdir().unwrap();
    let root: PathBuf = dir.path().join("backups");
    let start = Utc.with_ymd_and_hms(2030, 1, 2, 3, 0, 0).unwrap();
    let config = || {
        let mut config = test_config(dir.path());
        config.backup_dir = Some(root.clone());
        config.backup_every = Duration::from_secs(3600);
        config.backup_keep = 3;
        config
    };
    let app = brigade::App::open_with_clock(config(), Clock::fixed(start)).unwrap();
    create_tenant(&app, "Schedule Bistro", "schedule-bistro");
    let hours = chrono::Duration::hours;
    for hour in 0..6 {
        let now = start + hours(hour);
        let made = run_due(&app, now).expect("due").unwrap();
        assert_eq!(
            made.file_name().unwrap().to_str().unwrap(),
            backup::folders::folder_name(now)
        );
        // Not due again within the interval.
        assert!(run_due(&app, now + chrono::Duration::minutes(59)).is_none());
    }
    let expected: Vec<String> = (3..6)
        .map(|hour| backup::folders::folder_name(start + hours(hour)))
        .collect();
    assert_eq!(backup_names(&root), expected);
    for name in &expected {
        backup::verify(&root.join(name), &Progress::hidden()).unwrap();
    }
    drop(app);

    // After a restart the newest backup counts: none is due before the interval.
    let app = brigade::App::open_with_clock(config(), Clock::fixed(start)).unwrap();
    assert!(run_due(&app, start + hours(5) + chrono::Duration::minutes(30)).is_none());
    assert!(run_due(&app, start + hours(6)).is_some());
    assert_eq!(backup_names(&root).len(), 3);
}

#[test]
fn a_failed_scheduled_backup_shows_in_the_notifications_summary() {
    let fine = TestApp::spawn();
    assert_eq!(
        fine.owner.get("/notifications/summary").expect(200)["backup"],
        Value::Null
    );
    // The backup dir cannot be made: a file stands where its parent should be.
    let blocked = tempfile::NamedTempFile::new().unwrap();
    let test = TestApp::spawn_with(|config| {
        config.backup_dir = Some(blocked.path().join("backups"));
    });
    wait_until("the first scheduled backup to fail", || {
        test.app().backups.state().last_error.is_some()
    });
    let summary = test.owner.get("/notifications/summary").expect(200);
    assert_eq!(summary["backup"]["problem"], "failed", "{summary}");
    assert_eq!(summary["backup"]["last_success_at"], Value::Null);
    assert_eq!(summary["failed_deliveries"], 0);
}
