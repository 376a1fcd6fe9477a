//! `abgen dev`'s render worker, module by module ([`WorkerMode::Modules`]): a copy of
//! `examples/curator` (routes importing relative helpers, zod, JSX) built that way with the real
//! esbuild and the real `abgen-host` renders every tool it renders from the production bundle,
//! byte for byte; a rebuild through the watch loop's cache after one route changes (it now
//! imports a module with a top-level await) renders the change; and the bundle's checks ('use
//! client' in the graph, two copies of React) fail the build as they do for the bundle. Needs
//! the npm workspace installed and Node 20.6+.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use abgen::apps::AppProfile;
use abgen::bundle::WorkerMode;
use abgen::emit::{BuildCache, BuildOptions, build_project_reusing};
use support::{add_client_widget, curator_copy, host_binary, install_two_reacts};

const TOOL: &str = "src/mcp/library/tools/show_shelf.tsx";

fn options(project: &Path, out: PathBuf, worker: WorkerMode) -> BuildOptions {
    BuildOptions {
        root: project.to_owned(),
        targets: Some(vec!["claude".into()]),
        out: Some(out),
        host_binary: Some(host_binary()),
        worker,
        ..BuildOptions::default()
    }
}

fn render(artifact: &Path, cwd: &Path, route: &str, input: &str) -> Output {
    Command::new(artifact.join("bin/abgen-host"))
        .args(["render", "--artifact"])
        .arg(artifact)
        .args(["--route", route, "--input", input, "--format", "document"])
        .current_dir(cwd)
        .env_remove("NODE_PATH")
        .output()
        .unwrap()
}

fn replace_in(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} holds {from:?}", path.display());
    std::fs::write(path, text.replace(from, to)).unwrap();
}

const CASES: &[(&str, &str)] = &[
    (
        "tool:library/search_books",
        r#"{"query": "le guin", "limit": 2}"#,
    ),
    (
        "tool:library/shelve_book",
        r#"{"bookId": "nope", "shelf": "reading"}"#,
    ),
    ("tool:library/show_shelf", r#"{"shelf": "finished"}"#),
    (
        "tool:library/catalog_audit",
        r#"{"checks": ["unshelved", "unrated", "duplicates"]}"#,
    ),
];

#[test]
fn the_module_worker_renders_what_the_bundle_renders_and_follows_a_change() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let project = curator_copy(&temp);
    let bundled = temp.join("bundled");
    let modules = temp.join("modules");
    build_project_reusing(
        &options(&project, bundled.clone(), WorkerMode::Bundle),
        AppProfile::Production,
        None,
    )
    .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));
    let cache = BuildCache::default();
    let dev = options(&project, modules.clone(), WorkerMode::Modules);
    build_project_reusing(&dev, AppProfile::Development, Some(&cache))
        .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));
    let worker = std::fs::read_to_string(modules.join("runtime/worker.mjs")).unwrap();
    assert!(
        worker.contains("\n// abgen-modules {") && worker.contains("nodeModule.register("),
        "the development worker is the module loader"
    );
    assert!(
        !std::fs::read_to_string(bundled.join("runtime/worker.mjs"))
            .unwrap()
            .contains("abgen-modules"),
        "a build's worker is the bundle"
    );

    for (route, input) in CASES {
        let (want, got) = (
            render(&bundled, &temp, route, input),
            render(&modules, &temp, route, input),
        );
        let stderr = String::from_utf8_lossy(&got.stderr);
        assert_eq!(got.status.code(), want.status.code(), "{route}: {stderr}");
        assert!(!want.stdout.is_empty(), "{route}");
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want.stdout),
            "{route}: {stderr}"
        );
    }

    // One route changes, and now imports a module that awaits at its top level.
    std::fs::write(
        project.join("src/lib/heading.ts"),
        "export const heading = await Promise.resolve('Shelf');\n",
    )
    .unwrap();
    replace_in(
        &project.join(TOOL),
        "import { z } from 'zod';",
        "import { z } from 'zod';\nimport { heading } from '../../../lib/heading';",
    );
    replace_in(
        &project.join(TOOL),
        "{`## ${shelf} (",
        "{`## ${heading} ${shelf} (",
    );
    build_project_reusing(&dev, AppProfile::Development, Some(&cache))
        .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));
    assert!(
        cache.scripts.served().pid().is_some(),
        "the rebuild went through the served bundler"
    );
    let output = render(&modules, &temp, "tool:library/show_shelf", CASES[2].1);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("## Shelf finished (5 books)"),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The route it did not change renders as before.
    let output = render(&modules, &temp, CASES[0].0, CASES[0].1);
    assert_eq!(
        output.stdout,
        render(&bundled, &temp, CASES[0].0, CASES[0].1).stdout
    );
}

/// The message of the failed modules-mode build of `project`.
fn failed_modules_build(temp: &Path, project: &Path) -> String {
    let failure = build_project_reusing(
        &options(project, temp.join("artifact"), WorkerMode::Modules),
        AppProfile::Development,
        None,
    )
    .expect_err("the build must fail");
    format!("{failure}: {failure:?}")
}

#[test]
fn a_use_client_module_in_the_graph_fails_the_module_worker() {
    let temp = tempfile::tempdir().unwrap();
    let project = curator_copy(temp.path());
    add_client_widget(&project);
    replace_in(
        &project.join("src/mcp/library/tools/shelve_book.tsx"),
        "import { z } from 'zod';",
        "import { z } from 'zod';\nimport { StarButton } from '../../../lib/widgets';\nvoid StarButton;",
    );
    let message = failed_modules_build(temp.path(), &project);
    assert!(
        message.contains("src/lib/star-button.tsx")
            && message.contains("'use client'")
            && message.contains("src/lib/widgets.ts"),
        "{message}"
    );
}

#[test]
fn two_copies_of_react_fail_the_module_worker_naming_both() {
    let temp = tempfile::tempdir().unwrap();
    let project = curator_copy(temp.path());
    let modules = project.join("node_modules");
    install_two_reacts(&modules);
    replace_in(
        &project.join("src/mcp/library/tools/search_books.tsx"),
        "export default defineTool(",
        "import { reactVersion } from 'shelf-widgets';\nvoid reactVersion;\nexport default defineTool(",
    );
    let message = failed_modules_build(temp.path(), &project);
    assert!(
        message.contains("kind: DuplicateReact")
            && message.contains("node_modules/react,")
            && message.contains("node_modules/shelf-widgets/node_modules/react"),
        "{message}"
    );
}

#[test]
fn an_unresolved_import_fails_the_module_worker_at_its_place() {
    let temp = tempfile::tempdir().unwrap();
    let project = curator_copy(temp.path());
    // Installed, so the check lets it through, but a subpath the package's `exports` hides.
    replace_in(
        &project.join("src/mcp/library/tools/search_books.tsx"),
        "export default defineTool(",
        "import hidden from 'zod/no-such-subpath';\nvoid hidden;\nexport default defineTool(",
    );
    let line = std::fs::read_to_string(project.join("src/mcp/library/tools/search_books.tsx"))
        .unwrap()
        .lines()
        .position(|line| line.starts_with("import hidden"))
        .unwrap()
        + 1;
    let message = failed_modules_build(temp.path(), &project);
    assert!(
        message.contains("kind: Esbuild") && message.contains("zod/no-such-subpath"),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "file: Some(\"src/mcp/library/tools/search_books.tsx\"), line: Some({line}), column: Some(20)"
        )),
        "{message}"
    );
}
