//! Config typing: defaults, package.json fallbacks, target overrides and located rejections.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{ConfigInput, PackageIdentity, Target, type_config};
use crate::diagnostics::{Code, Location};

fn object(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn typed(
    value: Option<Value>,
    package: PackageIdentity,
    targets: Option<&[String]>,
) -> (super::ProjectConfig, Vec<Code>) {
    let value = value.map(object);
    let locations = BTreeMap::from([(
        "/targets/1".to_owned(),
        Location::file("agent-bundle.config.ts"),
    )]);
    let input = ConfigInput {
        value: value.as_ref(),
        locations: &locations,
        file: Some("agent-bundle.config.ts"),
        package: &package,
        target_override: targets,
    };
    let (config, diagnostics) = type_config(&input);
    (config, diagnostics.iter().map(|d| d.code).collect())
}

#[test]
fn defaults_to_portable_and_sorts_targets() {
    let (config, codes) = typed(
        Some(json!({"plugin": {"name": "a"}})),
        PackageIdentity::default(),
        None,
    );
    assert!(codes.is_empty());
    assert_eq!(config.targets, [Target::Portable]);
    let value = json!({"plugin": {"name": "a"}, "targets": ["portable", "claude", "claude"]});
    let (config, _) = typed(Some(value), PackageIdentity::default(), None);
    assert_eq!(config.targets, [Target::Claude, Target::Portable]);
}

#[test]
fn package_json_fills_name_and_version() {
    let package = PackageIdentity {
        name: Some("notes".into()),
        version: Some("2.0.0".into()),
    };
    let (config, codes) = typed(Some(json!({"plugin": {"description": "d"}})), package, None);
    assert!(codes.is_empty());
    assert_eq!(
        (
            config.plugin.name.as_str(),
            config.plugin.version.as_deref()
        ),
        ("notes", Some("2.0.0"))
    );
}

#[test]
fn a_declared_bad_name_is_not_replaced_by_package_json() {
    let package = PackageIdentity {
        name: Some("notes".into()),
        version: None,
    };
    let (config, codes) = typed(Some(json!({"plugin": {"name": ""}})), package, None);
    assert_eq!(codes, [Code::AB4000]);
    assert!(config.plugin.name.is_empty());
}

#[test]
fn unknown_targets_and_the_retired_plugin_target() {
    let value = json!({"plugin": {"name": "a"}, "targets": ["claude", "plugin"]});
    let (config, codes) = typed(Some(value), PackageIdentity::default(), None);
    assert_eq!(codes, [Code::AB4100]);
    assert_eq!(config.targets, [Target::Claude]);
}

#[test]
fn target_override_replaces_config_targets() {
    let value = json!({"plugin": {"name": "a"}, "targets": ["vscode"]});
    let names = ["cursor".to_owned(), "codex".to_owned()];
    let (config, codes) = typed(Some(value), PackageIdentity::default(), Some(&names));
    assert!(
        codes.is_empty(),
        "the config's targets are not read: {codes:?}"
    );
    assert_eq!(config.targets, [Target::Codex, Target::Cursor]);
}

#[test]
fn author_forms_and_declared_servers() {
    let value = json!({
        "plugin": {"name": "a", "author": {"name": "N", "email": "n@example.com"}},
        "mcp": {"servers": {"docs": {"command": "docs-server", "args": ["--stdio"]}}},
        "routes": {"servers": {"docs": "command"}},
        "skills": ["skills/*"],
    });
    let (config, codes) = typed(Some(value), PackageIdentity::default(), None);
    assert!(codes.is_empty(), "{codes:?}");
    assert!(
        matches!(config.plugin.author, Some(super::Author::Person { ref email, .. }) if email.as_deref() == Some("n@example.com"))
    );
    assert_eq!(config.mcp_servers["docs"].entry_claim(), Some("command"));
    assert_eq!(config.route_servers["docs"], super::ServerMode::Command);
    assert_eq!(config.skills, ["skills/*"]);
}

#[test]
fn wrong_shapes_are_reported_once_each() {
    let value = json!({
        "plugin": {"name": "a", "author": 3, "keywords": "k"},
        "mcp": {"servers": []},
        "routes": {"servers": {"x": "magic"}},
    });
    let (_, codes) = typed(Some(value), PackageIdentity::default(), None);
    assert_eq!(
        codes,
        [Code::AB5307, Code::AB5307, Code::AB5307, Code::AB4804]
    );
}

#[test]
fn no_config_and_no_package_name_is_ab5305() {
    let package = PackageIdentity::default();
    let locations = BTreeMap::new();
    let input = ConfigInput {
        value: None,
        locations: &locations,
        file: None,
        package: &package,
        target_override: None,
    };
    let (_, diagnostics) = type_config(&input);
    let codes: Vec<Code> = diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::AB5305]);
}

