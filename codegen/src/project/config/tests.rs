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
