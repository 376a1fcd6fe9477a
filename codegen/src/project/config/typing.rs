//! Typing of the static config object into a [`ProjectConfig`].
//!
//! Entry call: [`type_config`]. Invariant: every rejected value is one diagnostic at the
//! location where it was written (a JSON Pointer looked up in the extractor's location table,
//! falling back to the nearest written parent, then to the config file), and typing always
//! produces a config: a rejected field takes its default.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::model::{
    AppSourceMap, Author, DeclaredApp, DeclaredServer, McpCommands, PluginMetadata, ProjectConfig,
    ServerMode, Target, locate,
};
use crate::diagnostics::{Code, Diagnostic, Location};

/// `name` and `version` from the package.json beside the config.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackageIdentity {
    pub name: Option<String>,
    pub version: Option<String>,
}

/// What [`type_config`] reads.
pub struct ConfigInput<'a> {
    /// The config object; `None` when there is no config file or its value was rejected.
    pub value: Option<&'a Map<String, Value>>,
    /// Where each value was written, by JSON Pointer.
    pub locations: &'a BTreeMap<String, Location>,
    /// Project-relative path of the config file, when there is one.
    pub file: Option<&'a str>,
    pub package: &'a PackageIdentity,
    /// `--target` names, replacing the config's `targets`.
    pub target_override: Option<&'a [String]>,
}

/// Types `input`; `name` is empty exactly when an AB4000 or AB5305 diagnostic was reported.
pub fn type_config(input: &ConfigInput<'_>) -> (ProjectConfig, Vec<Diagnostic>) {
    let empty = Map::new();
    let mut typer = Typer {
        input,
        diagnostics: Vec::new(),
    };
    let root = input.value.unwrap_or(&empty);
    let plugin = typer.plugin(root.get("plugin"));
    let targets = match input.target_override {
        Some(names) => typer.override_targets(names),
        None => typer.targets(root.get("targets")),
    };
    let mcp_servers = typer.mcp_servers(root.get("mcp"));
    // App targets are judged against what the config says, not a `--target` selection.
    let authored = authored_targets(root.get("targets"));
    for (id, server) in &mcp_servers {
        typer.check_app_targets(id, server, &authored);
    }
    let config = ProjectConfig {
        plugin,
        targets,
        mcp_servers,
        route_servers: typer.route_servers(root.get("routes")),
        mcp_commands: typer.mcp_commands(root.get("routes")),
        skills: typer.strings(root.get("skills"), "/skills"),
        web: typer.web(root.get("web")),
        app_source_map: typer.tools(root.get("tools")),
        file: input.file.map(str::to_owned),
        locations: input.locations.clone(),
    };
    (config, typer.diagnostics)
}

pub(super) struct Typer<'a> {
    input: &'a ConfigInput<'a>,
    diagnostics: Vec<Diagnostic>,
}

