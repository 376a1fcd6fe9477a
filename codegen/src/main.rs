//! The `abgen` command: parse the command line, run the stage entry calls, print, and exit 0
//! (no errors), 1 (an error diagnostic) or 2 (a usage error, reported by clap).
//!
//! Printing happens only here, through explicit handles, so the library never writes to the
//! terminal.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use abgen::apps::AppProfile;
use abgen::check::{CheckOptions, CheckReturn, check_project, check_project_diagnostics};
use abgen::cli::{
    BuildArgs, CheckArgs, Cli, Commands, DevArgs, DevCommand, GenerateArgs, HooksCommand, InitArgs,
    InspectArgs, McpArgs, McpCommand, McpRunArgs, ProjectArgs, SchemaArgs, SchemaIo, SimulateArgs,
};
use abgen::diagnostics::render::{ColorChoice, render_json, render_pretty};
use abgen::emit::canonical_json::schema_to_canonical_json;
use abgen::emit::{
    BuildFailure, BuildOptions, BuildReport, build_project_with, check_built_artifact,
    render_comparison,
};
use abgen::graph::{HostModelReads, render_routes, render_summary};
use abgen::schema::{Io, select_schema};
use abgen::simulate::{SimulateOptions, render_simulation, simulate_hook};
use clap::Parser;

/// mimalloc, not glibc's malloc: a build allocates and frees millions of small values, and
/// glibc's free lists were a quarter of its time (`bench/build`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Base pages from the first allocation on, which the Rust runtime makes before `main`
/// (`memory`); `main` allows huge pages again for the commands whose heaps grow large.
#[cfg(target_os = "linux")]
#[expect(
    unsafe_code,
    reason = "an `.init_array` entry runs before the Rust runtime; the function it names \
              allocates nothing and cannot panic"
)]
#[used]
#[unsafe(link_section = ".init_array")]
static BASE_PAGES_FROM_START: extern "C" fn() = {
    extern "C" fn base_pages_from_start() {
        abgen::memory::use_base_pages_from_start();
    }
    base_pages_from_start
};

fn main() -> ExitCode {
    abgen::stack::install_worker_stacks();
    let cli = Cli::parse();
    // These read the project and write little: their heap stays small, and huge pages would
    // cost more to find and zero than they save (`memory`). The others get them back.
    if !matches!(
        cli.command,
        Commands::Check(_) | Commands::Generate(_) | Commands::Inspect(_)
    ) {
        abgen::memory::restore_huge_pages();
    }
    let outcome = match cli.command {
        Commands::Build(args) => build(&args),
        Commands::Check(args) => check(&args),
        Commands::Generate(args) => generate(&args),
        Commands::Inspect(args) => inspect(&args),
        Commands::Schema(args) => schema(&args),
        Commands::Init(args) => init(&args),
        Commands::Mcp(args) => mcp(&args),
        Commands::Dev(args) => dev(&args),
        Commands::Hooks(args) => match args.command {
            HooksCommand::Simulate(args) => simulate(&args),
        },
    };
    match outcome {
        Ok(code) => code,
        // The reader went away (a closed pipe): nothing more can be said to it.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(io::stderr().lock(), "error: cannot write output: {error}");
            ExitCode::FAILURE
        }
    }
}

