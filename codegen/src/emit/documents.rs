//! Every host's documents from its host-matrix row: plugin manifest, marketplace, MCP document
//! and hooks document, at the paths the host reads. Entry: [`plan_host_documents`].
//!
//! Invariant: this file reads matrix fields and never branches on a host name. Templates are
//! JSON texts whose strings carry `{name}`-style placeholders, substituted after parsing, so
//! no value is ever spliced into JSON text. A document with nothing to declare is not written,
//! except a hooks document the matrix marks `guard` (written empty, and pointed at, so the host
//! never falls back to another host's conventional `hooks/hooks.json`).

use std::collections::BTreeMap;

use abgen_runtime::manifest::HookBinding;
use serde_json::{Map, Value, json};

use super::canonical_json::to_canonical_json;
use super::error::EmitError;
use super::input::{EmitInput, EmitLaunch, PLUGIN_ROOT_TOKEN, selects};
use super::plan::{FilePlan, MODE_FILE};
use crate::matrix::{HooksLayout, HostMatrix, TimeoutUnit};

/// Where the runtime binary sits in every artifact.
pub const HOST_BINARY_PATH: &str = "bin/abgen-host";
/// Where skills sit in every artifact.
pub const SKILLS_DIR: &str = "skills";
/// The member of every MCP document that holds the servers.
const MCP_SERVERS_KEY: &str = "mcpServers";
/// The member of every hooks document that holds the native events.
const HOOKS_KEY: &str = "hooks";

/// Adds `host`'s documents for `input` and its resolved `bindings` to `plan`.
pub fn plan_host_documents(
    host: &HostMatrix,
    input: &EmitInput,
    bindings: &[HookBinding],
    plan: &mut FilePlan,
) -> Result<(), EmitError> {
    let identity = Placeholders::identity(input, &host.plugin.root_token);
    let mut add =
        |path: &str, document: &Value| plan.add(path, to_canonical_json(document), MODE_FILE);
    let mut manifest = identity.fill(&host.plugin.manifest_template, &host.host)?;
    let plugin = &input.plugin;
    for field in &host.plugin.optional_fields {
        let value = match field.as_str() {
            "license" => plugin.license.as_ref().map(|license| json!(license)),
            "homepage" => plugin.homepage.as_ref().map(|homepage| json!(homepage)),
            "keywords" => (!plugin.keywords.is_empty()).then(|| json!(plugin.keywords)),
            _ => None,
        };
        if let Some(value) = value {
            manifest[field.as_str()] = value;
        }
    }
    if let Some(pointer) = &host.plugin.skills_pointer
        && !input.skills.is_empty()
    {
        manifest[pointer.as_str()] = json!(format!("./{SKILLS_DIR}/"));
    }
    let servers = mcp_servers(host, &identity, input)?;
    if !servers.is_empty() {
        let mcp = &host.mcp;
        let mut document = identity.fill(&mcp.document_template, &host.host)?;
        document[MCP_SERVERS_KEY] = Value::Object(servers);
        add(&mcp.path, &document)?;
        if let Some(pointer) = &mcp.pointer {
            manifest[pointer.as_str()] = json!(format!("./{}", mcp.path));
        }
    }
    if let Some(hooks) = &host.hooks
        && (hooks.guard || !bindings.is_empty())
    {
        let document = hooks_document(host, &identity, bindings)?;
        add(&hooks.path, &document)?;
        if let Some(pointer) = &hooks.pointer {
            manifest[pointer.as_str()] = json!(format!("./{}", hooks.path));
        }
    }
    add(&host.plugin.manifest, &manifest)?;
    if let Some(marketplace) = &host.marketplace {
        add(
            &marketplace.path,
            &identity.fill(&marketplace.template, &host.host)?,
        )?;
    }
    Ok(())
}

