use abgen_runtime::manifest::{HookBinding, HookFailure, HookFallback};
use serde_json::{Map, Value, json};

use super::{EventRoute, Resolution, resolve};
use crate::diagnostics::Code;
use crate::matrix::data::{HostMatrix, host};

struct Route {
    id: String,
    event: String,
    config: Map<String, Value>,
    denies: bool,
}

fn route(event: &str, config: Value) -> Route {
    Route {
        id: format!("event:{event}"),
        event: event.to_owned(),
        config: config.as_object().cloned().unwrap_or_default(),
        denies: false,
    }
}

fn run(routes: &[Route], targets: &[&str]) -> Resolution {
    let views: Vec<EventRoute<'_>> = routes
        .iter()
        .map(|route| EventRoute {
            id: &route.id,
            source: "src/events/x.tsx",
            event: &route.event,
            config: &route.config,
            denies: route.denies,
        })
        .collect();
    let hosts: Vec<&HostMatrix> = targets.iter().map(|name| host(name).unwrap()).collect();
    resolve(&views, &hosts)
}

fn bindings(resolution: &Resolution, host: &str) -> Vec<HookBinding> {
    resolution.bindings.get(host).cloned().unwrap_or_default()
}

fn codes(resolution: &Resolution) -> Vec<Code> {
    resolution
        .findings
        .iter()
        .map(|finding| finding.code)
        .collect()
}

fn matcher_on(host_name: &str, tools: Value) -> Option<String> {
    let resolution = run(
        &[route("tool/before", json!({ "tools": tools }))],
        &[host_name],
    );
    bindings(&resolution, host_name).remove(0).matcher
}

#[test]
fn maps_canonical_events_to_each_hosts_native_events() {
    let routes: Vec<Route> = ["session/start", "tool/before", "stop", "prompt/submit"]
        .into_iter()
        .map(|event| route(event, json!({ "fallback": "standalone" })))
        .collect();
    let resolution = run(&routes, &["cursor", "claude", "codex"]);
    let natives = |host: &str| -> Vec<String> {
        bindings(&resolution, host)
            .into_iter()
            .map(|binding| binding.native_event)
            .collect()
    };
    assert_eq!(
        natives("claude"),
        ["UserPromptSubmit", "SessionStart", "Stop", "PreToolUse"]
    );
    assert_eq!(
        natives("codex"),
        ["UserPromptSubmit", "SessionStart", "Stop", "PreToolUse"]
    );
    assert_eq!(
        natives("cursor"),
        ["beforeSubmitPrompt", "sessionStart", "stop", "preToolUse"]
    );
    // Codex's PreToolUse and Cursor's beforeSubmitPrompt are degraded: one warning each.
    assert_eq!(codes(&resolution), [Code::AB5200, Code::AB5200]);
}

#[test]
fn selectors_become_each_hosts_tool_names() {
    assert_eq!(matcher_on("claude", json!(["shell"])), Some("Bash".into()));
    assert_eq!(matcher_on("cursor", json!(["shell"])), Some("Shell".into()));
    assert_eq!(
        matcher_on("codex", json!(["file.write", "shell", "file.write"])),
        Some("apply_patch|Edit|Write|Bash".into())
    );
    assert_eq!(
        matcher_on(
            "claude",
            json!(["claude:NotebookEdit", "codex:apply_patch"])
        ),
        Some("NotebookEdit".into())
    );
    assert_eq!(
        matcher_on("claude", json!(["shell", "file.read", "mcp"])),
        Some("^(?:Bash|Read)$|^mcp__".into())
    );
    assert_eq!(matcher_on("cursor", json!(["mcp"])), Some("^MCP:".into()));
    assert_eq!(
        matcher_on("claude", json!(["claude:my.tool"])),
        Some("^my\\.tool$".into())
    );
    assert_eq!(matcher_on("claude", json!([])), None);
}

#[test]
fn a_route_whose_tools_a_host_never_reports_is_left_out_there_with_a_warning() {
    let resolution = run(
        &[route(
            "permission/request",
            json!({ "tools": ["file.read"] }),
        )],
        &["claude", "codex"],
    );
    assert_eq!(bindings(&resolution, "claude").len(), 1);
    assert!(bindings(&resolution, "codex").is_empty());
    assert_eq!(codes(&resolution), [Code::AB5204]);
}

