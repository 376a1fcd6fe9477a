//! Runs `templates/esbuild-app.mjs` once per App and turns its report into the App's document or
//! its diagnostics (AB4770 compile errors, AB4771 warnings, AB4837 a compiler-carrying import,
//! AB4772 the size advisory). Entry: [`compile_apps`].

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::bundle::{
    BundleError, ScriptCache, Toolchain, absolute, reported_inputs, run_node_script,
    without_inputs_line,
};
use crate::diagnostics::{Code, Diagnostic, Location, Severity, Span};
pub use crate::project::config::AppSourceMap;

const APP_SCRIPT: &str = include_str!("../../../templates/esbuild-app.mjs");

/// Where compiled Apps sit in every artifact.
pub const APPS_DIR: &str = "mcp-apps";
/// A production document this large gets the AB4772 advisory (1 MiB).
pub const SIZE_ADVISORY_BYTES: u64 = 1024 * 1024;
/// Above this the hosts refuse the resource (2 MiB): AB4772 in every profile.
pub const SIZE_BOUND_BYTES: u64 = 2 * 1024 * 1024;
/// At most this many compile errors are reported per App.
const MAX_ERRORS_PER_APP: usize = 20;

/// How readable the documents are: `abgen build` ships [`AppProfile::Production`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AppProfile {
    /// Minified, no source maps.
    #[default]
    Production,
    /// Unminified, real identifiers; for development hosts.
    Development,
}

/// One App to compile.
#[derive(Clone, Debug)]
pub struct AppSource {
    /// The App's name: its document is `mcp-apps/<name>.html`, its `<title>` this name.
    pub name: String,
    pub server: String,
    pub route_id: String,
    /// The entry module, project-relative.
    pub entry: String,
    /// The entry default-exports a component the document mounts into `#root`; otherwise the
    /// entry mounts itself.
    pub mount: bool,
    /// A project-relative `.html` template replacing the framework shell.
    pub template: Option<String>,
    /// The targets the App ships to (the build's, or the App's own restriction).
    pub targets: Vec<String>,
}

/// One compiled App: its document and its measured size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledApp {
    pub name: String,
    pub server: String,
    pub route_id: String,
    /// Artifact-relative: `mcp-apps/<name>.html`.
    pub path: String,
    pub html: Vec<u8>,
    pub bytes: u64,
    pub gzip_bytes: u64,
    pub targets: Vec<String>,
}

/// What [`compile_apps`] produced: every App that compiled, and the diagnostics of all.
#[derive(Debug, Default)]
pub struct CompiledApps {
    pub apps: Vec<CompiledApp>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    ok: bool,
    #[serde(default)]
    html: String,
    #[serde(default)]
    bytes: u64,
    #[serde(default)]
    gzip_bytes: u64,
    #[serde(default)]
    errors: Vec<Message>,
    #[serde(default)]
    warnings: Vec<Message>,
    #[serde(default)]
    modules: Vec<ModuleSize>,
}

#[derive(Deserialize)]
struct Message {
    file: Option<String>,
    line: Option<u32>,
    column: Option<u32>,
    text: String,
    code: Option<String>,
}

#[derive(Deserialize)]
struct ModuleSize {
    path: String,
    bytes: u64,
}

/// Compiles every App of `apps` (sorted by name) in `profile`, with `source_map` as the config
/// asked; `sources` (project-relative path → text) lets a diagnostic quote the failing line.
pub fn compile_apps(
    project_root: &Path,
    toolchain: &Toolchain,
    apps: &[AppSource],
    profile: AppProfile,
    source_map: AppSourceMap,
    sources: &BTreeMap<String, String>,
) -> Result<CompiledApps, BundleError> {
    compile_apps_reusing(
        project_root,
        toolchain,
        apps,
        profile,
        source_map,
        sources,
        None,
    )
}

