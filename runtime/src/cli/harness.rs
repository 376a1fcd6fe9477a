//! `abgen-host harness`'s arguments.

use std::path::PathBuf;

use clap::Args;

/// Serve the `agent-bundle/test` harness of one artifact over stdio.
#[derive(Debug, Args)]
pub struct HarnessArgs {
    /// The artifact root, holding `abgen.manifest.json` and `runtime/worker.mjs`.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub artifact: PathBuf,
}
