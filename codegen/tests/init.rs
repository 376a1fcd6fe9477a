//! `abgen init` writes a project `abgen check` finds clean, asks nothing, and never replaces a
//! file: a second init into the same folder, or one over any file it would write, is AB5366 and
//! changes nothing. (The project building, type-checking and passing its own test from the npm
//! packages is `npm_install.rs`.)

use std::path::Path;
use std::process::{Command, Output, Stdio};

mod support;

use support::transcript;

fn abgen(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_abgen"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn init_writes_a_project_check_finds_clean() {
    let temp = tempfile::tempdir().unwrap();
    let made = abgen(&["init", "Shelf Helper"], temp.path());
    assert!(made.status.success(), "{}", transcript(&made));
    let root = temp.path().join("Shelf Helper");
    let package: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("package.json")).unwrap()).unwrap();
    assert_eq!(package["name"], "shelf-helper");
    for script in ["build", "dev", "test", "typecheck"] {
        assert!(package["scripts"][script].is_string(), "no {script} script");
    }
    // The route types come from `abgen generate` before tsc, as the README's `prebuild` does.
    assert_eq!(
        package["scripts"]["typecheck"],
        "abgen generate && tsc --noEmit"
    );
    let tsconfig = std::fs::read_to_string(root.join("tsconfig.json")).unwrap();
    assert!(tsconfig.contains(".agent-bundle/routes.d.ts"));
    let checked = abgen(&["check", "--json", "--root", "."], &root);
    assert!(checked.status.success(), "{}", transcript(&checked));
    let report: serde_json::Value = serde_json::from_slice(&checked.stdout).unwrap();
    assert_eq!(report["diagnostics"], serde_json::json!([]), "{report}");
    let routes = abgen(&["inspect", "--routes", "--json", "--root", "."], &root);
    let routes: serde_json::Value = serde_json::from_slice(&routes.stdout).unwrap();
    let ids: Vec<&str> = routes
        .as_array()
        .unwrap()
        .iter()
        .map(|route| route["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "app:shelf_helper/greeter",
            "event:session/start",
            "tool:shelf_helper/greet"
        ]
    );
}

#[test]
fn init_never_replaces_a_file() {
    let temp = tempfile::tempdir().unwrap();
    std::fs::write(temp.path().join("tsconfig.json"), "{ \"mine\": true }\n").unwrap();
    let refused = abgen(&["init", "--name", "mine"], temp.path());
    let text = transcript(&refused);
    assert_eq!(refused.status.code(), Some(1), "{text}");
    assert!(
        text.contains("error[AB5366]") && text.contains("`tsconfig.json`"),
        "{text}"
    );
    let left: Vec<String> = std::fs::read_dir(temp.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        left,
        ["tsconfig.json"],
        "init wrote beside the refused file"
    );
    assert_eq!(
        std::fs::read_to_string(temp.path().join("tsconfig.json")).unwrap(),
        "{ \"mine\": true }\n"
    );
    let bad_name = abgen(&["init", "fresh", "--name", "Not A Name"], temp.path());
    assert_eq!(bad_name.status.code(), Some(1));
    assert!(transcript(&bad_name).contains("AB5366"));
    assert!(!temp.path().join("fresh").exists());
}
