//! The host matrix as Rust data: `host-matrix/<host>.toml`, embedded in the binary and parsed
//! once. Entry: [`hosts`] (every host, in target order) or [`host`] (one by target name).
//!
//! Invariant: every host-specific fact the compiler uses is a field here; code that reads the
//! matrix never branches on a host name. `schemas/host-matrix.schema.json` validates the files
//! (a test), so a parse failure here is a defect of abgen itself, not of the user's project.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// The TOML text of every host, by target name, in target order.
pub const MATRIX_SOURCES: [(&str, &str); 4] = [
    ("claude", include_str!("../../../host-matrix/claude.toml")),
    ("codex", include_str!("../../../host-matrix/codex.toml")),
    ("cursor", include_str!("../../../host-matrix/cursor.toml")),
    (
        "portable",
        include_str!("../../../host-matrix/portable.toml"),
    ),
];

/// Every fact about one host.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostMatrix {
    /// The target name (`claude`).
    pub host: String,
    pub display_name: String,
    /// Which static-schema profile the host's MCP client reads.
    pub schema_profile: String,
    /// MCP `clientInfo.name` prefixes the host is known by.
    pub mcp_client_prefixes: Vec<String>,
    /// Rich MCP content (`image`, `audio`) the host's client accepts.
    pub rich_content: Vec<String>,
    /// What the host hands its model from a tool result with `structuredContent`: `structured`
    /// or `content` (a tool's `model` choice is honoured against it).
    pub model_reads: String,
    pub model_source: String,
    pub client_source: String,
    /// Source tag → what it names.
    pub sources: BTreeMap<String, String>,
    pub plugin: PluginRow,
    #[serde(default)]
    pub marketplace: Option<MarketplaceRow>,
    pub install: InstallRow,
    pub mcp: McpRow,
    /// Absent when the host runs no plugin hooks.
    #[serde(default)]
    pub hooks: Option<HooksRow>,
    #[serde(default)]
    pub tools: Vec<ToolRow>,
    pub events: Vec<EventRow>,
}

/// The plugin manifest.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PluginRow {
    pub source: String,
    /// What the host replaces with the installed plugin root (`${CLAUDE_PLUGIN_ROOT}`).
    pub root_token: String,
    /// Artifact-relative path of the manifest.
    pub manifest: String,
    /// JSON text with `{name}`, `{version}`, `{description}`, `{author}` placeholders.
    pub manifest_template: String,
    /// Identity fields copied into the manifest when the project declares them.
    pub optional_fields: Vec<String>,
    /// The manifest key that points at `./skills/` when the plugin has skills.
    #[serde(default)]
    pub skills_pointer: Option<String>,
    /// The folder whose executables the host puts on PATH; none when it exposes none.
    #[serde(default)]
    pub executables: Option<ExecutablesRow>,
}

/// Where a host exposes a plugin's executables.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct ExecutablesRow {
    pub source: String,
    /// Artifact-relative folder (`bin`).
    pub dir: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MarketplaceRow {
    pub source: String,
    pub path: String,
    pub template: String,
}

/// What a user does to install the plugin folder (INSTALL.md).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct InstallRow {
    pub source: String,
    /// One line each; `{name}` is the plugin name.
    pub steps: Vec<String>,
}

/// The MCP document.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct McpRow {
    pub source: String,
    pub path: String,
    /// The plugin-manifest key pointing at the document, when the host needs one.
    #[serde(default)]
    pub pointer: Option<String>,
    /// The document with an empty servers object (`{"mcpServers":{}}`).
    pub document_template: String,
    /// One server entry, with `{root}` and `{server}` placeholders.
    pub entry_template: String,
    /// The plugin root as a path prefix inside the MCP document (replaces a declared value's
    /// canonical `${PLUGIN_ROOT}`).
    pub root: String,
    /// `AGENT_BUNDLE_PLUGIN_ROOT` of every stdio entry that runs from the plugin root.
    pub anchor: String,
    /// The cwd an entry needs for `root` to resolve (Codex's `./`); `None` when `root` is a token.
    #[serde(default)]
    pub root_cwd: Option<String>,
    /// The members every stdio entry starts with.
    pub stdio_template: String,
    /// A Streamable HTTP entry, with a `{url}` placeholder.
    pub remote_template: String,
    /// The member of a remote entry holding its headers.
    pub headers_key: String,
    /// Whether a stdio `cwd` may carry a path token.
    pub cwd_tokens: bool,
    pub tasks: McpTasksRow,
}

/// Whether the host issues task-augmented tool calls (MCP 2025-11-25 tasks).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct McpTasksRow {
    pub source: String,
    /// `false`: a tool that allows tasks is called the ordinary way by this host.
    pub task_calls: bool,
}

/// How entries of the hooks document are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HooksLayout {
    /// `{Native:[{matcher?, hooks:[handler]}]}`.
    Grouped,
    /// `{Native:[handler + matcher?]}`.
    Flat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeoutUnit {
    Seconds,
    Milliseconds,
}

