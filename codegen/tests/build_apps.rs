//! MCP App compilation, through `build_project` on copies of fixture projects: one
//! self-contained `mcp-apps/<name>.html` per App (the framework shell, both entry shapes,
//! production and development profiles), the App and worker bundles kept apart, and the
//! diagnostics only the App build reports (AB4770, AB4771, AB4772, and AB4837 for a module an App
//! reaches through another).

mod support;

use std::path::{Path, PathBuf};

use abgen::apps::AppProfile;
use abgen::diagnostics::{Code, Severity};
use abgen::emit::{BuildFailure, BuildOptions, BuildReturn, build_project_with};
use support::{copy_project, host_binary, repo};

/// A copy of `fixtures/projects/<name>` in a temporary folder, built into its `artifact/`.
struct Fixture {
    temp: tempfile::TempDir,
    project: PathBuf,
}

impl Fixture {
    fn copy(name: &str) -> Self {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path().join("project");
        copy_project(&repo().join("fixtures/projects").join(name), &project);
        Self { temp, project }
    }

    /// Where [`Fixture::build`] writes.
    fn out(&self) -> PathBuf {
        self.temp.path().join("artifact")
    }

    fn build(&self, profile: AppProfile) -> Result<BuildReturn, BuildFailure> {
        self.build_into(&self.out(), profile)
    }

    fn build_into(&self, out: &Path, profile: AppProfile) -> Result<BuildReturn, BuildFailure> {
        build_project_with(
            &BuildOptions {
                root: self.project.clone(),
                targets: None,
                out: Some(out.to_owned()),
                host_binary: Some(host_binary()),
                platforms: None,
                node_modules: None,
                worker: Default::default(),
            },
            profile,
        )
    }

    /// A file of the built artifact.
    fn artifact_file(&self, path: &str) -> String {
        read(&self.out().join(path))
    }

