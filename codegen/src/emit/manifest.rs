//! Builds the artifact manifest from the emit input, the resolved hook tables and the file
//! table. Entry: [`build_manifest`].
//!
//! Routes and servers are sorted by id so that the manifest never depends on discovery order.
//! Schemas are not invented: a tool's schemas are the ones the schema stage translated
//! (`source: "static"`) or left to run time (`source: "runtime"`), unless the route gives a
//! literal `inputJsonSchema` / `outputJsonSchema` (moved out of `config` into `schemas.input` /
//! `schemas.result`).

use std::sync::Arc;

use abgen_runtime::manifest::{
    Application, Cli, FileEntry, HookTables, Limits, MANIFEST_VERSION, Manifest, REACT_VERSION,
    Route, RouteKind, RouteSchemas, SchemaProjection, SchemaSource, Server, ServerMode,
    WORKER_PROTOCOL_VERSION,
};

use super::input::{EmitInput, EmitRoute};

/// The options key whose literal JSON Schema replaces the zod input schema.
const LITERAL_INPUT_SCHEMA_KEY: &str = "inputJsonSchema";
/// The options key whose literal JSON Schema replaces the zod result schema.
const LITERAL_OUTPUT_SCHEMA_KEY: &str = "outputJsonSchema";

/// The manifest of an artifact whose files are `files` with `digest`, its routes `routes` (made
/// by [`manifest_route`], sorted by id).
pub fn build_manifest(
    input: &EmitInput,
    routes: Vec<Route>,
    hooks: HookTables,
    files: Vec<FileEntry>,
    digest: String,
) -> Manifest {
    debug_assert!(routes.is_sorted_by(|a, b| a.id <= b.id));
    let mut servers: Vec<Server> = input
        .servers
        .iter()
        .map(|server| {
            let mut routes = server.routes.clone();
            routes.sort();
            Server {
                id: server.id.clone(),
                mode: ServerMode::Generated,
                routes,
                env: server.env.clone(),
            }
        })
        .collect();
    servers.sort_by(|a, b| a.id.cmp(&b.id));
    Manifest {
        manifest_version: MANIFEST_VERSION,
        application: Application {
            name: input.plugin.name.clone(),
            version: input.plugin.version.clone(),
            description: input.plugin.description.clone(),
        },
        digest,
        react: REACT_VERSION.to_owned(),
        worker_protocol: WORKER_PROTOCOL_VERSION,
        routes,
        servers,
        cli: Cli {
            bin: input.plugin.name.clone(),
            commands: input.commands.clone(),
            scripts: input.scripts.clone(),
        },
        hooks,
        // A route's own `render.maxElapsedMs` stays in its `config`; these are the defaults.
        limits: Limits::default(),
        files,
        web: input.web.clone(),
    }
}

/// The manifest's route for `route`, with its schemas `translated` (the schema stage's, if any)
/// or the literal ones its options give.
pub fn manifest_route(route: &EmitRoute, translated: Option<RouteSchemas>) -> Route {
    let RouteSchemas {
        input: translated_input,
        result: translated_result,
    } = translated.unwrap_or_default();
    let mut config = route.config.as_ref().clone();
    let literal_input = config
        .shift_remove(LITERAL_INPUT_SCHEMA_KEY)
        .filter(|schema| schema.is_object() || schema.is_boolean());
    let literal = |json_schema| SchemaProjection {
        source: SchemaSource::Literal,
        json_schema: Some(Arc::new(json_schema)),
        profiles: Default::default(),
    };
    let result = match config.shift_remove(LITERAL_OUTPUT_SCHEMA_KEY) {
        Some(json_schema) if json_schema.is_object() || json_schema.is_boolean() => {
            Some(literal(json_schema))
        }
        _ => translated_result,
    };
    let input = match (literal_input, route.kind) {
        (Some(json_schema), _) => Some(literal(json_schema)),
        (None, RouteKind::Tool) => Some(translated_input.unwrap_or(SchemaProjection {
            source: SchemaSource::Runtime,
            json_schema: None,
            profiles: Default::default(),
        })),
        (None, RouteKind::Resource | RouteKind::Prompt | RouteKind::Cli | RouteKind::Script) => {
            translated_input
        }
        (None, _) => None,
    };
    let is_mcp = matches!(
        route.kind,
        RouteKind::Tool | RouteKind::Resource | RouteKind::Prompt | RouteKind::App
    );
    Route {
        id: route.id.clone(),
        kind: route.kind,
        source: route.source.clone(),
        wire_name: route.wire_name.clone().filter(|_| is_mcp),
        server: route.server.clone().filter(|_| is_mcp),
        event: route
            .event
            .clone()
            .filter(|_| route.kind == RouteKind::Event),
        config,
        schemas: RouteSchemas { input, result },
    }
}
