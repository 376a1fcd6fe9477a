//! The emitted Claude documents and manifest of a small hand-built project, snapshotted, plus
//! the properties the emitter promises: canonical bytes independent of input order, a manifest
//! the schema accepts and the Rust types round-trip, and a digest over the file table.

use std::path::Path;

use abgen::emit::{
    EmitInput, EmitOptions, EmitRoute, EmitServer, PluginIdentity, emit_artifact, plan_artifact,
};
use abgen_runtime::manifest::{
    MANIFEST_FILE_NAME, Manifest, RouteKind, read_hook_view, read_manifest,
};
use serde_json::{Value, json};

fn route(id: &str, kind: RouteKind, source: &str, config: Value) -> EmitRoute {
    let (server, wire_name, event) = match kind {
        RouteKind::Event => (None, None, Some(id.trim_start_matches("event:").to_owned())),
        _ => {
            let (server, name) = id.split_once(':').unwrap().1.split_once('/').unwrap();
            (Some(server.to_owned()), Some(name.to_owned()), None)
        }
    };
    EmitRoute {
        id: id.into(),
        kind,
        source: source.into(),
        server,
        wire_name,
        event,
        config: std::sync::Arc::new(config.as_object().unwrap().clone()),
    }
}

fn input(root: &Path) -> EmitInput {
    EmitInput {
        skills: vec![],
        apps: vec![],
        web: None,
        commands: vec![],
        scripts: vec![],
        plain_scripts: vec![],
        project_root: root.to_owned(),
        plugin: PluginIdentity {
            name: "yard".into(),
            version: "1.2.0".into(),
            description: Some("Keeps the yard tidy".into()),
            author: None,
            license: Some("MIT".into()),
            homepage: None,
            keywords: vec![],
        },
        routes: vec![
            route(
                "tool:yard/rake",
                RouteKind::Tool,
                "src/mcp/yard/tools/rake.tsx",
                json!({ "description": "Rake leaves", "annotations": { "readOnlyHint": false } }),
            ),
            route(
                "tool:yard/count",
                RouteKind::Tool,
                "src/mcp/yard/tools/count.ts",
                json!({ "description": "Count leaves", "inputJsonSchema": { "type": "object", "properties": { "zone": { "type": "string" }, "all": { "type": "boolean" } } }, "render": { "maxElapsedMs": 90000 } }),
            ),
            route(
                "event:tool/before",
                RouteKind::Event,
                "src/events/tool/before.ts",
                json!({ "tools": ["shell", "mcp"], "timeoutMs": 4000 }),
            ),
            route(
                "event:tool/after",
                RouteKind::Event,
                "src/events/tool/after.tsx",
                json!({ "tools": ["file.write"], "fallback": "standalone" }),
            ),
            route(
                "event:session/start",
                RouteKind::Event,
                "src/events/session/start.tsx",
                json!({ "fallback": "standalone" }),
            ),
            route(
                "event:stop",
                RouteKind::Event,
                "src/events/stop.tsx",
                json!({ "targets": ["codex"] }),
            ),
        ],
        declared: Vec::new(),
        servers: vec![EmitServer {
            id: "yard".into(),
            routes: vec!["tool:yard/rake".into(), "tool:yard/count".into()],
            ..EmitServer::default()
        }],
        providers: vec![],
        layouts: vec![],
        schemas: Default::default(),
    }
}

fn options(out: &Path, host_binary: &Path) -> EmitOptions {
    EmitOptions {
        targets: vec!["claude".into()],
        out_dir: out.to_owned(),
        host_binary: host_binary.to_owned(),
        platforms: Vec::new(),
        worker_bundle: b"// worker\n".to_vec().into(),
    }
}

fn stub_host(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("abgen-host");
    std::fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
    path
}

fn text(artifact: &abgen::emit::PlannedArtifact, path: &str) -> String {
    String::from_utf8(
        artifact
            .files
            .get(path)
            .unwrap_or_else(|| panic!("{path} is planned"))
            .contents
            .to_vec(),
    )
    .unwrap()
}