    /// Writes `text` at `path` of the project, creating its folder.
    fn write(&self, path: &str, text: &str) {
        let path = self.project.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Rewrites the project file `path` through `change`.
    fn edit(&self, path: &str, change: impl FnOnce(String) -> String) {
        let text = read(&self.project.join(path));
        self.write(path, &change(text));
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The codes of a failed build's diagnostics.
fn failed_codes(result: Result<BuildReturn, BuildFailure>) -> Vec<(Code, String)> {
    match result {
        Err(BuildFailure::Diagnostics { diagnostics, .. }) => diagnostics
            .iter()
            .map(|d| (d.code, d.message.clone()))
            .collect(),
        Err(other) => panic!("not a diagnostics failure: {other}"),
        Ok(_) => panic!("the build succeeded"),
    }
}

#[test]
fn the_seed_layout_compiles_to_one_self_contained_document() {
    let fixture = Fixture::copy("valid-app-seed-layout");
    let built = fixture
        .build(AppProfile::Production)
        .expect("the seed layout builds");

    // One App (StatusPanel.tsx is the view status.ts imports, not an App of its own).
    let apps = built.apps();
    assert_eq!(apps.len(), 1, "{apps:?}");
    assert_eq!(apps[0].name, "status");
    assert_eq!(apps[0].server, "status");
    assert_eq!(apps[0].path, "mcp-apps/status.html");
    let html = fixture.artifact_file("mcp-apps/status.html");
    assert_eq!(apps[0].bytes, html.len() as u64);
    assert!(apps[0].gzip_bytes > 0 && apps[0].gzip_bytes < apps[0].bytes);
    assert_eq!(
        built.app_lines(),
        vec![format!(
            "MCP App status (portable): mcp-apps/status.html {} ({} gzip)",
            abgen::apps::human_size(apps[0].bytes),
            abgen::apps::human_size(apps[0].gzip_bytes)
        )]
    );

    // The framework shell around one inline module script, nothing fetched.
    assert!(
        html.starts_with("<!doctype html>\n<html lang=\"en\">"),
        "{}",
        &html[..200]
    );
    assert!(html.contains("<meta charset=\"utf-8\">"));
    assert!(
        html.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
    );
    assert!(html.contains("<title>status</title>"));
    assert!(html.contains("<div id=\"root\"></div>"));
    assert_eq!(html.matches("<script type=\"module\">").count(), 1);
    assert!(!html.contains("<script src") && !html.contains("<script type=\"module\" src"));
    assert!(
        !html.contains(" src=") && !html.contains("<link"),
        "nothing is fetched"
    );
    // The JSX behind the .ts entry compiled with the automatic runtime, and the view rendered.
    assert!(html.contains("All services ready."));
    assert!(!html.contains("React.createElement"));
    // Production: minified (no readable component name), no source map.
    assert!(
        !html.contains("StatusPanel"),
        "production documents are minified"
    );
    assert!(!html.contains("sourceMappingURL"));
    // The manifest lists the document like every other file.
    let manifest = fixture.artifact_file("abgen.manifest.json");
    assert!(manifest.contains("\"mcp-apps/status.html\""));
}

#[test]
fn app_modules_never_enter_the_worker_and_worker_modules_never_enter_an_app() {
    let fixture = Fixture::copy("valid-app-seed-layout");
    fixture.build(AppProfile::Production).expect("builds");
    // The loader and the bundle beside it.
    let worker = fixture.artifact_file("runtime/worker.mjs")
        + &fixture.artifact_file("runtime/worker.bundle.cjs");
    let html = fixture.artifact_file("mcp-apps/status.html");
    // The App's text and its view module are not in the worker.
    assert!(!worker.contains("All services ready."));
    assert!(!worker.contains("apps/status.ts") && !worker.contains("apps/StatusPanel"));
    assert!(!worker.contains("document.getElementById"));
    // The tool route, its schema library and the worker runtime are not in the App.
    assert!(worker.contains("Show the status of every service."));
    assert!(!html.contains("Show the status of every service."));
    assert!(!html.contains("startWorker") && !html.contains("react-server"));
}

#[test]
fn development_documents_are_readable() {
    let fixture = Fixture::copy("valid-app-seed-layout");
    let built = fixture.build(AppProfile::Development).expect("builds");
    let html = fixture.artifact_file("mcp-apps/status.html");
    assert!(html.contains("function StatusPanel()"), "real identifiers");
    assert!(html.contains("mountStatusPanel"));
    // One marker per module of the project, as seed 002's readable documents have.
    for module in [
        "src/mcp/status/apps/status.ts",
        "src/mcp/status/apps/StatusPanel.tsx",
    ] {
        assert_eq!(
            html.matches(&format!("// {module}\n")).count(),
            1,
            "{module}"
        );
    }
    assert!(!html.contains("sourceMappingURL"));
    assert!(
        built.apps()[0].bytes > 2 * 200_000,
        "unminified React is larger"
    );
}

#[test]
fn ab4770_a_compile_error_names_the_file_line_and_column() {
    let fixture = Fixture::copy("ab4770-app-syntax-error");
    let codes = failed_codes(fixture.build(AppProfile::Production));
    assert_eq!(codes.len(), 1, "{codes:?}");
    assert_eq!(codes[0].0, Code::AB4770);
    assert_eq!(
        codes[0].1,
        "MCP App \"board\" failed to compile: src/mcp/fx/apps/board.tsx:4:10: No matching export in \"src/mcp/fx/apps/_parts.ts\" for import \"missing\""
    );
    assert!(!fixture.out().exists(), "nothing is written");
}

#[test]
fn ab4771_a_warning_rides_a_successful_build() {
    let fixture = Fixture::copy("ab4771-app-warning");
    let built = fixture
        .build(AppProfile::Production)
        .expect("a warning does not fail");
    let warnings: Vec<_> = built
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::AB4771)
        .collect();
    assert_eq!(warnings.len(), 1, "{:?}", built.diagnostics);
    assert_eq!(warnings[0].severity, Severity::Warning);
    let location = warnings[0].location.as_ref().unwrap();
    assert_eq!(
        (location.file.as_str(), location.line, location.column),
        ("src/mcp/fx/apps/board.tsx", Some(4), Some(34))
    );
    assert!(fixture.out().join("mcp-apps/board.html").is_file());
}

#[test]
fn ab4772_a_document_of_a_mebibyte_names_its_largest_modules() {
    let fixture = Fixture::copy("ab4772-large-app");
    fixture.write("src/mcp/fx/apps/payload.txt", &"x".repeat(1_100_000));
    let built = fixture
        .build(AppProfile::Production)
        .expect("an advisory does not fail");
    let advisory: Vec<_> = built
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::AB4772)
        .collect();
    assert_eq!(advisory.len(), 1, "{:?}", built.diagnostics);
    let message = &advisory[0].message;
    assert!(
        message.contains(
            "its largest modules: src/mcp/fx/apps/payload.txt (1.10 MB), node_modules/react-dom/"
        ),
        "{message}"
    );
    assert_eq!(
        message.matches(" kB)").count()
            + message.matches(" MB)").count()
            + message.matches(" B)").count(),
        5,
        "{message}"
    );
    // A readable development document of the same App crosses the 2 MiB hosts accept: the
    // production document is shipped instead, so the preview keeps rendering, and AB4772 says so
    // (the 1 MiB advisory is production's own).
    let development = fixture.temp.path().join("development");
    let built = fixture
        .build_into(&development, AppProfile::Development)
        .expect("builds");
    let advisory: Vec<_> = built
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::AB4772)
        .collect();
    assert_eq!(advisory.len(), 1, "{:?}", built.diagnostics);
    let message = &advisory[0].message;
    assert!(
        message.starts_with("MCP App \"board\"'s readable development document is ")
            && message.ends_with(
                ", over the 2 MiB hosts accept; it was compiled with the production profile instead (1.32 MB)"
            ),
        "{message}"
    );
    let shipped = read(&development.join("mcp-apps/board.html"));
    assert_eq!(built.apps()[0].bytes, shipped.len() as u64);
    assert!(shipped.len() as u64 <= abgen::apps::SIZE_BOUND_BYTES);
}

