//! `abgen-host mcp`: start the kernel from the manifest's head, read the manifest with the
//! server's routes, check the server exists, serve MCP on stdin/stdout until the client closes
//! stdin (exit 0 then, 2 when the server cannot start or stdout breaks), or with `--http ADDR`
//! over Streamable HTTP until a signal ends the process.
//!
//! The process is also its artifact's warm runtime: it starts a [`WarmHost`] that answers the
//! artifact's hooks (or stands by to, while another server of the plugin does) on the same
//! [`SharedKernel`] as the MCP session, so a hook renders on the session's workers. The host ends
//! when the session does, before the kernel.

use std::num::NonZeroUsize;
use std::process::ExitCode;
use std::sync::Arc;

use abgen_runtime::kernel::SharedKernel;
use abgen_runtime::manifest::{
    Limits, MANIFEST_FILE_NAME, Manifest, read_manifest_head, read_server_manifest,
};
use abgen_runtime::mcp::{
    HttpConfig, Log, MCP_PATH, McpServer, START_ALLOWANCE, ServerConfig, serve_http,
};
use abgen_runtime::warm::{HostLog, ServeLimits, SocketPath, WarmHost};

use super::hook::artifact_root;
use crate::cli::env_vars::ABGEN_MCP_HTTP_TOKEN;
use crate::cli::{McpArgs, Printer};

pub fn run(args: &McpArgs, printer: &Printer) -> ExitCode {
    let root = match args.artifact.clone().map_or_else(artifact_root, Ok) {
        Ok(root) => root,
        Err(message) => {
            printer.message(format!("mcp: {message}"));
            return ExitCode::from(2);
        }
    };
    let manifest_path = root.join(MANIFEST_FILE_NAME);
    let workers = args
        .workers
        .or_else(|| std::thread::available_parallelism().ok())
        .map_or(1, NonZeroUsize::get);
    // Node starts before the manifest is read whole, while the client's first message is not
    // even read: the kernel needs only what stands before the routes, and a large plugin's
    // routes take the host longer to read than Node takes to start. Every session begins with
    // `initialize` (or, without one, with a request that renders), and its first call then finds
    // the worker further along. A kernel that cannot start says why at each use, as it would
    // have at `initialize`; one started for a manifest that then fails to read, or names no such
    // server, ends with this function, and its workers with it.
    let head = read_manifest_head(&manifest_path);
    let early = head.as_ref().map(|head| {
        let kernel = artifact_kernel(&root, &head.digest, &head.limits, &args.server, workers);
        let _ = kernel.get();
        kernel
    });
    // The session serves one server: the other servers' routes are never parsed (nor held).
    let manifest = match read_server_manifest(&manifest_path, &args.server) {
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
    // The head read whole says what the head alone said; else the kernel is the manifest's own.
    let kernel = match (early, head) {
        (Some(kernel), Some(head))
            if head.digest == manifest.digest && head.limits == manifest.limits =>
        {
            kernel
        }
        _ => {
            let kernel = artifact_kernel(
                &root,
                &manifest.digest,
                &manifest.limits,
                &args.server,
                workers,
            );
            let _ = kernel.get();
            kernel
        }
    };
    let warm_host = start_warm_host(&root, &manifest, &kernel, &args.server, printer);
    let printer = *printer;
    let log: Log = Arc::new(move |line| printer.message(line));
    let config = ServerConfig {
        artifact: root,
        manifest,
        server: args.server.clone(),
        max_message_bytes: args.max_message_bytes.get(),
        heartbeat: abgen_runtime::mcp::HEARTBEAT,
    };
    if let Some(address) = args.http {
        let http = HttpConfig {
            address: Some(address),
            allowed_hosts: args.allowed_host.clone(),
            allowed_origins: args.allowed_origin.clone(),
            bearer_token: std::env::var(ABGEN_MCP_HTTP_TOKEN)
                .ok()
                .filter(|token| !token.is_empty()),
        };
        let server = args.server.clone();
        let served = serve_http(config, kernel, log, http, |bound| {
            printer.message(format!(
                "mcp {server}: serving Streamable HTTP at http://{bound}{MCP_PATH}"
            ));
        });
        drop(warm_host);
        let Err(error) = served;
        printer.message(format!("mcp: cannot serve HTTP at {address}: {error}"));
        return ExitCode::from(2);
    }
    let server = McpServer::new(config, kernel, log);
    let served = server.serve_stdio();
    // The session is over: stop answering hooks (the socket file goes with the server) before
    // the kernel, and its workers, go.
    drop(warm_host);
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            printer.message(format!("mcp: cannot write to stdout: {error}"));
            ExitCode::from(2)
        }
    }
}

/// The kernel of server `server` of the artifact at `root`, whose manifest has `digest` and
/// `limits`, with `workers` workers (none started yet).
fn artifact_kernel(
    root: &std::path::Path,
    digest: &str,
    limits: &Limits,
    server: &str,
    workers: usize,
) -> Arc<SharedKernel> {
    Arc::new(SharedKernel::for_artifact(
        root.to_owned(),
        digest.to_owned(),
        server.to_owned(),
        limits.render.max_bytes,
        workers,
        START_ALLOWANCE,
    ))
}

/// Starts the warm host of the artifact at `root`; without one (no socket path, no thread) hooks
/// take their fallbacks, which is said once on stderr.
fn start_warm_host(
    root: &std::path::Path,
    manifest: &Manifest,
    kernel: &Arc<SharedKernel>,
    server: &str,
    printer: &Printer,
) -> Option<WarmHost> {
    let label = format!("mcp {server}");
    let path = match SocketPath::for_artifact(root, &manifest.digest) {
        Ok(path) => path,
        Err(error) => {
            printer.message(format!(
                "{label}: warm runtime: hooks will take their fallbacks: {error}"
            ));
            return None;
        }
    };
    let log: HostLog = Arc::new(move |line| Printer.message(format!("{label}: {line}")));
    let source = Arc::clone(kernel) as Arc<dyn abgen_runtime::warm::RenderSource>;
    match WarmHost::start(
        path,
        manifest.digest.clone(),
        source,
        ServeLimits::default(),
        Arc::clone(&log),
    ) {
        Ok(host) => Some(host),
        Err(error) => {
            log(format!(
                "warm runtime: hooks will take their fallbacks: {error}"
            ));
            None
        }
    }
}