/// [`compile_apps`], reusing `cache`'s document of every App none of whose files changed.
pub fn compile_apps_reusing(
    project_root: &Path,
    toolchain: &Toolchain,
    apps: &[AppSource],
    profile: AppProfile,
    source_map: AppSourceMap,
    sources: &BTreeMap<String, String>,
    cache: Option<&ScriptCache>,
) -> Result<CompiledApps, BundleError> {
    let mut output = CompiledApps::default();
    if apps.is_empty() {
        return Ok(output);
    }
    let toolchain = toolchain.resolved()?;
    let project_root = absolute(project_root);
    let mut sorted: Vec<&AppSource> = apps.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    for app in sorted {
        let mut report =
            run_app_script(&project_root, &toolchain, app, profile, source_map, cache)?;
        // Seed 002: a readable document the hosts would refuse is recompiled with the production
        // profile, so the preview keeps rendering it; AB4772 says so.
        if profile == AppProfile::Development && report.ok && report.bytes > SIZE_BOUND_BYTES {
            let development_bytes = report.bytes;
            report = run_app_script(
                &project_root,
                &toolchain,
                app,
                AppProfile::Production,
                source_map,
                cache,
            )?;
            if report.ok {
                output
                    .diagnostics
                    .push(production_fallback(app, development_bytes, report.bytes));
            }
        }
        for warning in &report.warnings {
            output
                .diagnostics
                .push(message_diagnostic(app, warning, sources, true));
        }
        if !report.ok {
            for error in report.errors.iter().take(MAX_ERRORS_PER_APP) {
                output
                    .diagnostics
                    .push(message_diagnostic(app, error, sources, false));
            }
            continue;
        }
        // The 1 MiB advisory is production's even when a development build ships a production
        // document; the 2 MiB bound holds in both.
        if let Some(advisory) = size_advisory(app, &report, profile) {
            output.diagnostics.push(advisory);
        }
        output.apps.push(CompiledApp {
            name: app.name.clone(),
            server: app.server.clone(),
            route_id: app.route_id.clone(),
            path: format!("{APPS_DIR}/{}.html", app.name),
            html: report.html.into_bytes(),
            bytes: report.bytes,
            gzip_bytes: report.gzip_bytes,
            targets: app.targets.clone(),
        });
    }
    Ok(output)
}

fn run_app_script(
    project_root: &Path,
    toolchain: &Toolchain,
    app: &AppSource,
    profile: AppProfile,
    source_map: AppSourceMap,
    cache: Option<&ScriptCache>,
) -> Result<Report, BundleError> {
    let payload = serde_json::json!({
        "name": app.name,
        "entry": app.entry,
        "mount": app.mount,
        "template": app.template,
        "absWorkingDir": project_root,
        "esbuildFrom": toolchain.esbuild_from,
        "nodePaths": toolchain.fallback.iter().collect::<Vec<_>>(),
        "profile": match profile {
            AppProfile::Production => "production",
            AppProfile::Development => "development",
        },
        "sourcemap": match source_map {
            AppSourceMap::None => serde_json::Value::Bool(false),
            AppSourceMap::Inline => "inline".into(),
            AppSourceMap::External => "external".into(),
        },
    });
    let key = ScriptCache::key(APP_SCRIPT, &payload);
    let what = || format!("the MCP App `{}`", app.name);
    if let Some(stdout) = cache.and_then(|cache| cache.get(&key))
        && let Ok(report) = serde_json::from_slice(&stdout)
    {
        return Ok(report);
    }
    let run = run_node_script(APP_SCRIPT, &payload, project_root)?;
    // The script reports compile errors in its JSON; anything else is it failing to run.
    if !run.completed() {
        return Err(BundleError::script_failed(
            what(),
            if run.stderr.trim().is_empty() {
                format!("node exited with {}", run.status)
            } else {
                run.stderr.trim_end().to_owned()
            },
        ));
    }
    let report: Report = serde_json::from_slice(&run.stdout).map_err(|error| {
        BundleError::script_failed(
            what(),
            format!(
                "the compiler's report is not JSON ({error}): {}",
                without_inputs_line(&run.stderr).trim_end()
            ),
        )
    })?;
    // Only a document is kept: a failed compile runs again, so its diagnostics come back.
    if report.ok
        && let (Some(cache), Some(inputs)) = (cache, reported_inputs(&run.stderr))
    {
        cache.keep(key, run.stdout.into(), project_root, &inputs);
    }
    Ok(report)
}

/// AB4770 (an error), AB4771 (a warning) or AB4837 (a compiler-carrying import), at the
/// bundler's file:line:col.
fn message_diagnostic(
    app: &AppSource,
    message: &Message,
    sources: &BTreeMap<String, String>,
    warning: bool,
) -> Diagnostic {
    let boundary = message.code.as_deref() == Some("AB4837");
    let text = message
        .text
        .strip_suffix(" [AB4837]")
        .unwrap_or(&message.text);
    let diagnostic = if boundary {
        Diagnostic::new(
            Code::AB4837,
            format!(
                "MCP App \"{}\" imports a module that cannot run in a browser: {text}",
                app.name
            ),
            "Import only browser code into an App: reach the plugin's tools through `agent-bundle/app` (`createAppClient`), and keep config, compiler and Node modules in routes and servers.",
        )
    } else if warning {
        Diagnostic::new(
            Code::AB4771,
            format!("MCP App \"{}\" compiled with a warning: {text}", app.name),
            "Fix the code the bundler points at; the App was built anyway.",
        )
    } else {
        Diagnostic::new(
            Code::AB4770,
            format!(
                "MCP App \"{}\" failed to compile: {}{text}",
                app.name,
                where_text(message)
            ),
            if message.code.as_deref() == Some("external-source-map") {
                "Ask for an inline map instead: `tools: { rsbuild: { output: { sourceMap: { js: 'inline-source-map' } } } }` in the config, or remove the request."
            } else {
                "Fix the error at that location; the bundler's message says what it expected."
            },
        )
    };
    let diagnostic = if warning && !boundary {
        diagnostic.with_severity(Severity::Warning)
    } else {
        diagnostic
    };
    match &message.file {
        Some(file) => diagnostic.at(location(file, message, sources)),
        None => diagnostic.at(Location::file(&app.entry)),
    }
}

