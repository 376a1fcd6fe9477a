//! The `abgen` binary on sources nested 100,000 levels deep, in every file it parses (a route,
//! the config, a module a schema imports) and through every command: each ends with exit code
//! 0 or 1, the deep file reported as AB5300, and never with a signal (a stack overflow aborts).

use std::path::Path;
use std::process::Command;

const REPETITIONS: usize = 100_000;

const CONFIG: &str = "import { defineConfig } from 'agent-bundle/config';\n\nexport default defineConfig({\n  plugin: { name: 'deep' },\n});\n";

const TOOL: &str = "import { defineTool } from 'agent-bundle/routes';\nimport { z } from 'zod';\nimport { shape } from '../../../_shared/shapes';\n\nexport default defineTool(\n  {\n    description: 'Greet.',\n    inputSchema: shape,\n    resultSchema: z.object({ count: z.number() }),\n  },\n  async () => ({ count: 0 }),\n);\n";

const SHAPES: &str = "import { z } from 'zod';\n\nexport const shape = z.object({});\n";

/// Right-recursive forms the parser once overflowed on, each as one statement.
fn deep_statements() -> Vec<(&'static str, String)> {
    let n = REPETITIONS;
    vec![
        (
            "negations",
            format!("export const a = {}b;\n", "!".repeat(n)),
        ),
        (
            "assignments",
            format!("let b;\nb = {}1;\n", "b = ".repeat(n)),
        ),
        (
            "exponents",
            format!("export const a = {}2;\n", "2 ** ".repeat(n)),
        ),
        ("new", format!("export const a = {}B;\n", "new ".repeat(n))),
        ("if statements", format!("{};\n", "if (a) ".repeat(n))),
        (
            "else if chains",
            format!("if (a) {{}}{}\n", " else if (a) {}".repeat(n)),
        ),
        ("labels", format!("{};\n", "a: ".repeat(n))),
        ("keyof", format!("type A = {}B;\n", "keyof ".repeat(n))),
        (
            "brackets",
            format!("export const a = {}{};\n", "[".repeat(n), "]".repeat(n)),
        ),
        (
            "jsx",
            format!(
                "export const a = {}{};\n",
                "<a>".repeat(n),
                "</a>".repeat(n)
            ),
        ),
    ]
}

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    /// A valid one-tool project; `deep` is appended to the file at `deep_path`.
    fn new(deep_path: &str, deep: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("agent-bundle.config.ts", CONFIG),
            ("src/mcp/hello/tools/greet.tsx", TOOL),
            ("src/_shared/shapes.ts", SHAPES),
        ];
        for (path, text) in files {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            let mut text = text.to_owned();
            if path == deep_path {
                text.push_str(deep);
            }
            std::fs::write(file, text).unwrap();
        }
        Self { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }
}

/// Runs `abgen args…` and returns its exit code and everything it printed.
fn abgen(args: &[&str], root: &Path) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_abgen"))
        .args(args)
        .current_dir(root)
        .env("NO_COLOR", "1")
        .output()
        .expect("abgen runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code(), text)
}

/// Every command that reads the project, with its arguments.
fn commands(root: &Path) -> Vec<Vec<String>> {
    let root = root.to_string_lossy().into_owned();
    let out = format!("{root}/artifact");
    [
        vec!["check", "--root", &root],
        vec!["check", "--json", "--root", &root],
        vec!["inspect", "--root", &root],
        vec!["generate", "--root", &root],
        vec!["schema", "--route", "tool:hello/greet", "--root", &root],
        vec!["build", "--root", &root, "--out", &out],
    ]
    .into_iter()
    .map(|args| args.into_iter().map(str::to_owned).collect())
    .collect()
}

#[test]
fn every_command_reports_a_deep_route_as_ab5300() {
    for (form, statement) in deep_statements() {
        let project = Project::new("src/mcp/hello/tools/greet.tsx", &statement);
        for args in commands(project.root()) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, output) = abgen(&args, project.root());
            assert_eq!(code, Some(1), "{form}: abgen {}\n{output}", args[0]);
            // `schema` reports only that the route has no schema; the others show the AB5300.
            if args[0] != "schema" {
                assert!(
                    output.contains("AB5300"),
                    "{form}: abgen {}\n{output}",
                    args[0]
                );
            }
        }
    }
}

#[test]
fn a_deep_config_or_imported_module_is_reported_not_fatal() {
    for deep_path in ["agent-bundle.config.ts", "src/_shared/shapes.ts"] {
        for (form, statement) in deep_statements().into_iter().take(5) {
            let project = Project::new(deep_path, &statement);
            let (code, output) = abgen(
                &["check", "--root", &project.root().to_string_lossy()],
                project.root(),
            );
            assert!(
                matches!(code, Some(0 | 1)),
                "{form} in {deep_path}: {code:?}\n{output}"
            );
            if deep_path == "agent-bundle.config.ts" {
                assert!(
                    output.contains("AB5300"),
                    "{form} in {deep_path}:\n{output}"
                );
            }
        }
    }
}

#[test]
fn a_long_flat_chain_parses() {
    let chain = format!("export const chain = a{};\n", ".b".repeat(REPETITIONS));
    let project = Project::new("src/mcp/hello/tools/greet.tsx", &chain);
    let (code, output) = abgen(
        &["check", "--root", &project.root().to_string_lossy()],
        project.root(),
    );
    assert_eq!(code, Some(0), "{output}");
}

#[test]
fn hooks_simulate_reports_a_deep_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = format!("{}{}", "[".repeat(REPETITIONS), "]".repeat(REPETITIONS));
    std::fs::write(dir.path().join("abgen.manifest.json"), manifest).unwrap();
    let (code, output) = abgen(
        &[
            "hooks",
            "simulate",
            "--artifact",
            &dir.path().to_string_lossy(),
            "--host",
            "claude",
            "--event",
            "tool/after",
        ],
        dir.path(),
    );
    assert_eq!(code, Some(1), "{output}");
    assert!(output.contains("error:"), "{output}");
}
