//! The host's two loopback HTTP servers, on one current-thread runtime: the host origin (the
//! page, the relay `POST /api/mcp`, `POST /api/cancel`, and `GET /api/session`, a response that
//! stays open while the host runs so the page learns when it stops) and the sandbox origin (the
//! proxy page at `/sandbox`, with the App's Content-Security-Policy, which the App's inner frame
//! inherits).

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::{self, Read};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use super::session::{McpSession, rpc_error};
use super::{Capability, Opening, WebAddress};
use crate::mcp::Log;

const HOST_PAGE: &str = include_str!("host.html");
const SANDBOX_PAGE: &str = include_str!("sandbox.html");
/// The largest relayed request body: the MCP server's own message bound.
const MAX_RELAY_BYTES: usize = crate::mcp::DEFAULT_MAX_MESSAGE_BYTES;
/// The methods an App may send to its server through the host (MCP Apps: the standard tool and
/// resource requests; everything `ui/*` the page answers itself).
const RELAYED_METHODS: [&str; 6] = [
    "tools/call",
    "tools/list",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "ping",
];
const RELAY_TOKEN_HEADER: &str = "x-abgen-web-token";

/// What both servers answer from.
pub(crate) struct HostState {
    token: String,
    host_origin: String,
    host_authority: String,
    sandbox_authority: String,
    page: String,
    sandbox_page: String,
    sandbox_csp: String,
    session: Arc<McpSession>,
    /// Tools the App may not call ([`Opening::model_only`]).
    model_only: Vec<String>,
    /// The relayed requests still in flight, by the page's relay id: firing one cancels it.
    cancels: Mutex<HashMap<String, oneshot::Sender<()>>>,
}

impl HostState {
    pub(crate) fn new(
        address: &WebAddress,
        opening: Opening,
        allow: Vec<Capability>,
        session: Arc<McpSession>,
    ) -> Arc<Self> {
        let token = random_token();
        let host_origin = format!("http://127.0.0.1:{}", address.port);
        let config = json!({
            "token": token,
            "app": address.app,
            "server": address.server,
            "resourceUri": address.resource_uri,
            "sandboxOrigin": address.sandbox_origin,
            "hostInfo": {"name": "abgen-host web", "version": env!("CARGO_PKG_VERSION")},
            "tool": opening.tool,
            "input": opening.input,
            "result": opening.result,
            "ui": opening.ui,
            "allow": allow,
        });
        let page = HOST_PAGE.replace("\"__ABGEN_WEB_CONFIG__\"", &script_json(&config));
        let sandbox_page = SANDBOX_PAGE.replace(
            "\"__ABGEN_HOST_ORIGIN__\"",
            &script_json(&json!(host_origin)),
        );
        let sandbox_csp = app_csp(&opening.ui["csp"], &host_origin);
        Arc::new(Self {
            token,
            host_authority: host_origin.trim_start_matches("http://").to_owned(),
            sandbox_authority: address
                .sandbox_origin
                .trim_start_matches("http://")
                .to_owned(),
            host_origin,
            page,
            sandbox_page,
            sandbox_csp,
            session,
            model_only: opening.model_only,
            cancels: Mutex::default(),
        })
    }
}

/// Serves both origins until the process ends; returns only when a listener fails.
pub(crate) async fn serve(
    host: TcpListener,
    sandbox: TcpListener,
    state: Arc<HostState>,
    log: Log,
) -> io::Result<Infallible> {
    loop {
        let (stream, side) = tokio::select! {
            accepted = host.accept() => (accepted?.0, Side::Host),
            accepted = sandbox.accept() => (accepted?.0, Side::Sandbox),
        };
        let state = Arc::clone(&state);
        let log = Arc::clone(&log);
        tokio::spawn(async move {
            let answer = hyper::service::service_fn(move |request: Request<Incoming>| {
                let state = Arc::clone(&state);
                let log = Arc::clone(&log);
                async move { Ok::<_, Infallible>(answer(&state, side, request, &log).await) }
            });
            // A connection that breaks ends only itself.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), answer)
                .await;
        });
    }
}

#[derive(Debug, Clone, Copy)]
enum Side {
    Host,
    Sandbox,
}

type Answer = Response<BoxBody<Bytes, Infallible>>;

