//! The config walk: every key of `schemas/agent-bundle-config.schema.json` and every entry
//! convention of its `x-conventions`, each written into a project of its own, either has an
//! effect in the planned artifact or is reported with a named diagnostic. abgen's support table
//! (`codegen/src/project/support.toml`) says which; a supported key or path without a case
//! below fails this test, so nothing a project declares can be dropped without a word.

use std::path::Path;

use abgen::check::{CheckOptions, CheckReturn, check_project};
use abgen::diagnostics::Code;
use abgen::emit::{
    EmitInput, EmitOptions, PlannedArtifact, bundle_entry_servers, bundle_plain_scripts,
    checked_emit_input, plan_artifact,
};
use abgen::project::support::{KeySupport, support};
use serde_json::{Value, json};

const ALL_TARGETS: [&str; 4] = ["claude", "codex", "cursor", "portable"];

const TOOL: &str = "import { defineTool } from 'agent-bundle/routes';
import { z } from 'zod';

export default defineTool(
  { description: 'Search.', inputSchema: z.object({}), resultSchema: z.object({ count: z.number() }) },
  async () => ({ count: 0 }),
);
";
const APP: &str = "export const config = { resourceUri: 'ui://docs/viewer', title: 'Viewer' };
export default function Viewer() { return null; }
";
/// An App module declared in config: no `config` export, a component the framework mounts.
const DECLARED_APP: &str = "export default function Viewer() { return null; }\n";
/// A tool that opens the `APP` (`_meta.ui.resourceUri`).
const OPENING_TOOL: &str = "import { defineTool } from 'agent-bundle/routes';
import { z } from 'zod';

export default defineTool(
  {
    description: 'Show.',
    inputSchema: z.object({ q: z.string() }),
    resultSchema: z.object({ shown: z.boolean() }),
    _meta: { ui: { resourceUri: 'ui://docs/viewer' } },
  },
  async () => ({ shown: true }),
);
";
/// A rendered command (and, under `src/scripts/`, a rendered script): a config, a flag, a component.
const COMMAND: &str = "import { z } from 'zod';
export const config = { description: 'Audit.', render: { maxElapsedMs: 5000 } };
export const inputSchema = z.object({ deep: z.boolean().default(false) });
export default function Audit() { return null; }
";
const LAYOUT: &str =
    "export default function Layout({ children }: { children: unknown }) { return children; }\n";
const EVENT: &str = "import { Agent } from '@agent-bundle/runtime';
import { events } from 'agent-bundle/routes';

export default events.session.start({}, async () => <Agent.Context>{'hi'}</Agent.Context>);
";
const STOP: &str = "import { Agent } from '@agent-bundle/runtime';
import { events } from 'agent-bundle/routes';

export default events.stop({}, async () => <Agent.Context>{'bye'}</Agent.Context>);
";
/// A handwritten stdio entry: it logs at its top level and default-exports a server factory.
const ENTRY: &str = "console.log('loading');
export default () => ({ connect: async () => {} });
";
const PROVIDER: &str = "export default async function provide() { return { token: 'local' }; }\n";
const SKILL: &str = "---\nname: notes\ndescription: Take notes.\n---\n# Notes\n";

/// What a project produced: the check, and the planned artifact when it had no errors.
struct Outcome {
    checked: CheckReturn,
    planned: Option<(EmitInput, PlannedArtifact)>,
}

impl Outcome {
    fn json(&self, path: &str) -> Result<Value, String> {
        let (_, planned) = self.planned.as_ref().ok_or_else(|| self.errors())?;
        let file = planned
            .files
            .get(path)
            .ok_or_else(|| format!("the artifact has no `{path}`"))?;
        serde_json::from_slice(&file.contents).map_err(|error| format!("`{path}`: {error}"))
    }

    fn input(&self) -> Result<&EmitInput, String> {
        self.planned
            .as_ref()
            .map(|(input, _)| input)
            .ok_or_else(|| self.errors())
    }

    fn artifact(&self) -> Result<&PlannedArtifact, String> {
        self.planned
            .as_ref()
            .map(|(_, planned)| planned)
            .ok_or_else(|| self.errors())
    }

    fn errors(&self) -> String {
        let found: Vec<String> = self
            .checked
            .diagnostics
            .iter()
            .map(|d| format!("{} {}", d.code.as_str(), d.message))
            .collect();
        format!("no artifact was planned: {found:?}")
    }

    /// A diagnostic of `code` whose message names `what` (and, when given, at `file`).
    fn reported(&self, code: Code, what: &str, file: Option<&str>) -> Result<(), String> {
        let found = self.checked.diagnostics.iter().any(|d| {
            d.code == code
                && d.message.contains(what)
                && file.is_none_or(|file| d.location.as_ref().is_some_and(|l| l.file == file))
        });
        if found {
            Ok(())
        } else {
            let all: Vec<String> = self
                .checked
                .diagnostics
                .iter()
                .map(|d| format!("{} {}", d.code.as_str(), d.message))
                .collect();
            Err(format!(
                "expected {} naming `{what}`, found {all:?}",
                code.as_str()
            ))
        }
    }
}

