//! `resources/read` of an App's `ui://` URI, through the official MCP TypeScript SDK client
//! (`runtime/tests/mcp_client/app-resource.mjs`) against `abgen-host mcp` on a built fixture: the
//! compiled document as `text/html;profile=mcp-app` with the `_meta.ui` the App declares, and an
//! error naming the file when the document is missing from the artifact.

mod support;

use std::path::Path;

use serde_json::{Value, json};
use support::{build_fixture, node_summary};

fn read_app(artifact: &Path) -> Value {
    node_summary(
        "runtime/tests/mcp_client/app-resource.mjs",
        &[&artifact, &"status", &"ui://mcp-app-example/status.html"],
    )
}

#[test]
fn an_app_resource_is_its_compiled_document() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_fixture(&temp, "valid-app-seed-layout");
    let read = read_app(&artifact);
    let listed = &read["listed"][0];
    assert_eq!(listed["uri"], "ui://mcp-app-example/status.html");
    assert_eq!(listed["mimeType"], "text/html;profile=mcp-app");
    let contents = read["contents"]
        .as_array()
        .expect("a document, not an error");
    assert_eq!(contents.len(), 1);
    let document = &contents[0];
    assert_eq!(document["uri"], "ui://mcp-app-example/status.html");
    assert_eq!(document["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(
        document["_meta"],
        json!({ "ui": { "prefersBorder": true, "csp": { "connectDomains": [] } } })
    );
    let on_disk = std::fs::read_to_string(artifact.join("mcp-apps/status.html")).unwrap();
    assert_eq!(document["text"].as_str(), Some(on_disk.as_str()));
}

#[test]
fn a_missing_document_is_an_error_naming_the_file() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_fixture(&temp, "valid-app-seed-layout");
    std::fs::remove_file(artifact.join("mcp-apps/status.html")).unwrap();
    let read = read_app(&artifact);
    assert_eq!(read["error"]["code"], -32603, "{read}");
    let message = read["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("the App `app:status/status` at ui://mcp-app-example/status.html has no readable compiled document (mcp-apps/status.html:"),
        "{message}"
    );
    assert!(
        message.contains("rebuild the plugin with `abgen build`"),
        "{message}"
    );
}
