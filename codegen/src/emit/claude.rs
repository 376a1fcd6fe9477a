//! The Claude Code plugin documents: `.claude-plugin/plugin.json`, `.claude-plugin/marketplace.json`,
//! `.mcp.json` and `hooks/hooks.json` (the host contracts reference §2.1, §2.7 and its Appendix
//! on what `claude plugin validate --strict` accepts). Entry: [`plan_claude_documents`].
//!
//! The plugin manifest never points at `hooks/hooks.json`: Claude Code loads it by convention and
//! a pointer to it is a "duplicate hooks file" load error. Documents with nothing to declare
//! (no servers, no hooks) are not written.

use abgen_runtime::manifest::HookBinding;
use serde_json::{Map, Value, json};

use super::canonical_json::to_canonical_json;
use super::error::EmitError;
use super::hosts::HostTable;
use super::input::{EmitInput, EmitServer};
use super::plan::{FilePlan, MODE_FILE};

pub const PLUGIN_MANIFEST_PATH: &str = ".claude-plugin/plugin.json";
pub const MARKETPLACE_PATH: &str = ".claude-plugin/marketplace.json";
pub const MCP_PATH: &str = ".mcp.json";
pub const HOOKS_PATH: &str = "hooks/hooks.json";
/// Where the runtime binary sits in every artifact.
pub const HOST_BINARY_PATH: &str = "bin/abgen-host";

/// Adds the Claude documents for `input` and its resolved `bindings` to `plan`.
pub fn plan_claude_documents(
    host: &HostTable,
    input: &EmitInput,
    bindings: &[HookBinding],
    plan: &mut FilePlan,
) -> Result<(), EmitError> {
    let mut add =
        |path: &str, document: Value| plan.add(path, to_canonical_json(&document), MODE_FILE);
    add(PLUGIN_MANIFEST_PATH, plugin_manifest(input))?;
    add(MARKETPLACE_PATH, marketplace(input))?;
    if !input.servers.is_empty() {
        add(MCP_PATH, mcp_servers(host, &input.servers))?;
    }
    if !bindings.is_empty() {
        add(HOOKS_PATH, hooks_document(host, bindings))?;
    }
    Ok(())
}

/// The description every document shows; `claude plugin validate --strict` wants one.
fn description(input: &EmitInput) -> String {
    input
        .plugin
        .description
        .clone()
        .unwrap_or_else(|| format!("The {} plugin", input.plugin.name))
}

fn plugin_manifest(input: &EmitInput) -> Value {
    let plugin = &input.plugin;
    let mut manifest = json!({
        "name": plugin.name,
        "version": plugin.version,
        "description": description(input),
        "author": { "name": plugin.author.as_deref().unwrap_or(&plugin.name) },
    });
    let optional = [("license", &plugin.license), ("homepage", &plugin.homepage)];
    for (key, value) in optional {
        if let Some(value) = value {
            manifest[key] = json!(value);
        }
    }
    if !plugin.keywords.is_empty() {
        manifest["keywords"] = json!(plugin.keywords);
    }
    manifest
}

/// A one-plugin marketplace at the artifact root, named `<plugin>-marketplace`.
fn marketplace(input: &EmitInput) -> Value {
    let plugin = &input.plugin;
    json!({
        "name": format!("{}-marketplace", plugin.name),
        "owner": { "name": plugin.author.as_deref().unwrap_or(&plugin.name) },
        "metadata": { "description": description(input) },
        "plugins": [{
            "name": plugin.name,
            "source": "./",
            "description": description(input),
            "version": plugin.version,
        }],
    })
}

/// Every generated server is `abgen-host mcp --server <id>` from the installed plugin.
fn mcp_servers(host: &HostTable, servers: &[EmitServer]) -> Value {
    let entries: Map<String, Value> = servers
        .iter()
        .map(|server| {
            let entry = json!({
                "type": "stdio",
                "command": format!("{}/{HOST_BINARY_PATH}", host.plugin_root_token),
                "args": ["mcp", "--server", server.id],
            });
            (server.id.clone(), entry)
        })
        .collect();
    json!({ "mcpServers": entries })
}

/// The shell command a hook runs; the quoted root survives paths with spaces.
pub fn hook_command(host: &HostTable, event: &str) -> String {
    format!(
        "\"{}/{HOST_BINARY_PATH}\" hook --host {} --event {event}",
        host.plugin_root_token, host.name
    )
}

/// `{"hooks":{Native:[{matcher?, hooks:[{type, command, timeout}]}]}}`, groups in binding order.
fn hooks_document(host: &HostTable, bindings: &[HookBinding]) -> Value {
    let mut by_event: Map<String, Value> = Map::new();
    for binding in bindings {
        let mut group = Map::new();
        if let Some(matcher) = &binding.matcher {
            group.insert("matcher".into(), json!(matcher));
        }
        group.insert(
            "hooks".into(),
            json!([{
                "type": "command",
                "command": hook_command(host, &binding.event),
                "timeout": binding.timeout_sec,
            }]),
        );
        let groups = by_event
            .entry(binding.native_event.clone())
            .or_insert_with(|| json!([]));
        if let Value::Array(groups) = groups {
            groups.push(Value::Object(group));
        }
    }
    json!({ "hooks": by_event })
}
