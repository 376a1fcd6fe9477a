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

    /// Write nothing; compare DIR (`--out`) with the artifact the sources produce. Exits 0 when
    /// they match, 1 with a summary of the files added, removed and changed and of the routes
    /// and hooks whose contract changed when they differ (a committed artifact gone stale).
    #[arg(long)]
    pub check: bool,

    /// Print one JSON report on standard output instead of text: status, output, targets,
    /// digest, files, Apps with their sizes, every diagnostic, and with `--check` the changes
    /// (`schemas/build-report.schema.json`).
    #[arg(long)]
    pub json: bool,

    /// The platforms of the plugin's users, as comma-separated keys (`linux-x64-gnu`,
    /// `linux-x64-musl`, `linux-arm64-gnu`, `linux-arm64-musl`, `darwin-x64`, `darwin-arm64`):
    /// each one's `abgen-host` goes to `bin/<platform>/abgen-host`, from its npm package
    /// `@abgen/<platform>` (or `ABGEN_HOST_<PLATFORM>`, e.g. `ABGEN_HOST_DARWIN_ARM64`), and
    /// `bin/abgen-host` becomes a POSIX sh launcher running the one of the machine it is on
    /// [default: this machine's `abgen-host` at `bin/abgen-host`, no launcher].
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub platform: Option<Vec<String>>,

    /// Build, then rebuild after every change of the project's files until Ctrl-C (SIGINT),
    /// SIGTERM or the end of a piped standard input. Production App documents, as a plain
    /// build, unless `--dev`; `abgen dev` is the same loop with readable ones. A failed rebuild
    /// keeps the last good artifact; diagnostics print when they change.
    #[arg(long, conflicts_with_all = ["check", "json"])]
    pub watch: bool,

    /// Readable App documents (unminified, with their own names), as `abgen dev` writes them:
    /// an artifact to develop against, not to ship. A bundler's dev server passes it
    /// (`agent-bundle/rsbuild` under `rsbuild dev`). `--check` compares with what ships, so
    /// the two do not go together.
    #[arg(long, conflicts_with = "check")]
    pub dev: bool,
}
