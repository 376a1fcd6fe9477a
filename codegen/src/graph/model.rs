//! The route graph: plain, serializable data (camelCase JSON, schema in
//! `schemas/route-graph.schema.json`). Every list is sorted by id, so equal projects give
//! byte-equal graphs.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

pub use crate::extract::SchemaPresence;
use crate::project::Target;

/// Every route, layout and provider of a project, with its servers and their modes.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteGraph {
    pub plugin: PluginIdentity,
    pub targets: Vec<Target>,
    pub servers: Vec<ServerNode>,
    pub routes: Vec<RouteNode>,
    pub layouts: Vec<LayoutNode>,
    pub providers: Vec<ProviderNode>,
    /// The plain `src/scripts/<name>.ts` scripts, sorted by name: bundled and run by node, no
    /// routes; the manifest's `cli.scripts` lists them (not part of the graph's JSON).
    #[serde(skip)]
    pub plain_scripts: Vec<PlainScriptNode>,
}

/// A plain script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlainScriptNode {
    pub name: String,
    /// Project-relative path of the module.
    pub path: String,
}

impl RouteGraph {
    /// The route with `id` (routes are sorted by id).
    pub fn route(&self, id: &str) -> Option<&RouteNode> {
        let index = self
            .routes
            .binary_search_by(|route| route.id.as_str().cmp(id))
            .ok()?;
        self.routes.get(index)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginIdentity {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// An MCP server that owns route modules.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerNode {
    pub id: String,
    pub mode: ServerModeState,
    /// Ids of the routes the server serves; empty unless the mode is `generated` or `conflict`.
    pub routes: Vec<String>,
}

/// A server's resolved mode; `conflict` when routes and an entry claim disagree (AB4800).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerModeState {
    Generated,
    Custom,
    Command,
    Remote,
    Conflict,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RouteKind {
    Tool,
    Resource,
    Prompt,
    App,
    Event,
    /// A rendered `src/cli/**` command.
    Cli,
    /// A rendered `src/scripts/<name>.tsx`.
    Script,
}

impl RouteKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            RouteKind::Tool => "tool",
            RouteKind::Resource => "resource",
            RouteKind::Prompt => "prompt",
            RouteKind::App => "app",
            RouteKind::Event => "event",
            RouteKind::Cli => "cli",
            RouteKind::Script => "script",
        }
    }
}

/// One route: an MCP tool, resource, prompt or App, or an event route.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteNode {
    /// `tool:<server>/<name>`, `event:<family>/<event>`, `event:<name>`, `cli:<word>/<word>`,
    /// `script:<name>`.
    pub id: String,
    pub kind: RouteKind,
    /// Project-relative path of the module.
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The file stem of an MCP route, the words of a command (`library/audit`), a script's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The name the MCP server registers (the last id segment).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wire_name: Option<String>,
    /// The canonical event of an event route (`tool/after`, `stop`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// How the module declares itself; `None` when extraction recognised no form.
    pub form: Option<FormName>,
    /// The static options object, without schemas: the module's extracted one, shared.
    pub config: Arc<Map<String, Value>>,
    pub schemas: RouteSchemas,
    /// A tool's colocated `<tool>.cli.ts`: how it appears as a command. Read by the command
    /// plan (`commands.rs`) into the manifest's `cli.commands`; not part of the graph's JSON.
    #[serde(skip)]
    pub cli_projection: Option<ToolCliProjection>,
}

/// A tool's `<tool>.cli.ts` projection module.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCliProjection {
    /// Project-relative path of the `.cli.ts` module.
    pub path: String,
    /// Its static `config`: `command`, and optionally `description` and `confirm`.
    pub config: Map<String, Value>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FormName {
    DefineTool,
    DefineEvent,
    ConfigExport,
}

/// Whether a route declares its schemas, and as what kind of expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RouteSchemas {
    pub input: SchemaPresence,
    pub result: SchemaPresence,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutNode {
    /// `layout:root` or `layout:mcp:<server>`.
    pub id: String,
    pub path: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderNode {
    /// `provider:<stem>`.
    pub id: String,
    /// camelCase of the stem: `agent().provider(key)`.
    pub key: String,
    pub path: String,
}
