//! A `'use client'` module anywhere in a route's module graph is a build error: a copy of
//! `examples/curator` whose `shelve_book` tool imports a client component (through a helper, so
//! the module is two imports away from the route) fails `abgen build`, naming the module and its
//! importer, as read from esbuild's metafile. Needs the npm workspace installed and Node 20+.

use abgen::emit::{BuildOptions, build_project};

mod support;

use support::{add_client_widget, copy_project, repo};

#[test]
fn a_use_client_module_in_a_routes_graph_fails_the_build_naming_it() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path().join("curator");
    copy_project(&repo().join("examples/curator"), &project);
    add_client_widget(&project);
    let tool = project.join("src/mcp/library/tools/shelve_book.tsx");
    let source = std::fs::read_to_string(&tool).unwrap();
    std::fs::write(
        &tool,
        format!("import {{ StarButton }} from '../../../lib/widgets';\nvoid StarButton;\n{source}"),
    )
    .unwrap();

    let failure = build_project(&BuildOptions {
        root: project.clone(),
        targets: Some(vec!["claude".into()]),
        out: Some(temp.path().join("artifact")),
        host_binary: None,
        platforms: None,
        node_modules: None,
        worker: Default::default(),
    })
    .expect_err("a 'use client' module must fail the build");
    let message = format!("{failure}: {failure:?}");
    assert!(
        message.contains("src/lib/star-button.tsx") && message.contains("'use client'"),
        "{message}"
    );
    assert!(message.contains("src/lib/widgets.ts"), "{message}");
}
