//! The lists from the manifest alone (no Node): which host a client is, the tool definitions
//! that host sees, and the resources, resource templates and prompts of a server.
//!
//! Which client belongs to which host is a host-matrix fact (`mcp_client_prefixes`), read from
//! the embedded `host-matrix/*.toml`, so no code here names a host. A client no prefix matches
//! gets the canonical 2020-12 schemas.
//!
//! A schema the compiler could not read statically (`source: runtime`) is computed by zod in the
//! render worker; [`tool_definition`] projects it for the client with the same
//! `schema_profile` projections the compiler wrote the static ones with, and
//! [`invalid_arguments`] checks a call against it before the render starts.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::document::DocumentError;
use crate::manifest::{Manifest, Route, RouteKind, SchemaProjection, SchemaSource};
use crate::schema_profile::{Profile, project};
use crate::worker::ComputedSchemas;

const MATRIX: [&str; 4] = [
    include_str!("../../../host-matrix/claude.toml"),
    include_str!("../../../host-matrix/codex.toml"),
    include_str!("../../../host-matrix/cursor.toml"),
    include_str!("../../../host-matrix/portable.toml"),
];

/// The host-matrix facts the MCP server needs about the connected client.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ClientHost {
    /// The host name (`excludeClients` names hosts).
    pub host: String,
    /// The schema profile name its `inputSchema` comes from.
    pub schema_profile: String,
    #[serde(default)]
    pub mcp_client_prefixes: Vec<String>,
    /// Rich content kinds (`image`, `audio`) the client takes.
    #[serde(default)]
    pub rich_content: Vec<String>,
    /// What the host hands its model from a result with `structuredContent`.
    #[serde(default)]
    pub model_reads: ModelReads,
}

/// What a host hands its model from the result of a tool that declares an `outputSchema` and
/// returns `structuredContent` (a host-matrix fact).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelReads {
    /// Only the structured value.
    Structured,
    /// The content blocks, as MCP intends (and what a client no matrix row names is taken to do).
    #[default]
    Content,
}

/// How the server honours a tool's `model` choice for one client: by what it lists and answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelView {
    /// As the host does: the route makes no choice, or the host already reads what it chose.
    AsTheHostReads,
    /// The route chose `content` on a host that hands its model the structured value whenever a
    /// result has one (Claude Code and Codex do, `outputSchema` or not): the tool is listed
    /// without an `outputSchema` and its value travels in the result's `_meta`, which hosts keep
    /// from the model, where `agent-bundle/app`'s typed calls read it.
    ValueInMeta,
    /// The route chose `structured` on a host that reads content: the content is the result
    /// value as JSON text (rich blocks kept).
    ValueAsContent,
}

/// What `route`'s model is handed on `host`'s client.
pub fn model_view(route: &Route, host: Option<&ClientHost>) -> ModelView {
    let reads = host.map_or(ModelReads::Content, |host| host.model_reads);
    match (route.config.get("model").and_then(Value::as_str), reads) {
        (Some("content"), ModelReads::Structured) => ModelView::ValueInMeta,
        (Some("structured"), ModelReads::Content) => ModelView::ValueAsContent,
        _ => ModelView::AsTheHostReads,
    }
}

/// The matrix's hosts, read once: every request names its client, so this is on the hot path.
static HOSTS: std::sync::LazyLock<Vec<ClientHost>> = std::sync::LazyLock::new(|| {
    MATRIX
        .iter()
        .filter_map(|text| toml::from_str::<ClientHost>(text).ok())
        .collect()
});

/// The host whose MCP client-name prefix `client_name` starts with, if any.
pub fn client_host(client_name: &str) -> Option<ClientHost> {
    HOSTS
        .iter()
        .find(|host| {
            host.mcp_client_prefixes
                .iter()
                .any(|prefix| starts_with_ignoring_case(client_name, prefix))
        })
        .cloned()
}

/// Client names are matched case-insensitively (seed 002): `CODEX-tui` is a Codex client.
fn starts_with_ignoring_case(name: &str, prefix: &str) -> bool {
    name.to_lowercase().starts_with(&prefix.to_lowercase())
}

