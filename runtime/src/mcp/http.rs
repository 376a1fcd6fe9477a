//! Streamable HTTP: `abgen-host mcp --server ID --http ADDR` serves the same handler as stdio
//! through rmcp's Streamable HTTP server (sessions, SSE, `Host` and `Origin` validation), one
//! [`McpServer`] per session, every session on the process's one shared kernel.
//!
//! Who starts and ends what: [`serve_http`] starts a current-thread tokio runtime that accepts
//! connections until the process is ended by a signal (SIGINT exits 130, SIGTERM 143, the
//! workers ended first, as for stdio); each connection is a task of that runtime.
//!
//! Invariant: only loopback `Host` names are accepted unless the operator names others (DNS
//! rebinding), a browser `Origin` must be a loopback one or one the operator allows, and with a
//! bearer token configured every request must carry it.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::server::{HttpSessions, Log, McpServer, ServerConfig};
use super::tasks::{self, Session};
use crate::kernel::SharedKernel;

/// The one path the server answers on.
pub const MCP_PATH: &str = "/mcp";

/// How the HTTP server listens and whom it lets in.
#[derive(Debug, Clone, Default)]
pub struct HttpConfig {
    pub address: Option<SocketAddr>,
    /// `Host` names (or `host:port`) accepted beside the loopback ones.
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted beside the loopback ones (`http://localhost:*` and the like).
    pub allowed_origins: Vec<String>,
    /// When set, every request needs `Authorization: Bearer <token>`.
    pub bearer_token: Option<String>,
}

/// The loopback names every server accepts.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];
const LOOPBACK_ORIGINS: [&str; 3] = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// Serves sessions at `http://<address>/mcp` until the process ends; `ready` hears the bound
/// address first (the port, when the address asked for any). Returns only when the address
/// cannot be bound or the listener fails, with why.
pub fn serve_http(
    config: ServerConfig,
    kernel: Arc<SharedKernel>,
    log: Log,
    http: HttpConfig,
    ready: impl FnOnce(SocketAddr),
) -> io::Result<Infallible> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    runtime.block_on(async move {
        let address = http
            .address
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)));
        let listener = tokio::net::TcpListener::bind(address).await?;
        ready(listener.local_addr()?);
        let rmcp_config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(
                LOOPBACK_HOSTS
                    .iter()
                    .map(|host| (*host).to_owned())
                    .chain(http.allowed_hosts.iter().cloned()),
            )
            .with_allowed_origins(
                LOOPBACK_ORIGINS
                    .iter()
                    .map(|origin| (*origin).to_owned())
                    .chain(http.allowed_origins.iter().cloned()),
            )
            .enforce_origin_validation();
        let sessions = Arc::new(HttpSessions::default());
        let body = BodyRules {
            max_bytes: config.max_message_bytes,
            offers_tasks: tasks::offers_tasks(&config.manifest, &config.server),
        };
        let service = StreamableHttpService::new(
            {
                let sessions = Arc::clone(&sessions);
                move || {
                    Ok(Session::new(
                        McpServer::new(config.clone(), Arc::clone(&kernel), Arc::clone(&log))
                            .over_http(Arc::clone(&sessions)),
                    ))
                }
            },
            Arc::new(LocalSessionManager::default()),
            rmcp_config,
        );
        let token = Arc::new(http.bearer_token);
        loop {
            let (stream, _) = listener.accept().await?;
            let service = service.clone();
            let token = Arc::clone(&token);
            let sessions = Arc::clone(&sessions);
            tokio::spawn(async move {
                let answer = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let service = service.clone();
                    let token = Arc::clone(&token);
                    let sessions = Arc::clone(&sessions);
                    async move {
                        Ok::<_, Infallible>(
                            answer(&service, &sessions, token.as_deref(), body, request).await,
                        )
                    }
                });
                // A connection that breaks ends only itself.
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), answer)
                    .await;
            });
        }
    })
}

