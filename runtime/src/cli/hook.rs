//! `abgen-host hook`'s arguments. The host and event are plain strings, never clap value
//! enums: an unknown one must be an honest empty answer, not clap's exit 2.

use clap::{Args, ValueEnum};

/// Answer one hook delivery.
#[derive(Debug, Args)]
pub struct HookArgs {
    /// The host that runs the hook: `claude`, `codex` or `cursor`.
    #[arg(long, value_name = "HOST")]
    pub host: String,

    /// The canonical event the hook is registered for, e.g. `tool/after`.
    #[arg(long, value_name = "EVENT")]
    pub event: String,

    /// Render with this fallback instead of the route's declared one when no warm runtime
    /// answers; `abgen hooks simulate --standalone` uses it to try a route without one.
    #[arg(long, value_enum, value_name = "FALLBACK")]
    pub fallback: Option<FallbackArg>,
}

/// The `--fallback` values (the manifest's `fallback`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FallbackArg {
    /// Answer with nothing.
    None,
    /// Start the render worker once for this delivery.
    Standalone,
}
