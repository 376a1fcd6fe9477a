//! Contracts of event routes: an `events.*` definition names the event of its file path
//! (AB4810), and the config keys of ARCHITECTURE.md §3 are well-formed: `tools` (AB4201,
//! AB4202), `targets` (AB4825), `delivery`, `timeoutMs`, `runtime`, `fallback`, `native`
//! (AB5310–AB5314), `failure` (AB5316); an unknown key is a warning (AB5315).
//!
//! Entry call: [`check_event_route`]. Invariant: values are judged syntactically here; whether a
//! host supports them (`delivery: ['deferred']`, a target's event) is the matrix stage's job.

use serde_json::Value;

use super::CheckContext;
use crate::diagnostics::{Code, Diagnostic};
use crate::extract::definition::event_member_path;
use crate::extract::model::RouteForm;

/// Events that concern one tool call, the only ones a `tools` filter can narrow.
const TOOL_EVENTS: [&str; 5] = [
    "tool/before",
    "tool/after",
    "tool/failure",
    "permission/request",
    "permission/denied",
];
const CANONICAL_SELECTORS: [&str; 5] = ["shell", "file.read", "file.write", "mcp", "agent"];
const SELECTOR_HOSTS: [&str; 3] = ["claude", "codex", "cursor"];
const KNOWN_KEYS: [&str; 8] = [
    "delivery",
    "failure",
    "fallback",
    "native",
    "runtime",
    "targets",
    "timeoutMs",
    "tools",
];

pub fn check_event_route(
    event: &str,
    context: &CheckContext<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    match &context.module.form {
        Some(RouteForm::DefineTool) => diagnostics.push(
            Diagnostic::new(
                Code::AB4810,
                format!("the event route `{event}` is defined with `defineTool`"),
                format!("Define it with `events.{}({{ ... }}, handler)`.", event_member_path(event)),
            )
            .at(context.route_location()),
        ),
        Some(RouteForm::DefineEvent { event: defined }) if !same_event(defined, event) => diagnostics.push(
            Diagnostic::new(
                Code::AB4810,
                format!("the definition declares the event `{defined}` but its path is the event `{event}`"),
                format!(
                    "Call `events.{}` here, or move the file to `src/events/{defined}.ts`.",
                    event_member_path(event)
                ),
            )
            .at(context.route_location()),
        ),
        _ => {}
    }
    if context.config_read() {
        check_keys(event, context, diagnostics);
    }
}

/// `file/change` is agent-bundle's name for `file/saved`; either spelling matches the other.
fn same_event(defined: &str, path_event: &str) -> bool {
    let normal = |event: &str| {
        if event == "file/change" {
            "file/saved".to_owned()
        } else {
            event.to_owned()
        }
    };
    normal(defined) == normal(path_event)
}

