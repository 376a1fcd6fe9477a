//! What the emitter needs to know about a project: plain owned data, built from the route graph
//! (or by hand in tests). Nothing here refers back to an earlier stage's types, so the emitter
//! is testable alone.

use std::path::PathBuf;
use std::sync::Arc;

use std::collections::BTreeMap;

use abgen_runtime::manifest::{RouteKind, RouteSchemas};
use serde_json::{Map, Value};

/// A route's schemas for the manifest: every form of each side, one per host profile.
#[derive(Clone)]
pub enum EmitSchemas {
    /// Made already.
    Projected(RouteSchemas),
    /// Made when the route's manifest text is written, and dropped once it is: nearly all of a
    /// manifest's memory is its schema forms, and a route's forms made and dropped in one task
    /// reuse the memory of the route before.
    Deferred(Arc<dyn Fn() -> RouteSchemas + Send + Sync>),
}

impl EmitSchemas {
    /// The schemas, made now if they were deferred.
    pub fn into_projected(self) -> RouteSchemas {
        match self {
            EmitSchemas::Projected(schemas) => schemas,
            EmitSchemas::Deferred(project) => project(),
        }
    }
}

impl std::fmt::Debug for EmitSchemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmitSchemas::Projected(schemas) => f.debug_tuple("Projected").field(schemas).finish(),
            EmitSchemas::Deferred(_) => f.write_str("Deferred"),
        }
    }
}

/// Deferred schemas are equal when they are the same projection.
impl PartialEq for EmitSchemas {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (EmitSchemas::Projected(a), EmitSchemas::Projected(b)) => a == b,
            (EmitSchemas::Deferred(a), EmitSchemas::Deferred(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// Everything the emitter reads.
#[derive(Clone, Debug, PartialEq)]
pub struct EmitInput {
    /// The project root (absolute); route sources are relative to it.
    pub project_root: PathBuf,
    pub plugin: PluginIdentity,
    /// Every route (MCP routes and event routes), in any order.
    pub routes: Vec<EmitRoute>,
    /// Every generated MCP server, in any order.
    pub servers: Vec<EmitServer>,
    /// Servers the config declares that abgen does not generate (a command, a remote URL).
    pub declared: Vec<EmitDeclaredServer>,
    /// Provider modules (`src/providers/<name>.ts`) by key, for the worker entry.
    pub providers: Vec<EmitProvider>,
    /// Layout modules (`src/layout.tsx`, `src/mcp/<server>/layout.tsx`), for the worker entry.
    pub layouts: Vec<EmitLayout>,
    /// The schemas translated at build time (or left to run time), by route id; a tool absent
    /// here gets a run-time input schema.
    pub schemas: BTreeMap<String, EmitSchemas>,
    /// Valid skills, copied to `skills/<name>/`.
    pub skills: Vec<super::skills::EmitSkill>,
    /// Compiled MCP App documents, written at their `path` (`mcp-apps/<name>.html`).
    pub apps: Vec<crate::apps::CompiledApp>,
    /// The config's `web`, carried into the manifest for `abgen-host web`.
    pub web: Option<abgen_runtime::manifest::Web>,
    /// The commands of the plugin's command line (`bin/<plugin>`), sorted by path.
    pub commands: Vec<abgen_runtime::manifest::CliCommand>,
    /// The scripts `<plugin> run <name>` runs, sorted by name.
    pub scripts: Vec<abgen_runtime::manifest::CliScript>,
    /// The plain scripts' bundles (artifact-relative path, source module, bytes), filled by the
    /// build; a plain script without its bytes is not emitted (a defect, not a user error).
    pub plain_scripts: Vec<EmitPlainScript>,
}

/// One plain `src/scripts/<name>.ts`, bundled by esbuild into its own Node program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmitPlainScript {
    /// `scripts/<name>.mjs`.
    pub file: String,
    /// Project-relative, `src/scripts/<name>.ts`.
    pub source: String,
    pub bundle: Vec<u8>,
}

/// One provider module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitProvider {
    /// The key of `agent().provider(key)`.
    pub key: String,
    /// Relative to the project root, `/`-separated.
    pub source: String,
}

/// One layout module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitLayout {
    /// `layout:root` or `layout:mcp:<server>`: the worker composes them in that order.
    pub id: String,
    /// Relative to the project root, `/`-separated.
    pub source: String,
}

