//! The plugin's own command line, `bin/curator` of the built `examples/curator`: help, commands
//! projected from its tools (`routes.mcpCommands`, and `find` by `search_books.cli.ts`), its
//! `src/cli/shelf/list.tsx` command and its rendered script `run reading-report`, with flags
//! from their input schemas, each projection snapshotted (piped Markdown, `--json`, `--ndjson`, and the TTY projection through
//! the harness's terminal knob), usage errors and exit codes, confirmation, and a real
//! pseudo-terminal showing the progress line drawn, redrawn in place and gone from the final
//! screen. Needs the npm workspace installed (`npm ci`) and Node 20+.

use std::io::Read as _;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod support;

use support::build_curator;

fn build(temp: &Path) -> PathBuf {
    build_curator(temp, &["claude"])
}

/// Runs `bin/curator` (the launcher, from outside the repository) with `args`.
fn curator(artifact: &Path, args: &[&str]) -> Output {
    Command::new(artifact.join("bin/curator"))
        .args(args)
        .current_dir(artifact.parent().unwrap())
        .env_remove("NODE_PATH")
        .env_remove("FORCE_COLOR")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A terminal of 100 columns on stdout, as the harness's `tty` knob shapes it.
const TTY: &str = r#"{"hostSurface":"cli","stdout":{"kind":"tty","color":"none","columns":100,"rows":30},"stderr":{"kind":"pipe","color":"none"},"sharesTarget":false}"#;

/// The commands of the snapshots: arguments, exit code, name. `stalled` is left out of the
/// audit: it depends on today's date.
const CASES: &[(&[&str], i32, &str)] = &[
    (
        &[
            "library",
            "search_books",
            "--query",
            "le guin",
            "--limit",
            "2",
        ],
        0,
        "search_books",
    ),
    (
        &["library", "show_shelf", "--shelf", "finished"],
        0,
        "show_shelf",
    ),
    (
        &[
            "library",
            "export_bibliography",
            "--book-ids",
            "wizard-of-earthsea",
            "--book-ids",
            "missing-book",
        ],
        0,
        "export_bibliography",
    ),
    (
        &[
            "library",
            "catalog_audit",
            "--checks",
            "unshelved",
            "--checks",
            "unrated",
            "--checks",
            "duplicates",
        ],
        0,
        "catalog_audit",
    ),
    (
        &[
            "library",
            "shelve_book",
            "--book-id",
            "dispossessed",
            "--shelf",
            "finished",
            "--yes",
        ],
        0,
        "shelve_book",
    ),
    (
        &[
            "library",
            "shelve_book",
            "--book-id",
            "nope",
            "--shelf",
            "reading",
            "--yes",
        ],
        1,
        "shelve_book_unknown_id",
    ),
    (
        &["shelf", "list", "--shelf", "to-read"],
        0,
        "cli_shelf_list",
    ),
    (&["find", "--query", "earthsea"], 0, "tool_cli_find"),
    (&["run", "reading-report"], 0, "script_reading_report"),
];

#[test]
fn help_lists_every_command_and_web() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build(temp.path());
    let root = curator(&artifact, &["--help"]);
    assert_eq!(root.status.code(), Some(0), "{}", text(&root.stderr));
    let help = text(&root.stdout);
    assert!(help.contains("\n  web "), "{help}");
    assert!(
        help.contains("\n  shelf list ") && help.contains("\n  run <script> "),
        "the src/cli command and the scripts: {help}"
    );
    insta::assert_snapshot!("help", help);
    let command = curator(&artifact, &["library", "catalog_audit", "--help"]);
    assert_eq!(command.status.code(), Some(0));
    insta::assert_snapshot!("help_catalog_audit", text(&command.stdout));
    let version = curator(&artifact, &["--version"]);
    assert_eq!(text(&version.stdout), "curator 0.1.0\n");
}

