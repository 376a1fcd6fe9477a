//! `abgen-host cli`'s arguments: the plugin's own command line, as `bin/<plugin>` runs it.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Args;

/// Run one command of the plugin's command line.
#[derive(Debug, Args)]
pub struct CliArgs {
    /// The artifact root, holding `abgen.manifest.json` and `runtime/worker.mjs`.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub artifact: PathBuf,

    /// Tests: the terminal axis as JSON, instead of observing fds 1 and 2 (the `tty` knob of the
    /// test harness).
    #[arg(long, value_name = "JSON", hide = true)]
    pub terminal: Option<String>,

    /// The command and its flags, as the user typed them after `<plugin>`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    pub args: Vec<OsString>,
}
