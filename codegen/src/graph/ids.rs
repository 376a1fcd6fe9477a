//! Route identity: ids from paths, safe identity segments, the event vocabulary and provider
//! keys.
//!
//! Entry call: [`identify`]. Invariant: an id depends on the module's path alone, and a module
//! whose path cannot give a valid id gets one diagnostic and no id.

use crate::diagnostics::{Code, Diagnostic, Location};
use crate::project::{LayoutScope, ModuleKind};

use super::model::RouteKind;

/// The canonical events (agent-bundle's vocabulary plus abgen's `file/saved`, `notification`
/// and `turn/interrupt`).
pub const EVENT_VOCABULARY: &[&str] = &[
    "session/start",
    "session/end",
    "prompt/submit",
    "agent/start",
    "agent/stop",
    "agent/idle",
    "tool/before",
    "tool/after",
    "tool/failure",
    "permission/request",
    "permission/denied",
    "compact/before",
    "compact/after",
    "stop",
    "stop/failure",
    "config/change",
    "task/create",
    "task/complete",
    "model-switch/before",
    "model-switch/after",
    "workspace/open",
    "file/saved",
    "notification",
    "turn/interrupt",
];

/// agent-bundle's name for `file/saved`, accepted with an info diagnostic (AB5304).
const FILE_CHANGE_ALIAS: (&str, &str) = ("file/change", "file/saved");

/// What a module is, once its path has given it an id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Identity {
    Route(RouteIdentity),
    Layout {
        id: String,
        server: Option<String>,
    },
    Provider {
        id: String,
        key: String,
    },
    /// `src/mcp/<server>.{ts,tsx}` claims the server id; it is not itself in the graph.
    ServerEntry {
        server: String,
    },
    /// `src/scripts/<name>.ts`: a plain script, `script:<name>` like a rendered one (so the two
    /// cannot share a name), bundled and run by node, never rendered.
    PlainScript {
        id: String,
        name: String,
    },
    /// `src/mcp/<server>/tools/<tool>.cli.ts` projects the tool `tool` (its id) as a command.
    ToolCli {
        tool: String,
    },
}

/// The identity of a route module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteIdentity {
    pub id: String,
    pub kind: RouteKind,
    /// The server of an MCP route.
    pub server: Option<String>,
    /// The file stem of an MCP route.
    pub name: Option<String>,
    /// The canonical event of an event route.
    pub event: Option<String>,
}

