//! The `brigade` binary as a child process, for tests that run it as a user would.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

pub fn brigade(data_dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_brigade"))
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env_remove("BRIGADE_DATA_DIR")
        .output()
        .expect("brigade runs")
}

pub fn stdout(output: &std::process::Output) -> String {
    assert!(
        output.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A `brigade serve` child process, killed when dropped.
pub struct Server {
    child: Child,
    pub base: String,
    pub output: Vec<String>,
    /// What it prints after `output`.
    later: Receiver<String>,
}

impl Server {
    /// Kills the server and returns all it printed after `output`.
    pub fn kill_and_read_the_rest(&mut self) -> Vec<String> {
        self.kill();
        self.later.iter().collect()
    }

    /// SIGKILL: no shutdown code runs, as in a crash or a power cut.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts the server and collects what it prints until the API answers.
pub fn serve(data_dir: &Path) -> Server {
    serve_with(data_dir, &[])
}

/// `brigade serve` without the demo tenant.
pub fn serve_no_demo(data_dir: &Path) -> Server {
    serve_with(data_dir, &["--no-demo"])
}

pub fn serve_with(data_dir: &Path, extra: &[&str]) -> Server {
    serve_over(data_dir, extra, "http", crate::helpers::agent())
}

/// `brigade serve` reached with `scheme` through `agent` (one that trusts the
/// server's certificate, for https). Not announced on mDNS unless `extra` says.
pub fn serve_over(data_dir: &Path, extra: &[&str], scheme: &str, agent: ureq::Agent) -> Server {
    let port = free_port();
    let mdns: &[&str] = if extra.contains(&"--mdns") {
        &[]
    } else {
        &["--mdns", "off"]
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_brigade"))
        .arg("--data-dir")
        .arg(data_dir)
        .arg("serve")
        .args(extra)
        .args(mdns)
        .args(["--address", "127.0.0.1", "--port", &port.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("brigade serve starts");
    let lines = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in lines.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let base = format!("{scheme}://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let url = format!("{base}/api/v1/openapi.json");
        if agent.get(&url).call().is_ok() {
            break;
        }
        assert!(Instant::now() < deadline, "the server did not come up");
        std::thread::sleep(Duration::from_millis(50));
    }
    // The banner is printed before the listener opens, so it is all there now.
    let output = rx.try_iter().collect();
    Server {
        child,
        base,
        output,
        later: rx,
    }
}