/// `views/status.ts:1:10: ` when the bundler names a place.
fn where_text(message: &Message) -> String {
    match (&message.file, message.line, message.column) {
        (Some(file), Some(line), Some(column)) => format!("{file}:{line}:{column}: "),
        (Some(file), Some(line), None) => format!("{file}:{line}: "),
        (Some(file), None, _) => format!("{file}: "),
        _ => String::new(),
    }
}

/// The bundler's 1-based line and column (bytes) as a location; an empty span when the file's
/// text is known, so the renderer quotes its line.
fn location(file: &str, message: &Message, sources: &BTreeMap<String, String>) -> Location {
    let (Some(line), Some(column)) = (message.line, message.column) else {
        return Location::file(file);
    };
    if let Some(source) = sources.get(file) {
        let line_start: usize = source
            .split_inclusive('\n')
            .take(line.saturating_sub(1) as usize)
            .map(str::len)
            .sum();
        let offset = (line_start + column.saturating_sub(1) as usize).min(source.len());
        let offset = u32::try_from(offset).unwrap_or(u32::MAX);
        return Location::span(file, source, Span::new(offset, offset));
    }
    Location {
        file: file.to_owned(),
        span: None,
        line: Some(line),
        column: Some(column),
    }
}

/// AB4772: a production document of 1 MiB or more, or any document over 2 MiB, with the five
/// largest modules.
fn size_advisory(app: &AppSource, report: &Report, profile: AppProfile) -> Option<Diagnostic> {
    let over_bound = report.bytes > SIZE_BOUND_BYTES;
    let advisory = profile == AppProfile::Production && report.bytes >= SIZE_ADVISORY_BYTES;
    if !over_bound && !advisory {
        return None;
    }
    let largest: Vec<String> = report
        .modules
        .iter()
        .take(5)
        .map(|module| format!("{} ({})", module.path, human_size(module.bytes)))
        .collect();
    let message = format!(
        "MCP App \"{}\" is {} ({} gzip){}; its largest modules: {}",
        app.name,
        human_size(report.bytes),
        human_size(report.gzip_bytes),
        if over_bound {
            ", over the 2 MiB hosts accept"
        } else {
            ", 1 MiB or more"
        },
        largest.join(", ")
    );
    Some(
        Diagnostic::new(
            Code::AB4772,
            message,
            "Trim what the largest modules pull in (a view on `agent-bundle/app` carries only the framework's client; one on @modelcontextprotocol/ext-apps starts at about 249 kB).",
        )
        .at(Location::file(&app.entry))
        .with_note("hosts refuse an App document over 2 MiB, and the view stops rendering there"),
    )
}

/// AB4772: the readable development document of an App crossed the 2 MiB hosts accept, so the
/// production one was shipped instead.
fn production_fallback(app: &AppSource, development_bytes: u64, shipped_bytes: u64) -> Diagnostic {
    Diagnostic::new(
        Code::AB4772,
        format!(
            "MCP App \"{}\"'s readable development document is {}, over the 2 MiB hosts accept; it was compiled with the production profile instead ({})",
            app.name,
            human_size(development_bytes),
            human_size(shipped_bytes)
        ),
        "Nothing to do for the preview to render; to read the App's code in the browser again, trim what its largest modules pull in (`abgen build` names them when its production document reaches 1 MiB).",
    )
    .at(Location::file(&app.entry))
    .with_note("hosts refuse an App document over 2 MiB, and the view stops rendering there")
}

/// `12.3 kB`, `1.20 MB`: decimal units, as the build line prints them.
pub fn human_size(bytes: u64) -> String {
    if bytes < 1000 {
        format!("{bytes} B")
    } else if bytes < 1_000_000 {
        format!("{:.1} kB", bytes as f64 / 1000.0)
    } else {
        format!("{:.2} MB", bytes as f64 / 1_000_000.0)
    }
}
