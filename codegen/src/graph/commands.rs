//! The plugin's command line: the rendered `src/cli/**` commands, the generated tools
//! `routes.mcpCommands` projects as commands, and the rendered scripts `<plugin> run` runs.
//!
//! Entries: [`cli_commands`] (every command, with AB4813 for paths that collide), [`mcp_commands`],
//! [`cli_scripts`]. A `src/cli/<a>/<b>` route is the command `<a> <b>`; a tool's `<tool>.cli.ts`
//! names the words of the command that runs the tool (asking first unless the tool is
//! `readOnlyHint: true`, or as its `confirm` says). A tool `tool:<server>/<tool>` becomes the command `<server> <tool>`;
//! `include`/`exclude` patterns match `<server>:<tool>` with `*` standing for any run of
//! characters. A tool that is not `annotations.readOnlyHint: true` needs confirmation.

use abgen_runtime::manifest::{CliCommand, CliProjection, CliScript, CliScriptKind};
use serde_json::Value;

use super::{RouteGraph, RouteKind, ServerModeState};
use crate::diagnostics::{Code, Diagnostic, Location};
use crate::project::ProjectConfig;

/// Every command of the plugin's command line, sorted by path: the rendered `src/cli/**` routes
/// and the tools `routes.mcpCommands` projects, with what is wrong with them (AB4822 patterns,
/// AB4813 two commands on one path or a command that is also a group).
pub fn cli_commands(
    config: &ProjectConfig,
    graph: &RouteGraph,
) -> (Vec<CliCommand>, Vec<Diagnostic>) {
    let (mut commands, mut diagnostics) = mcp_commands(config, graph);
    commands.extend(graph.routes.iter().filter_map(|route| {
        let projection = route.cli_projection.as_ref()?;
        // A malformed `command` is AB4841 at the projection already.
        let path = crate::extract::projection_words(projection.config.get("command")?)?;
        Some(CliCommand {
            path,
            route: route.id.clone(),
            projection: CliProjection::ToolCli,
            confirm: projection
                .config
                .get("confirm")
                .and_then(Value::as_bool)
                .unwrap_or_else(|| !read_only(&route.config)),
            description: description(&projection.config).or_else(|| description(&route.config)),
        })
    }));
    commands.extend(
        graph
            .routes
            .iter()
            .filter(|route| route.kind == RouteKind::Cli)
            .map(|route| CliCommand {
                path: route
                    .name
                    .as_deref()
                    .unwrap_or_default()
                    .split('/')
                    .map(str::to_owned)
                    .collect(),
                route: route.id.clone(),
                projection: CliProjection::Route,
                confirm: false,
                description: description(&route.config),
            }),
    );
    commands.sort_by(|a, b| a.path.cmp(&b.path).then_with(|| a.route.cmp(&b.route)));
    let source = |command: &CliCommand| {
        graph.route(&command.route).map_or_else(
            || command.route.clone(),
            |route| match command.projection {
                CliProjection::ToolCli => route
                    .cli_projection
                    .as_ref()
                    .map_or_else(|| route.path.clone(), |projection| projection.path.clone()),
                _ => route.path.clone(),
            },
        )
    };
    let has_scripts = graph
        .routes
        .iter()
        .any(|route| route.kind == RouteKind::Script)
        || !graph.plain_scripts.is_empty();
    let mut kept: Vec<CliCommand> = Vec::with_capacity(commands.len());
    for command in commands {
        // `web` is `abgen-host web` (the launcher's), `run` the scripts' when there are any.
        let reserved = match command.path.first().map(String::as_str) {
            Some("web") => Some("`web` serves the plugin's MCP Apps in a browser"),
            Some("run") if has_scripts => Some("`run <name>` runs the plugin's scripts"),
            _ => None,
        };
        if let Some(reserved) = reserved {
            diagnostics.push(
                Diagnostic::new(
                    Code::AB4813,
                    format!(
                        "`{}` is the command `{}`, but {reserved}",
                        source(&command),
                        command.path.join(" ")
                    ),
                    "rename the command (its `src/cli/` file or folder, or the projection's `command`)",
                )
                .at(Location::file(source(&command))),
            );
            continue;
        }
        let clash = kept.iter().find(|other| {
            other.path == command.path
                || other.path.starts_with(&command.path)
                || command.path.starts_with(&other.path)
        });
        if let Some(other) = clash {
            let (words, other_words) = (command.path.join(" "), other.path.join(" "));
            let what = if other.path == command.path {
                format!(
                    "`{}` and `{}` are both the command `{words}`",
                    source(other),
                    source(&command)
                )
            } else {
                format!(
                    "`{}` is the command `{other_words}` and `{}` the command `{words}`: one cannot be both a command and a group of commands",
                    source(other),
                    source(&command)
                )
            };
            diagnostics.push(
                Diagnostic::new(
                    Code::AB4813,
                    what,
                    "rename one of them (a `src/cli/` file or folder), or leave the tool out of `routes.mcpCommands` with `exclude`",
                )
                .at(Location::file(source(&command))),
            );
            continue;
        }
        kept.push(command);
    }
    (kept, diagnostics)
}

