use std::fs;
use std::path::Path;

use super::{BundleRequest, Toolchain, WorkerMode, bundle_worker};
use crate::bundle::{BundleError, BundleModule, WorkerEntry, render_worker_entry};

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = temp.path().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    temp
}

fn request(root: &Path, routes: &[(&str, &str)]) -> BundleRequest {
    BundleRequest {
        project_root: root.to_owned(),
        entry: WorkerEntry {
            plugin: "demo".into(),
            protocol: abgen_runtime::worker::WORKER_PROTOCOL,
            routes: routes
                .iter()
                .map(|(key, source)| BundleModule {
                    key: (*key).into(),
                    source: (*source).into(),
                })
                .collect(),
            providers: vec![BundleModule {
                key: "clock".into(),
                source: "src/providers/clock.ts".into(),
            }],
            layouts: vec![],
            declared_envs: [(
                "demo".to_owned(),
                [("DEMO_REGION".to_owned(), "eu-\"west\"".to_owned())].into(),
            )]
            .into(),
        },
        toolchain: workspace_toolchain(),
        mode: WorkerMode::Bundle,
    }
}

/// The workspace's node_modules, where the test projects (which have none) find everything.
fn workspace_toolchain() -> Toolchain {
    Toolchain::at(Path::new(env!("CARGO_MANIFEST_DIR")).join("../node_modules"))
}

const TOOL: &str = "import { Agent } from '@agent-bundle/runtime';\n\
    export default async function Hello() { return <Agent.Result value={{ hello: 'world' }} />; }\n";
const PROVIDER: &str = "export default () => ({ now: () => 0 });\n";

#[test]
fn renders_one_lazy_import_per_module_sorted_by_key() {
    let entry = request(
        Path::new("/p"),
        &[
            ("tool:demo/b", "src/mcp/demo/tools/b.tsx"),
            ("event:stop", "src/events/stop.ts"),
        ],
    )
    .entry;
    insta::assert_snapshot!(render_worker_entry(&entry).unwrap());
}

#[test]
fn bundles_routes_without_node_modules_in_the_project_and_deterministically() {
    let temp = project(&[
        ("src/mcp/demo/tools/hello.tsx", TOOL),
        ("src/providers/clock.ts", PROVIDER),
    ]);
    let request = request(
        temp.path(),
        &[("tool:demo/hello", "src/mcp/demo/tools/hello.tsx")],
    );
    let first = bundle_worker(&request).unwrap();
    let text = String::from_utf8(first.clone()).unwrap();
    // The loader that compiles the CommonJS bundle with V8's code cache comes first; the
    // bundle (whitespace-minified) follows in its trailing comment.
    assert!(
        text.starts_with("// The render worker of this plugin"),
        "the code-cache loader first"
    );
    assert!(
        text.contains("\nrun(ownBundle());\n/*abgen-commonjs-bundle\n"),
        "the bundle rides in the trailing comment"
    );
    assert!(
        text.contains(r#""tool:demo/hello":()=>"#),
        "the route is imported lazily"
    );
    assert!(
        text.contains("src/mcp/demo/tools/hello.tsx"),
        "paths are project-relative"
    );
    assert!(
        !text.contains(&temp.path().display().to_string()),
        "no machine path in the bundle"
    );
    assert_eq!(
        bundle_worker(&request).unwrap(),
        first,
        "two runs give the same bytes"
    );
    // The bundle parses as an ES module under Node.
    let out = temp.path().join("worker.mjs");
    fs::write(&out, &first).unwrap();
    let check = std::process::Command::new("node")
        .arg("--check")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn a_missing_route_module_is_an_esbuild_error_naming_it() {
    let temp = project(&[("src/providers/clock.ts", PROVIDER)]);
    let request = request(
        temp.path(),
        &[("tool:demo/gone", "src/mcp/demo/tools/gone.tsx")],
    );
    let error = bundle_worker(&request).unwrap_err();
    let diagnostics = error.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{error}");
    assert_eq!(diagnostics[0].code.as_str(), "AB5360", "{error}");
    assert!(
        diagnostics[0]
            .message
            .contains("src/mcp/demo/tools/gone.tsx"),
        "{error}"
    );
    // The import is in the generated entry, which is no file of the user's.
    assert!(diagnostics[0].location.is_none(), "{error}");
}

#[test]
fn a_missing_toolchain_is_named() {
    let temp = project(&[]);
    let mut request = request(temp.path(), &[]);
    request.toolchain = Toolchain::at(temp.path().join("node_modules"));
    let error = bundle_worker(&request).unwrap_err();
    assert!(
        matches!(error, BundleError::ToolchainMissing { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("ABGEN_NODE_MODULES"));
}
