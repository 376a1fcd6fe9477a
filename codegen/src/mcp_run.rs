//! `abgen mcp run`: one built stdio MCP server in the foreground, started as a host starts it.
//! [`resolve_launch`] reads the server's entry from the host's own MCP document in the artifact
//! and expands it as that host would (its plugin-root token, the `${VAR}` and `${VAR:-default}`
//! references of hosts that interpolate, Codex's plugin-root `cwd`); [`exec_launch`] then
//! replaces this process with the server, so the server owns stdin and stdout, its exit code is
//! the command's, and a signal meant for the command reaches the server itself.
//!
//! The operator's `.env` layer is the project's: the server's shell reads the files
//! [`OPERATOR_ENV_FILES_ENV`] names (the project root's `.env` and `.env.local`, or the
//! `--env-file`s) with the same precedence as the installed plugin's own files, and one parser,
//! `agent-bundle/launch-env`'s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::matrix::HostMatrix;

/// Names the operator's `.env` files for the server's shell (`agent-bundle/launch-env`).
pub const OPERATOR_ENV_FILES_ENV: &str = "AGENT_BUNDLE_ENV_FILES";

/// The plugin-root anchor every generated stdio entry carries.
const PLUGIN_ROOT_ENV: &str = "AGENT_BUNDLE_PLUGIN_ROOT";

/// The operator's files of a project root, in the order a later one wins.
const PROJECT_ENV_FILES: [&str; 2] = [".env", ".env.local"];

/// Why a server cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum McpRunError {
    /// The request names something the artifact does not hold (exit 2).
    #[error("{0}")]
    Usage(String),
    /// The artifact or the server's program cannot be read or started (exit 1).
    #[error("{0}")]
    Failed(String),
}

/// Where the operator's variables come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvFiles {
    /// `.env` then `.env.local` of this project root (either may be absent).
    Project(PathBuf),
    /// These files, in order (`--env-file`); each must exist.
    Named(Vec<PathBuf>),
    /// None (`--no-env`).
    None,
}

/// A server's process as its host would start it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerLaunch {
    /// The host whose MCP document the entry comes from.
    pub host: String,
    pub program: PathBuf,
    pub args: Vec<String>,
    /// `None`: the caller's working directory, as Claude Code and Cursor start servers.
    pub cwd: Option<PathBuf>,
    /// Set over the caller's environment.
    pub env: BTreeMap<String, String>,
}