#[test]
fn timeouts_round_up_clamp_to_the_host_maximum_and_deadlines_stay_under_them() {
    let routes = [
        route("tool/after", json!({ "timeoutMs": 2500 })),
        route("stop", json!({})),
        route("session/end", json!({ "timeoutMs": 5000 })),
    ];
    let resolution = run(&routes, &["claude", "codex"]);
    let timing = |host: &str| -> Vec<(String, u64, u64)> {
        bindings(&resolution, host)
            .into_iter()
            .map(|binding| (binding.event, binding.timeout_sec, binding.deadline_ms))
            .collect()
    };
    let owned = |rows: [(&str, u64, u64); 3]| rows.map(|(e, s, m)| (e.to_owned(), s, m));
    // Claude: SessionEnd's shared 1.5 s budget caps the deadline whatever the timeout says.
    assert_eq!(
        timing("claude"),
        owned([
            ("session/end", 5, 1250),
            ("stop", 10, 9750),
            ("tool/after", 3, 2500)
        ])
    );
    // Codex clamps SessionEnd to 3 s.
    assert_eq!(
        timing("codex"),
        owned([
            ("session/end", 3, 2750),
            ("stop", 10, 9750),
            ("tool/after", 3, 2500)
        ])
    );
}

#[test]
fn unavailable_events_are_refused_unless_the_route_excludes_the_host() {
    let refused = run(&[route("turn/interrupt", json!({}))], &["claude", "codex"]);
    assert_eq!(codes(&refused), [Code::AB4824]);
    assert!(refused.findings[0].message.contains("Claude Code"));
    assert_eq!(bindings(&refused, "codex")[0].native_event, "Interrupt");

    let excluded = run(
        &[route("turn/interrupt", json!({ "targets": ["codex"] }))],
        &["claude", "codex"],
    );
    assert!(excluded.findings.is_empty());
    let states: Vec<&str> = excluded.rows.iter().map(|row| row.state.as_str()).collect();
    assert_eq!(states, ["excluded", "supported"]);

    let portable = run(&[route("stop", json!({}))], &["portable"]);
    assert_eq!(codes(&portable), [Code::AB4824]);
}

#[test]
fn deferred_delivery_a_slow_fallback_and_an_impossible_deny_are_reported() {
    let deferred = run(
        &[route("stop", json!({ "delivery": ["deferred"] }))],
        &["claude"],
    );
    assert_eq!(codes(&deferred), [Code::AB5202]);
    assert!(deferred.bindings.is_empty());

    let end = route("session/end", json!({ "fallback": "standalone" }));
    assert_eq!(codes(&run(&[end], &["claude"])), [Code::AB5203]);
    let end = route("session/end", json!({ "fallback": "standalone" }));
    assert!(run(&[end], &["codex"]).findings.is_empty());

    let mut start = route("session/start", json!({ "fallback": "standalone" }));
    start.denies = true;
    assert_eq!(codes(&run(&[start], &["claude"])), [Code::AB5201]);
}

#[test]
fn degraded_events_keep_their_fixed_matchers_and_fallbacks() {
    let routes = [
        route("workspace/open", json!({ "fallback": "standalone" })),
        route(
            "file/saved",
            json!({ "files": ["package.json", "tsconfig.json"] }),
        ),
    ];
    let resolution = run(&routes, &["claude", "codex"]);
    let claude = bindings(&resolution, "claude");
    assert_eq!(
        (
            claude[0].native_event.as_str(),
            claude[0].matcher.as_deref()
        ),
        ("FileChanged", Some("package.json|tsconfig.json"))
    );
    assert_eq!(
        (
            claude[1].native_event.as_str(),
            claude[1].matcher.as_deref()
        ),
        ("SessionStart", Some("startup"))
    );
    assert_eq!(claude[1].fallback, HookFallback::Standalone);
    let codex = bindings(&resolution, "codex");
    assert_eq!(codex[0].matcher.as_deref(), Some("apply_patch"));
    // workspace/open on Claude and Codex, file/saved on Codex.
    assert_eq!(
        codes(&resolution),
        [Code::AB5200, Code::AB5200, Code::AB5200]
    );
}

