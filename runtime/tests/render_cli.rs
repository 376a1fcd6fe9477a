//! `abgen-host render` against a built test artifact: each output format, the exit codes
//! (0 success, 1 represented error, 2 failed or misused) and one-line errors.

#[path = "hook_fixture/support.rs"]
mod support;

use std::path::Path;
use std::sync::OnceLock;

use support::{abgen_host, build_artifact, transcript};

fn artifact() -> &'static Path {
    static ARTIFACT: OnceLock<std::path::PathBuf> = OnceLock::new();
    ARTIFACT.get_or_init(|| build_artifact("render-cli-artifact"))
}

fn render(extra: &[&str]) -> String {
    let root = artifact().to_str().unwrap();
    let mut args = vec!["render", "--artifact", root];
    args.extend_from_slice(extra);
    transcript(&abgen_host(&args, &[], b""), artifact())
}

#[test]
fn each_format_of_a_successful_render() {
    for format in ["document", "ndjson", "markdown", "json"] {
        let text = render(&[
            "--route",
            "tool:demo/echo",
            "--input",
            r#"{"text":"hi"}"#,
            "--format",
            format,
        ]);
        insta::assert_snapshot!(format!("echo_{format}"), text);
    }
}

#[test]
fn a_represented_error_exits_1_and_a_failed_render_2() {
    insta::assert_snapshot!(
        "represented_error",
        render(&[
            "--route",
            "tool:demo/echo",
            "--input",
            r#"{"text":"oops"}"#,
            "--format",
            "document"
        ])
    );
    insta::assert_snapshot!(
        "invalid_input",
        render(&["--route", "tool:demo/echo", "--input", r#"{"text":3}"#])
    );
}

#[test]
fn misuse_is_one_line_and_exit_2() {
    insta::assert_snapshot!("unknown_route", render(&["--route", "tool:demo/nope"]));
    insta::assert_snapshot!(
        "resource_route",
        render(&["--route", "resource:demo/notes"])
    );
    insta::assert_snapshot!(
        "input_not_json",
        render(&["--route", "tool:demo/echo", "--input", "{text"])
    );
    let empty = tempfile::tempdir().unwrap();
    let output = abgen_host(
        &[
            "render",
            "--artifact",
            empty.path().to_str().unwrap(),
            "--route",
            "tool:demo/echo",
        ],
        &[],
        b"",
    );
    insta::assert_snapshot!("no_manifest", transcript(&output, empty.path()));
}
