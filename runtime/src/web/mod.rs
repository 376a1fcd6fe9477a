//! `abgen-host web`: the plugin's own browser host for its MCP Apps, no framework on the machine.
//!
//! Entry: [`select`] (which App, which opening tool) then [`serve`]. The host runs the plugin's
//! MCP server in this process ([`session::McpSession`], the same `McpServer` and kernel as
//! `abgen-host mcp`), calls the opening tool once, and serves two loopback origins
//! ([`http`]): the host page (`host.html`: the MCP Apps host side — handshake, host context,
//! opening notifications, relay, consent) and a sandbox origin on another port whose proxy page
//! (`sandbox.html`) holds the App document in an inner frame, as MCP Apps requires of web hosts.
//! The page relays the App's requests to the server through `POST /api/mcp` on its own origin.
//!
//! Invariants: both servers bind 127.0.0.1 only and answer only their own loopback `Host`
//! (DNS rebinding); the relay answers only the host page (its origin and its per-run token) and
//! only the methods an App may send; every frame message is checked for its exact source window
//! and origin in the page and in the proxy; the App reaches the server through the relay alone.

mod http;
mod session;

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::kernel::SharedKernel;
use crate::manifest::{Manifest, Route, RouteKind, WebApp};
use crate::mcp::{HEARTBEAT, Log, START_ALLOWANCE, ServerConfig};

pub use session::McpSession;

/// A capability an App uses only with the user's consent in the host page (or `--allow`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Capability {
    /// `tools/call`: the App calls a tool of its server.
    CallTool,
    /// `ui/download-file`: the App hands the user a file.
    DownloadFile,
    /// `ui/open-link`: the App opens a page outside the host.
    OpenExternalLink,
    /// `ui/request-display-mode`: the App asks to change how it is shown.
    RequestDisplayMode,
}

/// The App to open and its opening call.
#[derive(Debug, Clone)]
pub struct Selection {
    pub server: String,
    /// The App's wire name, its `<name>` in `mcp-apps/<name>.html`.
    pub app: String,
    pub resource_uri: String,
    /// The opening tool's wire name.
    pub tool: String,
}

/// A selection the command line got wrong (a usage error): the message says what to write.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct SelectError(pub String);

