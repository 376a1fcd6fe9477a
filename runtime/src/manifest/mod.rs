//! The compiled artifact manifest, `abgen.manifest.json`: the one contract between build time
//! and run time (schema: `schemas/abgen-manifest.schema.json`).
//!
//! The compiler builds a [`Manifest`] and writes it last into the artifact; the runtime reads it
//! with [`read_manifest`], and the hook client reads only the small [`HookView`] (identity,
//! digest, hook tables, the routes the hooks name) with [`read_hook_view`], never the route
//! schemas. Invariant: every type
//! here serializes to exactly what the schema accepts, and parsing then re-serializing a valid
//! manifest gives back the same value.

mod hooks;
mod model;
mod read;

pub use hooks::{
    DEFAULT_PAYLOAD_MAX_DEPTH, HookBinding, HookFailure, HookFallback, HookRoute, HookTables,
    HookView,
};
pub use model::{
    Application, Cli, CliCommand, CliProjection, CliScript, CliScriptKind, FileEntry, Limits,
    MANIFEST_FILE_NAME, MANIFEST_VERSION, Manifest, ProfileProjection, ProfileSchema,
    REACT_VERSION, RenderLimits, Route, RouteKind, RouteSchemas, SchemaProjection, SchemaSource,
    Server, ServerMode, WEB_CAPABILITIES, WORKER_PROTOCOL_VERSION, Web, WebApp, WebOpen,
};
pub use read::{
    ManifestHead, ManifestReadError, read_cli_manifest, read_hook_view, read_manifest,
    read_manifest_head, read_server_manifest,
};