impl Typer<'_> {
    fn plugin(&mut self, plugin: Option<&Value>) -> PluginMetadata {
        let empty = Map::new();
        let fields = match plugin {
            Some(Value::Object(fields)) => fields,
            Some(_) => {
                self.report(
                    Code::AB4000,
                    "/plugin",
                    "`plugin` is not an object, so the plugin has no `name`",
                    "write `plugin: { name: 'my-plugin' }`",
                );
                &empty
            }
            None => &empty,
        };
        let package = self.input.package;
        let name = match fields.get("name") {
            Some(Value::String(name)) if !name.trim().is_empty() => name.clone(),
            Some(_) => {
                self.report(
                    Code::AB4000,
                    "/plugin/name",
                    "`plugin.name` is not a non-empty string",
                    "write the plugin's name as a string literal, e.g. `name: 'my-plugin'`",
                );
                String::new()
            }
            None if plugin.is_some_and(|p| !p.is_object()) => String::new(),
            None => package.name.clone().unwrap_or_else(|| {
                self.no_name();
                String::new()
            }),
        };
        let version = match fields.get("version") {
            Some(Value::String(version)) if !version.trim().is_empty() => Some(version.clone()),
            Some(_) => {
                self.report(
                    Code::AB4001,
                    "/plugin/version",
                    "`plugin.version` is declared but is not a non-empty string",
                    "write the version as a string such as `'1.2.0'`, or remove it to use package.json's",
                );
                None
            }
            None => package.version.clone(),
        };
        PluginMetadata {
            name,
            version,
            description: self.string(fields.get("description"), "/plugin/description"),
            author: self.author(fields.get("author")),
            homepage: self.string(fields.get("homepage"), "/plugin/homepage"),
            repository: self.string(fields.get("repository"), "/plugin/repository"),
            license: self.string(fields.get("license"), "/plugin/license"),
            keywords: self.strings(fields.get("keywords"), "/plugin/keywords"),
        }
    }

    /// No config and no package.json name is AB5305; a config without a name is AB4000.
    fn no_name(&mut self) {
        if self.input.file.is_some() {
            self.report(
                Code::AB4000,
                "/plugin",
                "the plugin has no name: `plugin.name` is missing and package.json has no `name`",
                "add `plugin: { name: 'my-plugin' }` to the config",
            );
        } else {
            self.diagnostics.push(Diagnostic::new(
                Code::AB5305,
                "no `agent-bundle.config.ts` and no package.json `name`: the project has no plugin name",
                "create `agent-bundle.config.ts` with `export default defineConfig({ plugin: { name: 'my-plugin' } })`",
            ));
        }
    }

    fn author(&mut self, value: Option<&Value>) -> Option<Author> {
        match value? {
            Value::String(name) => Some(Author::Name(name.clone())),
            Value::Object(person) => match person.get("name") {
                Some(Value::String(name)) => Some(Author::Person {
                    name: name.clone(),
                    email: self.string(person.get("email"), "/plugin/author/email"),
                    url: self.string(person.get("url"), "/plugin/author/url"),
                }),
                _ => {
                    self.wrong_shape("/plugin/author/name", "`plugin.author.name`", "a string");
                    None
                }
            },
            _ => {
                self.wrong_shape(
                    "/plugin/author",
                    "`plugin.author`",
                    "a string or `{ name, email?, url? }`",
                );
                None
            }
        }
    }

    fn targets(&mut self, value: Option<&Value>) -> Vec<Target> {
        let Some(value) = value else {
            return vec![Target::Portable];
        };
        let Value::Array(items) = value else {
            self.report(
                Code::AB4100,
                "/targets",
                "`targets` is not an array of target names",
                known_targets_recovery(),
            );
            return vec![Target::Portable];
        };
        let mut targets = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let pointer = format!("/targets/{index}");
            match item.as_str().map(|name| (name, Target::parse(name))) {
                Some((_, Some(target))) => targets.push(target),
                Some((name, None)) => self.report(
                    Code::AB4100,
                    &pointer,
                    &format!("unknown target `{name}`"),
                    known_targets_recovery(),
                ),
                None => self.report(
                    Code::AB4100,
                    &pointer,
                    &format!("target {item} is not a name"),
                    known_targets_recovery(),
                ),
            }
        }
        if items.is_empty() {
            self.report(
                Code::AB4100,
                "/targets",
                "`targets` is empty",
                known_targets_recovery(),
            );
        }
        canonical(targets)
    }

    fn override_targets(&mut self, names: &[String]) -> Vec<Target> {
        let mut targets = Vec::new();
        for name in names {
            match Target::parse(name.trim()) {
                Some(target) => targets.push(target),
                None => self.diagnostics.push(Diagnostic::new(
                    Code::AB4100,
                    format!("unknown target `{name}` in `--target`"),
                    known_targets_recovery(),
                )),
            }
        }
        canonical(targets)
    }

    fn mcp_servers(&mut self, mcp: Option<&Value>) -> BTreeMap<String, DeclaredServer> {
        let mut servers = BTreeMap::new();
        let Some(mcp) = mcp else { return servers };
        let Some(declared) = self
            .object(mcp, "/mcp", "`mcp`")
            .and_then(|mcp| mcp.get("servers"))
        else {
            return servers;
        };
        let Some(declared) = self.object(declared, "/mcp/servers", "`mcp.servers`") else {
            return servers;
        };
        for (id, server) in declared {
            let pointer = format!("/mcp/servers/{}", escape_pointer(id));
            let Some(fields) = self.object(server, &pointer, &format!("`mcp.servers.{id}`")) else {
                continue;
            };
            let at = |key: &str| format!("{pointer}/{key}");
            // `entry` is a module path or `{ prebuilt: <file> }`.
            let prebuilt = matches!(
                fields.get("entry"),
                Some(Value::Object(entry)) if entry.contains_key("prebuilt")
            );
            let entry = match fields.get("entry") {
                Some(Value::Object(entry)) if prebuilt => {
                    self.string(entry.get("prebuilt"), &format!("{pointer}/entry/prebuilt"))
                }
                value => self.string(value, &at("entry")),
            };
            let server = DeclaredServer {
                entry,
                prebuilt,
                command: self.string(fields.get("command"), &at("command")),
                url: self.string(fields.get("url"), &at("url")),
                args: self.strings(fields.get("args"), &at("args")),
                env: self.string_map(fields.get("env"), &at("env")),
                headers: self.string_map(fields.get("headers"), &at("headers")),
                cwd: self.string(fields.get("cwd"), &at("cwd")),
                transport: self.string(fields.get("transport"), &at("transport")),
                targets: self.server_targets(fields.get("targets"), &at("targets")),
                apps: self.server_apps(id, fields.get("apps"), &at("apps")),
                declaration: fields.clone(),
                pointer,
            };
            self.check_server(id, &server);
            servers.insert(id.clone(), server);
        }
        servers
    }

    /// The launch rules of one declaration (reference §MCP servers, AB4304–AB4318).
    fn check_server(&mut self, id: &str, server: &DeclaredServer) {
        let pointer = &server.pointer;
        let at = |key: &str| format!("{pointer}/{key}");
        let claims: Vec<&str> = [
            ("entry", server.entry.is_some()),
            ("command", server.command.is_some()),
            ("url", server.url.is_some()),
        ]
        .into_iter()
        .filter_map(|(key, set)| set.then_some(key))
        .collect();
        // A prebuilt payload keeps its Apps (seed 002: the build assumes it serves them).
        let launched = [
            ("command", server.command.is_some()),
            ("url", server.url.is_some()),
            ("entry", server.entry.is_some() && !server.prebuilt),
        ];
        if !server.apps.is_empty()
            && let Some((own, _)) = launched.into_iter().find(|(_, set)| *set)
        {
            self.report(
                Code::AB4322,
                &at("apps"),
                &format!(
                    "`mcp.servers.{id}` is launched by its `{own}` and declares `apps`; abgen serves Apps only from the servers it generates"
                ),
                "serve the App's resource from that server's own code and remove `apps`, or move the App to a generated server (`src/mcp/<server>/apps/`)",
            );
        }
        if claims.len() > 1 {
            self.report(
                Code::AB4304,
                &at(claims[1]),
                &format!(
                    "`mcp.servers.{id}` declares both `{}` and `{}`; a server is launched one way",
                    claims[0], claims[1]
                ),
                "keep one of `entry`, `command` and `url`",
            );
        }
        let transport = server.transport.as_deref();
        if let Some(transport) = transport
            && !matches!(transport, "stdio" | "streamable-http")
        {
            self.wrong_shape(
                &at("transport"),
                &format!("`mcp.servers.{id}.transport`"),
                "'stdio' or 'streamable-http'",
            );
        }
        let stdio = server.entry.is_some() || server.command.is_some();
        if let Some(command) = &server.command {
            if command.trim().is_empty() {
                self.report(
                    Code::AB4313,
                    &at("command"),
                    &format!("`mcp.servers.{id}.command` is empty"),
                    "name the program to launch, e.g. `command: 'docs-server'`",
                );
            }
            if transport.is_some_and(|transport| transport != "stdio") {
                self.report(
                    Code::AB4314,
                    &at("transport"),
                    &format!("`mcp.servers.{id}` launches a `command` but sets `transport` to something other than 'stdio'"),
                    "remove `transport` (a command speaks stdio), or declare a remote server with `url`",
                );
            }
        }
        if server.entry.is_some() {
            if transport.is_some_and(|transport| transport != "stdio") {
                self.report(
                    Code::AB4308,
                    &at("transport"),
                    &format!("`mcp.servers.{id}` is a local `entry` but sets `transport` to something other than 'stdio'"),
                    "remove `transport`: abgen runs a local entry over stdio",
                );
            }
            if server.cwd.is_some() {
                self.report(
                    Code::AB4309,
                    &at("cwd"),
                    &format!("`mcp.servers.{id}` is a local `entry` and declares `cwd`"),
                    "remove `cwd`: the entry runs from the plugin root; resolve paths against `AGENT_BUNDLE_PLUGIN_ROOT`",
                );
            }
        }
        if stdio && !server.headers.is_empty() {
            self.report(
                Code::AB4310,
                &at("headers"),
                &format!("`mcp.servers.{id}` is a stdio server and declares `headers`"),
                "remove `headers`; pass values to a stdio server through `env`",
            );
        }
        if let Some(url) = &server.url {
            if !(url.starts_with("https://") || url.starts_with("http://")) {
                self.report(
                    Code::AB4316,
                    &at("url"),
                    &format!("`mcp.servers.{id}.url` is not an http(s) URL"),
                    "write the server's full URL, e.g. `url: 'https://example.com/mcp'`",
                );
            }
            if transport != Some("streamable-http") {
                self.report(
                    Code::AB4317,
                    &at("url"),
                    &format!(
                        "`mcp.servers.{id}` has a `url` without `transport: 'streamable-http'`"
                    ),
                    "add `transport: 'streamable-http'` (the one remote transport hosts share)",
                );
            }
            let local: Vec<&str> = [
                ("args", !server.args.is_empty()),
                ("env", !server.env.is_empty()),
                ("cwd", server.cwd.is_some()),
            ]
            .into_iter()
            .filter_map(|(key, set)| set.then_some(key))
            .collect();
            if let Some(first) = local.first() {
                self.report(
                    Code::AB4318,
                    &at(first),
                    &format!(
                        "`mcp.servers.{id}` is a remote server and declares {}",
                        local.iter().map(|key| format!("`{key}`")).collect::<Vec<_>>().join(", ")
                    ),
                    "remove them: a remote server is not launched; pass values to it through `headers`",
                );
            }
        }
    }

    /// `apps` of server `id` (AB4323–AB4335): the valid declarations, by name.
    fn server_apps(
        &mut self,
        id: &str,
        value: Option<&Value>,
        pointer: &str,
    ) -> BTreeMap<String, DeclaredApp> {
        let mut apps = BTreeMap::new();
        let Some(value) = value else { return apps };
        let Some(declared) = value.as_object() else {
            self.report(
                Code::AB4323,
                pointer,
                &format!("`mcp.servers.{id}.apps` is not an object of Apps by name"),
                "write `apps: { <name>: { entry: './views/<name>.ts', resourceUri: 'ui://<plugin>/<name>.html' } }`",
            );
            return apps;
        };
        for (name, app) in declared {
            let at = format!("{pointer}/{}", escape_pointer(name));
            if !is_app_name(name) {
                self.report(
                    Code::AB4324,
                    &at,
                    &format!("the App name `{name}` of `mcp.servers.{id}.apps` is not lowercase letters, digits and `-`, starting with a letter"),
                    "rename it (the name is the document `mcp-apps/<name>.html` and its `<title>`), e.g. `status-panel`",
                );
                continue;
            }
            let Some(fields) = app.as_object() else {
                self.report(
                    Code::AB4326,
                    &at,
                    &format!("the App `{name}` of `mcp.servers.{id}.apps` is not an object"),
                    "write `{ entry: './views/<name>.ts', resourceUri: 'ui://<plugin>/<name>.html' }`",
                );
                continue;
            };
            if let Some(app) = self.declared_app(name, fields, &at) {
                apps.insert(name.clone(), app);
            }
        }
        apps
    }

    /// One App declaration at `pointer`, or `None` once its problems are reported.
    fn declared_app(
        &mut self,
        name: &str,
        fields: &Map<String, Value>,
        pointer: &str,
    ) -> Option<DeclaredApp> {
        let at = |key: &str| format!("{pointer}/{key}");
        let mut valid = true;
        let entry = match fields
            .get("entry")
            .and_then(Value::as_str)
            .map(project_path)
        {
            // A declared entry may live anywhere in the project (seed 002's `./views/…`).
            Some(Ok(path)) if is_module_path(&path) => Some(path),
            found => {
                let reason = match found {
                    None => "is not a non-empty string".to_owned(),
                    Some(Err(reason)) => reason,
                    Some(Ok(path)) => {
                        format!("`{path}` is not a .ts, .tsx, .js, .jsx or .mts module")
                    }
                };
                self.report(
                    Code::AB4327,
                    &at("entry"),
                    &format!("the `entry` of App `{name}` {reason}"),
                    "name the App's module inside the project, e.g. `entry: './views/status-panel.ts'`",
                );
                None
            }
        };
        let resource_uri = match fields.get("resourceUri").and_then(Value::as_str) {
            Some(uri) if uri.len() > "ui://".len() && uri.starts_with("ui://") => {
                Some(uri.to_owned())
            }
            _ => {
                self.report(
                    Code::AB4329,
                    &at("resourceUri"),
                    &format!("the `resourceUri` of App `{name}` is not a `ui://` URI"),
                    "write `resourceUri: 'ui://<plugin>/<name>.html'`; hosts fetch Apps by `ui://` URIs only",
                );
                None
            }
        };
        let template = match fields.get("template") {
            None => None,
            Some(value) => match value.as_str().map(project_path) {
                Some(Ok(path)) if path.ends_with(".html") || path.ends_with(".htm") => Some(path),
                found => {
                    let reason = match found {
                        None => "is not a non-empty string".to_owned(),
                        Some(Err(reason)) => reason,
                        Some(Ok(path)) => format!("`{path}` is not an .html or .htm file"),
                    };
                    self.report(
                        Code::AB4331,
                        &at("template"),
                        &format!("the `template` of App `{name}` {reason}"),
                        "name an HTML file inside the project, e.g. `template: './views/status-panel.html'`, or remove `template` for the framework shell",
                    );
                    valid = false;
                    None
                }
            },
        };
        let targets = match fields.get("targets") {
            None => None,
            Some(value) => {
                match target_list(value) {
                    Some(targets) => Some(targets),
                    None => {
                        self.report(
                            Code::AB4333,
                            &at("targets"),
                            &format!("the `targets` of App `{name}` is not a non-empty list of target names"),
                            known_targets_recovery(),
                        );
                        valid = false;
                        None
                    }
                }
            }
        };
        let meta = match fields.get("_meta") {
            None => None,
            Some(Value::Object(meta)) => Some(meta.clone()),
            Some(_) => {
                self.report(
                    Code::AB4335,
                    &at("_meta"),
                    &format!("the `_meta` of App `{name}` is not an object"),
                    "write `_meta: { ui: { prefersBorder: true } }`, or remove it",
                );
                valid = false;
                None
            }
        };
        Some(DeclaredApp {
            pointer: pointer.to_owned(),
            entry: entry?,
            resource_uri: resource_uri?,
            template,
            targets,
            meta,
        })
        .filter(|_| valid)
    }

    /// AB4334: a declared App's targets are a selection of its server's (the server's own
    /// `targets`, or the plugin's `authored` ones); AB4333: one that leaves out `portable` where
    /// its server ships, since a portable client cannot be told apart to hide the App from it.
    fn check_app_targets(&mut self, id: &str, server: &DeclaredServer, authored: &[Target]) {
        let shipped = server.targets.as_deref().unwrap_or(authored);
        for (name, app) in &server.apps {
            let Some(targets) = &app.targets else {
                continue;
            };
            let pointer = format!("{}/targets", app.pointer);
            let outside: Vec<&str> = targets
                .iter()
                .filter(|target| !shipped.contains(target))
                .map(|target| target.as_str())
                .collect();
            let shipped_names: Vec<&str> = shipped.iter().map(|target| target.as_str()).collect();
            if !outside.is_empty() {
                self.report(
                    Code::AB4334,
                    &pointer,
                    &format!(
                        "App `{name}` selects {}, which server `{id}` does not ship to",
                        outside.join(", ")
                    ),
                    &format!(
                        "select among the server's targets ({}), or add the target to the server",
                        shipped_names.join(", ")
                    ),
                );
            } else if shipped.contains(&Target::Portable) && !targets.contains(&Target::Portable) {
                self.report(
                    Code::AB4333,
                    &pointer,
                    &format!(
                        "App `{name}` leaves out `portable`, where server `{id}` ships: a portable client cannot be told apart to hide the App from it"
                    ),
                    "add 'portable' to the App's `targets`, or leave `portable` out of the server's `targets`",
                );
            }
        }
    }

    /// `tools`, the bundler escape hatch: abgen bundles with esbuild, so of `tools.rsbuild` it
    /// reads only `output.sourceMap.js` (or `output.sourceMap` as a boolean), the seed's way to
    /// ask for App source maps; every other Rsbuild value is AB4721 (`tools.rspack` is reported
    /// by the support table).
    fn tools(&mut self, value: Option<&Value>) -> AppSourceMap {
        let Some(tools) = value.and_then(|value| self.object(value, "/tools", "`tools`")) else {
            return AppSourceMap::None;
        };
        let Some(rsbuild) = tools.get("rsbuild") else {
            return AppSourceMap::None;
        };
        if self
            .object(rsbuild, "/tools/rsbuild", "`tools.rsbuild`")
            .is_none()
        {
            return AppSourceMap::None;
        }
        let mut leaves = Vec::new();
        json_leaves(rsbuild, "/tools/rsbuild", &mut leaves);
        let mut source_map = AppSourceMap::None;
        for (pointer, value) in leaves {
            let read = match (pointer.as_str(), value) {
                ("/tools/rsbuild/output/sourceMap/js", Value::String(devtool)) => {
                    Some(if devtool.starts_with("inline-") {
                        AppSourceMap::Inline
                    } else {
                        AppSourceMap::External
                    })
                }
                (
                    "/tools/rsbuild/output/sourceMap/js" | "/tools/rsbuild/output/sourceMap",
                    Value::Bool(on),
                ) => Some(if *on {
                    AppSourceMap::External
                } else {
                    AppSourceMap::None
                }),
                _ => None,
            };
            match read {
                Some(read) => source_map = read,
                None => self.report(
                    Code::AB4721,
                    &pointer,
                    &format!(
                        "`{}` is Rsbuild configuration, which abgen does not apply: it bundles Apps with esbuild",
                        dotted(&pointer)
                    ),
                    "resolve modules through tsconfig `paths` and `package.json` instead, and remove the value; of `tools.rsbuild` abgen reads only `output.sourceMap.js` ('inline-source-map' for an inline App source map)",
                ),
            }
        }
        source_map
    }

    /// `targets` of one server: known target names, at least one.
    fn server_targets(&mut self, value: Option<&Value>, pointer: &str) -> Option<Vec<Target>> {
        let value = value?;
        match target_list(value) {
            Some(targets) => Some(targets),
            None => {
                self.report(
                    Code::AB4305,
                    pointer,
                    &format!(
                        "`{}` is not a non-empty list of target names",
                        dotted(pointer)
                    ),
                    known_targets_recovery(),
                );
                None
            }
        }
    }

    /// An object of strings (`env`, `headers`).
    fn string_map(&mut self, value: Option<&Value>, pointer: &str) -> BTreeMap<String, String> {
        let Some(value) = value else {
            return BTreeMap::new();
        };
        let map: Option<BTreeMap<String, String>> = value.as_object().and_then(|object| {
            object
                .iter()
                .map(|(key, value)| value.as_str().map(|text| (key.clone(), text.to_owned())))
                .collect()
        });
        map.unwrap_or_else(|| {
            let name = format!("`{}`", dotted(pointer));
            self.wrong_shape(pointer, &name, "an object of strings");
            BTreeMap::new()
        })
    }

    fn route_servers(&mut self, routes: Option<&Value>) -> BTreeMap<String, ServerMode> {
        let mut modes = BTreeMap::new();
        let recovery =
            "set each `routes.servers.<id>` to 'generated', 'custom', 'command' or 'remote'";
        let servers = match routes {
            None => return modes,
            Some(Value::Object(routes)) => routes.get("servers"),
            Some(_) => {
                self.report(
                    Code::AB4804,
                    "/routes",
                    "`routes` is not an object",
                    recovery,
                );
                return modes;
            }
        };
        let servers = match servers {
            None => return modes,
            Some(Value::Object(servers)) => servers,
            Some(_) => {
                self.report(
                    Code::AB4804,
                    "/routes/servers",
                    "`routes.servers` is not an object",
                    recovery,
                );
                return modes;
            }
        };
        for (id, mode) in servers {
            let pointer = format!("/routes/servers/{}", escape_pointer(id));
            match mode.as_str().and_then(ServerMode::parse) {
                Some(mode) => {
                    modes.insert(id.clone(), mode);
                }
                None => self.report(
                    Code::AB4804,
                    &pointer,
                    &format!("`routes.servers.{id}` is {mode}, not a server mode"),
                    recovery,
                ),
            }
        }
        modes
    }

    fn mcp_commands(&mut self, routes: Option<&Value>) -> Option<McpCommands> {
        let value = routes?.as_object()?.get("mcpCommands")?;
        let recovery = "set `routes.mcpCommands` to true, or to { include?, exclude? } of `<server>:<tool>` patterns";
        match value {
            Value::Bool(true) => Some(McpCommands::default()),
            Value::Object(fields) => {
                let mut patterns = |key: &str| -> Option<Vec<String>> {
                    let pointer = format!("/routes/mcpCommands/{key}");
                    let list = fields.get(key)?;
                    let strings: Option<Vec<String>> = list.as_array().and_then(|items| {
                        items
                            .iter()
                            .map(|item| item.as_str().map(str::to_owned))
                            .collect()
                    });
                    if strings.is_none() {
                        self.report(
                            Code::AB4804,
                            &pointer,
                            &format!("`routes.mcpCommands.{key}` is not an array of strings"),
                            recovery,
                        );
                    }
                    strings
                };
                let include = patterns("include");
                let exclude = patterns("exclude").unwrap_or_default();
                Some(McpCommands { include, exclude })
            }
            other => {
                self.report(
                    Code::AB4804,
                    "/routes/mcpCommands",
                    &format!("`routes.mcpCommands` is {other}, not true or an object"),
                    recovery,
                );
                None
            }
        }
    }

    fn object<'v>(
        &mut self,
        value: &'v Value,
        pointer: &str,
        name: &str,
    ) -> Option<&'v Map<String, Value>> {
        let object = value.as_object();
        if object.is_none() {
            self.wrong_shape(pointer, name, "an object");
        }
        object
    }

    fn string(&mut self, value: Option<&Value>, pointer: &str) -> Option<String> {
        match value? {
            Value::String(text) => Some(text.clone()),
            _ => {
                self.wrong_shape(pointer, &format!("`{}`", dotted(pointer)), "a string");
                None
            }
        }
    }

    fn strings(&mut self, value: Option<&Value>, pointer: &str) -> Vec<String> {
        let Some(value) = value else {
            return Vec::new();
        };
        let name = format!("`{}`", dotted(pointer));
        match value.as_array() {
            Some(items) if items.iter().all(Value::is_string) => items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_owned))
                .collect(),
            _ => {
                self.wrong_shape(pointer, &name, "an array of strings");
                Vec::new()
            }
        }
    }

    fn wrong_shape(&mut self, pointer: &str, name: &str, expected: &str) {
        self.report(
            Code::AB5307,
            pointer,
            &format!("{name} must be {expected}"),
            &format!("write {name} as {expected}, or remove it"),
        );
    }

    pub(super) fn report(&mut self, code: Code, pointer: &str, message: &str, recovery: &str) {
        let diagnostic = Diagnostic::new(code, message, recovery);
        self.diagnostics.push(match self.locate(pointer) {
            Some(location) => diagnostic.at(location),
            None => diagnostic,
        });
    }

    fn locate(&self, pointer: &str) -> Option<Location> {
        locate(self.input.locations, self.input.file, pointer)
    }
}