#[test]
fn ab4837_a_node_built_in_reached_through_a_module_the_app_imports() {
    let fixture = Fixture::copy("valid-app-seed-layout");
    // No App module imports anything Node-only (the check is clean); a library module does.
    fixture.write(
        "src/lib/disk.ts",
        "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
    );
    fixture.edit("src/mcp/status/apps/StatusPanel.tsx", |source| {
        format!("import {{ read }} from '../../../lib/disk.ts';\n{source}\nexport const reader = read;\n")
    });
    let codes = failed_codes(fixture.build(AppProfile::Production));
    assert_eq!(codes.len(), 1, "{codes:?}");
    assert_eq!(codes[0].0, Code::AB4837);
    assert!(
        codes[0].1.contains("the Node built-in `node:fs`"),
        "{}",
        codes[0].1
    );
}

#[test]
fn tsconfig_paths_resolve_in_a_view_but_cannot_replace_agent_bundle_app() {
    let fixture = Fixture::copy("valid-app-probe");
    fixture.write(
        "tsconfig.json",
        r#"{ "compilerOptions": { "baseUrl": ".", "paths": {
            "@lib/*": ["src/lib/*"],
            "agent-bundle/app": ["src/lib/fake-app.ts"]
        } } }"#,
    );
    fixture.write(
        "src/lib/greeting.ts",
        "export const greeting = 'GREETING-THROUGH-PATHS';\n",
    );
    fixture.write(
        "src/lib/fake-app.ts",
        "export const createAppClient = () => 'FAKE-CLIENT'; export class AppClientError {}\n",
    );
    fixture.edit("src/mcp/desk/apps/probe.ts", |source| {
        format!(
            "import {{ greeting }} from '@lib/greeting.ts';\n{source}\ndocument.title = greeting;\n"
        )
    });
    fixture.build(AppProfile::Production).expect("builds");
    let html = fixture.artifact_file("mcp-apps/probe.html");
    assert!(
        html.contains("GREETING-THROUGH-PATHS"),
        "`@lib/*` resolved through tsconfig paths"
    );
    assert!(
        !html.contains("FAKE-CLIENT"),
        "the mapping did not replace agent-bundle/app"
    );
    assert!(
        html.contains("2026-01-26"),
        "the framework's client is in the document"
    );
}