fn check_keys(event: &str, context: &CheckContext<'_>, diagnostics: &mut Vec<Diagnostic>) {
    let config = &context.module.config;
    let mut report = |code: Code, key: &str, message: String, recovery: &str| {
        diagnostics.push(
            Diagnostic::new(code, message, recovery).at(context.value_location(&format!("/{key}"))),
        );
    };
    for (key, value) in config.iter() {
        match key.as_str() {
            "tools" if !TOOL_EVENTS.contains(&event) => report(
                Code::AB4201,
                "tools",
                format!(
                    "`tools` filters tool calls, but the event `{event}` does not concern a tool"
                ),
                "Remove `tools`; it applies to tool/before, tool/after, tool/failure, permission/request and permission/denied.",
            ),
            "tools" => check_selectors(value, &mut report),
            "targets" if !non_empty_names(value) => report(
                Code::AB4825,
                "targets",
                "`targets` is not a non-empty array of non-empty target names".to_owned(),
                "Write the hosts this route is for, e.g. `targets: ['claude', 'codex']`, or omit `targets`.",
            ),
            "delivery" if !delivery(value) => report(
                Code::AB5310,
                "delivery",
                "`delivery` is not a non-empty array of `immediate` or `deferred`".to_owned(),
                "Write `delivery: ['immediate']` or omit it.",
            ),
            "timeoutMs" if value.as_u64().is_none_or(|ms| ms == 0) => report(
                Code::AB5311,
                "timeoutMs",
                format!("`timeoutMs` is {}, not a positive integer", describe(value)),
                "Write the deadline in whole milliseconds, e.g. `timeoutMs: 5000`.",
            ),
            "runtime" if !one_of(value, &["shared", "standalone"]) => report(
                Code::AB5312,
                "runtime",
                format!(
                    "`runtime` is {}, not `shared` or `standalone`",
                    describe(value)
                ),
                "Write `runtime: 'shared'` (the warm runtime) or `runtime: 'standalone'`.",
            ),
            "fallback" if !one_of(value, &["none", "standalone"]) => report(
                Code::AB5313,
                "fallback",
                format!(
                    "`fallback` is {}, not `none` or `standalone`",
                    describe(value)
                ),
                "Write `fallback: 'none'` or `fallback: 'standalone'`.",
            ),
            "failure" if !one_of(value, &["open", "closed"]) => report(
                Code::AB5316,
                "failure",
                format!("`failure` is {}, not `open` or `closed`", describe(value)),
                "Write `failure: 'closed'` for a guard that denies when it cannot answer, or `failure: 'open'` (the hosts' default: the action proceeds).",
            ),
            "native"
                if !value
                    .as_array()
                    .is_some_and(|fields| fields.iter().all(Value::is_string)) =>
            {
                report(
                    Code::AB5314,
                    "native",
                    "`native` is not an array of native field names".to_owned(),
                    "List the host fields to pass through, e.g. `native: ['user_email']`.",
                )
            }
            known if KNOWN_KEYS.contains(&known) => {}
            unknown => report(
                Code::AB5315,
                unknown,
                format!("unknown key `{unknown}` in the event route's config"),
                "Remove it or fix its spelling; event routes know tools, delivery, targets, timeoutMs, runtime, fallback, failure and native.",
            ),
        }
    }
}

fn check_selectors<F>(value: &Value, report: &mut F)
where
    F: FnMut(Code, &str, String, &str),
{
    let recovery = "Use `shell`, `file.read`, `file.write`, `mcp`, `agent`, or `<host>:<native tool>` with host claude, codex or cursor.";
    let Some(selectors) = value.as_array() else {
        report(
            Code::AB4202,
            "tools",
            format!("`tools` is {}, not an array of selectors", describe(value)),
            recovery,
        );
        return;
    };
    for (index, selector) in selectors.iter().enumerate() {
        let valid = selector.as_str().is_some_and(valid_selector);
        if !valid {
            let shown = selector
                .as_str()
                .map_or_else(|| describe(selector), |s| format!("`{s}`"));
            report(
                Code::AB4202,
                &format!("tools/{index}"),
                format!("{shown} is not a tool selector"),
                recovery,
            );
        }
    }
}

fn valid_selector(selector: &str) -> bool {
    if CANONICAL_SELECTORS.contains(&selector) {
        return true;
    }
    selector
        .split_once(':')
        .is_some_and(|(host, native)| SELECTOR_HOSTS.contains(&host) && !native.trim().is_empty())
}

fn non_empty_names(value: &Value) -> bool {
    value.as_array().is_some_and(|names| {
        !names.is_empty()
            && names
                .iter()
                .all(|name| name.as_str().is_some_and(|name| !name.trim().is_empty()))
    })
}

fn delivery(value: &Value) -> bool {
    value.as_array().is_some_and(|modes| {
        !modes.is_empty()
            && modes
                .iter()
                .all(|mode| one_of(mode, &["immediate", "deferred"]))
    })
}

fn one_of(value: &Value, allowed: &[&str]) -> bool {
    value.as_str().is_some_and(|value| allowed.contains(&value))
}

/// A value as a message shows it: `'fast'`, `-1`, `an object`.
fn describe(value: &Value) -> String {
    match value {
        Value::String(string) => format!("`'{string}'`"),
        Value::Number(number) => format!("`{number}`"),
        Value::Bool(boolean) => format!("`{boolean}`"),
        Value::Null => "`null`".to_owned(),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}