/// A non-empty list of known target names, sorted and deduplicated; `None` for anything else.
fn target_list(value: &Value) -> Option<Vec<Target>> {
    let targets: Vec<Target> = value
        .as_array()?
        .iter()
        .map(|item| item.as_str().and_then(Target::parse))
        .collect::<Option<_>>()?;
    (!targets.is_empty()).then(|| canonical(targets))
}

/// Sorted and deduplicated; an empty list (always reported already) falls back to the default.
fn canonical(mut targets: Vec<Target>) -> Vec<Target> {
    targets.sort();
    targets.dedup();
    if targets.is_empty() {
        targets.push(Target::Portable);
    }
    targets
}

/// The config's own `targets` read quietly (they are typed, and reported, unless `--target`
/// replaced them): known names, `[portable]` when it names none.
fn authored_targets(value: Option<&Value>) -> Vec<Target> {
    canonical(
        value
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| item.as_str().and_then(Target::parse))
                    .collect()
            })
            .unwrap_or_default(),
    )
}

/// Every non-object value under `value` (at `pointer`), with its pointer; an empty object is a
/// leaf too, so it is reported like a value.
fn json_leaves<'v>(value: &'v Value, pointer: &str, leaves: &mut Vec<(String, &'v Value)>) {
    match value {
        Value::Object(fields) if !fields.is_empty() => {
            for (key, value) in fields {
                json_leaves(value, &format!("{pointer}/{}", escape_pointer(key)), leaves);
            }
        }
        Value::Object(_) if pointer == "/tools/rsbuild" => {}
        _ => leaves.push((pointer.to_owned(), value)),
    }
}

