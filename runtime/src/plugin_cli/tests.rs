//! `run` over a scripted renderer: what each outcome of a render prints and how it exits, and
//! what the invocation carries; the TTY projector's redraws.

use serde_json::json;

use super::*;
use crate::document::{BoundaryState, Document, DocumentError, Node};
use crate::project::cli::TtyProjector;
use crate::terminal::{ColorDepth, HostSurface, TerminalStream};

fn manifest() -> Manifest {
    serde_json::from_value(json!({
        "manifestVersion": crate::manifest::MANIFEST_VERSION,
        "application": {"name": "yard", "version": "1.2.0"},
        "digest": "d",
        "react": crate::manifest::REACT_VERSION,
        "workerProtocol": crate::worker::WORKER_PROTOCOL,
        "routes": [
            {"id": "tool:yard/rake", "kind": "tool", "source": "src/mcp/yard/tools/rake.tsx",
             "server": "yard", "wireName": "rake", "config": {"render": {"maxElapsedMs": 1234}},
             "schemas": {"input": {"source": "static", "jsonSchema": {
                 "type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}}}},
            {"id": "cli:shed/tidy", "kind": "cli", "source": "src/cli/shed/tidy.tsx",
             "config": {"description": "Tidy the shed"},
             "schemas": {"input": {"source": "static", "jsonSchema": {
                 "type": "object", "properties": {"deep": {"type": "boolean", "default": false}}}}}},
            {"id": "script:tally", "kind": "script", "source": "src/scripts/tally.tsx",
             "config": {"render": {"maxElapsedMs": 99}}, "schemas": {}}
        ],
        "servers": [{"id": "yard", "mode": "generated", "routes": ["tool:yard/rake"]}],
        "cli": {"bin": "yard", "commands": [
            {"path": ["yard", "rake"], "route": "tool:yard/rake", "projection": "mcp-command",
             "confirm": true, "description": "Rake leaves"},
            {"path": ["shed", "tidy"], "route": "cli:shed/tidy", "projection": "route",
             "confirm": false, "description": "Tidy the shed"}
        ], "scripts": [
            {"name": "sweep", "kind": "plain", "entry": "scripts/sweep.mjs"},
            {"name": "tally", "kind": "rendered", "route": "script:tally", "description": "Count the leaves"}
        ]},
        "hooks": {},
        "limits": {"render": {"maxElapsedMs": 60000, "maxBytes": 1000}, "hookInputMaxBytes": 1000},
        "files": []
    }))
    .expect("a manifest")
}

fn terminal(kind: StreamKind) -> Terminal {
    let stream = TerminalStream {
        kind,
        color: ColorDepth::None,
        columns: Some(40),
        rows: Some(10),
    };
    Terminal {
        host_surface: HostSurface::Cli,
        stdout: stream,
        stderr: stream,
        shares_target: true,
    }
}

/// Hands out `events` (numbered in order) and keeps the invocation it was asked for.
struct Scripted {
    events: Vec<RenderEventKind>,
    asked: Option<Invocation>,
}

impl Renderer for Scripted {
    fn render(
        &mut self,
        invocation: Invocation,
        on_event: &mut dyn FnMut(&RenderEvent),
    ) -> Result<Vec<RenderEvent>, String> {
        self.asked = Some(invocation);
        let events: Vec<RenderEvent> = self
            .events
            .drain(..)
            .enumerate()
            .map(|(sequence, kind)| RenderEvent {
                sequence: sequence as u64,
                kind,
            })
            .collect();
        events.iter().for_each(on_event);
        Ok(events)
    }
}

#[derive(Default)]
struct Captured {
    answer: Option<bool>,
    /// What `run_node` was asked to run.
    ran: Option<(String, Vec<String>, Terminal)>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl CliIo for Captured {
    fn confirm(&mut self, _question: &str) -> Option<bool> {
        self.answer
    }
    fn stdout(&mut self) -> &mut dyn Write {
        &mut self.stdout
    }
    fn stderr(&mut self) -> &mut dyn Write {
        &mut self.stderr
    }
    fn run_node(
        &mut self,
        entry: &str,
        args: &[String],
        terminal: &Terminal,
    ) -> Result<u8, String> {
        self.ran = Some((entry.to_owned(), args.to_vec(), *terminal));
        Ok(3)
    }
}

fn complete(document: Document) -> RenderEventKind {
    RenderEventKind::Complete { document }
}

fn text(text: &str) -> Node {
    Node::Text { text: text.into() }
}

/// Runs `args` with `events` on a `kind` stdout; (exit, stdout, stderr, the invocation).
fn run_with(
    args: &[&str],
    events: Vec<RenderEventKind>,
    kind: StreamKind,
    answer: Option<bool>,
) -> (u8, String, String, Option<Invocation>) {
    let mut renderer = Scripted {
        events,
        asked: None,
    };
    let mut io = Captured {
        answer,
        ..Captured::default()
    };
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let code = run(&manifest(), &args, &terminal(kind), &mut renderer, &mut io);
    (
        code,
        String::from_utf8(io.stdout).unwrap(),
        String::from_utf8(io.stderr).unwrap(),
        renderer.asked,
    )
}

const RAKE: &[&str] = &["yard", "rake", "--zone", "north", "--yes"];

#[test]
fn a_command_renders_its_tool_as_invocation_cli_with_the_terminal_and_budget() {
    let done = complete(Document::new(text("Raked."), Some(json!({"leaves": 3}))));
    let (code, stdout, _, asked) = run_with(RAKE, vec![done], StreamKind::Pipe, None);
    assert_eq!((code, stdout.as_str()), (EXIT_OK, "Raked.\n"));
    let asked = asked.expect("rendered");
    assert_eq!(
        (asked.kind, asked.invocation),
        (RouteKind::Tool, Some(RouteKind::Cli))
    );
    assert_eq!(asked.route, "tool:yard/rake");
    assert_eq!(asked.input, json!({"zone": "north"}));
    assert_eq!(
        asked.limits.max_elapsed_ms,
        Some(1234),
        "the route's render budget"
    );
    assert_eq!(asked.context["terminal"], terminal(StreamKind::Pipe).axis());
}

#[test]
fn a_src_cli_route_renders_as_kind_cli_with_flags_from_its_input_schema() {
    let done = complete(Document::new(text("Tidy."), None));
    let (code, stdout, _, asked) = run_with(
        &["shed", "tidy", "--deep"],
        vec![done],
        StreamKind::Pipe,
        None,
    );
    assert_eq!((code, stdout.as_str()), (EXIT_OK, "Tidy.\n"));
    let asked = asked.expect("rendered without asking: a command is no tool to confirm");
    assert_eq!((asked.kind, asked.invocation), (RouteKind::Cli, None));
    assert_eq!(asked.route, "cli:shed/tidy");
    assert_eq!(asked.input, json!({"deep": true}));
    assert_eq!(
        asked.limits.max_elapsed_ms,
        Some(60000),
        "the manifest's default"
    );
}

#[test]
fn run_renders_a_rendered_script_as_kind_script_on_the_script_surface() {
    let done = complete(Document::new(text("12 leaves."), Some(json!(12))));
    let (code, stdout, _, asked) = run_with(
        &["run", "tally", "--json"],
        vec![done],
        StreamKind::Tty,
        None,
    );
    assert_eq!((code, stdout.as_str()), (EXIT_OK, "12\n"));
    let asked = asked.expect("rendered");
    assert_eq!((asked.kind, asked.invocation), (RouteKind::Script, None));
    assert_eq!(asked.route, "script:tally");
    assert_eq!(asked.limits.max_elapsed_ms, Some(99));
    let mut expected = terminal(StreamKind::Tty);
    expected.host_surface = HostSurface::Script;
    assert_eq!(asked.context["terminal"], expected.axis());

    let (code, _, stderr, asked) = run_with(&["run", "rake"], vec![], StreamKind::Pipe, None);
    assert_eq!(code, EXIT_USAGE);
    assert!(asked.is_none());
    assert!(
        stderr.contains("unknown script `rake`; the scripts are: sweep, tally"),
        "{stderr}"
    );
    let (code, stdout, _, _) = run_with(&["run", "--help"], vec![], StreamKind::Pipe, None);
    assert_eq!(code, EXIT_OK);
    assert!(stdout.contains("tally  Count the leaves"), "{stdout}");
    assert!(stdout.contains("sweep"), "{stdout}");
    let (_, stdout, _, _) = run_with(&["--help"], vec![], StreamKind::Pipe, None);
    assert!(stdout.contains("shed tidy"), "{stdout}");
    assert!(stdout.contains("run <script>"), "{stdout}");
}

#[test]
fn run_hands_a_plain_script_every_argument_and_its_own_exit_code_without_rendering() {
    let mut renderer = Scripted {
        events: vec![],
        asked: None,
    };
    let mut io = Captured::default();
    let args: Vec<String> = ["run", "sweep", "--json", "north", "--help"]
        .iter()
        .map(|arg| (*arg).to_owned())
        .collect();
    let code = run(
        &manifest(),
        &args,
        &terminal(StreamKind::Pipe),
        &mut renderer,
        &mut io,
    );
    assert_eq!(code, 3, "the script's own exit code");
    assert!(
        renderer.asked.is_none(),
        "a plain script never enters the renderer"
    );
    assert!(io.stdout.is_empty() && io.stderr.is_empty());
    let (entry, script_args, seen) = io.ran.expect("node ran the bundle");
    assert_eq!(entry, "scripts/sweep.mjs");
    assert_eq!(
        script_args,
        ["--json", "north", "--help"],
        "its flags are its own"
    );
    assert_eq!(seen.host_surface, HostSurface::Script);
}

#[test]
fn a_throwing_route_or_a_failed_render_exits_1_and_a_refused_input_exits_2() {
    let thrown = complete(Document::failed(&DocumentError::new(
        "render-failed",
        "boom",
    )));
    let (code, stdout, stderr, _) = run_with(RAKE, vec![thrown.clone()], StreamKind::Pipe, None);
    assert_eq!(code, EXIT_FAILURE);
    assert!(
        stderr.contains("the command failed (render-failed): boom"),
        "{stderr}"
    );
    assert!(
        stdout.contains("boom"),
        "the failure is the document: {stdout}"
    );
    let (code, stdout, _, _) = run_with(
        &[RAKE, &["--json"]].concat(),
        vec![thrown],
        StreamKind::Pipe,
        None,
    );
    assert_eq!(code, EXIT_FAILURE);
    assert_eq!(
        stdout,
        "{\"error\":{\"code\":\"render-failed\",\"message\":\"boom\"}}\n"
    );

    let refused = complete(Document::failed(&DocumentError::new(
        "invalid-input",
        "zone: too short",
    )));
    let (code, stdout, stderr, _) = run_with(
        &[RAKE, &["--json"]].concat(),
        vec![refused],
        StreamKind::Pipe,
        None,
    );
    assert_eq!(code, EXIT_USAGE);
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "{\"error\":{\"code\":\"CLI_INPUT_INVALID\",\"message\":\"zone: too short\"}}\n"
    );

    let represented = complete(Document::new(
        Node::Error {
            code: "E_WET".into(),
            message: "the leaves are wet".into(),
        },
        None,
    ));
    let (code, stdout, _, _) = run_with(RAKE, vec![represented], StreamKind::Pipe, None);
    assert_eq!(
        (code, stdout.as_str()),
        (EXIT_FAILURE, "**Error** (`E_WET`): the leaves are wet\n")
    );
}

#[test]
fn a_command_that_changes_things_asks_first() {
    let done = || vec![complete(Document::new(text("Raked."), None))];
    let rake = &["yard", "rake", "--zone", "north"];
    let (code, _, stderr, asked) = run_with(rake, done(), StreamKind::Tty, None);
    assert_eq!(code, EXIT_USAGE);
    assert!(stderr.contains("pass --yes"), "{stderr}");
    assert!(asked.is_none(), "nothing rendered");
    let (code, _, stderr, asked) = run_with(rake, done(), StreamKind::Tty, Some(false));
    assert_eq!(code, EXIT_FAILURE);
    assert!(stderr.contains("not run"), "{stderr}");
    assert!(asked.is_none());
    let (code, _, _, asked) = run_with(rake, done(), StreamKind::Tty, Some(true));
    assert_eq!(code, EXIT_OK);
    assert!(asked.is_some());
}

fn pending(fallback: Node) -> Document {
    Document::new(
        Node::Result {
            children: vec![
                text("Raking"),
                Node::Boundary {
                    id: "b0".into(),
                    state: BoundaryState::Pending,
                    children: vec![fallback].into(),
                },
            ]
            .into(),
        },
        None,
    )
}

fn progress(message: &str) -> Node {
    Node::Progress {
        completed: Some(0.into()),
        total: None,
        message: Some(message.into()),
    }
}

#[test]
fn the_tty_line_is_redrawn_only_when_it_changes_and_erased_before_the_document() {
    let events = vec![
        RenderEventKind::Shell {
            document: pending(progress("Raking the north lawn")),
        },
        // The same placeholder re-streamed: nothing is redrawn.
        RenderEventKind::Shell {
            document: pending(progress("Raking the north lawn")),
        },
        RenderEventKind::Progress {
            completed: 1.into(),
            total: Some(2.into()),
            message: Some("north done".into()),
        },
        RenderEventKind::Progress {
            completed: 1.into(),
            total: Some(2.into()),
            message: Some("north done".into()),
        },
        complete(Document::new(text("Raked."), None)),
    ];
    let (code, stdout, _, _) = run_with(RAKE, events.clone(), StreamKind::Tty, None);
    assert_eq!(code, EXIT_OK);
    assert_eq!(
        stdout,
        "\r\x1b[2K… Raking the north lawn (0)\r\x1b[2K… north done (1/2)\r\x1b[2KRaked.\n"
    );
    // Piped, the same events print only the final document.
    let (_, piped, _, _) = run_with(RAKE, events, StreamKind::Pipe, None);
    assert_eq!(piped, "Raked.\n");
}

#[test]
fn the_tty_line_is_cut_to_the_terminal_width() {
    let mut tty = TtyProjector::new(Some(12));
    let drawn = tty.event(&RenderEvent {
        sequence: 0,
        kind: RenderEventKind::Shell {
            document: pending(progress("a very long progress message")),
        },
    });
    assert_eq!(drawn, "\r\x1b[2K… a very l…");
    assert_eq!(drawn.trim_start_matches("\r\x1b[2K").chars().count(), 11);
}

#[test]
fn a_routes_log_records_go_to_stderr_in_every_output_mode_never_into_the_result() {
    let logged = RenderEventKind::Log {
        level: crate::document::LogLevel::Warning,
        message: "the bag is full".into(),
        data: Some(json!({"bags": 2})),
    };
    let done = complete(Document::new(text("Raked."), Some(json!({"leaves": 3}))));
    let (code, stdout, stderr, _) = run_with(
        RAKE,
        vec![logged.clone(), done.clone()],
        StreamKind::Pipe,
        None,
    );
    assert_eq!((code, stdout.as_str()), (EXIT_OK, "Raked.\n"));
    // One line, named like the command's other stderr lines.
    assert_eq!(
        stderr,
        "yard yard rake: warning: the bag is full {\"bags\":2}\n"
    );

    let (_, stdout, stderr, _) = run_with(
        &[RAKE, &["--json"]].concat(),
        vec![logged.clone(), done.clone()],
        StreamKind::Pipe,
        None,
    );
    assert_eq!(stdout, "{\"leaves\":3}\n");
    assert!(stderr.contains("warning: the bag is full"), "{stderr}");

    // On a terminal the record goes to stderr too, and the drawn result is unchanged.
    let (_, stdout, stderr, _) = run_with(RAKE, vec![logged, done], StreamKind::Tty, None);
    assert!(stdout.ends_with("Raked.\n"), "{stdout:?}");
    assert!(!stdout.contains("bag"), "{stdout:?}");
    assert!(stderr.contains("warning: the bag is full"), "{stderr}");
}
