//! Host tables: every host-specific fact the emitter uses, as plain data, one table per host.
//!
//! A table is a `const` today and becomes a row set of `host-matrix/<host>.toml` later; the
//! emitter's logic ([`super::hook_table`], [`super::claude`]) reads only these fields, never
//! branches on a host name. Entry: [`table`].

mod claude;

use abgen_runtime::manifest::HookBinding;

use super::error::EmitError;
use super::input::EmitInput;
use super::plan::FilePlan;

pub use claude::CLAUDE;

/// Every host-specific fact about one host.
#[derive(Debug)]
pub struct HostTable {
    /// The target name (`claude`).
    pub name: &'static str,
    /// The token the host replaces with the installed plugin root in commands and args.
    pub plugin_root_token: &'static str,
    /// The hook timeout written when a route declares no `timeoutMs`, in seconds.
    pub default_timeout_sec: u64,
    /// What the runtime keeps back from the host timeout to print its answer and exit.
    pub exit_margin_ms: u64,
    /// Per canonical event: how the host delivers it.
    pub events: &'static [EventRow],
    /// Per canonical tool selector: the host's native tool names or pattern.
    pub tool_selectors: &'static [ToolSelectorRow],
    /// Characters a matcher may use and still be read as an exact `|`-separated list.
    pub exact_matcher_chars: fn(char) -> bool,
    /// Adds the host's own documents (plugin manifest, MCP and hook documents) to the plan.
    pub plan_documents: DocumentPlanner,
}

/// Plans one host's documents from the input and that host's resolved hook bindings.
pub type DocumentPlanner =
    fn(&HostTable, &EmitInput, &[HookBinding], &mut FilePlan) -> Result<(), EmitError>;

/// One canonical event on one host.
#[derive(Debug)]
pub struct EventRow {
    /// The canonical event (`tool/after`).
    pub event: &'static str,
    pub support: Support,
    /// The native event name (`PostToolUse`).
    pub native_event: &'static str,
    pub matcher: MatcherSource,
    /// Envelope decoder id the hook client uses for the native payload.
    pub decoder: &'static str,
    /// Output encoder id the hook client uses for the native answer.
    pub encoder: &'static str,
    /// A budget shared by every hook of the event that the hook `timeout` does not raise.
    pub budget_ms: Option<u64>,
}

/// How well a host delivers a canonical event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    Supported,
    /// Delivered through a substitute event; emitted with a warning.
    Degraded {
        reason: &'static str,
    },
    Unavailable {
        reason: &'static str,
    },
}

/// Where a binding's matcher comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatcherSource {
    /// The event has no matcher (or the route needs none).
    None,
    /// The route's `tools` selectors, translated through [`HostTable::tool_selectors`].
    ToolSelectors,
    /// The route's `files` option: literal file names joined with `|`.
    FileNames,
    /// A fixed matcher (a degraded event narrowed to one source).
    Fixed(&'static str),
}

/// One canonical tool selector on one host.
#[derive(Debug)]
pub struct ToolSelectorRow {
    /// `shell`, `file.read`, `file.write`, `mcp`, `agent`, `other`.
    pub selector: &'static str,
    pub tools: NativeTools,
}

/// The host tools a selector stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeTools {
    /// These exact tool names.
    Names(&'static [&'static str]),
    /// Every tool name the (unanchored) regular expression matches.
    Pattern(&'static str),
    /// Anything; the runtime filters by selector.
    Any,
}

/// Every host table, by target name.
pub const HOSTS: &[&HostTable] = &[&CLAUDE];

/// The table of the target `name`, if abgen can emit for it.
pub fn table(name: &str) -> Option<&'static HostTable> {
    HOSTS.iter().copied().find(|host| host.name == name)
}

impl HostTable {
    /// The row of a canonical event, if the host table lists it.
    pub fn event(&self, event: &str) -> Option<&EventRow> {
        self.events.iter().find(|row| row.event == event)
    }

    /// The native tools of a canonical selector, if the selector is known.
    pub fn selector(&self, selector: &str) -> Option<NativeTools> {
        self.tool_selectors
            .iter()
            .find(|row| row.selector == selector)
            .map(|row| row.tools)
    }
}
