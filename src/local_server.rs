//! A server on a thread of its own, bound to 127.0.0.1 on a free port, stopped
//! when dropped: what the integration tests and the benchmarks run against.

use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;

use rocket::fairing::AdHoc;

use crate::db::DataDirLock;
use crate::logging::LogLevel;
use crate::{build_rocket, App, Config};

pub struct LocalServer {
    pub app: Arc<App>,
    /// `http://127.0.0.1:<port>`.
    pub origin: String,
    shutdown: rocket::Shutdown,
    thread: Option<JoinHandle<()>>,
    /// Released after the server's thread has ended (fields drop after `drop`).
    _serving: DataDirLock,
}

/// Settings for a quiet server on a free loopback port over `data_dir`.
pub fn loopback_config(data_dir: &Path) -> Config {
    let mut config = Config::new(data_dir.to_path_buf());
    config.address = "127.0.0.1".parse().expect("a loopback address");
    config.port = 0;
    config.log_level = LogLevel::Off;
    config
}

impl LocalServer {
    /// Opens the data dir and serves it; returns once the server listens.
    pub fn start(config: Config) -> Result<LocalServer, String> {
        Self::start_with_clock(config, crate::time::Clock::system())
    }

    /// As [`LocalServer::start`], with `clock` as the server's "now".
    pub fn start_with_clock(
        config: Config,
        clock: crate::time::Clock,
    ) -> Result<LocalServer, String> {
        let serving = DataDirLock::acquire(&config.data_dir)?;
        let app = App::open_with_clock(config, clock)?;
        let (listening, port) = std::sync::mpsc::channel();
        let rocket = build_rocket(app.clone()).attach(AdHoc::on_liftoff("report port", {
            move |rocket| {
                Box::pin(async move {
                    let _ = listening.send((rocket.config().port, rocket.shutdown()));
                })
            }
        }));
        let thread = std::thread::spawn(move || {
            let _ = rocket::execute(rocket.launch());
        });
        let (port, shutdown) = port
            .recv()
            .map_err(|_| "the server stopped before it listened".to_string())?;
        Ok(LocalServer {
            app,
            origin: format!("http://127.0.0.1:{port}"),
            shutdown,
            thread: Some(thread),
            _serving: serving,
        })
    }
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        self.shutdown.clone().notify();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
