//! The emit stage: from the project's routes to a complete artifact directory: host documents,
//! the hook tables, `abgen.manifest.json`, staging and the swap into the output directory, which
//! abgen replaces only when it is its own artifact (`output`).
//!
//! Entry: [`emit_artifact`] (or [`plan_artifact`] to stay in memory). Invariant: every JSON file
//! is written by [`canonical_json`], and host-specific facts come only from the host matrix ([`crate::matrix`]).

mod build;
pub mod canonical_json;
mod compare;
mod documents;
mod error;
mod failpoint;
mod input;
mod install;
mod json_scan;
mod manifest;
mod output;
mod plan;
mod platform;
mod project;
mod report;
mod reuse;
mod route_check;
mod skills;
mod stage;
mod typegen;
mod worker_files;

pub use build::{
    EmitOptions, EmitReturn, HOST_BINARY_ENV, ManifestText, PlannedArtifact, WORKER_BUNDLE_PATH,
    emit_artifact, emit_claimed, emit_claimed_reusing, locate_host_binary, plan_artifact,
    plugin_bin_path,
};
pub use compare::{ArtifactComparison, Change, ContractChange, render_comparison};
pub use documents::{HOST_BINARY_PATH, PLUGIN_ROOT_ENV_ANCHOR, is_plugin_root_cwd};
pub use error::{EmitError, ForeignPath};
pub use failpoint::{FAILPOINT_ENV, Failpoint};
pub use input::{
    EmitDeclaredServer, EmitEntry, EmitInput, EmitLaunch, EmitLayout, EmitPlainScript,
    EmitProvider, EmitRoute, EmitSchemas, EmitServer, PLUGIN_ROOT_TOKEN, PluginIdentity, selects,
};
pub use install::INSTALL_PATH;
pub use output::{NAMED_PATHS, OutputClaim, check_output_dir, claim_output, claim_output_reusing};
pub use plan::{FilePlan, PlannedFile, file_table_digest, sha256_hex};
pub use platform::{
    PLATFORM_HOST_ENV_PREFIX, PLATFORM_KEYS, PlatformBinary, TESTED_PLATFORMS,
    locate_platform_binaries, platform_binary_path, platform_host_env, platform_launcher,
};
pub use project::{
    BuildCache, BuildFailure, BuildOptions, BuildReturn, CheckedArtifact, MCP_DIR, ProjectionCache,
    WORKER_BUNDLE_ENV, app_sources, build_project, build_project_reusing, build_project_with,
    bundle_entry_servers, bundle_plain_scripts, check_built_artifact, checked_emit_input,
    emit_input, worker_entry,
};
pub use report::{BUILD_REPORT_VERSION, BuildReport, BuildStatus, BuiltApp};
pub use reuse::EmitCache;
pub use skills::{EmitSkill, SKILLS_DIR, SkillsReturn, read_skills};
pub use typegen::{ROUTE_TYPES_PATH, render_route_types, write_route_types};
