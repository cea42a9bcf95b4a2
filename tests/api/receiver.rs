//! A real webhook receiver on 127.0.0.1 for the tests: it records every request and
//! answers as told (a status, a redirect, or hanging), and checks signatures with
//! its own HMAC code, as an integrator would, not with the server's signer.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

/// How the receiver answers one request.
#[derive(Debug, Clone)]
pub enum Answer {
    Status(u16),
    /// A status with extra headers, such as `Retry-After` or `Location`.
    With(u16, Vec<(&'static str, String)>),
    /// Reads the request, then says nothing for this long and closes.
    Hang(Duration),
    /// Answers with this status, but only after this long.
    Slow(Duration, u16),
}

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub at: Instant,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the body is JSON")
    }

    /// Whether `X-Service-Signature` is valid for this body under `secret`.
    pub fn signed_with(&self, secret: &str) -> bool {
        self.header("X-Service-Signature")
            .is_some_and(|header| verify(secret, header, &self.body))
    }
}

/// The contract's verification rules, step by step.
pub fn verify(secret: &str, header: &str, body: &[u8]) -> bool {
    let mut t = None;
    let mut v1 = None;
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", value)) => t = Some(value),
            Some(("v1", value)) => v1 = Some(value),
            _ => {}
        }
    }
    let (Some(t), Some(v1)) = (t, v1) else {
        return false;
    };
    let Ok(expected) = hex::decode(v1) else {
        return false;
    };
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(t.as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.verify_slice(&expected).is_ok()
}

#[derive(Default)]
struct State {
    script: VecDeque<Answer>,
    received: Vec<Received>,
}

pub struct Receiver {
    pub url: String,
    state: Arc<Mutex<State>>,
    default: Arc<Mutex<Answer>>,
    stopped: Arc<AtomicBool>,
    address: std::net::SocketAddr,
}

impl Receiver {
    /// A receiver answering 200 until told otherwise.
    pub fn start() -> Receiver {
        Self::listen(TcpListener::bind("127.0.0.1:0").unwrap())
    }

    /// A receiver on a port that was dead until now, as a receiver coming back up.
    pub fn start_on(port: u16) -> Receiver {
        Self::listen(TcpListener::bind(("127.0.0.1", port)).unwrap())
    }

    fn listen(listener: TcpListener) -> Receiver {
        let address = listener.local_addr().unwrap();
        let receiver = Receiver {
            url: format!("http://{address}/hook"),
            state: Arc::default(),
            default: Arc::new(Mutex::new(Answer::Status(200))),
            stopped: Arc::default(),
            address,
        };
        let (state, default, stopped) = (
            receiver.state.clone(),
            receiver.default.clone(),
            receiver.stopped.clone(),
        );
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (state, default) = (state.clone(), default.clone());
                std::thread::spawn(move || serve(stream, &state, &default));
            }
        });
        receiver
    }

    /// Answers every request from now on this way.
    pub fn answer(&self, answer: Answer) {
        *self.default.lock().unwrap() = answer;
    }

    /// Answers the next requests in this order, then as before.
    pub fn then(&self, answers: Vec<Answer>) {
        self.state.lock().unwrap().script.extend(answers);
    }

    pub fn received(&self) -> Vec<Received> {
        self.state.lock().unwrap().received.clone()
    }

    /// Waits until at least `count` requests have arrived (at most 20 s).
    #[track_caller]
    pub fn wait_for(&self, count: usize) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let received = self.received();
            if received.len() >= count {
                return received;
            }
            assert!(
                Instant::now() < deadline,
                "expected {count} requests, got {}",
                received.len()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.stopped.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the stop.
        let _ = TcpStream::connect(self.address);
    }
}

/// A URL where nothing listens: every connection is refused.
pub fn dead_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}/hook", listener.local_addr().unwrap())
}

fn serve(stream: TcpStream, state: &Mutex<State>, default: &Mutex<Answer>) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    let mut headers = Vec::new();
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            break;
        }
        if let Some((name, value)) = trimmed.split_once(':') {
            headers.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    let length = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let answer = {
        let mut state = state.lock().unwrap();
        state.received.push(Received {
            headers,
            body,
            at: Instant::now(),
        });
        state
            .script
            .pop_front()
            .unwrap_or_else(|| default.lock().unwrap().clone())
    };
    let (status, extra) = match answer {
        Answer::Hang(duration) => {
            std::thread::sleep(duration);
            return;
        }
        Answer::Slow(duration, status) => {
            std::thread::sleep(duration);
            (status, Vec::new())
        }
        Answer::Status(status) => (status, Vec::new()),
        Answer::With(status, extra) => (status, extra),
    };
    let mut response =
        format!("HTTP/1.1 {status} Answer\r\nContent-Length: 2\r\nConnection: close\r\n");
    for (name, value) in extra {
        response.push_str(&format!("{name}: {value}\r\n"));
    }
    response.push_str("\r\nok");
    let _ = writer.write_all(response.as_bytes());
}