async fn answer(state: &HostState, side: Side, request: Request<Incoming>, log: &Log) -> Answer {
    let authority = match side {
        Side::Host => &state.host_authority,
        Side::Sandbox => &state.sandbox_authority,
    };
    // DNS rebinding: only the exact loopback address this server printed.
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|value| value.to_str().ok());
    if host != Some(authority.as_str()) {
        return plain(StatusCode::MISDIRECTED_REQUEST, "unknown host");
    }
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    match (side, &method, path.as_str()) {
        (Side::Host, &Method::GET, "/") => html(
            &state.page,
            &format!(
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
                 img-src data:; connect-src 'self'; frame-src {}; base-uri 'none'; \
                 form-action 'none'; frame-ancestors 'none'",
                state.sandbox_authority_origin()
            ),
        ),
        (Side::Sandbox, &Method::GET, "/sandbox") => html(&state.sandbox_page, &state.sandbox_csp),
        (Side::Host, &Method::POST, "/api/mcp") => match refusal(state, &request) {
            None => relay(state, request, log).await,
            Some(refused) => refused,
        },
        (Side::Host, &Method::POST, "/api/cancel") => match refusal(state, &request) {
            None => cancel(state, request).await,
            Some(refused) => refused,
        },
        (Side::Host, &Method::GET, "/api/session") => match refusal(state, &request) {
            None => {
                let mut response = Response::new(BoxBody::new(StaysOpen));
                no_store(&mut response);
                response
            }
            Some(refused) => refused,
        },
        _ => plain(StatusCode::NOT_FOUND, "not found"),
    }
}

impl HostState {
    fn sandbox_authority_origin(&self) -> String {
        format!("http://{}", self.sandbox_authority)
    }
}

/// The relay answers the host page only: its exact origin and its per-run token. `Some` is the
/// refusal of anything else.
fn refusal(state: &HostState, request: &Request<Incoming>) -> Option<Answer> {
    let headers = request.headers();
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    // Browsers send `Origin` with every POST; a same-origin GET carries none, and is then
    // judged by the token alone.
    let origin_required = request.method() != Method::GET;
    if origin.map_or(origin_required, |origin| origin != state.host_origin) {
        return Some(plain(StatusCode::FORBIDDEN, "only the host page may relay"));
    }
    let token = headers
        .get(RELAY_TOKEN_HEADER)
        .and_then(|v| v.to_str().ok());
    if token != Some(state.token.as_str()) {
        return Some(plain(StatusCode::FORBIDDEN, "only the host page may relay"));
    }
    None
}

/// One App request, `{relay, method, params}`, to the server; answers `{result}` or `{error}`.
async fn relay(state: &HostState, request: Request<Incoming>, log: &Log) -> Answer {
    let body = match read_json(request).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let method = body["method"].as_str().unwrap_or_default();
    if !RELAYED_METHODS.contains(&method) {
        return json_answer(&json!({"error": rpc_error(
            -32601,
            &format!("`{method}` is not a method this host relays to the server"),
        )}));
    }
    if method == "tools/call"
        && let Some(name) = body["params"]["name"].as_str()
        && state.model_only.iter().any(|tool| tool == name)
    {
        return json_answer(&json!({"error": rpc_error(
            -32602,
            &format!("the tool `{name}` is visible to the model only; an App may not call it"),
        )}));
    }
    let relay_id = body["relay"].as_str().map(str::to_owned);
    let cancel = relay_id.as_ref().map(|id| {
        let (fire, fired) = oneshot::channel();
        state
            .cancels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone(), fire);
        fired
    });
    let params = body.get("params").cloned().unwrap_or_else(|| json!({}));
    if method == "tools/call" {
        log(format!(
            "web: the App calls {}",
            params["name"].as_str().unwrap_or("?")
        ));
    }
    let reply = state.session.request(method, params, cancel).await;
    if let Some(id) = relay_id {
        state
            .cancels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
    }
    json_answer(&match reply {
        Ok(result) => json!({"result": result}),
        Err(error) => json!({"error": error}),
    })
}

/// `{relay}`: cancels that relayed request if it is still in flight; an unknown one is a no-op.
async fn cancel(state: &HostState, request: Request<Incoming>) -> Answer {
    let body = match read_json(request).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    if let Some(id) = body["relay"].as_str() {
        let fire = state
            .cancels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        if let Some(fire) = fire {
            let _ = fire.send(());
        }
    }
    json_answer(&json!({}))
}

async fn read_json(request: Request<Incoming>) -> Result<Value, Answer> {
    let collected = Limited::new(request.into_body(), MAX_RELAY_BYTES)
        .collect()
        .await
        .map_err(|_| plain(StatusCode::PAYLOAD_TOO_LARGE, "the request is too large"))?;
    serde_json::from_slice::<Value>(&collected.to_bytes())
        .ok()
        .filter(Value::is_object)
        .ok_or_else(|| plain(StatusCode::BAD_REQUEST, "the body is not a JSON object"))
}

