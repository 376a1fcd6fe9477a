//! Arguments of `abgen inspect`.

use clap::Args;

use super::ProjectArgs;

#[derive(Debug, Clone, Args)]
pub struct InspectArgs {
    #[command(flatten)]
    pub project: ProjectArgs,

    /// Show only the routes: one line per route with its id, wire name and file.
    #[arg(long)]
    pub routes: bool,

    /// Show how every event route resolves on every selected host: native event, matcher,
    /// support state, reason and deadline.
    #[arg(long, conflicts_with = "routes")]
    pub hooks: bool,

    /// Print the route graph as JSON (for computers); with `--routes` or `--hooks`, only those.
    #[arg(long)]
    pub json: bool,
}
