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

    /// Print the route graph as JSON (for computers); with `--routes`, only its routes.
    #[arg(long)]
    pub json: bool,
}
