//! Contract checks: worker protocol messages validate against schemas/worker-protocol.schema.json,
//! and the CLI projection of recorded renders reads as a user expects (snapshotted).

use std::path::{Path, PathBuf};

use abgen_runtime::document::{DocumentLimits, RenderEvent};
use abgen_runtime::flight::FlightDecoder;
use abgen_runtime::project::cli::{CliFormat, project_cli};
use abgen_runtime::worker::{
    ComputedSchemas, HostMessage, RenderLimits, RenderRequest, RouteKind, SchemasRequest,
    WorkerIdentity, WorkerMessage,
};
use serde_json::json;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn worker_messages_match_the_protocol_schema() {
    let schema = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("schemas/worker-protocol.schema.json"))
            .expect("schema file"),
    )
    .expect("schema JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let messages = [
        serde_json::to_value(HostMessage::Render(RenderRequest {
            id: 1,
            route: "tool:demo/greet".into(),
            kind: RouteKind::Tool,
            invocation: None,
            input: json!({"name": "Ada"}),
            context: Default::default(),
            providers: Default::default(),
            limits: RenderLimits {
                max_flight_bytes: Some(1024),
                max_elapsed_ms: None,
            },
        })),
        serde_json::to_value(HostMessage::Abort {
            id: 1,
            reason: "cancelled".into(),
        }),
        serde_json::to_value(WorkerMessage::Hello(WorkerIdentity {
            protocol: abgen_runtime::worker::WORKER_PROTOCOL,
            react: "19.3.1".into(),
            artifact: "abc".into(),
        })),
        serde_json::to_value(WorkerMessage::Flight { id: 1 }),
        serde_json::to_value(WorkerMessage::Progress {
            id: 1,
            completed: 3.into(),
            total: None,
            message: None,
        }),
        serde_json::to_value(WorkerMessage::End { id: 1 }),
        serde_json::to_value(HostMessage::Schemas(SchemasRequest {
            id: 2,
            route: "tool:demo/plan".into(),
            kind: RouteKind::Tool,
        })),
        serde_json::to_value(WorkerMessage::Schemas {
            id: 2,
            schemas: ComputedSchemas {
                input: Some(json!({"type": "object"})),
                result: None,
            },
        }),
    ];
    for message in messages {
        let message = message.expect("messages serialize");
        let errors: Vec<String> = validator
            .iter_errors(&message)
            .map(|error| error.to_string())
            .collect();
        assert!(errors.is_empty(), "{message} breaks the schema: {errors:?}");
    }
    assert!(
        !validator.is_valid(&json!({"type": "render", "id": 1})),
        "a render without route is refused"
    );
    // A schemas answer names both sides, a side the route does not declare as null.
    assert!(!validator.is_valid(&json!({"type": "schemas", "id": 2, "input": {}})));
    let answer: WorkerMessage = serde_json::from_value(
        json!({"type": "schemas", "id": 2, "input": {"type": "object"}, "result": null}),
    )
    .expect("a schemas answer reads");
    assert_eq!(
        answer,
        WorkerMessage::Schemas {
            id: 2,
            schemas: ComputedSchemas {
                input: Some(json!({"type": "object"})),
                result: None
            }
        }
    );
    // Context axes are observed values: available with a source, or unavailable with a code.
    let render = |context: serde_json::Value| {
        json!({"type": "render", "id": 1, "route": "tool:demo/greet", "kind": "tool",
               "input": {}, "context": context})
    };
    assert!(validator.is_valid(&render(json!({
        "host": {"state": "available", "value": "claude", "source": "native"},
        "session": {"state": "unavailable", "code": "not-reported", "reason": "no session id"},
    }))));
    for refused in [
        json!({"host": "claude"}),
        json!({"session": {"state": "unavailable", "reason": "no code"}}),
        json!({"terminal": {"state": "available", "value": "tty", "source": "guessed"}}),
        json!({"mood": {"state": "available", "value": "fine", "source": "native"}}),
        json!({"terminal": {"state": "available", "value": {"hostSurface": "cli"}, "source": "derived"}}),
        json!({"plugin": {"state": "available", "value": {"root": "/opt/plugin"}, "source": "native"}}),
    ] {
        assert!(!validator.is_valid(&render(refused.clone())), "{refused}");
    }
    // A test may inject the plugin axis and provider values; the host serializes what it is given.
    let injected = serde_json::to_value(HostMessage::Render(RenderRequest {
        id: 3,
        route: "tool:demo/greet".into(),
        kind: RouteKind::Tool,
        invocation: None,
        input: json!({}),
        context: serde_json::Map::from_iter([(
            "plugin".to_owned(),
            json!({"state": "available", "source": "derived",
                   "value": {"digest": "abc", "root": "/opt/plugin", "stateRoot": "/srv/state"}}),
        )]),
        providers: serde_json::Map::from_iter([("agentTopology".to_owned(), json!({"peers": []}))]),
        limits: RenderLimits::default(),
    }))
    .expect("serializes");
    assert_eq!(
        injected["providers"],
        json!({"agentTopology": {"peers": []}})
    );
    let errors: Vec<String> = validator
        .iter_errors(&injected)
        .map(|error| error.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{injected} breaks the schema: {errors:?}"
    );
    let mut misnamed = injected.clone();
    misnamed["providers"] = json!({"agent-topology": {}});
    assert!(
        !validator.is_valid(&misnamed),
        "a provider key is camelCase"
    );
    // The terminal axis the runtime computes is what the schema names, and a CLI invocation of
    // a tool names its invocation kind.
    let terminal = abgen_runtime::terminal::observe(
        abgen_runtime::terminal::HostSurface::Cli,
        &|_| None,
        abgen_runtime::terminal::StreamProbe {
            kind: abgen_runtime::terminal::StreamKind::Tty,
            size: Some((80, 24)),
            identity: Some((1, 1)),
        },
        abgen_runtime::terminal::StreamProbe::CLOSED,
    );
    let request = serde_json::to_value(HostMessage::Render(RenderRequest {
        id: 2,
        route: "tool:demo/greet".into(),
        kind: RouteKind::Tool,
        invocation: Some(RouteKind::Cli),
        input: json!({}),
        context: serde_json::Map::from_iter([("terminal".to_owned(), terminal.axis())]),
        providers: Default::default(),
        limits: RenderLimits::default(),
    }))
    .expect("serializes");
    let errors: Vec<String> = validator
        .iter_errors(&request)
        .map(|error| error.to_string())
        .collect();
    assert!(errors.is_empty(), "{request} breaks the schema: {errors:?}");
}

fn decode(case: &str) -> Vec<RenderEvent> {
    let bytes = std::fs::read(
        repo_root()
            .join("fixtures/flight")
            .join(format!("{case}.flight")),
    )
    .expect("fixture");
    let mut decoder = FlightDecoder::new("", DocumentLimits::default());
    let mut events = decoder.push(&bytes);
    events.extend(decoder.finish());
    events
}

#[test]
fn cli_projection_of_recorded_renders() {
    let mut report = String::new();
    for case in [
        "markdown-json",
        "error-in-suspense",
        "special-values",
        "error-outside",
    ] {
        let events = decode(case);
        for format in [CliFormat::Markdown, CliFormat::Json] {
            let output = project_cli(&events, format);
            report.push_str(&format!(
                "## {case} as {format:?} (exit {})\n{}\n",
                output.exit_code, output.stdout
            ));
        }
    }
    let ndjson = project_cli(&decode("suspense-fallback"), CliFormat::Ndjson);
    assert_eq!(
        ndjson.stdout.lines().count(),
        3,
        "ndjson prints every event"
    );
    insta::assert_snapshot!("cli_projection", report);
}
