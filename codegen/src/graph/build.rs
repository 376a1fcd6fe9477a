//! Building the route graph from loaded modules and the config: ids, duplicate identities,
//! server modes, App URIs, layout scopes and provider keys.
//!
//! Entry call: [`build_graph`]. Invariant: the graph holds only modules with a valid, unique
//! identity; every module left out is explained by a diagnostic (or by an explicit opt-out such
//! as a non-generated server mode).

use std::collections::{BTreeMap, BTreeSet};

use super::ids::{Identity, RouteIdentity, identify};
use super::model::{
    FormName, LayoutNode, PlainScriptNode, PluginIdentity, ProviderNode, RouteGraph, RouteKind,
    RouteNode, RouteSchemas, ServerModeState, ServerNode, ToolCliProjection,
};
use crate::diagnostics::{Code, Diagnostic, Location, Span};
use crate::extract::RouteForm;
use crate::project::config::escape_pointer;
use crate::project::{LoadedModule, ProjectConfig, ServerMode};

/// The output of [`build_graph`].
#[derive(Debug)]
pub struct GraphReturn {
    pub graph: RouteGraph,
    pub diagnostics: Vec<Diagnostic>,
}

/// Derives the route graph of `modules` (in path order) under `config`.
pub fn build_graph(config: &ProjectConfig, modules: &[LoadedModule]) -> GraphReturn {
    let mut diagnostics = Vec::new();
    let mut entries: BTreeMap<String, &LoadedModule> = BTreeMap::new();
    let mut owners: BTreeMap<String, &LoadedModule> = BTreeMap::new();
    // Sized up front: most modules are routes, and each growth would copy them all again.
    let mut unique: Vec<(&LoadedModule, Identity)> = Vec::with_capacity(modules.len());
    let mut projections: Vec<(&LoadedModule, String)> = Vec::new();
    for module in modules {
        let (identity, found) = identify(&module.source.path, &module.source.kind);
        // A path problem is about the whole module: point at its definition when known.
        diagnostics.extend(found.into_iter().map(|d| d.at(module_location(module))));
        let Some(identity) = identity else { continue };
        let id = match &identity {
            Identity::ServerEntry { server } => {
                entries.entry(server.clone()).or_insert(module);
                continue;
            }
            Identity::ToolCli { tool } => {
                projections.push((module, tool.clone()));
                continue;
            }
            Identity::Route(RouteIdentity { id, .. })
            | Identity::Layout { id, .. }
            | Identity::Provider { id, .. }
            | Identity::PlainScript { id, .. } => id,
        };
        if let Some(first) = owners.get(id) {
            diagnostics.push(duplicate_identity(&identity, id, first, module));
            continue;
        }
        owners.insert(id.clone(), module);
        unique.push((module, identity));
    }

    let servers = resolve_servers(config, &unique, &entries, &mut diagnostics);
    check_unserved(config, &servers, &entries, &mut diagnostics);
    let serves_routes = |server: &str| {
        servers.iter().any(|s| {
            s.id == server
                && matches!(
                    s.mode,
                    ServerModeState::Generated | ServerModeState::Conflict
                )
        })
    };
    let mut routes = Vec::with_capacity(unique.len());
    let mut layouts = Vec::new();
    let mut providers = Vec::new();
    let mut plain_scripts = Vec::new();
    for (module, identity) in &unique {
        match identity {
            Identity::Route(RouteIdentity {
                server: Some(server),
                ..
            }) if !serves_routes(server) => {}
            Identity::Route(route) => routes.push(route_node(module, route)),
            Identity::Layout { id, server } => {
                let has_routes = server
                    .as_deref()
                    .is_none_or(|server| has_rendered_routes(&unique, server));
                if !has_routes {
                    diagnostics.push(layout_without_routes(
                        module,
                        server.as_deref().unwrap_or_default(),
                    ));
                } else if server.as_deref().is_none_or(serves_routes) {
                    layouts.push(LayoutNode {
                        id: id.clone(),
                        path: module.source.path.clone(),
                    });
                }
            }
            Identity::Provider { id, key } => {
                providers.push((
                    *module,
                    ProviderNode {
                        id: id.clone(),
                        key: key.clone(),
                        path: module.source.path.clone(),
                    },
                ));
            }
            Identity::PlainScript { name, .. } => plain_scripts.push(PlainScriptNode {
                name: name.clone(),
                path: module.source.path.clone(),
            }),
            Identity::ServerEntry { .. } | Identity::ToolCli { .. } => {}
        }
    }
    attach_projections(&mut routes, &projections, &mut diagnostics);
    check_app_uris(&routes, modules, &mut diagnostics);
    let providers = check_provider_keys(providers, &mut diagnostics);

    routes.sort_by(|a, b| a.id.cmp(&b.id));
    layouts.sort_by(|a, b| a.id.cmp(&b.id));
    let graph = RouteGraph {
        plugin: PluginIdentity {
            name: config.plugin.name.clone(),
            version: config.plugin.version.clone(),
        },
        targets: config.targets.clone(),
        servers,
        routes,
        layouts,
        providers,
        plain_scripts,
    };
    GraphReturn { graph, diagnostics }
}

