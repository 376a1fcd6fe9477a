//! `gen-projects --routes N --out DIR`: writes a deterministic synthetic project with `N` tool
//! routes (spread over ten MCP servers) plus a config and a few event routes.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use abgen_bench_check::generate::write_project;

const USAGE: &str = "usage: gen-projects --routes N --out DIR";

fn main() -> ExitCode {
    let mut routes = None;
    let mut out = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--routes" => {
                routes = args
                    .next()
                    .and_then(|value| value.replace(['_', ','], "").parse::<usize>().ok())
            }
            "--out" => out = args.next().map(PathBuf::from),
            _ => return fail(&format!("unexpected argument {arg:?}\n{USAGE}")),
        }
    }
    let (Some(routes), Some(out)) = (routes, out) else {
        return fail(USAGE);
    };
    // Refusing a non-empty directory keeps stale routes of a larger run out of a smaller one.
    if out
        .read_dir()
        .is_ok_and(|mut entries| entries.next().is_some())
    {
        return fail(&format!("{} exists and is not empty", out.display()));
    }
    match write_project(&out, routes) {
        Ok(summary) => {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(
                stdout,
                "wrote {} files ({} tools, {} events, {} bytes) to {}",
                summary.files,
                summary.tools,
                summary.events,
                summary.bytes,
                out.display()
            );
            ExitCode::SUCCESS
        }
        Err(error) => fail(&format!("writing {}: {error}", out.display())),
    }
}

fn fail(message: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr().lock(), "gen-projects: {message}");
    ExitCode::from(2)
}
