//! Resolution of every event route × selected target through the host matrix: native event,
//! matcher, timeout, deadline, decoder, encoder, fallback, failure mode and payload budget, and
//! what the author must be told
//! (ARCHITECTURE §5). Entry: [`resolve`]; `check` turns its findings into diagnostics, `build`
//! writes its bindings, `inspect --hooks` prints its rows.
//!
//! Invariant: the runtime's `deadlineMs` is always below the timeout written into the host's
//! hook document (and below a budget the host shares between hooks), so the hook client answers
//! before the host gives up on it. Nothing here branches on a host name.

use abgen_runtime::manifest::{HookBinding, HookFailure, HookFallback, HookTables};
use serde::Serialize;
use serde_json::{Map, Value};

use super::data::{EventRow, HooksRow, HostMatrix, MatcherSource, SupportState};
use super::matcher::{ToolMatcher, file_matcher, tool_matcher};
use crate::diagnostics::Code;

/// One event route as resolution reads it.
#[derive(Clone, Copy, Debug)]
pub struct EventRoute<'a> {
    pub id: &'a str,
    /// Project-relative path of the module.
    pub source: &'a str,
    /// The canonical event (`tool/after`).
    pub event: &'a str,
    pub config: &'a Map<String, Value>,
    /// The module renders `<Agent.Deny>`.
    pub denies: bool,
}

/// One row of `abgen inspect --hooks`: a route on one host.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookRow {
    pub route: String,
    pub host: String,
    /// `supported`, `degraded`, `unavailable`, `prohibited`, `excluded` (the route's `targets`)
    /// or `no-tool` (its selectors name no tool of the host).
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub native_event: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_sec: Option<u64>,
    /// How the guard fails (`open`, `closed`), on a registered event that can deny.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// Something the author must know about a route on a host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub route: String,
    pub source: String,
    pub code: Code,
    pub message: String,
    pub recovery: String,
}

/// Every route × target, resolved.
#[derive(Debug, Default)]
pub struct Resolution {
    /// Sorted by route, then host.
    pub rows: Vec<HookRow>,
    /// Host → bindings sorted by canonical event; a host without bindings is absent.
    pub bindings: HookTables,
    /// In route order; errors among them mean nothing may be built.
    pub findings: Vec<Finding>,
}

