//! The warm socket end to end, in-process server and client: a round trip, the digest and
//! protocol checks, one server per socket through the flock, stale-socket replacement, the
//! directory ownership and mode checks, deadlines and a server that stops mid-render; and the
//! peer-uid check, with a client process running as uid 65534 (the tests run as root); and a
//! client that never sends its request is closed after the idle timeout (the other connection
//! bounds are in `warm_connections.rs`).

mod warm_support;

use warm_support::bind_when_free;

use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use abgen_runtime::document::{Document, Node, RenderEvent, RenderEventKind};
use abgen_runtime::warm::{
    self, BindError, PathError, RenderSource, ServeLimits, SocketPath, WarmError, WarmKind,
    WarmRequest, WarmServer,
};
use serde_json::json;

const DIGEST: &str = "0a0980b9b2b0e6cf5a6f2d3e11724af4f754a9f64b94c2f148765199d7b174ce";

/// Answers every request with a shell and a one-line context document; or misbehaves.
enum Source {
    Small,
    Sleeps(Duration),
    StopsEarly,
}

impl RenderSource for Source {
    fn render(
        &self,
        request: &WarmRequest,
        _deadline: Instant,
        emit: &mut dyn FnMut(&RenderEvent) -> bool,
    ) {
        let document = Document::new(
            Node::Result {
                children: vec![Node::Context {
                    text: format!("rendered {}", request.route),
                }]
                .into(),
            },
            None,
        );
        let shell = RenderEvent {
            sequence: 0,
            kind: RenderEventKind::Shell {
                document: document.clone(),
            },
        };
        if !emit(&shell) {
            return;
        }
        match self {
            Source::Small => {}
            Source::Sleeps(time) => std::thread::sleep(*time),
            Source::StopsEarly => return,
        }
        emit(&RenderEvent {
            sequence: 1,
            kind: RenderEventKind::Complete { document },
        });
    }
}

fn paths(base: &Path) -> SocketPath {
    SocketPath::in_directory(&base.join("abgen"), Path::new("/plugins/curator"), DIGEST).unwrap()
}

fn serve(base: &Path, source: Source) -> WarmServer {
    bind_when_free(&paths(base), DIGEST, Arc::new(source))
}

