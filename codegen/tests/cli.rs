//! Whole invocations of the `abgen` binary: exit code, stdout and stderr together, on fixture
//! projects. Paths in the output are project-relative, so nothing needs redacting.

use std::path::Path;

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/projects")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

mod support;

fn run(args: &[&str]) -> String {
    support::abgen_transcript(args)
}

#[test]
fn check_valid_project_exits_0() {
    insta::assert_snapshot!(
        "check_valid",
        run(&["check", "--root", &fixture("valid-minimal")])
    );
}

#[test]
fn check_with_an_error_exits_1() {
    insta::assert_snapshot!(
        "check_error",
        run(&["check", "--root", &fixture("ab4802-duplicate-id")])
    );
}

#[test]
fn check_with_only_a_warning_exits_0() {
    let out = run(&["check", "--root", &fixture("ab4011-bad-package-json")]);
    assert!(out.starts_with("exit_code: 0\n"), "{out}");
    assert!(out.contains("warning[AB4011]"), "{out}");
}

#[test]
fn check_json() {
    let root = fixture("ab4100-unknown-target");
    insta::assert_snapshot!("check_json", run(&["check", "--root", &root, "--json"]));
}

#[test]
fn target_flag_replaces_the_config_targets() {
    let root = fixture("valid-minimal");
    insta::assert_snapshot!(
        "check_target_override",
        run(&["check", "--root", &root, "--target", "claude,vscode"])
    );
    let out = run(&[
        "inspect", "--root", &root, "--target", "cursor", "--target", "claude",
    ]);
    assert!(out.contains("Plugin minimal for claude, cursor"), "{out}");
}

#[test]
fn usage_error_exits_2() {
    insta::assert_snapshot!("usage_error", run(&["check", "--bogus"]));
}

#[test]
fn inspect_summary() {
    insta::assert_snapshot!(
        "inspect_summary",
        run(&["inspect", "--root", &fixture("valid-all-kinds")])
    );
}

#[test]
fn inspect_routes() {
    let root = fixture("valid-all-kinds");
    insta::assert_snapshot!(
        "inspect_routes",
        run(&["inspect", "--root", &root, "--routes"])
    );
}

#[test]
fn inspect_json_prints_the_graph() {
    let out = run(&["inspect", "--root", &fixture("valid-minimal"), "--json"]);
    let stdout = out
        .split("----- stdout -----\n")
        .nth(1)
        .and_then(|s| s.split("----- stderr -----").next());
    let graph: serde_json::Value =
        serde_json::from_str(stdout.expect("stdout")).expect("JSON on stdout");
    assert_eq!(graph["plugin"]["name"], "minimal");
    assert_eq!(graph["routes"][0]["id"], "tool:hello/greet");
}

#[test]
fn inspect_with_errors_reports_them_on_stderr_and_exits_1() {
    insta::assert_snapshot!(
        "inspect_conflict",
        run(&["inspect", "--root", &fixture("ab4800-mode-conflict")])
    );
}
