//! `abgen generate` writes `.agent-bundle/routes.d.ts`, and with it TypeScript (the pinned
//! `typescript` of the npm workspace) types an App's tool calls through `agent-bundle/app`: a
//! known route id with the right input compiles; an unknown id or a wrong input field does not.
//!
//! The project lives under `target/` inside the repository so that `zod`, `react` and
//! `agent-bundle` resolve from the workspace's `node_modules`, as they would in a real project.

use std::path::Path;
use std::process::Command;

mod support;

use support::repo;

const CONFIG: &str = "import { defineConfig } from 'agent-bundle/config';\n\n\
export default defineConfig({ plugin: { name: 'shop' }, targets: ['claude'] });\n";

const TOOL: &str = "import { defineTool } from 'agent-bundle/routes';\n\
import { z } from 'zod';\n\n\
export default defineTool(\n\
  {\n\
    description: 'Finds products.',\n\
    inputSchema: z.object({ query: z.string(), limit: z.int().optional() }),\n\
    resultSchema: z.object({ ids: z.array(z.string()) }),\n\
  },\n\
  () => null,\n\
);\n";

const TSCONFIG: &str = r#"{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "bundler",
    "strict": true,
    "noEmit": true,
    "skipLibCheck": true,
    "jsx": "react-jsx",
    "types": []
  },
  "include": [".agent-bundle/routes.d.ts", "src/**/*.ts", "app/*.ts"]
}
"#;

fn app(call: &str) -> String {
    format!(
        "import type {{ AppClient }} from 'agent-bundle/app';\n\n\
         export async function run(app: AppClient): Promise<string[]> {{\n\
         \x20 const result = await {call};\n\
         \x20 return result.ids;\n\
         }}\n"
    )
}

/// Runs tsc over the project; `Ok` when it compiles, `Err(output)` when not.
fn typecheck(project: &Path) -> Result<(), String> {
    let output = Command::new("node")
        .arg(repo().join("node_modules/typescript/bin/tsc"))
        .arg("-p")
        .arg(project)
        .output()
        .expect("node runs tsc");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    if output.status.success() {
        Ok(())
    } else {
        Err(text)
    }
}

#[test]
fn app_calls_are_typed_by_the_generated_route_map() {
    let project = repo()
        .join("target/route-types-test")
        .join(std::process::id().to_string());
    let _ = std::fs::remove_dir_all(&project);
    std::fs::create_dir_all(project.join("src/mcp/shop/tools")).unwrap();
    std::fs::create_dir_all(project.join("app")).unwrap();
    std::fs::write(project.join("agent-bundle.config.ts"), CONFIG).unwrap();
    std::fs::write(project.join("src/mcp/shop/tools/find.ts"), TOOL).unwrap();
    std::fs::write(project.join("tsconfig.json"), TSCONFIG).unwrap();

    let generated = Command::new(env!("CARGO_BIN_EXE_abgen"))
        .args(["generate", "--root"])
        .arg(&project)
        .output()
        .unwrap();
    assert!(generated.status.success(), "{generated:?}");
    let types = std::fs::read_to_string(project.join(".agent-bundle/routes.d.ts")).unwrap();
    assert!(
        types.contains(r#""tool:shop/find": RouteContract<typeof route0.default>;"#),
        "{types}"
    );
    assert_eq!(
        std::fs::read_dir(&project).unwrap().count(),
        5,
        "generate writes only .agent-bundle/"
    );

    let write_app = |call: &str| std::fs::write(project.join("app/call.ts"), app(call)).unwrap();
    write_app("app.call('tool:shop/find', { query: 'lamp', limit: 3 })");
    typecheck(&project).unwrap_or_else(|output| panic!("a valid call fails:\n{output}"));

    write_app("app.call('tool:shop/lose', { query: 'lamp' })");
    let unknown = typecheck(&project).expect_err("an unknown route id compiles");
    assert!(unknown.contains("tool:shop/lose"), "{unknown}");

    write_app("app.call('tool:shop/find', { qery: 'lamp' })");
    let wrong = typecheck(&project).expect_err("a wrong input field compiles");
    assert!(wrong.contains("qery"), "{wrong}");

    std::fs::remove_dir_all(&project).unwrap();
}
