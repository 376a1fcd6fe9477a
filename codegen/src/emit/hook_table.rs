//! Resolves a project's event routes against one host table into the manifest's hook bindings:
//! native event, matcher, timeout, deadline, decoder, encoder and fallback. Entry:
//! [`resolve_hooks`].
//!
//! Invariant: the runtime's `deadlineMs` is always below the timeout written into the host's
//! hook document (and below a budget the host shares between hooks), so the hook client answers
//! before the host gives up on it.

use abgen_runtime::manifest::{HookBinding, HookFallback, RouteKind};

use super::error::EmitError;
use super::hosts::{EventRow, HostTable, MatcherSource, NativeTools, Support};
use super::input::EmitRoute;

/// The bindings of one host plus what the author should know about them.
#[derive(Debug, Default)]
pub struct HookResolution {
    /// Sorted by canonical event.
    pub bindings: Vec<HookBinding>,
    /// Degraded deliveries and routes left out on this host, as one-line messages.
    pub warnings: Vec<String>,
}

/// Binds every event route of `routes` that targets `host`.
pub fn resolve_hooks(host: &HostTable, routes: &[EmitRoute]) -> Result<HookResolution, EmitError> {
    let mut resolution = HookResolution::default();
    let mut event_routes: Vec<&EmitRoute> = routes
        .iter()
        .filter(|route| route.kind == RouteKind::Event && route.targets_host(host.name))
        .collect();
    event_routes.sort_by(|a, b| a.id.cmp(&b.id));
    for route in event_routes {
        let event = route.event.as_deref().unwrap_or_default();
        let unsupported = |reason: &str| EmitError::UnsupportedEvent {
            route: route.id.clone(),
            event: event.to_owned(),
            host: host.name,
            reason: reason.to_owned(),
        };
        let row = host
            .event(event)
            .ok_or_else(|| unsupported("the host table has no row for it"))?;
        match row.support {
            Support::Supported => {}
            Support::Degraded { reason } => {
                resolution
                    .warnings
                    .push(format!("`{}` on {}: {reason}", route.id, host.name));
            }
            Support::Unavailable { reason } => return Err(unsupported(reason)),
        }
        let matcher = match resolve_matcher(host, row, route)? {
            Matcher::Everything => None,
            Matcher::Pattern(matcher) => Some(matcher),
            Matcher::NotOnThisHost => {
                resolution.warnings.push(format!(
                    "`{}` selects no {} tool, so it is not registered there",
                    route.id, host.name
                ));
                continue;
            }
        };
        let (timeout_sec, deadline_ms) = timing(host, row, route);
        resolution.bindings.push(HookBinding {
            native_event: row.native_event.to_owned(),
            matcher,
            routes: vec![route.id.clone()],
            event: event.to_owned(),
            deadline_ms,
            timeout_sec,
            decoder: row.decoder.to_owned(),
            encoder: row.encoder.to_owned(),
            fallback: match route
                .config
                .get("fallback")
                .and_then(|value| value.as_str())
            {
                Some("standalone") => HookFallback::Standalone,
                _ => HookFallback::None,
            },
        });
    }
    resolution
        .bindings
        .sort_by(|a, b| a.event.cmp(&b.event).then_with(|| a.routes.cmp(&b.routes)));
    Ok(resolution)
}

/// The host timeout in whole seconds (the route's `timeoutMs` rounded up, or the host default)
/// and the runtime deadline kept under it.
fn timing(host: &HostTable, row: &EventRow, route: &EmitRoute) -> (u64, u64) {
    let requested_ms = route
        .config
        .get("timeoutMs")
        .and_then(|value| value.as_u64())
        .filter(|ms| *ms > 0);
    let timeout_sec = requested_ms.map_or(host.default_timeout_sec, |ms| ms.div_ceil(1000));
    let mut deadline_ms = (timeout_sec * 1000).saturating_sub(host.exit_margin_ms);
    if let Some(requested_ms) = requested_ms {
        deadline_ms = deadline_ms.min(requested_ms);
    }
    if let Some(budget_ms) = row.budget_ms {
        deadline_ms = deadline_ms.min(budget_ms.saturating_sub(host.exit_margin_ms));
    }
    (timeout_sec, deadline_ms.max(1))
}