/// Writes `config` (as the default export of `agent-bundle.config.ts`) and `files` into a fresh
/// project, checks it and, without errors, plans its artifact.
fn run(config: &Value, files: &[(&str, &str)]) -> Outcome {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(
        root,
        "agent-bundle.config.ts",
        &format!(
            "export default {};\n",
            serde_json::to_string_pretty(config).unwrap()
        ),
    );
    for (path, text) in files {
        write(root, path, text);
    }
    let checked = check_project(&CheckOptions {
        root: root.to_owned(),
        targets: None,
    });
    let planned = match (&checked.config, &checked.graph) {
        (Some(config), Some(graph)) if !checked.has_errors() => {
            let input = checked_emit_input(root, &checked, config, graph);
            let host_binary = root.join("abgen-host");
            std::fs::write(&host_binary, b"#!/bin/sh\n").unwrap();
            let options = EmitOptions {
                targets: graph
                    .targets
                    .iter()
                    .map(|t| t.as_str().to_owned())
                    .collect(),
                out_dir: root.join("artifact"),
                host_binary,
                platforms: Vec::new(),
                worker_bundle: Vec::new().into(),
            };
            let mut input = input;
            bundle_entry_servers(
                &mut input,
                &abgen::bundle::locate_toolchain().unwrap(),
                None,
            )
            .expect("the entry servers bundle");
            bundle_plain_scripts(
                &mut input,
                &abgen::bundle::locate_toolchain().unwrap(),
                None,
            )
            .expect("the plain scripts bundle");
            let planned = plan_artifact(&input, &options).expect("the artifact plans");
            Some((input, planned))
        }
        _ => None,
    };
    Outcome { checked, planned }
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The smallest valid config, for every host.
fn base() -> Value {
    json!({ "plugin": { "name": "walk" }, "targets": ALL_TARGETS })
}

/// `config` with `value` set at the dotted `path` (`*` is the server `docs`).
fn with(mut config: Value, path: &str, value: Value) -> Value {
    let segments: Vec<&str> = path.split('.').collect();
    let mut at = &mut config;
    for segment in &segments[..segments.len() - 1] {
        let key = if *segment == "*" { "docs" } else { segment };
        if !at.get(key).is_some_and(Value::is_object) {
            at[key] = json!({});
        }
        at = &mut at[key];
    }
    let last = segments[segments.len() - 1];
    at[if last == "*" { "docs" } else { last }] = value;
    config
}

type Check = fn(&Outcome) -> Result<(), String>;
/// Files to write beside the config: (project-relative path, text).
type Files = Vec<(&'static str, &'static str)>;

/// The case of a supported key: the config and files to write, and the effect to find.
fn supported_key_case(path: &str) -> Option<(Value, Files, Check)> {
    let tool = vec![("src/mcp/docs/tools/search.ts", TOOL)];
    let case: (Value, Vec<(&str, &str)>, Check) = match path {
        "plugin" | "plugin.name" => (base(), vec![], |o| {
            expect_eq(
                &o.json(".claude-plugin/plugin.json")?["name"],
                &json!("walk"),
            )
        }),
        "plugin.description" => (
            with(base(), "plugin.description", json!("Walks.")),
            vec![],
            |o| {
                expect_eq(
                    &o.json(".claude-plugin/plugin.json")?["description"],
                    &json!("Walks."),
                )
            },
        ),
        "plugin.version" => (
            with(base(), "plugin.version", json!("3.1.4")),
            vec![],
            |o| {
                expect_eq(
                    &o.json(".claude-plugin/plugin.json")?["version"],
                    &json!("3.1.4"),
                )
            },
        ),
        "plugin.author" => (with(base(), "plugin.author", json!("Ada")), vec![], |o| {
            expect_eq(
                &o.json(".claude-plugin/plugin.json")?["author"]["name"],
                &json!("Ada"),
            )
        }),
        "plugin.author.name" => (
            with(base(), "plugin.author", json!({ "name": "Grace" })),
            vec![],
            |o| {
                expect_eq(
                    &o.json(".claude-plugin/plugin.json")?["author"]["name"],
                    &json!("Grace"),
                )
            },
        ),
        "plugin.homepage" => (
            with(base(), "plugin.homepage", json!("https://walk.example")),
            vec![],
            |o| {
                expect_eq(
                    &o.json(".claude-plugin/plugin.json")?["homepage"],
                    &json!("https://walk.example"),
                )
            },
        ),
        "plugin.license" => (with(base(), "plugin.license", json!("MIT")), vec![], |o| {
            expect_eq(
                &o.json(".claude-plugin/plugin.json")?["license"],
                &json!("MIT"),
            )
        }),
        "plugin.keywords" => (
            with(base(), "plugin.keywords", json!(["a", "b"])),
            vec![],
            |o| {
                expect_eq(
                    &o.json(".claude-plugin/plugin.json")?["keywords"],
                    &json!(["a", "b"]),
                )
            },
        ),
        "targets" => (with(base(), "targets", json!(["cursor"])), vec![], |o| {
            let files: Vec<&str> = o.artifact()?.files.files().map(|(path, _)| path).collect();
            let ok = files.contains(&".cursor-plugin/plugin.json")
                && !files.iter().any(|path| path.starts_with(".claude-plugin/"));
            ok.then_some(())
                .ok_or_else(|| format!("only Cursor's documents expected: {files:?}"))
        }),
        // A declaration beside a generated server of the same id keeps it generated.
        "mcp" | "mcp.servers" | "mcp.servers.*" => {
            (with(base(), "mcp.servers.docs", json!({})), tool, |o| {
                server_in_every_document(o, "docs")
            })
        }
        "mcp.servers.*.command" | "mcp.servers.*.args" | "mcp.servers.*.env" => (
            with(
                base(),
                "mcp.servers.docs",
                json!({
                    "command": "${PLUGIN_ROOT}/bin/docs",
                    "args": ["--stdio"],
                    "env": { "DOCS_URL": "https://docs.example" }
                }),
            ),
            vec![],
            |o| {
                let claude = &o.json(".mcp.json")?["mcpServers"]["docs"];
                expect_eq(
                    claude,
                    &json!({
                        "type": "stdio",
                        "command": "${CLAUDE_PLUGIN_ROOT}/bin/docs",
                        "args": ["--stdio"],
                        "env": {
                            "AGENT_BUNDLE_PLUGIN_ROOT": "${CLAUDE_PLUGIN_ROOT}",
                            "DOCS_URL": "https://docs.example"
                        }
                    }),
                )?;
                // Codex expands no token: the root is `./` against a plugin-root cwd.
                let codex = &o.json(".codex-plugin/mcp.json")?["mcpServers"]["docs"];
                expect_eq(
                    codex,
                    &json!({
                        "type": "stdio",
                        "command": "./bin/docs",
                        "args": ["--stdio"],
                        "cwd": "./",
                        "env": { "AGENT_BUNDLE_PLUGIN_ROOT": "./", "DOCS_URL": "https://docs.example" }
                    }),
                )?;
                let cursor = &o.json(".cursor-plugin/mcp.json")?["mcpServers"]["docs"];
                expect_eq(
                    &cursor["env"]["AGENT_BUNDLE_PLUGIN_ROOT"],
                    &json!("${CURSOR_PLUGIN_ROOT}"),
                )?;
                let portable = &o.json("mcp.json")?["mcpServers"]["docs"];
                expect_eq(
                    &portable["env"]["AGENT_BUNDLE_PLUGIN_ROOT"],
                    &json!("${PLUGIN_ROOT}"),
                )
            },
        ),
        "mcp.servers.*.entry" => (
            with(
                base(),
                "mcp.servers.docs",
                json!({ "entry": "./src/server/docs.ts" }),
            ),
            vec![("src/server/docs.ts", ENTRY)],
            |o| entry_server_in_every_document(o, "docs"),
        ),
        "mcp.servers.*.entry.prebuilt" => (
            with(
                base(),
                "mcp.servers.docs",
                json!({ "entry": { "prebuilt": "dist/docs-server.mjs" } }),
            ),
            vec![("dist/docs-server.mjs", "// built elsewhere\n")],
            |o| {
                let shipped = o
                    .artifact()?
                    .files
                    .get("mcp/docs/docs-server.mjs")
                    .ok_or("the prebuilt file is not shipped")?;
                expect_eq(&json!(&*shipped.contents), &json!(b"// built elsewhere\n"))?;
                expect_eq(
                    &o.json(".mcp.json")?["mcpServers"]["docs"]["args"],
                    &json!(["${CLAUDE_PLUGIN_ROOT}/mcp/docs/docs-server.mjs"]),
                )
            },
        ),
        "mcp.servers.*.cwd" => (
            with(
                base(),
                "mcp.servers.docs",
                json!({ "command": "docs-server", "cwd": "/srv/docs" }),
            ),
            vec![],
            |o| {
                // A plain cwd is passed through; Codex then has no plugin-root cwd, so no anchor.
                let claude = &o.json(".mcp.json")?["mcpServers"]["docs"];
                expect_eq(&claude["cwd"], &json!("/srv/docs"))?;
                let codex = &o.json(".codex-plugin/mcp.json")?["mcpServers"]["docs"];
                expect_eq(&codex["cwd"], &json!("/srv/docs"))?;
                expect_eq(&codex["env"], &json!({}))
            },
        ),
        "mcp.servers.*.url" | "mcp.servers.*.headers" | "mcp.servers.*.transport" => (
            with(
                base(),
                "mcp.servers.docs",
                json!({
                    "url": "https://docs.example/mcp",
                    "transport": "streamable-http",
                    "headers": { "X-Team": "docs" }
                }),
            ),
            vec![],
            |o| {
                expect_eq(
                    &o.json(".mcp.json")?["mcpServers"]["docs"],
                    &json!({ "type": "http", "url": "https://docs.example/mcp", "headers": { "X-Team": "docs" } }),
                )?;
                expect_eq(
                    &o.json(".codex-plugin/mcp.json")?["mcpServers"]["docs"],
                    &json!({ "type": "streamable-http", "url": "https://docs.example/mcp", "http_headers": { "X-Team": "docs" } }),
                )?;
                expect_eq(
                    &o.json(".cursor-plugin/mcp.json")?["mcpServers"]["docs"],
                    &json!({ "url": "https://docs.example/mcp", "headers": { "X-Team": "docs" } }),
                )?;
                expect_eq(
                    &o.json("mcp.json")?["mcpServers"]["docs"],
                    &json!({ "type": "streamable-http", "url": "https://docs.example/mcp", "headers": { "X-Team": "docs" } }),
                )
            },
        ),
        "mcp.servers.*.targets" => (
            with(
                base(),
                "mcp.servers.docs",
                json!({ "command": "docs-server", "targets": ["cursor"] }),
            ),
            vec![],
            |o| {
                let files: Vec<&str> = o.artifact()?.files.files().map(|(path, _)| path).collect();
                let only_cursor = files.contains(&".cursor-plugin/mcp.json")
                    && !files.contains(&".mcp.json")
                    && !files.contains(&"mcp.json");
                only_cursor
                    .then_some(())
                    .ok_or_else(|| format!("only Cursor lists the server: {files:?}"))
            },
        ),
        "mcp.servers.*.apps"
        | "mcp.servers.*.apps.*"
        | "mcp.servers.*.apps.*.entry"
        | "mcp.servers.*.apps.*.resourceUri"
        | "mcp.servers.*.apps.*.targets"
        | "mcp.servers.*.apps.*.template"
        | "mcp.servers.*.apps.*._meta" => (
            with(
                base(),
                "mcp.servers.docs.apps.viewer",
                json!({
                    "entry": "./src/views/viewer.tsx",
                    "resourceUri": "ui://docs/viewer",
                    "targets": ["portable", "cursor"],
                    "template": "./src/views/viewer.html",
                    "_meta": { "ui": { "prefersBorder": true } },
                }),
            ),
            vec![
                ("src/views/viewer.tsx", DECLARED_APP),
                (
                    "src/views/viewer.html",
                    "<!doctype html><html><body><div id=\"root\"></div></body></html>\n",
                ),
                ("src/mcp/docs/tools/show.ts", OPENING_TOOL),
            ],
            |o| {
                let manifest: Value =
                    serde_json::from_str(&o.artifact()?.manifest_text.to_string())
                        .map_err(|error| format!("the manifest: {error}"))?;
                let route = manifest["routes"]
                    .as_array()
                    .and_then(|routes| routes.iter().find(|route| route["id"] == "app:docs/viewer"))
                    .ok_or_else(|| format!("no App route: {}", manifest["routes"]))?;
                expect_eq(&route["source"], &json!("src/views/viewer.tsx"))?;
                // The left-out host targets' clients do not list the App.
                expect_eq(
                    &route["config"],
                    &json!({
                        "resourceUri": "ui://docs/viewer",
                        "_meta": { "ui": { "prefersBorder": true } },
                        "excludeClients": ["claude", "codex"],
                    }),
                )?;
                let (input, _) = o.planned.as_ref().ok_or_else(|| o.errors())?;
                let graph = o.checked.graph.as_ref().ok_or_else(|| o.errors())?;
                let sources = abgen::emit::app_sources(input, &o.checked, graph);
                let [app] = sources.as_slice() else {
                    return Err(format!("not one App to compile: {sources:?}"));
                };
                expect_eq(&json!(app.template), &json!("src/views/viewer.html"))?;
                expect_eq(&json!(app.targets), &json!(["cursor", "portable"]))?;
                expect_eq(&json!(app.mount), &json!(true))
            },
        ),
        "tools" | "tools.rsbuild" => (
            with(
                base(),
                "tools.rsbuild",
                json!({ "output": { "sourceMap": { "js": "inline-source-map" } } }),
            ),
            vec![],
            |o| {
                let config = o.checked.config.as_ref().ok_or_else(|| o.errors())?;
                expect_eq(
                    &json!(config.app_source_map),
                    &json!(abgen::project::config::AppSourceMap::Inline),
                )
            },
        ),
        "web" | "web.apps" | "web.open" => (
            with(
                base(),
                "web",
                json!({
                    "apps": [{ "app": "docs/viewer", "input": { "q": "x" }, "allow": ["call-tool"] }],
                    "open": "browser",
                }),
            ),
            vec![
                ("src/mcp/docs/apps/viewer.tsx", APP),
                ("src/mcp/docs/tools/show.ts", OPENING_TOOL),
            ],
            |o| {
                let manifest: Value =
                    serde_json::from_str(&o.artifact()?.manifest_text.to_string())
                        .map_err(|error| format!("the manifest: {error}"))?;
                expect_eq(
                    &manifest["web"],
                    &json!({
                        "apps": [{ "app": "docs/viewer", "input": { "q": "x" }, "allow": ["call-tool"] }],
                        "open": "browser",
                    }),
                )
            },
        ),
        "routes" | "routes.servers" => (
            with(base(), "routes.servers.docs", json!("generated")),
            tool,
            |o| server_in_every_document(o, "docs"),
        ),
        "routes.mcpCommands" => (with(base(), "routes.mcpCommands", json!(true)), tool, |o| {
            let commands = &o.artifact()?.manifest.cli.commands;
            let paths: Vec<&[String]> = commands.iter().map(|c| c.path.as_slice()).collect();
            (paths == [["docs".to_owned(), "search".to_owned()]])
                .then_some(())
                .ok_or_else(|| format!("the tool is the command `docs search`: {commands:?}"))
        }),
        "routes.mcpCommands.include" => (
            with(
                base(),
                "routes.mcpCommands",
                json!({ "include": ["docs:sea*"] }),
            ),
            tool,
            |o| command_routes(o, &["tool:docs/search"]),
        ),
        "routes.mcpCommands.exclude" => (
            with(
                base(),
                "routes.mcpCommands",
                json!({ "exclude": ["docs:*"] }),
            ),
            tool,
            |o| command_routes(o, &[]),
        ),
        _ => return None,
    };
    Some(case)
}

/// The routes of the artifact's commands are exactly `expected`.
fn command_routes(outcome: &Outcome, expected: &[&str]) -> Result<(), String> {
    let commands = &outcome.artifact()?.manifest.cli.commands;
    let routes: Vec<&str> = commands.iter().map(|c| c.route.as_str()).collect();
    (routes == expected)
        .then_some(())
        .ok_or_else(|| format!("expected the commands of {expected:?}, found {routes:?}"))
}

fn expect_eq(found: &Value, expected: &Value) -> Result<(), String> {
    (found == expected)
        .then_some(())
        .ok_or_else(|| format!("expected {expected}, found {found}"))
}

fn server_in_every_document(outcome: &Outcome, server: &str) -> Result<(), String> {
    for host in abgen::matrix::hosts() {
        let document = outcome.json(&host.mcp.path)?;
        if document["mcpServers"].get(server).is_none() {
            return Err(format!(
                "`{server}` is missing from {}: {document}",
                host.mcp.path
            ));
        }
    }
    Ok(())
}

/// The effect of a supported convention, found in the artifact of a project holding its example.
fn supported_path_case(pattern: &str) -> Option<(Files, Check)> {
    let case: (Vec<(&str, &str)>, Check) = match pattern {
        "agent-bundle.config.{ts,mts,js,mjs,json}" => (vec![], |o| {
            expect_eq(
                &o.json(".claude-plugin/plugin.json")?["name"],
                &json!("walk"),
            )
        }),
        "package.json" => (
            vec![("package.json", r#"{ "name": "walk", "version": "2.7.1" }"#)],
            |o| {
                expect_eq(
                    &o.json(".claude-plugin/plugin.json")?["version"],
                    &json!("2.7.1"),
                )
            },
        ),
        "src/skills/*/SKILL.md" => (vec![("src/skills/notes/SKILL.md", SKILL)], |o| {
            o.artifact()?
                .files
                .get("skills/notes/SKILL.md")
                .map(|_| ())
                .ok_or_else(|| "skills/notes/SKILL.md is not in the artifact".to_owned())
        }),
        "src/mcp/*.{ts,tsx,mts,js,cjs}" => (vec![("src/mcp/docs.ts", ENTRY)], |o| {
            entry_server_in_every_document(o, "docs")
        }),
        "src/mcp/*/{tools,resources,prompts}/*.{ts,tsx}" => {
            (vec![("src/mcp/docs/tools/search.ts", TOOL)], |o| {
                route_in_manifest(o, "tool:docs/search")?;
                server_in_every_document(o, "docs")
            })
        }
        "src/mcp/*/apps/*.{ts,tsx}" => (
            vec![
                ("src/mcp/docs/apps/viewer.tsx", APP),
                ("src/mcp/docs/tools/search.ts", TOOL),
            ],
            |o| route_in_manifest(o, "app:docs/viewer"),
        ),
        "src/mcp/*/layout.{ts,tsx}" => (
            vec![
                ("src/mcp/docs/layout.tsx", LAYOUT),
                ("src/mcp/docs/tools/search.ts", TOOL),
            ],
            |o| in_worker_entry(o, "layout:mcp:docs"),
        ),
        "src/layout.{ts,tsx}" => (
            vec![
                ("src/layout.tsx", LAYOUT),
                ("src/mcp/docs/tools/search.ts", TOOL),
            ],
            |o| in_worker_entry(o, "layout:root"),
        ),
        "src/events/*/*.{ts,tsx}" => (vec![("src/events/session/start.tsx", EVENT)], |o| {
            hook_bound(o, "session/start")
        }),
        "src/events/stop.{ts,tsx}" => (vec![("src/events/stop.tsx", STOP)], |o| {
            hook_bound(o, "stop")
        }),
        "src/mcp/*/{tools,resources,prompts}/*.cli.{ts,tsx}" => (
            vec![
                ("src/mcp/docs/tools/search.ts", TOOL),
                (
                    "src/mcp/docs/tools/search.cli.ts",
                    "export const config = { command: 'find docs', description: 'Find.' };\n",
                ),
            ],
            |o| {
                let commands = &o.artifact()?.manifest.cli.commands;
                let found: Vec<(String, &str)> = commands
                    .iter()
                    .map(|c| (c.path.join(" "), c.route.as_str()))
                    .collect();
                (found == [("find docs".to_owned(), "tool:docs/search")])
                    .then_some(())
                    .ok_or_else(|| format!("the tool is the command `find docs`: {commands:?}"))
            },
        ),
        "src/cli/**/*.{ts,tsx}" => (vec![("src/cli/library/audit.tsx", COMMAND)], |o| {
            route_in_manifest(o, "cli:library/audit")?;
            command_routes(o, &["cli:library/audit"])?;
            in_worker_entry(o, "cli:library/audit")
        }),
        "src/scripts/**/*.{ts,tsx,jsx}" => (
            vec![
                ("src/scripts/report.tsx", COMMAND),
                (
                    "src/scripts/sync.ts",
                    "export function main() { console.log('synced'); }\n",
                ),
            ],
            |o| {
                route_in_manifest(o, "script:report")?;
                let scripts = &o.artifact()?.manifest.cli.scripts;
                let names: Vec<&str> = scripts.iter().map(|s| s.name.as_str()).collect();
                (names == ["report", "sync"]).then_some(()).ok_or_else(|| {
                    format!("the scripts are `run report` and `run sync`: {scripts:?}")
                })?;
                o.artifact()?
                    .files
                    .get("scripts/sync.mjs")
                    .map(|_| ())
                    .ok_or_else(|| "the plain script's bundle is not in the artifact".to_owned())?;
                in_worker_entry(o, "script:report")
            },
        ),
        "src/providers/*.{ts,tsx}" => (
            vec![
                ("src/providers/catalog.ts", PROVIDER),
                ("src/mcp/docs/tools/search.ts", TOOL),
            ],
            |o| in_worker_entry(o, "catalog"),
        ),
        _ => return None,
    };
    Some(case)
}

/// Runs `bundle` with Node and no input: the module's top-level `console.log` must reach stderr,
/// nothing may reach stdout, and the end of input must exit 0 (a watchdog bounds the wait).
fn run_bundle(bundle: &[u8]) -> Result<(), String> {
    let temp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let file = temp.path().join("entry.mjs");
    std::fs::write(&file, bundle).map_err(|e| e.to_string())?;
    let child = std::process::Command::new("node")
        .arg(&file)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("node: {e}"))?;
    let pid = child.id();
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if finished
            .recv_timeout(std::time::Duration::from_secs(20))
            .is_err()
        {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
        }
    });
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = done.send(());
    let _ = watchdog.join();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() != Some(0) {
        return Err(format!("the entry exited with {}: {stderr}", output.status));
    }
    if !output.stdout.is_empty() {
        return Err(format!(
            "the entry wrote to stdout: {}",
            String::from_utf8_lossy(&output.stdout)
        ));
    }
    if !stderr.contains("loading") || !stderr.contains("[docs] stdin ended") {
        return Err(format!(
            "expected the module's log and the shutdown on stderr: {stderr}"
        ));
    }
    Ok(())
}
/// The entry server's bundle is `mcp/<id>.mjs`, started by `node` from the plugin root in
/// every host's spelling, and it redirects the console before the module's own top level runs.
fn entry_server_in_every_document(outcome: &Outcome, server: &str) -> Result<(), String> {
    let file = format!("mcp/{server}.mjs");
    let bundle = outcome
        .artifact()?
        .files
        .get(&file)
        .ok_or_else(|| format!("`{file}` is not in the artifact"))?;
    run_bundle(&bundle.contents)?;
    let expected = [
        (
            ".mcp.json",
            json!({ "type": "stdio", "command": "node", "args": [format!("${{CLAUDE_PLUGIN_ROOT}}/{file}")], "env": { "AGENT_BUNDLE_PLUGIN_ROOT": "${CLAUDE_PLUGIN_ROOT}" } }),
        ),
        (
            ".codex-plugin/mcp.json",
            json!({ "type": "stdio", "command": "node", "args": [format!("./{file}")], "cwd": "./", "env": { "AGENT_BUNDLE_PLUGIN_ROOT": "./" } }),
        ),
        (
            ".cursor-plugin/mcp.json",
            json!({ "command": "node", "args": [format!("${{CURSOR_PLUGIN_ROOT}}/{file}")], "env": { "AGENT_BUNDLE_PLUGIN_ROOT": "${CURSOR_PLUGIN_ROOT}" } }),
        ),
        (
            "mcp.json",
            json!({ "type": "stdio", "command": "node", "args": [format!("${{PLUGIN_ROOT}}/{file}")], "cwd": "${PLUGIN_ROOT}", "env": { "AGENT_BUNDLE_PLUGIN_ROOT": "${PLUGIN_ROOT}" } }),
        ),
    ];
    for (path, entry) in expected {
        expect_eq(&outcome.json(path)?["mcpServers"][server], &entry)
            .map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(())
}

fn route_in_manifest(outcome: &Outcome, id: &str) -> Result<(), String> {
    let manifest = &outcome.artifact()?.manifest;
    manifest
        .routes
        .iter()
        .any(|route| route.id == id)
        .then_some(())
        .ok_or_else(|| format!("`{id}` is not a route of the manifest"))
}

fn in_worker_entry(outcome: &Outcome, key: &str) -> Result<(), String> {
    let entry = abgen::emit::worker_entry(outcome.input()?);
    let keys: Vec<&str> = entry
        .routes
        .iter()
        .chain(&entry.providers)
        .chain(&entry.layouts)
        .map(|module| module.key.as_str())
        .collect();
    keys.contains(&key)
        .then_some(())
        .ok_or_else(|| format!("`{key}` is not imported by the worker entry: {keys:?}"))
}

fn hook_bound(outcome: &Outcome, event: &str) -> Result<(), String> {
    let hooks = &outcome.artifact()?.manifest.hooks;
    hooks
        .get("claude")
        .is_some_and(|bindings| bindings.iter().any(|binding| binding.event == event))
        .then_some(())
        .ok_or_else(|| format!("no Claude hook binding for `{event}`"))
}

fn config_validator() -> jsonschema::Validator {
    jsonschema::validator_for(&support().schema).expect("the config schema is a JSON Schema")
}

#[test]
fn every_config_key_has_an_effect_or_a_diagnostic() {
    let validator = config_validator();
    let mut failures = Vec::new();
    for row in &support().table.key {
        let (config, files, check): (Value, Vec<(&str, &str)>, Check) = match row.support {
            KeySupport::Supported => match supported_key_case(&row.path) {
                Some(case) => case,
                None => {
                    failures.push(format!(
                        "supported key `{}` has no case in the config walk: add one asserting its effect",
                        row.path
                    ));
                    continue;
                }
            },
            KeySupport::Deferred => {
                let example: Value = serde_json::from_str(row.example.as_deref().unwrap())
                    .unwrap_or_else(|e| panic!("example of `{}`: {e}", row.path));
                // A person's other fields need the person's name beside them.
                let config = if row.path.starts_with("plugin.author.") {
                    with(base(), "plugin.author", json!({ "name": "Ada" }))
                } else {
                    base()
                };
                (with(config, &row.path, example), vec![], |_| Ok(()))
            }
        };
        if let Err(error) = validator.validate(&config) {
            failures.push(format!(
                "`{}`: the case's config breaks the schema: {error}",
                row.path
            ));
        }
        let outcome = run(&config, &files);
        let result = match row.support {
            KeySupport::Supported => check(&outcome),
            KeySupport::Deferred => {
                outcome.reported(Code::AB5350, &row.path.replace('*', "docs"), None)
            }
        };
        if let Err(error) = result {
            failures.push(format!("`{}`: {error}", row.path));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_conventional_path_has_an_effect_or_a_diagnostic() {
    let mut failures = Vec::new();
    for row in &support().table.path {
        let result = if row.is_supported() {
            match supported_path_case(&row.pattern) {
                Some((files, check)) => {
                    // Event routes need hosts with hooks (portable has none: AB4824).
                    let config = if row.pattern.starts_with("src/events/") {
                        with(base(), "targets", json!(["claude", "codex", "cursor"]))
                    } else {
                        base()
                    };
                    check(&run(&config, &files))
                }
                None => Err(
                    "supported, but has no case in the config walk: add one asserting its effect"
                        .to_owned(),
                ),
            }
        } else {
            // The example's content does not matter: the path alone is what is reported.
            let outcome = run(&base(), &[(row.example.as_str(), "export {};\n")]);
            outcome.reported(row.code().unwrap(), &row.example, Some(&row.example))
        };
        if let Err(error) = result {
            failures.push(format!("`{}` ({}): {error}", row.pattern, row.example));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_opted_out_file_is_not_reported() {
    let outcome = run(
        &base(),
        &[
            ("src/_state.ts", "export {};\n"),
            ("src/commands/_draft.md", "# draft\n"),
            ("assets/.keep", ""),
        ],
    );
    let found: Vec<&str> = outcome
        .checked
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn an_unknown_top_level_key_is_reported_at_its_line() {
    let outcome = run(&with(base(), "targts", json!(["claude"])), &[]);
    let diagnostic = outcome
        .checked
        .diagnostics
        .iter()
        .find(|d| d.code == Code::AB5352)
        .expect("AB5352");
    assert_eq!(diagnostic.message, "`targts` is not a key of the config");
    let location = diagnostic.location.as_ref().unwrap();
    assert_eq!(location.file, "agent-bundle.config.ts");
    assert!(location.line.is_some_and(|line| line > 1), "{location:?}");
}

#[test]
fn a_declared_server_nothing_serves_is_reported() {
    let alone = run(&with(base(), "mcp.servers.docs", json!({})), &[]);
    alone
        .reported(Code::AB4304, "`mcp.servers.docs` declares no `entry`", None)
        .unwrap();
    let handed_off = run(
        &with(base(), "routes.servers.docs", json!("custom")),
        &[("src/mcp/docs/tools/search.ts", TOOL)],
    );
    handed_off
        .reported(Code::AB4304, "`routes.servers.docs` is 'custom'", None)
        .unwrap();
}

#[test]
fn a_handwritten_entry_beside_routes_is_the_mode_conflict_alone() {
    let outcome = run(
        &base(),
        &[
            ("src/mcp/docs.ts", "export default () => null;\n"),
            ("src/mcp/docs/tools/search.ts", TOOL),
        ],
    );
    let codes: Vec<&str> = outcome
        .checked
        .diagnostics
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(codes, ["AB4800"]);
}

#[test]
fn a_declaration_beside_a_generated_server_adds_args_and_env_over_the_anchor() {
    let outcome = run(
        &with(
            base(),
            "mcp.servers.docs",
            json!({ "args": ["--verbose"], "env": { "AGENT_BUNDLE_PLUGIN_ROOT": "/opt/docs" } }),
        ),
        &[("src/mcp/docs/tools/search.ts", TOOL)],
    );
    let claude = &outcome.json(".mcp.json").unwrap()["mcpServers"]["docs"];
    assert_eq!(
        claude["args"],
        json!(["mcp", "--server", "docs", "--verbose"])
    );
    assert_eq!(
        claude["env"],
        json!({ "AGENT_BUNDLE_PLUGIN_ROOT": "/opt/docs" })
    );
}

#[test]
fn launch_rules_are_reported_where_they_are_written() {
    let cases = [
        (
            json!({ "command": "x", "url": "https://a.example" }),
            Code::AB4304,
        ),
        (
            json!({ "command": "x", "targets": ["nowhere"] }),
            Code::AB4305,
        ),
        (
            json!({ "command": "x", "headers": { "A": "b" } }),
            Code::AB4310,
        ),
        (json!({ "command": " " }), Code::AB4313),
        (
            json!({ "command": "x", "transport": "streamable-http" }),
            Code::AB4314,
        ),
        (
            json!({ "command": "x", "cwd": "${CLAUDE_PLUGIN_DATA}/x" }),
            Code::AB4315,
        ),
        (
            json!({ "url": "ftp://a.example", "transport": "streamable-http" }),
            Code::AB4316,
        ),
        (json!({ "url": "https://a.example" }), Code::AB4317),
        (
            json!({ "url": "https://a.example", "transport": "streamable-http", "env": { "A": "b" } }),
            Code::AB4318,
        ),
    ];
    for (server, code) in cases {
        let outcome = run(&with(base(), "mcp.servers.docs", server.clone()), &[]);
        let found: Vec<Code> = outcome.checked.diagnostics.iter().map(|d| d.code).collect();
        assert!(
            found.contains(&code),
            "{server}: expected {}, found {found:?}",
            code.as_str()
        );
        let diagnostic = outcome
            .checked
            .diagnostics
            .iter()
            .find(|d| d.code == code)
            .unwrap();
        assert!(
            diagnostic
                .location
                .as_ref()
                .is_some_and(|l| l.line.is_some()),
            "{server}: {diagnostic:?}"
        );
    }
}

#[test]
fn a_declaration_beside_a_generated_server_cannot_relaunch_it() {
    let cases = [
        (json!({ "transport": "streamable-http" }), Code::AB4308),
        (json!({ "cwd": "data" }), Code::AB4309),
        (json!({ "headers": { "A": "b" } }), Code::AB4310),
    ];
    for (server, code) in cases {
        let outcome = run(
            &with(base(), "mcp.servers.docs", server.clone()),
            &[("src/mcp/docs/tools/search.ts", TOOL)],
        );
        let found: Vec<Code> = outcome.checked.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(found, [code], "{server}");
    }
    let explicit = with(
        with(
            base(),
            "mcp.servers.docs",
            json!({ "command": "docs-server" }),
        ),
        "routes.servers.docs",
        json!("generated"),
    );
    let outcome = run(&explicit, &[("src/mcp/docs/tools/search.ts", TOOL)]);
    outcome
        .reported(Code::AB4340, "`mcp.servers.docs.command` redeclares", None)
        .unwrap();
}

#[test]
fn a_stdio_entry_without_a_factory_is_ab4730() {
    let connecting = run(
        &base(),
        &[(
            "src/mcp/docs.ts",
            "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nimport { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';\nconst server = new McpServer({ name: 'docs', version: '1.0.0' });\nawait server.connect(new StdioServerTransport());\n",
        )],
    );
    let diagnostic = connecting
        .checked
        .diagnostics
        .iter()
        .find(|d| d.code == Code::AB4730)
        .expect("AB4730");
    assert!(
        diagnostic
            .message
            .contains("connects a transport at its top level"),
        "{diagnostic:?}"
    );
    assert_eq!(diagnostic.location.as_ref().and_then(|l| l.line), Some(4));
    // A CommonJS entry's whole-object `module.exports` is its default export; a named one is not.
    let commonjs = run(
        &base(),
        &[(
            "src/mcp/docs.cjs",
            "module.exports = () => ({ connect: async () => {} });\n",
        )],
    );
    assert!(
        commonjs.checked.diagnostics.is_empty(),
        "{:?}",
        commonjs.checked.diagnostics
    );
    entry_server_in_every_document_named(&commonjs);
    let named = run(
        &base(),
        &[("src/mcp/docs.cjs", "exports.docs = () => null;\n")],
    );
    named
        .reported(
            Code::AB4730,
            "has no default export",
            Some("src/mcp/docs.cjs"),
        )
        .unwrap();
}

fn entry_server_in_every_document_named(outcome: &Outcome) {
    let claude = &outcome.json(".mcp.json").unwrap()["mcpServers"]["docs"];
    assert_eq!(claude["command"], json!("node"), "{claude}");
}

#[test]
fn an_entry_that_is_no_file_is_ab4307() {
    let outcome = run(
        &with(
            base(),
            "mcp.servers.docs",
            json!({ "entry": "./src/server/gone.ts" }),
        ),
        &[],
    );
    outcome
        .reported(Code::AB4307, "`./src/server/gone.ts`", None)
        .unwrap();
    let outside = run(
        &with(
            base(),
            "mcp.servers.docs",
            json!({ "entry": "../elsewhere.ts" }),
        ),
        &[],
    );
    outside
        .reported(Code::AB4307, "outside the project", None)
        .unwrap();
}

#[test]
fn a_prebuilt_entry_is_shipped_as_is() {
    let outcome = run(
        &with(
            base(),
            "mcp.servers.docs",
            json!({ "entry": { "prebuilt": "dist/docs-server.mjs" } }),
        ),
        &[("dist/docs-server.mjs", "// built elsewhere\n")],
    );
    let shipped = outcome
        .artifact()
        .unwrap()
        .files
        .get("mcp/docs/docs-server.mjs")
        .expect("shipped");
    assert_eq!(&*shipped.contents, b"// built elsewhere\n");
    let claude = &outcome.json(".mcp.json").unwrap()["mcpServers"]["docs"];
    assert_eq!(
        claude["args"],
        json!(["${CLAUDE_PLUGIN_ROOT}/mcp/docs/docs-server.mjs"])
    );
}

#[test]
fn web_entries_the_graph_cannot_open_are_ab4341() {
    let config = with(
        base(),
        "web",
        json!({ "apps": ["docs/nothing", { "app": "docs/viewer", "tool": "absent" }] }),
    );
    let outcome = run(
        &config,
        &[
            ("src/mcp/docs/apps/viewer.tsx", APP),
            ("src/mcp/docs/tools/show.ts", OPENING_TOOL),
        ],
    );
    outcome
        .reported(Code::AB4341, "names `docs/nothing`, which is no App", None)
        .unwrap();
    outcome
        .reported(Code::AB4341, "opens `docs/viewer` with `absent`", None)
        .unwrap();
    let unlinked = run(
        &with(base(), "web", json!({ "apps": ["docs/viewer"] })),
        &[
            ("src/mcp/docs/apps/viewer.tsx", APP),
            ("src/mcp/docs/tools/search.ts", TOOL),
        ],
    );
    unlinked
        .reported(Code::AB4341, "no tool opens `docs/viewer`", None)
        .unwrap();
}

#[test]
fn mcp_commands_patterns_that_match_nothing_are_ab4822_and_the_artifact_has_the_plugin_bin() {
    let tools = [
        ("src/mcp/docs/tools/search.ts", TOOL),
        ("src/mcp/docs/tools/reindex.ts", TOOL),
    ];
    let typo = run(
        &with(
            base(),
            "routes.mcpCommands",
            json!({ "include": ["docs:serch"], "exclude": ["docs:*"] }),
        ),
        &tools,
    );
    typo.reported(
        Code::AB4822,
        "`routes.mcpCommands.include` pattern `docs:serch` matches no generated tool",
        None,
    )
    .unwrap();
    let empty = run(
        &with(base(), "routes.mcpCommands", json!({ "include": [] })),
        &tools,
    );
    empty
        .reported(Code::AB4822, "`routes.mcpCommands.include` is empty", None)
        .unwrap();

    let chosen = run(
        &with(
            base(),
            "routes.mcpCommands",
            json!({ "exclude": ["*:re*"] }),
        ),
        &tools,
    );
    let artifact = chosen.artifact().unwrap();
    let commands = &artifact.manifest.cli.commands;
    assert_eq!(commands.len(), 1, "{commands:?}");
    assert_eq!(commands[0].route, "tool:docs/search");
    assert!(
        commands[0].confirm,
        "a tool without readOnlyHint: true asks first"
    );
    assert_eq!(artifact.manifest.cli.bin, "walk");
    let launcher = artifact.files.get("bin/walk").expect("bin/walk is planned");
    assert_eq!(launcher.mode, 0o755);
    let text = String::from_utf8(launcher.contents.to_vec()).unwrap();
    assert!(text.starts_with("#!/bin/sh\n"), "{text}");
    assert!(
        text.contains(r#"exec "$here/abgen-host" cli --artifact "$here/.." "$@""#),
        "{text}"
    );
}