fn build(args: &BuildArgs) -> io::Result<ExitCode> {
    let root = args
        .project
        .root
        .clone()
        .unwrap_or_else(|| PathBuf::from("."));
    let options = BuildOptions {
        root,
        targets: args.project.targets.clone(),
        out: args.out.clone(),
        platforms: args.platform.clone(),
        ..Default::default()
    };
    if args.check {
        return build_check(args, &options);
    }
    let profile = if args.dev {
        AppProfile::Development
    } else {
        AppProfile::Production
    };
    if args.watch {
        return watch(options, profile, DEFAULT_DEBOUNCE, false);
    }
    let stderr = io::stderr();
    let color = ColorChoice::for_terminal(stderr.is_terminal());
    match build_project_with(&options, profile) {
        Ok(built) => {
            if args.json {
                let report = BuildReport::built(
                    &built.emitted.out_dir,
                    &built.emitted.artifact,
                    &built.diagnostics,
                );
                io::stdout().lock().write_all(report.to_json().as_bytes())?;
            } else {
                let mut text = String::new();
                if !built.diagnostics.is_empty() {
                    text = render_pretty(&built.diagnostics, &built.sources, color);
                }
                stderr.lock().write_all(text.as_bytes())?;
                let files = built.emitted.artifact.manifest.files.len() + 1;
                let line = format!(
                    "built {} ({files} files)\n",
                    built.emitted.out_dir.display()
                );
                let mut stdout = io::stdout().lock();
                stdout.write_all(line.as_bytes())?;
                for app in built.app_lines() {
                    writeln!(stdout, "{app}")?;
                }
            }
            // The process ends now: freeing every schema projection of a large project one
            // allocation at a time costs a tenth of the build, and the OS reclaims it at once.
            std::mem::forget(built);
            Ok(ExitCode::SUCCESS)
        }
        Err(failure) => build_failed(args, &options, &failure),
    }
}

/// How long a change must be quiet before `build --watch` rebuilds (`abgen dev --debounce-ms`).
const DEFAULT_DEBOUNCE: std::time::Duration = std::time::Duration::from_millis(20);

fn dev(args: &DevArgs) -> io::Result<ExitCode> {
    if let Some(DevCommand::Proxy(proxy)) = &args.command {
        let options = abgen::dev::ProxyOptions {
            root: proxy.root.clone(),
            server: proxy.server.clone(),
        };
        let color = ColorChoice::for_terminal(io::stderr().is_terminal());
        // The proxy reports each failure once, as `abgen check` prints a diagnostic.
        let report = Box::new(move |diagnostic: &abgen::diagnostics::Diagnostic| {
            let text = render_pretty(std::slice::from_ref(diagnostic), &Default::default(), color);
            let _ = io::stderr().lock().write_all(text.as_bytes());
        });
        abgen::dev::run_proxy(options, report)?;
        return Ok(ExitCode::SUCCESS);
    }
    let options = BuildOptions {
        root: args
            .project
            .root
            .clone()
            .unwrap_or_else(|| PathBuf::from(".")),
        targets: args.project.targets.clone(),
        out: args.out.clone(),
        worker: abgen::bundle::WorkerMode::Modules,
        ..Default::default()
    };
    let debounce = std::time::Duration::from_millis(args.debounce_ms);
    watch(options, AppProfile::Development, debounce, true)
}

