//! Rendering one request on a kernel started for it alone (`abgen-host render`, and the hook
//! fallback `standalone`): find Node, start a one-worker kernel, render, stop it.
//!
//! Entry: [`render_once`]. Invariant: everything — Node's start, the hello, the render — fits
//! before `deadline`; the kernel, and its worker, are gone when this returns, whatever happened.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use abgen_runtime::document::{Document, RenderEvent, RenderEventKind};
use abgen_runtime::kernel::{
    ArtifactKernelError, Cancel, Invocation, Kernel, KernelError, artifact_kernel_config,
};
use abgen_runtime::manifest::Manifest;

/// The artifact a standalone render runs in.
#[derive(Debug, Clone)]
pub struct Artifact {
    pub root: PathBuf,
    /// The manifest's digest; the worker's hello must name it.
    pub digest: String,
    /// The most Flight bytes one render may produce.
    pub max_bytes: u64,
    /// The MCP server of each route that has one, by route id: its render's worker applies
    /// that server's declared `env` defaults.
    pub servers: BTreeMap<String, String>,
}

impl Artifact {
    /// The artifact at `root` that `manifest` describes.
    pub fn of(root: PathBuf, manifest: &Manifest) -> Self {
        Self {
            root,
            digest: manifest.digest.clone(),
            max_bytes: manifest.limits.render.max_bytes,
            servers: manifest
                .routes
                .iter()
                .filter_map(|route| Some((route.id.clone(), route.server.clone()?)))
                .collect(),
        }
    }
}

/// Why nothing was rendered.
#[derive(Debug, thiserror::Error)]
pub enum StandaloneError {
    #[error(transparent)]
    Artifact(#[from] ArtifactKernelError),
    #[error(transparent)]
    Kernel(#[from] KernelError),
}

/// The events of one render; the last is always `complete` (failed when the worker broke, its
/// error in the document).
pub struct Rendered {
    pub events: Vec<RenderEvent>,
}

impl Rendered {
    /// The final document.
    pub fn document(&self) -> Option<&Document> {
        self.events
            .iter()
            .rev()
            .find_map(|event| match &event.kind {
                RenderEventKind::Complete { document } => Some(document),
                _ => None,
            })
    }
}

/// Starts a one-worker kernel for the artifact, renders `invocation`, and stops the kernel, all
/// before `deadline`.
pub fn render_once(
    artifact: &Artifact,
    invocation: Invocation,
    deadline: Instant,
) -> Result<Rendered, StandaloneError> {
    render_streaming(artifact, invocation, deadline, &mut |_| {})
}

/// [`render_once`], handing each event to `on_event` as it arrives (a terminal's live line).
pub fn render_streaming(
    artifact: &Artifact,
    invocation: Invocation,
    deadline: Instant,
    on_event: &mut dyn FnMut(&RenderEvent),
) -> Result<Rendered, StandaloneError> {
    let mut config = artifact_kernel_config(
        &artifact.root,
        &artifact.digest,
        artifact.max_bytes,
        remaining(deadline),
    )?;
    config.workers = 1;
    config.queue_capacity = 1;
    config.worker.server = artifact.servers.get(&invocation.route).cloned();
    let kernel = Kernel::start(config);
    let rendering = kernel.render(invocation, Cancel::new(), deadline)?;
    let mut events = Vec::new();
    for event in rendering {
        on_event(&event);
        events.push(event);
    }
    Ok(Rendered { events })
}

/// The time left before `deadline` (zero once it has passed).
pub fn remaining(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}