fn request(digest: &str) -> WarmRequest {
    WarmRequest {
        protocol: warm::WARM_PROTOCOL,
        digest: digest.to_owned(),
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

#[test]
fn a_request_gets_the_render_events_up_to_complete() {
    let base = tempfile::tempdir().unwrap();
    let server = serve(base.path(), Source::Small);
    let events = warm::request(server.path(), &request(DIGEST), soon()).unwrap();
    assert_eq!(events.len(), 2);
    let RenderEventKind::Complete { document } = &events[1].kind else {
        panic!("{events:?}")
    };
    assert_eq!(
        document.root,
        Node::Result {
            children: vec![Node::Context {
                text: "rendered event:tool/after".into()
            }]
            .into()
        }
    );
    // The socket is short, private, and named by root and digest.
    let socket = &server.path().socket;
    assert!(socket.as_os_str().len() < 108);
    let mode = std::fs::metadata(&server.path().directory)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
    let other_root =
        SocketPath::in_directory(&base.path().join("abgen"), Path::new("/plugins/x"), DIGEST)
            .unwrap();
    assert_ne!(&other_root.socket, socket);
}

#[test]
fn another_digest_or_protocol_is_refused() {
    let base = tempfile::tempdir().unwrap();
    let server = serve(base.path(), Source::Small);
    let error = warm::request(server.path(), &request("ffff"), soon()).unwrap_err();
    assert_eq!(error.code(), "digest-mismatch", "{error}");
    let mut future = request(DIGEST);
    future.protocol = warm::WARM_PROTOCOL + 1;
    let error = warm::request(server.path(), &future, soon()).unwrap_err();
    assert!(
        matches!(&error, WarmError::Refused(refusal) if refusal.code == "protocol"),
        "{error}"
    );
}

#[test]
fn one_server_owns_a_socket_and_a_stale_one_is_replaced() {
    let base = tempfile::tempdir().unwrap();
    let first = serve(base.path(), Source::Small);
    let second = WarmServer::bind(paths(base.path()), DIGEST, Arc::new(Source::Small));
    assert!(matches!(second, Err(BindError::Busy(_))));
    // The first still answers.
    assert!(warm::request(first.path(), &request(DIGEST), soon()).is_ok());
    drop(first);
    let path = paths(base.path());
    assert!(matches!(
        warm::request(&path, &request(DIGEST), soon()),
        Err(WarmError::NoRuntime(_))
    ));
    // A server killed without cleaning up leaves its socket file; the next owner replaces it.
    let stale = std::os::unix::net::UnixListener::bind(&path.socket).unwrap();
    drop(stale);
    assert!(path.socket.exists());
    assert!(matches!(
        warm::request(&path, &request(DIGEST), soon()),
        Err(WarmError::NoRuntime(_))
    ));
    let replacement = serve(base.path(), Source::Small);
    assert!(warm::request(replacement.path(), &request(DIGEST), soon()).is_ok());
}

#[test]
fn a_stopped_server_leaves_nothing_in_the_socket_directory() {
    let base = tempfile::tempdir().unwrap();
    let path = paths(base.path());
    let listed = || {
        let mut names: Vec<String> = std::fs::read_dir(&path.directory)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let server = serve(base.path(), Source::Small);
    assert_eq!(listed().len(), 2, "{:?}", listed());
    drop(server);
    assert!(listed().is_empty(), "{:?}", listed());
    // A killed server leaves its lock file and its socket file; the next owner takes them over,
    // and removes both when it stops.
    std::fs::File::create(&path.lock).unwrap();
    drop(std::os::unix::net::UnixListener::bind(&path.socket).unwrap());
    let next = serve(base.path(), Source::Small);
    assert!(warm::request(next.path(), &request(DIGEST), soon()).is_ok());
    drop(next);
    assert!(listed().is_empty(), "{:?}", listed());
}

#[test]
fn a_directory_open_to_others_or_owned_by_someone_else_is_refused() {
    let base = tempfile::tempdir().unwrap();
    let path = paths(base.path());
    std::fs::create_dir(&path.directory).unwrap();
    std::fs::set_permissions(&path.directory, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(matches!(
        WarmServer::bind(path.clone(), DIGEST, Arc::new(Source::Small)),
        Err(BindError::Path(PathError::Mode { mode: 0o755, .. }))
    ));
    assert!(matches!(
        warm::request(&path, &request(DIGEST), soon()),
        Err(WarmError::Path(PathError::Mode { .. }))
    ));
    std::fs::set_permissions(&path.directory, std::fs::Permissions::from_mode(0o700)).unwrap();
    // Giving the directory away takes root, as the test suite runs.
    if warm::current_uid() != 0 {
        return;
    }
    std::os::unix::fs::chown(&path.directory, Some(65534), Some(65534)).unwrap();
    assert!(matches!(
        warm::request(&path, &request(DIGEST), soon()),
        Err(WarmError::Path(PathError::Owner { owner: 65534, .. }))
    ));
    // A link to a directory is not the directory.
    let real = base.path().join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::remove_dir(&path.directory).unwrap();
    std::os::unix::fs::symlink(&real, &path.directory).unwrap();
    assert!(matches!(
        warm::request(&path, &request(DIGEST), soon()),
        Err(WarmError::Path(PathError::NotADirectory(_)))
    ));
}

#[test]
fn the_client_gives_up_at_its_deadline_and_notices_a_stopped_render() {
    let base = tempfile::tempdir().unwrap();
    let server = serve(base.path(), Source::Sleeps(Duration::from_secs(3)));
    let started = Instant::now();
    let error = warm::request(
        server.path(),
        &request(DIGEST),
        started + Duration::from_millis(300),
    )
    .unwrap_err();
    let elapsed = started.elapsed();
    assert_eq!(error.code(), "timeout", "{error}");
    assert!(
        elapsed >= Duration::from_millis(290) && elapsed < Duration::from_millis(1000),
        "{elapsed:?}"
    );

    let base = tempfile::tempdir().unwrap();
    let server = serve(base.path(), Source::StopsEarly);
    let error = warm::request(server.path(), &request(DIGEST), soon()).unwrap_err();
    assert_eq!(error.code(), "crashed", "{error}");
}

/// Run as another user by `a_peer_of_another_uid_is_refused`: connects to the socket named in
/// `WARM_PEER_SOCKET`, sends one request and writes what happened to stdout.
#[test]
fn peer_helper() {
    use std::io::Write as _;
    let Some(socket) = std::env::var_os("WARM_PEER_SOCKET") else {
        return;
    };
    let mut out = std::io::stdout();
    let mut stream = match std::os::unix::net::UnixStream::connect(&socket) {
        Ok(stream) => stream,
        Err(error) => {
            let _ = writeln!(out, "\npeer: connect-error {:?}", error.kind());
            return;
        }
    };
    let frame = serde_json::to_value(request(DIGEST)).unwrap();
    let _ = warm::write_frame(&mut stream, &frame);
    let reply = warm::read_frame(&mut stream, 1 << 20);
    let _ = writeln!(
        out,
        "\npeer: reply {}",
        reply.ok().flatten().unwrap_or_default()
    );
}

fn as_nobody(socket: &Path) -> String {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "peer_helper", "--nocapture", "--test-threads=1"])
        .env("WARM_PEER_SOCKET", socket)
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .find_map(|line| line.strip_prefix("peer: "))
        .unwrap_or_else(|| panic!("{stdout}\n{}", String::from_utf8_lossy(&output.stderr)))
        .to_owned()
}

#[test]
fn a_peer_of_another_uid_is_refused() {
    // Running a client as another user takes root, as the test suite runs.
    if warm::current_uid() != 0 {
        return;
    }
    // Under cargo's scratch directory in target/, not TMPDIR: the helper runs as nobody from
    // target/ too, so nobody can reach this whenever the test can run at all, while TMPDIR may
    // be a 0700 directory of its own (`mktemp -d`) that would refuse nobody for the wrong reason.
    let base = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let server = serve(base.path(), Source::Small);
    // The 0700 directory keeps another user from even reaching the socket.
    std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
    assert_eq!(
        as_nobody(&server.path().socket),
        "connect-error PermissionDenied"
    );
    // Opened up (as if by mistake), the peer check still refuses before reading anything.
    let open = std::fs::Permissions::from_mode(0o777);
    std::fs::set_permissions(&server.path().directory, open.clone()).unwrap();
    std::fs::set_permissions(&server.path().socket, open).unwrap();
    let reply = as_nobody(&server.path().socket);
    assert!(
        reply.starts_with(r#"reply {"type":"refused","code":"peer-uid""#),
        "{reply}"
    );
    assert!(
        reply.contains("uid 65534 may not use this socket"),
        "{reply}"
    );
}

#[test]
fn requests_refusals_and_events_match_the_schema() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/warm-protocol.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let event = RenderEvent {
        sequence: 0,
        kind: RenderEventKind::Complete {
            document: Document::new(
                Node::Result {
                    children: vec![].into(),
                },
                None,
            ),
        },
    };
    for frame in [
        serde_json::to_value(request(DIGEST)).unwrap(),
        warm::WarmRefusal::new("digest-mismatch", "another artifact").to_frame(),
        serde_json::to_value(&event).unwrap(),
    ] {
        let errors: Vec<String> = validator
            .iter_errors(&frame)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{frame}: {errors:?}");
    }
    let mut unknown = serde_json::to_value(request(DIGEST)).unwrap();
    unknown["extra"] = json!(1);
    assert!(!validator.is_valid(&unknown));
}

#[test]
fn one_artifact_reached_by_two_paths_names_one_socket() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("artifact");
    std::fs::create_dir(&root).unwrap();
    let link = base.path().join("link");
    std::os::unix::fs::symlink(&root, &link).unwrap();
    let directory = base.path().join("abgen");
    let direct = SocketPath::in_directory(&directory, &root, DIGEST).unwrap();
    let linked = SocketPath::in_directory(&directory, &link, DIGEST).unwrap();
    let dotted = SocketPath::in_directory(&directory, &root.join("."), DIGEST).unwrap();
    assert_eq!(direct, linked);
    assert_eq!(direct, dotted);
    assert_ne!(
        direct,
        SocketPath::in_directory(&directory, &root, "another digest").unwrap()
    );
}

/// Reads the one frame a server sends a client that sent nothing, within `within`.
fn refusal_of(stream: &mut std::os::unix::net::UnixStream, within: Duration) -> warm::WarmRefusal {
    stream.set_read_timeout(Some(within)).unwrap();
    let frame = warm::read_frame(stream, 4096)
        .unwrap_or_else(|error| panic!("no answer within {within:?}: {error}"))
        .expect("the server closed the connection without a word");
    serde_json::from_value(frame).unwrap()
}

#[test]
fn a_client_that_sends_no_request_is_closed_after_the_idle_timeout() {
    use std::os::unix::net::UnixStream;
    let base = tempfile::tempdir().unwrap();
    let limits = ServeLimits {
        handlers: 1,
        backlog: 4,
        idle_timeout: Duration::from_millis(300),
    };
    let server =
        WarmServer::bind_with(paths(base.path()), DIGEST, Arc::new(Source::Small), limits).unwrap();
    let connected = Instant::now();
    let mut quiet = UnixStream::connect(&server.path().socket).unwrap();
    // A second quiet client waits behind the first; its timeout counts from its accept, so it
    // is closed at about the same time, not one timeout later.
    let mut behind = UnixStream::connect(&server.path().socket).unwrap();
    let refusal = refusal_of(&mut quiet, Duration::from_secs(5));
    assert_eq!(refusal.code, "idle");
    assert_eq!(refusal_of(&mut behind, Duration::from_secs(5)).code, "idle");
    let waited = connected.elapsed();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/warm-protocol.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for code in ["idle", "busy"] {
        let frame = warm::WarmRefusal::new(code, &refusal.message).to_frame();
        assert!(validator.is_valid(&frame), "{frame}");
    }
    assert!(
        (Duration::from_millis(250)..Duration::from_millis(550)).contains(&waited),
        "{waited:?}"
    );
    // The handler is free again.
    let events = warm::request(server.path(), &request(DIGEST), soon()).unwrap();
    assert_eq!(events.len(), 2);
}
