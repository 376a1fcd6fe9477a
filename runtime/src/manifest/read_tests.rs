use std::path::Path;

use super::{
    HookView, MANIFEST_VERSION, Manifest, read_cli_manifest, read_hook_view, read_manifest_head,
    read_server_manifest,
};

/// A manifest head in the canonical layout, `padding` bytes of file paths long, then `tail`.
fn canonical(padding: usize, tail: &str) -> String {
    format!(
        "{{\n  \"digest\": \"{digest}\",\n  \"files\": [\n    \"{path}\"\n  ],\n  \"limits\": {{\n    \"hookInputMaxBytes\": 1048576,\n    \"render\": {{\n      \"maxBytes\": 4096,\n      \"maxElapsedMs\": 5000\n    }}\n  }},\n  \"manifestVersion\": {MANIFEST_VERSION},\n  \"routes\": [{tail}",
        digest = "ab".repeat(32),
        path = "p".repeat(padding),
    )
}

/// `text` written as an artifact's manifest file, with the folder that holds it.
fn manifest_file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let temp = tempfile::tempdir().unwrap();
    let path = temp.path().join("abgen.manifest.json");
    std::fs::write(&path, text).unwrap();
    (temp, path)
}

/// `text` with `manifestVersion` 1.
fn older(text: &str) -> String {
    text.replacen(
        &format!("\"manifestVersion\": {MANIFEST_VERSION}"),
        "\"manifestVersion\": 1",
        1,
    )
}

fn head_of(text: &str) -> Option<super::ManifestHead> {
    let (_temp, path) = manifest_file(text);
    read_manifest_head(&path)
}

#[test]
fn the_head_is_read_as_far_as_the_routes_and_no_further() {
    // Past the routes line the text is no JSON: only the head can have been read.
    let head = head_of(&canonical(10, "{{{{")).unwrap();
    assert_eq!(head.digest, "ab".repeat(32));
    assert_eq!(head.limits.render.max_bytes, 4096);
    assert_eq!(head.manifest_version, MANIFEST_VERSION);
}

#[test]
fn a_routes_line_across_two_reads_is_found() {
    // The file is read 64 KiB at a time: heads of every length around that boundary put the
    // routes line across it.
    let base = canonical(0, "").len();
    for padding in (64 * 1024 - base - 20)..(64 * 1024 - base + 20) {
        assert!(head_of(&canonical(padding, "{")).is_some(), "{padding}");
    }
}

#[test]
fn another_layout_another_version_or_no_file_is_no_head() {
    let minified = canonical(3, "]}").replace(['\n', ' '], "");
    assert_eq!(head_of(&minified), None);
    assert_eq!(head_of(&older(&canonical(3, ""))), None);
    assert_eq!(
        head_of(&canonical(3, "").replace("\"limits\"", "\"other\"")),
        None
    );
    assert_eq!(
        read_manifest_head(Path::new("/nonexistent/abgen.manifest.json")),
        None
    );
}

/// The golden manifest, in the canonical layout, with hooks on three event routes.
fn curator() -> String {
    let golden = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/manifests/curator.json"
    );
    std::fs::read_to_string(golden).unwrap()
}

/// The hook view of `text` as [`read_hook_view`] reads it from a file.
fn hook_view_of(text: &str) -> HookView {
    let (_temp, path) = manifest_file(text);
    read_hook_view(&path).unwrap()
}

/// The hook view of `text` parsed whole: the document's hook members and every route its hooks
/// name.
fn whole_view_of(text: &str) -> HookView {
    let mut whole: HookView = serde_json::from_str(text).unwrap();
    let named: Vec<String> = super::hook_route_ids(&whole.hooks)
        .into_iter()
        .map(str::to_owned)
        .collect();
    whole.routes.retain(|route| named.contains(&route.id));
    whole
}

/// Where the text of `text` after the last route its hooks name starts.
fn after_hook_routes(text: &str) -> usize {
    let whole: HookView = serde_json::from_str(text).unwrap();
    super::hook_route_ids(&whole.hooks)
        .into_iter()
        .map(|id| {
            let line = text.find(&format!("\n      \"id\": \"{id}\"")).unwrap();
            line + text[line..].find("\n    }").unwrap() + "\n    }".len()
        })
        .max()
        .unwrap()
}

