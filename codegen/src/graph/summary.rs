//! The human view of a route graph for `abgen inspect`: servers with their routes and wire
//! names, events, layouts and providers.
//!
//! Entry calls: [`render_summary`] (the overview) and [`render_routes`] (one line per route).
//! Invariant: the text is derived from the graph (and, for what a tool's model reads, the hosts'
//! facts the caller passes) and ordered as the graph is.

use std::fmt::Write;

use super::model::{RouteGraph, RouteKind, ServerModeState};

/// The overview: identity and targets, then each section that is not empty.
pub fn render_summary(graph: &RouteGraph) -> String {
    let mut out = String::new();
    let version = graph
        .plugin
        .version
        .as_deref()
        .map_or(String::new(), |v| format!(" {v}"));
    let targets: Vec<&str> = graph.targets.iter().map(|t| t.as_str()).collect();
    let _ = writeln!(
        out,
        "Plugin {}{version} for {}",
        graph.plugin.name,
        targets.join(", ")
    );
    for server in &graph.servers {
        let _ = writeln!(out, "\nServer {} ({})", server.id, mode_label(server.mode));
        if server.routes.is_empty() {
            let _ = writeln!(out, "  routes served by the server itself, not compiled");
        }
        let width = server
            .routes
            .iter()
            .filter_map(|id| graph.route(id))
            .map(|r| wire(r).len())
            .max();
        for route in server.routes.iter().filter_map(|id| graph.route(id)) {
            let _ = writeln!(
                out,
                "  {:<8} {:<width$}  {}",
                route.kind.as_str(),
                wire(route),
                route.path,
                width = width.unwrap_or(0)
            );
        }
    }
    let events: Vec<_> = graph
        .routes
        .iter()
        .filter(|r| r.kind == RouteKind::Event)
        .collect();
    section(
        &mut out,
        "Events",
        events
            .iter()
            .map(|r| (r.event.as_deref().unwrap_or_default(), r.path.as_str())),
    );
    section(
        &mut out,
        "Layouts",
        graph
            .layouts
            .iter()
            .map(|l| (l.id.as_str(), l.path.as_str())),
    );
    section(
        &mut out,
        "Providers",
        graph
            .providers
            .iter()
            .map(|p| (p.key.as_str(), p.path.as_str())),
    );
    out
}

/// What one selected host hands its model from a tool result with a structured value
/// (`structured` or `content`, the host matrix's `model_reads`).
pub struct HostModelReads<'a> {
    pub target: &'a str,
    pub reads: &'a str,
}

/// One line per route: id, wire name (MCP routes) and path, aligned; for a tool, what its model
/// reads of a result: its `model` choice, or per host what `hosts` say each hands its model from
/// a structured value — for a tool `structured` says has one (an object result).
pub fn render_routes(
    graph: &RouteGraph,
    hosts: &[HostModelReads<'_>],
    structured: &dyn Fn(&str) -> bool,
) -> String {
    let id_width = graph.routes.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let wire_width = graph
        .routes
        .iter()
        .map(|r| wire(r).len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    let path_width = graph.routes.iter().map(|r| r.path.len()).max().unwrap_or(0);
    for route in &graph.routes {
        let model = match route.kind {
            RouteKind::Tool if structured(&route.id) => model_reads(route, hosts),
            // No structured value: every host hands its model the content.
            RouteKind::Tool => "model: content".to_owned(),
            _ => String::new(),
        };
        let line = format!(
            "{:<id_width$}  {:<wire_width$}  {:<path_width$}  {model}",
            route.id,
            wire(route),
            route.path
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// `model: content`, or `model: structured on claude, codex; content on cursor` by host.
fn model_reads(route: &super::RouteNode, hosts: &[HostModelReads<'_>]) -> String {
    if let Some(choice) = route.config.get("model").and_then(|model| model.as_str()) {
        return format!("model: {choice}");
    }
    let mut views: Vec<(&str, Vec<&str>)> = Vec::new();
    for host in hosts {
        match views.iter_mut().find(|(reads, _)| *reads == host.reads) {
            Some((_, targets)) => targets.push(host.target),
            None => views.push((host.reads, vec![host.target])),
        }
    }
    let by_host: Vec<String> = views
        .iter()
        .map(|(reads, targets)| format!("{reads} on {}", targets.join(", ")))
        .collect();
    format!("model: {}", by_host.join("; "))
}

fn wire(route: &super::RouteNode) -> &str {
    route.wire_name.as_deref().unwrap_or("")
}

fn mode_label(mode: ServerModeState) -> &'static str {
    match mode {
        ServerModeState::Generated => "generated",
        ServerModeState::Custom => "custom",
        ServerModeState::Command => "command",
        ServerModeState::Remote => "remote",
        ServerModeState::Conflict => "mode conflict, see AB4800",
    }
}

fn section<'a>(out: &mut String, title: &str, rows: impl Iterator<Item = (&'a str, &'a str)>) {
    let rows: Vec<_> = rows.collect();
    if rows.is_empty() {
        return;
    }
    let width = rows.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    let _ = writeln!(out, "\n{title}");
    for (name, path) in rows {
        let _ = writeln!(out, "  {name:<width$}  {path}");
    }
}
