//! An epoch's own copy of its artifact, so that `abgen dev` rebuilding the output in place
//! cannot change what an epoch's runtime reads after it started: a worker that starts again
//! for an epoch the host still holds (a crash, an abort past its grace, an idle worker
//! replaced) loads that epoch's `runtime/worker.mjs` and documents, not the newest build's.
//! Entry: [`pin_artifact`]; [`remove_stale_pins`] clears what a proxy that was killed left.
//!
//! A pin is `<root>/.agent-bundle/dev/epochs/<digest>.<pid>.<n>`: every file of the artifact's
//! file table, then its manifest, hard-linked (copied where the output is on another file
//! system). The build never writes a file of an artifact in place (a changed file is a new
//! file in a staged tree swapped in whole), so a link is the file as that epoch had it.
//!
//! Invariant: a pin is one epoch, whole. The output is opened once and every file is reached
//! from that directory handle, so a swap during the copy cannot mix two builds: the handle
//! stays on the tree it opened, and when that tree is removed under it, or its manifest is not
//! the epoch asked for, the pin fails with [`PinFailure::Changed`] and leaves nothing behind.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use abgen_runtime::manifest::{FileEntry, MANIFEST_FILE_NAME};
use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, CWD, Mode, OFlags};

use super::lock::process_alive;

/// `<root>/.agent-bundle/dev/epochs`: where the proxies of a project keep their pins.
pub fn epochs_dir(root: &Path) -> PathBuf {
    root.join(".agent-bundle").join("dev").join("epochs")
}

/// One epoch's copy of its artifact; removed when dropped (after the runtime reading it).
#[derive(Debug)]
pub struct PinnedArtifact {
    dir: PathBuf,
}

impl PinnedArtifact {
    /// The pinned artifact's root.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for PinnedArtifact {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Why an artifact could not be pinned.
#[derive(Debug)]
pub enum PinFailure {
    /// The output holds another epoch than the one asked for, or its tree went away during
    /// the copy: a newer build is in place (read the lock again).
    Changed,
    /// The output is not an artifact that can be read, or the pin cannot be written.
    Failed(String),
}

/// Pins the artifact at `out`, which must be epoch `digest`, under `epochs`.
pub fn pin_artifact(out: &Path, digest: &str, epochs: &Path) -> Result<PinnedArtifact, PinFailure> {
    static PINS: AtomicU64 = AtomicU64::new(0);
    let tree = rustix::fs::open(
        out,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|error| {
        PinFailure::Failed(format!(
            "its artifact is no longer at {}: {error}",
            out.display()
        ))
    })?;
    let manifest = pinned_manifest(&tree)?;
    if manifest.digest != digest {
        return Err(PinFailure::Changed);
    }
    let name = format!(
        "{digest}.{}.{}",
        std::process::id(),
        PINS.fetch_add(1, Ordering::Relaxed)
    );
    let pin = PinnedArtifact {
        dir: epochs.join(name),
    };
    let failed = |what: &str, error: io::Error| {
        PinFailure::Failed(format!(
            "its artifact could not be copied to {} ({what}): {error}",
            epochs.display()
        ))
    };
    fs::create_dir_all(&pin.dir).map_err(|error| failed("the folder", error))?;
    let manifest_entry = FileEntry {
        path: MANIFEST_FILE_NAME.to_owned(),
        sha256: String::new(),
        mode: 0o644,
    };
    // The manifest last: a pin with a manifest is complete, as an artifact is.
    for entry in manifest.files.iter().chain([&manifest_entry]) {
        let Some(relative) = safe_relative(&entry.path) else {
            return Err(PinFailure::Failed(format!(
                "its file table lists `{}`, which is not a path inside the artifact",
                entry.path
            )));
        };
        let target = pin.dir.join(relative);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|error| failed(&entry.path, error))?;
        }
        match rustix::fs::linkat(&tree, relative, CWD, &target, AtFlags::empty()) {
            Ok(()) => {}
            Err(rustix::io::Errno::NOENT) => return Err(PinFailure::Changed),
            Err(rustix::io::Errno::XDEV | rustix::io::Errno::PERM) => {
                copy_file(&tree, relative, &target, entry.mode).map_err(|error| {
                    if error.kind() == io::ErrorKind::NotFound {
                        PinFailure::Changed
                    } else {
                        failed(&entry.path, error)
                    }
                })?;
            }
            Err(error) => return Err(failed(&entry.path, error.into())),
        }
    }
    Ok(pin)
}

/// Removes the pins under `epochs` whose proxy is no longer running (one killed before it
/// could remove its own). Only names of the pin form are touched.
pub fn remove_stale_pins(epochs: &Path) {
    let Ok(entries) = fs::read_dir(epochs) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(pin_owner) else {
            continue;
        };
        if pid != std::process::id() && !process_alive(pid) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// The pid in a pin's name `<64 hex digits>.<pid>.<n>`.
fn pin_owner(name: &str) -> Option<u32> {
    let mut parts = name.split('.');
    let (digest, pid, n) = (parts.next()?, parts.next()?, parts.next()?);
    let is_hex = |text: &str| text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit());
    (parts.next().is_none() && is_hex(digest) && n.parse::<u64>().is_ok())
        .then(|| pid.parse().ok())
        .flatten()
}

#[derive(serde::Deserialize)]
struct PinnedManifest {
    digest: String,
    files: Vec<FileEntry>,
}

/// The digest and file table of the manifest in `tree`.
fn pinned_manifest(tree: &OwnedFd) -> Result<PinnedManifest, PinFailure> {
    let file = rustix::fs::openat(
        tree,
        MANIFEST_FILE_NAME,
        OFlags::RDONLY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|error| match error {
        // The tree is being removed, or is not yet complete.
        rustix::io::Errno::NOENT => PinFailure::Changed,
        error => PinFailure::Failed(format!("its manifest cannot be read: {error}")),
    })?;
    serde_json::from_reader(io::BufReader::new(File::from(file)))
        .map_err(|error| PinFailure::Failed(format!("its manifest cannot be read: {error}")))
}

/// `path` as a relative path that stays inside the artifact (no `..`, not absolute).
fn safe_relative(path: &str) -> Option<&Path> {
    let relative = Path::new(path);
    relative
        .components()
        .all(|component| matches!(component, std::path::Component::Normal(_)))
        .then_some(relative)
}

fn copy_file(tree: &OwnedFd, relative: &Path, target: &Path, mode: u32) -> io::Result<()> {
    let source = rustix::fs::openat(
        tree,
        relative,
        OFlags::RDONLY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let mut source = File::from(source);
    let mut copy = File::create(target)?;
    io::copy(&mut source, &mut copy)?;
    copy.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(test)]
#[path = "epoch_tests.rs"]
mod tests;
