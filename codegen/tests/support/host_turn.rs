//! What the whole offline turns of real hosts share (`claude_turn.rs`, `codex_turn.rs`): a stub
//! model API on 127.0.0.1 that records every request and answers each with the event stream a
//! test's script writes, a bounded run of the host's CLI, and the texts of a recorded request.
//!
//! Who starts and ends what: `StubModel::start` starts one accept thread; dropping the stub
//! stops and joins it. Each connection carries one request and is closed after its answer.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// Writes the `text/event-stream` body answering one model request.
pub type Answer = dyn Fn(&Value) -> String + Send + Sync;

/// The stub model API: answers `POST <path>` through its [`Answer`]; anything else is a 404.
pub struct StubModel {
    pub port: u16,
    requests: Arc<Mutex<Vec<Value>>>,
    stopping: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StubModel {
    pub fn start(path: &'static str, answer: Box<Answer>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stopping = Arc::new(AtomicBool::new(false));
        let thread = {
            let requests = Arc::clone(&requests);
            let stopping = Arc::clone(&stopping);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stopping.load(Ordering::SeqCst) {
                        return;
                    }
                    if let Ok(stream) = stream {
                        let _ = serve(stream, path, &requests, answer.as_ref());
                    }
                }
            })
        };
        Self {
            port,
            requests,
            stopping,
            thread: Some(thread),
        }
    }

    /// Every request body received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for StubModel {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads one HTTP request from `stream`, records its JSON body and answers it (then closes).
fn serve(
    stream: TcpStream,
    path: &str,
    requests: &Mutex<Vec<Value>>,
    answer: &Answer,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let mut stream = stream;
    if !request_line.starts_with(&format!("POST {path}")) {
        return stream.write_all(
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        );
    }
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let events = answer(&request);
    requests.lock().unwrap().push(request);
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n{events}"
    );
    stream.write_all(response.as_bytes())
}

/// One server-sent event.
pub fn sse(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// Runs `command` to its end, killing it after `limit`.
pub fn run_bounded(command: &mut Command, limit: Duration) -> std::process::Output {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = child.id();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    match finished.recv_timeout(limit) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-KILL", &id.to_string()])
                .status();
            panic!("{command:?} did not finish within {limit:?}");
        }
    }
}

/// Every text a model request carries (messages, tool results and system prompt), as one string.
pub fn texts(request: &Value) -> String {
    let mut out = String::new();
    let mut stack = vec![request];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) => {
                out.push_str(text);
                out.push('\n');
            }
            Value::Array(items) => stack.extend(items),
            Value::Object(fields) => stack.extend(fields.values()),
            _ => {}
        }
    }
    out
}

/// How the envelope a host really sent differs from the recorded fixture of its event
/// (`fixtures/hosts/<host>/<native event>.json`): the fixture's fields it lacked, and the fields
/// it sent that the fixture lacks.
pub fn envelope_differences(
    host: &str,
    native_event: &str,
    sent: &Value,
) -> (Vec<String>, Vec<String>) {
    let fixture = super::repo().join(format!("fixtures/hosts/{host}/{native_event}.json"));
    let fixture: Value = serde_json::from_slice(&std::fs::read(&fixture).unwrap()).unwrap();
    let recorded: Vec<&String> = fixture.as_object().unwrap().keys().collect();
    let sent: Vec<&str> = sent
        .as_array()
        .unwrap()
        .iter()
        .map(|field| field.as_str().unwrap())
        .collect();
    let mut missing: Vec<String> = recorded
        .iter()
        .filter(|field| !sent.contains(&field.as_str()))
        .map(|field| (*field).clone())
        .collect();
    let mut extra: Vec<String> = sent
        .iter()
        .filter(|field| !recorded.iter().any(|recorded| recorded == field))
        .map(|field| (*field).to_owned())
        .collect();
    missing.sort();
    extra.sort();
    (missing, extra)
}