/// `{name: entry}` for every server this host's document lists: each generated server
/// (`abgen-host mcp --server <id>`, plus a declaration's `args` and `env`) and each declared
/// command or remote server, in the host's spelling. Every stdio entry that runs from the
/// plugin root carries the `AGENT_BUNDLE_PLUGIN_ROOT` anchor; a server's own `env` wins.
fn mcp_servers(
    host: &HostMatrix,
    identity: &Placeholders,
    input: &EmitInput,
) -> Result<Map<String, Value>, EmitError> {
    let mcp = &host.mcp;
    let mut entries = Map::new();
    for server in &input.servers {
        if !selects(server.targets.as_deref(), &host.host) {
            continue;
        }
        let placeholders = identity.with("server", &server.id);
        let mut entry = placeholders.fill(&mcp.entry_template, &host.host)?;
        if !server.args.is_empty()
            && let Some(Value::Array(args)) = entry.get_mut("args")
        {
            args.extend(server.args.iter().map(|arg| json!(host_path(host, arg))));
        }
        let cwd = entry.get("cwd").and_then(Value::as_str).map(str::to_owned);
        entry["env"] = Value::Object(stdio_env(host, cwd.as_deref(), &server.env));
        entries.insert(server.id.clone(), entry);
    }
    for server in &input.declared {
        if !selects(server.targets.as_deref(), &host.host) {
            continue;
        }
        let entry = match &server.launch {
            EmitLaunch::Command {
                command,
                args,
                cwd,
                env,
            } => {
                let mut entry = identity.fill(&mcp.stdio_template, &host.host)?;
                let uses_root = std::iter::once(command)
                    .chain(args)
                    .chain(env.values())
                    .any(|value| value.contains(PLUGIN_ROOT_TOKEN));
                entry["command"] = json!(host_path(host, command));
                if !args.is_empty() {
                    entry["args"] = json!(
                        args.iter()
                            .map(|arg| host_path(host, arg))
                            .collect::<Vec<_>>()
                    );
                }
                let cwd = stdio_cwd(host, cwd.as_deref(), uses_root);
                if let Some(cwd) = &cwd {
                    entry["cwd"] = json!(cwd);
                }
                let env: BTreeMap<String, String> = env
                    .iter()
                    .map(|(key, value)| (key.clone(), host_path(host, value)))
                    .collect();
                entry["env"] = Value::Object(stdio_env(host, cwd.as_deref(), &env));
                entry
            }
            EmitLaunch::Remote { url, headers } => {
                let placeholders = identity.with("url", &host_path(host, url));
                let mut entry = placeholders.fill(&mcp.remote_template, &host.host)?;
                if !headers.is_empty() {
                    let headers: Map<String, Value> = headers
                        .iter()
                        .map(|(key, value)| (key.clone(), json!(host_path(host, value))))
                        .collect();
                    entry[mcp.headers_key.as_str()] = Value::Object(headers);
                }
                entry
            }
        };
        entries.insert(server.id.clone(), entry);
    }
    Ok(entries)
}

/// `value` with the canonical `${PLUGIN_ROOT}` spelled as this host's MCP document does.
fn host_path(host: &HostMatrix, value: &str) -> String {
    value.replace(PLUGIN_ROOT_TOKEN, &host.mcp.root)
}

/// Whether a cwd as written names the plugin root itself.
pub fn is_plugin_root_cwd(cwd: &str) -> bool {
    matches!(cwd, "./" | "." | PLUGIN_ROOT_TOKEN) || cwd == format!("{PLUGIN_ROOT_TOKEN}/")
}

/// The cwd a declared stdio server's entry carries on `host`: a plugin-root cwd becomes the
/// host's `root_cwd` (or is omitted where the root is a token the host expands: Claude Code
/// ignores a stdio cwd), an entry whose values name the root gets `root_cwd` where the root
/// only resolves against it, and any other cwd is kept as written (`check` refuses a
/// token-bearing one where the host does not expand it, AB4315).
fn stdio_cwd(host: &HostMatrix, cwd: Option<&str>, uses_root: bool) -> Option<String> {
    let mcp = &host.mcp;
    match cwd {
        Some(cwd) if is_plugin_root_cwd(cwd) => match &mcp.root_cwd {
            Some(root_cwd) => Some(root_cwd.clone()),
            None if mcp.cwd_tokens => Some(mcp.root.clone()),
            None => None,
        },
        Some(cwd) => Some(host_path(host, cwd)),
        None if uses_root => mcp.root_cwd.clone(),
        None => None,
    }
}

/// The environment of a stdio entry: the anchor (where the entry runs from the plugin root,
/// or the root is a token the host expands), then the server's own `env`, which wins.
fn stdio_env(
    host: &HostMatrix,
    cwd: Option<&str>,
    env: &BTreeMap<String, String>,
) -> Map<String, Value> {
    let mut members = Map::new();
    let anchored = match &host.mcp.root_cwd {
        Some(root_cwd) => cwd == Some(root_cwd.as_str()),
        None => true,
    };
    if anchored {
        members.insert(PLUGIN_ROOT_ENV_ANCHOR.into(), json!(host.mcp.anchor));
    }
    for (key, value) in env {
        members.insert(key.clone(), json!(value));
    }
    members
}