/// The hooks document and the host's timing rules.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HooksRow {
    pub source: String,
    pub path: String,
    #[serde(default)]
    pub pointer: Option<String>,
    pub layout: HooksLayout,
    /// The document with an empty hooks object.
    pub document_template: String,
    /// The handler's fixed members (`{"type":"command"}`).
    pub handler_template: String,
    /// The command, with `{root}`, `{host}` and `{event}` placeholders.
    pub command: String,
    pub timeout_unit: TimeoutUnit,
    pub default_timeout_sec: u64,
    /// What the runtime keeps back from the host timeout to print its answer and exit.
    pub exit_margin_ms: u64,
    /// Characters besides ASCII letters and digits that keep a matcher an exact `|` list.
    pub exact_matcher_chars: String,
    /// What a standalone (cold) worker needs of the deadline.
    pub cold_worker_ms: u64,
    /// The largest stdin payload the hook client reads.
    pub payload_max_bytes: u64,
    /// Nesting of payload values the hook client keeps (deeper is cut and marked truncated).
    pub payload_max_depth: u64,
    /// Write the (empty) document even without bindings.
    pub guard: bool,
}

/// One canonical tool selector on one host; exactly one of the three forms is set.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ToolRow {
    pub selector: String,
    #[serde(default)]
    pub names: Option<Vec<String>>,
    #[serde(default)]
    pub pattern: Option<String>,
    #[serde(default)]
    pub any: Option<bool>,
    pub source: String,
}

/// How a host delivers a canonical event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SupportState {
    Supported,
    /// A substitute event or weaker control: emitted with a warning.
    Degraded,
    Unavailable,
    /// The host could deliver it, but abgen must not register it there.
    Prohibited,
}

impl SupportState {
    pub const fn as_str(self) -> &'static str {
        match self {
            SupportState::Supported => "supported",
            SupportState::Degraded => "degraded",
            SupportState::Unavailable => "unavailable",
            SupportState::Prohibited => "prohibited",
        }
    }

    /// Whether a hook is registered in this state.
    pub const fn emits(self) -> bool {
        matches!(self, SupportState::Supported | SupportState::Degraded)
    }
}

/// Where a binding's matcher comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatcherSource {
    /// No matcher: every occurrence of the native event.
    #[default]
    None,
    /// The route's `tools` selectors, translated through [`HostMatrix::tools`].
    Tools,
    /// The route's `files` option: literal file names joined with `|`.
    Files,
    /// [`EventRow::fixed_matcher`] (a degraded event narrowed to one source).
    Fixed,
}

/// One canonical event on one host.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EventRow {
    pub event: String,
    pub state: SupportState,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub native: Option<String>,
    #[serde(default)]
    pub matcher: MatcherSource,
    #[serde(default)]
    pub fixed_matcher: Option<String>,
    #[serde(default)]
    pub decoder: Option<String>,
    #[serde(default)]
    pub encoder: Option<String>,
    /// Whether an answer on this event can refuse what it is about.
    #[serde(default)]
    pub deny: bool,
    /// A budget shared by every hook of the event that a plugin timeout does not raise.
    #[serde(default)]
    pub budget_ms: Option<u64>,
    /// The host clamps the event's timeout to this many seconds.
    #[serde(default)]
    pub max_timeout_sec: Option<u64>,
    /// The host fires the event before it starts the plugin's MCP servers: no warm runtime can
    /// answer it, only a standalone fallback.
    #[serde(default)]
    pub before_mcp: bool,
    pub source: String,
}

/// The host tools a selector stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeTools<'a> {
    Names(&'a [String]),
    /// Every tool name the (unanchored) regular expression matches.
    Pattern(&'a str),
    /// Anything; the runtime filters by selector.
    Any,
}

impl HostMatrix {
    /// The row of a canonical event, if the host lists it.
    pub fn event(&self, event: &str) -> Option<&EventRow> {
        self.events.iter().find(|row| row.event == event)
    }

    /// The native tools of a canonical selector, if the host lists it.
    pub fn selector(&self, selector: &str) -> Option<NativeTools<'_>> {
        let row = self.tools.iter().find(|row| row.selector == selector)?;
        Some(match (&row.names, &row.pattern) {
            (Some(names), _) => NativeTools::Names(names),
            (None, Some(pattern)) => NativeTools::Pattern(pattern),
            (None, None) => NativeTools::Any,
        })
    }

    /// Whether `character` keeps a matcher an exact list on this host.
    pub fn is_exact_matcher_char(&self, character: char) -> bool {
        character.is_ascii_alphanumeric()
            || self
                .hooks
                .as_ref()
                .is_some_and(|hooks| hooks.exact_matcher_chars.contains(character))
    }
}

/// Parses one matrix file.
pub fn parse_matrix(text: &str) -> Result<HostMatrix, toml::de::Error> {
    toml::from_str(text)
}

/// Every host, in target order (claude, codex, cursor, portable).
pub fn hosts() -> &'static [HostMatrix] {
    static HOSTS: OnceLock<Vec<HostMatrix>> = OnceLock::new();
    HOSTS.get_or_init(|| {
        MATRIX_SOURCES
            .iter()
            .map(|(name, text)| match parse_matrix(text) {
                Ok(matrix) => matrix,
                // Embedded data checked by the matrix tests: failing here is a defect of abgen.
                Err(error) => panic!("host-matrix/{name}.toml does not parse: {error}"),
            })
            .collect()
    })
}

/// The matrix of the target `name`.
pub fn host(name: &str) -> Option<&'static HostMatrix> {
    hosts().iter().find(|matrix| matrix.host == name)
}

#[cfg(test)]
#[path = "data_tests.rs"]
mod tests;