/// Resolves `server`'s entry in the MCP document of `target` (or of the only host whose document
/// declares it) inside `artifact`; `lookup` reads the caller's environment for `${VAR}`.
pub fn resolve_launch(
    artifact: &Path,
    server: &str,
    target: Option<&str>,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerLaunch, McpRunError> {
    let artifact = artifact.canonicalize().map_err(|error| {
        McpRunError::Failed(format!(
            "cannot read the artifact {}: {error}; build it first (`abgen build`)",
            artifact.display()
        ))
    })?;
    let documents = mcp_documents(&artifact)?;
    if documents.is_empty() {
        return Err(McpRunError::Usage(format!(
            "{} holds no host's MCP document; build it for claude, codex or cursor",
            artifact.display()
        )));
    }
    let declaring: Vec<&(&HostMatrix, Value)> = documents
        .iter()
        .filter(|(_, document)| document["mcpServers"].get(server).is_some())
        .collect();
    let (host, document) = match target {
        Some(target) => {
            let Some(found) = documents.iter().find(|(host, _)| host.host == target) else {
                let built: Vec<&str> = documents
                    .iter()
                    .map(|(host, _)| host.host.as_str())
                    .collect();
                return Err(McpRunError::Usage(format!(
                    "the artifact has no {target} MCP document; it holds: {}",
                    built.join(", ")
                )));
            };
            found
        }
        None => match declaring.as_slice() {
            [only] => *only,
            [] => {
                return Err(McpRunError::Usage(format!(
                    "no MCP document in the artifact declares the server `{server}`; it declares: {}",
                    declared_servers(&documents)
                )));
            }
            several => {
                let hosts: Vec<&str> = several.iter().map(|(host, _)| host.host.as_str()).collect();
                return Err(McpRunError::Usage(format!(
                    "`{server}` is declared for {}; choose one with --target",
                    hosts.join(", ")
                )));
            }
        },
    };
    let Some(entry) = document["mcpServers"].get(server) else {
        return Err(McpRunError::Usage(format!(
            "the {} MCP document ({}) declares no server `{server}`; it declares: {}",
            host.host,
            host.mcp.path,
            declared_servers(std::slice::from_ref(&(*host, document.clone())))
        )));
    };
    launch_of(host, &artifact, server, entry, lookup)
}

/// Every host MCP document the artifact holds, in the matrix's order.
fn mcp_documents(artifact: &Path) -> Result<Vec<(&'static HostMatrix, Value)>, McpRunError> {
    let mut documents = Vec::new();
    for host in crate::matrix::hosts() {
        let path = artifact.join(&host.mcp.path);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let document: Value = serde_json::from_str(&text).map_err(|error| {
            McpRunError::Failed(format!("{} is not JSON: {error}", path.display()))
        })?;
        documents.push((host, document));
    }
    Ok(documents)
}

fn declared_servers(documents: &[(&HostMatrix, Value)]) -> String {
    let mut servers: Vec<&str> = documents
        .iter()
        .filter_map(|(_, document)| document["mcpServers"].as_object())
        .flat_map(|servers| servers.keys().map(String::as_str))
        .collect();
    servers.sort_unstable();
    servers.dedup();
    if servers.is_empty() {
        "none".to_owned()
    } else {
        servers.join(", ")
    }
}

fn launch_of(
    host: &HostMatrix,
    artifact: &Path,
    server: &str,
    entry: &Value,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerLaunch, McpRunError> {
    if let Some(url) = entry.get("url").and_then(Value::as_str) {
        return Err(McpRunError::Usage(format!(
            "`{server}` is a remote server at {url}; there is no process to run, a client connects to it"
        )));
    }
    let root = artifact.to_string_lossy();
    let expand = |value: &str, place: &str| expand(host, &root, value, place, lookup);
    let Some(command) = entry.get("command").and_then(Value::as_str) else {
        return Err(McpRunError::Failed(format!(
            "the {} entry of `{server}` has no `command`",
            host.host
        )));
    };
    let command = expand(command, "command")?;
    let args = match entry.get("args") {
        None => Vec::new(),
        Some(Value::Array(args)) => args
            .iter()
            .enumerate()
            .map(|(index, arg)| {
                arg.as_str()
                    .ok_or_else(|| {
                        McpRunError::Failed(format!("`args[{index}]` of `{server}` is no string"))
                    })
                    .and_then(|arg| expand(arg, &format!("args[{index}]")))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(McpRunError::Failed(format!(
                "`args` of `{server}` is no array"
            )));
        }
    };
    // A host resolves a relative `cwd` against the plugin root (Codex's `./`).
    let cwd = match entry.get("cwd").and_then(Value::as_str) {
        Some(cwd) => Some(normalize(&artifact.join(expand(cwd, "cwd")?))),
        None => None,
    };
    let base = cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| artifact.to_owned());
    let program = if command.contains('/') {
        normalize(&base.join(&command))
    } else {
        PathBuf::from(command)
    };
    let mut env = BTreeMap::new();
    if let Some(members) = entry.get("env").and_then(Value::as_object) {
        for (key, value) in members {
            let Some(value) = value.as_str() else {
                return Err(McpRunError::Failed(format!(
                    "`env.{key}` of `{server}` is no string"
                )));
            };
            let mut value = expand(value, &format!("env.{key}"))?;
            // Codex's anchor is `./` against the plugin-root cwd; the server gets it absolute.
            if key == PLUGIN_ROOT_ENV && Path::new(&value).is_relative() {
                value = normalize(&base.join(&value)).to_string_lossy().into_owned();
            }
            env.insert(key.clone(), value);
        }
    }
    Ok(ServerLaunch {
        host: host.host.clone(),
        program,
        args,
        cwd,
        env,
    })
}

/// `value` as `host` expands it: its plugin-root token becomes `root`; a host whose documents
/// interpolate (its root is a token) also expands `${VAR}` and `${VAR:-default}` from the
/// environment, and refuses an unset variable without a default, as the host would.
fn expand(
    host: &HostMatrix,
    root: &str,
    value: &str,
    place: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, McpRunError> {
    let token = &host.mcp.root;
    if !token.starts_with("${") {
        return Ok(value.to_owned());
    }
    let mut expanded = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        expanded.push_str(&rest[..start]);
        let Some(length) = rest[start..].find('}') else {
            expanded.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let reference = &rest[start..=start + length];
        let inner = &reference[2..reference.len() - 1];
        if reference == token || reference == host.plugin.root_token {
            expanded.push_str(root);
        } else {
            let (name, default) = match inner.split_once(":-") {
                Some((name, default)) => (name, Some(default)),
                None => (inner, None),
            };
            match lookup(name).or_else(|| default.map(str::to_owned)) {
                Some(found) => expanded.push_str(&found),
                None => {
                    return Err(McpRunError::Usage(format!(
                        "`{place}` of the {} entry refers to ${{{name}}}, which is not set; set it, as {} would need it set",
                        host.host, host.host
                    )));
                }
            }
        }
        rest = &rest[start + length + 1..];
    }
    expanded.push_str(rest);
    Ok(expanded)
}

/// `path` without `.` components and with `..` folded, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

/// The value of [`OPERATOR_ENV_FILES_ENV`]: a JSON array of the files, in order.
pub fn operator_env_files(files: &EnvFiles) -> Result<String, McpRunError> {
    let paths: Vec<PathBuf> = match files {
        EnvFiles::Project(root) => {
            let root = std::path::absolute(root).map_err(|error| {
                McpRunError::Failed(format!("cannot resolve {}: {error}", root.display()))
            })?;
            PROJECT_ENV_FILES
                .iter()
                .map(|name| root.join(name))
                .collect()
        }
        EnvFiles::Named(files) => files
            .iter()
            .map(|file| {
                if !file.is_file() {
                    return Err(McpRunError::Usage(format!(
                        "--env-file {}: no such file",
                        file.display()
                    )));
                }
                std::path::absolute(file).map_err(|error| {
                    McpRunError::Failed(format!("cannot resolve {}: {error}", file.display()))
                })
            })
            .collect::<Result<_, _>>()?,
        EnvFiles::None => Vec::new(),
    };
    let paths: Vec<String> = paths
        .iter()
        .map(|path| path.to_string_lossy().into_owned())
        .collect();
    Ok(serde_json::to_string(&paths).unwrap_or_else(|_| "[]".to_owned()))
}

/// The server's command: `launch` with `extra_env` over its environment.
fn command_of(launch: &ServerLaunch, extra_env: &[(&str, String)]) -> std::process::Command {
    let mut command = std::process::Command::new(&launch.program);
    command.args(&launch.args).envs(&launch.env);
    for (key, value) in extra_env {
        command.env(key, value);
    }
    if let Some(cwd) = &launch.cwd {
        command.current_dir(cwd);
    }
    command
}

/// Replaces this process with the server; returns only if it cannot be started.
#[cfg(unix)]
pub fn exec_launch(launch: &ServerLaunch, extra_env: &[(&str, String)]) -> McpRunError {
    use std::os::unix::process::CommandExt;
    let error = command_of(launch, extra_env).exec();
    McpRunError::Failed(format!(
        "cannot start {}: {error}",
        launch.program.display()
    ))
}

/// Runs the server as a child where a process cannot be replaced, and exits with its code.
#[cfg(not(unix))]
pub fn exec_launch(launch: &ServerLaunch, extra_env: &[(&str, String)]) -> McpRunError {
    match command_of(launch, extra_env).status() {
        Ok(status) => std::process::exit(status.code().unwrap_or(1)),
        Err(error) => McpRunError::Failed(format!(
            "cannot start {}: {error}",
            launch.program.display()
        )),
    }
}

#[cfg(test)]
#[path = "mcp_run_tests.rs"]
mod tests;
