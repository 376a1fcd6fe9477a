//! `--help` of the plugin's command line: the root (every command, `run` when there are scripts,
//! and `web`), one command or script (its flags, from the input schema, with their defaults), and
//! `run --help` (every script).

use std::fmt::Write as _;

use super::argv::{Flag, FlagKind, expectation};
use crate::manifest::{CliCommand, CliScript, Manifest};

/// The `web` command, served by `abgen-host web`.
const WEB: (&str, &str) = ("web", "Serve the plugin's MCP Apps in a browser");

/// The flags every command takes.
const GLOBAL_FLAGS: &[(&str, &str)] = &[
    ("--json", "Print the final value as JSON"),
    (
        "--ndjson",
        "Print every render event as one JSON line, numbered",
    ),
    ("--yes", "Run a command that changes things without asking"),
    ("--help", "Show help (after a command: its flags)"),
    ("--version", "Print the version"),
];

/// The root help, or a group's (`words` a prefix of some commands).
pub fn root(manifest: &Manifest, words: &[String]) -> String {
    let bin = &manifest.cli.bin;
    let mut text = String::new();
    let _ = writeln!(text, "{bin} {}", manifest.application.version);
    if let Some(description) = &manifest.application.description {
        let _ = writeln!(text, "{description}");
    }
    let _ = writeln!(text, "\nUsage: {bin} <command> [flags]\n\nCommands:");
    let mut rows: Vec<(String, String)> = manifest
        .cli
        .commands
        .iter()
        .filter(|command| command.path.starts_with(words))
        .map(|command| {
            (
                command.path.join(" "),
                command.description.clone().unwrap_or_default(),
            )
        })
        .collect();
    if words.is_empty() {
        if !manifest.cli.scripts.is_empty() {
            rows.push((
                "run <script>".to_owned(),
                "Run one of the plugin's scripts (`run --help` lists them)".to_owned(),
            ));
        }
        rows.push((WEB.0.to_owned(), WEB.1.to_owned()));
    }
    table(&mut text, &rows);
    let _ = writeln!(text, "\nFlags:");
    let globals: Vec<(String, String)> = GLOBAL_FLAGS
        .iter()
        .map(|(flag, what)| ((*flag).to_owned(), (*what).to_owned()))
        .collect();
    table(&mut text, &globals);
    let _ = writeln!(
        text,
        "\nRun `{bin} <command> --help` for a command's flags."
    );
    text
}

/// One command's help.
pub fn command(manifest: &Manifest, command: &CliCommand, flags: &[Flag]) -> String {
    usage_and_flags(
        &format!("{} {}", manifest.cli.bin, command.path.join(" ")),
        command.description.as_deref(),
        command.confirm,
        flags,
    )
}

/// One script's help.
pub fn script(manifest: &Manifest, script: &CliScript, flags: &[Flag]) -> String {
    usage_and_flags(
        &format!("{} run {}", manifest.cli.bin, script.name),
        script.description.as_deref(),
        false,
        flags,
    )
}

/// `run --help`: every script.
pub fn scripts(manifest: &Manifest) -> String {
    let bin = &manifest.cli.bin;
    let mut text = format!("Usage: {bin} run <script> [flags]\n\nScripts:\n");
    let rows: Vec<(String, String)> = manifest
        .cli
        .scripts
        .iter()
        .map(|script| {
            (
                script.name.clone(),
                script.description.clone().unwrap_or_default(),
            )
        })
        .collect();
    table(&mut text, &rows);
    let _ = writeln!(
        text,
        "\nRun `{bin} run <script> --help` for a script's flags."
    );
    text
}

/// `Usage: <usage> [flags]`, the description, and the flags.
fn usage_and_flags(
    usage: &str,
    description: Option<&str>,
    confirm: bool,
    flags: &[Flag],
) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "Usage: {usage} [flags]");
    if let Some(description) = description {
        let _ = writeln!(text, "\n{description}");
    }
    if confirm {
        let _ = writeln!(
            text,
            "\nThis command changes things: it asks first, or runs with --yes."
        );
    }
    let _ = writeln!(text, "\nFlags:");
    let mut rows: Vec<(String, String)> = flags.iter().map(flag_row).collect();
    rows.push((
        "--input <JSON>".to_owned(),
        "The whole input as a JSON object (flags override its keys)".to_owned(),
    ));
    rows.extend(
        GLOBAL_FLAGS
            .iter()
            .filter(|(flag, _)| *flag != "--version" && (confirm || *flag != "--yes"))
            .map(|(flag, what)| ((*flag).to_owned(), (*what).to_owned())),
    );
    table(&mut text, &rows);
    text
}

fn flag_row(flag: &Flag) -> (String, String) {
    let name = match &flag.kind {
        FlagKind::Boolean => format!("--{0}, --no-{0}", flag.name),
        FlagKind::Enum(_) => format!("--{} <choice>", flag.name),
        FlagKind::Array(_) => format!("--{} <value>...", flag.name),
        FlagKind::Number { .. } => format!("--{} <number>", flag.name),
        FlagKind::String => format!("--{} <text>", flag.name),
        FlagKind::Json => format!("--{} <JSON>", flag.name),
    };
    let mut what = flag.description.clone().unwrap_or_default();
    let mut extra = Vec::new();
    if !matches!(flag.kind, FlagKind::Boolean | FlagKind::String) {
        extra.push(expectation(&flag.kind));
    }
    if flag.required {
        extra.push("required".to_owned());
    }
    if let Some(default) = &flag.default {
        extra.push(format!("default: {}", shown(default)));
    }
    if !extra.is_empty() {
        if !what.is_empty() {
            what.push(' ');
        }
        let _ = write!(what, "[{}]", extra.join("; "));
    }
    (name, what)
}

/// A default as a user would type it.
fn shown(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Array(items) => items.iter().map(shown).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// Two columns, the first padded to the widest.
fn table(text: &mut String, rows: &[(String, String)]) {
    let width = rows
        .iter()
        .map(|(left, _)| left.chars().count())
        .max()
        .unwrap_or(0);
    for (left, right) in rows {
        let line = format!("  {left:<width$}  {right}");
        let _ = writeln!(text, "{}", line.trim_end());
    }
}
