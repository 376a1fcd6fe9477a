//! `abgen inspect --hooks [--json]` as a user runs it: the resolved table of every event route ×
//! selected host (native event, matcher, state, deadline, reason), for the curator (supported
//! and degraded rows) and for refused and excluded fixture routes.

use std::path::Path;
use std::process::Command;

fn project(relative: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
        .to_string_lossy()
        .into_owned()
}

fn run(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_abgen"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("abgen runs");
    format!(
        "exit_code: {}\n----- stdout -----\n{}----- stderr -----\n{}",
        output
            .status
            .code()
            .map_or("signal".to_owned(), |code| code.to_string()),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    )
}

#[test]
fn curator_hooks_on_every_target() {
    let root = project("examples/curator");
    insta::assert_snapshot!(
        "curator_hooks",
        run(&[
            "inspect",
            "--root",
            &root,
            "--hooks",
            "--target",
            "claude,codex,cursor"
        ])
    );
}

#[test]
fn refused_route_is_listed_with_its_reason_and_the_check_fails() {
    let root = project("fixtures/projects/ab4824-unavailable-event");
    insta::assert_snapshot!(
        "refused_hooks",
        run(&["inspect", "--root", &root, "--hooks"])
    );
}

#[test]
fn excluded_route_as_json() {
    let root = project("fixtures/projects/valid-hooks-excluded-by-targets");
    insta::assert_snapshot!(
        "excluded_hooks_json",
        run(&["inspect", "--root", &root, "--hooks", "--json"])
    );
}
