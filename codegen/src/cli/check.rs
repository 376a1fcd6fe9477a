//! Arguments of `abgen check`.

use clap::Args;

use super::ProjectArgs;

#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub project: ProjectArgs,

    /// Print the diagnostics as one JSON document (for computers) instead of text.
    #[arg(long)]
    pub json: bool,
}
