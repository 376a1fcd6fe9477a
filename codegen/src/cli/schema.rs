//! Arguments of `abgen schema`.

use clap::{Args, ValueEnum};

use super::ProjectArgs;

#[derive(Debug, Clone, Args)]
pub struct SchemaArgs {
    #[command(flatten)]
    pub project: ProjectArgs,

    /// The tool whose schema to print: `tool:<server>/<name>`.
    #[arg(long, value_name = "ID")]
    pub route: String,

    /// Which schema: the tool's arguments (`input`) or its result (`output`).
    #[arg(long, value_enum, default_value_t = SchemaIo::Input)]
    pub io: SchemaIo,

    /// The projection to print: 2020-12, draft-07-lax, claude, codex or cursor.
    #[arg(long, value_name = "NAME", default_value = "2020-12")]
    pub profile: String,
}

/// `--io`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaIo {
    Input,
    Output,
}