/// The routes of `kind` of `server`, in manifest order (sorted by id).
pub fn server_routes<'m>(manifest: &'m Manifest, server: &str, kind: RouteKind) -> Vec<&'m Route> {
    manifest
        .routes
        .iter()
        .filter(|route| route.kind == kind && route.server.as_deref() == Some(server))
        .collect()
}

/// A route's string config value.
fn config_str<'r>(route: &'r Route, key: &str) -> Option<&'r str> {
    route.config.get(key).and_then(Value::as_str)
}

/// The URI a resource route (`uri`) or an App (`resourceUri`) is read at.
pub fn resource_uri(route: &Route) -> Option<&str> {
    match route.kind {
        RouteKind::App => config_str(route, "resourceUri"),
        _ => config_str(route, "uri"),
    }
}

/// The media type a resource declares; an App's is the MCP Apps one.
pub fn resource_mime_type(route: &Route) -> Option<&str> {
    match route.kind {
        RouteKind::App => Some("text/html;profile=mcp-app"),
        _ => config_str(route, "mimeType"),
    }
}

/// Whether a resource URI is a template (RFC 6570: it has an `{expression}`).
pub fn is_template(uri: &str) -> bool {
    uri.contains('{')
}

/// One `Resource` (or, for a template URI, `ResourceTemplate`) definition.
pub fn resource_definition(route: &Route) -> Value {
    let uri = resource_uri(route).unwrap_or_default();
    let mut resource = Map::new();
    let key = if is_template(uri) {
        "uriTemplate"
    } else {
        "uri"
    };
    resource.insert(key.into(), uri.into());
    let name = route.wire_name.clone().unwrap_or_else(|| route.id.clone());
    resource.insert("name".into(), name.into());
    for key in ["title", "description"] {
        if let Some(value) = route.config.get(key) {
            resource.insert(key.into(), value.clone());
        }
    }
    if let Some(mime_type) = resource_mime_type(route) {
        resource.insert("mimeType".into(), mime_type.into());
    }
    Value::Object(resource)
}

/// The values of a template's `{name}` expressions in `uri`, when `uri` matches `template`.
/// Only simple string expansion (RFC 6570 level 1) is read: a value is one or more characters
/// up to the template's next literal, never across a `/`.
pub fn match_template(template: &str, uri: &str) -> Option<Map<String, Value>> {
    let mut values = Map::new();
    let mut rest = uri;
    let mut pieces = template.split('{');
    let literal = pieces.next()?;
    rest = rest.strip_prefix(literal)?;
    for piece in pieces {
        let (name, literal) = piece.split_once('}')?;
        let end = if literal.is_empty() {
            rest.len()
        } else {
            rest.find(literal)?
        };
        let value = &rest[..end];
        if value.is_empty() || value.contains('/') {
            return None;
        }
        values.insert(name.to_owned(), value.into());
        rest = rest[end..].strip_prefix(literal)?;
    }
    rest.is_empty().then_some(values)
}

/// One `Prompt` definition: its arguments are the properties of its input schema.
pub fn prompt_definition(route: &Route) -> Value {
    let mut prompt = Map::new();
    let name = route.wire_name.clone().unwrap_or_else(|| route.id.clone());
    prompt.insert("name".into(), name.into());
    for key in ["title", "description"] {
        if let Some(value) = route.config.get(key) {
            prompt.insert(key.into(), value.clone());
        }
    }
    let schema = route
        .schemas
        .input
        .as_ref()
        .and_then(|input| input.json_schema.as_deref());
    if let Some(properties) = schema
        .and_then(|schema| schema.get("properties"))
        .and_then(Value::as_object)
    {
        let required = schema
            .and_then(|schema| schema.get("required"))
            .and_then(Value::as_array);
        let arguments: Vec<Value> = properties
            .iter()
            .map(|(name, property)| {
                let mut argument = Map::new();
                argument.insert("name".into(), name.clone().into());
                if let Some(description) = property.get("description") {
                    argument.insert("description".into(), description.clone());
                }
                let is_required = required
                    .is_some_and(|required| required.iter().any(|entry| entry == name.as_str()));
                argument.insert("required".into(), is_required.into());
                Value::Object(argument)
            })
            .collect();
        prompt.insert("arguments".into(), arguments.into());
    }
    Value::Object(prompt)
}

