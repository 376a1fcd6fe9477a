//! `abgen build --json` prints one report of `schemas/build-report.schema.json` whatever the
//! outcome, and `abgen build --check --out DIR` compares DIR with what the sources produce,
//! writing nothing: exit 0 when they match, 1 with a readable summary of the files and the
//! route and hook contracts that changed. A build that fails outside the check is one coded
//! diagnostic. Each case runs the real binary on a copy of the curator example.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod support;

use support::{curator_copy, install_two_reacts, repo, transcript};

struct Project {
    temp: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    /// The curator with a stand-in runtime binary and a prebuilt worker bundle, so builds are
    /// quick and need no esbuild.
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let root = curator_copy(temp.path());
        std::fs::write(temp.path().join("abgen-host"), "#!/bin/sh\nexit 2\n").unwrap();
        std::fs::write(temp.path().join("worker.mjs"), "export {};\n").unwrap();
        Self { temp, root }
    }

    fn out(&self) -> PathBuf {
        self.temp.path().join("artifact")
    }

    fn abgen(&self, args: &[&str]) -> Command {
        self.abgen_into(&self.out(), args)
    }

    /// `abgen build` of the project into `out`, with the stand-ins of [`Project::new`].
    fn abgen_into(&self, out: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_abgen"));
        command
            .arg("build")
            .args(["--target", "claude,codex", "--root"])
            .arg(&self.root)
            .arg("--out")
            .arg(out)
            .args(args)
            .env("ABGEN_HOST", self.temp.path().join("abgen-host"))
            .env("ABGEN_WORKER_BUNDLE", self.temp.path().join("worker.mjs"))
            .env("NO_COLOR", "1")
            .env_remove("ABGEN_FAILPOINT");
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.abgen(args).output().unwrap()
    }

    fn edit(&self, path: &str, from: &str, to: &str) {
        let path = self.root.join(path);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{} lacks {from:?}", path.display());
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }
}

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("schemas/build-report.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::draft202012::new(&schema).expect("the schema compiles under 2020-12")
}

/// The report on standard output, validated against its schema.
fn report(output: &Output) -> Value {
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    let value: Value = serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("not JSON ({error}):\n{}", transcript(output)));
    let errors: Vec<String> = validator()
        .iter_errors(&value)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}\n{text}", errors.join("; "));
    // The report is written by the canonical writer, so it reads back to the same bytes.
    assert_eq!(abgen::emit::canonical_json::to_canonical_json(&value), text);
    value
}

#[test]
fn a_built_project_reports_its_artifact_as_json() {
    let project = Project::new();
    let output = project.run(&["--json"]);
    assert!(output.status.success(), "{}", transcript(&output));
    let value = report(&output);
    assert_eq!(value["status"], "built");
    assert_eq!(value["targets"], serde_json::json!(["claude", "codex"]));
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(project.out().join("abgen.manifest.json")).unwrap())
            .unwrap();
    assert_eq!(value["digest"], manifest["digest"]);
    assert_eq!(
        value["files"].as_u64().unwrap() as usize,
        manifest["files"].as_array().unwrap().len() + 1
    );
    // The curator's one App, once per target, with the size of the document it wrote.
    let apps = value["apps"].as_array().unwrap();
    let targets: Vec<&str> = apps
        .iter()
        .map(|app| app["target"].as_str().unwrap())
        .collect();
    assert_eq!(targets, ["claude", "codex"]);
    let written = std::fs::metadata(project.out().join("mcp-apps/shelf_viewer.html"))
        .unwrap()
        .len();
    for app in apps {
        assert_eq!(app["name"], "shelf_viewer");
        assert_eq!(app["server"], "library");
        assert_eq!(app["path"], "mcp-apps/shelf_viewer.html");
        assert_eq!(app["bytes"].as_u64(), Some(written));
        let gzip = app["gzipBytes"].as_u64().unwrap();
        assert!(gzip > 0 && gzip < written, "{app}");
    }
}

#[test]
fn a_project_with_errors_reports_them_with_their_places() {
    let project = Project::new();
    std::fs::write(
        project.root.join("src/mcp/library/tools/broken.ts"),
        "export default defineTool({\n  description: 'unfinished',\n",
    )
    .unwrap();
    let output = project.run(&["--json"]);
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    let value = report(&output);
    assert_eq!(value["status"], "failed");
    let errors: Vec<&Value> = value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|diagnostic| diagnostic["severity"] == "error")
        .collect();
    assert!(!errors.is_empty(), "{value}");
    for error in errors {
        assert_eq!(error["file"], "src/mcp/library/tools/broken.ts", "{value}");
        assert!(
            error["line"].is_u64() && error["column"].is_u64(),
            "{value}"
        );
    }
    assert!(value["summary"]["errors"].as_u64().unwrap() >= 1);
    assert!(!project.out().exists(), "a failed build wrote its output");
}

