use serde_json::json;

use brigade::db::migrations::{latest_version, Schema};

use crate::helpers::{test_config, TestApp};

#[test]
fn orders_payments_and_events_survive_a_restart() {
    let mut app = TestApp::spawn();
    let item = app.menu_item(6.0, 5.0);
    let order = app.order(&item, 2);
    let id = order["id"].as_str().unwrap().to_string();
    app.owner
        .post(
            &format!("/orders/{id}/payments"),
            json!({"method": "card", "amount": 5}),
        )
        .expect(201);
    let before = app.owner.get(&format!("/orders/{id}")).expect(200);
    let events_before = app.outbox(&app.tenant_id);
    app.restart();
    // The login token stays valid: the signing key lives in the data dir.
    let after = app.owner.get(&format!("/orders/{id}")).expect(200);
    assert_eq!(after, before);
    assert_eq!(after["paid_amount"], 5.0);
    assert_eq!(
        app.owner.get(&format!("/orders/{id}/payments")).expect(200)["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(app.outbox(&app.tenant_id), events_before);
    // Numbering carries on where it stopped.
    let next = app.order(&item, 1);
    assert!(next["order_number"].as_str().unwrap().ends_with("-002"));
}

#[test]
fn files_from_a_newer_schema_are_refused_untouched() {
    let app = TestApp::spawn();
    let dir = app.dir.path().to_path_buf();
    let path = dir.join("tenants").join(format!("{}.db", app.tenant_id));
    let newer = (latest_version(Schema::Tenant) + 1) as i64;
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", newer)
        .unwrap();
    let reopened = brigade::App::open(test_config(&dir)).unwrap();
    let err = reopened
        .db
        .tenant(app.tenant_id.parse().unwrap())
        .err()
        .expect("refused");
    assert_eq!(err.code, "tenant_unavailable");
    assert!(err.detail.contains("newer version"), "{}", err.detail);
    let version: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, newer);

    rusqlite::Connection::open(dir.join("registry.db"))
        .unwrap()
        .pragma_update(
            None,
            "user_version",
            (latest_version(Schema::Registry) + 1) as i64,
        )
        .unwrap();
    let refused = brigade::App::open(test_config(&dir))
        .err()
        .expect("registry refused");
    assert!(refused.contains("newer version"), "{refused}");
}

#[test]
fn open_tenants_stay_bounded_and_closed_ones_reopen_intact() {
    // Each tenant's owner logs in from this one address.
    let app = TestApp::spawn_with(|c| c.login_attempts_per_minute = 1000);
    let item = app.menu_item(2.0, 0.0);
    let order = app.order(&item, 1)["id"].as_str().unwrap().to_string();
    let limit = brigade::db::MAX_OPEN_TENANTS;
    for i in 0..limit + 6 {
        let (_, owner) = app.second_tenant(&format!("busy-{i}"));
        owner.get("/orders").expect(200);
        assert!(app.app().db.open_tenants() <= limit);
    }
    assert_eq!(app.app().db.open_tenants(), limit);
    // The first tenant was closed long ago; it reopens with everything in place.
    assert_eq!(
        app.owner.get(&format!("/orders/{order}")).expect(200)["total_amount"],
        2.0
    );
}

#[test]
fn concurrent_first_uses_of_a_tenant_share_one_set_of_pools() {
    let app = TestApp::spawn();
    let dir = app.dir.path().to_path_buf();
    let tenant: uuid::Uuid = app.tenant_id.parse().unwrap();
    // A fresh App on the same data dir: the tenant is not open there yet.
    let cold = brigade::App::open(test_config(&dir)).unwrap();
    let opened: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| scope.spawn(|| cold.db.tenant(tenant).unwrap()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(opened
        .windows(2)
        .all(|pair| std::sync::Arc::ptr_eq(&pair[0], &pair[1])));
    assert_eq!(cold.db.open_tenants(), 1);
}

/// Waits (at most 10 s) until a copy of the tenant's main database file alone,
/// without its WAL, answers `sql` with a row: what a checkpoint has written back.
fn checkpointed(path: &std::path::Path, sql: &str) -> Option<String> {
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("copy.db");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        std::fs::copy(path, &copy).unwrap();
        let found = rusqlite::Connection::open(&copy)
            .and_then(|c| c.query_row(sql, [], |r| r.get(0)))
            .ok();
        if found.is_some() || std::time::Instant::now() > deadline {
            return found;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn commits_reach_the_database_file_through_background_checkpoints() {
    let app = TestApp::spawn();
    let item = app.menu_item(6.0, 5.0);
    let order = app.order(&item, 1);
    let file = app.app().db.tenant_path(app.tenant_id.parse().unwrap());
    // SQLite's own checkpoint would wait for 1,000 pages of WAL.
    let sql = format!(
        "SELECT order_number FROM orders WHERE id = '{}'",
        order["id"].as_str().unwrap()
    );
    assert_eq!(
        checkpointed(&file, &sql).as_deref(),
        order["order_number"].as_str()
    );
}

#[test]
fn a_checkpoint_that_opens_the_first_reader_holds_nobody_up() {
    let app = TestApp::spawn();
    let db = &app.app().db;
    // A new tenant has committed but never been read: its checkpoint opens its
    // first reader connection, which must not wait on the checkpoint's own thread.
    let first = db.create_tenant("First", "first", "USD", "UTC").unwrap();
    let sql = "SELECT business_name FROM settings";
    assert_eq!(
        checkpointed(&db.tenant_path(first.info.id), sql).as_deref(),
        Some("First")
    );
    db.create_tenant("Second", "second", "USD", "UTC").unwrap();
}

#[test]
fn a_file_of_an_older_schema_is_copied_before_it_is_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let app = brigade::App::open(test_config(dir.path())).unwrap();
    let tenant_id = crate::helpers::create_tenant(&app, "Old Bistro", "old-bistro");
    drop(app);
    let pre_upgrade = brigade::db::pre_upgrade_dir(dir.path());
    // New files have nothing to keep.
    assert!(!pre_upgrade.exists());

    // The tenant's file as an older Brigade left it: one schema version behind.
    let older = (latest_version(Schema::Tenant) - 1) as u32;
    let path = dir.path().join("tenants").join(format!("{tenant_id}.db"));
    for stale in ["-wal", "-shm", ""] {
        let _ = std::fs::remove_file(format!("{}{stale}", path.display()));
    }
    let mut conn = rusqlite::Connection::open(&path).unwrap();
    brigade::db::migrations::migrate_to(&mut conn, Schema::Tenant, older, None).unwrap();
    conn.execute_batch("CREATE TABLE kept_marker (x); INSERT INTO kept_marker VALUES (1);")
        .unwrap();
    drop(conn);

    let app = brigade::App::open(test_config(dir.path())).unwrap();
    app.db.tenant(tenant_id.parse().unwrap()).unwrap();
    let copies: Vec<_> = std::fs::read_dir(&pre_upgrade)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(copies.len(), 1, "{copies:?}");
    let name = copies[0].file_name().unwrap().to_str().unwrap().to_string();
    assert!(
        name.starts_with(&format!("old-bistro-v{older}-")) && name.ends_with(".db"),
        "{name}"
    );
    let copy = rusqlite::Connection::open(&copies[0]).unwrap();
    let version: i64 = copy
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, older as i64);
    let marker: i64 = copy
        .query_row("SELECT x FROM kept_marker", [], |r| r.get(0))
        .unwrap();
    assert_eq!(marker, 1);
    let live: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(live as usize, latest_version(Schema::Tenant));
    drop(app);

    // Once upgraded, opening it again keeps no further copy.
    let app = brigade::App::open(test_config(dir.path())).unwrap();
    app.db.tenant(tenant_id.parse().unwrap()).unwrap();
    assert_eq!(std::fs::read_dir(&pre_upgrade).unwrap().count(), 1);
}