/// `abgen dev` and `abgen build --watch`: build, then rebuild on every change until stopped,
/// printing each build's line and its diagnostics when they change. With `dev_lock` (`abgen
/// dev`), the project's development lock names each good build's epoch for `abgen dev proxy`,
/// and is removed at the end.
fn watch(
    options: BuildOptions,
    profile: AppProfile,
    debounce: std::time::Duration,
    dev_lock: bool,
) -> io::Result<ExitCode> {
    use abgen::dev::{StopSignals, WatchOptions, watch_project};
    let stderr = io::stderr();
    let color = ColorChoice::for_terminal(stderr.is_terminal());
    let mut signals = StopSignals::install()?;
    let out = options
        .out
        .clone()
        .unwrap_or_else(|| options.root.join("artifact"));
    writeln!(
        stderr.lock(),
        "watching {} (Ctrl-C stops)",
        options.root.display()
    )?;
    let mut built_once = false;
    let lock_root = options.root.clone();
    let mut report = |report: abgen::dev::WatchReport<'_>| -> io::Result<()> {
        let diagnostics = match report.outcome {
            Ok(built) => built.diagnostics.clone(),
            Err(failure) => failure.diagnostics(),
        };
        if report.diagnostics_changed {
            let text = if diagnostics.is_empty() {
                if report.first {
                    String::new()
                } else {
                    "no diagnostics\n".to_owned()
                }
            } else {
                let sources = match report.outcome {
                    Ok(built) => built.sources.clone(),
                    Err(BuildFailure::Diagnostics { sources, .. }) => sources.clone(),
                    Err(_) => Default::default(),
                };
                render_pretty(&diagnostics, &sources, color)
            };
            stderr.lock().write_all(text.as_bytes())?;
        }
        let millis = report.elapsed.as_millis();
        match report.outcome {
            Ok(built) => {
                built_once = true;
                if dev_lock {
                    let lock = abgen::dev::DevLock {
                        version: abgen::dev::DEV_LOCK_VERSION,
                        pid: std::process::id(),
                        out: built
                            .emitted
                            .out_dir
                            .canonicalize()
                            .unwrap_or_else(|_| built.emitted.out_dir.clone()),
                        digest: built.emitted.artifact.manifest.digest.clone(),
                    };
                    if let Err(error) = abgen::dev::write_dev_lock(&lock_root, &lock) {
                        writeln!(
                            stderr.lock(),
                            "warning: cannot write {}: {error}; `abgen dev proxy` will not see this build",
                            abgen::dev::dev_lock_path(&lock_root).display()
                        )?;
                    }
                }
                let files = built.emitted.artifact.manifest.files.len() + 1;
                let mut stdout = io::stdout().lock();
                writeln!(
                    stdout,
                    "built {} ({files} files) in {millis} ms",
                    built.emitted.out_dir.display()
                )?;
                for app in built.app_lines() {
                    writeln!(stdout, "{app}")?;
                }
                stdout.flush()
            }
            Err(_) if built_once => writeln!(
                stderr.lock(),
                "build failed in {millis} ms; {} keeps the last good artifact",
                out.display()
            ),
            Err(_) => writeln!(
                stderr.lock(),
                "build failed in {millis} ms; nothing is built yet"
            ),
        }
    };
    let options = WatchOptions {
        build: options,
        profile,
        debounce,
    };
    let watched = watch_project(&options, &mut || signals.should_stop(), &mut report);
    if dev_lock {
        abgen::dev::remove_dev_lock(&options.build.root, std::process::id());
    }
    match watched {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(error) => {
            if let Some(error) = error.report_error() {
                return Err(io::Error::new(error.kind(), error.to_string()));
            }
            writeln!(stderr.lock(), "error: {error}")?;
            Ok(ExitCode::FAILURE)
        }
    }
}

