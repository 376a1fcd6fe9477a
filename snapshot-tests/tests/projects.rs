//! One driver over every fixture project in `fixtures/projects/*/`: check it, snapshot what a
//! user would see (the input, the rendered diagnostics, their JSON and the route graph) beside
//! the case as `check.snap`, and assert the codes its folder name promises: `valid-*` has no
//! diagnostics, `abNNNN-*` fires exactly ABNNNN.
//!
//! A file named `unreadable.ts` is unreadable in every fixture: tests run as root, so the
//! permission error is injected through the reader seam.

use std::collections::BTreeSet;
use std::io;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use abgen::check::{
    CheckCache, CheckOptions, CheckReturn, check_project_diagnostics_with, check_project_reusing,
    check_project_with,
};
use abgen::diagnostics::render::{ColorChoice, render_json, render_pretty};
use abgen::project::{FsReader, SourceReader};

struct DenyUnreadable;

impl SourceReader for DenyUnreadable {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        if path.file_name().is_some_and(|name| name == "unreadable.ts") {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "Permission denied (os error 13)",
            ));
        }
        FsReader.read(path)
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/projects")
}

fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("fixtures/projects is readable")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.is_dir())
        .collect();
    cases.sort();
    cases
}

#[test]
fn fixture_projects() {
    let mut failures = Vec::new();
    for case in cases() {
        let name = case
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let options = CheckOptions {
            root: case.clone(),
            targets: None,
        };
        let result = check_project_with(&options, &DenyUnreadable);
        if let Err(message) = check_codes(&name, &result) {
            failures.push(format!("{name}: {message}"));
        }
        // A check translates each route in the task that extracts it, unless a watch loop's
        // cache asks for the translation after the load (which keys what it keeps on every
        // route module); `abgen check` keeps no schema. All three must report the same, and
        // the two that keep schemas must keep the same ones.
        let after_load =
            check_project_reusing(&options, &DenyUnreadable, Some(&CheckCache::default()));
        let diagnostics_only = check_project_diagnostics_with(&options, &DenyUnreadable);
        for (other, how) in [
            (&after_load, "translating after the load"),
            (&diagnostics_only, "keeping no schema"),
        ] {
            if rendered(other) != rendered(&result) {
                failures.push(format!(
                    "{name}: the check {how} reports otherwise:\n{}\nagainst\n{}",
                    rendered(other),
                    rendered(&result)
                ));
            }
        }
        if after_load.schemas != result.schemas {
            failures.push(format!(
                "{name}: the check translating after the load keeps other schemas"
            ));
        }
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(&case);
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        let text = snapshot(&case, &result);
        let compared = catch_unwind(AssertUnwindSafe(|| {
            settings.bind(|| insta::assert_snapshot!("check", text));
        }));
        if compared.is_err() {
            failures.push(format!("{name}: snapshot differs (see above)"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failure(s):\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

/// The diagnostics of `result` as `abgen check` prints them, and as JSON.
fn rendered(result: &CheckReturn) -> String {
    let pretty = render_pretty(&result.diagnostics, &result.sources, ColorChoice::Never);
    format!("{pretty}\n{}", render_json(&result.diagnostics))
}

/// Codes only an MCP App's compilation reports (`abgen build`): their fixtures check clean, and
/// `codegen/tests/build_apps.rs` builds each one and asserts its code.
const APP_BUILD_CODES: &[&str] = &["AB4770", "AB4771", "AB4772"];

/// `valid-*` fires nothing; `abNNNN-*` fires exactly ABNNNN (nothing at check for a code only
/// the App build reports).
fn check_codes(name: &str, result: &CheckReturn) -> Result<(), String> {
    let fired: BTreeSet<String> = result
        .diagnostics
        .iter()
        .map(|d| d.code.as_str().to_owned())
        .collect();
    let expected: BTreeSet<String> = match name.split_once('-') {
        Some((code, _)) if APP_BUILD_CODES.contains(&code.to_uppercase().as_str()) => {
            BTreeSet::new()
        }
        Some((code, _)) if code.starts_with("ab") && code.len() == 6 => {
            BTreeSet::from([code.to_uppercase()])
        }
        _ if name.starts_with("valid-") => BTreeSet::new(),
        _ => return Err("name the folder `valid-…` or `abNNNN-…`".to_owned()),
    };
    if fired == expected {
        Ok(())
    } else {
        Err(format!("expected codes {expected:?}, fired {fired:?}"))
    }
}

/// The snapshot text: input files, diagnostics as a user reads them, their JSON, the graph.
fn snapshot(case: &Path, result: &CheckReturn) -> String {
    let mut out = String::from("# Input\n");
    for (relative, input) in input_files(case) {
        out.push_str(&format!("\n## {relative}\n\n"));
        let bytes = match input {
            Input::Symlink(target) => {
                out.push_str(&format!("(symlink to `{target}`)\n"));
                continue;
            }
            Input::File(bytes) => bytes,
        };
        match String::from_utf8(bytes) {
            Ok(text) if !text.contains('\0') => {
                let language = relative.rsplit('.').next().unwrap_or_default();
                out.push_str(&format!(
                    "```{language}\n{}```\n",
                    with_final_newline(&text)
                ));
            }
            Ok(text) => out.push_str(&format!("(binary, {} bytes)\n", text.len())),
            Err(error) => out.push_str(&format!("(binary, {} bytes)\n", error.as_bytes().len())),
        }
    }
    out.push_str("\n# Diagnostics\n\n");
    out.push_str(&render_pretty(
        &result.diagnostics,
        &result.sources,
        ColorChoice::Never,
    ));
    out.push_str("\n# JSON\n\n");
    let json: serde_json::Value =
        serde_json::from_str(&render_json(&result.diagnostics)).expect("valid JSON");
    out.push_str(&pretty(&json));
    out.push_str("\n# Route graph\n\n");
    match &result.graph {
        Some(graph) => out.push_str(&pretty(graph)),
        None => out.push_str("(none: the plugin has no name)\n"),
    }
    out
}

/// One input of a fixture, as the snapshot shows it.
enum Input {
    File(Vec<u8>),
    /// Shown as a link (never followed), so a fixture about symlinks reads as it is.
    Symlink(String),
}

fn input_files(case: &Path) -> Vec<(String, Input)> {
    let mut files = Vec::new();
    let mut pending = vec![case.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable fixture").flatten() {
            let path = entry.path();
            let kind = entry.file_type().expect("a fixture entry has a type");
            // What a build writes into the project (other tests build some fixtures) is not
            // input, and whether it is there depends on which tests ran first.
            if kind.is_dir() && entry.file_name() == ".agent-bundle" {
                continue;
            }
            if kind.is_dir() {
                pending.push(path);
                continue;
            }
            let relative = path
                .strip_prefix(case)
                .expect("inside the case")
                .to_string_lossy()
                .replace('\\', "/");
            if relative.ends_with(".snap") || relative.ends_with(".snap.new") {
                continue;
            }
            let input = if kind.is_symlink() {
                let target = std::fs::read_link(&path).expect("a readable link");
                Input::Symlink(target.to_string_lossy().replace('\\', "/"))
            } else {
                Input::File(std::fs::read(&path).expect("readable fixture file"))
            };
            files.push((relative, input));
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

fn with_final_newline(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_owned()
    } else {
        format!("{text}\n")
    }
}

fn pretty(value: &impl serde::Serialize) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(value).expect("serializable")
    )
}
