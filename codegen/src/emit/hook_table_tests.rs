use abgen_runtime::manifest::{HookFallback, RouteKind};
use serde_json::{Value, json};

use super::resolve_hooks;
use crate::emit::error::EmitError;
use crate::emit::hosts::CLAUDE;
use crate::emit::input::EmitRoute;

fn event_route(event: &str, config: Value) -> EmitRoute {
    EmitRoute {
        id: format!("event:{event}"),
        kind: RouteKind::Event,
        source: format!("src/events/{event}.ts"),
        server: None,
        wire_name: None,
        event: Some(event.to_owned()),
        config: config.as_object().cloned().unwrap_or_default(),
    }
}

fn matcher_of(tools: Value) -> Option<String> {
    let routes = [event_route("tool/after", json!({ "tools": tools }))];
    resolve_hooks(&CLAUDE, &routes)
        .unwrap()
        .bindings
        .remove(0)
        .matcher
}

#[test]
fn maps_canonical_events_to_claude_native_events() {
    let routes: Vec<EmitRoute> = [
        "session/start",
        "tool/before",
        "tool/after",
        "stop",
        "prompt/submit",
        "session/end",
    ]
    .into_iter()
    .map(|event| event_route(event, json!({})))
    .collect();
    let natives: Vec<(String, String)> = resolve_hooks(&CLAUDE, &routes)
        .unwrap()
        .bindings
        .into_iter()
        .map(|binding| (binding.event, binding.native_event))
        .collect();
    let expected = [
        ("prompt/submit", "UserPromptSubmit"),
        ("session/end", "SessionEnd"),
        ("session/start", "SessionStart"),
        ("stop", "Stop"),
        ("tool/after", "PostToolUse"),
        ("tool/before", "PreToolUse"),
    ];
    assert_eq!(natives, expected.map(|(a, b)| (a.to_owned(), b.to_owned())));
}

#[test]
fn plain_tool_names_become_an_exact_list() {
    assert_eq!(matcher_of(json!(["shell"])), Some("Bash".into()));
    assert_eq!(
        matcher_of(json!(["file.write", "shell", "file.write"])),
        Some("Write|Edit|MultiEdit|Bash".into())
    );
    assert_eq!(
        matcher_of(json!(["claude:NotebookEdit", "codex:apply_patch"])),
        Some("NotebookEdit".into())
    );
}

#[test]
fn a_pattern_or_an_unusual_name_turns_the_matcher_into_an_anchored_regex() {
    assert_eq!(matcher_of(json!(["mcp"])), Some("^mcp__".into()));
    assert_eq!(
        matcher_of(json!(["shell", "file.read", "mcp"])),
        Some("^(?:Bash|Read)$|^mcp__".into())
    );
    assert_eq!(
        matcher_of(json!(["claude:my.tool"])),
        Some("^my\\.tool$".into())
    );
}

#[test]
fn no_selectors_or_the_other_selector_match_every_tool() {
    assert_eq!(matcher_of(json!([])), None);
    assert_eq!(matcher_of(json!(["shell", "other"])), None);
}

#[test]
fn a_route_that_selects_only_other_hosts_tools_is_not_registered() {
    let routes = [event_route(
        "tool/before",
        json!({ "tools": ["codex:apply_patch"] }),
    )];
    let resolution = resolve_hooks(&CLAUDE, &routes).unwrap();
    assert!(resolution.bindings.is_empty());
    assert_eq!(resolution.warnings.len(), 1);
}

#[test]
fn an_unknown_selector_is_an_error_naming_it() {
    let routes = [event_route("tool/before", json!({ "tools": ["files"] }))];
    let error = resolve_hooks(&CLAUDE, &routes).unwrap_err();
    assert!(
        matches!(&error, EmitError::UnknownToolSelector { selector, .. } if selector == "files"),
        "{error}"
    );
}

#[test]
fn timeouts_round_up_to_seconds_and_deadlines_stay_under_them() {
    let routes = [
        event_route("tool/after", json!({ "timeoutMs": 2500 })),
        event_route("stop", json!({})),
        event_route("session/end", json!({ "timeoutMs": 5000 })),
        event_route("prompt/submit", json!({ "timeoutMs": 3000 })),
    ];
    let timing: Vec<(String, u64, u64)> = resolve_hooks(&CLAUDE, &routes)
        .unwrap()
        .bindings
        .into_iter()
        .map(|binding| (binding.event, binding.timeout_sec, binding.deadline_ms))
        .collect();
    let expected = [
        ("prompt/submit", 3, 2750),
        // SessionEnd's shared 1.5 s budget caps the deadline whatever the timeout says.
        ("session/end", 5, 1250),
        ("stop", 10, 9750),
        ("tool/after", 3, 2500),
    ];
    assert_eq!(
        timing,
        expected.map(|(event, sec, ms)| (event.to_owned(), sec, ms))
    );
}

#[test]
fn routes_excluding_the_host_are_skipped_and_unavailable_events_refused() {
    let skipped = [event_route(
        "turn/interrupt",
        json!({ "targets": ["codex"] }),
    )];
    assert!(
        resolve_hooks(&CLAUDE, &skipped)
            .unwrap()
            .bindings
            .is_empty()
    );
    let refused = [event_route("turn/interrupt", json!({}))];
    let error = resolve_hooks(&CLAUDE, &refused).unwrap_err();
    assert!(error.to_string().contains("add `targets`"), "{error}");
}

#[test]
fn degraded_events_warn_and_fixed_matchers_and_fallbacks_carry_over() {
    let routes = [
        event_route("workspace/open", json!({ "fallback": "standalone" })),
        event_route(
            "file/saved",
            json!({ "files": ["package.json", "tsconfig.json"] }),
        ),
    ];
    let resolution = resolve_hooks(&CLAUDE, &routes).unwrap();
    assert_eq!(
        resolution.warnings,
        ["`event:workspace/open` on claude: delivered as SessionStart with source `startup`"]
    );
    let file = &resolution.bindings[0];
    assert_eq!(
        (file.native_event.as_str(), file.matcher.as_deref()),
        ("FileChanged", Some("package.json|tsconfig.json"))
    );
    let open = &resolution.bindings[1];
    assert_eq!(
        (open.native_event.as_str(), open.matcher.as_deref()),
        ("SessionStart", Some("startup"))
    );
    assert_eq!(open.fallback, HookFallback::Standalone);
}
