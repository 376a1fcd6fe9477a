//! `abgen-host mcp --http` serves Streamable HTTP to the official MCP TypeScript SDK client: the
//! curator is built with the real `abgen-host`, the server started on a free loopback port with
//! a bearer token, and `runtime/tests/mcp_client/http.mjs` runs two sessions at once and checks
//! the front door (token, path, `Origin`, `Host`). Then SIGTERM ends the server with 143. And two
//! server processes behind one address (a small loopback front in the test, routing by
//! `Mcp-Session-Id`) each serve their own sessions (`runtime/tests/mcp_client/two-servers.mjs`).

mod support;

use std::process::Command;

use support::{build_curator, repo, serve_mcp_http};

#[test]
fn the_sdk_client_is_served_over_streamable_http() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_curator(&temp, &["claude"]);
    let runtime = temp.join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    let (url, mut server) = serve_mcp_http(&artifact, "library", &runtime, Some("sesame"));

    let output = Command::new("node")
        .arg(repo().join("runtime/tests/mcp_client/http.mjs"))
        .args([&url, "sesame"])
        .current_dir(repo())
        .output()
        .expect("running node");
    let checked = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "http.mjs failed:\n{checked}");

    let killed = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = server.wait().unwrap();
    assert_eq!(status.code(), Some(143), "{status:?}");
}

/// The remote-deployment story (issue 12, Deliver 6): two `abgen-host mcp --http` processes
/// behind one address, as ordinary HTTP infrastructure would put them (a front that keeps each
/// session on the process that created it, by `Mcp-Session-Id`), each serve their own sessions
/// whole; a session id is known only to the process that gave it.
#[test]
fn two_server_processes_behind_one_address_each_serve_their_own_sessions() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = support::build_fixture(temp.path(), "valid-mcp-tasks");
    let runtime = tempfile::tempdir().unwrap();
    let (first_url, mut first) = serve_mcp_http(&artifact, "mill", runtime.path(), None);
    let (second_url, mut second) = serve_mcp_http(&artifact, "mill", runtime.path(), None);
    let backends = [front::address(&first_url), front::address(&second_url)];
    let front = front::Front::start(backends);

    let output = support::host_turn::run_bounded(
        Command::new("node")
            .arg(repo().join("runtime/tests/mcp_client/two-servers.mjs"))
            .arg(format!("http://{}/mcp", front.address))
            .current_dir(repo()),
        std::time::Duration::from_secs(120),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "two-servers.mjs failed:\n{stderr}");
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let sessions: Vec<String> = summary["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap().to_owned())
        .collect();
    let routed = front.stop();

    // Each session was created on a process of its own, and every request naming it went there.
    let home = |session: &str| {
        routed
            .iter()
            .find(|request| request.created.as_deref() == Some(session))
            .unwrap_or_else(|| panic!("no process created {session}: {routed:#?}"))
            .backend
    };
    assert_ne!(home(&sessions[0]), home(&sessions[1]), "{routed:#?}");
    for session in &sessions {
        let named: Vec<_> = routed
            .iter()
            .filter(|request| request.session.as_deref() == Some(session.as_str()))
            .collect();
        assert!(named.len() >= 5, "{session}: {routed:#?}");
        assert!(named.iter().all(|request| request.backend == home(session)));
    }
    // A session id is the state of the process that gave it: the other one does not know it.
    let other = backends[1 - home(&sessions[0])];
    let status = front::post_status(other, &sessions[0]);
    assert_eq!(
        status, 404,
        "the other process answered a session it never created"
    );

    for server in [&mut first, &mut second] {
        server.kill().unwrap();
        server.wait().unwrap();
    }
}

