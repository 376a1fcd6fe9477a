//! A tool whose input and result schemas exist only at run time (built by function calls the
//! compiler does not run) is listed with the schemas zod computes in the render worker,
//! projected for each client exactly as a static schema is, and a call is checked against the
//! computed input schema before any render. `fixtures/projects/ab5101-runtime-schemas` is built (a
//! copy) with the real `abgen-host` and `runtime/tests/mcp_client/runtime-schemas.mjs` drives it
//! with the official MCP TypeScript SDK client as a client of no known host, as Claude Code, as
//! Codex and as Cursor. Needs the npm workspace installed and Node 20+.

mod support;

use std::time::{Duration, Instant};

use abgen::schema::profile::{Profile, project};
use abgen_runtime::kernel::{Kernel, KernelConfig, artifact_kernel_config};
use abgen_runtime::worker::RouteKind;
use serde_json::{Value, json};
use support::{build_fixture, node_summary};

#[test]
fn run_time_schemas_are_listed_per_client_and_checked_before_the_render() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_fixture(&temp, "ab5101-runtime-schemas");

    // The manifest says the schemas are left to run time, so the listing below is the worker's.
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(artifact.join("abgen.manifest.json")).unwrap())
            .unwrap();
    let route = manifest["routes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|route| route["id"] == "tool:planner/plan_trip")
        .expect("the tool is in the manifest");
    assert_eq!(route["schemas"]["input"], json!({"source": "runtime"}));
    assert_eq!(route["schemas"]["result"], json!({"source": "runtime"}));

    let clients = [
        "some-inspector",
        "claude-code",
        "codex-tui",
        "cursor-vscode",
    ];
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&artifact];
    args.extend(
        clients
            .iter()
            .map(|client| client as &dyn AsRef<std::ffi::OsStr>),
    );
    let seen = node_summary("runtime/tests/mcp_client/runtime-schemas.mjs", &args);

    // What zod prints in the worker, asked of the kernel directly: each client's listing is the
    // projection of it that its host's profile gives, by the function the compiler writes static
    // schemas with.
    let digest = manifest["digest"].as_str().unwrap();
    let config = artifact_kernel_config(&artifact, digest, 1 << 20, Duration::from_secs(20))
        .expect("the artifact has a worker");
    let kernel = Kernel::start(KernelConfig {
        workers: 1,
        ..config
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let computed = kernel
        .route_schemas("tool:planner/plan_trip", RouteKind::Tool, deadline)
        .expect("zod prints both schemas");
    let printed_input = computed.input.expect("an input schema");
    let printed_result = computed.result.expect("a result schema");
    assert_eq!(printed_input["properties"]["dates"]["items"], json!(false));
    let unknown = kernel
        .route_schemas("tool:planner/nothing", RouteKind::Tool, deadline)
        .expect_err("no such route");
    assert_eq!(unknown.code, "unknown-route", "{unknown:?}");
    drop(kernel);
    for (client, profile) in [
        ("some-inspector", Profile::Canonical),
        ("claude-code", Profile::Claude),
        ("codex-tui", Profile::Codex),
        ("cursor-vscode", Profile::Cursor),
    ] {
        let input = project(&printed_input, profile, true).unwrap();
        assert_eq!(seen[client]["inputSchema"], input, "{client}");
        let output = project(&printed_result, profile, false).unwrap();
        assert_eq!(seen[client]["outputSchema"], output, "{client}");
    }
    for other in ["codex-tui", "cursor-vscode"] {
        assert_ne!(
            seen[other]["inputSchema"], seen["claude-code"]["inputSchema"],
            "{other}'s profile differs from Claude Code's on this schema"
        );
    }
    for client in clients {
        let saw = &seen[client];
        // Invalid arguments are a JSON-RPC invalid-params error naming what is wrong...
        assert_eq!(saw["invalid"]["code"], -32602, "{client}: {saw:#}");
        let message = saw["invalid"]["message"].as_str().unwrap();
        assert!(
            message.contains("invalid arguments for tool `plan_trip`"),
            "{message}"
        );
        assert!(
            message.contains("/city") && message.contains("/nights"),
            "{message}"
        );
        // ...answered before any render: the valid call that follows is the worker's first
        // render, and zod printed the schema once for every list and call of the session.
        assert_eq!(
            saw["structuredContent"],
            json!({"stops": ["Lisbon", 1, 2], "printed": 1, "renders": 1}),
            "{client}"
        );
    }
    insta::assert_json_snapshot!("mcp_runtime_schemas", seen);
}
