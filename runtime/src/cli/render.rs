//! `abgen-host render`'s arguments.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// Render one route.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The artifact root, holding `abgen.manifest.json` and `runtime/worker.mjs`.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub artifact: PathBuf,

    /// The route id, e.g. `tool:library/search_books`.
    #[arg(long, value_name = "ID")]
    pub route: String,

    /// The route's input as JSON: a tool's arguments, or an event's `{canonical, native,
    /// provenance}` [default: {}].
    #[arg(long, value_name = "JSON")]
    pub input: Option<String>,

    /// What to print.
    #[arg(long, value_enum, default_value_t = RenderFormat::Markdown)]
    pub format: RenderFormat,
}

/// The output formats of `abgen-host render`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RenderFormat {
    /// The final Agent Document as JSON.
    Document,
    /// Every render event as one JSON line: shell, progress, replace, error, complete.
    Ndjson,
    /// The document's stable content as Markdown.
    Markdown,
    /// The final value (`<Agent.Result value>`) as JSON.
    Json,
}