#[test]
fn the_hook_view_is_read_as_far_as_the_routes_the_hooks_name() {
    let text = curator();
    let whole = whole_view_of(&text);
    let read = hook_view_of(&text);
    assert_eq!(read, whole);
    assert_eq!(
        read.routes
            .iter()
            .map(|route| &route.id)
            .collect::<Vec<_>>(),
        ["event:session/start", "event:stop", "event:tool/after"]
    );
    // Past the last of those routes the text is no JSON: only they can have been read.
    let cut = after_hook_routes(&text);
    assert_eq!(hook_view_of(&format!("{}{{{{", &text[..cut])), whole);
}

#[test]
fn hook_routes_across_two_reads_are_found() {
    // The file is read 64 KiB at a time: a longer description moves the hook routes, line by
    // line, across that boundary.
    let text = curator();
    let description = "A library-curation assistant";
    let first_route = text.find("\n      \"id\": \"event:").unwrap();
    let boundary = (first_route / 65536 + 1) * 65536;
    let whole = whole_view_of(&text);
    for padding in (boundary - first_route - 600)..(boundary - first_route + 40) {
        let padded = text.replacen(
            description,
            &format!("{description}{}", "x".repeat(padding)),
            1,
        );
        let cut = after_hook_routes(&padded);
        let read = hook_view_of(&format!("{}{{{{", &padded[..cut]));
        assert_eq!(read.routes, whole.routes, "{padding}");
    }
}

#[test]
fn any_other_layout_or_a_missing_route_is_read_whole() {
    let text = curator();
    let minified =
        serde_json::to_string(&serde_json::from_str::<serde_json::Value>(&text).unwrap()).unwrap();
    let read = hook_view_of(&minified);
    assert_eq!(read, whole_view_of(&minified));
    assert_eq!(read.routes.len(), 3);
    // A route a hook names that `routes` lacks: the read goes on to the end and then reads the
    // whole manifest, which has the other two.
    let renamed = text.replacen("\"id\": \"event:stop\"", "\"id\": \"event:stopped\"", 1);
    let read = hook_view_of(&renamed);
    assert_eq!(read, whole_view_of(&renamed));
    assert_eq!(read.routes.len(), 2);
    // A hook naming what only an object after the routes has as its id (here a server, given a
    // config to read as a route): not a route, whichever layout.
    let server_named = text
        .replace("\n          \"event:stop\"", "\n          \"library\"")
        .replacen(
            "\n      \"id\": \"library\",",
            "\n      \"config\": {},\n      \"id\": \"library\",",
            1,
        );
    let read = hook_view_of(&server_named);
    assert_eq!(read, whole_view_of(&server_named));
    assert_eq!(read.routes.len(), 2);
    // Another version is the whole read's error, as before.
    let (_temp, path) = manifest_file(&older(&text));
    assert!(matches!(
        read_hook_view(&path),
        Err(super::ManifestReadError::Version { found: 1, .. })
    ));
}

/// The server view of `text` as [`read_server_manifest`] reads it from a file.
fn server_view_of(text: &str, server: &str) -> Manifest {
    let (_temp, path) = manifest_file(text);
    read_server_manifest(&path, server).unwrap()
}

/// The server view of `text` parsed whole: every member, and the routes of `server`.
fn whole_server_view_of(text: &str, server: &str) -> Manifest {
    let mut whole: Manifest = serde_json::from_str(text).unwrap();
    whole
        .routes
        .retain(|route| route.server.as_deref() == Some(server));
    whole
}

/// The curator manifest with its `catalog_audit` tool moved to a server `library-2`, whose name
/// `library` is a prefix of.
fn curator_with_two_servers() -> String {
    let text = curator();
    let at = text
        .find("\n      \"id\": \"tool:library/catalog_audit\"")
        .unwrap();
    let server = at + text[at..].find("\n      \"server\": \"library\"").unwrap();
    let line = "\n      \"server\": \"library\"";
    format!(
        "{}\n      \"server\": \"library-2\"{}",
        &text[..server],
        &text[server + line.len()..]
    )
}