/// Whether the route's `excludeClients` hides it from this client: an entry names a host, or a
/// prefix of the client's name, either case-insensitively. An empty entry (refused at build time
/// as AB5320) hides nothing.
pub fn excluded(route: &Route, client_name: &str, host: Option<&ClientHost>) -> bool {
    let Some(entries) = route.config.get("excludeClients").and_then(Value::as_array) else {
        return false;
    };
    entries
        .iter()
        .filter_map(Value::as_str)
        .filter(|entry| !entry.is_empty())
        .any(|entry| {
            host.is_some_and(|host| host.host.eq_ignore_ascii_case(entry))
                || starts_with_ignoring_case(client_name, entry)
        })
}

/// Whether the worker must compute some schema of `route` (the compiler left it to run time).
pub fn has_runtime_schemas(route: &Route) -> bool {
    [&route.schemas.input, &route.schemas.result]
        .into_iter()
        .flatten()
        .any(|schema| schema.source == SchemaSource::Runtime)
}

/// One `Tool` definition. `computed` is what the worker computed of a route with run-time
/// schemas (`None` for a route without); `log` hears about a run-time schema that could not be
/// computed or projected for this client.
pub fn tool_definition(
    route: &Route,
    host: Option<&ClientHost>,
    computed: Option<&Result<ComputedSchemas, DocumentError>>,
    log: &mut dyn FnMut(String),
) -> Value {
    let name = route.wire_name.clone().unwrap_or_else(|| route.id.clone());
    let mut tool = Map::new();
    tool.insert("name".into(), name.clone().into());
    for key in ["title", "description", "annotations"] {
        if let Some(value) = route.config.get(key) {
            tool.insert(key.into(), value.clone());
        }
    }
    let mut side = |schema: &SchemaProjection, input: bool| {
        if schema.source != SchemaSource::Runtime {
            return host_schema(schema, host);
        }
        let which = if input { "input" } else { "result" };
        match computed {
            Some(Ok(computed)) => {
                let printed = if input {
                    &computed.input
                } else {
                    &computed.result
                };
                printed
                    .as_ref()
                    .map(|printed| project_for_client(printed, host, input, &name, log))
            }
            Some(Err(error)) => {
                log(format!(
                    "mcp: the {which} schema of tool `{name}` is computed at run time and could not be: [{}] {}; listing it without one",
                    error.code, error.message
                ));
                None
            }
            None => None,
        }
    };
    let input = route
        .schemas
        .input
        .as_ref()
        .and_then(|schema| side(schema, true));
    let output = route
        .schemas
        .result
        .as_ref()
        .filter(|_| model_view(route, host) != ModelView::ValueInMeta)
        .and_then(|schema| side(schema, false));
    tool.insert(
        "inputSchema".into(),
        input.unwrap_or_else(|| json!({"type": "object"})),
    );
    if let Some(output) =
        output.filter(|schema| schema.get("type").and_then(Value::as_str) == Some("object"))
    {
        tool.insert("outputSchema".into(), output);
    }
    if let Some(meta) = route.config.get("_meta") {
        tool.insert("_meta".into(), meta.clone());
    }
    Value::Object(tool)
}

/// The host profile's form when the client's host has one, else the canonical form.
fn host_schema(schema: &SchemaProjection, host: Option<&ClientHost>) -> Option<Value> {
    host.and_then(|host| schema.profiles.get(&host.schema_profile))
        .map(|profile| profile.json_schema.to_value())
        .or_else(|| schema.json_schema.as_deref().cloned())
}

/// A schema computed at run time as `host` takes it: the client's host profile projection, as the
/// compiler writes a static schema's into the manifest; where that profile cannot take it (an
/// input root that is not a plain object, AB5210 for a static schema), the canonical form, as a
/// static schema's missing profile falls back to it, and `log` says so.
fn project_for_client(
    printed: &Value,
    host: Option<&ClientHost>,
    input: bool,
    name: &str,
    log: &mut dyn FnMut(String),
) -> Value {
    let profile = host
        .and_then(|host| Profile::parse(&host.schema_profile))
        .unwrap_or(Profile::Canonical);
    project(printed, profile, input).unwrap_or_else(|problem| {
        log(format!(
            "mcp: the run-time input schema of tool `{name}` cannot be given to {} as it is: {}; listing the canonical form",
            problem.profile.name(),
            problem.reason
        ));
        // The canonical projection takes every root.
        project(printed, Profile::Canonical, false).unwrap_or_else(|_| printed.clone())
    })
}

