//! `abgen hooks simulate`: run one hook of a built artifact the way its host would — the
//! artifact's own `bin/abgen-host hook`, a payload on stdin — and report what the host receives
//! (stdout, exit code) and what it logs (stderr), so authors can try hooks without a host.
//!
//! Entry: [`simulate_hook`], then [`render_simulation`]. Invariant: nothing is simulated in
//! process; the answer is the real binary's, with `ABGEN_ARTIFACT` naming the artifact.

mod samples;

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use abgen_runtime::manifest::{MANIFEST_FILE_NAME, read_hook_view};

pub use samples::sample_envelope;

/// How long past the binding's deadline the hook may take before the simulation gives up on it
/// (process start and exit, a loaded machine).
const GRACE: Duration = Duration::from_secs(5);

/// What to simulate.
#[derive(Clone, Debug)]
pub struct SimulateOptions {
    pub artifact: PathBuf,
    pub host: String,
    /// The canonical event (`tool/after`).
    pub event: String,
    /// The payload file; default the built-in sample for the binding's native event.
    pub input: Option<PathBuf>,
    /// Render through a fresh worker even when the route's fallback is `none`.
    pub standalone: bool,
    /// The directory the hook looks for a warm runtime in (its `XDG_RUNTIME_DIR`); `None` keeps
    /// the caller's environment, so a simulation meets the runtime a host's hook would meet.
    pub runtime_dir: Option<PathBuf>,
}

/// What the host would have received.
#[derive(Clone, Debug)]
pub struct Simulation {
    /// `abgen-host hook …` as the host runs it.
    pub command: String,
    pub native_event: String,
    /// Where the payload came from.
    pub input: String,
    pub deadline_ms: u64,
    pub elapsed: Duration,
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Why the hook could not be run.
#[derive(Debug, thiserror::Error)]
pub enum SimulateError {
    #[error(transparent)]
    Manifest(#[from] abgen_runtime::manifest::ManifestReadError),
    #[error("the artifact has no {host} hook for `{event}`; its {host} hooks: {known}")]
    NoBinding {
        host: String,
        event: String,
        known: String,
    },
    #[error("there is no built-in {host} sample for {native_event}; pass --input FILE")]
    NoSample { host: String, native_event: String },
    #[error("cannot read the input {}: {source}", path.display())]
    Input {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot run {}: {source}", path.display())]
    Run {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the hook was still running {} ms after its {deadline_ms} ms deadline; it was killed", GRACE.as_millis())]
    Hung { deadline_ms: u64 },
}

/// Runs the artifact's hook for `options.event` with the payload on stdin.
pub fn simulate_hook(options: &SimulateOptions) -> Result<Simulation, SimulateError> {
    let view = read_hook_view(&options.artifact.join(MANIFEST_FILE_NAME))?;
    let Some(binding) = view.binding(&options.host, &options.event) else {
        let known: Vec<&str> = view
            .hooks
            .get(&options.host)
            .map(|bindings| {
                bindings
                    .iter()
                    .map(|binding| binding.event.as_str())
                    .collect()
            })
            .unwrap_or_default();
        return Err(SimulateError::NoBinding {
            host: options.host.clone(),
            event: options.event.clone(),
            known: if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            },
        });
    };
    let (payload, input) = match &options.input {
        Some(path) => (
            std::fs::read(path).map_err(|source| SimulateError::Input {
                path: path.clone(),
                source,
            })?,
            path.display().to_string(),
        ),
        None => (
            sample_envelope(&options.host, &binding.native_event)
                .ok_or_else(|| SimulateError::NoSample {
                    host: options.host.clone(),
                    native_event: binding.native_event.clone(),
                })?
                .into_bytes(),
            format!("the built-in {} sample", binding.native_event),
        ),
    };
    let mut args = vec![
        "hook".to_owned(),
        "--host".to_owned(),
        options.host.clone(),
        "--event".to_owned(),
        options.event.clone(),
    ];
    if options.standalone {
        args.extend(["--fallback".to_owned(), "standalone".to_owned()]);
    }
    let binary = options.artifact.join("bin/abgen-host");
    let started = Instant::now();
    let output = run(
        &binary,
        &args,
        &options.artifact,
        options.runtime_dir.as_deref(),
        &payload,
        binding.deadline_ms,
    )?;
    Ok(Simulation {
        command: format!("abgen-host {}", args.join(" ")),
        native_event: binding.native_event.clone(),
        input,
        deadline_ms: binding.deadline_ms,
        elapsed: started.elapsed(),
        exit_code: output.0,
        stdout: output.1,
        stderr: output.2,
    })
}

/// Runs `binary args` with `payload` on stdin; (exit code, stdout, stderr).
fn run(
    binary: &Path,
    args: &[String],
    artifact: &Path,
    runtime_dir: Option<&Path>,
    payload: &[u8],
    deadline_ms: u64,
) -> Result<(Option<i32>, String, String), SimulateError> {
    let failed = |source| SimulateError::Run {
        path: binary.to_owned(),
        source,
    };
    let mut command = Command::new(binary);
    command.args(args).env("ABGEN_ARTIFACT", artifact);
    if let Some(runtime_dir) = runtime_dir {
        command.env("XDG_RUNTIME_DIR", runtime_dir);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(failed)?;
    let mut stdin = child.stdin.take();
    let payload = payload.to_vec();
    // The hook may stop reading early (an oversized payload): a broken pipe is its answer.
    let writer = std::thread::spawn(move || {
        if let Some(stdin) = stdin.as_mut() {
            let _ = stdin.write_all(&payload);
        }
    });
    let mut stdout_pipe = child.stdout.take();
    let mut stderr_pipe = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(pipe) = stdout_pipe.as_mut() {
            let _ = pipe.read_to_end(&mut text);
        }
        text
    });
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(pipe) = stderr_pipe.as_mut() {
            let _ = pipe.read_to_end(&mut text);
        }
        text
    });
    let give_up = Instant::now() + Duration::from_millis(deadline_ms) + GRACE;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(failed)? {
            break status;
        }
        if Instant::now() >= give_up {
            let _ = child.kill();
            let _ = child.wait();
            return Err(SimulateError::Hung { deadline_ms });
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    let stdout = reader.join().unwrap_or_default();
    let stderr = errors.join().unwrap_or_default();
    Ok((
        status.code(),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    ))
}

/// The simulation as the `abgen hooks simulate` report.
pub fn render_simulation(simulation: &Simulation) -> String {
    let block = |text: &str| {
        if text.is_empty() {
            " (nothing)\n".to_owned()
        } else {
            format!("\n{}\n", text.trim_end())
        }
    };
    format!(
        "$ {} < {}\nnative event: {}\nexit code: {} after {} ms (deadline {} ms)\nstdout (what the host reads):{}stderr (the host's log):{}",
        simulation.command,
        simulation.input,
        simulation.native_event,
        simulation.exit_code.map_or_else(
            || "none (killed by a signal)".to_owned(),
            |code| code.to_string()
        ),
        simulation.elapsed.as_millis(),
        simulation.deadline_ms,
        block(&simulation.stdout),
        block(&simulation.stderr),
    )
}