#[test]
fn every_projection_of_the_curator_commands() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build(temp.path());
    for (args, code, name) in CASES {
        let markdown = curator(&artifact, args);
        assert_eq!(
            markdown.status.code(),
            Some(*code),
            "{name}: {}",
            text(&markdown.stderr)
        );
        insta::assert_snapshot!(format!("{name}_markdown"), text(&markdown.stdout));

        let json = curator(&artifact, &[args, &["--json"][..]].concat());
        assert_eq!(json.status.code(), Some(*code), "{name}");
        let value: Value = serde_json::from_slice(&json.stdout).expect("--json prints JSON");
        insta::assert_json_snapshot!(format!("{name}_json"), value);

        let ndjson = curator(&artifact, &[args, &["--ndjson"][..]].concat());
        assert_eq!(ndjson.status.code(), Some(*code), "{name}");
        let events: Vec<Value> = text(&ndjson.stdout)
            .lines()
            .map(|line| serde_json::from_str(line).expect("one JSON event a line"))
            .collect();
        let sequence: Vec<u64> = events
            .iter()
            .map(|e| e["sequence"].as_u64().unwrap())
            .collect();
        assert_eq!(
            sequence,
            (0..events.len() as u64).collect::<Vec<_>>(),
            "{name}"
        );
        assert_eq!(events.last().unwrap()["type"], "complete", "{name}");

        let tty = curator(&artifact, &[&["--terminal", TTY][..], args].concat());
        assert_eq!(tty.status.code(), Some(*code), "{name}");
        insta::assert_snapshot!(format!("{name}_tty"), format!("{:?}", text(&tty.stdout)));
    }
}

#[test]
fn a_piped_run_never_prints_the_fallback() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build(temp.path());
    let piped = curator(
        &artifact,
        &["library", "catalog_audit", "--checks", "unrated"],
    );
    assert_eq!(piped.status.code(), Some(0), "{}", text(&piped.stderr));
    let stdout = text(&piped.stdout);
    assert!(!stdout.contains("Auditing the catalog"), "{stdout}");
    assert!(
        !stdout.contains("checked"),
        "no progress report either: {stdout}"
    );
    assert!(
        !stdout.contains('\x1b'),
        "no terminal control in a pipe: {stdout:?}"
    );
    // The same render on a terminal does draw it.
    let tty = curator(&artifact, &["--terminal", TTY, "library", "catalog_audit"]);
    assert!(
        text(&tty.stdout).contains("… Auditing the catalog (0/4)"),
        "{:?}",
        text(&tty.stdout)
    );
}

#[test]
fn usage_errors_exit_2_with_the_schemas_message() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build(temp.path());
    // A flag value the schema's enum refuses, read from the manifest before any render.
    let shelf = curator(&artifact, &["library", "show_shelf", "--shelf", "attic"]);
    assert_eq!(shelf.status.code(), Some(2));
    assert!(shelf.stdout.is_empty());
    insta::assert_snapshot!("usage_bad_enum", text(&shelf.stderr));
    // Under --json: one JSON line on stderr, nothing on stdout.
    let json = curator(
        &artifact,
        &["library", "show_shelf", "--shelf", "attic", "--json"],
    );
    assert_eq!(json.status.code(), Some(2));
    assert!(json.stdout.is_empty());
    let lines: Vec<&str> = std::str::from_utf8(&json.stderr).unwrap().lines().collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let error: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(error["error"]["code"], "CLI_INPUT_INVALID");
    // A value only the route's zod schema refuses (a pattern): the worker's message, exit 2.
    let pattern = curator(
        &artifact,
        &[
            "library",
            "shelve_book",
            "--book-id",
            "Not An Id",
            "--shelf",
            "reading",
            "--yes",
            "--json",
        ],
    );
    assert_eq!(pattern.status.code(), Some(2), "{}", text(&pattern.stderr));
    let error: Value = serde_json::from_slice(&pattern.stderr).unwrap();
    assert_eq!(error["error"]["code"], "CLI_INPUT_INVALID");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("bookId"),
        "{error}"
    );
    // A missing required flag, an unknown flag, an unknown command.
    for (args, says) in [
        (&["library", "show_shelf"][..], "missing --shelf"),
        (
            &["library", "show_shelf", "--shelf", "finished", "--colour"][..],
            "unknown flag `--colour`",
        ),
        (
            &["library", "burn_books"][..],
            "unknown command `library burn_books`",
        ),
    ] {
        let output = curator(&artifact, args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            text(&output.stderr).contains(says),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
}

#[test]
fn a_tool_that_changes_things_needs_yes_without_a_terminal() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build(temp.path());
    let refused = curator(
        &artifact,
        &[
            "library",
            "shelve_book",
            "--book-id",
            "dispossessed",
            "--shelf",
            "finished",
        ],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("pass --yes"),
        "{}",
        text(&refused.stderr)
    );
    assert!(refused.stdout.is_empty());
}

