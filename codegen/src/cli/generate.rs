//! Arguments of `abgen generate`.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct GenerateArgs {
    /// The project root, holding `agent-bundle.config.ts` and `src/` [default: the current
    /// directory].
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub root: Option<PathBuf>,
}