/// The App `selector` (`<server>/<app>`, or the only App) and its opening tool (`tool`, or the
/// only tool of the server that links the App through `_meta.ui.resourceUri`).
pub fn select(
    manifest: &Manifest,
    selector: Option<&str>,
    tool: Option<&str>,
) -> Result<Selection, SelectError> {
    let apps: Vec<(&Route, String)> = manifest
        .routes
        .iter()
        .filter(|route| route.kind == RouteKind::App)
        .filter_map(|route| Some((route, app_name(route)?)))
        .collect();
    let names = || {
        apps.iter()
            .map(|(_, name)| name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    // The config's `web` narrows the default to the Apps it exposes.
    let exposed: Vec<&str> = manifest
        .web
        .iter()
        .flat_map(|web| web.apps.iter().map(|entry| entry.app.as_str()))
        .collect();
    let (app, name) = match selector {
        Some(selector) => apps
            .iter()
            .find(|(_, name)| name == selector)
            .ok_or_else(|| {
                SelectError(if apps.is_empty() {
                    format!("no App `{selector}`: this artifact has no MCP Apps")
                } else {
                    format!("no App `{selector}`; this artifact's Apps: {}", names())
                })
            })?,
        None if !exposed.is_empty() => match exposed.as_slice() {
            [only] => apps.iter().find(|(_, name)| name == only).ok_or_else(|| {
                SelectError(format!("the exposed App `{only}` is not in this artifact"))
            })?,
            several => {
                return Err(SelectError(format!(
                    "this artifact exposes several MCP Apps; name one as <server>/<app>: {}",
                    several.join(", ")
                )));
            }
        },
        None => match apps.as_slice() {
            [only] => only,
            [] => return Err(SelectError("this artifact has no MCP Apps".into())),
            _ => {
                return Err(SelectError(format!(
                    "this artifact has several MCP Apps; name one as <server>/<app>: {}",
                    names()
                )));
            }
        },
    };
    let server = app.server.clone().unwrap_or_default();
    let resource_uri = app
        .config
        .get("resourceUri")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let tools: Vec<&Route> = manifest
        .routes
        .iter()
        .filter(|route| route.kind == RouteKind::Tool && route.server.as_deref() == Some(&server))
        .collect();
    let wire = |route: &Route| route.wire_name.clone().unwrap_or_default();
    let configured = manifest
        .web
        .iter()
        .flat_map(|web| &web.apps)
        .find(|entry| &entry.app == name)
        .and_then(|entry| entry.tool.as_deref());
    let tool = match tool.or(configured) {
        Some(tool) => tools
            .iter()
            .find(|route| route.wire_name.as_deref() == Some(tool))
            .map(|route| wire(route))
            .ok_or_else(|| {
                SelectError(format!(
                    "no tool `{tool}` on the server `{server}`; its tools: {}",
                    tools
                        .iter()
                        .map(|route| wire(route))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?,
        None => {
            let linked: Vec<&&Route> = tools
                .iter()
                .filter(|route| linked_uri(route) == Some(resource_uri.as_str()))
                .collect();
            match linked.as_slice() {
                [only] => wire(only),
                [] => {
                    return Err(SelectError(format!(
                        "no tool of the server `{server}` links the App `{name}` \
                         (`_meta.ui.resourceUri: '{resource_uri}'`); name the opening tool with --tool"
                    )));
                }
                _ => {
                    return Err(SelectError(format!(
                        "several tools link the App `{name}`; name the opening tool with --tool: {}",
                        linked
                            .iter()
                            .map(|route| wire(route))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
            }
        }
    };
    Ok(Selection {
        server,
        app: app.wire_name.clone().unwrap_or_default(),
        resource_uri,
        tool,
    })
}

/// The config's `web` entry of the selected App, if the config lists it.
pub fn exposed<'m>(manifest: &'m Manifest, selection: &Selection) -> Option<&'m WebApp> {
    let name = format!("{}/{}", selection.server, selection.app);
    manifest
        .web
        .as_ref()?
        .apps
        .iter()
        .find(|entry| entry.app == name)
}

/// The tools of `server` whose `_meta.ui.visibility` leaves the App out (MCP Apps: a tool is
/// visible to both the model and the App unless that list says otherwise).
fn model_only_tools(manifest: &Manifest, server: &str) -> Vec<String> {
    manifest
        .routes
        .iter()
        .filter(|route| route.kind == RouteKind::Tool && route.server.as_deref() == Some(server))
        .filter(|route| {
            route
                .config
                .get("_meta")
                .and_then(|meta| meta.get("ui"))
                .and_then(|ui| ui.get("visibility"))
                .and_then(Value::as_array)
                .is_some_and(|visibility| !visibility.iter().any(|who| who == "app"))
        })
        .filter_map(|route| route.wire_name.clone())
        .collect()
}

/// `<server>/<app>`, the name an App is selected by.
fn app_name(route: &Route) -> Option<String> {
    Some(format!(
        "{}/{}",
        route.server.as_deref()?,
        route.wire_name.as_deref()?
    ))
}

/// The App a tool opens: `_meta.ui.resourceUri`, or the deprecated flat `_meta["ui/resourceUri"]`.
fn linked_uri(route: &Route) -> Option<&str> {
    let meta = route.config.get("_meta")?;
    meta.get("ui")
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| meta.get("ui/resourceUri"))
        .and_then(Value::as_str)
}

/// How to serve the selected App.
#[derive(Debug, Clone)]
pub struct WebOptions {
    pub artifact: PathBuf,
    pub manifest: Manifest,
    pub selection: Selection,
    /// The opening call's arguments.
    pub input: Map<String, Value>,
    /// Capabilities granted without asking.
    pub allow: Vec<Capability>,
    /// The host page's port (0: any free one).
    pub port: u16,
}

/// Where the host is reachable, as `--json` prints it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WebAddress {
    /// `<server>/<app>`.
    pub app: String,
    pub server: String,
    pub tool: String,
    pub url: String,
    pub port: u16,
    pub resource_uri: String,
    pub sandbox_origin: String,
}

/// Starts the server, reads the App's document, calls the opening tool once and serves the host
/// until the process is ended by a signal; `ready` hears the addresses first. Returns only when
/// the host cannot start, with why.
pub fn serve(
    options: WebOptions,
    log: Log,
    ready: impl FnOnce(&WebAddress),
) -> Result<Infallible, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|error| format!("cannot start the host's runtime: {error}"))?;
    // As many workers as `abgen-host mcp` starts, and at least two: an App's call that holds
    // (a long tool, one the App will cancel) must not keep its next call from running.
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .max(MIN_WORKERS);
    let kernel = Arc::new(SharedKernel::for_artifact(
        options.artifact.clone(),
        options.manifest.digest.clone(),
        options.selection.server.clone(),
        options.manifest.limits.render.max_bytes,
        workers,
        START_ALLOWANCE,
    ));
    let config = ServerConfig {
        artifact: options.artifact.clone(),
        manifest: options.manifest.clone(),
        server: options.selection.server.clone(),
        max_message_bytes: crate::mcp::DEFAULT_MAX_MESSAGE_BYTES,
        heartbeat: HEARTBEAT,
    };
    let session = McpSession::start(config, kernel, Arc::clone(&log))
        .map_err(|error| format!("cannot start the MCP server: {error}"))?;
    let session = Arc::new(session);
    runtime.block_on(async move {
        session.initialize().await?;
        let opening = opening_state(&session, &options).await?;
        let host = bind(options.port).await?;
        let sandbox = bind(0).await?;
        let host_port = port_of(&host)?;
        let sandbox_port = port_of(&sandbox)?;
        let address = WebAddress {
            app: format!("{}/{}", options.selection.server, options.selection.app),
            server: options.selection.server.clone(),
            tool: options.selection.tool.clone(),
            url: format!("http://127.0.0.1:{host_port}/"),
            port: host_port,
            resource_uri: options.selection.resource_uri.clone(),
            sandbox_origin: format!("http://127.0.0.1:{sandbox_port}"),
        };
        let state = http::HostState::new(&address, opening, options.allow.clone(), session);
        ready(&address);
        http::serve(host, sandbox, state, log)
            .await
            .map_err(|error| format!("the host stopped serving: {error}"))
    })
}

/// The largest App document the host serves (seed 002: 2 MiB, the bound above which App hosts
/// refuse the resource). A base64 `blob` is judged by its encoded length.
const MAX_APP_DOCUMENT_BYTES: usize = 2 * 1024 * 1024;
/// The fewest render workers the host starts (see [`serve`]).
const MIN_WORKERS: usize = 2;

/// What the host page starts from: the opening tool's definition, its call's arguments and
/// result (a failed call as an `isError` result saying why), and the App resource's `_meta.ui`.
pub(crate) struct Opening {
    /// The server's tools an App may not call (`_meta.ui.visibility` without `"app"`).
    pub model_only: Vec<String>,
    pub tool: Value,
    pub input: Map<String, Value>,
    pub result: Value,
    pub ui: Value,
}

async fn opening_state(session: &McpSession, options: &WebOptions) -> Result<Opening, String> {
    let selection = &options.selection;
    // The document is read first: without one there is nothing to open.
    let read = session
        .request(
            "resources/read",
            json!({"uri": selection.resource_uri}),
            None,
        )
        .await
        .map_err(|error| {
            format!(
                "cannot read the App {}/{} at {}: {}",
                selection.server,
                selection.app,
                selection.resource_uri,
                session::describe(&error)
            )
        })?;
    let content = &read["contents"][0];
    let Some(document) = content["text"]
        .as_str()
        .or_else(|| content["blob"].as_str())
    else {
        return Err(format!(
            "the App at {} read as no HTML document: {read}",
            selection.resource_uri
        ));
    };
    if document.len() > MAX_APP_DOCUMENT_BYTES {
        return Err(format!(
            "the App at {} is {} bytes, over the {MAX_APP_DOCUMENT_BYTES}-byte bound App hosts \
             accept; build it with the production profile, or make it smaller",
            selection.resource_uri,
            document.len()
        ));
    }
    let ui = content["_meta"]["ui"].clone();
    let tools = session
        .request("tools/list", json!({}), None)
        .await
        .map_err(|error| {
            format!(
                "cannot list the server's tools: {}",
                session::describe(&error)
            )
        })?;
    let tool = tools["tools"]
        .as_array()
        .and_then(|tools| {
            tools
                .iter()
                .find(|tool| tool["name"] == selection.tool.as_str())
        })
        .cloned()
        .ok_or_else(|| format!("the server does not list the tool `{}`", selection.tool))?;
    let result = session
        .request(
            "tools/call",
            json!({"name": selection.tool, "arguments": options.input}),
            None,
        )
        .await
        .unwrap_or_else(|error| {
            json!({
                "content": [{"type": "text", "text": session::describe(&error)}],
                "isError": true,
            })
        });
    Ok(Opening {
        model_only: model_only_tools(&options.manifest, &selection.server),
        tool,
        input: options.input.clone(),
        result,
        ui,
    })
}

async fn bind(port: u16) -> Result<tokio::net::TcpListener, String> {
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    tokio::net::TcpListener::bind(address)
        .await
        .map_err(|error| format!("cannot listen on {address}: {error}"))
}

fn port_of(listener: &tokio::net::TcpListener) -> Result<u16, String> {
    listener
        .local_addr()
        .map(|address| address.port())
        .map_err(|error: io::Error| format!("cannot read the bound port: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curator() -> Manifest {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/manifests/curator.json"
        );
        crate::manifest::read_manifest(std::path::Path::new(path)).expect("the curator manifest")
    }

    fn app(manifest: &Manifest) -> Route {
        manifest
            .routes
            .iter()
            .find(|route| route.kind == RouteKind::App)
            .cloned()
            .expect("the curator has an App")
    }

    #[test]
    fn the_only_app_opens_with_the_only_tool_that_links_it() {
        let selection = select(&curator(), None, None).unwrap();
        assert_eq!(
            (
                selection.server.as_str(),
                selection.app.as_str(),
                selection.resource_uri.as_str(),
                selection.tool.as_str()
            ),
            (
                "library",
                "shelf_viewer",
                "ui://curator/shelf-viewer",
                "show_shelf"
            )
        );
        let named = select(
            &curator(),
            Some("library/shelf_viewer"),
            Some("search_books"),
        )
        .unwrap();
        assert_eq!(named.tool, "search_books");
    }

    #[test]
    fn several_apps_need_a_selector_and_the_error_lists_them() {
        let mut manifest = curator();
        let mut second = app(&manifest);
        second.id = "app:library/cover_wall".into();
        second.wire_name = Some("cover_wall".into());
        manifest.routes.push(second);
        let error = select(&manifest, None, None).unwrap_err();
        assert_eq!(
            error.0,
            "this artifact has several MCP Apps; name one as <server>/<app>: \
             library/shelf_viewer, library/cover_wall"
        );
        assert_eq!(
            select(&manifest, Some("library/cover_wall"), None)
                .unwrap()
                .app,
            "cover_wall"
        );
    }

    #[test]
    fn an_app_no_tool_links_or_several_link_needs_the_tool_named() {
        let mut manifest = curator();
        for route in &mut manifest.routes {
            if route.wire_name.as_deref() == Some("search_books") {
                route.config.insert(
                    "_meta".into(),
                    json!({"ui/resourceUri": "ui://curator/shelf-viewer"}),
                );
            }
        }
        let several = select(&manifest, None, None).unwrap_err();
        assert_eq!(
            several.0,
            "several tools link the App `library/shelf_viewer`; name the opening tool with \
             --tool: search_books, show_shelf"
        );
        for route in &mut manifest.routes {
            route.config.remove("_meta");
        }
        let none = select(&manifest, None, None).unwrap_err();
        assert!(
            none.0
                .starts_with("no tool of the server `library` links the App"),
            "{none}"
        );
    }

    #[test]
    fn the_config_web_names_the_default_app_and_its_opening_call() {
        let mut manifest = curator();
        let mut second = app(&manifest);
        second.id = "app:library/cover_wall".into();
        second.wire_name = Some("cover_wall".into());
        manifest.routes.push(second);
        manifest.web = Some(crate::manifest::Web {
            apps: vec![WebApp {
                app: "library/cover_wall".into(),
                tool: Some("search_books".into()),
                input: Some(Map::from_iter([("query".to_owned(), json!("le guin"))])),
                allow: vec!["call-tool".into()],
            }],
            open: crate::manifest::WebOpen::Browser,
        });
        let selection = select(&manifest, None, None).unwrap();
        assert_eq!(
            (selection.app.as_str(), selection.tool.as_str()),
            ("cover_wall", "search_books")
        );
        let entry = exposed(&manifest, &selection).unwrap();
        assert_eq!(entry.input.as_ref().unwrap()["query"], "le guin");
        // The command line still wins, and an App the config does not list is still openable.
        let named = select(&manifest, Some("library/shelf_viewer"), None).unwrap();
        assert_eq!(named.tool, "show_shelf");
        assert!(exposed(&manifest, &named).is_none());
    }

    #[test]
    fn a_tool_visible_to_the_model_only_is_not_the_apps_to_call() {
        let mut manifest = curator();
        for route in &mut manifest.routes {
            match route.wire_name.as_deref() {
                Some("shelve_book") => {
                    route
                        .config
                        .insert("_meta".into(), json!({"ui": {"visibility": ["model"]}}));
                }
                Some("search_books") => {
                    route.config.insert(
                        "_meta".into(),
                        json!({"ui": {"visibility": ["model", "app"]}}),
                    );
                }
                _ => {}
            }
        }
        assert_eq!(model_only_tools(&manifest, "library"), ["shelve_book"]);
    }
}