/// The plugin's identity from the config's `plugin` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginIdentity {
    /// A slug: lowercase letters, digits, `.`, `_`, `-`.
    pub name: String,
    /// Defaults to `0.0.0` when the config has none.
    pub version: String,
    pub description: Option<String>,
    /// The author's name, shown by hosts; defaults to the plugin name.
    pub author: Option<String>,
    pub license: Option<String>,
    pub homepage: Option<String>,
    pub keywords: Vec<String>,
}

/// One route.
#[derive(Clone, Debug, PartialEq)]
pub struct EmitRoute {
    pub id: String,
    pub kind: RouteKind,
    /// Relative to the project root, `/`-separated (`src/mcp/library/tools/search.tsx`).
    pub source: String,
    /// MCP routes: the owning server and the wire name.
    pub server: Option<String>,
    pub wire_name: Option<String>,
    /// Event routes: the canonical event (`tool/after`).
    pub event: Option<String>,
    /// The static options (without `inputSchema`/`resultSchema`), shared with the route graph's
    /// node: a build reads them, never changes them.
    pub config: Arc<Map<String, Value>>,
}

/// One generated MCP server, with what a declaration beside it adds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmitServer {
    pub id: String,
    pub routes: Vec<String>,
    /// Appended after the generated arguments.
    pub args: Vec<String>,
    /// Applied over the plugin-root anchor.
    pub env: BTreeMap<String, String>,
    /// The hosts whose documents list it; `None` is every target.
    pub targets: Option<Vec<String>>,
}

/// A server that is not generated from routes: a handwritten entry abgen bundles (or a
/// prebuilt one it ships), a command it launches, or a remote URL it points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitDeclaredServer {
    pub id: String,
    pub launch: EmitLaunch,
    /// The hosts whose documents list it; `None` is every target.
    pub targets: Option<Vec<String>>,
    /// The module that becomes the server's file in the artifact, for an entry server.
    pub entry: Option<EmitEntry>,
    /// The server's files in the artifact (artifact-relative path, bytes), filled by the build
    /// from `entry`; an entry server without them is not emitted (a defect, not a user error).
    pub files: Vec<(String, Vec<u8>)>,
}

/// Where an entry server's artifact file comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmitEntry {
    /// A handwritten module (project-relative), bundled under the lifecycle shell into `file`.
    Bundle { source: String, file: String },
    /// A file the project's own build produced (project-relative), shipped as is at `file`.
    Prebuilt { source: String, file: String },
}

/// How a declared server is reached. Values may carry the canonical `${PLUGIN_ROOT}`, which
/// each host's document spells its own way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmitLaunch {
    /// An external process over stdio.
    Command {
        command: String,
        args: Vec<String>,
        cwd: Option<String>,
        /// Wins over the plugin-root anchor.
        env: BTreeMap<String, String>,
    },
    /// A Streamable HTTP server.
    Remote {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// The canonical plugin-root token of declared values.
pub const PLUGIN_ROOT_TOKEN: &str = "${PLUGIN_ROOT}";

/// Whether `targets` (a server's own selection) lists `host`.
pub fn selects(targets: Option<&[String]>, host: &str) -> bool {
    targets.is_none_or(|targets| targets.iter().any(|target| target == host))
}

impl EmitRoute {
    /// The event route's `targets` option allows `host` (absent = every host).
    pub fn targets_host(&self, host: &str) -> bool {
        match self.config.get("targets") {
            Some(Value::Array(targets)) => {
                targets.iter().any(|target| target.as_str() == Some(host))
            }
            _ => true,
        }
    }

    /// A string-array option (`tools`, `files`), ignoring entries that are not strings.
    pub fn string_list(&self, key: &str) -> Vec<&str> {
        match self.config.get(key) {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        }
    }
}
