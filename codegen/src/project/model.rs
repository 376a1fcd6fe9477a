//! Plain types describing a project's discovered modules.

use std::path::PathBuf;

use serde::Serialize;

/// The scope a layout wraps.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(tag = "scope", rename_all = "kebab-case")]
pub enum LayoutScope {
    /// `src/layout.{ts,tsx}`.
    Root,
    /// `src/mcp/<server>/layout.{ts,tsx}`.
    Server { server: String },
}

/// What a discovered module is, by its path alone.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ModuleKind {
    Tool {
        server: String,
        name: String,
    },
    Resource {
        server: String,
        name: String,
    },
    Prompt {
        server: String,
        name: String,
    },
    App {
        server: String,
        name: String,
    },
    /// `src/events/<family>/<event>` (`event` = `<family>/<event>`) or `src/events/<name>`.
    Event {
        event: String,
    },
    Layout(LayoutScope),
    Provider {
        name: String,
    },
    /// `src/cli/<word>/…/<word>.{ts,tsx}`: a rendered command of the plugin's command line, its
    /// path the command's words (`src/cli/library/audit.tsx` is `<plugin> library audit`).
    Cli {
        words: Vec<String>,
    },
    /// `src/scripts/<name>.{tsx,jsx}` (rendered) or `src/scripts/<name>.ts` (plain); `name` keeps
    /// the folders of a nested script (`a/b`), which is refused (AB4808).
    Script {
        name: String,
        rendered: bool,
    },
    /// `src/mcp/<server>/<folder>/<tool>.cli.{ts,tsx}`: how the tool `<tool>` appears as a
    /// command of the plugin's command line; never a route. Only `tools` holds one (AB4840).
    ToolCli {
        server: String,
        folder: String,
        tool: String,
    },
    /// `src/mcp/<server>.{ts,tsx,mts,js,cjs}`: a handwritten stdio entry that claims the
    /// server id.
    ServerEntry {
        server: String,
    },
    /// A module outside the route set (a schema module a route imports), read for its consts
    /// only: no per-kind contract check runs on it.
    Imported,
}

/// A source module found by discovery.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SourceModule {
    /// Project-relative, `/`-separated path.
    pub path: String,
    #[serde(skip)]
    pub absolute: PathBuf,
    pub kind: ModuleKind,
}
