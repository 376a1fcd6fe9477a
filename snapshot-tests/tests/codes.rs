//! Every code in the diagnostic table has at least one fixture project that fires it
//! (`fixtures/projects/<code lowercase>-<case>/`), so no code exists only on paper; the fixture
//! driver (`projects.rs`) proves each such folder fires exactly its code.

use std::collections::BTreeSet;
use std::path::Path;

use abgen::diagnostics::Code;

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
        .collect();
    assert!(
        missing.is_empty(),
        "codes without a fixture project under fixtures/projects/: {missing:?}"
    );
}
