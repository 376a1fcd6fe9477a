//! The warm server's connection bounds: idle clients take no thread each, a client beyond the
//! backlog is refused `busy` at once (and the hook client reads it as a refusal), and the server
//! serves again once they leave. Alone in its test binary, so the thread count it reads is the
//! server's and no other test's.

use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use abgen_runtime::document::{Document, Node, RenderEvent, RenderEventKind};
use abgen_runtime::warm::{
    self, RenderSource, ServeLimits, SocketPath, WarmError, WarmKind, WarmRequest, WarmServer,
};
use serde_json::json;

const DIGEST: &str = "0a0980b9b2b0e6cf5a6f2d3e11724af4f754a9f64b94c2f148765199d7b174ce";

/// Answers every request at once with a one-line context document.
struct Small;

impl RenderSource for Small {
    fn render(
        &self,
        _request: &WarmRequest,
        _deadline: Instant,
        emit: &mut dyn FnMut(&RenderEvent) -> bool,
    ) {
        let document = Document::new(
            Node::Result {
                children: vec![Node::Context { text: "ok".into() }].into(),
            },
            None,
        );
        emit(&RenderEvent {
            sequence: 0,
            kind: RenderEventKind::Complete { document },
        });
    }
}

fn request() -> WarmRequest {
    WarmRequest {
        protocol: warm::WARM_PROTOCOL,
        digest: DIGEST.to_owned(),
        kind: WarmKind::Event,
        route: "event:tool/after".into(),
        input: None,
        event: Some(json!({"canonical": {"event": "tool/after"}})),
        deadline_ms: 2_000,
    }
}

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(2)
}

/// This process's thread count, as the kernel reports it.
fn threads() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("Threads:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Reads the one frame a server sends a client that sent nothing, within `within`.
fn refusal_of(stream: &mut UnixStream, within: Duration) -> warm::WarmRefusal {
    stream.set_read_timeout(Some(within)).unwrap();
    let frame = warm::read_frame(stream, 4096)
        .unwrap_or_else(|error| panic!("no answer within {within:?}: {error}"))
        .expect("the server closed the connection without a word");
    serde_json::from_value(frame).unwrap()
}

#[test]
fn idle_clients_take_no_thread_each_and_one_beyond_the_backlog_is_refused_at_once() {
    let base = tempfile::tempdir().unwrap();
    let limits = ServeLimits {
        handlers: 2,
        backlog: 8,
        idle_timeout: Duration::from_secs(30),
    };
    let before = threads();
    let path =
        SocketPath::in_directory(&base.path().join("abgen"), Path::new("/plugins/a"), DIGEST)
            .unwrap();
    let server = WarmServer::bind_with(path, DIGEST, Arc::new(Small), limits).unwrap();
    // The accept thread and the handlers, started at bind, are all the server ever runs.
    let serving = threads();
    assert_eq!(
        serving - before,
        3,
        "threads before {before}, serving {serving}"
    );

    // Two clients occupy the handlers, eight wait in the backlog; 190 more are refused.
    let mut idle: Vec<UnixStream> = (0..200)
        .map(|_| UnixStream::connect(&server.path().socket).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(threads(), serving, "200 idle clients must not add threads");

    let mut beyond = UnixStream::connect(&server.path().socket).unwrap();
    let asked = Instant::now();
    let refusal = refusal_of(&mut beyond, Duration::from_secs(2));
    assert_eq!(refusal.code, "busy", "{refusal:?}");
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "{:?}",
        asked.elapsed()
    );
    // The warm client reads the refusal as one, so a hook takes its fallback.
    let error = warm::request(server.path(), &request(), soon()).unwrap_err();
    assert!(
        matches!(&error, WarmError::Refused(refusal) if refusal.code == "busy"),
        "{error}"
    );

    // Once the idle clients leave, requests are served again.
    idle.clear();
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        match warm::request(server.path(), &request(), soon()) {
            Ok(events) => {
                assert_eq!(events.len(), 1);
                break;
            }
            Err(error) => assert!(Instant::now() < until, "never served again: {error}"),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(threads(), serving);
}