#[test]
fn a_failure_outside_the_check_is_one_coded_diagnostic() {
    let project = Project::new();
    let output = project
        .abgen(&["--json"])
        .env("ABGEN_HOST", project.temp.path().join("no-such-abgen-host"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    let value = report(&output);
    assert_eq!(value["status"], "failed");
    assert_eq!(value["diagnostics"][0]["code"], "AB5369", "{value}");
    assert!(
        value["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("no-such-abgen-host"),
        "{value}"
    );
}

/// A build that bundles for real (no prebuilt worker) with `env` changed, as a JSON report.
fn bundling_report(project: &Project, env: &[(&str, &Path)]) -> Value {
    let mut command = project.abgen(&["--json"]);
    for (name, value) in env {
        command.env(name, value);
    }
    failed_bundling(command)
}

/// The report of `command` (a `--json` build), which must fail; it bundles for real.
fn failed_bundling(mut command: Command) -> Value {
    command.env_remove("ABGEN_WORKER_BUNDLE");
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    let value = report(&output);
    assert_eq!(value["status"], "failed");
    value
}

#[test]
fn an_import_esbuild_cannot_resolve_is_a_bundling_diagnostic() {
    let project = Project::new();
    // Installed, so `check` lets it through, but a subpath the package's `exports` hides.
    project.edit(
        "src/mcp/library/tools/search_books.tsx",
        "export default defineTool(",
        "import hidden from 'zod/no-such-subpath';\nvoid hidden;\nexport default defineTool(",
    );
    let value = bundling_report(&project, &[]);
    let diagnostic = &value["diagnostics"][0];
    assert_eq!(diagnostic["code"], "AB5360", "{value}");
    assert!(
        diagnostic["message"]
            .as_str()
            .unwrap()
            .contains("zod/no-such-subpath"),
        "{value}"
    );
    // At the import itself: line 1 of the edited module, the specifier's column.
    assert_eq!(
        diagnostic["file"], "src/mcp/library/tools/search_books.tsx",
        "{value}"
    );
    let line = diagnostic["line"].as_u64().unwrap() as usize;
    let text = std::fs::read_to_string(project.root.join("src/mcp/library/tools/search_books.tsx"))
        .unwrap();
    let at_line = text.lines().nth(line - 1).unwrap();
    let column = diagnostic["column"].as_u64().unwrap() as usize;
    assert!(
        at_line[column - 1..].starts_with("'zod/no-such-subpath'"),
        "{at_line} at {column}: {value}"
    );
    assert!(
        diagnostic["recovery"]
            .as_str()
            .unwrap()
            .contains("npm install"),
        "{value}"
    );
}

/// A one-tool project in `temp/bare` whose `node_modules` holds only `packages` (links to the
/// repository's), as a user's project that installed some of what it needs.
fn bare_project(temp: &Path, packages: &[&str]) -> PathBuf {
    let root = temp.join("bare");
    let tool = root.join("src/mcp/bare/tools/echo.ts");
    std::fs::create_dir_all(tool.parent().unwrap()).unwrap();
    std::fs::write(
        root.join("package.json"),
        r#"{"name":"bare","version":"1.0.0","type":"module"}"#,
    )
    .unwrap();
    std::fs::write(
        &tool,
        "import { defineTool } from 'agent-bundle/routes';\nimport { z } from 'zod';\n\nexport default defineTool(\n  { description: 'Echo.', inputSchema: z.object({ text: z.string() }), resultSchema: z.object({ text: z.string() }) },\n  async ({ text }) => ({ text }),\n);\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("node_modules")).unwrap();
    for package in packages {
        std::os::unix::fs::symlink(
            repo().join("node_modules").join(package),
            root.join("node_modules").join(package),
        )
        .unwrap();
    }
    root
}

#[test]
fn a_project_without_react_names_the_npm_install_that_fixes_it() {
    // A project that installed what its routes import (agent-bundle, zod) but not what the
    // render worker needs; no fallback folder, as for a user's project.
    let temp = tempfile::tempdir().unwrap();
    let root = bare_project(temp.path(), &["agent-bundle", "zod"]);
    std::fs::write(temp.path().join("abgen-host"), "#!/bin/sh\nexit 2\n").unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_abgen"));
    command
        .args(["build", "--json", "--target", "claude", "--root"])
        .arg(&root)
        .env("ABGEN_HOST", temp.path().join("abgen-host"))
        .env_remove("ABGEN_NODE_MODULES");
    let value = failed_bundling(command);
    let diagnostic = &value["diagnostics"][0];
    assert_eq!(diagnostic["code"], "AB5361", "{value}");
    let message = diagnostic["message"].as_str().unwrap();
    for name in ["`react`", "`@agent-bundle/runtime`"] {
        assert!(message.contains(name), "{name}: {value}");
    }
    assert!(!message.contains("`agent-bundle`"), "{value}");
    assert!(
        diagnostic["recovery"].as_str().unwrap().contains(
            "npm install @agent-bundle/runtime react@19.3.1 react-dom@19.3.1 react-server-dom-webpack@19.3.1"
        ),
        "{value}"
    );
}

#[test]
fn check_finds_an_import_the_project_cannot_resolve() {
    let project = Project::new();
    project.edit(
        "src/mcp/library/tools/search_books.tsx",
        "export default defineTool(",
        "import padding from 'left-pad-never-installed';\nimport { gone } from './gone.js';\nvoid padding, gone;\nexport default defineTool(",
    );
    let output = Command::new(env!("CARGO_BIN_EXE_abgen"))
        .args(["check", "--json", "--root"])
        .arg(&project.root)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", transcript(&output));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    let unresolved: Vec<&Value> = value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|diagnostic| diagnostic["code"] == "AB5365")
        .collect();
    assert_eq!(unresolved.len(), 2, "{value}");
    let line_of = |diagnostic: &Value| diagnostic["line"].as_u64().unwrap() as usize;
    let text = std::fs::read_to_string(project.root.join("src/mcp/library/tools/search_books.tsx"))
        .unwrap();
    for (diagnostic, specifier) in unresolved
        .iter()
        .zip(["'left-pad-never-installed'", "'./gone.js'"])
    {
        let at_line = text.lines().nth(line_of(diagnostic) - 1).unwrap();
        let column = diagnostic["column"].as_u64().unwrap() as usize;
        assert!(
            at_line[column - 1..].starts_with(specifier),
            "{at_line}: {value}"
        );
    }
    assert!(
        unresolved[0]["recovery"]
            .as_str()
            .unwrap()
            .contains("npm install left-pad-never-installed"),
        "{value}"
    );
    assert!(
        unresolved[1]["message"]
            .as_str()
            .unwrap()
            .contains("./gone.js"),
        "{value}"
    );
}

#[test]
fn a_react_outside_the_pinned_version_is_an_error_naming_it() {
    let project = Project::new();
    let react = project.root.join("node_modules/react");
    std::fs::create_dir_all(&react).unwrap();
    std::fs::write(
        react.join("package.json"),
        r#"{"name":"react","version":"18.3.1","main":"index.js"}"#,
    )
    .unwrap();
    let value = bundling_report(&project, &[]);
    let diagnostic = &value["diagnostics"][0];
    assert_eq!(diagnostic["code"], "AB5363", "{value}");
    let message = diagnostic["message"].as_str().unwrap();
    assert!(
        message.contains("`react` 18.3.1") && message.contains("19.3.1"),
        "{value}"
    );
    assert_eq!(diagnostic["file"], "node_modules/react", "{value}");
}

#[test]
fn two_copies_of_react_in_one_bundle_are_an_error_naming_both() {
    let project = Project::new();
    let modules = project.root.join("node_modules");
    install_two_reacts(&modules);
    project.edit(
        "src/mcp/library/tools/search_books.tsx",
        "export default defineTool(",
        "import { reactVersion } from 'shelf-widgets';\nvoid reactVersion;\nexport default defineTool(",
    );
    let value = bundling_report(&project, &[]);
    let diagnostic = value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|diagnostic| diagnostic["code"] == "AB5364")
        .unwrap_or_else(|| panic!("no AB5364: {value}"));
    let message = diagnostic["message"].as_str().unwrap();
    assert!(
        message.contains("node_modules/react,")
            && message.contains("node_modules/shelf-widgets/node_modules/react"),
        "{value}"
    );
}

#[test]
fn a_missing_toolchain_names_the_install_that_fixes_it() {
    let project = Project::new();
    // Everything installed in the project itself, but no esbuild where abgen looks for it.
    std::os::unix::fs::symlink(
        repo().join("node_modules"),
        project.root.join("node_modules"),
    )
    .unwrap();
    let empty = project.temp.path().join("empty-node-modules");
    std::fs::create_dir(&empty).unwrap();
    let value = bundling_report(&project, &[("ABGEN_NODE_MODULES", &empty)]);
    let diagnostic = &value["diagnostics"][0];
    assert_eq!(diagnostic["code"], "AB5361", "{value}");
    assert!(
        diagnostic["recovery"]
            .as_str()
            .unwrap()
            .contains("npm install"),
        "{value}"
    );
}

#[test]
fn a_missing_node_is_named() {
    let project = Project::new();
    let node = project.temp.path().join("no-such-node");
    let value = bundling_report(&project, &[("ABGEN_NODE", &node)]);
    let diagnostic = &value["diagnostics"][0];
    assert_eq!(diagnostic["code"], "AB5362", "{value}");
    assert!(
        diagnostic["recovery"]
            .as_str()
            .unwrap()
            .contains("Node.js 20"),
        "{value}"
    );
}

#[test]
fn check_matches_the_artifact_the_sources_built_and_writes_nothing() {
    let project = Project::new();
    let built = project.run(&[]);
    assert!(built.status.success(), "{}", transcript(&built));
    let before = listing(&project.out());
    let routes_d_ts = project.root.join(".agent-bundle/routes.d.ts");
    std::fs::remove_file(&routes_d_ts).unwrap();
    let checked = project.run(&["--check"]);
    assert!(checked.status.success(), "{}", transcript(&checked));
    assert!(
        String::from_utf8_lossy(&checked.stdout).contains("matches the sources"),
        "{}",
        transcript(&checked)
    );
    assert_eq!(listing(&project.out()), before);
    assert!(!routes_d_ts.exists(), "--check wrote the route types");
    let siblings: Vec<String> = std::fs::read_dir(project.temp.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".abgen-"))
        .collect();
    assert_eq!(siblings, Vec::<String>::new(), "--check left build files");
    let json = project.run(&["--check", "--json"]);
    assert!(json.status.success(), "{}", transcript(&json));
    let value = report(&json);
    assert_eq!(value["status"], "unchanged");
    assert_eq!(
        value["check"],
        serde_json::json!({"added": [], "removed": [], "changed": [], "routes": [], "hooks": []})
    );
}

#[test]
fn check_names_the_files_routes_and_hooks_that_changed() {
    let project = Project::new();
    assert!(project.run(&[]).status.success());
    let stray = project.out().join("notes.md");
    std::fs::write(&stray, "mine").unwrap();
    std::fs::remove_file(project.out().join("INSTALL.md")).unwrap();
    project.edit(
        "src/mcp/library/tools/search_books.tsx",
        "'Search the library catalog",
        "'Search the whole library catalog",
    );
    project.edit(
        "src/events/tool/after.tsx",
        "tools: ['file.write'],",
        "tools: ['file.write', 'shell'],",
    );
    let checked = project.run(&["--check"]);
    let text = transcript(&checked);
    assert_eq!(checked.status.code(), Some(1), "{text}");
    for line in [
        "added    INSTALL.md",
        "removed  notes.md",
        "changed  abgen.manifest.json",
        "route changed: tool:library/search_books",
        "hook changed: claude PostToolUse",
        "hook changed: codex PostToolUse",
        "run `abgen build --out",
    ] {
        assert!(text.contains(line), "missing {line:?}:\n{text}");
    }
    // Nothing was written: the stray file is still there, INSTALL.md still missing.
    assert!(stray.exists());
    assert!(!project.out().join("INSTALL.md").exists());
    let value = report(&project.run(&["--check", "--json"]));
    assert_eq!(value["status"], "differs");
    assert_eq!(value["check"]["added"], serde_json::json!(["INSTALL.md"]));
    assert_eq!(value["check"]["removed"], serde_json::json!(["notes.md"]));
    assert!(
        value["check"]["routes"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!({"id": "tool:library/search_books", "change": "changed"})),
        "{value}"
    );
    assert!(
        !value["check"]["hooks"].as_array().unwrap().is_empty(),
        "{value}"
    );
}

#[test]
fn check_judges_a_symlinked_output_by_its_target() {
    let project = Project::new();
    assert!(project.run(&[]).status.success());
    let link = project.temp.path().join("published");
    std::os::unix::fs::symlink(project.out(), &link).unwrap();
    let checked = project.abgen_into(&link, &["--check"]).output().unwrap();
    assert!(checked.status.success(), "{}", transcript(&checked));
}

#[test]
fn check_of_a_missing_output_lists_every_file_as_added() {
    let project = Project::new();
    let checked = project.run(&["--check", "--json"]);
    assert_eq!(checked.status.code(), Some(1), "{}", transcript(&checked));
    let value = report(&checked);
    assert_eq!(value["status"], "differs");
    assert_eq!(
        value["check"]["added"].as_array().unwrap().len() as u64,
        value["files"].as_u64().unwrap()
    );
    assert!(!project.out().exists());
}

/// Every path under `dir` with its bytes.
fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push((
                    path.strip_prefix(dir).unwrap().display().to_string(),
                    std::fs::read(&path).unwrap(),
                ));
            }
        }
    }
    files.sort();
    files
}