/// A response body that never ends: the page's `GET /api/session` stays open as long as the
/// host runs, and ends (the connection closes) when the process does.
struct StaysOpen;

impl hyper::body::Body for StaysOpen {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Pending
    }
}

/// The App's Content-Security-Policy: MCP Apps' default, widened only by the domains the
/// resource's `_meta.ui.csp` declares, and framed only by the host page.
fn app_csp(csp: &Value, host_origin: &str) -> String {
    let domains = |key: &str| -> String {
        csp[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|domain| is_csp_source(domain))
            .map(|domain| format!(" {domain}"))
            .collect()
    };
    let resources = domains("resourceDomains");
    let connect = domains("connectDomains");
    let frames = domains("frameDomains");
    let base = domains("baseUriDomains");
    let or_none = |list: &str| {
        if list.is_empty() {
            " 'none'".to_owned()
        } else {
            list.to_owned()
        }
    };
    format!(
        "default-src 'none'; script-src 'self' 'unsafe-inline'{resources}; \
         style-src 'self' 'unsafe-inline'{resources}; img-src 'self' data:{resources}; \
         font-src 'self'{resources}; media-src 'self' data:{resources}; \
         connect-src{}; frame-src{}; base-uri 'self'{base}; frame-ancestors {host_origin}",
        or_none(&connect),
        or_none(&frames),
    )
}

/// A CSP source the App may name: a scheme-and-host pattern, nothing that could end the directive
/// or add a keyword.
fn is_csp_source(domain: &str) -> bool {
    !domain.is_empty()
        && domain.len() <= 256
        && !domain.starts_with('\'')
        && domain
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._*:/[]".contains(c))
}

/// JSON safe to place inside a `<script>` element: no `<`, so no `</script>`.
fn script_json(value: &Value) -> String {
    value.to_string().replace('<', "\\u003c")
}

/// 128 random bits (from the system's source), in hex; the relay's per-run token.
fn random_token() -> String {
    let mut bytes = [0_u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut file| file.read_exact(&mut bytes));
    if read.is_err() {
        // No system source: a digest of what is unique to this run is still unguessable to a
        // page that cannot read this process.
        let seed = format!(
            "{:?}{}{:p}",
            std::time::SystemTime::now(),
            std::process::id(),
            &bytes
        );
        bytes.copy_from_slice(&Sha256::digest(seed.as_bytes())[..16]);
    }
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn html(page: &str, csp: &str) -> Answer {
    let mut response = Response::new(Full::new(Bytes::from(page.to_owned())).boxed());
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    if let Ok(csp) = HeaderValue::from_str(csp) {
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    no_store(&mut response);
    response
}

fn json_answer(value: &Value) -> Answer {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())).boxed());
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    no_store(&mut response);
    response
}

fn no_store(response: &mut Answer) {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

fn plain(status: StatusCode, text: &'static str) -> Answer {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_app_csp_is_the_mcp_apps_default_framed_by_the_host_only() {
        assert_eq!(
            app_csp(&Value::Null, "http://127.0.0.1:4000"),
            "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; \
             img-src 'self' data:; font-src 'self'; media-src 'self' data:; connect-src 'none'; \
             frame-src 'none'; base-uri 'self'; frame-ancestors http://127.0.0.1:4000"
        );
    }

    #[test]
    fn declared_domains_widen_it_and_nothing_else_gets_in() {
        let csp = app_csp(
            &json!({
                "connectDomains": ["https://api.example.com", "'unsafe-eval'", "https://x; script-src *"],
                "resourceDomains": ["https://cdn.example.com"],
            }),
            "http://127.0.0.1:4000",
        );
        assert!(
            csp.contains("connect-src https://api.example.com;"),
            "{csp}"
        );
        assert!(
            csp.contains("script-src 'self' 'unsafe-inline' https://cdn.example.com;"),
            "{csp}"
        );
        assert!(
            !csp.contains("unsafe-eval") && !csp.contains("script-src *"),
            "{csp}"
        );
    }

    #[test]
    fn page_json_cannot_close_its_script_element() {
        assert_eq!(
            script_json(&json!({"html": "</script><script>alert(1)</script>"})),
            r#"{"html":"\u003c/script>\u003cscript>alert(1)\u003c/script>"}"#
        );
    }
}
