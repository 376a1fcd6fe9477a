//! `abgen-host web`: open one MCP App of the artifact in a browser. Usage errors (no such App or
//! tool, several Apps and none named, an `--input` that is not a JSON object) exit 2; an artifact
//! without a manifest, an App without a document, or a server that cannot start exit 1. Once
//! serving it runs until SIGINT (130) or SIGTERM (143), which end the MCP server's workers first
//! (`shutdown`).

use std::process::{Command, ExitCode, Stdio};

use abgen_runtime::manifest::{MANIFEST_FILE_NAME, WebOpen, read_manifest};
use abgen_runtime::mcp::Log;
use abgen_runtime::web::{self, WebAddress, WebOptions};
use clap::ValueEnum as _;
use serde_json::Value;

use super::hook::artifact_root;
use crate::cli::{Printer, WebArgs};

pub fn run(args: &WebArgs, printer: &Printer) -> ExitCode {
    let usage = |message: String| {
        printer.message(format!("web: {message}"));
        ExitCode::from(2)
    };
    let failure = |message: String| {
        printer.message(format!("web: {message}"));
        ExitCode::from(1)
    };
    let root = match args.artifact.clone().map_or_else(artifact_root, Ok) {
        Ok(root) => root,
        Err(message) => return failure(message),
    };
    let manifest = match read_manifest(&root.join(MANIFEST_FILE_NAME)) {
        Ok(manifest) => manifest,
        Err(error) => return failure(error.to_string()),
    };
    let input = match args.input.as_deref().map(serde_json::from_str::<Value>) {
        None => None,
        Some(Ok(Value::Object(input))) => Some(input),
        Some(Ok(_)) => return usage("--input must be a JSON object".into()),
        Some(Err(error)) => return usage(format!("--input is not JSON: {error}")),
    };
    let selection = match web::select(&manifest, args.app.as_deref(), args.tool.as_deref()) {
        Ok(selection) => selection,
        Err(error) => return usage(error.to_string()),
    };
    // The config's `web` entry for this App gives what the command line does not.
    let exposed = web::exposed(&manifest, &selection);
    let input = input
        .or_else(|| exposed.and_then(|entry| entry.input.clone()))
        .unwrap_or_default();
    let mut allow = args.allow.clone();
    for capability in exposed
        .map(|entry| entry.allow.as_slice())
        .unwrap_or_default()
    {
        if let Ok(capability) = web::Capability::from_str(capability, false)
            && !allow.contains(&capability)
        {
            allow.push(capability);
        }
    }
    let open_by_default = manifest
        .web
        .as_ref()
        .is_some_and(|web| web.open == WebOpen::Browser);
    let open = if args.open || args.no_open {
        args.open
    } else {
        open_by_default
    };
    let options = WebOptions {
        artifact: root,
        manifest,
        selection,
        input,
        allow,
        port: args.port.unwrap_or(0),
    };
    let printer = *printer;
    let log: Log = std::sync::Arc::new(move |line| printer.message(line));
    let json = args.json;
    let served = web::serve(options, log, |address| {
        announce(address, json, &printer);
        if open {
            open_browser(&address.url, &printer);
        }
    });
    let Err(message) = served;
    failure(message)
}

/// The one line on stdout that says where the App is; a closed stdout is said on stderr.
fn announce(address: &WebAddress, json: bool, printer: &Printer) {
    let line = if json {
        serde_json::to_string(address).unwrap_or_else(|_| "{}".into())
    } else {
        format!(
            "MCP App {} at {} (tool {}; Ctrl-C stops the server)",
            address.app, address.url, address.tool
        )
    };
    if let Err(error) = printer.result(&format!("{line}\n")) {
        printer.message(format!(
            "web: cannot write to stdout: {error}; the App is at {}",
            address.url
        ));
    }
}

/// Opens `url` in the user's browser; the opener is reaped on a thread of its own.
fn open_browser(url: &str, printer: &Printer) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    match Command::new(opener)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(error) => printer.message(format!(
            "web: cannot run {opener} to open the page ({error}); open {url} yourself"
        )),
    }
}