/// A small HTTP/1.1 front for the test: one request per connection (sent on with
/// `Connection: close`), routed by `Mcp-Session-Id` to the backend that created the session
/// (learned from its responses), a request without one to each backend in turn. Every read and
/// connect is bounded, and every thread ends once the front is stopped.
mod front {
    use std::io::{Read, Write};
    use std::net::{SocketAddr, TcpListener, TcpStream};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    /// The longest a request or response head may be.
    const MAX_HEAD: usize = 64 * 1024;
    /// How long any one read may block before the thread looks at the stop flag again.
    const READ_SLICE: Duration = Duration::from_millis(200);
    /// How long a request may take to arrive, and a backend to start answering.
    const PATIENCE: Duration = Duration::from_secs(30);

    /// One routed request.
    #[derive(Debug, Clone)]
    pub struct Routed {
        pub session: Option<String>,
        /// The session the backend's answer created (the `Mcp-Session-Id` it gave).
        pub created: Option<String>,
        pub backend: usize,
    }

    pub struct Front {
        pub address: SocketAddr,
        stop: Arc<AtomicBool>,
        routed: Arc<Mutex<Vec<Routed>>>,
        accept: Option<std::thread::JoinHandle<()>>,
    }

    /// `http://127.0.0.1:PORT/mcp` as a socket address.
    pub fn address(url: &str) -> SocketAddr {
        url.trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .parse()
            .unwrap()
    }

    impl Front {
        pub fn start(backends: [SocketAddr; 2]) -> Front {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            listener.set_nonblocking(true).unwrap();
            let address = listener.local_addr().unwrap();
            let stop = Arc::new(AtomicBool::new(false));
            let routed = Arc::new(Mutex::new(Vec::new()));
            let sessions = Arc::new(Mutex::new(std::collections::HashMap::new()));
            let turn = Arc::new(AtomicUsize::new(0));
            let accept = std::thread::spawn({
                let stop = Arc::clone(&stop);
                let routed = Arc::clone(&routed);
                move || {
                    while !stop.load(Ordering::SeqCst) {
                        match listener.accept() {
                            Ok((client, _)) => {
                                let route = Route {
                                    backends,
                                    stop: Arc::clone(&stop),
                                    routed: Arc::clone(&routed),
                                    sessions: Arc::clone(&sessions),
                                    turn: Arc::clone(&turn),
                                };
                                std::thread::spawn(move || route.serve(client));
                            }
                            Err(_) => std::thread::sleep(Duration::from_millis(5)),
                        }
                    }
                }
            });
            Front {
                address,
                stop,
                routed,
                accept: Some(accept),
            }
        }

        /// Stops accepting (connection threads end within a read slice) and returns what was
        /// routed.
        pub fn stop(mut self) -> Vec<Routed> {
            self.stop.store(true, Ordering::SeqCst);
            if let Some(accept) = self.accept.take() {
                accept.join().unwrap();
            }
            self.routed.lock().unwrap().clone()
        }
    }

    struct Route {
        backends: [SocketAddr; 2],
        stop: Arc<AtomicBool>,
        routed: Arc<Mutex<Vec<Routed>>>,
        sessions: Arc<Mutex<std::collections::HashMap<String, usize>>>,
        turn: Arc<AtomicUsize>,
    }