enum Matcher {
    Everything,
    Pattern(String),
    /// Every selector names another host's tools.
    NotOnThisHost,
}

fn resolve_matcher(
    host: &HostTable,
    row: &EventRow,
    route: &EmitRoute,
) -> Result<Matcher, EmitError> {
    match row.matcher {
        MatcherSource::None => Ok(Matcher::Everything),
        MatcherSource::Fixed(matcher) => Ok(Matcher::Pattern(matcher.to_owned())),
        MatcherSource::FileNames => {
            let files = route.string_list("files");
            if let Some(bad) = files
                .iter()
                .find(|file| file.is_empty() || file.contains('|'))
            {
                return Err(EmitError::InvalidFileName {
                    route: route.id.clone(),
                    file: (*bad).to_owned(),
                });
            }
            Ok(if files.is_empty() {
                Matcher::Everything
            } else {
                Matcher::Pattern(files.join("|"))
            })
        }
        MatcherSource::ToolSelectors => tool_matcher(host, route),
    }
}

/// Joins the native tools of every selector: an exact `A|B` list when every name is plain, a
/// regular expression (`^(?:A|B)$|^mcp__`) otherwise; no matcher when a selector means "any".
fn tool_matcher(host: &HostTable, route: &EmitRoute) -> Result<Matcher, EmitError> {
    let selectors = route.string_list("tools");
    if selectors.is_empty() {
        return Ok(Matcher::Everything);
    }
    let mut names: Vec<&str> = Vec::new();
    let mut patterns: Vec<&str> = Vec::new();
    for selector in selectors {
        // `<host>:<native tool name>` names one host's tool; other hosts' names are skipped here.
        if let Some((target, name)) = selector
            .split_once(':')
            .filter(|(_, name)| !name.is_empty())
        {
            if target == host.name {
                names.push(name);
            }
            continue;
        }
        let tools = host.selector(selector);
        match tools {
            Some(NativeTools::Names(list)) => names.extend(list.iter().copied()),
            Some(NativeTools::Pattern(pattern)) => patterns.push(pattern),
            Some(NativeTools::Any) => return Ok(Matcher::Everything),
            None => {
                return Err(EmitError::UnknownToolSelector {
                    route: route.id.clone(),
                    selector: selector.to_owned(),
                });
            }
        }
    }
    dedup_in_order(&mut names);
    dedup_in_order(&mut patterns);
    if names.is_empty() && patterns.is_empty() {
        return Ok(Matcher::NotOnThisHost);
    }
    let exact = |name: &&str| name.chars().all(host.exact_matcher_chars);
    if patterns.is_empty() && names.iter().all(exact) {
        return Ok(Matcher::Pattern(names.join("|")));
    }
    let mut alternatives: Vec<String> = Vec::new();
    if !names.is_empty() {
        let escaped: Vec<String> = names.iter().map(|name| escape_regex(name)).collect();
        alternatives.push(if escaped.len() == 1 {
            format!("^{}$", escaped[0])
        } else {
            format!("^(?:{})$", escaped.join("|"))
        });
    }
    alternatives.extend(patterns.iter().map(|pattern| (*pattern).to_owned()));
    Ok(Matcher::Pattern(alternatives.join("|")))
}

fn dedup_in_order(items: &mut Vec<&str>) {
    let mut seen = std::collections::HashSet::new();
    items.retain(|item| seen.insert(*item));
}

/// Escapes the characters that are special in both JavaScript and Rust regular expressions.
fn escape_regex(name: &str) -> String {
    let mut escaped = String::with_capacity(name.len());
    for character in name.chars() {
        if "\\^$.|?*+()[]{}".contains(character) {
            escaped.push('\\');
        }
        escaped.push(character);
    }
    escaped
}

#[cfg(test)]
#[path = "hook_table_tests.rs"]
mod tests;