/// What a POSTed message may be, and what in it rmcp's types cannot carry (`tasks.rs`).
#[derive(Debug, Clone, Copy)]
struct BodyRules {
    /// The longest message, as over stdio (`--max-message-bytes`); a longer body is refused.
    max_bytes: usize,
    /// Whether the server serves tasks: a call's `task` and the initialize result's
    /// capability are carried around rmcp's types.
    offers_tasks: bool,
}

/// One request: the path and the bearer token are checked here, everything else by rmcp. A
/// `DELETE` that ends a session cancels its calls in flight at once (rmcp would let them run
/// through its drain, although nobody is left to read their answers).
async fn answer(
    service: &StreamableHttpService<Session, LocalSessionManager>,
    sessions: &HttpSessions,
    token: Option<&str>,
    body: BodyRules,
    request: Request<Incoming>,
) -> Response<BoxBody<Bytes, Infallible>> {
    if request.uri().path() != MCP_PATH {
        return plain(StatusCode::NOT_FOUND, "not found: MCP is served at /mcp");
    }
    if let Some(token) = token {
        let presented = request
            .headers()
            .get(hyper::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "));
        if presented != Some(token) {
            let mut response = plain(StatusCode::UNAUTHORIZED, "a bearer token is required");
            response.headers_mut().insert(
                hyper::header::WWW_AUTHENTICATE,
                hyper::header::HeaderValue::from_static("Bearer"),
            );
            return response;
        }
    }
    let closing = (request.method() == hyper::Method::DELETE)
        .then(|| request.headers().get("mcp-session-id").cloned())
        .flatten();
    let response = if request.method() == hyper::Method::POST && body.offers_tasks {
        match posted_message(request, body.max_bytes).await {
            Ok((request, initialize)) => {
                let response = service.handle(request).await;
                if initialize {
                    advertise_tasks(response)
                } else {
                    response
                }
            }
            Err(refused) => refused,
        }
    } else {
        service.handle(request).await
    };
    if let Some(id) = closing
        && response.status().is_success()
        && let Ok(id) = id.to_str()
    {
        sessions.close(id);
    }
    response
}

/// A POSTed message read whole (at most `max_bytes`), routed as `tasks::route` says, and
/// whether it is an `initialize`; a body too long or unreadable is refused.
async fn posted_message(
    request: Request<Incoming>,
    max_bytes: usize,
) -> Result<(Request<Full<Bytes>>, bool), Response<BoxBody<Bytes, Infallible>>> {
    let (parts, incoming) = request.into_parts();
    let bytes = match http_body_util::Limited::new(incoming, max_bytes)
        .collect()
        .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(error) if error.is::<http_body_util::LengthLimitError>() => {
            return Err(plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the message is longer than the server's --max-message-bytes",
            ));
        }
        Err(_) => {
            return Err(plain(
                StatusCode::BAD_REQUEST,
                "the request body could not be read",
            ));
        }
    };
    let mut initialize = false;
    let bytes = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(mut message) => {
            initialize =
                message.get("method").and_then(serde_json::Value::as_str) == Some("initialize");
            let before = message.clone();
            tasks::route(&mut message);
            if message == before {
                bytes
            } else {
                Bytes::from(message.to_string())
            }
        }
        // rmcp answers what is not JSON.
        Err(_) => bytes,
    };
    Ok((Request::from_parts(parts, Full::new(bytes)), initialize))
}

/// The initialize answer with the `tasks` capability added, frame by frame as rmcp streams it.
fn advertise_tasks(
    response: Response<BoxBody<Bytes, Infallible>>,
) -> Response<BoxBody<Bytes, Infallible>> {
    let (parts, body) = response.into_parts();
    let body = body
        .map_frame(|frame| match frame.into_data() {
            Ok(data) => hyper::body::Frame::data(
                tasks::advertise_tasks_in_body(&data).map_or(data, Bytes::from),
            ),
            Err(frame) => frame,
        })
        .boxed();
    Response::from_parts(parts, body)
}

fn plain(status: StatusCode, text: &'static str) -> Response<BoxBody<Bytes, Infallible>> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response
}
