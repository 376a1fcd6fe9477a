//! The serde types of `abgen.manifest.json` except the hook tables (see `hooks.rs`).
//!
//! Field names are camelCase on the wire. Optional members are omitted when absent, never
//! written as `null`, so the canonical bytes of a manifest do not depend on how it was built.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::hooks::HookTables;
use crate::schema_profile::{Profile, ProfileForm};

/// The manifest's file name at the artifact root.
pub const MANIFEST_FILE_NAME: &str = "abgen.manifest.json";
/// The manifest format version this crate reads and writes.
pub const MANIFEST_VERSION: u32 = 9;
/// The React version the render worker is bundled with; the worker's `hello` must match it.
pub const REACT_VERSION: &str = "19.3.1";
/// The version of the host ↔ worker frame protocol.
pub const WORKER_PROTOCOL_VERSION: u32 = crate::worker::WORKER_PROTOCOL;

/// The whole `abgen.manifest.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// Always [`MANIFEST_VERSION`].
    pub manifest_version: u32,
    pub application: Application,
    /// The artifact epoch: sha256 (lowercase hex) of the canonical JSON of [`Manifest::files`].
    pub digest: String,
    /// The pinned React version of the bundled worker ([`REACT_VERSION`]).
    pub react: String,
    /// [`WORKER_PROTOCOL_VERSION`].
    pub worker_protocol: u32,
    /// Every route, sorted by id.
    pub routes: Vec<Route>,
    /// Every MCP server, sorted by id.
    pub servers: Vec<Server>,
    /// The plugin's own command line.
    pub cli: Cli,
    /// Per host (`claude`, …), the native hook bindings the hook client answers.
    pub hooks: HookTables,
    pub limits: Limits,
    /// Every file of the artifact except the manifest itself, sorted by path.
    pub files: Vec<FileEntry>,
    /// The config's `web`: which Apps `abgen-host web` exposes and its defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web: Option<Web>,
}

impl Manifest {
    /// How long a render of `route` may run, in milliseconds: the route's own
    /// `config.render.maxElapsedMs`, else the manifest's `limits.render.maxElapsedMs`.
    pub fn render_budget_ms(&self, route: &Route) -> u64 {
        route
            .config
            .get("render")
            .and_then(|render| render.get("maxElapsedMs"))
            .and_then(Value::as_u64)
            .unwrap_or(self.limits.render.max_elapsed_ms)
    }
}

/// The config's `web` (seed 002, §Exposing an App in the browser).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Web {
    /// In the config's order.
    pub apps: Vec<WebApp>,
    pub open: WebOpen,
}

/// One exposed App and its opening call's defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebApp {
    /// `<server>/<app>`.
    pub app: String,
    /// The opening tool's wire name; `None`: the only tool that links the App.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The opening call's arguments; `None`: `{}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Map<String, Value>>,
    /// Consent capabilities granted without asking (`call-tool`, `download-file`,
    /// `open-external-link`, `request-display-mode`).
    #[serde(default)]
    pub allow: Vec<String>,
}

/// Whether `abgen-host web` opens the user's browser when neither `--open` nor `--no-open` says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WebOpen {
    Browser,
    #[default]
    Never,
}

/// The consent capabilities a `web.apps[].allow` may name.
pub const WEB_CAPABILITIES: [&str; 4] = [
    "call-tool",
    "download-file",
    "open-external-link",
    "request-display-mode",
];

/// The plugin's command line: `bin/<bin>` runs `bin/abgen-host cli` over these commands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cli {
    /// The executable's name under `bin/` (the plugin name).
    pub bin: String,
    /// Sorted by path.
    pub commands: Vec<CliCommand>,
    /// What `<bin> run <name>` runs, sorted by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<CliScript>,
}

/// One script of the plugin (`<bin> run <name>`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CliScript {
    pub name: String,
    pub kind: CliScriptKind,
    /// The `script:<name>` route a rendered script renders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    /// The bundle node runs for a plain script, relative to the artifact root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Whether a script renders through the kernel or runs as its own Node program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CliScriptKind {
    /// `src/scripts/<name>.tsx`: rendered like a command, projected for where stdout goes.
    Rendered,
    /// `src/scripts/<name>.ts`: bundled and run by node, its stdout and stderr its own.
    Plain,
}

/// One command of the plugin's command line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CliCommand {
    /// The words that name it (`["library", "search_books"]` is `<bin> library search_books`).
    pub path: Vec<String>,
    /// The route it renders.
    pub route: String,
    pub projection: CliProjection,
    /// The tool is not `readOnlyHint: true`: it runs only after `--yes` or a yes at the prompt.
    pub confirm: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// How a command came to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CliProjection {
    /// `routes.mcpCommands` projects an MCP tool as `<server> <tool>`.
    McpCommand,
    /// A rendered `src/cli/**` route, its path the command's words.
    Route,
    /// A tool's colocated `<tool>.cli.ts` names the command that runs it.
    ToolCli,
}

/// Who the plugin is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Application {
    /// The plugin name (a slug): the Claude plugin name and the marketplace prefix.
    pub name: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// What kind of module a route is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
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

/// One route of the project. Its fields are declared in the order of their names on the wire,
/// the order the canonical writer puts them in, so that it writes a route (nearly all of a
/// manifest) as it comes, without reordering it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Route {
    /// The route's static options as written (without `inputSchema`/`resultSchema`).
    pub config: Map<String, Value>,
    /// The canonical event (`tool/after`); event routes only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// `tool:<server>/<name>`, `event:<family>/<event>`, …
    pub id: String,
    pub kind: RouteKind,
    pub schemas: RouteSchemas,
    /// The owning server id; MCP routes only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The route module, relative to the project root, `/`-separated.
    pub source: String,
    /// The MCP wire name (the last id segment); MCP routes only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire_name: Option<String>,
}

