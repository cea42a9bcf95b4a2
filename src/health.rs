//! Health probes for a service manager or a monitoring check, outside the API:
//! `GET /healthz` says the process answers, `GET /readyz` whether it can do its
//! work (the data dir takes writes, the registry opens) and how the scheduled
//! backups stand. Neither needs a login, and neither tells anything about the
//! businesses served.

use std::sync::Arc;

use rocket::http::Status;
use rocket::serde::json::Json;
use rocket::{get, routes, Route, State};
use serde::Serialize;

use crate::backup::schedule;
use crate::db::run_blocking;
use crate::App;

pub fn routes() -> Vec<Route> {
    routes![healthz, readyz]
}

#[derive(Serialize)]
pub struct Alive {
    status: &'static str,
}

#[get("/healthz")]
fn healthz() -> Json<Alive> {
    Json(Alive { status: "ok" })
}

#[derive(Serialize)]
pub struct Readiness {
    /// `ready`, or `not_ready` with the failing checks false.
    status: &'static str,
    data_dir_writable: bool,
    registry_open: bool,
    /// `off` (no backup dir), `ok`, `failed` or `overdue`; reported, but not a
    /// reason to stop serving.
    backups: &'static str,
}

#[get("/readyz")]
async fn readyz(app: &State<Arc<App>>) -> (Status, Json<Readiness>) {
    let app = Arc::clone(app);
    let backups = if app.backups.is_enabled() {
        schedule::problem(&app, app.clock.now()).map_or("ok", |p| p.problem)
    } else {
        "off"
    };
    let checks = run_blocking(move || {
        let probe = app.db.data_dir().join(".readyz-probe");
        let writable =
            std::fs::write(&probe, b"ok").is_ok() && std::fs::remove_file(&probe).is_ok();
        let registry = app
            .db
            .registry()
            .ok()
            .and_then(|conn| conn.query_row("SELECT 1", [], |r| r.get::<_, i64>(0)).ok())
            .is_some();
        Ok((writable, registry))
    })
    .await
    .unwrap_or((false, false));
    let (data_dir_writable, registry_open) = checks;
    let ready = data_dir_writable && registry_open;
    let status = if ready {
        Status::Ok
    } else {
        Status::ServiceUnavailable
    };
    (
        status,
        Json(Readiness {
            status: if ready { "ready" } else { "not_ready" },
            data_dir_writable,
            registry_open,
            backups,
        }),
    )
}