/// The id of a module of `kind` at `path`, with AB4803 / AB4823 / AB5304 diagnostics.
pub fn identify(path: &str, kind: &ModuleKind) -> (Option<Identity>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let segments: Vec<&str> = match kind {
        ModuleKind::Tool { server, name }
        | ModuleKind::Resource { server, name }
        | ModuleKind::Prompt { server, name }
        | ModuleKind::App { server, name } => vec![server, name],
        ModuleKind::Event { event } => event.split('/').collect(),
        ModuleKind::Layout(LayoutScope::Root) => vec![],
        ModuleKind::Layout(LayoutScope::Server { server }) | ModuleKind::ServerEntry { server } => {
            vec![server]
        }
        ModuleKind::Provider { name } => vec![name],
        ModuleKind::Cli { words } => words.iter().map(String::as_str).collect(),
        ModuleKind::ToolCli { server, tool, .. } => vec![server, tool],
        ModuleKind::Script { name, .. } => name.split('/').collect(),
        // Not a module of the graph: it has no identity.
        ModuleKind::Imported => return (None, diagnostics),
    };
    if let Some(unsafe_segment) = segments.iter().find(|segment| !is_safe_segment(segment)) {
        diagnostics.push(
            Diagnostic::new(
                Code::AB4803,
                format!("`{unsafe_segment}` in `{path}` is not a safe identity segment"),
                "rename it to letters, digits, `.`, `_` and `-`, starting and ending with a letter or digit",
            )
            .at(Location::file(path))
            .with_note("identity segments become route ids, wire names and file names in every host"),
        );
        return (None, diagnostics);
    }
    if let ModuleKind::Tool { name, .. }
    | ModuleKind::Resource { name, .. }
    | ModuleKind::Prompt { name, .. } = kind
        && let Some(rule) = mcp_name_violation(name)
    {
        diagnostics.push(
            Diagnostic::new(
                Code::AB5321,
                format!("the wire name `{name}` of `{path}` breaks MCP's name rule: {rule}"),
                format!(
                    "rename the file so its name (without the extension) is at most {MCP_NAME_MAX} characters of letters, digits, `_`, `-` and `.`"
                ),
            )
            .at(Location::file(path))
            .with_note("the file name is the name clients list and call (MCP 2025-11-25, §Tool names)"),
        );
        return (None, diagnostics);
    }
    if let ModuleKind::Cli { words } = kind
        && let Some(word) = words.iter().find(|word| !is_command_word(word))
    {
        diagnostics.push(
            Diagnostic::new(
                Code::AB4813,
                format!("`{word}` in `{path}` is not a command word"),
                "rename it to lowercase letters, digits, `-` and `_`, starting with a letter or digit",
            )
            .at(Location::file(path))
            .with_note("each folder and the file name under `src/cli/` are the words a user types"),
        );
        return (None, diagnostics);
    }
    if let ModuleKind::Script { name, .. } = kind
        && name.contains('/')
    {
        let file = path.rsplit('/').next().unwrap_or(path);
        diagnostics.push(
            Diagnostic::new(
                Code::AB4808,
                format!("`{path}` is nested under `src/scripts/`"),
                format!("move it to `src/scripts/{file}` (one level), or opt the folder out with a leading `_`"),
            )
            .at(Location::file(path))
            .with_note("a script's file name is the name `<plugin> run <name>` takes"),
        );
        return (None, diagnostics);
    }
    let identity = match kind {
        ModuleKind::ToolCli {
            server,
            folder,
            tool,
        } => {
            if folder != "tools" {
                diagnostics.push(
                    Diagnostic::new(
                        Code::AB4840,
                        format!("`{path}` is a command-line projection under `{folder}/`"),
                        format!(
                            "only a tool has one: move it beside a tool as `src/mcp/{server}/tools/<tool>.cli.ts`, or rename it with a leading `_`"
                        ),
                    )
                    .at(Location::file(path)),
                );
                return (None, diagnostics);
            }
            Identity::ToolCli {
                tool: format!("tool:{server}/{tool}"),
            }
        }
        ModuleKind::Cli { words } => Identity::Route(RouteIdentity {
            id: format!("cli:{}", words.join("/")),
            kind: RouteKind::Cli,
            server: None,
            name: Some(words.join("/")),
            event: None,
        }),
        ModuleKind::Script { name, rendered } => {
            if !rendered {
                // A plain script never enters the renderer; it is no route of the graph.
                return (
                    Some(Identity::PlainScript {
                        id: format!("script:{name}"),
                        name: name.clone(),
                    }),
                    diagnostics,
                );
            }
            Identity::Route(RouteIdentity {
                id: format!("script:{name}"),
                kind: RouteKind::Script,
                server: None,
                name: Some(name.clone()),
                event: None,
            })
        }
        ModuleKind::Tool { server, name } => mcp_route(RouteKind::Tool, server, name),
        ModuleKind::Resource { server, name } => mcp_route(RouteKind::Resource, server, name),
        ModuleKind::Prompt { server, name } => mcp_route(RouteKind::Prompt, server, name),
        ModuleKind::App { server, name } => mcp_route(RouteKind::App, server, name),
        ModuleKind::Event { event } => match canonical_event(event) {
            Some(canonical) => {
                if canonical != event {
                    diagnostics.push(
                        Diagnostic::new(
                            Code::AB5304,
                            format!("`{event}` is read as `{canonical}`"),
                            format!("rename `{path}` to `src/events/{canonical}.ts` (or `.tsx`)"),
                        )
                        .at(Location::file(path)),
                    );
                }
                Identity::Route(RouteIdentity {
                    id: format!("event:{canonical}"),
                    kind: RouteKind::Event,
                    server: None,
                    name: None,
                    event: Some(canonical.to_owned()),
                })
            }
            None => {
                diagnostics.push(unknown_event(path, event));
                return (None, diagnostics);
            }
        },
        ModuleKind::Layout(LayoutScope::Root) => Identity::Layout {
            id: "layout:root".to_owned(),
            server: None,
        },
        ModuleKind::Layout(LayoutScope::Server { server }) => Identity::Layout {
            id: format!("layout:mcp:{server}"),
            server: Some(server.clone()),
        },
        ModuleKind::Provider { name } => Identity::Provider {
            id: format!("provider:{name}"),
            key: provider_key(name),
        },
        ModuleKind::ServerEntry { server } => Identity::ServerEntry {
            server: server.clone(),
        },
        ModuleKind::Imported => return (None, diagnostics),
    };
    (Some(identity), diagnostics)
}