/// Why `arguments` do not fit `route`'s input schema as computed at run time, if they do not: one
/// line per failed keyword (at most five), each at its place in the arguments. `None` when they
/// fit, or when the schema itself does not compile (the worker's own zod parse still runs).
pub fn invalid_arguments(
    route: &Route,
    computed: &ComputedSchemas,
    arguments: &Value,
) -> Option<String> {
    const SHOWN: usize = 5;
    let schema = computed.input.as_ref()?;
    let validator = jsonschema::validator_for(schema).ok()?;
    let problems: Vec<String> = validator
        .iter_errors(arguments)
        .map(|error| {
            let at = error.instance_path().to_string();
            let at = if at.is_empty() { "/".to_owned() } else { at };
            format!("at `{at}`: {error}")
        })
        .collect();
    if problems.is_empty() {
        return None;
    }
    let name = route.wire_name.as_deref().unwrap_or(&route.id);
    let more = problems.len().saturating_sub(SHOWN);
    let mut message = format!(
        "invalid arguments for tool `{name}`: {}",
        problems[..problems.len().min(SHOWN)].join("; ")
    );
    if more > 0 {
        message.push_str(&format!(" (and {more} more)"));
    }
    Some(message)
}

/// The values an argument of `route` can take, when its input schema enumerates them (`enum`,
/// `const`, or a union of those), that start with `typed` (ignoring case), at most `limit`; and
/// how many matched in all.
pub fn argument_completions(
    route: &Route,
    argument: &str,
    typed: &str,
    limit: usize,
) -> (Vec<String>, usize) {
    let property = route
        .schemas
        .input
        .as_ref()
        .and_then(|input| input.json_schema.as_deref())
        .and_then(|schema| schema.get("properties"))
        .and_then(|properties| properties.get(argument));
    let mut values = Vec::new();
    if let Some(property) = property {
        enumerated(property, &mut values);
    }
    let typed = typed.to_lowercase();
    let matching: Vec<String> = values
        .into_iter()
        .filter(|value| value.to_lowercase().starts_with(&typed))
        .collect();
    let total = matching.len();
    (matching.into_iter().take(limit).collect(), total)
}

