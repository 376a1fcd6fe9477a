//! `abgen-host web`'s arguments.

use std::path::PathBuf;

use clap::Args;

pub use abgen_runtime::web::Capability;

/// Open one MCP App of the artifact in a browser, served by the plugin's own MCP server.
#[derive(Debug, Args)]
pub struct WebArgs {
    /// The App, as `<server>/<app>` (e.g. `library/shelf_viewer`) [default: the artifact's only
    /// App].
    #[arg(value_name = "SERVER/APP")]
    pub app: Option<String>,

    /// The artifact root [default: `$ABGEN_ARTIFACT`, else the directory above this binary's
    /// `bin/`].
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub artifact: Option<PathBuf>,

    /// The loopback port of the host page [default: any free port]. The App's sandbox is served
    /// on a second, free port.
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,

    /// Open the host page in the user's browser (`xdg-open`, or `open` on macOS).
    #[arg(long, overrides_with = "no_open")]
    pub open: bool,

    /// Print the address only (the default).
    #[arg(long, overrides_with = "open")]
    pub no_open: bool,

    /// The opening tool's wire name [default: the only tool of the server whose
    /// `_meta.ui.resourceUri` is the App's].
    #[arg(long, value_name = "T")]
    pub tool: Option<String>,

    /// The opening call's arguments, a JSON object [default: `{}`].
    #[arg(long, value_name = "JSON")]
    pub input: Option<String>,

    /// A capability the App may use without asking in the host page; repeatable.
    #[arg(long, value_name = "CAP", value_enum)]
    pub allow: Vec<Capability>,

    /// Print the addresses as one JSON line: `{ app, server, tool, url, port, resourceUri,
    /// sandboxOrigin }`.
    #[arg(long)]
    pub json: bool,
}