/// A word of a command path, as the manifest and the plugin's command line take it.
pub fn is_command_word(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

fn mcp_route(kind: RouteKind, server: &str, name: &str) -> Identity {
    Identity::Route(RouteIdentity {
        id: format!("{}:{server}/{name}", kind.as_str()),
        kind,
        server: Some(server.to_owned()),
        name: Some(name.to_owned()),
        event: None,
    })
}

/// The vocabulary entry `event` names, following the `file/change` alias.
fn canonical_event(event: &str) -> Option<&'static str> {
    let event = if event == FILE_CHANGE_ALIAS.0 {
        FILE_CHANGE_ALIAS.1
    } else {
        event
    };
    EVENT_VOCABULARY
        .iter()
        .copied()
        .find(|known| *known == event)
}

fn unknown_event(path: &str, event: &str) -> Diagnostic {
    let suggestion =
        closest_event(event).map_or_else(String::new, |known| format!("; did you mean `{known}`?"));
    Diagnostic::new(
        Code::AB4823,
        format!("`{event}` is not an event{suggestion}"),
        "name the file after a canonical event, e.g. `src/events/tool/after.ts` or `src/events/stop.ts`",
    )
    .at(Location::file(path))
    .with_note(format!("the canonical events are: {}", EVENT_VOCABULARY.join(", ")))
}

/// The vocabulary entry most like `event`: same family and a name that starts like it, else
/// same family, else the same event name under another family.
fn closest_event(event: &str) -> Option<&'static str> {
    let (family, name) = event.split_once('/').unwrap_or((event, ""));
    let split = |known: &'static str| known.split_once('/').unwrap_or((known, ""));
    let same_family = || {
        EVENT_VOCABULARY
            .iter()
            .copied()
            .filter(move |k| split(k).0 == family)
    };
    same_family()
        .find(|known| {
            let known_name = split(known).1;
            !name.is_empty()
                && !known_name.is_empty()
                && (name.starts_with(known_name) || known_name.starts_with(name))
        })
        .or_else(|| same_family().next())
        .or_else(|| {
            EVENT_VOCABULARY
                .iter()
                .copied()
                .find(|k| !name.is_empty() && split(k).1 == name)
        })
}

/// `^[a-zA-Z0-9](?:[a-zA-Z0-9._-]*[a-zA-Z0-9])?$`.
/// The longest name MCP 2025-11-25 allows a tool (§Tool names); abgen holds resource and
/// prompt names to the same rule, since clients list all three by name.
pub const MCP_NAME_MAX: usize = 128;

