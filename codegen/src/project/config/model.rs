//! The typed project config: plain data read from `agent-bundle.config.*` and package.json.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::diagnostics::Location;

/// What the project declares about itself, after defaults and package.json are applied.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectConfig {
    pub plugin: PluginMetadata,
    /// Selected hosts, sorted and without duplicates; `[portable]` when the config names none.
    pub targets: Vec<Target>,
    /// `mcp.servers`: servers the config declares, by id.
    pub mcp_servers: BTreeMap<String, DeclaredServer>,
    /// `routes.servers`: explicit modes of servers, by id.
    pub route_servers: BTreeMap<String, ServerMode>,
    /// `routes.mcpCommands`: which generated tools the plugin's command line projects.
    pub mcp_commands: Option<McpCommands>,
    /// `skills`: explicit skill paths or globs, as written.
    pub skills: Vec<String>,
    /// `web`: the Apps `abgen-host web` exposes, as the manifest carries them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web: Option<abgen_runtime::manifest::Web>,
    /// `tools.rsbuild.output.sourceMap.js`: whether App documents carry a source map.
    #[serde(skip_serializing_if = "AppSourceMap::is_none")]
    pub app_source_map: AppSourceMap,
    /// Project-relative path of the config file, when there is one.
    pub file: Option<String>,
    /// Where each config value was written, by JSON Pointer (`/mcp/servers/docs/entry`), for
    /// diagnostics of later stages.
    #[serde(skip)]
    pub locations: BTreeMap<String, Location>,
}

impl ProjectConfig {
    /// Where the value at `pointer` was written (else its nearest written parent, else the
    /// config file).
    pub fn location(&self, pointer: &str) -> Option<Location> {
        locate(&self.locations, self.file.as_deref(), pointer)
    }
}

/// The location of `pointer` in `locations`, else of its nearest written parent, else `file`.
pub fn locate(
    locations: &BTreeMap<String, Location>,
    file: Option<&str>,
    pointer: &str,
) -> Option<Location> {
    let mut current = pointer;
    loop {
        if let Some(location) = locations.get(current) {
            return Some(location.clone());
        }
        match current.rfind('/') {
            Some(0) | None => break,
            Some(slash) => current = &current[..slash],
        }
    }
    file.map(Location::file)
}

/// The plugin's identity and descriptive metadata (`plugin` in the config).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginMetadata {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<Author>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
}

/// `plugin.author`: a plain name or a person record.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Author {
    Name(String),
    Person {
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        email: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
}

/// A host abgen can build for. The order is the canonical order of target lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Claude,
    Codex,
    Cursor,
    Portable,
}

impl Target {
    pub const ALL: [Target; 4] = [
        Target::Claude,
        Target::Codex,
        Target::Cursor,
        Target::Portable,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Target::Claude => "claude",
            Target::Codex => "codex",
            Target::Cursor => "cursor",
            Target::Portable => "portable",
        }
    }

    pub fn parse(name: &str) -> Option<Target> {
        Target::ALL
            .into_iter()
            .find(|target| target.as_str() == name)
    }
}

/// `routes.mcpCommands`: `true` projects every generated tool; `include`/`exclude` patterns
/// (`<server>:<tool>`, `*` any run of characters) choose among them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct McpCommands {
    /// `None`: every tool (`true`, or an object without `include`).
    pub include: Option<Vec<String>>,
    pub exclude: Vec<String>,
}

/// How an MCP server that owns route modules is served (`routes.servers.<id>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerMode {
    /// abgen generates the server from its route modules.
    Generated,
    /// A hand-written server entry serves it; its route modules are not compiled.
    Custom,
    /// A declared command serves it.
    Command,
    /// A remote URL serves it.
    Remote,
}

impl ServerMode {
    pub const ALL: [ServerMode; 4] = [
        ServerMode::Generated,
        ServerMode::Custom,
        ServerMode::Command,
        ServerMode::Remote,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            ServerMode::Generated => "generated",
            ServerMode::Custom => "custom",
            ServerMode::Command => "command",
            ServerMode::Remote => "remote",
        }
    }

    pub fn parse(name: &str) -> Option<ServerMode> {
        ServerMode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == name)
    }
}

/// One `mcp.servers.<id>` declaration, kept as data; the fields the route graph and the
/// emitter need are lifted out.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeclaredServer {
    /// The JSON Pointer of the declaration in the config (`/mcp/servers/<id>`).
    pub pointer: String,
    /// The module path of `entry`, or the file of `entry: { prebuilt }`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    /// `entry` is `{ prebuilt }`: shipped as is, not bundled.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub prebuilt: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `args`, after the command (or appended to a generated server's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// `env`: wins over the plugin-root anchor.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// `headers` of a remote server.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// `targets`: replaces the default selection (every target of the plugin).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub targets: Option<Vec<Target>>,
    /// `apps`: MCP Apps declared in config, by App name; each one valid (its problems were
    /// reported and it was left out).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub apps: BTreeMap<String, DeclaredApp>,
    /// The declaration as written (args, env, targets, apps, transport…).
    pub declaration: Map<String, Value>,
}

/// Whether App documents carry a source map (seed 002 §The compiled document): none by
/// default; on request through `tools.rsbuild.output.sourceMap.js`, only inline, since an
/// external `.map` beside the document would break the one self-contained file per App.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AppSourceMap {
    #[default]
    None,
    /// `inline-source-map` (any `inline-…` devtool): the map is a data URL in the script.
    Inline,
    /// Any other devtool (`source-map`, `hidden-source-map`, `true`): a `.map` file, refused
    /// at compile naming it.
    External,
}

impl AppSourceMap {
    pub fn is_none(&self) -> bool {
        *self == AppSourceMap::None
    }
}

/// One `mcp.servers.<id>.apps.<name>` declaration (seed 002 §MCP Apps): an App whose entry may
/// live anywhere in the project, with its own template and target restriction.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeclaredApp {
    /// The JSON Pointer of the declaration (`/mcp/servers/<id>/apps/<name>`).
    pub pointer: String,
    /// The entry module, project-relative, `/`-separated, without `./`.
    pub entry: String,
    pub resource_uri: String,
    /// The `.html`/`.htm` template, project-relative, without `./`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    /// `targets`: a restriction of the server's targets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub targets: Option<Vec<Target>>,
    /// `_meta`: merged into the App resource's `_meta`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl DeclaredServer {
    /// The first of `entry`, `command`, `url` the declaration sets: these claim the server id
    /// for something other than generated routes.
    pub fn entry_claim(&self) -> Option<&'static str> {
        [
            ("entry", &self.entry),
            ("command", &self.command),
            ("url", &self.url),
        ]
        .into_iter()
        .find_map(|(key, value)| value.as_ref().map(|_| key))
    }
}
