//! `abgen-host mcp`: read the manifest, check the server exists, serve MCP on stdin/stdout until
//! the client closes stdin. Exit 0 then, 2 when the server cannot start or stdout breaks.

use std::io::{BufReader, stdin, stdout};
use std::num::NonZeroUsize;
use std::process::ExitCode;
use std::sync::Arc;

use abgen_runtime::manifest::{MANIFEST_FILE_NAME, read_manifest};
use abgen_runtime::mcp::{Log, McpServer, ServerConfig};

use super::hook::artifact_root;
use crate::cli::{McpArgs, Printer};

pub fn run(args: &McpArgs, printer: &Printer) -> ExitCode {
    let root = match args.artifact.clone().map_or_else(artifact_root, Ok) {
        Ok(root) => root,
        Err(message) => {
            printer.message(format!("mcp: {message}"));
            return ExitCode::from(2);
        }
    };
    let manifest = match read_manifest(&root.join(MANIFEST_FILE_NAME)) {
        Ok(manifest) => manifest,
        Err(error) => {
            printer.message(format!("mcp: {error}"));
            return ExitCode::from(2);
        }
    };
    if !manifest
        .servers
        .iter()
        .any(|server| server.id == args.server)
    {
        let known: Vec<&str> = manifest.servers.iter().map(|s| s.id.as_str()).collect();
        printer.message(format!(
            "mcp: no server `{}` in this artifact; its servers: {}",
            args.server,
            known.join(", ")
        ));
        return ExitCode::from(2);
    }
    let printer = *printer;
    let log: Log = Arc::new(move |line| printer.message(line));
    let server = McpServer::new(
        ServerConfig {
            artifact: root,
            manifest,
            server: args.server.clone(),
            max_message_bytes: args.max_message_bytes.get(),
            workers: args
                .workers
                .or_else(|| std::thread::available_parallelism().ok())
                .map_or(1, NonZeroUsize::get),
            heartbeat: abgen_runtime::mcp::HEARTBEAT,
        },
        log,
    );
    match server.serve(BufReader::new(stdin()), stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            printer.message(format!("mcp: cannot write to stdout: {error}"));
            ExitCode::from(2)
        }
    }
}