/// Resolves every route of `routes` on every host of `targets` (matrix rows).
pub fn resolve(routes: &[EventRoute<'_>], targets: &[&HostMatrix]) -> Resolution {
    let mut sorted: Vec<&EventRoute<'_>> = routes.iter().collect();
    sorted.sort_by(|a, b| a.id.cmp(b.id));
    let mut hosts: Vec<&HostMatrix> = targets.to_vec();
    hosts.sort_by(|a, b| a.host.cmp(&b.host));
    hosts.dedup_by(|a, b| a.host == b.host);
    let mut resolution = Resolution::default();
    for route in sorted {
        if delivery_is_deferred(route.config) {
            resolution.findings.push(finding(
                route,
                Code::AB5202,
                format!(
                    "`{}` asks for `delivery: ['deferred']`, which no host supports yet",
                    route.id
                ),
                "Remove `delivery` or write `delivery: ['immediate']`.",
            ));
            continue;
        }
        let mut registered = 0;
        let mut can_deny = false;
        for host in &hosts {
            if let Some(denies) = resolve_on_host(route, host, &mut resolution) {
                registered += 1;
                can_deny |= denies;
            }
        }
        // `failure: 'closed'` is judged per host (in `resolve_on_host`); `'open'` is what every
        // host does anyway, so it is only wrong where the route can deny nowhere.
        if registered > 0 && !can_deny && failure_mode(route.config) == Some(HookFailure::Open) {
            resolution.findings.push(finding(
                route,
                Code::AB5205,
                format!(
                    "`{}` sets `failure: 'open'`, but no target can refuse anything on `{}`, so there is no guard to fail",
                    route.id, route.event
                ),
                "Remove `failure`; it applies to events that can deny, such as tool/before.",
            ));
        }
    }
    for bindings in resolution.bindings.values_mut() {
        bindings.sort_by(|a, b| a.event.cmp(&b.event).then_with(|| a.routes.cmp(&b.routes)));
    }
    resolution
}

/// Resolves `route` on `host`; `Some(can deny)` when it is registered there.
fn resolve_on_host(
    route: &EventRoute<'_>,
    host: &HostMatrix,
    resolution: &mut Resolution,
) -> Option<bool> {
    let mut row = HookRow {
        route: route.id.to_owned(),
        host: host.host.clone(),
        state: String::new(),
        native_event: None,
        matcher: None,
        reason: None,
        deadline_ms: None,
        timeout_sec: None,
        failure: None,
    };
    if !targets_host(route.config, &host.host) {
        row.state = "excluded".into();
        row.reason = Some(format!("the route's `targets` leave {} out", host.host));
        resolution.rows.push(row);
        return None;
    }
    let event_row = host.event(route.event);
    let (event_row, hooks) = match (event_row, &host.hooks) {
        (Some(event_row), Some(hooks)) if event_row.state.emits() => (event_row, hooks),
        _ => {
            let state = event_row.map_or(SupportState::Unavailable, |row| row.state);
            let reason = event_row
                .and_then(|row| row.reason.clone())
                .unwrap_or_else(|| format!("{} runs no plugin hooks", host.display_name));
            resolution.findings.push(finding(
                route,
                Code::AB4824,
                format!(
                    "`{}` handles `{}`, which {} cannot deliver ({}): {reason}",
                    route.id,
                    route.event,
                    host.display_name,
                    state.as_str()
                ),
                &format!(
                    "Add `targets` to the route without `{}`, or remove `{}` from the project's targets.",
                    host.host, host.host
                ),
            ));
            row.state = state.as_str().into();
            row.reason = Some(reason);
            resolution.rows.push(row);
            return None;
        }
    };
    row.state = event_row.state.as_str().into();
    row.native_event = event_row.native.clone();
    row.reason = event_row.reason.clone();
    let matcher = match resolve_matcher(host, event_row, route) {
        Ok(ToolMatcher::Everything) => None,
        Ok(ToolMatcher::Pattern(matcher)) => Some(matcher),
        Ok(ToolMatcher::NotOnThisHost) => {
            resolution.findings.push(finding(
                route,
                Code::AB5204,
                format!(
                    "`{}` selects no tool that {} reports to hooks, so it is not registered there",
                    route.id, host.display_name
                ),
                &format!(
                    "Add a selector {} reports, or add `targets` to the route without `{}`.",
                    host.display_name, host.host
                ),
            ));
            row.state = "no-tool".into();
            resolution.rows.push(row);
            return None;
        }
        Err(file) => {
            resolution.findings.push(finding(
                route,
                Code::AB4824,
                format!(
                    "`{}` lists the file name `{file}`, which {} cannot match (it is empty or contains `|`)",
                    route.id, host.display_name
                ),
                "List plain file names.",
            ));
            row.state = "unavailable".into();
            resolution.rows.push(row);
            return None;
        }
    };
    if event_row.state == SupportState::Degraded {
        resolution.findings.push(finding(
            route,
            Code::AB5200,
            format!(
                "`{}` on {}: {}",
                route.id,
                host.display_name,
                event_row.reason.as_deref().unwrap_or("a degraded delivery")
            ),
            &format!(
                "Nothing to do if that is enough; otherwise add `targets` to the route without `{}`.",
                host.host
            ),
        ));
    }
    if route.denies && !event_row.deny {
        resolution.findings.push(finding(
            route,
            Code::AB5201,
            format!(
                "`{}` renders <Agent.Deny>, but {} cannot refuse anything on `{}`; the deny is dropped there",
                route.id, host.display_name, route.event
            ),
            "Render <Agent.Context> or <Agent.Notice> for this host instead.",
        ));
    }
    let (timeout_sec, deadline_ms) = timing(hooks, event_row, route.config);
    let fallback = match route.config.get("fallback").and_then(Value::as_str) {
        Some("standalone") => HookFallback::Standalone,
        _ => HookFallback::None,
    };
    if fallback == HookFallback::Standalone && deadline_ms < hooks.cold_worker_ms {
        resolution.findings.push(finding(
            route,
            Code::AB5203,
            format!(
                "`{}` falls back to a standalone worker, but {} gives `{}` {deadline_ms} ms, less than the {} ms a cold worker needs",
                route.id, host.display_name, route.event, hooks.cold_worker_ms
            ),
            "Write `fallback: 'none'`, or add `targets` to the route without this host.",
        ));
    }
    if fallback == HookFallback::None && event_row.before_mcp {
        resolution.findings.push(finding(
            route,
            Code::AB5206,
            format!(
                "`{}` has no fallback (`fallback: 'none'`), but {} fires `{}` ({}) before it starts the plugin's MCP servers: no warm runtime is up to render it then, so there the hook answers nothing",
                route.id,
                host.display_name,
                route.event,
                event_row.native.as_deref().unwrap_or("its native event"),
            ),
            &format!(
                "Write `fallback: 'standalone'` so a worker started for the delivery renders it, or add `targets` to the route without `{}`.",
                host.host
            ),
        ));
    }
    let failure = failure_mode(route.config).unwrap_or_default();
    if failure == HookFailure::Closed && !event_row.deny {
        resolution.findings.push(finding(
            route,
            Code::AB5205,
            format!(
                "`{}` sets `failure: 'closed'`, but {} cannot refuse anything on `{}`: a failed hook there lets the action proceed",
                route.id, host.display_name, route.event
            ),
            &format!(
                "Add `targets` to the route without `{}`, or remove `failure`.",
                host.host
            ),
        ));
    }
    row.matcher = matcher.clone();
    row.deadline_ms = Some(deadline_ms);
    row.timeout_sec = Some(timeout_sec);
    row.failure = event_row.deny.then(|| failure.as_str().to_owned());
    resolution.rows.push(row);
    let binding = HookBinding {
        native_event: event_row.native.clone().unwrap_or_default(),
        matcher,
        routes: vec![route.id.to_owned()],
        event: route.event.to_owned(),
        deadline_ms,
        timeout_sec,
        decoder: event_row.decoder.clone().unwrap_or_default(),
        encoder: event_row.encoder.clone().unwrap_or_default(),
        fallback,
        cold_worker_ms: (fallback == HookFallback::Standalone).then_some(hooks.cold_worker_ms),
        failure,
        payload_max_bytes: Some(hooks.payload_max_bytes),
        payload_max_depth: Some(hooks.payload_max_depth),
    };
    resolution
        .bindings
        .entry(host.host.clone())
        .or_default()
        .push(binding);
    Some(event_row.deny)
}

/// The route's `failure` option, when it is one of the two modes (anything else is AB5316).
fn failure_mode(config: &Map<String, Value>) -> Option<HookFailure> {
    match config.get("failure").and_then(Value::as_str) {
        Some("open") => Some(HookFailure::Open),
        Some("closed") => Some(HookFailure::Closed),
        _ => None,
    }
}

fn finding(route: &EventRoute<'_>, code: Code, message: String, recovery: &str) -> Finding {
    Finding {
        route: route.id.to_owned(),
        source: route.source.to_owned(),
        code,
        message,
        recovery: recovery.to_owned(),
    }
}

/// The route's `targets` allows `host` (absent = every host).
pub fn targets_host(config: &Map<String, Value>, host: &str) -> bool {
    match config.get("targets") {
        Some(Value::Array(targets)) => targets.iter().any(|target| target.as_str() == Some(host)),
        _ => true,
    }
}

fn delivery_is_deferred(config: &Map<String, Value>) -> bool {
    string_list(config, "delivery").contains(&"deferred")
}

/// A string-array option (`tools`, `files`), ignoring entries that are not strings.
pub fn string_list<'a>(config: &'a Map<String, Value>, key: &str) -> Vec<&'a str> {
    match config.get(key) {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The host timeout in whole seconds (the route's `timeoutMs` rounded up, or the host default,
/// clamped to the event's maximum) and the runtime deadline kept under it and any shared budget.
pub fn timing(hooks: &HooksRow, row: &EventRow, config: &Map<String, Value>) -> (u64, u64) {
    let requested_ms = config
        .get("timeoutMs")
        .and_then(Value::as_u64)
        .filter(|ms| *ms > 0);
    let mut timeout_sec = requested_ms.map_or(hooks.default_timeout_sec, |ms| ms.div_ceil(1000));
    if let Some(max) = row.max_timeout_sec {
        timeout_sec = timeout_sec.min(max);
    }
    let mut deadline_ms = (timeout_sec * 1000).saturating_sub(hooks.exit_margin_ms);
    if let Some(requested_ms) = requested_ms {
        deadline_ms = deadline_ms.min(requested_ms);
    }
    if let Some(budget_ms) = row.budget_ms {
        deadline_ms = deadline_ms.min(budget_ms.saturating_sub(hooks.exit_margin_ms));
    }
    (timeout_sec, deadline_ms.max(1))
}

/// The matcher of `route` on `host`; `Err` names a file name the host cannot match.
fn resolve_matcher(
    host: &HostMatrix,
    row: &EventRow,
    route: &EventRoute<'_>,
) -> Result<ToolMatcher, String> {
    match row.matcher {
        MatcherSource::None => Ok(ToolMatcher::Everything),
        MatcherSource::Fixed => Ok(row
            .fixed_matcher
            .clone()
            .map_or(ToolMatcher::Everything, ToolMatcher::Pattern)),
        MatcherSource::Files => file_matcher(&string_list(route.config, "files")),
        MatcherSource::Tools => Ok(tool_matcher(host, &string_list(route.config, "tools"))),
    }
}

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod tests;
