//! Backups taken while the server takes orders, their verification, and
//! restores with the server stopped, run through the `brigade` binary.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use brigade::db::migrations::{latest_version, Schema};
use rusqlite::{Connection, OpenFlags};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::helpers::{Client, TestApp};
use crate::process::{brigade, stdout};

const WRITERS: usize = 8;

fn integrity(path: &Path) -> String {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

fn sha256_hex(path: &Path) -> String {
    hex::encode(Sha256::digest(std::fs::read(path).unwrap()))
}

fn manifest(backup: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(backup.join("manifest.json")).unwrap()).unwrap()
}

/// Backs up `data_dir` with the binary; returns the new backup folder.
pub fn backup_with_binary(data_dir: &Path, to: &Path) -> PathBuf {
    let output = brigade(data_dir, &["backup", "--to", to.to_str().unwrap()]);
    PathBuf::from(stdout(&output))
}

fn failure(output: &std::process::Output) -> String {
    assert!(
        !output.status.success(),
        "expected a refusal; printed {}",
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8_lossy(&output.stderr).to_string()
}

fn order_ids(tenant_file: &Path) -> Vec<String> {
    let conn = Connection::open_with_flags(tenant_file, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut stmt = conn.prepare("SELECT id FROM orders").unwrap();
    let ids = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    ids
}

#[test]
fn a_backup_taken_while_eight_threads_take_orders_restores_every_order_acknowledged_before_it() {
    let test = TestApp::spawn();
    let (other_tenant, other_owner) = test.second_tenant("other-place");
    let item = test.menu_item(9.5, 10.0);
    let other_item = test.menu_item_for(&other_owner, 4.0, 0.0);
    other_owner
        .post(
            "/orders",
            json!({"order_type": "takeaway", "items": [{"menu_item_id": other_item, "quantity": 1}]}),
        )
        .expect(201);

    let backup_started = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let created = Arc::new(AtomicUsize::new(0));
    // Orders acknowledged before the backup started: every one must be in it.
    let before: Arc<Mutex<Vec<String>>> = Arc::default();
    let failures = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = (0..WRITERS)
        .map(|_| {
            let (client, item) = (test.owner.clone(), item.clone());
            let (backup_started, stop, created, before, failures) = (
                backup_started.clone(),
                stop.clone(),
                created.clone(),
                before.clone(),
                failures.clone(),
            );
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let res = client.post(
                        "/orders",
                        json!({"order_type": "takeaway", "items": [{"menu_item_id": item, "quantity": 1}]}),
                    );
                    if res.status != 201 {
                        failures.fetch_add(1, Ordering::SeqCst);
                        continue;
                    }
                    // Read after the answer: false means acknowledged before the start.
                    if !backup_started.load(Ordering::SeqCst) {
                        before
                            .lock()
                            .unwrap()
                            .push(res.body["id"].as_str().unwrap().to_string());
                    }
                    created.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    while created.load(Ordering::SeqCst) < 200 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let backups = tempfile::tempdir().unwrap();
    backup_started.store(true, Ordering::SeqCst);
    let created_at_start = created.load(Ordering::SeqCst);
    let folder = backup_with_binary(test.dir.path(), backups.path());
    let created_during = created.load(Ordering::SeqCst) - created_at_start;
    stop.store(true, Ordering::SeqCst);
    for writer in writers {
        writer.join().unwrap();
    }
    assert_eq!(failures.load(Ordering::SeqCst), 0);
    assert!(
        created_during > 0,
        "orders kept being taken while the backup ran"
    );

    // The manifest names every file with its size, checksum, schema and tenant.
    let manifest = manifest(&folder);
    let files = manifest["files"].as_array().unwrap();
    assert_eq!(files.len(), 3, "{manifest}");
    for file in files {
        let path = folder.join(file["path"].as_str().unwrap());
        assert_eq!(file["sha256"], sha256_hex(&path));
        assert_eq!(file["size"], std::fs::metadata(&path).unwrap().len());
        assert_eq!(integrity(&path), "ok");
        let schema = if file["kind"] == "registry" {
            Schema::Registry
        } else {
            Schema::Tenant
        };
        assert_eq!(file["schema_version"], latest_version(schema));
    }
    let slugs: Vec<&str> = files
        .iter()
        .filter_map(|f| f["tenant_slug"].as_str())
        .collect();
    assert_eq!(slugs.len(), 2);
    assert!(slugs.contains(&"test-bistro") && slugs.contains(&"other-place"));
    let verified = stdout(&brigade(
        test.dir.path(),
        &["backup", "verify", folder.to_str().unwrap()],
    ));
    assert_eq!(verified.lines().filter(|l| l.starts_with("ok")).count(), 3);

    // Restored into a new data dir: every order acknowledged before the start is there.
    let restored = tempfile::tempdir().unwrap();
    stdout(&brigade(
        restored.path(),
        &["restore", folder.to_str().unwrap()],
    ));
    for file in files {
        assert_eq!(
            integrity(&restored.path().join(file["path"].as_str().unwrap())),
            "ok"
        );
    }
    let tenant_file = restored
        .path()
        .join("tenants")
        .join(format!("{}.db", test.tenant_id));
    let restored_ids: std::collections::HashSet<String> =
        order_ids(&tenant_file).into_iter().collect();
    let before = before.lock().unwrap();
    assert!(before.len() >= 200);
    let missing: Vec<&String> = before
        .iter()
        .filter(|id| !restored_ids.contains(*id))
        .collect();
    assert!(missing.is_empty(), "{} orders missing", missing.len());
    assert_eq!(
        order_ids(
            &restored
                .path()
                .join("tenants")
                .join(format!("{other_tenant}.db"))
        )
        .len(),
        1
    );

    // The restored data dir serves, with the same signing key: the old login still works.
    let server =
        brigade::local_server::LocalServer::start(crate::helpers::test_config(restored.path()))
            .unwrap();
    let owner = Client {
        base: server.origin.clone(),
        ..test.owner.clone()
    };
    owner.get(&format!("/orders/{}", before[0])).expect(200);
}

/// A copy of the backup folder `from` as `to`.
fn copy_backup(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.join("tenants")).unwrap();
    for entry in ["manifest.json", "registry.db"] {
        std::fs::copy(from.join(entry), to.join(entry)).unwrap();
    }
    for entry in std::fs::read_dir(from.join("tenants")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join("tenants").join(entry.file_name())).unwrap();
    }
}

#[test]
fn a_restore_refuses_a_damaged_backup_a_newer_schema_and_a_running_server() {
    let test = TestApp::spawn();
    let item = test.menu_item(3.0, 0.0);
    test.order(&item, 1);
    let backups = tempfile::tempdir().unwrap();
    let folder = backup_with_binary(test.dir.path(), backups.path());
    let tenant_path = format!("tenants/{}.db", test.tenant_id);

    // A server runs on the data dir: refused, nothing replaced.
    let before = sha256_hex(&test.dir.path().join("registry.db"));
    let refused = failure(&brigade(
        test.dir.path(),
        &["restore", folder.to_str().unwrap()],
    ));
    assert!(refused.contains("running Brigade server"), "{refused}");
    assert_eq!(sha256_hex(&test.dir.path().join("registry.db")), before);
    // For one tenant, the refusal points at the live restore.
    let one = failure(&brigade(
        test.dir.path(),
        &[
            "restore",
            folder.to_str().unwrap(),
            "--tenant",
            &test.tenant_id,
        ],
    ));
    assert!(one.contains("POST /api/v1/admin/restore"), "{one}");

    // One byte flipped in a tenant file.
    let flipped = backups.path().join("flipped");
    copy_backup(&folder, &flipped);
    let damaged = flipped.join(&tenant_path);
    let mut bytes = std::fs::read(&damaged).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    std::fs::write(&damaged, bytes).unwrap();
    let refused = failure(&brigade(
        test.dir.path(),
        &["backup", "verify", flipped.to_str().unwrap()],
    ));
    assert!(refused.contains("SHA-256"), "{refused}");
    let target = tempfile::tempdir().unwrap();
    let refused = failure(&brigade(
        target.path(),
        &["restore", flipped.to_str().unwrap()],
    ));
    assert!(refused.contains(&tenant_path), "{refused}");
    assert!(!target.path().join("registry.db").exists());
    assert!(!target.path().join(&tenant_path).exists());

    // A tenant file of a newer schema, with a manifest that tells the truth about it.
    let newer = backups.path().join("newer");
    copy_backup(&folder, &newer);
    let newer_version = latest_version(Schema::Tenant) as i64 + 1;
    Connection::open(newer.join(&tenant_path))
        .unwrap()
        .pragma_update(None, "user_version", newer_version)
        .unwrap();
    let mut newer_manifest = manifest(&newer);
    for file in newer_manifest["files"].as_array_mut().unwrap() {
        if file["path"] == tenant_path.as_str() {
            let path = newer.join(&tenant_path);
            file["sha256"] = json!(sha256_hex(&path));
            file["size"] = json!(std::fs::metadata(&path).unwrap().len());
            file["schema_version"] = json!(newer_version);
        }
    }
    std::fs::write(newer.join("manifest.json"), newer_manifest.to_string()).unwrap();
    stdout(&brigade(
        test.dir.path(),
        &["backup", "verify", newer.to_str().unwrap()],
    ));
    let refused = failure(&brigade(
        target.path(),
        &["restore", newer.to_str().unwrap()],
    ));
    assert!(refused.contains("newer Brigade"), "{refused}");
    assert!(!target.path().join(&tenant_path).exists());

    // No manifest: not a backup.
    let refused = failure(&brigade(
        target.path(),
        &["restore", backups.path().to_str().unwrap()],
    ));
    assert!(refused.contains("manifest.json"), "{refused}");

    // An unknown tenant, in a backup and to back up.
    let refused = failure(&brigade(
        target.path(),
        &["restore", folder.to_str().unwrap(), "--tenant", "nowhere"],
    ));
    assert!(refused.contains("no tenant \"nowhere\""), "{refused}");
    let refused = failure(&brigade(
        test.dir.path(),
        &[
            "backup",
            "--to",
            backups.path().to_str().unwrap(),
            "--tenant",
            "nowhere",
        ],
    ));
    assert!(refused.contains("no tenant"), "{refused}");
}

#[test]
fn one_tenant_is_backed_up_alone_and_restored_into_a_stopped_data_dir() {
    let mut test = TestApp::spawn();
    let (other_tenant, other_owner) = test.second_tenant("other-place");
    let item = test.menu_item(3.0, 0.0);
    let kept = test.order(&item, 1)["id"].as_str().unwrap().to_string();
    let backups = tempfile::tempdir().unwrap();
    let output = brigade(
        test.dir.path(),
        &[
            "backup",
            "--to",
            backups.path().to_str().unwrap(),
            "--tenant",
            "test-bistro",
        ],
    );
    let folder = PathBuf::from(stdout(&output));
    let files = manifest(&folder)["files"].as_array().unwrap().clone();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0]["tenant_slug"], "test-bistro");
    assert!(!folder.join("registry.db").exists());

    let lost = test.order(&item, 2)["id"].as_str().unwrap().to_string();
    let other_item = test.menu_item_for(&other_owner, 4.0, 0.0);
    test.stop();
    stdout(&brigade(
        test.dir.path(),
        &[
            "restore",
            folder.to_str().unwrap(),
            "--tenant",
            "test-bistro",
        ],
    ));
    test.restart();
    test.owner.get(&format!("/orders/{kept}")).expect(200);
    test.owner
        .get(&format!("/orders/{lost}"))
        .expect_problem(404, "not_found");
    // The other tenant was left as it was.
    let other_owner = Client {
        base: test.base.clone(),
        ..other_owner
    };
    other_owner
        .get(&format!("/menu/items/{other_item}"))
        .expect(200);
    assert_eq!(
        other_owner.tenant_id.as_deref(),
        Some(other_tenant.as_str())
    );
}