#[test]
fn claude_documents_and_manifest() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = plan_artifact(
        &input(temp.path()),
        &options(&temp.path().join("out"), &stub_host(temp.path())),
    )
    .unwrap();
    let planned: Vec<&str> = artifact.files.files().map(|(path, _)| path).collect();
    assert_eq!(
        planned,
        [
            ".claude-plugin/marketplace.json",
            ".claude-plugin/plugin.json",
            ".mcp.json",
            "INSTALL.md",
            "bin/abgen-host",
            "bin/yard",
            "hooks/hooks.json",
            "runtime/worker.mjs"
        ]
    );
    for path in [
        ".claude-plugin/plugin.json",
        ".claude-plugin/marketplace.json",
        ".mcp.json",
        "hooks/hooks.json",
        "INSTALL.md",
    ] {
        let name = path.trim_start_matches('.').replace(['/', '.'], "_");
        insta::assert_snapshot!(name, text(&artifact, path));
    }
    // Every input here is fixed (even the host binary and the worker), so nothing is redacted:
    // the digest itself is under test.
    insta::assert_snapshot!("abgen_manifest_json", artifact.manifest_text.to_string());
    assert!(artifact.warnings.is_empty(), "{:?}", artifact.warnings);
}

#[test]
fn bytes_do_not_depend_on_input_order() {
    let temp = tempfile::tempdir().unwrap();
    let host = stub_host(temp.path());
    let forward = plan_artifact(&input(temp.path()), &options(temp.path(), &host)).unwrap();
    let mut reversed_input = input(temp.path());
    reversed_input.routes.reverse();
    reversed_input.servers[0].routes.reverse();
    let mut reversed_options = options(temp.path(), &host);
    reversed_options.targets = vec!["claude".into(), "claude".into()];
    let reversed = plan_artifact(&reversed_input, &reversed_options).unwrap();
    assert_eq!(forward.files, reversed.files);
    assert_eq!(
        forward.manifest_text.to_string(),
        reversed.manifest_text.to_string()
    );
}

/// The manifest as the plan holds it: each route's schemas are in the manifest's text alone.
fn without_route_schemas(mut manifest: Manifest) -> Manifest {
    for route in &mut manifest.routes {
        route.schemas = Default::default();
    }
    manifest
}

#[test]
fn the_written_artifact_matches_its_manifest() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("artifact");
    let emitted =
        emit_artifact(&input(temp.path()), &options(&out, &stub_host(temp.path()))).unwrap();
    let manifest = read_manifest(&out.join(MANIFEST_FILE_NAME)).unwrap();
    assert_eq!(
        without_route_schemas(manifest.clone()),
        emitted.artifact.manifest
    );
    assert!(
        manifest
            .routes
            .iter()
            .any(|route| route.schemas.input.is_some())
    );
    // The file table lists exactly the files on disk, with their hashes and modes.
    let mut on_disk: Vec<String> = walk(&out)
        .into_iter()
        .filter(|path| path != MANIFEST_FILE_NAME)
        .collect();
    on_disk.sort();
    let listed: Vec<String> = manifest
        .files
        .iter()
        .map(|file| file.path.clone())
        .collect();
    assert_eq!(on_disk, listed);
    for file in &manifest.files {
        let bytes = std::fs::read(out.join(&file.path)).unwrap();
        assert_eq!(
            abgen::emit::sha256_hex(&bytes),
            file.sha256,
            "{}",
            file.path
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(out.join(&file.path))
                .unwrap()
                .permissions()
                .mode()
                & 0o777;
            assert_eq!(mode, file.mode, "{}", file.path);
        }
    }
    assert_eq!(
        abgen::emit::file_table_digest(&manifest.files).unwrap(),
        manifest.digest
    );
    // The hook client's slice reads alone.
    let view = read_hook_view(&out.join(MANIFEST_FILE_NAME)).unwrap();
    assert_eq!(view.digest, manifest.digest);
    let binding = view.binding("claude", "tool/before").unwrap();
    assert_eq!(
        (
            binding.matcher.as_deref(),
            binding.timeout_sec,
            binding.deadline_ms
        ),
        (Some("^Bash$|^mcp__"), 4, 3750)
    );
    assert!(
        view.binding("claude", "stop").is_none(),
        "a route targeting codex only is not on claude"
    );
}

#[test]
fn the_manifest_is_valid_against_its_schema_and_round_trips() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = plan_artifact(
        &input(temp.path()),
        &options(temp.path(), &stub_host(temp.path())),
    )
    .unwrap();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("schemas/abgen-manifest.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let value: Value = serde_json::from_str(&artifact.manifest_text.to_string()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let parsed: Manifest = serde_json::from_value(value).unwrap();
    assert_eq!(without_route_schemas(parsed.clone()), artifact.manifest);
    assert_eq!(
        abgen::emit::canonical_json::serialize_canonical(&parsed).unwrap(),
        artifact.manifest_text.to_string()
    );
}

fn repo() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn walk(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_owned()];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(
                    path.strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    found
}