/// A small VT screen: printable text, `\r`, `\n`, and `ESC [ 2 K`; other CSI sequences are
/// skipped. Enough to see what a user's terminal shows at the end.
struct Screen {
    rows: Vec<Vec<char>>,
    row: usize,
    column: usize,
}

impl Screen {
    fn new() -> Screen {
        Screen {
            rows: vec![Vec::new()],
            row: 0,
            column: 0,
        }
    }

    fn feed(&mut self, text: &str) {
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' => self.column = 0,
                '\n' => {
                    self.row += 1;
                    self.column = 0;
                    if self.rows.len() <= self.row {
                        self.rows.push(Vec::new());
                    }
                }
                '\x1b' if chars.peek() == Some(&'[') => {
                    chars.next();
                    let mut parameters = String::new();
                    for c in chars.by_ref() {
                        if c.is_ascii_alphabetic() {
                            if c == 'K' && parameters == "2" {
                                self.rows[self.row].clear();
                            }
                            break;
                        }
                        parameters.push(c);
                    }
                }
                c => {
                    let line = &mut self.rows[self.row];
                    while line.len() < self.column {
                        line.push(' ');
                    }
                    if self.column < line.len() {
                        line[self.column] = c;
                    } else {
                        line.push(c);
                    }
                    self.column += 1;
                }
            }
        }
    }

    fn text(&self) -> String {
        let lines: Vec<String> = self
            .rows
            .iter()
            .map(|row| row.iter().collect::<String>())
            .collect();
        lines.join("\n")
    }
}

/// Runs `bin/curator args` with stdout on a real pseudo-terminal of 100×30; (whether it
/// succeeded, what the terminal received, stderr).
fn in_a_pty(artifact: &Path, args: &[&str]) -> (bool, String, String) {
    use rustix::fs::{Mode, OFlags};
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};

    let controller = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
    grantpt(&controller).unwrap();
    unlockpt(&controller).unwrap();
    let name = ptsname(&controller, Vec::new()).unwrap();
    let terminal: OwnedFd = rustix::fs::open(
        name.as_c_str(),
        OFlags::RDWR | OFlags::NOCTTY,
        Mode::empty(),
    )
    .unwrap();
    let size = rustix::termios::Winsize {
        ws_row: 30,
        ws_col: 100,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    rustix::termios::tcsetwinsize(&terminal, size).unwrap();

    let mut child = Command::new(artifact.join("bin/curator"))
        .args(args)
        .current_dir(artifact.parent().unwrap())
        .env_remove("NODE_PATH")
        .env_remove("FORCE_COLOR")
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .stdout(Stdio::from(terminal))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = std::fs::File::from(controller);
    let collected = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut buffer = [0u8; 4096];
        // The terminal side closes when the child exits: the read then fails (EIO) or ends.
        while let Ok(count) = reader.read(&mut buffer) {
            if count == 0 {
                break;
            }
            bytes.extend_from_slice(&buffer[..count]);
        }
        bytes
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "the command did not finish"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let raw = String::from_utf8(collected.join().unwrap()).unwrap();
    (status.success(), raw, stderr)
}

