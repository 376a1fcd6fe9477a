use std::path::Path;

use super::cargo_workspace;

#[test]
fn finds_the_cargo_workspace_that_holds_the_runtime() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = cargo_workspace(&crate_dir.join("src/emit")).unwrap();
    assert_eq!(workspace, crate_dir.parent().unwrap());
    assert!(cargo_workspace(Path::new("/")).is_none());
}