#[test]
fn the_server_view_holds_every_member_and_the_routes_of_its_server() {
    let text = curator_with_two_servers();
    for server in ["library", "library-2", "none"] {
        let read = server_view_of(&text, server);
        assert_eq!(read, whole_server_view_of(&text, server), "{server}");
    }
    let ids = |server| {
        server_view_of(&text, server)
            .routes
            .into_iter()
            .map(|route| route.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids("library"),
        [
            "app:library/shelf_viewer",
            "prompt:library/review_request",
            "resource:library/shelf",
            "tool:library/export_bibliography",
            "tool:library/search_books",
            "tool:library/shelve_book",
            "tool:library/show_shelf",
        ]
    );
    assert_eq!(ids("library-2"), ["tool:library/catalog_audit"]);
    assert!(ids("none").is_empty());
}

#[test]
fn the_other_servers_routes_are_not_parsed() {
    // A route of another server that is no route at all: only the canonical read, which passes
    // over it as text, can succeed.
    let text = curator_with_two_servers().replacen(
        "\n      \"id\": \"tool:library/catalog_audit\",",
        "\n      \"id\": 17,",
        1,
    );
    assert!(serde_json::from_str::<Manifest>(&text).is_err());
    let read = server_view_of(&text, "library");
    assert_eq!(read.routes.len(), 7);
    assert_eq!(
        read.servers,
        whole_server_view_of(&curator(), "library").servers
    );
}

#[test]
fn a_server_view_read_over_many_chunks_holds_the_same_routes() {
    // The file is read 64 KiB at a time and each passed route let go: longer sources make the
    // routes several chunks long and move every route boundary and `server` line across a
    // chunk's end as the padding grows. The other server's route is no route, so only the
    // chunked read, not the whole read it falls back to, can succeed.
    let text = curator_with_two_servers();
    let broken = text.replacen(
        "\n      \"id\": \"tool:library/catalog_audit\",",
        "\n      \"id\": 17,",
        1,
    );
    let source = "\n      \"source\": \"";
    assert!(text.matches(source).count() > 10);
    let pad =
        |text: &str, padding| text.replace(source, &format!("{source}{}", "x".repeat(padding)));
    for padding in (20_000..20_000 + 40 * 211).step_by(211) {
        let padded = pad(&text, padding);
        assert!(padded.len() > 4 * 64 * 1024);
        let read = server_view_of(&pad(&broken, padding), "library");
        assert_eq!(read, whole_server_view_of(&padded, "library"), "{padding}");
    }
}

#[test]
fn a_server_view_of_any_other_layout_is_read_whole() {
    let text = curator_with_two_servers();
    let minified =
        serde_json::to_string(&serde_json::from_str::<serde_json::Value>(&text).unwrap()).unwrap();
    assert_eq!(
        server_view_of(&minified, "library"),
        whole_server_view_of(&text, "library")
    );
    // No routes at all, `[]` on the routes line, in the canonical layout otherwise.
    let mut empty: Manifest = serde_json::from_str(&text).unwrap();
    empty.routes.clear();
    let pretty = serde_json::to_string_pretty(&empty).unwrap();
    assert!(pretty.contains("\n  \"routes\": [],"));
    assert!(server_view_of(&pretty, "library").routes.is_empty());
    // Another version is the whole read's error.
    let (_temp, path) = manifest_file(&older(&text));
    assert!(matches!(
        read_server_manifest(&path, "library"),
        Err(super::ManifestReadError::Version { found: 1, .. })
    ));
}

#[test]
fn the_cli_view_holds_every_member_and_the_routes_its_commands_render() {
    let text = curator();
    let (_temp, path) = manifest_file(&text);
    let read = read_cli_manifest(&path).unwrap();
    let mut whole: Manifest = serde_json::from_str(&text).unwrap();
    let named: Vec<String> = whole
        .cli
        .commands
        .iter()
        .map(|command| command.route.clone())
        .chain(
            whole
                .cli
                .scripts
                .iter()
                .filter_map(|script| script.route.clone()),
        )
        .collect();
    whole.routes.retain(|route| named.contains(&route.id));
    assert_eq!(read, whole);
    // The rendered command and script, and the five tools the MCP commands run; not the App,
    // the prompt, the resource or the event routes.
    assert_eq!(read.routes.len(), 7);
    // A route no command renders that is no route at all: only the canonical read, which
    // passes over it as text, can succeed; the minified layout is read whole and filtered.
    let broken = text.replacen(
        "\n      \"id\": \"prompt:library/review_request\",",
        "\n      \"id\": 17,",
        1,
    );
    assert!(serde_json::from_str::<Manifest>(&broken).is_err());
    let (_temp, path) = manifest_file(&broken);
    assert_eq!(read_cli_manifest(&path).unwrap(), whole);
    let minified =
        serde_json::to_string(&serde_json::from_str::<serde_json::Value>(&text).unwrap()).unwrap();
    let (_temp, path) = manifest_file(&minified);
    assert_eq!(read_cli_manifest(&path).unwrap(), whole);
}