#[test]
fn on_a_real_terminal_the_progress_line_is_redrawn_in_place_and_gone_at_the_end() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build(temp.path());
    let (success, raw, stderr) = in_a_pty(
        &artifact,
        &[
            "library",
            "catalog_audit",
            "--checks",
            "unshelved",
            "--checks",
            "unrated",
            "--checks",
            "duplicates",
        ],
    );
    assert!(success, "{stderr}");

    // The line appeared, and each redraw returned to the start of the line and erased it.
    assert!(
        raw.contains("\r\x1b[2K… Auditing the catalog (0/3)"),
        "{raw:?}"
    );
    let segments: Vec<&str> = raw.split("\r\x1b[2K").collect();
    let (document, drawn) = segments.split_last().unwrap();
    assert!(
        document.starts_with("# Catalog audit\r\n"),
        "the final document follows the last erase: {raw:?}"
    );
    let draws: Vec<&str> = drawn
        .iter()
        .copied()
        .filter(|line| !line.is_empty())
        .collect();
    assert!(draws.len() >= 2, "the line was redrawn: {raw:?}");
    assert!(
        draws.iter().all(|line| !line.contains('\n')),
        "every redraw stays on one line: {raw:?}"
    );
    let unique: std::collections::BTreeSet<&&str> = draws.iter().collect();
    assert_eq!(
        unique.len(),
        draws.len(),
        "a line is drawn only when it changes: {draws:?}"
    );

    let mut screen = Screen::new();
    screen.feed(&raw);
    let shown = screen.text();
    assert!(!shown.contains("Auditing the catalog"), "{shown}");
    assert!(!shown.contains("checked ("), "{shown}");
    assert!(
        shown.starts_with("# Catalog audit\n"),
        "the final document starts the screen: {shown}"
    );
}

#[test]
fn a_src_cli_command_and_a_rendered_script_on_a_real_terminal_and_piped() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build(temp.path());
    for (args, heading) in [
        (
            &["shelf", "list", "--shelf", "finished"][..],
            "5 books on finished.",
        ),
        (&["run", "reading-report"][..], "# Reading report"),
    ] {
        let (success, raw, stderr) = in_a_pty(&artifact, args);
        assert!(success, "{args:?}: {stderr}");
        let mut screen = Screen::new();
        screen.feed(&raw);
        let shown = screen.text();
        assert!(
            shown.starts_with(heading),
            "{args:?}: the document is what the terminal shows: {shown}"
        );
        let piped = curator(&artifact, args);
        assert_eq!(piped.status.code(), Some(0), "{}", text(&piped.stderr));
        let stdout = text(&piped.stdout);
        assert!(stdout.starts_with(heading), "{args:?}: {stdout}");
        assert!(!stdout.contains('\x1b'), "{args:?}: {stdout:?}");
        assert_eq!(
            shown.trim_end(),
            stdout.trim_end(),
            "{args:?}: the terminal shows the piped document"
        );
    }
}

#[test]
fn a_plain_script_keeps_its_own_stdout_and_exit_code_on_a_terminal_and_piped() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build(temp.path());
    let ids =
        "dispossessed\ninvisible-cities-en\nperiodic-table\nselfish-gene\nmythical-man-month\n";
    let piped = curator(&artifact, &["run", "export-ids", "finished"]);
    assert_eq!(piped.status.code(), Some(0), "{}", text(&piped.stderr));
    assert_eq!(text(&piped.stdout), ids, "exactly what the script wrote");
    assert_eq!(text(&piped.stderr), "", "the script saw a pipe");
    // Its flags are its own: `--json` reaches `main` as an argument, not the projector.
    let flag = curator(&artifact, &["run", "export-ids", "--json"]);
    assert_eq!(flag.status.code(), Some(1), "no shelf is called --json");
    assert_eq!(text(&flag.stdout), "");
    assert_eq!(text(&flag.stderr), "no book is on the shelf `--json`\n");
    // On a terminal: the same bytes (the terminal turns `\n` into `\r\n`), no projection.
    let (success, raw, stderr) = in_a_pty(&artifact, &["run", "export-ids", "finished"]);
    assert!(success, "{stderr}");
    assert_eq!(raw, ids.replace('\n', "\r\n"), "{raw:?}");
    assert_eq!(stderr, "5 ids\n", "the script saw a terminal on stdout");
}
