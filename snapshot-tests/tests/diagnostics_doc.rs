//! `docs/diagnostics.md` is generated from the code table (`codegen/src/diagnostics/codes.rs`) and
//! this test fails when it is stale. `ABGEN_BLESS=1 cargo test -p snapshot-tests --test
//! diagnostics_doc` rewrites it.

use std::fmt::Write as _;
use std::path::Path;

use abgen::diagnostics::{Code, Severity};

fn render_table() -> String {
    let mut text = String::from(
        "<!-- Generated from codegen/src/diagnostics/codes.rs by \
         `ABGEN_BLESS=1 cargo test -p snapshot-tests --test diagnostics_doc`; do not edit. -->\n\
         # Diagnostic codes\n\n\
         Every diagnostic abgen reports carries one of these codes. Codes below AB5000 keep the\n\
         meaning they have in agent-bundle, so its documentation applies; AB51xx are abgen's static\n\
         schema checks, AB52xx host profiles and the host matrix, AB53xx the compiler's own input\n\
         handling, bundling and run time. Each code has a fixture project under\n\
         `fixtures/projects/<code>-<case>/` whose snapshot shows the diagnostic as users see it.\n\n\
         | code | severity | meaning |\n| --- | --- | --- |\n",
    );
    for code in Code::ALL {
        let severity = match code.default_severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        let _ = writeln!(
            text,
            "| {} | {severity} | {} |",
            code.as_str(),
            code.summary()
        );
    }
    text
}

#[test]
fn diagnostics_doc_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/diagnostics.md");
    let expected = render_table();
    if std::env::var_os("ABGEN_BLESS").is_some() {
        std::fs::write(&path, &expected).expect("docs/diagnostics.md is writable");
        return;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/diagnostics.md is stale: run `ABGEN_BLESS=1 cargo test -p snapshot-tests --test diagnostics_doc`"
    );
}