/// The scripts, sorted by name: `<plugin> run <name>` renders `script:<name>`, or runs a plain
/// script's bundle, `scripts/<name>.mjs`, with node.
pub fn cli_scripts(graph: &RouteGraph) -> Vec<CliScript> {
    let rendered = graph
        .routes
        .iter()
        .filter(|route| route.kind == RouteKind::Script)
        .map(|route| CliScript {
            name: route.name.clone().unwrap_or_default(),
            kind: CliScriptKind::Rendered,
            route: Some(route.id.clone()),
            entry: None,
            description: description(&route.config),
        });
    let plain = graph.plain_scripts.iter().map(|script| CliScript {
        name: script.name.clone(),
        kind: CliScriptKind::Plain,
        route: None,
        entry: Some(plain_script_entry(&script.name)),
        description: None,
    });
    let mut scripts: Vec<CliScript> = rendered.chain(plain).collect();
    scripts.sort_by(|a, b| a.name.cmp(&b.name));
    scripts
}

/// Where a plain script's bundle lives in the artifact.
pub fn plain_script_entry(name: &str) -> String {
    format!("scripts/{name}.mjs")
}

fn description(config: &serde_json::Map<String, Value>) -> Option<String> {
    config
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The commands `routes.mcpCommands` projects, sorted by path, and what is wrong with its
/// patterns.
pub fn mcp_commands(
    config: &ProjectConfig,
    graph: &RouteGraph,
) -> (Vec<CliCommand>, Vec<Diagnostic>) {
    let Some(selection) = &config.mcp_commands else {
        return (Vec::new(), Vec::new());
    };
    let generated = |server: &str| {
        graph
            .servers
            .iter()
            .any(|node| node.id == server && node.mode == ServerModeState::Generated)
    };
    let tools: Vec<_> = graph
        .routes
        .iter()
        .filter(|route| route.kind == RouteKind::Tool)
        .filter_map(|route| {
            let server = route.server.as_deref()?;
            let name = route.name.as_deref()?;
            generated(server).then(|| (format!("{server}:{name}"), server, name, route))
        })
        .collect();
    let mut diagnostics = Vec::new();
    let location = |key: &str| {
        config
            .location(&format!("/routes/mcpCommands/{key}"))
            .or_else(|| config.file.as_deref().map(Location::file))
    };
    let mut unmatched = |key: &str, patterns: &[String]| {
        for pattern in patterns {
            if !tools.iter().any(|(id, ..)| matches(pattern, id)) {
                let known: Vec<&str> = tools.iter().map(|(id, ..)| id.as_str()).collect();
                let diagnostic = Diagnostic::new(
                    Code::AB4822,
                    format!(
                        "`routes.mcpCommands.{key}` pattern `{pattern}` matches no generated tool"
                    ),
                    format!(
                        "write `<server>:<tool>` (with `*` for any run of characters); the generated tools are: {}",
                        if known.is_empty() {
                            "none".to_owned()
                        } else {
                            known.join(", ")
                        }
                    ),
                );
                diagnostics.push(match location(key) {
                    Some(location) => diagnostic.at(location),
                    None => diagnostic,
                });
            }
        }
    };
    if let Some(include) = &selection.include {
        unmatched("include", include);
    }
    unmatched("exclude", &selection.exclude);
    if selection.include.as_ref().is_some_and(Vec::is_empty) {
        let diagnostic = Diagnostic::new(
            Code::AB4822,
            "`routes.mcpCommands.include` is empty, so no tool is projected",
            "name the tools to project as `<server>:<tool>` patterns, or remove `include` to project every tool",
        );
        diagnostics.push(match location("include") {
            Some(location) => diagnostic.at(location),
            None => diagnostic,
        });
    }
    let mut commands: Vec<CliCommand> = tools
        .iter()
        .filter(|(id, ..)| {
            selection
                .include
                .as_ref()
                .is_none_or(|include| include.iter().any(|pattern| matches(pattern, id)))
                && !selection.exclude.iter().any(|pattern| matches(pattern, id))
        })
        .map(|(_, server, name, route)| CliCommand {
            path: vec![(*server).to_owned(), (*name).to_owned()],
            route: route.id.clone(),
            projection: CliProjection::McpCommand,
            confirm: !read_only(&route.config),
            description: description(&route.config),
        })
        .collect();
    commands.sort_by(|a, b| a.path.cmp(&b.path));
    (commands, diagnostics)
}

/// `annotations.readOnlyHint` is literally `true`.
fn read_only(config: &serde_json::Map<String, Value>) -> bool {
    config
        .get("annotations")
        .and_then(|annotations| annotations.get("readOnlyHint"))
        .and_then(Value::as_bool)
        == Some(true)
}

/// Whether `pattern` (`*` any run of characters, everything else literal) matches all of `text`.
fn matches(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn patterns_match_with_star_only() {
        assert!(matches("library:search_books", "library:search_books"));
        assert!(!matches("library:search", "library:search_books"));
        assert!(matches("library:*", "library:search_books"));
        assert!(matches("*:search_*", "library:search_books"));
        assert!(matches("*", "a:b"));
        assert!(matches("l*y:*s", "library:books"));
        assert!(!matches("l*y:*s", "library:book"));
        assert!(!matches("a*a", "a"), "the prefix and suffix cannot overlap");
        assert!(!matches("library:?", "library:x"), "only `*` is special");
    }
}
