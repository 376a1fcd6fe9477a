//! `abgen inspect --hooks [--json]` as a user runs it: the resolved table of every event route ×
//! selected host (native event, matcher, state, deadline, failure mode, reason), for the curator
//! (supported and degraded rows), for a guard that fails closed, and for refused and excluded
//! fixture routes.

use std::path::Path;

fn project(relative: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
        .to_string_lossy()
        .into_owned()
}

mod support;

fn run(args: &[&str]) -> String {
    support::abgen_transcript(args)
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

#[test]
fn a_guard_shows_how_it_fails() {
    let root = project("fixtures/projects/valid-guard-fails-closed");
    insta::assert_snapshot!("guard_hooks", run(&["inspect", "--root", &root, "--hooks"]));
}
