//! `parse-floor [--arena-per-file] [--root] DIR`: reads and oxc-parses the project's source
//! modules in parallel and prints the file count; the lower bound `abgen check` is compared with.
//! Exits 1 on a syntax error. `--arena-per-file` allocates a fresh arena per file instead of
//! reusing one per worker, to measure what that costs.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use abgen_bench_check::floor::{Arena, parse_all, source_files};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let arena = match args.iter().position(|arg| arg == "--arena-per-file") {
        Some(index) => {
            args.remove(index);
            Arena::PerFile
        }
        None => Arena::Reused,
    };
    let root = match args.as_slice() {
        [root] => PathBuf::from(root),
        [flag, root] if flag == "--root" => PathBuf::from(root),
        _ => {
            let _ = writeln!(
                std::io::stderr().lock(),
                "usage: parse-floor [--arena-per-file] [--root] DIR"
            );
            return ExitCode::from(2);
        }
    };
    let files = source_files(&root);
    let (report, errors) = parse_all(&files, arena);
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(
        stdout,
        "files={} bytes={} statements={} errors={}",
        report.files, report.bytes, report.statements, report.files_with_errors
    );
    if errors.is_empty() {
        return ExitCode::SUCCESS;
    }
    let mut stderr = std::io::stderr().lock();
    for error in errors.iter().take(10) {
        let _ = writeln!(stderr, "{error}");
    }
    ExitCode::from(1)
}
