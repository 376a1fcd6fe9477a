//! Identity rules and server modes over hand-built modules and configs.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::json;

use super::{ServerModeState, build_graph};
use crate::diagnostics::{Code, Location, Span};
use crate::extract::ExtractedModule;
use crate::project::config::{DeclaredServer, PluginMetadata};
use crate::project::{LoadedModule, ProjectConfig, ServerMode, SourceModule, Target, classify};

fn config() -> ProjectConfig {
    ProjectConfig {
        app_source_map: Default::default(),
        plugin: PluginMetadata {
            name: "p".into(),
            ..PluginMetadata::default()
        },
        targets: vec![Target::Portable],
        mcp_servers: BTreeMap::new(),
        route_servers: BTreeMap::new(),
        mcp_commands: None,
        skills: Vec::new(),
        web: None,
        file: Some("agent-bundle.config.ts".into()),
        locations: BTreeMap::new(),
    }
}

fn modules(paths: &[&str]) -> Vec<LoadedModule> {
    let mut modules: Vec<LoadedModule> = paths
        .iter()
        .map(|path| LoadedModule {
            source: SourceModule {
                path: (*path).to_owned(),
                absolute: PathBuf::from(path),
                kind: classify(path).expect("a module path"),
            },
            extracted: ExtractedModule {
                path: (*path).to_owned(),
                ..ExtractedModule::default()
            }
            .into(),
        })
        .collect();
    modules.sort_by(|a, b| a.source.path.cmp(&b.source.path));
    modules
}

fn codes(config: &ProjectConfig, modules: &[LoadedModule]) -> Vec<Code> {
    build_graph(config, modules)
        .diagnostics
        .iter()
        .map(|d| d.code)
        .collect()
}

#[test]
fn declared_entry_without_mode_is_ab4800_at_the_config_value() {
    let mut config = config();
    let text = "export default { mcp: { servers: { docs: { entry: './server.ts' } } } }";
    let start = text.find("'./server.ts'").expect("present") as u32;
    config.locations.insert(
        "/mcp/servers/docs/entry".into(),
        Location::span("agent-bundle.config.ts", text, Span::new(start, start + 13)),
    );
    config.mcp_servers.insert(
        "docs".into(),
        DeclaredServer {
            pointer: "/mcp/servers/docs".into(),
            entry: Some("./server.ts".into()),
            ..DeclaredServer::default()
        },
    );
    let built = build_graph(&config, &modules(&["src/mcp/docs/tools/search.ts"]));
    assert_eq!(built.diagnostics.len(), 1);
    let diagnostic = &built.diagnostics[0];
    assert_eq!(diagnostic.code, Code::AB4800);
    assert_eq!(
        diagnostic.location.as_ref().and_then(|l| l.column),
        Some(start + 1)
    );
    assert_eq!(built.graph.servers[0].mode, ServerModeState::Conflict);
    assert_eq!(
        built.graph.servers[0].routes,
        ["tool:docs/search"],
        "conflicting routes stay visible"
    );
}

#[test]
fn explicit_modes_decide_and_non_generated_servers_compile_no_routes() {
    let mut config = config();
    config
        .route_servers
        .insert("docs".into(), ServerMode::Custom);
    config
        .route_servers
        .insert("kb".into(), ServerMode::Generated);
    let paths = [
        "src/mcp/docs.ts",
        "src/mcp/docs/tools/a.ts",
        "src/mcp/docs/layout.tsx",
        "src/mcp/kb.ts",
        "src/mcp/kb/tools/b.ts",
    ];
    let built = build_graph(&config, &modules(&paths));
    // The custom server's entry serves it; the generated one's is shadowed.
    let codes: Vec<(Code, Option<&str>)> = built
        .diagnostics
        .iter()
        .map(|d| (d.code, d.location.as_ref().map(|l| l.file.as_str())))
        .collect();
    assert_eq!(codes, [(Code::AB4733, Some("src/mcp/kb.ts"))]);
    let modes: Vec<_> = built
        .graph
        .servers
        .iter()
        .map(|s| (s.id.as_str(), s.mode, s.routes.len()))
        .collect();
    assert_eq!(
        modes,
        [
            ("docs", ServerModeState::Custom, 0),
            ("kb", ServerModeState::Generated, 1)
        ]
    );
    let ids: Vec<&str> = built.graph.routes.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["tool:kb/b"]);
    assert!(
        built.graph.layouts.is_empty(),
        "a custom server's layout is not compiled"
    );
}

#[test]
fn a_server_with_only_apps_has_no_room_for_a_layout() {
    let found = codes(
        &config(),
        &modules(&["src/mcp/ui/apps/board.tsx", "src/mcp/ui/layout.tsx"]),
    );
    assert_eq!(found, [Code::AB4832]);
}

#[test]
fn apps_of_different_servers_may_share_a_uri() {
    let mut modules = modules(&[
        "src/mcp/a/apps/x.tsx",
        "src/mcp/b/apps/x.tsx",
        "src/mcp/b/apps/y.tsx",
    ]);
    for module in &mut modules {
        let extracted = std::sync::Arc::make_mut(&mut module.extracted);
        std::sync::Arc::make_mut(&mut extracted.config)
            .insert("resourceUri".into(), json!("ui://x"));
    }
    assert_eq!(
        codes(&config(), &modules),
        [Code::AB4829],
        "only b/x and b/y collide"
    );
}

#[test]
fn file_change_and_file_saved_are_one_route() {
    let found = codes(
        &config(),
        &modules(&["src/events/file/change.ts", "src/events/file/saved.ts"]),
    );
    assert_eq!(found, [Code::AB5304, Code::AB4802]);
}

#[test]
fn providers_with_one_stem_are_one_id_and_camel_keys_must_differ() {
    let found = codes(
        &config(),
        &modules(&[
            "src/providers/a.ts",
            "src/providers/a.tsx",
            "src/providers/a-b.ts",
            "src/providers/aB.ts",
        ]),
    );
    assert_eq!(found, [Code::AB4802, Code::AB4941]);
}
