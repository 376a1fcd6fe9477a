//! What the whole offline turns of real hosts share (`claude_turn.rs`, `codex_turn.rs`): a stub
//! model API on 127.0.0.1 that records every request and answers each with the event stream a
//! test's script writes, a bounded run of the host's CLI, the texts of a recorded request, the
//! comparison of real envelopes with the fixtures, and a probe hook that records how a host ends
//! a hook that outlives its timeout.
//!
//! Who starts and ends what: `StubModel::start` starts one accept thread; dropping the stub
//! stops and joins it. Each connection carries one request and is closed after its answer. The
//! host starts the probe hook; the probe's sleeper and watcher end at most 50 ms after the
//! probe does, and the probe itself after [`TimeoutProbe::SLEEP_SECS`] at the latest.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde_json::Value;

/// Writes the `text/event-stream` body answering one model request.
pub type Answer = dyn Fn(&Value) -> String + Send + Sync;

/// The stub model API: answers `POST <path>` through its [`Answer`]; anything else is a 404.
pub struct StubModel {
    pub port: u16,
    requests: Arc<Mutex<Vec<(SystemTime, Value)>>>,
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
        let requests = self.requests.lock().unwrap();
        requests
            .iter()
            .map(|(_, request)| request.clone())
            .collect()
    }

    /// When the first request arrived, if one did.
    pub fn first_request_at(&self) -> Option<SystemTime> {
        self.requests.lock().unwrap().first().map(|(at, _)| *at)
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
    requests: &Mutex<Vec<(SystemTime, Value)>>,
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
    let arrived = SystemTime::now();
    let mut stream = stream;
    if !request_line.starts_with(&format!("POST {path}")) {
        return stream.write_all(
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        );
    }
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let events = answer(&request);
    requests.lock().unwrap().push((arrived, request));
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

/// One expectation of [`assert_envelopes`]: a canonical event, its native name, and the fields
/// the host is known to leave out of or add to the recorded fixture
/// (`fixtures/hosts/<host>/PROVENANCE.md` says why).
pub struct Envelope<'a> {
    pub event: &'a str,
    pub native_event: &'a str,
    pub not_sent: &'a [&'a str],
    pub also_sent: &'a [&'a str],
}