#[test]
fn the_order_of_routes_and_targets_never_changes_the_result() {
    let mut routes = vec![route("stop", json!({})), route("session/start", json!({}))];
    let forward = run(&routes, &["claude", "codex", "cursor"]);
    routes.reverse();
    let backward = run(&routes, &["cursor", "codex", "claude"]);
    assert_eq!(forward.bindings, backward.bindings);
    assert_eq!(forward.rows, backward.rows);
}

#[test]
fn a_guards_failure_mode_and_payload_budget_reach_every_binding() {
    let guard = route(
        "tool/before",
        json!({ "tools": ["shell"], "failure": "closed", "fallback": "standalone" }),
    );
    let resolution = run(&[guard], &["claude", "codex", "cursor"]);
    // Codex delivers tool/before degraded (AB5200); nothing about the failure mode.
    assert_eq!(codes(&resolution), [Code::AB5200]);
    for host_name in ["claude", "codex", "cursor"] {
        let binding = bindings(&resolution, host_name).remove(0);
        let hooks = host(host_name).unwrap().hooks.as_ref().unwrap();
        assert_eq!(binding.failure, HookFailure::Closed, "{host_name}");
        assert_eq!(binding.cold_worker_ms, Some(hooks.cold_worker_ms));
        assert_eq!(binding.payload_max_bytes, Some(hooks.payload_max_bytes));
        assert_eq!(binding.payload_max_depth, Some(hooks.payload_max_depth));
    }
    assert!(
        resolution
            .rows
            .iter()
            .all(|row| row.failure.as_deref() == Some("closed"))
    );
    // Without a standalone fallback no time is kept back from the warm attempt; open is the
    // default and shows as such.
    let plain = run(&[route("stop", json!({}))], &["claude"]);
    let binding = bindings(&plain, "claude").remove(0);
    assert_eq!(
        (binding.cold_worker_ms, binding.failure),
        (None, HookFailure::Open)
    );
    assert_eq!(plain.rows[0].failure.as_deref(), Some("open"));
}

#[test]
fn a_failure_mode_where_nothing_can_be_denied_is_an_error() {
    // Cursor's postToolUse takes no deny: closed cannot hold there, but it can on Claude.
    let after = route("tool/after", json!({ "failure": "closed" }));
    let resolution = run(&[after], &["claude", "cursor"]);
    assert_eq!(codes(&resolution), [Code::AB5205]);
    assert!(resolution.findings[0].message.contains("Cursor"));
    let after = route("tool/after", json!({ "failure": "open" }));
    assert!(run(&[after], &["claude", "cursor"]).findings.is_empty());
    // No host can refuse a session start, so neither mode means anything there.
    for mode in ["open", "closed"] {
        let start = route(
            "session/start",
            json!({ "failure": mode, "fallback": "standalone" }),
        );
        let resolution = run(&[start], &["claude", "codex"]);
        assert!(
            codes(&resolution).iter().all(|code| *code == Code::AB5205),
            "{mode}"
        );
        assert!(!resolution.findings.is_empty(), "{mode}");
        assert!(resolution.rows.iter().all(|row| row.failure.is_none()));
    }
}

#[test]
fn no_fallback_on_an_event_fired_before_the_mcp_servers_is_a_warning() {
    // Every host that runs hooks fires its session start before it starts the MCP servers.
    for fallback in [json!({}), json!({ "fallback": "none" })] {
        let start = route("session/start", fallback);
        let resolution = run(&[start], &["claude", "codex", "cursor"]);
        assert_eq!(
            codes(&resolution),
            [Code::AB5206, Code::AB5206, Code::AB5206]
        );
        assert!(resolution.findings[0].message.contains("before it starts"));
        // The hook is still emitted: once the MCP server runs (a resumed session) it answers.
        assert_eq!(bindings(&resolution, "claude").len(), 1);
    }
    let start = route("session/start", json!({ "fallback": "standalone" }));
    assert!(
        run(&[start], &["claude", "codex", "cursor"])
            .findings
            .is_empty()
    );
    // A stop arrives while the session's MCP server runs: no fallback is a choice there.
    let stop = route("stop", json!({ "fallback": "none" }));
    assert!(
        run(&[stop], &["claude", "codex", "cursor"])
            .findings
            .is_empty()
    );
}
