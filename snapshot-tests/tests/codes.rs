//! Every code in the diagnostic table has at least one fixture project that fires it
//! (`fixtures/projects/<code lowercase>-<case>/`), so no code exists only on paper; the fixture
//! driver (`projects.rs`) proves each such folder fires exactly its code. Codes about `--out` and
//! bundling come from `abgen build` alone, and those of `abgen dev proxy` from a running
//! development server, which a fixture's `check` never reaches: each names the test that makes
//! abgen report it.

use std::collections::BTreeSet;
use std::path::Path;

use abgen::diagnostics::Code;

/// Codes only `abgen build` (or `abgen dev proxy`) reports, with the test file that fires each.
const BUILD_CODES: &[(&str, &str)] = &[
    ("AB5340", "codegen/tests/build_output.rs"),
    ("AB5341", "codegen/tests/build_output.rs"),
    ("AB5342", "codegen/tests/build_output.rs"),
    ("AB5360", "codegen/tests/build_report.rs"),
    ("AB5361", "codegen/tests/build_report.rs"),
    ("AB5362", "codegen/tests/build_report.rs"),
    ("AB5363", "codegen/tests/build_report.rs"),
    ("AB5364", "codegen/tests/build_report.rs"),
    ("AB5366", "codegen/tests/init.rs"),
    ("AB5367", "codegen/tests/build_platform.rs"),
    ("AB5368", "codegen/tests/build_platform.rs"),
    ("AB5369", "codegen/tests/build_report.rs"),
    ("AB5370", "codegen/tests/build_platform.rs"),
    ("AB8024", "codegen/tests/dev_proxy.rs"),
    ("AB8025", "codegen/tests/dev_proxy.rs"),
];

#[test]
fn every_code_has_a_fixture_project() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/projects");
    let prefixes: BTreeSet<String> = std::fs::read_dir(&fixtures)
        .expect("fixtures/projects is readable")
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
        .filter_map(|name| {
            name.split_once('-')
                .map(|(prefix, _)| prefix.to_uppercase())
        })
        .collect();
    let missing: Vec<&str> = Code::ALL
        .iter()
        .map(|code| code.as_str())
        .filter(|code| !prefixes.contains(*code))
        .filter(|code| !BUILD_CODES.iter().any(|(build, _)| build == code))
        .collect();
    assert!(
        missing.is_empty(),
        "codes without a fixture project under fixtures/projects/: {missing:?}"
    );
}

#[test]
fn every_build_code_is_fired_by_its_test() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (code, test) in BUILD_CODES {
        assert!(
            Code::ALL.iter().any(|known| known.as_str() == *code),
            "{code} is not in the code table"
        );
        let text = std::fs::read_to_string(repo.join(test)).expect("the test file is readable");
        assert!(
            text.contains(&format!("\"{code}\"")),
            "{test} never expects {code}"
        );
    }
}