/// Compiles one App of the seed layout fixture's copy with `template` (project-relative).
fn compile_with_template(template_html: &str) -> String {
    let fixture = Fixture::copy("valid-app-seed-layout");
    fixture.write("src/status.html", template_html);
    let compiled = abgen::apps::compile_apps(
        &fixture.project,
        &abgen::bundle::Toolchain::at(support::repo().join("node_modules")),
        &[abgen::apps::AppSource {
            name: "status".into(),
            server: "status".into(),
            route_id: "app:status/status".into(),
            entry: "src/mcp/status/apps/status.ts".into(),
            mount: false,
            template: Some("src/status.html".into()),
            targets: vec!["portable".into()],
        }],
        AppProfile::Production,
        abgen::apps::AppSourceMap::None,
        &Default::default(),
    )
    .expect("the toolchain runs");
    assert!(
        compiled.diagnostics.is_empty(),
        "{:?}",
        compiled.diagnostics
    );
    String::from_utf8(compiled.apps[0].html.clone()).unwrap()
}

#[test]
fn a_template_replaces_the_shell_and_gets_lang_and_title_only_when_it_has_none() {
    let bare = compile_with_template(
        "<!doctype html>\n<html>\n<head><meta charset=\"utf-8\"></head>\n<body><main id=\"root\"></main></body>\n</html>\n",
    );
    assert!(bare.contains("<html lang=\"en\">"), "{bare:.300}");
    assert!(bare.contains("<title>status</title>"));
    assert!(
        bare.contains("<main id=\"root\"></main>"),
        "the template owns the mount point"
    );
    assert!(!bare.contains("<div id=\"root\">"), "no framework shell");
    let script = bare.find("<script type=\"module\">").unwrap();
    assert!(script > bare.find("<main").unwrap() && script < bare.find("</body>").unwrap());

    let owned = compile_with_template(
        "<!doctype html>\n<html lang=\"fr\">\n<head><title>Statut</title></head>\n<body><div id=\"root\"></div></body>\n</html>\n",
    );
    assert!(owned.contains("<html lang=\"fr\">") && !owned.contains("lang=\"en\""));
    assert!(owned.contains("<title>Statut</title>") && !owned.contains("<title>status</title>"));
}

/// The seed's config-declared App (seed 002 §MCP Apps) on the seed layout's server: an entry
/// beside its HTML template in `views/`, outside `src/`, and a target restriction.
const DECLARED_CONFIG: &str = "import { defineConfig } from 'agent-bundle/config';

export default defineConfig({
  mcp: {
    servers: {
      status: {
        apps: {
          panel: {
            entry: './views/status-panel.ts',
            resourceUri: 'ui://mcp-app-example/panel.html',
            targets: ['portable'],
            template: './views/status-panel.html',
          },
        },
      },
    },
  },
  plugin: { description: 'A service-readiness assistant.', name: 'mcp-app-example' },
  targets: ['portable', 'codex', 'claude'],
});
";

fn declared_fixture() -> Fixture {
    let fixture = Fixture::copy("valid-app-seed-layout");
    fixture.write("agent-bundle.config.ts", DECLARED_CONFIG);
    fixture.write(
        "views/status-panel.ts",
        "import { mountStatusPanel } from '../src/mcp/status/apps/StatusPanel.tsx';\n\nmountStatusPanel(document.getElementById('panel-root')!);\n",
    );
    fixture.write(
        "views/status-panel.html",
        "<!doctype html>\n<html>\n<head><meta charset=\"utf-8\"></head>\n<body><section id=\"panel-root\"></section></body>\n</html>\n",
    );
    fixture
}

#[test]
fn a_config_declared_app_compiles_like_a_conventional_one_with_its_template_and_targets() {
    let fixture = declared_fixture();
    let built = fixture
        .build(AppProfile::Production)
        .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));
    let names: Vec<&str> = built.apps().iter().map(|app| app.name.as_str()).collect();
    assert_eq!(names, ["panel", "status"]);
    let html = fixture.artifact_file("mcp-apps/panel.html");
    // The template, with the seed's lang and title rules, and the entry's bundle in it.
    assert!(html.contains("<html lang=\"en\">"), "{html:.300}");
    assert!(html.contains("<title>panel</title>"));
    assert!(html.contains("<section id=\"panel-root\"></section>"));
    assert!(!html.contains("<div id=\"root\">"), "no framework shell");
    assert!(html.contains("All services ready."));
    // `targets: ['portable']`: one line, for the one target the App ships to.
    let panel_lines: Vec<String> = built
        .app_lines()
        .into_iter()
        .filter(|line| line.starts_with("MCP App panel "))
        .collect();
    assert_eq!(panel_lines.len(), 1, "{panel_lines:?}");
    assert!(panel_lines[0].starts_with("MCP App panel (portable): mcp-apps/panel.html "));
    // The manifest serves it as an App of its server, hidden from the left-out hosts' clients.
    let manifest: serde_json::Value =
        serde_json::from_str(&fixture.artifact_file("abgen.manifest.json")).unwrap();
    let route = manifest["routes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|route| route["id"] == "app:status/panel")
        .unwrap_or_else(|| panic!("no declared App route: {}", manifest["routes"]));
    assert_eq!(route["source"], "views/status-panel.ts");
    assert_eq!(
        route["config"],
        serde_json::json!({
            "resourceUri": "ui://mcp-app-example/panel.html",
            "excludeClients": ["claude", "codex"],
        })
    );
}