/// The part of MCP's name rule `name` breaks: 1–128 characters, only `A-Z a-z 0-9 _ - .`.
pub fn mcp_name_violation(name: &str) -> Option<String> {
    let length = name.chars().count();
    if length == 0 {
        return Some("a name has at least one character".to_owned());
    }
    if length > MCP_NAME_MAX {
        return Some(format!(
            "a name has at most {MCP_NAME_MAX} characters, this one {length}"
        ));
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .map(|c| format!("`{c}` is not one of `A-Z a-z 0-9 _ - .`"))
}

pub fn is_safe_segment(segment: &str) -> bool {
    let bytes = segment.as_bytes();
    let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    first.is_ascii_alphanumeric()
        && last.is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The key a provider is read by: the camelCase of its stem (`project-auth` → `projectAuth`).
pub fn provider_key(stem: &str) -> String {
    let mut key = String::with_capacity(stem.len());
    let mut upper_next = false;
    for ch in stem.chars() {
        if matches!(ch, '-' | '_' | '.') {
            upper_next = !key.is_empty();
        } else if upper_next {
            key.extend(ch.to_uppercase());
            upper_next = false;
        } else {
            key.push(ch);
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(event: &str) -> (Option<Identity>, Vec<Diagnostic>) {
        identify(
            "src/events/x.ts",
            &ModuleKind::Event {
                event: event.into(),
            },
        )
    }

    #[test]
    fn segments_follow_the_reference_pattern() {
        for safe in ["a", "search", "list_files", "v1.2", "A-b", "9"] {
            assert!(is_safe_segment(safe), "{safe}");
        }
        for unsafe_ in ["", "-a", "a-", "a b", "ä", "a/b", ".a", "a."] {
            assert!(!is_safe_segment(unsafe_), "{unsafe_}");
        }
    }

    #[test]
    fn wire_names_follow_the_mcp_name_rule() {
        assert_eq!(mcp_name_violation("admin.tools.list"), None);
        assert_eq!(mcp_name_violation(&"a".repeat(MCP_NAME_MAX)), None);
        assert_eq!(
            mcp_name_violation(&"a".repeat(250)).as_deref(),
            Some("a name has at most 128 characters, this one 250")
        );
        assert_eq!(
            mcp_name_violation("a b").as_deref(),
            Some("` ` is not one of `A-Z a-z 0-9 _ - .`")
        );
        let tool = |name: &str| ModuleKind::Tool {
            server: "docs".into(),
            name: name.into(),
        };
        let long = "a".repeat(129);
        let (identity, diagnostics) = identify("src/mcp/docs/tools/x.ts", &tool(&long));
        assert!(identity.is_none());
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].code, Code::AB5321);
        // An App's name is its resource URI's business, not a listed MCP name.
        let app = ModuleKind::App {
            server: "docs".into(),
            name: long,
        };
        assert!(identify("src/mcp/docs/apps/x.tsx", &app).1.is_empty());
    }

    #[test]
    fn provider_keys_are_camel_case() {
        assert_eq!(provider_key("project-auth"), "projectAuth");
        assert_eq!(provider_key("request_view"), "requestView");
        assert_eq!(provider_key("library"), "library");
        assert_eq!(provider_key("process-lifetime"), "processLifetime");
    }

    #[test]
    fn events_map_to_ids() {
        let (identity, diagnostics) = event("tool/after");
        assert!(diagnostics.is_empty());
        assert!(
            matches!(identity, Some(Identity::Route(RouteIdentity { id, .. })) if id == "event:tool/after")
        );
        let (identity, _) = event("stop");
        assert!(
            matches!(identity, Some(Identity::Route(RouteIdentity { id, .. })) if id == "event:stop")
        );
    }

    #[test]
    fn file_change_is_an_alias_with_an_info() {
        let (identity, diagnostics) = event("file/change");
        assert!(
            matches!(identity, Some(Identity::Route(RouteIdentity { id, .. })) if id == "event:file/saved")
        );
        let codes: Vec<Code> = diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, [Code::AB5304]);
    }

    #[test]
    fn unknown_events_are_ab4823_with_a_suggestion() {
        let (identity, diagnostics) = event("tool/afterwards");
        assert_eq!(identity, None);
        assert_eq!(diagnostics[0].code, Code::AB4823);
        assert!(
            diagnostics[0].message.contains("`tool/after`"),
            "{}",
            diagnostics[0].message
        );
        let (_, diagnostics) = event("session");
        assert_eq!(diagnostics[0].code, Code::AB4823);
    }
}