/// An App name (reference AB4324): `^[a-z][a-z0-9-]*$`.
fn is_app_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// A config path (`./views/status.ts`) as a project-relative path, or why it is not one.
fn project_path(path: &str) -> Result<String, String> {
    let relative = path.trim_start_matches("./");
    if relative.is_empty() {
        return Err("is empty".to_owned());
    }
    if relative.starts_with('/') || relative.contains('\\') {
        return Err(format!("`{path}` is not a project-relative path"));
    }
    if relative
        .split('/')
        .any(|segment| segment == ".." || segment == ".")
    {
        return Err(format!(
            "`{path}` leaves the project or is not in its plain form"
        ));
    }
    Ok(relative.to_owned())
}

fn is_module_path(path: &str) -> bool {
    [".ts", ".tsx", ".js", ".jsx", ".mts"]
        .iter()
        .any(|extension| path.ends_with(extension))
}

fn known_targets_recovery() -> &'static str {
    "use one or more of 'claude', 'codex', 'cursor', 'portable'"
}

/// Escapes a key for use as one JSON Pointer segment (RFC 6901).
pub fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `/plugin/author/email` → `plugin.author.email`, for messages.
fn dotted(pointer: &str) -> String {
    pointer.trim_start_matches('/').replace('/', ".")
}
