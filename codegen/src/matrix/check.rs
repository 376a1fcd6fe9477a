//! The matrix stage inside `abgen check`: every event route × selected target resolved, each
//! finding as a diagnostic at the route's module. Entry: [`check_hooks`].
//!
//! A route whose module already has an error is not resolved: its config may be what the error
//! is about, and a second diagnostic about the same mistake only adds noise.

use std::collections::{BTreeMap, BTreeSet};

use super::data::{HostMatrix, host};
use super::resolve::{EventRoute, Resolution, resolve};
use crate::diagnostics::{Code, Diagnostic, Location};
use crate::extract::ExtractedModule;
use crate::graph::{RouteGraph, RouteKind};

/// What marks a module as one that can refuse: the deny element of `@agent-bundle/runtime`.
const DENY_ELEMENT: &str = "<Agent.Deny";

/// The event routes of `graph` as resolution reads them, skipping modules in `skip`.
pub fn event_routes<'g>(
    graph: &'g RouteGraph,
    sources: &BTreeMap<String, String>,
    skip: &BTreeSet<&str>,
) -> Vec<EventRoute<'g>> {
    graph
        .routes
        .iter()
        .filter(|route| route.kind == RouteKind::Event && !skip.contains(route.path.as_str()))
        .filter_map(|route| {
            Some(EventRoute {
                id: &route.id,
                source: &route.path,
                event: route.event.as_deref()?,
                config: &route.config,
                denies: sources
                    .get(&route.path)
                    .is_some_and(|text| text.contains(DENY_ELEMENT)),
            })
        })
        .collect()
}

/// The matrix rows of the graph's targets (unknown names are the config's AB4100).
pub fn target_matrices(graph: &RouteGraph) -> Vec<&'static HostMatrix> {
    graph
        .targets
        .iter()
        .filter_map(|target| host(target.as_str()))
        .collect()
}

/// Resolves the graph's event routes on its targets, skipping modules with `earlier` errors.
pub fn resolve_graph(
    graph: &RouteGraph,
    sources: &BTreeMap<String, String>,
    earlier: &[Diagnostic],
) -> Resolution {
    let skip: BTreeSet<&str> = earlier
        .iter()
        .filter(|diagnostic| diagnostic.is_error())
        .filter_map(|diagnostic| diagnostic.location.as_ref())
        .map(|location| location.file.as_str())
        .collect();
    resolve(
        &event_routes(graph, sources, &skip),
        &target_matrices(graph),
    )
}

/// The diagnostics of resolving `graph` (see [`resolve_graph`]), each at the config value it is
/// about or else at the route's definition; `modules` are the extracted route modules by path.
pub fn check_hooks(
    graph: &RouteGraph,
    sources: &BTreeMap<String, String>,
    modules: &BTreeMap<&str, &ExtractedModule>,
    earlier: &[Diagnostic],
) -> Vec<Diagnostic> {
    resolve_graph(graph, sources, earlier)
        .findings
        .into_iter()
        .map(|finding| {
            let location = modules
                .get(finding.source.as_str())
                .and_then(|module| finding_location(module, finding.code, sources))
                .unwrap_or_else(|| Location::file(&finding.source));
            Diagnostic::new(finding.code, finding.message, finding.recovery).at(location)
        })
        .collect()
}

/// Where a finding points: the config value it judges, else the callee of the route's
/// definition (`events.workspace.open`), which names the event without the handler's body.
fn finding_location(
    module: &ExtractedModule,
    code: Code,
    sources: &BTreeMap<String, String>,
) -> Option<Location> {
    let pointer = match code {
        Code::AB5202 => Some("/delivery"),
        Code::AB5203 => Some("/fallback"),
        Code::AB5204 => Some("/tools"),
        Code::AB5205 => Some("/failure"),
        _ => None,
    };
    if let Some(location) = pointer.and_then(|pointer| module.config_locations.get(pointer)) {
        return Some(location.clone());
    }
    let mut location = module.definition_location.clone()?;
    if let (Some(span), Some(text)) = (location.span.as_mut(), sources.get(&module.path)) {
        let call = text
            .get(span.start as usize..span.end as usize)
            .unwrap_or_default();
        if let Some(open) = call.find('(') {
            span.end = span.start + open as u32;
        }
    }
    Some(location)
}
