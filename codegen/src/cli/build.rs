//! Arguments of `abgen build`.

use std::path::PathBuf;

use clap::Args;

use super::ProjectArgs;

#[derive(Debug, Clone, Args)]
pub struct BuildArgs {
    #[command(flatten)]
    pub project: ProjectArgs,

    /// Where to write the artifact [default: `<root>/artifact`]. The project root, a folder
    /// containing it, and anything inside `src/` are refused; an existing DIR is replaced only
    /// when it is empty or exactly the artifact abgen wrote there (a symlink is judged by its
    /// target). Builds of one DIR at the same time wait for each other.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub out: Option<PathBuf>,
}