/// One node per server owning route modules, with its mode (reference §1.4).
fn resolve_servers(
    config: &ProjectConfig,
    unique: &[(&LoadedModule, Identity)],
    entries: &BTreeMap<String, &LoadedModule>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<ServerNode> {
    let mut owned: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (_, identity) in unique {
        if let Identity::Route(RouteIdentity {
            id,
            server: Some(server),
            ..
        }) = identity
        {
            owned.entry(server).or_default().push(id.clone());
        }
    }
    let mut servers = Vec::new();
    for (server, mut routes) in owned {
        let mode = match config.route_servers.get(server) {
            Some(ServerMode::Generated) => ServerModeState::Generated,
            Some(ServerMode::Custom) => ServerModeState::Custom,
            Some(ServerMode::Command) => ServerModeState::Command,
            Some(ServerMode::Remote) => ServerModeState::Remote,
            None => match entry_claim(config, entries, server) {
                Some((claim, location)) => {
                    diagnostics.push(
                        Diagnostic::new(
                            Code::AB4800,
                            format!("server `{server}` has route modules and {claim}, and no explicit mode"),
                            format!(
                                "set `routes: {{ servers: {{ {server}: 'generated' }} }}` to compile the routes, or 'custom', 'command' or 'remote' to keep {claim}"
                            ),
                        )
                        .at(location),
                    );
                    ServerModeState::Conflict
                }
                None => ServerModeState::Generated,
            },
        };
        if !matches!(mode, ServerModeState::Generated | ServerModeState::Conflict) {
            routes.clear();
        }
        routes.sort();
        servers.push(ServerNode {
            id: server.to_owned(),
            mode,
            routes,
        });
    }
    servers
}

/// Servers nothing would serve, and entry modules nothing builds: a declared server with no
/// `entry`, `command` or `url`, no routes and no `src/mcp/<id>.ts` is AB4304; so is a server
/// whose routes a non-generated mode hands to an entry that does not exist. A `src/mcp/<id>.ts`
/// entry that something else serves instead (an explicit 'generated', a declared `entry`,
/// `command` or `url`) is AB4733; beside routes without a mode it is AB4800's conflict.
fn check_unserved(
    config: &ProjectConfig,
    servers: &[ServerNode],
    entries: &BTreeMap<String, &LoadedModule>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for (server, module) in entries {
        let mode = servers
            .iter()
            .find(|node| &node.id == server)
            .map(|node| node.mode);
        let explicit_generated = mode == Some(ServerModeState::Generated)
            && config.route_servers.get(server) == Some(&ServerMode::Generated);
        let declared = config
            .mcp_servers
            .get(server)
            .and_then(|declared| declared.entry_claim());
        let shadowed_by = if explicit_generated {
            Some(format!(
                "`routes.servers.{server}` is 'generated', so the server's routes serve it"
            ))
        } else if mode == Some(ServerModeState::Conflict) {
            // AB4800 already names the entry as one side of the conflict.
            None
        } else {
            declared.map(|key| format!("`mcp.servers.{server}.{key}` launches the server"))
        };
        if let Some(why) = shadowed_by {
            diagnostics.push(
                Diagnostic::new(
                    Code::AB4733,
                    format!("`{}` is not built: {why}", module.source.path),
                    format!(
                        "delete `{}` or rename it with a leading `_`",
                        module.source.path
                    ),
                )
                .at(module_location(module)),
            );
        }
    }
    check_beside_generated(config, servers, diagnostics);
    let mut unserved: Vec<(&str, String, Option<Location>)> = Vec::new();
    for (id, declared) in &config.mcp_servers {
        let has_routes = servers.iter().any(|node| &node.id == id);
        // A server declaring `apps` is generated for them; an App left out says why itself.
        let declares_apps = declared.declaration.contains_key("apps");
        if !has_routes
            && !declares_apps
            && declared.entry_claim().is_none()
            && !entries.contains_key(id)
        {
            unserved.push((
                id,
                format!("`mcp.servers.{id}` declares no `entry`, `command` or `url`, and there is no `src/mcp/{id}.ts`"),
                config.location(&declared.pointer),
            ));
        }
    }
    for node in servers {
        let handed_off = matches!(
            node.mode,
            ServerModeState::Custom | ServerModeState::Command | ServerModeState::Remote
        );
        if handed_off && entry_claim(config, entries, &node.id).is_none() {
            let mode = config
                .route_servers
                .get(&node.id)
                .map_or("", |mode| mode.as_str());
            unserved.push((
                &node.id,
                format!(
                    "`routes.servers.{}` is '{mode}', so its routes are not compiled, but nothing declares what serves it",
                    node.id
                ),
                config.location(&format!("/routes/servers/{}", escape_pointer(&node.id))),
            ));
        }
    }
    for (id, message, location) in unserved {
        let diagnostic = Diagnostic::new(
            Code::AB4304,
            message,
            format!(
                "declare `entry`, `command` or `url` in `mcp.servers.{id}`, or add routes under `src/mcp/{id}/`"
            ),
        )
        .with_note("without one, no host document would launch the server");
        diagnostics.push(match location {
            Some(location) => diagnostic.at(location),
            None => diagnostic,
        });
    }
}

/// A declaration beside a generated server augments it (`args`, `env`, `targets`); what would
/// launch it another way is refused: `entry`, `command` or `url` under an explicit 'generated'
/// (AB4340; without the explicit mode it is AB4800), a `transport` other than stdio (AB4308), a
/// `cwd` (AB4309: the generated server runs from the plugin root) and `headers` (AB4310).
fn check_beside_generated(
    config: &ProjectConfig,
    servers: &[ServerNode],
    diagnostics: &mut Vec<Diagnostic>,
) {
    for node in servers
        .iter()
        .filter(|node| node.mode == ServerModeState::Generated)
    {
        let Some(declared) = config.mcp_servers.get(&node.id) else {
            continue;
        };
        let id = &node.id;
        let mut report = |code: Code, key: &str, message: String, recovery: String| {
            let diagnostic = Diagnostic::new(code, message, recovery).with_note(
                "a declaration beside a generated server adds `args`, `env` and `targets` to it",
            );
            diagnostics.push(
                match config.location(&format!("{}/{key}", declared.pointer)) {
                    Some(location) => diagnostic.at(location),
                    None => diagnostic,
                },
            );
        };
        if let Some(claim) = declared.entry_claim() {
            report(
                Code::AB4340,
                claim,
                format!(
                    "`mcp.servers.{id}.{claim}` redeclares how `{id}` is launched, but `routes.servers.{id}` is 'generated'"
                ),
                format!(
                    "remove `{claim}`, or set `routes.servers.{id}` to 'custom', 'command' or 'remote' to keep it"
                ),
            );
        }
        if let Some(transport) = declared.transport.as_deref().filter(|t| *t != "stdio") {
            report(
                Code::AB4308,
                "transport",
                format!(
                    "`mcp.servers.{id}.transport` is '{transport}', but the generated server `{id}` speaks stdio"
                ),
                "remove `transport`".to_owned(),
            );
        }
        if declared.cwd.is_some() {
            report(
                Code::AB4309,
                "cwd",
                format!(
                    "`mcp.servers.{id}.cwd` would move the generated server `{id}` out of the plugin root"
                ),
                "remove `cwd`; resolve paths against `AGENT_BUNDLE_PLUGIN_ROOT` instead".to_owned(),
            );
        }
        if !declared.headers.is_empty() {
            report(
                Code::AB4310,
                "headers",
                format!(
                    "`mcp.servers.{id}` declares `headers` beside the generated stdio server `{id}`"
                ),
                "remove `headers`; pass values to the server through `env`".to_owned(),
            );
        }
    }
}

/// What claims `server` besides its routes: a `src/mcp/<server>.ts` entry module or a declared
/// `entry`/`command`/`url`, with where that claim is written.
fn entry_claim(
    config: &ProjectConfig,
    entries: &BTreeMap<String, &LoadedModule>,
    server: &str,
) -> Option<(String, Location)> {
    if let Some(entry) = entries.get(server) {
        return Some((
            format!("the entry module `{}`", entry.source.path),
            module_location(entry),
        ));
    }
    let declared = config.mcp_servers.get(server)?;
    let key = declared.entry_claim()?;
    let pointer = format!("/mcp/servers/{}/{key}", escape_pointer(server));
    let location = config.location(&pointer)?;
    Some((format!("a declared `mcp.servers.{server}.{key}`"), location))
}

/// Whether `server` has a tool, resource or prompt module (an App alone renders no layout).
fn has_rendered_routes(unique: &[(&LoadedModule, Identity)], server: &str) -> bool {
    unique.iter().any(|(_, identity)| {
        matches!(identity, Identity::Route(RouteIdentity { kind: RouteKind::Tool | RouteKind::Resource | RouteKind::Prompt, server: Some(s), .. }) if s == server)
    })
}

fn route_node(module: &LoadedModule, route: &RouteIdentity) -> RouteNode {
    let RouteIdentity {
        id,
        kind,
        server,
        name,
        event,
    } = route;
    let extracted = &module.extracted;
    let is_mcp = server.is_some();
    RouteNode {
        id: id.clone(),
        kind: *kind,
        path: module.source.path.clone(),
        server: server.clone(),
        name: name.clone(),
        wire_name: if is_mcp { name.clone() } else { None },
        event: event.clone(),
        form: extracted.form.as_ref().map(|form| match form {
            RouteForm::DefineTool => FormName::DefineTool,
            RouteForm::DefineEvent { .. } => FormName::DefineEvent,
            RouteForm::ConfigExport => FormName::ConfigExport,
        }),
        config: extracted.config.clone(),
        schemas: RouteSchemas {
            input: extracted.input_presence,
            result: extracted.result_presence,
        },
        cli_projection: None,
    }
}

/// Pairs each `<tool>.cli.ts` with its sibling tool; one without a served tool, or a second
/// one for a tool (`.ts` beside `.tsx`), is AB4840.
fn attach_projections(
    routes: &mut [RouteNode],
    projections: &[(&LoadedModule, String)],
    diagnostics: &mut Vec<Diagnostic>,
) {
    for (module, tool) in projections {
        let path = &module.source.path;
        let Some(route) = routes.iter_mut().find(|route| &route.id == tool) else {
            diagnostics.push(
                Diagnostic::new(
                    Code::AB4840,
                    format!("`{path}` projects `{tool}`, which is no tool of a generated server"),
                    "name it after a sibling tool (`<tool>.cli.ts` beside `<tool>.tsx`), or rename it with a leading `_`",
                )
                .at(module_location(module)),
            );
            continue;
        };
        if let Some(first) = &route.cli_projection {
            diagnostics.push(
                Diagnostic::new(
                    Code::AB4840,
                    format!("`{path}` and `{}` both project `{tool}`", first.path),
                    "keep one of them",
                )
                .at(module_location(module)),
            );
            continue;
        }
        route.cli_projection = Some(ToolCliProjection {
            path: path.clone(),
            config: module.extracted.config.as_ref().clone(),
        });
    }
}

/// AB4829: two Apps of one server with one `config.resourceUri`.
fn check_app_uris(
    routes: &[RouteNode],
    modules: &[LoadedModule],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut seen: BTreeMap<(&str, &str), &RouteNode> = BTreeMap::new();
    for route in routes.iter().filter(|route| route.kind == RouteKind::App) {
        let (Some(server), Some(uri)) = (
            route.server.as_deref(),
            route.config.get("resourceUri").and_then(|v| v.as_str()),
        ) else {
            continue;
        };
        let Some(first) = seen.get(&(server, uri)) else {
            seen.insert((server, uri), route);
            continue;
        };
        let module = modules.iter().find(|m| m.source.path == route.path);
        let location = module
            .and_then(|m| m.extracted.config_locations.get("/resourceUri").cloned())
            .or_else(|| module.map(module_location))
            .unwrap_or_else(|| Location::file(&route.path));
        diagnostics.push(
            Diagnostic::new(
                Code::AB4829,
                format!(
                    "`{}` and `{}` share the resource URI `{uri}`",
                    route.id, first.id
                ),
                "give each App of a server its own `resourceUri`",
            )
            .at(location)
            .with_note(format!(
                "the host fetches an App by its URI, so `{}` would never be shown",
                route.id
            )),
        );
    }
}

/// AB4941 (one key, two providers) and AB4942 (the reserved key); the kept providers, by id.
fn check_provider_keys(
    providers: Vec<(&LoadedModule, ProviderNode)>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<ProviderNode> {
    let mut kept: Vec<ProviderNode> = Vec::new();
    let mut keys = BTreeSet::new();
    for (module, provider) in providers {
        if provider.key == "processLifetime" {
            diagnostics.push(
                Diagnostic::new(
                    Code::AB4942,
                    format!(
                        "provider `{}` has the reserved key `processLifetime`",
                        provider.path
                    ),
                    "rename the file; `processLifetime` is the worker's own provider",
                )
                .at(module_location(module)),
            );
        } else if !keys.insert(provider.key.clone()) {
            let first = kept
                .iter()
                .find(|p| p.key == provider.key)
                .map_or("", |p| p.path.as_str());
            diagnostics.push(
                Diagnostic::new(
                    Code::AB4941,
                    format!(
                        "`{}` and `{first}` both have the provider key `{}`",
                        provider.path, provider.key
                    ),
                    "rename one of the files so their camelCase stems differ",
                )
                .at(module_location(module)),
            );
        } else {
            kept.push(provider);
        }
    }
    kept.sort_by(|a, b| a.id.cmp(&b.id));
    kept
}

fn duplicate_identity(
    identity: &Identity,
    id: &str,
    first: &LoadedModule,
    module: &LoadedModule,
) -> Diagnostic {
    let (first, second) = (&first.source.path, &module.source.path);
    let diagnostic = if let Identity::Layout { .. } = identity {
        Diagnostic::new(
            Code::AB4831,
            format!("`{second}` and `{first}` are both the layout `{id}`"),
            "keep one layout module per scope",
        )
    } else {
        Diagnostic::new(
            Code::AB4802,
            format!("`{second}` and `{first}` both derive the id `{id}`"),
            "delete or rename one of them, or prefix one with `_` to opt it out",
        )
    };
    diagnostic.at(module_location(module))
}

fn layout_without_routes(module: &LoadedModule, server: &str) -> Diagnostic {
    Diagnostic::new(
        Code::AB4832,
        format!(
            "`{}` is a layout for server `{server}`, which has no tool, resource or prompt routes",
            module.source.path
        ),
        format!("add routes under `src/mcp/{server}/`, or delete the layout"),
    )
    .at(module_location(module))
}

/// Where a diagnostic about a whole module points: the start of its definition when extraction
/// found one (a point, not the whole call, so the excerpt stays one line), else the file's start.
pub fn module_location(module: &LoadedModule) -> Location {
    let definition = module
        .extracted
        .definition_location
        .clone()
        .map(|mut location| {
            location.span = location.span.map(|span| Span::new(span.start, span.start));
            location
        });
    definition.unwrap_or_else(|| Location {
        line: Some(1),
        column: Some(1),
        ..Location::file(&module.source.path)
    })
}
