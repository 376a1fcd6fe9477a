//! The npm packages, used the way a plugin author uses them: `scripts/pack` makes the tarballs
//! (`abgen`, the platform package with this build's stripped binaries, `create-abgen`,
//! `agent-bundle` and `@agent-bundle/runtime` compiled to JavaScript), and a fresh temporary
//! directory that cannot see this repository's `node_modules` or `target/`, with no Rust
//! toolchain on PATH and no `ABGEN_NODE_MODULES`, starts a plugin from them, installs,
//! type-checks, tests, builds it for every host (also through the README's `prebuild` script
//! and its `rsbuild.config.mjs`), has the pinned `claude plugin validate --strict` accept it
//! and its MCP server answer the SDK client. npm reads the registry through
//! its cache (`--prefer-offline`).

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
        .env_remove("ABGEN_BIN")
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

/// The tarball of `name` among `tarballs` (`abgen`, `abgen-linux-x64-gnu`, …).
fn tarball<'a>(tarballs: &'a [PathBuf], name: &str) -> &'a Path {
    let file = format!("{name}-0.1.0.tgz");
    tarballs
        .iter()
        .find(|path| path.file_name().is_some_and(|found| found == file.as_str()))
        .unwrap_or_else(|| panic!("no {file} in {tarballs:?}"))
}

/// The README's "Start a plugin", from the tarballs: `npx abgen init`, `npm install`,
/// `npm run typecheck`, `npm test`, `npx abgen build` for every host, then Claude Code's own
/// validator and the MCP SDK's client against the result. `npm create abgen` writes the same.
#[test]
fn a_plugin_started_from_the_packed_packages_type_checks_tests_builds_and_serves() {
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
            "create-abgen-0.1.0.tgz",
            "agent-bundle-0.1.0.tgz",
            "agent-bundle-runtime-0.1.0.tgz"
        ]
    );
    let abgen = tarball(&tarballs, "abgen");
    let platform = tarball(&tarballs, "abgen-linux-x64-gnu");
    let work = temp.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let exec = |packages: &[&Path], command: &[&str]| {
        let mut npm = plain("npm", &work);
        npm.args(["exec", "--yes", "--prefer-offline"]);
        for package in packages {
            npm.arg(format!("--package={}", package.display()));
        }
        run(npm
            .arg("--")
            .args(command)
            .stdin(std::process::Stdio::null()))
    };
    exec(&[abgen, platform], &["abgen", "init", "hello-plugin"]);
    exec(
        &[tarball(&tarballs, "create-abgen"), abgen, platform],
        &["create-abgen", "created-plugin"],
    );
    let project = work.join("hello-plugin");
    for path in [
        "package.json",
        "tsconfig.json",
        "src/mcp/hello_plugin/tools/greet.tsx",
        "src/events/session/start.tsx",
        "src/mcp/hello_plugin/apps/greeter.tsx",
    ] {
        let started = std::fs::read_to_string(project.join(path)).unwrap();
        let created_path = path.replace("hello_plugin", "created_plugin");
        let created = std::fs::read_to_string(work.join("created-plugin").join(&created_path))
            .unwrap_or_else(|error| panic!("npm create abgen wrote no {path}: {error}"));
        assert_eq!(
            started
                .replace("hello-plugin", "x")
                .replace("hello_plugin", "x"),
            created
                .replace("created-plugin", "x")
                .replace("created_plugin", "x"),
            "{path} differs between abgen init and npm create abgen"
        );
    }

    // The packages the project pins by version come from the tarballs (nothing is published).
    run(plain("npm", &project)
        .args([
            "install",
            "--save-exact",
            "--no-audit",
            "--no-fund",
            "--prefer-offline",
        ])
        .args([abgen, platform])
        .arg(tarball(&tarballs, "agent-bundle"))
        .arg(tarball(&tarballs, "agent-bundle-runtime")));
    run(plain("npm", &project).args(["run", "typecheck"]));
    run(plain("npm", &project).args(["test"]));
    // The entries written as plain JavaScript ship too, each with its declarations.
    let entries = run(plain("node", &project).args([
        "--input-type=module",
        "--eval",
        "const test = await import('agent-bundle/test');\n\
         const rsbuild = await import('agent-bundle/rsbuild');\n\
         console.log(typeof test.createHarness, typeof test.locateBinary, typeof rsbuild.pluginAgentBundle);",
    ]));
    assert_eq!(
        String::from_utf8_lossy(&entries.stdout),
        "function function function\n",
        "{}",
        transcript(&entries)
    );
    let package = project.join("node_modules/agent-bundle");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(package.join("package.json")).unwrap()).unwrap();
    for subpath in ["./test", "./rsbuild"] {
        let types = manifest["exports"][subpath]["types"].as_str().unwrap();
        assert!(
            package.join(types).is_file(),
            "{subpath}'s declarations {types} are not in the package"
        );
    }
    rsbuild_builds_the_plugin(&project);
    readme_prebuild_builds(&project);

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
    assert_eq!(
        report["targets"],
        serde_json::json!(["claude", "codex", "cursor"])
    );
    let artifact = project.join("artifact");

    // The platform binaries are stripped, and the artifact ships the platform's abgen-host.
    let binaries = project.join("node_modules/@abgen/linux-x64-gnu/bin");
    for binary in ["abgen", "abgen-host"] {
        let sections = run(Command::new("readelf").arg("-S").arg(binaries.join(binary)));
        assert!(
            !String::from_utf8_lossy(&sections.stdout).contains(".symtab"),
            "{binary} is not stripped"
        );
    }
    assert_eq!(
        std::fs::read(artifact.join("bin/abgen-host")).unwrap(),
        std::fs::read(binaries.join("abgen-host")).unwrap(),
    );
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
    std::fs::create_dir_all(home.join("run")).unwrap();
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

    // The MCP server, started by the official SDK client (the test's own, from the repository:
    // the client is the host's part, not the plugin's).
    let served = run(plain("node", &repo())
        .arg(repo().join("codegen/tests/support/mcp-greet.mjs"))
        .arg(&artifact)
        .arg("hello_plugin")
        .env("HOME", &home)
        .env("XDG_RUNTIME_DIR", home.join("run")));
    assert!(
        String::from_utf8_lossy(&served.stdout).contains("greet"),
        "{}",
        transcript(&served)
    );
}