/// The string values a schema enumerates, in order, without repeats.
fn enumerated(schema: &Value, values: &mut Vec<String>) {
    let mut push = |value: &Value| {
        if let Some(value) = value.as_str()
            && !values.iter().any(|known| known == value)
        {
            values.push(value.to_owned());
        }
    };
    if let Some(constant) = schema.get("const") {
        push(constant);
    }
    for value in schema
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        push(value);
    }
    for key in ["anyOf", "oneOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            enumerated(branch, values);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_names_resolve_through_the_matrix_prefixes() {
        assert_eq!(
            client_host("cursor-vscode").map(|h| h.host),
            Some("cursor".into())
        );
        assert_eq!(
            client_host("claude-code").map(|h| h.schema_profile),
            Some("claude".into())
        );
        assert_eq!(client_host("some-inspector"), None);
        assert_eq!(
            client_host("CODEX-tui").map(|h| h.host),
            Some("codex".into())
        );
    }

    fn route_excluding(prefixes: Value) -> Route {
        serde_json::from_value(json!({
            "id": "tool:demo/echo", "kind": "tool", "source": "src/mcp/demo/tools/echo.tsx",
            "server": "demo", "wireName": "echo", "config": {"excludeClients": prefixes},
            "schemas": {"input": {"source": "runtime"}}
        }))
        .unwrap()
    }

    fn tool_reading(model: Option<&str>) -> Route {
        let mut config = json!({});
        if let Some(model) = model {
            config["model"] = model.into();
        }
        serde_json::from_value(json!({
            "id": "tool:demo/find", "kind": "tool", "source": "src/mcp/demo/tools/find.tsx",
            "server": "demo", "wireName": "find", "config": config,
            "schemas": {"result": {"source": "static", "jsonSchema": {"type": "object"}}}
        }))
        .unwrap()
    }

    #[test]
    fn a_model_choice_is_honoured_only_where_the_host_would_read_the_other_view() {
        let claude = client_host("claude-code");
        let cursor = client_host("cursor-vscode");
        let view =
            |model, host: &Option<ClientHost>| model_view(&tool_reading(model), host.as_ref());
        assert_eq!(view(None, &claude), ModelView::AsTheHostReads);
        assert_eq!(view(Some("structured"), &claude), ModelView::AsTheHostReads);
        assert_eq!(view(Some("content"), &claude), ModelView::ValueInMeta);
        assert_eq!(view(Some("content"), &cursor), ModelView::AsTheHostReads);
        assert_eq!(view(Some("structured"), &cursor), ModelView::ValueAsContent);
        // A client no matrix row names is taken to read content, as MCP intends.
        assert_eq!(view(Some("structured"), &None), ModelView::ValueAsContent);

        let listed = |model, host: &Option<ClientHost>| {
            tool_definition(&tool_reading(model), host.as_ref(), None, &mut |_| {})
                .get("outputSchema")
                .is_some()
        };
        assert!(listed(None, &claude));
        assert!(
            !listed(Some("content"), &claude),
            "Claude Code would hand its model only the value"
        );
        assert!(listed(Some("content"), &cursor));
        assert!(listed(Some("structured"), &cursor));
    }

    fn tool_with_runtime_schemas() -> Route {
        serde_json::from_value(json!({
            "id": "tool:demo/plan", "kind": "tool", "source": "src/mcp/demo/tools/plan.tsx",
            "server": "demo", "wireName": "plan", "config": {},
            "schemas": {"input": {"source": "runtime"}, "result": {"source": "runtime"}}
        }))
        .unwrap()
    }

    /// What zod's `toJSONSchema` prints for an object with a nullable string and a tuple.
    fn computed() -> ComputedSchemas {
        let printed = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "note": {"type": ["string", "null"], "format": "email"},
                "span": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"}], "items": false, "minItems": 2, "maxItems": 2}
            },
            "required": ["span"],
            "additionalProperties": false
        });
        ComputedSchemas {
            input: Some(printed.clone()),
            result: Some(printed),
        }
    }

    #[test]
    fn run_time_schemas_are_projected_per_client_like_static_ones() {
        let route = tool_with_runtime_schemas();
        let computed = Ok(computed());
        let listed = |client: &str| {
            let host = client_host(client);
            tool_definition(&route, host.as_ref(), Some(&computed), &mut |line| {
                panic!("nothing to say: {line}")
            })
        };
        for client in [
            "claude-code",
            "codex-tui",
            "cursor-vscode",
            "some-inspector",
        ] {
            let host = client_host(client);
            let profile = host
                .as_ref()
                .and_then(|host| Profile::parse(&host.schema_profile))
                .unwrap_or(Profile::Canonical);
            let tool = listed(client);
            let printed = computed.as_ref().unwrap().input.as_ref().unwrap();
            assert_eq!(
                tool["inputSchema"],
                project(printed, profile, true).unwrap(),
                "{client}"
            );
            assert_eq!(
                tool["outputSchema"],
                project(printed, profile, false).unwrap(),
                "{client}"
            );
            assert_ne!(
                tool["inputSchema"]["properties"]["span"]["items"],
                json!(false)
            );
        }
        let cursor = listed("cursor-vscode");
        assert_eq!(
            cursor["inputSchema"]["$schema"],
            json!(crate::schema_profile::DRAFT_07)
        );
        assert_eq!(
            cursor["inputSchema"]["properties"]["note"],
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        );
    }

    #[test]
    fn a_run_time_schema_a_host_cannot_take_is_listed_canonical_and_said() {
        let route = tool_with_runtime_schemas();
        let union = json!({"anyOf": [{"type": "object"}, {"type": "null"}]});
        let computed = Ok(ComputedSchemas {
            input: Some(union.clone()),
            result: None,
        });
        let mut said = Vec::new();
        let host = client_host("claude-code");
        let tool = tool_definition(&route, host.as_ref(), Some(&computed), &mut |line| {
            said.push(line)
        });
        assert_eq!(
            tool["inputSchema"],
            project(&union, Profile::Canonical, false).unwrap()
        );
        assert_eq!(tool.get("outputSchema"), None);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].contains("to claude") && said[0].contains("not `type: \"object\"`"),
            "{said:?}"
        );

        let failed = Err(DocumentError::new("route-load-failed", "boom"));
        let mut said = Vec::new();
        let tool = tool_definition(&route, host.as_ref(), Some(&failed), &mut |line| {
            said.push(line)
        });
        assert_eq!(tool["inputSchema"], json!({"type": "object"}));
        assert!(said.iter().any(|line| line.contains("boom")), "{said:?}");
    }

    #[test]
    fn arguments_are_checked_against_the_computed_schema() {
        let route = tool_with_runtime_schemas();
        let computed = computed();
        assert_eq!(
            invalid_arguments(&route, &computed, &json!({"span": [1, 2]})),
            None
        );
        let wrong = invalid_arguments(&route, &computed, &json!({"span": [1, "x"], "extra": 1}))
            .expect("invalid");
        assert!(
            wrong.starts_with("invalid arguments for tool `plan`: "),
            "{wrong}"
        );
        assert!(wrong.contains("at `/span/1`"), "{wrong}");
        assert!(wrong.contains("extra"), "{wrong}");
        let missing = invalid_arguments(&route, &computed, &json!({})).expect("invalid");
        assert!(
            missing.contains("at `/`") && missing.contains("span"),
            "{missing}"
        );
    }

    #[test]
    fn completions_come_from_enums_consts_and_unions_by_prefix() {
        let route: Route = serde_json::from_value(json!({
            "id": "prompt:demo/review", "kind": "prompt", "source": "src/mcp/demo/prompts/review.tsx",
            "server": "demo", "wireName": "review", "config": {},
            "schemas": {"input": {"source": "static", "jsonSchema": {"type": "object", "properties": {
                "focus": {"type": "string", "enum": ["themes", "writing", "what-next"]},
                "tone": {"anyOf": [{"const": "warm"}, {"const": "wry"}, {"type": "null"}]},
                "bookId": {"type": "string"}
            }}}}
        }))
        .unwrap();
        assert_eq!(
            argument_completions(&route, "focus", "W", 100),
            (vec!["writing".to_owned(), "what-next".to_owned()], 2)
        );
        assert_eq!(argument_completions(&route, "focus", "", 1).1, 3);
        assert_eq!(argument_completions(&route, "focus", "", 1).0, ["themes"]);
        assert_eq!(
            argument_completions(&route, "tone", "w", 100).0,
            ["warm", "wry"]
        );
        assert_eq!(argument_completions(&route, "bookId", "", 100), (vec![], 0));
        assert_eq!(
            argument_completions(&route, "nothing", "", 100),
            (vec![], 0)
        );
    }

    #[test]
    fn template_values_are_read_between_the_literals() {
        let values = match_template(
            "curator://shelf/{shelf}/books/{book}",
            "curator://shelf/reading/books/middlemarch",
        )
        .expect("matches");
        assert_eq!(values["shelf"], "reading");
        assert_eq!(values["book"], "middlemarch");
        assert_eq!(
            match_template("curator://shelf/{shelf}", "curator://shelf/a/b"),
            None
        );
        assert_eq!(
            match_template("curator://shelf/{shelf}", "curator://shelf/"),
            None
        );
        assert_eq!(
            match_template("curator://shelf/{shelf}", "other://shelf/a"),
            None
        );
        assert!(match_template("curator://shelf", "curator://shelf").is_some_and(|v| v.is_empty()));
    }

    #[test]
    fn exclude_clients_matches_prefixes_and_hosts_ignoring_case() {
        let route = route_excluding(json!(["Codex"]));
        for name in ["codex-mcp-client", "CODEX-tui", "Codex"] {
            let host = client_host(name);
            assert!(excluded(&route, name, host.as_ref()), "{name}");
        }
        let claude = client_host("claude-code");
        assert!(!excluded(&route, "claude-code", claude.as_ref()));
        // A prefix that names no host still matches the client's name.
        let inspector = route_excluding(json!(["MCP-Insp"]));
        assert!(excluded(&inspector, "mcp-inspector", None));
        // An empty prefix (AB5320 at build time) hides the tool from no one.
        assert!(!excluded(
            &route_excluding(json!([""])),
            "claude-code",
            claude.as_ref()
        ));
    }
}