/// `abgen build --check`: compare, write nothing.
fn build_check(args: &BuildArgs, options: &BuildOptions) -> io::Result<ExitCode> {
    let stderr = io::stderr();
    let color = ColorChoice::for_terminal(stderr.is_terminal());
    let checked = match check_built_artifact(options) {
        Ok(checked) => checked,
        Err(failure) => return build_failed(args, options, &failure),
    };
    let unchanged = checked.comparison.is_unchanged();
    if args.json {
        let report = BuildReport::checked(
            &checked.out_dir,
            &checked.artifact,
            &checked.comparison,
            &checked.diagnostics,
        );
        io::stdout().lock().write_all(report.to_json().as_bytes())?;
    } else {
        if !checked.diagnostics.is_empty() {
            let text = render_pretty(&checked.diagnostics, &checked.sources, color);
            stderr.lock().write_all(text.as_bytes())?;
        }
        let text = if unchanged {
            format!(
                "{} matches the sources ({} files)\n",
                checked.out_dir.display(),
                checked.artifact.manifest.files.len() + 1
            )
        } else {
            render_comparison(&checked.out_dir, &checked.comparison)
        };
        io::stdout().lock().write_all(text.as_bytes())?;
    }
    Ok(if unchanged {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A build (or check) that produced nothing: its diagnostics, or the one failure, as text on
/// standard error or as the JSON report on standard output.
fn build_failed(
    args: &BuildArgs,
    options: &BuildOptions,
    failure: &BuildFailure,
) -> io::Result<ExitCode> {
    let stderr = io::stderr();
    let color = ColorChoice::for_terminal(stderr.is_terminal());
    match failure {
        BuildFailure::Diagnostics {
            diagnostics,
            sources,
        } => {
            if args.json {
                let out = options.out.clone();
                let report = BuildReport::failed(out.as_deref(), diagnostics);
                io::stdout().lock().write_all(report.to_json().as_bytes())?;
            } else {
                stderr
                    .lock()
                    .write_all(render_pretty(diagnostics, sources, color).as_bytes())?;
            }
        }
        failure => {
            let diagnostics = failure.diagnostics();
            if args.json {
                let out = options.out.clone();
                let report = BuildReport::failed(out.as_deref(), &diagnostics);
                io::stdout().lock().write_all(report.to_json().as_bytes())?;
            } else {
                let sources = std::collections::BTreeMap::new();
                stderr
                    .lock()
                    .write_all(render_pretty(&diagnostics, &sources, color).as_bytes())?;
            }
        }
    }
    Ok(ExitCode::FAILURE)
}

fn mcp(args: &McpArgs) -> io::Result<ExitCode> {
    let (server, method, params) = match &args.command {
        McpCommand::Run(run) => return mcp_run(run),
        McpCommand::List(server) => (server, "tools/list", serde_json::json!({})),
        McpCommand::Invoke(invoke) => {
            let input: serde_json::Value = match serde_json::from_str(&invoke.input) {
                Ok(input @ serde_json::Value::Object(_)) => input,
                _ => {
                    writeln!(
                        io::stderr().lock(),
                        "error: --input must be a JSON object, e.g. '{{\"name\":\"Ada\"}}'"
                    )?;
                    return Ok(ExitCode::from(2));
                }
            };
            let params = serde_json::json!({ "name": invoke.tool, "arguments": input });
            (&invoke.server, "tools/call", params)
        }
    };
    let result = abgen::mcp_client::ask_server(
        &server.artifact,
        &server.server,
        server.target.as_deref(),
        method,
        params,
    );
    let result = match result {
        Ok(result) => result,
        Err(error) => {
            writeln!(io::stderr().lock(), "error: {error}")?;
            return Ok(ExitCode::FAILURE);
        }
    };
    let failed = result["isError"] == serde_json::json!(true);
    let text = if server.json {
        abgen::emit::canonical_json::to_canonical_json(&result)
    } else {
        match &args.command {
            McpCommand::List(_) => {
                let tools = result["tools"].as_array().cloned().unwrap_or_default();
                let mut text = String::new();
                for tool in &tools {
                    text.push_str(&format!(
                        "{}  {}\n",
                        tool["name"].as_str().unwrap_or("?"),
                        tool["description"].as_str().unwrap_or("")
                    ));
                }
                text.push_str(&format!(
                    "Listed {} tool(s) from {}\n",
                    tools.len(),
                    server.server
                ));
                text
            }
            McpCommand::Run(_) => unreachable!("`mcp run` returned above"),
            McpCommand::Invoke(invoke) => {
                let mut text = String::new();
                for content in result["content"].as_array().into_iter().flatten() {
                    if let Some(part) = content["text"].as_str() {
                        text.push_str(part);
                        text.push('\n');
                    }
                }
                text.push_str(&format!(
                    "{} {} on {}\n",
                    if failed { "Failed" } else { "Invoked" },
                    invoke.tool,
                    server.server
                ));
                text
            }
        }
    };
    io::stdout().lock().write_all(text.as_bytes())?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `abgen mcp run`: becomes the server, or says why it cannot.
fn mcp_run(args: &McpRunArgs) -> io::Result<ExitCode> {
    use abgen::mcp_run::{
        EnvFiles, McpRunError, OPERATOR_ENV_FILES_ENV, exec_launch, operator_env_files,
        resolve_launch,
    };
    let env_files = if args.no_env {
        EnvFiles::None
    } else if args.env_files.is_empty() {
        EnvFiles::Project(args.root.clone())
    } else {
        EnvFiles::Named(args.env_files.clone())
    };
    let prepared = resolve_launch(
        &args.artifact,
        &args.server,
        args.target.as_deref(),
        &|name| std::env::var(name).ok(),
    )
    .and_then(|launch| {
        let mut extra = vec![(OPERATOR_ENV_FILES_ENV, operator_env_files(&env_files)?)];
        if let Some(root) = &args.plugin_root {
            let root = std::path::absolute(root).map_err(|error| {
                McpRunError::Failed(format!("cannot resolve {}: {error}", root.display()))
            })?;
            extra.push((
                "AGENT_BUNDLE_PLUGIN_ROOT",
                root.to_string_lossy().into_owned(),
            ));
        }
        Ok((launch, extra))
    });
    let error = match prepared {
        Ok((launch, extra)) => exec_launch(&launch, &extra),
        Err(error) => error,
    };
    writeln!(io::stderr().lock(), "error: {error}")?;
    Ok(match error {
        McpRunError::Usage(_) => ExitCode::from(2),
        McpRunError::Failed(_) => ExitCode::FAILURE,
    })
}

fn init(args: &InitArgs) -> io::Result<ExitCode> {
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    match abgen::init::init_project(&dir, args.name.as_deref()) {
        Ok(made) => {
            let cd = if dir == Path::new(".") {
                String::new()
            } else {
                format!("cd {} && ", dir.display())
            };
            let text = format!(
                "created the plugin `{}` in {} ({} files)\nnext: {cd}npm install && npm run build && npm test\n",
                made.name,
                made.dir.display(),
                made.files.len()
            );
            io::stdout().lock().write_all(text.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Err(abgen::init::InitFailure::Diagnostic(diagnostic)) => {
            let stderr = io::stderr();
            let color = ColorChoice::for_terminal(stderr.is_terminal());
            let text = render_pretty(&[*diagnostic], &std::collections::BTreeMap::new(), color);
            stderr.lock().write_all(text.as_bytes())?;
            Ok(ExitCode::FAILURE)
        }
        Err(failure) => {
            writeln!(io::stderr().lock(), "error: {failure}")?;
            Ok(ExitCode::FAILURE)
        }
    }
}

fn check(args: &CheckArgs) -> io::Result<ExitCode> {
    let root = args
        .project
        .root
        .clone()
        .unwrap_or_else(|| PathBuf::from("."));
    // Only diagnostics are printed: every schema is translated and checked, and none kept.
    let result = check_project_diagnostics(&CheckOptions {
        root,
        targets: args.project.targets.clone(),
    });
    let stdout = io::stdout();
    let text = if args.json {
        render_json(&result.diagnostics)
    } else {
        let color = ColorChoice::for_terminal(stdout.is_terminal());
        render_pretty(&result.diagnostics, &result.sources, color)
    };
    stdout.lock().write_all(text.as_bytes())?;
    let code = exit_code(&result);
    // The process ends here: freeing every module's extracted facts would be serial work on
    // this thread (about a fifth of the wall time at 1,000 routes, measured in bench/check),
    // and the operating system reclaims the memory at exit anyway.
    std::mem::forget(result);
    Ok(code)
}

fn generate(args: &GenerateArgs) -> io::Result<ExitCode> {
    let root = args.root.clone().unwrap_or_else(|| PathBuf::from("."));
    let result = run_check(&ProjectArgs {
        root: Some(root.clone()),
        targets: None,
    });
    let stderr = io::stderr();
    if !result.diagnostics.is_empty() {
        let color = ColorChoice::for_terminal(stderr.is_terminal());
        let text = render_pretty(&result.diagnostics, &result.sources, color);
        stderr.lock().write_all(text.as_bytes())?;
    }
    if let (Some(config), Some(graph)) = (&result.config, &result.graph) {
        let input = abgen::emit::emit_input(&root, config, graph);
        match abgen::emit::write_route_types(&root, &input) {
            Ok(path) => writeln!(io::stdout().lock(), "wrote {}", path.display())?,
            Err(error) => {
                writeln!(stderr.lock(), "error: {error}")?;
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    Ok(exit_code(&result))
}

fn inspect(args: &InspectArgs) -> io::Result<ExitCode> {
    let result = run_check(&args.project);
    if !result.diagnostics.is_empty() {
        let stderr = io::stderr();
        let color = ColorChoice::for_terminal(stderr.is_terminal());
        let text = render_pretty(&result.diagnostics, &result.sources, color);
        stderr.lock().write_all(text.as_bytes())?;
    }
    if let Some(graph) = &result.graph {
        let text = match (args.json, args.routes) {
            _ if args.hooks => {
                let rows = abgen::matrix::resolve_graph(graph, &result.sources, &[]).rows;
                if args.json {
                    json_line(&rows)
                } else {
                    abgen::matrix::render_hook_rows(&rows)
                }
            }
            (true, true) => json_line(&graph.routes),
            (true, false) => json_line(graph),
            (false, true) => {
                let hosts: Vec<HostModelReads<'_>> = abgen::matrix::hosts()
                    .iter()
                    .filter(|host| {
                        graph
                            .targets
                            .iter()
                            .any(|target| target.as_str() == host.host)
                    })
                    .map(|host| HostModelReads {
                        target: &host.host,
                        reads: &host.model_reads,
                    })
                    .collect();
                let structured = |id: &str| {
                    result.schemas.get(id).is_some_and(|schemas| {
                        !matches!(schemas.output, abgen::schema::RouteSchema::Absent)
                    })
                };
                render_routes(graph, &hosts, &structured)
            }
            (false, false) => render_summary(graph),
        };
        io::stdout().lock().write_all(text.as_bytes())?;
    }
    Ok(exit_code(&result))
}

fn simulate(args: &SimulateArgs) -> io::Result<ExitCode> {
    let options = SimulateOptions {
        artifact: args.artifact.clone(),
        host: args.host.clone(),
        event: args.event.clone(),
        input: args.input.clone(),
        standalone: args.standalone,
        runtime_dir: None,
    };
    match simulate_hook(&options) {
        Ok(simulation) => {
            io::stdout()
                .lock()
                .write_all(render_simulation(&simulation).as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            writeln!(io::stderr().lock(), "error: {error}")?;
            Ok(ExitCode::FAILURE)
        }
    }
}

fn schema(args: &SchemaArgs) -> io::Result<ExitCode> {
    let result = run_check(&args.project);
    let io_side = match args.io {
        SchemaIo::Input => Io::Input,
        SchemaIo::Output => Io::Output,
    };
    match select_schema(&result, &args.route, io_side, &args.profile) {
        Ok(schema) => {
            let text = schema_to_canonical_json(&schema);
            io::stdout().lock().write_all(text.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            writeln!(io::stderr().lock(), "error: {error}")?;
            Ok(ExitCode::FAILURE)
        }
    }
}

fn run_check(project: &ProjectArgs) -> CheckReturn {
    let root = project.root.clone().unwrap_or_else(|| PathBuf::from("."));
    check_project(&CheckOptions {
        root,
        targets: project.targets.clone(),
    })
}

fn exit_code(result: &CheckReturn) -> ExitCode {
    if result.has_errors() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn json_line(value: &impl serde::Serialize) -> String {
    // The graph is plain data (strings, numbers, maps with string keys): serializing cannot fail.
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}