/// The first fenced block of the README whose body (after its language line) starts with
/// `opening`.
fn readme_block(opening: &str) -> String {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    readme
        .split("```")
        .skip(1)
        .step_by(2)
        .filter_map(|block| block.split_once('\n').map(|(_, body)| body))
        .find(|body| body.starts_with(opening))
        .unwrap_or_else(|| panic!("the README has no block starting with {opening:?}"))
        .to_owned()
}

/// The README's `rsbuild.config.mjs` under the workspace's Rsbuild version: `rsbuild build`
/// writes the route types and builds the artifact through the packed `agent-bundle/rsbuild`,
/// with the project's own `abgen` (its npm shim, found from the project: no `ABGEN_BIN`).
fn rsbuild_builds_the_plugin(project: &Path) {
    let workspace: serde_json::Value =
        serde_json::from_slice(&std::fs::read(repo().join("package.json")).unwrap()).unwrap();
    let version = workspace["devDependencies"]["@rsbuild/core"]
        .as_str()
        .unwrap();
    run(plain("npm", project).args([
        "install",
        "--save-dev",
        "--save-exact",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        &format!("@rsbuild/core@{version}"),
    ]));
    std::fs::create_dir_all(project.join("web")).unwrap();
    std::fs::write(project.join("web/index.js"), "document.title = 'hello';\n").unwrap();
    std::fs::write(
        project.join("rsbuild.config.mjs"),
        readme_block("// rsbuild.config.mjs\n"),
    )
    .unwrap();
    let routes = project.join(".agent-bundle/routes.d.ts");
    std::fs::remove_file(&routes).unwrap();
    let built = run(plain("npx", project).args(["--no-install", "rsbuild", "build"]));
    let artifact = project.join("artifact");
    for written in [
        routes,
        artifact.join(".claude-plugin/plugin.json"),
        artifact.join(".codex-plugin/plugin.json"),
    ] {
        assert!(
            written.is_file(),
            "rsbuild build wrote no {}:\n{}",
            written.display(),
            transcript(&built)
        );
    }
}

/// The README's `prebuild` scripts for a project with a build of its own: `npm run build`
/// writes the route types first, then type-checks and builds.
fn readme_prebuild_builds(project: &Path) {
    let fragment: serde_json::Value =
        serde_json::from_str(&readme_block("{\n  \"scripts\": {\n    \"prebuild\"")).unwrap();
    let manifest_path = project.join("package.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    for (name, script) in fragment["scripts"].as_object().unwrap() {
        manifest["scripts"][name] = script.clone();
    }
    std::fs::write(
        &manifest_path,
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
    let routes = project.join(".agent-bundle/routes.d.ts");
    std::fs::remove_file(&routes).unwrap();
    let built = run(plain("npm", project).args(["run", "build"]));
    assert!(routes.is_file(), "{}", transcript(&built));
    assert!(project.join("artifact/abgen.manifest.json").is_file());
}

#[test]
fn the_shim_names_a_missing_platform_package_and_honours_the_override() {
    let temp = tempfile::tempdir().unwrap();
    let tarballs = pack(&temp.path().join("tarballs"));
    let shim = temp.path().join("shim");
    std::fs::create_dir_all(&shim).unwrap();
    run(Command::new("tar")
        .arg("-xzf")
        .arg(tarball(&tarballs, "abgen"))
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
