//! Arguments of `abgen dev`.

use std::path::PathBuf;

use clap::Args;

use super::ProjectArgs;

#[derive(Debug, Clone, Args)]
pub struct DevArgs {
    #[command(flatten)]
    pub project: ProjectArgs,

    /// Where to write the artifact [default: `<root>/artifact`], as `abgen build --out`.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub out: Option<PathBuf>,

    /// How long a change must be quiet before the rebuild starts, in milliseconds (a rebuild
    /// never waits more than 300 ms behind a stream of changes).
    #[arg(long, value_name = "MS", default_value_t = 20)]
    pub debounce_ms: u64,
}
