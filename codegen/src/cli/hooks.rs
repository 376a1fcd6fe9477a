//! Arguments of `abgen hooks`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct HooksArgs {
    #[command(subcommand)]
    pub command: HooksCommand,
}

#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Run one hook of a built artifact as its host would, and show what the host receives.
    ///
    /// Runs the artifact's own `bin/abgen-host hook` with the payload on stdin. Exits 0 when
    /// the hook ran (whatever it answered), 1 when it could not be run.
    Simulate(SimulateArgs),
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The built artifact (the output of `abgen build`).
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub artifact: PathBuf,

    /// The host whose hook runs: claude.
    #[arg(long, value_name = "HOST")]
    pub host: String,

    /// The canonical event, e.g. `tool/after`.
    #[arg(long, value_name = "EVENT")]
    pub event: String,

    /// The host's payload as a JSON file [default: a built-in sample of the event's payload].
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub input: Option<PathBuf>,

    /// Render the route on a fresh worker even when its fallback is `none`, to see what it
    /// answers when a warm runtime serves it.
    #[arg(long)]
    pub standalone: bool,
}
