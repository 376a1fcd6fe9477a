//! The npm packages, installed the way a plugin author installs them: `scripts/pack` makes the
//! tarballs (`abgen`, the platform package with this build's stripped binaries, `agent-bundle`
//! and `@agent-bundle/runtime` compiled to JavaScript), npm installs them with React and zod
//! into a fresh temporary project that cannot see this repository's `node_modules` or
//! `target/`, with no Rust toolchain on PATH and no `ABGEN_NODE_MODULES`, and the project's
//! `npx abgen build` makes an artifact the pinned `claude plugin validate --strict` accepts.
//! npm reads the registry through its cache (`--prefer-offline`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;

use support::{host_binary, repo, transcript};

/// A PATH with Node and the base system only: no cargo, no rustc.
const PLAIN_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

fn run(command: &mut Command) -> Output {
    let output = command.output().expect("the command runs");
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}",
        transcript(&output)
    );
    output
}

/// `program args…` in `dir` with the plain PATH and none of abgen's variables.
fn plain(program: &str, dir: &Path) -> Command {
    let mut command = Command::new(program);
    command
        .current_dir(dir)
        .env("PATH", PLAIN_PATH)
        .env("NO_COLOR", "1")
        .env_remove("ABGEN_NODE_MODULES")
        .env_remove("ABGEN_HOST")
        .env_remove("ABGEN_BINARY")
        .env_remove("ABGEN_WORKER_BUNDLE")
        .env_remove("CARGO");
    command
}

/// The tarballs, packed from this build's binaries.
fn pack(out: &Path) -> Vec<PathBuf> {
    let output = run(Command::new("node")
        .arg(repo().join("scripts/pack.mjs"))
        .arg("--out")
        .arg(out)
        .arg("--abgen")
        .arg(env!("CARGO_BIN_EXE_abgen"))
        .arg("--abgen-host")
        .arg(host_binary()));
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect()
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const CONFIG: &str = "import { defineConfig } from 'agent-bundle/config';\n\n\
export default defineConfig({\n  plugin: { name: 'hello-plugin', description: 'Says hello' },\n  \
targets: ['claude', 'codex', 'cursor'],\n});\n";

const TOOL: &str = "import { defineTool } from 'agent-bundle/routes';\n\
import { Agent } from '@agent-bundle/runtime';\nimport { z } from 'zod';\n\n\
export default defineTool(\n  {\n    description: 'Greet someone by name.',\n    \
inputSchema: z.object({ name: z.string().min(1) }),\n    \
resultSchema: z.object({ greeting: z.string() }),\n  },\n  \
async function Greet({ input }) {\n    \
return <Agent.Result value={{ greeting: `Hello, ${input.name}!` }} />;\n  },\n);\n";

#[test]
fn the_packed_packages_install_and_build_a_plugin_without_the_repository() {
    let temp = tempfile::tempdir().unwrap();
    let tarballs = pack(&temp.path().join("tarballs"));
    let names: Vec<String> = tarballs
        .iter()
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "abgen-0.1.0.tgz",
            "abgen-linux-x64-gnu-0.1.0.tgz",
            "agent-bundle-0.1.0.tgz",
            "agent-bundle-runtime-0.1.0.tgz"
        ]
    );
    let project = temp.path().join("hello-plugin");
    write(
        &project,
        "package.json",
        "{\n  \"name\": \"hello-plugin\",\n  \"version\": \"0.1.0\",\n  \"private\": true,\n  \"type\": \"module\"\n}\n",
    );
    write(&project, "agent-bundle.config.ts", CONFIG);
    write(&project, "src/mcp/hello/tools/greet.tsx", TOOL);
    run(plain("npm", &project)
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--prefer-offline",
            "--save-exact",
        ])
        .args(&tarballs)
        .args([
            "react@19.3.1",
            "react-dom@19.3.1",
            "react-server-dom-webpack@19.3.1",
            "zod@4.6.7",
        ]));

    // The platform binary is stripped; npm put it where the shim looks.
    let platform = project.join("node_modules/@abgen/linux-x64-gnu/bin");
    for binary in ["abgen", "abgen-host"] {
        let sections = run(Command::new("readelf").arg("-S").arg(platform.join(binary)));
        assert!(
            !String::from_utf8_lossy(&sections.stdout).contains(".symtab"),
            "{binary} is not stripped"
        );
    }

    // The compiled packages import in plain Node: no `.ts` behind their exports.
    run(plain("node", &project).args([
        "--input-type=module",
        "--eval",
        "const routes = await import('agent-bundle/routes'); const runtime = await import('@agent-bundle/runtime'); if (typeof routes.defineTool !== 'function' || typeof runtime.Agent !== 'object') process.exit(1);",
    ]));

    let built = run(plain("npx", &project).args([
        "--no-install",
        "abgen",
        "build",
        "--json",
        "--target",
        "claude,codex,cursor",
    ]));
    let report: serde_json::Value = serde_json::from_slice(&built.stdout).unwrap();
    assert_eq!(report["status"], "built", "{}", transcript(&built));
    let artifact = project.join("artifact");
    let shipped = std::fs::read(artifact.join("bin/abgen-host")).unwrap();
    assert_eq!(
        shipped,
        std::fs::read(platform.join("abgen-host")).unwrap(),
        "the artifact ships the platform package's abgen-host"
    );
    // The worker bundled the project's own React.
    let worker = std::fs::read_to_string(artifact.join("runtime/worker.mjs")).unwrap();
    assert!(worker.contains("19.3.1"), "no React 19.3.1 in the worker");

    // The committed artifact matches its sources.
    run(plain("npx", &project).args([
        "--no-install",
        "abgen",
        "build",
        "--check",
        "--target",
        "claude,codex,cursor",
    ]));

    let home = temp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    run(plain(
        repo()
            .join("scripts/host-clis/node_modules/.bin/claude")
            .to_str()
            .unwrap(),
        &home,
    )
    .args(["plugin", "validate", "--strict"])
    .arg(&artifact)
    .env("HOME", &home)
    .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
    .env("DISABLE_AUTOUPDATER", "1")
    .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"));
}

#[test]
fn the_shim_names_a_missing_platform_package_and_honours_the_override() {
    let temp = tempfile::tempdir().unwrap();
    let tarballs = pack(&temp.path().join("tarballs"));
    let shim = temp.path().join("shim");
    std::fs::create_dir_all(&shim).unwrap();
    run(Command::new("tar")
        .arg("-xzf")
        .arg(&tarballs[0])
        .arg("-C")
        .arg(&shim));
    let bin = shim.join("package/bin/abgen.js");
    // No platform package beside the shim: it says which and how to get it.
    let missing = plain("node", temp.path())
        .arg(&bin)
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1), "{}", transcript(&missing));
    let text = transcript(&missing);
    assert!(
        text.contains("@abgen/linux-x64-gnu is not installed") && text.contains("--omit=optional"),
        "{text}"
    );
    // ABGEN_BINARY runs that binary, with the arguments and the exit code passed through.
    let version = run(plain("node", temp.path())
        .arg(&bin)
        .arg("--version")
        .env("ABGEN_BINARY", env!("CARGO_BIN_EXE_abgen")));
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("abgen "));
    let usage = plain("node", temp.path())
        .arg(&bin)
        .arg("--no-such-flag")
        .env("ABGEN_BINARY", env!("CARGO_BIN_EXE_abgen"))
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2), "{}", transcript(&usage));
}