    impl Route {
        fn serve(&self, mut client: TcpStream) {
            let _ = client.set_nonblocking(false);
            let _ = client.set_read_timeout(Some(READ_SLICE));
            let Some((head, mut body)) = self.read_head(&mut client) else {
                return;
            };
            let headers = Headers::parse(&head);
            let length: usize = headers
                .get("content-length")
                .map_or(0, |length| length.parse().unwrap_or(0));
            let deadline = Instant::now() + PATIENCE;
            while body.len() < length && Instant::now() < deadline && !self.stopped() {
                let mut buffer = [0u8; 16 * 1024];
                match client.read(&mut buffer) {
                    Ok(0) => return,
                    Ok(read) => body.extend_from_slice(&buffer[..read]),
                    Err(_) => {}
                }
            }
            let session = headers.get("mcp-session-id").map(str::to_owned);
            let known = session
                .as_ref()
                .and_then(|session| self.sessions.lock().unwrap().get(session).copied());
            let backend = known.unwrap_or_else(|| self.turn.fetch_add(1, Ordering::SeqCst) % 2);
            let Ok(mut upstream) = TcpStream::connect_timeout(&self.backends[backend], PATIENCE)
            else {
                return;
            };
            let _ = upstream.set_read_timeout(Some(READ_SLICE));
            let mut forwarded = Vec::new();
            let mut lines = head.split("\r\n").filter(|line| !line.is_empty());
            forwarded.extend_from_slice(lines.next().unwrap_or_default().as_bytes());
            forwarded.extend_from_slice(b"\r\n");
            for line in lines.filter(|line| !line.to_ascii_lowercase().starts_with("connection:")) {
                forwarded.extend_from_slice(line.as_bytes());
                forwarded.extend_from_slice(b"\r\n");
            }
            forwarded.extend_from_slice(b"Connection: close\r\n\r\n");
            forwarded.extend_from_slice(&body);
            if upstream.write_all(&forwarded).is_err() {
                return;
            }
            let Some((answer, rest)) = self.read_head(&mut upstream) else {
                return;
            };
            let created = Headers::parse(&answer)
                .get("mcp-session-id")
                .map(str::to_owned);
            if let Some(created) = &created {
                self.sessions
                    .lock()
                    .unwrap()
                    .insert(created.clone(), backend);
            }
            self.routed.lock().unwrap().push(Routed {
                session,
                created,
                backend,
            });
            if client.write_all(answer.as_bytes()).is_err() || client.write_all(&rest).is_err() {
                return;
            }
            // The rest of the answer (an SSE stream too) until the backend ends it, the client
            // leaves, or the front stops.
            let mut buffer = [0u8; 16 * 1024];
            while !self.stopped() {
                match upstream.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(read) => {
                        if client.write_all(&buffer[..read]).is_err() {
                            break;
                        }
                    }
                    Err(error)
                        if matches!(
                            error.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) => {}
                    Err(_) => break,
                }
            }
        }

        fn stopped(&self) -> bool {
            self.stop.load(Ordering::SeqCst)
        }

        /// A head (through its blank line) and the bytes read past it, within [`PATIENCE`].
        fn read_head(&self, stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
            let deadline = Instant::now() + PATIENCE;
            let mut read = Vec::new();
            let mut buffer = [0u8; 4096];
            loop {
                if let Some(end) = read.windows(4).position(|window| window == b"\r\n\r\n") {
                    let rest = read.split_off(end + 4);
                    return Some((String::from_utf8_lossy(&read).into_owned(), rest));
                }
                if read.len() > MAX_HEAD || Instant::now() > deadline || self.stopped() {
                    return None;
                }
                match stream.read(&mut buffer) {
                    Ok(0) => return None,
                    Ok(n) => read.extend_from_slice(&buffer[..n]),
                    Err(error)
                        if matches!(
                            error.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) => {}
                    Err(_) => return None,
                }
            }
        }
    }

    /// A head's header fields, names lowercased.
    struct Headers(Vec<(String, String)>);

    impl Headers {
        fn parse(head: &str) -> Headers {
            Headers(
                head.split("\r\n")
                    .skip(1)
                    .filter_map(|line| line.split_once(':'))
                    .map(|(name, value)| {
                        (name.trim().to_ascii_lowercase(), value.trim().to_owned())
                    })
                    .collect(),
            )
        }

        fn get(&self, name: &str) -> Option<&str> {
            self.0
                .iter()
                .find(|(field, _)| field == name)
                .map(|(_, value)| value.as_str())
        }
    }

    /// The status a `tools/list` POST naming `session` gets from `backend` directly.
    pub fn post_status(backend: SocketAddr, session: &str) -> u16 {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        let mut stream = TcpStream::connect_timeout(&backend, PATIENCE).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: {backend}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\n\
             Mcp-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
            .split(' ')
            .nth(1)
            .and_then(|status| status.parse().ok())
            .unwrap_or_else(|| panic!("no status line: {answer}"))
    }
}