#[test]
fn a_declared_app_whose_files_are_missing_or_whose_name_is_taken_is_reported_at_its_declaration() {
    let check = |fixture: &Fixture| -> Vec<(Code, String, Option<u32>)> {
        abgen::check::check_project(&abgen::check::CheckOptions {
            root: fixture.project.clone(),
            targets: None,
        })
        .diagnostics
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let line = d.location.as_ref().and_then(|l| l.line);
            (d.code, d.message, line)
        })
        .collect()
    };
    let fixture = declared_fixture();
    std::fs::remove_file(fixture.project.join("views/status-panel.html")).unwrap();
    let found = check(&fixture);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, Code::AB4332);
    assert!(
        found[0].1.contains("`views/status-panel.html`"),
        "{found:?}"
    );
    assert_eq!(found[0].2, Some(12), "at the `template` key: {found:?}");

    std::fs::remove_file(fixture.project.join("views/status-panel.ts")).unwrap();
    let found = check(&fixture);
    assert_eq!(found[0].0, Code::AB4328, "{found:?}");
    assert_eq!(found[0].2, Some(9), "at the `entry` key: {found:?}");

    let fixture = declared_fixture();
    fixture.edit("agent-bundle.config.ts", |text| {
        text.replace("panel: {", "status: {")
    });
    let found = check(&fixture);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, Code::AB4325);
    assert!(
        found[0].1.contains("src/mcp/status/apps/status.ts"),
        "{found:?}"
    );
}

/// The seed layout with `tools.rsbuild.output.sourceMap.js` set to `devtool`.
fn source_map_fixture(devtool: &str) -> Fixture {
    let fixture = Fixture::copy("valid-app-seed-layout");
    fixture.write(
        "agent-bundle.config.ts",
        &format!(
            "import {{ defineConfig }} from 'agent-bundle/config';\n\nexport default defineConfig({{\n  plugin: {{ name: 'mcp-app-example' }},\n  tools: {{ rsbuild: {{ output: {{ sourceMap: {{ js: '{devtool}' }} }} }} }},\n}});\n"
        ),
    );
    fixture
}

#[test]
fn an_inline_source_map_only_on_request() {
    let fixture = source_map_fixture("inline-source-map");
    fixture
        .build(AppProfile::Production)
        .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));
    let html = fixture.artifact_file("mcp-apps/status.html");
    assert!(
        html.contains("//# sourceMappingURL=data:application/json;base64,"),
        "the map is inline"
    );
    let files: Vec<String> = std::fs::read_dir(fixture.out().join("mcp-apps"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, ["status.html"], "one self-contained document");
    // Without the request (the seed layout as committed), no map: the first test's assertion.
}

#[test]
fn an_external_source_map_is_an_error_naming_the_file() {
    let fixture = source_map_fixture("source-map");
    let failed = match fixture.build(AppProfile::Production) {
        Err(BuildFailure::Diagnostics { diagnostics, .. }) => diagnostics,
        other => panic!("not refused: {other:?}"),
    };
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].code, Code::AB4770);
    assert_eq!(
        failed[0].message,
        "MCP App \"status\" failed to compile: an external source map (mcp-apps/status.js.map) would sit beside the App document mcp-apps/status.html; only inline source maps are allowed"
    );
    assert!(
        failed[0].recovery.contains("'inline-source-map'"),
        "{}",
        failed[0].recovery
    );
    assert!(!fixture.out().exists(), "nothing is written");
}
