//! A project of 10,000 generated tool routes checks without a diagnostic or a panic, in
//! bounded time, and yields every route in the graph.

use std::time::{Duration, Instant};

use abgen::check::{CheckOptions, check_project};

const TOOLS: usize = 10_000;

#[test]
fn ten_thousand_tools_check_quickly() {
    let root = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        root.path().join("agent-bundle.config.ts"),
        "import { defineConfig } from 'agent-bundle/config';\n\nexport default defineConfig({ plugin: { name: 'wide' } });\n",
    )
    .expect("write config");
    for server in 0..10 {
        let tools = root.path().join(format!("src/mcp/s{server}/tools"));
        std::fs::create_dir_all(&tools).expect("mkdir");
        for tool in 0..TOOLS / 10 {
            let source = format!(
                "import {{ defineTool }} from 'agent-bundle/routes';\nimport {{ z }} from 'zod';\n\n\
                 export default defineTool(\n  {{\n    description: 'Tool {tool} of server {server}.',\n    \
                 inputSchema: z.object({{ id: z.string().describe('An id') }}),\n    \
                 resultSchema: z.object({{ ok: z.boolean() }}),\n  }},\n  async () => ({{ ok: true }}),\n);\n"
            );
            std::fs::write(tools.join(format!("t{tool}.ts")), source).expect("write tool");
        }
    }

    let started = Instant::now();
    let result = check_project(&CheckOptions {
        root: root.path().to_path_buf(),
        targets: None,
    });
    let elapsed = started.elapsed();

    assert!(
        result.diagnostics.is_empty(),
        "{:?}",
        result.diagnostics.first()
    );
    let graph = result.graph.expect("a graph");
    assert_eq!(graph.routes.len(), TOOLS);
    assert_eq!(graph.servers.len(), 10);
    assert_eq!(result.modules.len(), TOOLS);
    assert!(
        graph.routes.windows(2).all(|pair| pair[0].id < pair[1].id),
        "routes are sorted by id"
    );
    // Generous: the point is that nothing is quadratic, not a benchmark.
    assert!(elapsed < Duration::from_secs(20), "check took {elapsed:?}");
    let _ = std::io::Write::write_fmt(
        &mut std::io::stderr(),
        format_args!("checked {TOOLS} tools in {elapsed:?}\n"),
    );
}