/// Where a route's input and result schemas come from, and their printed forms.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteSchemas {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<SchemaProjection>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<SchemaProjection>,
}

/// One schema of a route: the canonical form and the host-profile projections of it that differ
/// from it. Its fields are declared in the order of their names on the wire, as [`Route`]'s are.
/// The canonical form is shared (`Arc`): the compiler's host forms are written from it
/// ([`ProfileSchema::FromCanonical`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchemaProjection {
    /// The canonical JSON Schema 2020-12; absent when `source` is `runtime`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<Arc<Value>>,
    /// `jsonSchema` projected for each selected host with a schema profile (`claude`, `codex`,
    /// `cursor`), by profile name, where the projection differs from `jsonSchema`. An absent host
    /// takes `jsonSchema`: its profile gives that form back, or cannot take the schema (the build
    /// warned). Empty for run-time and literal schemas.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub profiles: std::collections::BTreeMap<String, ProfileProjection>,
    pub source: SchemaSource,
}

/// One host profile's form of a schema. A member named `jsonSchema`, like the canonical form,
/// so that the canonical writer keeps its `properties` in the author's order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileProjection {
    pub json_schema: ProfileSchema,
}

/// A host profile's form of a schema: a tree as a manifest is read, or, as the compiler writes
/// one, the canonical form and the profile, written as [`ProfileForm`] writes it (no tree is
/// made for a form that is only written).
#[derive(Clone, Debug)]
pub enum ProfileSchema {
    Tree(Arc<Value>),
    FromCanonical {
        canonical: Arc<Value>,
        profile: Profile,
    },
}

impl ProfileSchema {
    /// The tree this form is, or the canonical form it is written from: a profile's form has
    /// the kind of the canonical one (an object stays an object).
    pub fn written_from(&self) -> &Value {
        match self {
            ProfileSchema::Tree(tree) => tree,
            ProfileSchema::FromCanonical { canonical, .. } => canonical,
        }
    }

    /// The form as a tree.
    pub fn to_value(&self) -> Value {
        match self {
            ProfileSchema::Tree(tree) => Value::clone(tree),
            ProfileSchema::FromCanonical { canonical, profile } => {
                serde_json::to_value(ProfileForm::new(canonical, *profile))
                    .expect("a JSON value has string keys")
            }
        }
    }
}

/// Equal forms, however each is held. Two forms written from canonical forms are equal when
/// those are and the profile is the same (a watch loop compares every route of a rebuild with
/// the one it kept, whose canonical form is most often the very same `Arc`); only a tree and a
/// form to write are compared as trees.
impl PartialEq for ProfileSchema {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ProfileSchema::Tree(a), ProfileSchema::Tree(b)) => a == b,
            (
                ProfileSchema::FromCanonical { canonical, profile },
                ProfileSchema::FromCanonical {
                    canonical: other_canonical,
                    profile: other_profile,
                },
            ) => {
                profile == other_profile
                    && (Arc::ptr_eq(canonical, other_canonical) || canonical == other_canonical)
            }
            _ => self.to_value() == other.to_value(),
        }
    }
}

impl Serialize for ProfileSchema {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ProfileSchema::Tree(tree) => tree.serialize(serializer),
            ProfileSchema::FromCanonical { canonical, profile } => {
                ProfileForm::new(canonical, *profile).serialize(serializer)
            }
        }
    }
}

impl<'de> Deserialize<'de> for ProfileSchema {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Arc::<Value>::deserialize(deserializer).map(ProfileSchema::Tree)
    }
}

/// How a schema is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchemaSource {
    /// Translated from the zod expression at build time.
    Static,
    /// Computed by the worker from the real zod schema at run time.
    Runtime,
    /// A literal `inputJsonSchema` in the route options.
    Literal,
}

/// How a server is served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServerMode {
    /// Served by `abgen-host mcp --server <id>` from the routes below.
    Generated,
}

/// One MCP server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Server {
    pub id: String,
    pub mode: ServerMode,
    /// Route ids served, sorted.
    pub routes: Vec<String>,
    /// The declared `env`, as written: the defaults the host passes the server's process. The
    /// render worker lets the operator's `.env` files override a variable still holding its
    /// default (a default with a path token never compares equal, so it is kept as a host value).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub env: std::collections::BTreeMap<String, String>,
}

/// Bounds the runtime enforces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    pub render: RenderLimits,
    /// The largest hook stdin envelope read before the payload is refused.
    pub hook_input_max_bytes: u64,
}

/// Bounds of one render.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderLimits {
    /// A render still running after this long is aborted, unless the route's own
    /// `config.render.maxElapsedMs` says otherwise.
    pub max_elapsed_ms: u64,
    /// The most Flight bytes one render may produce.
    pub max_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            render: RenderLimits {
                max_elapsed_ms: 60_000,
                max_bytes: 8 * 1024 * 1024,
            },
            hook_input_max_bytes: 1024 * 1024,
        }
    }
}

/// One artifact file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileEntry {
    /// Relative to the artifact root, `/`-separated.
    pub path: String,
    /// sha256 of the bytes, lowercase hex.
    pub sha256: String,
    /// Unix permission bits (`0o644` = 420, `0o755` = 493).
    pub mode: u32,
}
