//! The plugin's command line: which generated tools `routes.mcpCommands` projects as commands.
//!
//! Entry: [`mcp_commands`]. A tool `tool:<server>/<tool>` becomes the command `<server> <tool>`;
//! `include`/`exclude` patterns match `<server>:<tool>` with `*` standing for any run of
//! characters. A tool that is not `annotations.readOnlyHint: true` needs confirmation.

use abgen_runtime::manifest::{CliCommand, CliProjection};
use serde_json::Value;

use super::{RouteGraph, RouteKind, ServerModeState};
use crate::diagnostics::{Code, Diagnostic, Location};
use crate::project::ProjectConfig;

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
            description: route
                .config
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
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