/// The environment variable holding the plugin install root in every stdio entry.
pub const PLUGIN_ROOT_ENV_ANCHOR: &str = "AGENT_BUNDLE_PLUGIN_ROOT";

/// The native events with their handlers, in binding order, laid out as the host reads them.
fn hooks_document(
    host: &HostMatrix,
    identity: &Placeholders,
    bindings: &[HookBinding],
) -> Result<Value, EmitError> {
    let Some(hooks) = &host.hooks else {
        return Ok(json!({}));
    };
    let mut document = identity.fill(&hooks.document_template, &host.host)?;
    let mut by_event = Map::new();
    for binding in bindings {
        let placeholders = identity
            .with("host", &host.host)
            .with("event", &binding.event);
        let mut handler = identity.fill(&hooks.handler_template, &host.host)?;
        handler["command"] = json!(placeholders.text(&hooks.command));
        handler["timeout"] = json!(match hooks.timeout_unit {
            TimeoutUnit::Seconds => binding.timeout_sec,
            TimeoutUnit::Milliseconds => binding.timeout_sec * 1000,
        });
        let entry = match hooks.layout {
            HooksLayout::Grouped => {
                let mut group = Map::new();
                if let Some(matcher) = &binding.matcher {
                    group.insert("matcher".into(), json!(matcher));
                }
                group.insert("hooks".into(), json!([handler]));
                Value::Object(group)
            }
            HooksLayout::Flat => {
                if let Some(matcher) = &binding.matcher {
                    handler["matcher"] = json!(matcher);
                }
                handler
            }
        };
        let entries = by_event
            .entry(binding.native_event.clone())
            .or_insert_with(|| json!([]));
        if let Value::Array(entries) = entries {
            entries.push(entry);
        }
    }
    document[HOOKS_KEY] = Value::Object(by_event);
    Ok(document)
}

/// Placeholder values (`{name}` → `curator`), substituted inside JSON strings.
#[derive(Clone, Debug)]
struct Placeholders {
    values: Vec<(String, String)>,
}

impl Placeholders {
    /// The plugin's identity and the host's root token. The description every document shows
    /// defaults to one naming the plugin (`claude plugin validate --strict` wants one).
    fn identity(input: &EmitInput, root_token: &str) -> Self {
        let plugin = &input.plugin;
        let description = plugin
            .description
            .clone()
            .unwrap_or_else(|| format!("The {} plugin", plugin.name));
        let author = plugin.author.clone().unwrap_or_else(|| plugin.name.clone());
        Self {
            values: vec![
                ("name".into(), plugin.name.clone()),
                ("version".into(), plugin.version.clone()),
                ("description".into(), description),
                ("author".into(), author),
                ("root".into(), root_token.to_owned()),
            ],
        }
    }

    fn with(&self, key: &str, value: &str) -> Self {
        let mut values = self.values.clone();
        values.push((key.to_owned(), value.to_owned()));
        Self { values }
    }

    /// `text` with every known `{key}` replaced, in one pass (a value is never re-read).
    fn text(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find('{') {
            out.push_str(&rest[..start]);
            let after = &rest[start + 1..];
            let value = after.find('}').and_then(|end| {
                let key = &after[..end];
                self.values
                    .iter()
                    .find(|(known, _)| known == key)
                    .map(|(_, value)| (value, end))
            });
            match value {
                Some((value, end)) => {
                    out.push_str(value);
                    rest = &after[end + 1..];
                }
                None => {
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// Parses `template` and substitutes inside every string (keys stay as written).
    fn fill(&self, template: &str, host: &str) -> Result<Value, EmitError> {
        let mut value: Value =
            serde_json::from_str(template).map_err(|source| EmitError::Template {
                host: host.to_owned(),
                source,
            })?;
        self.fill_value(&mut value);
        Ok(value)
    }

    fn fill_value(&self, value: &mut Value) {
        match value {
            Value::String(text) => *text = self.text(text),
            Value::Array(items) => items.iter_mut().for_each(|item| self.fill_value(item)),
            Value::Object(members) => members
                .values_mut()
                .for_each(|member| self.fill_value(member)),
            _ => {}
        }
    }
}