/// The App declarations of `apps` on server `status` (one of `servers` beside the plugin's
/// `targets`), and the codes typing reported.
fn typed_apps(targets: Value, server: Value) -> (BTreeMap<String, super::DeclaredApp>, Vec<Code>) {
    let value = json!({"plugin": {"name": "a"}, "targets": targets, "mcp": {"servers": {"status": server}}});
    let (config, codes) = typed(Some(value), PackageIdentity::default(), None);
    let apps = config
        .mcp_servers
        .get("status")
        .map(|server| server.apps.clone())
        .unwrap_or_default();
    (apps, codes)
}

#[test]
fn the_seed_app_declaration_is_typed_with_project_relative_paths() {
    let (apps, codes) = typed_apps(
        json!(["portable", "codex", "claude"]),
        json!({"apps": {"status": {
            "entry": "./views/status-panel.ts",
            "resourceUri": "ui://mcp-app-example/status.html",
            "targets": ["portable"],
            "template": "./views/status-panel.html",
            "_meta": {"ui": {"prefersBorder": true}},
        }}}),
    );
    assert_eq!(codes, []);
    let app = &apps["status"];
    assert_eq!(app.pointer, "/mcp/servers/status/apps/status");
    // Seed 002's own example: the entry beside its template, outside `src/`.
    assert_eq!(app.entry, "views/status-panel.ts");
    assert_eq!(app.resource_uri, "ui://mcp-app-example/status.html");
    assert_eq!(app.template.as_deref(), Some("views/status-panel.html"));
    assert_eq!(app.targets.as_deref(), Some(&[Target::Portable][..]));
    assert_eq!(
        app.meta,
        Some(object(json!({"ui": {"prefersBorder": true}})))
    );
}

#[test]
fn every_bad_app_declaration_is_a_coded_diagnostic_and_left_out() {
    let entry = |extra: Value| {
        let mut app = json!({"entry": "./src/views/a.ts", "resourceUri": "ui://p/a"});
        for (key, value) in object(extra) {
            app[key] = value;
        }
        app
    };
    let cases = [
        (json!({"apps": []}), Code::AB4323, false),
        (
            json!({"apps": {"Status": entry(json!({}))}}),
            Code::AB4324,
            false,
        ),
        (
            json!({"apps": {"status": "./views/a.ts"}}),
            Code::AB4326,
            false,
        ),
        (
            json!({"apps": {"status": entry(json!({"entry": ""}))}}),
            Code::AB4327,
            false,
        ),
        (
            json!({"apps": {"status": entry(json!({"entry": "../a.ts"}))}}),
            Code::AB4327,
            false,
        ),
        (
            json!({"apps": {"status": entry(json!({"entry": "./src/views/a.css"}))}}),
            Code::AB4327,
            false,
        ),
        (
            json!({"apps": {"status": entry(json!({"resourceUri": "https://p/a"}))}}),
            Code::AB4329,
            false,
        ),
        (
            json!({"apps": {"status": entry(json!({"template": "./views/a.txt"}))}}),
            Code::AB4331,
            false,
        ),
        (
            json!({"apps": {"status": entry(json!({"template": "/etc/a.html"}))}}),
            Code::AB4331,
            false,
        ),
        (
            json!({"apps": {"status": entry(json!({"targets": []}))}}),
            Code::AB4333,
            false,
        ),
        (
            json!({"apps": {"status": entry(json!({"targets": ["codex"]}))}}),
            Code::AB4333,
            true,
        ),
        (
            json!({"apps": {"status": entry(json!({"targets": ["cursor"]}))}}),
            Code::AB4334,
            true,
        ),
        (
            json!({"targets": ["codex"], "apps": {"status": entry(json!({"targets": ["claude"]}))}}),
            Code::AB4334,
            true,
        ),
        (
            json!({"apps": {"status": entry(json!({"_meta": true}))}}),
            Code::AB4335,
            false,
        ),
        (
            json!({"command": "serve", "apps": {"status": entry(json!({}))}}),
            Code::AB4322,
            true,
        ),
        (
            json!({"url": "https://p/mcp", "transport": "streamable-http", "apps": {"status": entry(json!({}))}}),
            Code::AB4322,
            true,
        ),
        (
            json!({"entry": "./src/server.ts", "apps": {"status": entry(json!({}))}}),
            Code::AB4322,
            true,
        ),
    ];
    // `kept`: judged against the server once typed; the error fails the check all the same.
    for (server, code, kept) in cases {
        let (apps, codes) = typed_apps(json!(["portable", "codex"]), server.clone());
        assert!(codes.contains(&code), "{server}: {codes:?}");
        assert_eq!(!apps.is_empty(), kept, "{server}: {apps:?}");
    }
    // A prebuilt payload serves its own Apps (seed 002): nothing to report.
    let (_, codes) = typed_apps(
        json!(["portable"]),
        json!({"entry": {"prebuilt": "./dist/server.mjs"}, "apps": {"status": entry(json!({}))}}),
    );
    assert_eq!(codes, []);
}
