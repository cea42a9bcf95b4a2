//! The health probes a service manager or monitor calls, without a login.

use serde_json::json;

use crate::helpers::{agent, TestApp};

fn probe(app: &TestApp, path: &str) -> (u16, serde_json::Value) {
    let mut response = agent()
        .get(format!("{}{path}", app.base))
        .call()
        .expect("the server answers");
    let status = response.status().as_u16();
    let body = serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
    (status, body)
}

#[test]
fn the_process_is_alive_and_ready_without_a_login() {
    let app = TestApp::spawn();
    assert_eq!(probe(&app, "/healthz"), (200, json!({"status": "ok"})));
    assert_eq!(
        probe(&app, "/readyz"),
        (
            200,
            json!({"status": "ready", "data_dir_writable": true, "registry_open": true, "backups": "off"})
        )
    );
    assert!(
        !app.dir.path().join(".readyz-probe").exists(),
        "the probe leaves nothing behind"
    );
}

#[test]
fn a_failed_backup_is_reported_and_a_lost_data_dir_is_not_ready() {
    // The backup dir cannot be made: a file stands where its parent should be.
    let blocked = tempfile::NamedTempFile::new().unwrap();
    let app = TestApp::spawn_with(|config| {
        config.backup_dir = Some(blocked.path().join("backups"));
    });
    crate::admin::wait_until("the first scheduled backup to fail", || {
        app.app().backups.state().last_error.is_some()
    });
    let (status, body) = probe(&app, "/readyz");
    assert_eq!(status, 200, "a failed backup does not stop the serving");
    assert_eq!(body["backups"], "failed");

    std::fs::remove_dir_all(app.dir.path()).unwrap();
    let (status, body) = probe(&app, "/readyz");
    assert_eq!(status, 503);
    assert_eq!(body["status"], "not_ready");
    assert_eq!(body["data_dir_writable"], false);
    assert_eq!(probe(&app, "/healthz").0, 200, "the process still answers");
}
