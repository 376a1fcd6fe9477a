//! The kernel of one artifact, shared by every surface of one process and started by whichever
//! needs it first: `abgen-host mcp` starts one [`SharedKernel`] before it serves and hands it to
//! its MCP server (which would otherwise start it at `initialize`) and to its warm host, so a
//! hook answered warm renders on the same pool, and the same workers, as the session's tool
//! calls.
//!
//! Also where an artifact's kernel configuration is made ([`artifact_kernel_config`]), for the
//! long-lived kernel and the one-render kernels of `abgen-host render` and the hook fallback.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use super::{Kernel, KernelConfig};
use crate::document::DocumentLimits;
use crate::manifest::REACT_VERSION;
use crate::worker::{WORKER_PROTOCOL, WorkerConfig, WorkerError, WorkerIdentity, find_node};

/// Where `abgen build` puts the bundled render worker in every artifact.
pub const WORKER_ENTRY: &str = "runtime/worker.mjs";

/// Why an artifact's kernel cannot be configured.
#[derive(Debug, thiserror::Error)]
pub enum ArtifactKernelError {
    #[error("the artifact has no render worker at {}", .0.display())]
    NoWorker(PathBuf),
    #[error(transparent)]
    Worker(#[from] WorkerError),
}

/// The kernel configuration of the artifact at `root` with `digest`: its bundled worker on the
/// Node found now, documents bounded by `max_render_bytes`, one worker per CPU.
pub fn artifact_kernel_config(
    root: &Path,
    digest: &str,
    max_render_bytes: u64,
    hello_timeout: Duration,
) -> Result<KernelConfig, ArtifactKernelError> {
    let entry = root.join(WORKER_ENTRY);
    if !entry.is_file() {
        return Err(ArtifactKernelError::NoWorker(entry));
    }
    let worker = WorkerConfig {
        node: find_node()?,
        entry,
        expected: WorkerIdentity {
            protocol: WORKER_PROTOCOL,
            react: REACT_VERSION.to_owned(),
            artifact: digest.to_owned(),
        },
        hello_timeout,
        server: None,
    };
    let limits = DocumentLimits {
        max_bytes: usize::try_from(max_render_bytes).unwrap_or(usize::MAX),
        ..DocumentLimits::default()
    };
    Ok(KernelConfig::new(worker, limits))
}

/// How a [`SharedKernel`] is started, once.
type Start = Box<dyn Fn() -> Result<Kernel, String> + Send + Sync>;

/// A kernel started on first use, or why it could not start; every later use gets the same.
pub struct SharedKernel {
    start: Start,
    kernel: OnceLock<Result<Kernel, String>>,
    /// Bounds a refusal's document when the kernel never started.
    limits: DocumentLimits,
}

impl std::fmt::Debug for SharedKernel {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SharedKernel")
            .field("started", &self.kernel.get().is_some())
            .finish_non_exhaustive()
    }
}

impl SharedKernel {
    /// A kernel that `start` makes on first use.
    pub fn new(
        limits: DocumentLimits,
        start: impl Fn() -> Result<Kernel, String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            start: Box::new(start),
            kernel: OnceLock::new(),
            limits,
        }
    }

    /// The kernel of the artifact at `root` rendering for its MCP server `server` (`workers` of
    /// them, each started with the kernel, so the first render does not wait for Node).
    pub fn for_artifact(
        root: PathBuf,
        digest: String,
        server: String,
        max_render_bytes: u64,
        workers: usize,
        hello_timeout: Duration,
    ) -> Self {
        let limits = DocumentLimits {
            max_bytes: usize::try_from(max_render_bytes).unwrap_or(usize::MAX),
            ..DocumentLimits::default()
        };
        Self::new(limits, move || {
            let mut config =
                artifact_kernel_config(&root, &digest, max_render_bytes, hello_timeout)
                    .map_err(|error| error.to_string())?;
            config.workers = workers.max(1);
            config.start_workers_early = true;
            config.worker.server = Some(server.clone());
            Ok(Kernel::start(config))
        })
    }

    /// The kernel, started now if nobody has yet; the reason when it cannot start.
    pub fn get(&self) -> Result<&Kernel, &str> {
        self.kernel
            .get_or_init(&self.start)
            .as_ref()
            .map_err(String::as_str)
    }

    /// The bounds of every document this kernel renders (known before it starts).
    pub fn limits(&self) -> DocumentLimits {
        self.limits
    }
}