/// Asserts that the first delivery of each event in the hook log (`ABGEN_HOOK_LOG`) carried
/// exactly the recorded fixture's fields, but for the expected differences.
pub fn assert_envelopes(host: &str, hook_log: &str, expected: &[Envelope<'_>]) {
    let names = |fields: &[&str]| fields.iter().map(|field| (*field).to_owned()).collect();
    for envelope in expected {
        let line: Value = hook_log
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .find(|line| line["event"] == envelope.event)
            .unwrap_or_else(|| {
                panic!(
                    "no {} delivery in the hook log:\n{hook_log}",
                    envelope.event
                )
            });
        assert_eq!(
            envelope_differences(host, envelope.native_event, &line["fields"]),
            (names(envelope.not_sent), names(envelope.also_sent)),
            "{}: (fixture fields not sent, fields sent the fixture lacks)",
            envelope.native_event
        );
    }
}

/// How the envelope a host really sent differs from the recorded fixture of its event
/// (`fixtures/hosts/<host>/<native event>.json`): the fixture's fields it lacked, and the fields
/// it sent that the fixture lacks.
fn envelope_differences(
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

/// A hook command that outlives any short timeout, and the thread that watches it: the probe
/// logs its pid and when it starts and whether it is sent SIGTERM; [`TimeoutProbe::watch`] sees
/// when it is gone — exited or killed, reaped or not — by reading its `/proc` state every 10 ms.
/// So a test observes how a host ends a hook past its `timeout`, whichever signal it uses, even
/// one sent to the whole process group. Linux only.
pub struct TimeoutProbe {
    script: PathBuf,
    log: PathBuf,
}

/// What was observed of the probe, in milliseconds since the Unix epoch.
#[derive(Debug)]
pub struct ProbeObservation {
    pub started_ms: u64,
    /// When SIGTERM arrived; `None` when the host killed it outright.
    pub term_ms: Option<u64>,
    pub gone_ms: u64,
    /// The probe ran its whole sleep: the host never ended it.
    pub finished: bool,
}

impl TimeoutProbe {
    /// How long the probe sleeps if nothing ends it: longer than any timeout a test declares.
    pub const SLEEP_SECS: u64 = 12;

    pub fn write(directory: &Path) -> Self {
        let script = directory.join("timeout-probe.sh");
        let log = directory.join("timeout-probe.log");
        let text = format!(
            r#"#!/bin/sh
log="{log}"
now() {{ date +%s%3N; }}
sleep {sleep} </dev/null >/dev/null 2>&1 &
sleeper=$!
echo "start $(now) $$ $sleeper" >> "$log"
trap 'echo "term $(now)" >> "$log"; kill "$sleeper" 2>/dev/null; exit 143' TERM
wait "$sleeper"
echo "finished $(now)" >> "$log"
"#,
            log = log.display(),
            sleep = Self::SLEEP_SECS,
        );
        std::fs::write(&script, text).unwrap();
        Self { script, log }
    }

    /// The hook handler's command.
    pub fn command(&self) -> String {
        format!("sh {}", self.script.display())
    }

    /// Starts watching for the probe (call it before the host runs); the thread ends once the
    /// probe is gone, after ending its sleeper, or panics when the probe never starts or never
    /// ends within its sleep and a margin.
    pub fn watch(&self) -> std::thread::JoinHandle<ProbeObservation> {
        let log = self.log.clone();
        std::thread::spawn(move || {
            let deadline = std::time::Instant::now() + Duration::from_secs(120);
            let read = || std::fs::read_to_string(&log).unwrap_or_default();
            let field = |text: &str, word: &str, index: usize| {
                text.lines()
                    .find_map(|line| line.strip_prefix(word))
                    .and_then(|rest| rest.split_whitespace().nth(index)?.parse::<u64>().ok())
            };
            let (started_ms, probe, sleeper) = loop {
                let text = read();
                if let (Some(at), Some(probe), Some(sleeper)) = (
                    field(&text, "start ", 0),
                    field(&text, "start ", 1),
                    field(&text, "start ", 2),
                ) {
                    break (at, probe, sleeper);
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "the probe never started"
                );
                std::thread::sleep(Duration::from_millis(10));
            };
            let ends = std::time::Instant::now() + Duration::from_secs(Self::SLEEP_SECS + 5);
            // Running, sleeping or stopped; a zombie (exited, not reaped yet) is gone.
            let alive = || {
                std::fs::read_to_string(format!("/proc/{probe}/stat")).is_ok_and(|stat| {
                    let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
                    !state.is_some_and(|state| state.starts_with('Z'))
                })
            };
            while alive() {
                assert!(std::time::Instant::now() < ends, "the probe never ended");
                std::thread::sleep(Duration::from_millis(10));
            }
            let gone_ms = epoch_ms(SystemTime::now());
            let _ = Command::new("kill").arg(sleeper.to_string()).status();
            let text = read();
            ProbeObservation {
                started_ms,
                term_ms: field(&text, "term ", 0),
                gone_ms,
                finished: text.contains("finished "),
            }
        })
    }
}

/// Milliseconds since the Unix epoch of `at`.
pub fn epoch_ms(at: SystemTime) -> u64 {
    let since = at.duration_since(SystemTime::UNIX_EPOCH).unwrap();
    u64::try_from(since.as_millis()).unwrap()
}

/// Replaces the first handler of `native_event` in a host's hook document by `command` with
/// `timeout_secs`, keeping the document's other hooks.
pub fn replace_hook(document: &Path, native_event: &str, command: &str, timeout_secs: u64) {
    let mut hooks: Value = serde_json::from_slice(&std::fs::read(document).unwrap()).unwrap();
    let handler = &mut hooks["hooks"][native_event][0]["hooks"][0];
    assert!(
        handler.is_object(),
        "no {native_event} handler in {}",
        document.display()
    );
    handler["command"] = Value::from(command);
    handler["timeout"] = Value::from(timeout_secs);
    std::fs::write(document, serde_json::to_vec_pretty(&hooks).unwrap()).unwrap();
}
