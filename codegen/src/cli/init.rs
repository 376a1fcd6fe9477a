//! Arguments of `abgen init`.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct InitArgs {
    /// The folder of the new project, created when missing [default: the current directory].
    /// It may hold other files, but none that `init` writes: those are never replaced.
    #[arg(value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub dir: Option<PathBuf>,

    /// The plugin's name (an npm package name and a slug) [default: DIR's name, made one].
    #[arg(long)]
    pub name: Option<String>,
}
