//! The MCP projection over every recorded render in `fixtures/flight/*.snap` (progress
//! notifications and the final CallToolResult, snapshotted), and over hand-made documents for
//! the rules the recordings do not reach: joining, structuredContent, errors, rich-content
//! gating, `_meta`, and progress without a token or going backwards.

use std::path::Path;

use abgen_runtime::document::{Document, DocumentError, Node, RenderEvent, RenderEventKind};
use abgen_runtime::project::mcp::{McpOptions, McpProjectionError, call_tool_result, project_mcp};
use serde_json::{Map, Number, Value, json};

/// The render events recorded in an insta snapshot of the Flight fixtures (after its header).
fn recorded_events(path: &Path) -> Vec<RenderEvent> {
    let text = std::fs::read_to_string(path).unwrap();
    let body = text.splitn(3, "---\n").nth(2).unwrap();
    body.lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn everything() -> McpOptions {
    McpOptions {
        progress_token: Some(json!("req-1")),
        accepts_image: true,
        accepts_audio: true,
        ..McpOptions::default()
    }
}

#[test]
fn recorded_renders() {
    insta::glob!("../../fixtures/flight", "*.snap", |path| {
        let projection = project_mcp(&recorded_events(path), &everything());
        let mut lines: Vec<String> = projection
            .progress
            .iter()
            .map(|params| format!("progress {params}"))
            .collect();
        lines.push(match &projection.result {
            Ok(result) => format!("result {result}"),
            Err(error) => format!("projection error: {error}"),
        });
        insta::assert_snapshot!(lines.join("\n"));
    });
}

fn result(children: Vec<Node>, value: Option<Value>) -> Value {
    call_tool_result(
        &Document::new(
            Node::Result {
                children: children.into(),
            },
            value,
        ),
        &everything(),
    )
    .unwrap()
}

fn markdown(text: &str) -> Node {
    Node::Markdown { text: text.into() }
}

#[test]
fn adjacent_text_joins_with_one_blank_line_in_document_order() {
    let value = result(
        vec![
            markdown("# Title\n"),
            Node::Text {
                text: "plain".into(),
            },
            Node::Json {
                value: json!({"a": 1}),
            },
            markdown("after"),
            Node::Notice {
                text: "for you".into(),
            },
        ],
        None,
    );
    assert_eq!(
        value,
        json!({"content": [
            {"type": "text", "text": "# Title\n\nplain"},
            {"type": "text", "text": "{\"a\":1}"},
            {"type": "text", "text": "after"},
            {"type": "text", "text": "for you", "annotations": {"audience": ["user"]}},
        ]})
    );
}

#[test]
fn structured_content_only_for_an_object_value() {
    let object = result(vec![markdown("3 books")], Some(json!({"count": 3})));
    assert_eq!(object["structuredContent"], json!({"count": 3}));
    assert_eq!(
        object["content"],
        json!([{"type": "text", "text": "3 books"}])
    );
    let list = result(vec![], Some(json!([1, 2])));
    assert!(list.get("structuredContent").is_none());
    assert_eq!(list["content"], json!([{"type": "text", "text": "[1,2]"}]));
    assert!(list.get("isError").is_none());
}

#[test]
fn errors_say_code_and_message() {
    let represented = result(
        vec![
            markdown("partial"),
            Node::Error {
                code: "not-found".into(),
                message: "no such shelf".into(),
            },
        ],
        None,
    );
    assert_eq!(
        represented,
        json!({"content": [
            {"type": "text", "text": "partial"},
            {"type": "text", "text": "[not-found] no such shelf"},
        ], "isError": true})
    );
    let failed = Document::failed(&DocumentError::new("timeout", "too slow"));
    assert_eq!(
        call_tool_result(&failed, &everything()).unwrap(),
        json!({"content": [{"type": "text", "text": "[timeout] too slow"}], "isError": true})
    );
    let incomplete = project_mcp(&[], &everything());
    assert_eq!(incomplete.result.unwrap()["isError"], json!(true));
}

#[test]
fn rich_content_needs_a_client_that_takes_it_or_a_fallback() {
    let document = Document::new(
        Node::Result {
            children: vec![
                Node::Image {
                    data: "iVBO".into(),
                    mime_type: "image/png".into(),
                },
                Node::Audio {
                    data: "UklG".into(),
                    mime_type: "audio/wav".into(),
                },
            ]
            .into(),
        },
        None,
    );
    let taken = call_tool_result(&document, &everything()).unwrap();
    assert_eq!(
        taken["content"],
        json!([
            {"type": "image", "data": "iVBO", "mimeType": "image/png"},
            {"type": "audio", "data": "UklG", "mimeType": "audio/wav"},
        ])
    );
    let images_only = McpOptions {
        accepts_audio: false,
        ..everything()
    };
    assert_eq!(
        call_tool_result(&document, &images_only),
        Err(McpProjectionError::RichContent {
            kind: "audio",
            mime_type: "audio/wav".into()
        })
    );
    let with_fallback = McpOptions {
        rich_fallback: true,
        ..images_only
    };
    let fallen_back = call_tool_result(&document, &with_fallback).unwrap();
    assert_eq!(
        fallen_back["content"][1],
        json!({"type": "text", "text": "[audio (audio/wav) not shown: this client does not display audio]"})
    );
}

#[test]
fn meta_comes_from_document_metadata_and_hook_nodes_are_refused() {
    let mut document = Document::new(
        Node::Result {
            children: vec![].into(),
        },
        None,
    );
    let mut metadata = Map::new();
    metadata.insert(
        "ui".into(),
        json!({"resourceUri": "ui://curator/shelf-viewer"}),
    );
    document.metadata = Some(metadata);
    let value = call_tool_result(&document, &everything()).unwrap();
    assert_eq!(
        value["_meta"],
        json!({"ui": {"resourceUri": "ui://curator/shelf-viewer"}})
    );
    let deny = Document::new(
        Node::Result {
            children: vec![Node::Deny {
                reason: "no".into(),
            }]
            .into(),
        },
        None,
    );
    assert!(matches!(
        call_tool_result(&deny, &everything()),
        Err(McpProjectionError::HookOnly(_))
    ));
}

fn progress(sequence: u64, completed: f64, message: Option<&str>) -> RenderEvent {
    RenderEvent {
        sequence,
        kind: RenderEventKind::Progress {
            completed: Number::from_f64(completed).unwrap(),
            total: Some(Number::from(100)),
            message: message.map(str::to_owned),
        },
    }
}

#[test]
fn progress_needs_a_token_increases_strictly_and_stops_at_complete() {
    let complete = RenderEvent {
        sequence: 5,
        kind: RenderEventKind::Complete {
            document: Document::new(
                Node::Result {
                    children: vec![].into(),
                },
                None,
            ),
        },
    };
    let events = vec![
        progress(0, 10.0, Some("start")),
        progress(1, 10.0, Some("same again")),
        progress(2, 5.0, None),
        progress(3, 35.5, Some("Analyzing files")),
        complete,
        progress(6, 90.0, None),
    ];
    let projection = project_mcp(&events, &everything());
    assert_eq!(
        projection.progress,
        vec![
            json!({"progressToken": "req-1", "progress": 10.0, "total": 100, "message": "start"}),
            json!({"progressToken": "req-1", "progress": 35.5, "total": 100, "message": "Analyzing files"}),
        ]
    );
    let numeric_token = McpOptions {
        progress_token: Some(json!(7)),
        ..everything()
    };
    assert_eq!(
        project_mcp(&events, &numeric_token).progress[0]["progressToken"],
        json!(7)
    );
    let no_token = McpOptions {
        progress_token: None,
        ..everything()
    };
    assert!(project_mcp(&events, &no_token).progress.is_empty());
}

#[test]
fn a_value_as_text_replaces_the_text_blocks_and_keeps_the_rich_ones() {
    let document = Document::new(
        Node::Result {
            children: vec![
                markdown("Found **3** books."),
                Node::Image {
                    data: "iVBO".into(),
                    mime_type: "image/png".into(),
                },
            ]
            .into(),
        },
        Some(json!({"total": 3})),
    );
    let as_rendered = call_tool_result(&document, &everything()).unwrap();
    assert_eq!(as_rendered["content"][0]["text"], "Found **3** books.");
    let value_as_text = McpOptions {
        value_as_text: true,
        ..everything()
    };
    let result = call_tool_result(&document, &value_as_text).unwrap();
    assert_eq!(
        result,
        json!({
            "content": [
                {"type": "text", "text": r#"{"total":3}"#},
                {"type": "image", "data": "iVBO", "mimeType": "image/png"},
            ],
            "structuredContent": {"total": 3},
        })
    );
}

#[test]
fn a_value_in_meta_leaves_the_content_and_the_document_metadata_alone() {
    let document = Document::new(
        Node::Result {
            children: vec![markdown("Found **3** books.")].into(),
        },
        Some(json!({"total": 3})),
    )
    .with_metadata(Some(serde_json::Map::from_iter([(
        "trace".to_owned(),
        json!("t-1"),
    )])));
    let value_in_meta = McpOptions {
        value_in_meta: true,
        ..everything()
    };
    assert_eq!(
        call_tool_result(&document, &value_in_meta).unwrap(),
        json!({
            "content": [{"type": "text", "text": "Found **3** books."}],
            "_meta": {"trace": "t-1", "abgen.dev/structuredContent": {"total": 3}},
        })
    );
}
