//! The watch loop: one build, then a rebuild after every quiet moment that follows a change of
//! the project's files. The rebuilds share one [`BuildCache`], so each redoes only what the
//! change reaches: the extraction of the files whose text changed, and the bundles and App
//! documents whose inputs changed; everything else is taken from the build before.
//!
//! A failed rebuild writes nothing: the build stages the artifact beside the output and swaps it
//! in whole only once it is verified (`emit::stage`), so the output keeps the last good
//! artifact, and the next successful rebuild replaces it.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher};

use crate::apps::AppProfile;
use crate::diagnostics::Diagnostic;
use crate::emit::{BuildCache, BuildFailure, BuildOptions, BuildReturn, build_project_reusing};

/// The longest a rebuild waits behind a stream of changes that never goes quiet.
pub const MAX_DEBOUNCE: Duration = Duration::from_millis(300);
/// How long a change that is known complete (a file closed after writing, or renamed into
/// place) must be quiet before the rebuild: long enough to gather the other files of one save,
/// where a change still being written waits the whole debounce.
pub const COMPLETE_QUIET: Duration = Duration::from_millis(2);
/// The longest the loop waits for anything before it looks at its stop signals again.
pub const POLL_INTERVAL: Duration = Duration::from_millis(50);

/// Folders at the project root that are never inputs: packages, version control, what abgen
/// writes itself.
const NOT_INPUTS: &[&str] = &["node_modules", ".git", ".agent-bundle"];

/// What to build and how long a change must be quiet before the rebuild.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    pub build: BuildOptions,
    /// Development (`abgen dev`) or production (`abgen build --watch`) App documents.
    pub profile: AppProfile,
    /// How long after the last change the rebuild starts (editors write a file in several
    /// steps); at most [`MAX_DEBOUNCE`] after the first, and [`COMPLETE_QUIET`] (if shorter)
    /// when the last change is known complete ([`completes_a_write`]).
    pub debounce: Duration,
}

/// One build's result, as the watch loop reports it.
pub type WatchOutcome = Result<BuildReturn, BuildFailure>;

/// What the loop hands its caller after every build.
pub struct WatchReport<'a> {
    pub outcome: &'a WatchOutcome,
    /// From the first change seen (the start, for the first build) to the artifact in place.
    pub elapsed: Duration,
    /// The first build of the loop.
    pub first: bool,
    /// This build's diagnostics differ from the previous build's (always true for the first):
    /// the caller prints diagnostics only when they change.
    pub diagnostics_changed: bool,
    /// The project files whose change started this build, sorted (empty for the first).
    pub changed: &'a [PathBuf],
}

/// Builds the project, then rebuilds it after each change until `stop` says so. `report` is
/// called after every build; an error it returns ends the loop (a closed standard output).
/// Errors are abgen's own: the watcher could not be set up.
pub fn watch_project(
    options: &WatchOptions,
    stop: &mut dyn FnMut() -> bool,
    report: &mut dyn FnMut(WatchReport<'_>) -> std::io::Result<()>,
) -> Result<(), WatchError> {
    let root = options
        .build
        .root
        .canonicalize()
        .map_err(|source| WatchError::Root {
            root: options.build.root.clone(),
            source,
        })?;
    let out = options
        .build
        .out
        .clone()
        .unwrap_or_else(|| options.build.root.join("artifact"));
    let inputs = ProjectInputs::new(&root, &out);
    let (sender, events) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event| {
        // The loop has ended when the receiver is gone; nothing is left to tell.
        let _ = sender.send(event);
    })
    .map_err(WatchError::Watcher)?;
    // Watching starts before the first build, so a change made while it runs is not missed.
    inputs.watch(&mut watcher)?;

    let cache = BuildCache::default();
    let mut build_options = options.build.clone();
    build_options.root = root.clone();
    let mut previous: Option<Vec<Diagnostic>> = None;
    let mut run = |started: Instant, changed: &[PathBuf], first: bool| {
        let outcome = build_project_reusing(&build_options, options.profile, Some(&cache));
        let diagnostics = match &outcome {
            Ok(built) => built.diagnostics.clone(),
            Err(failure) => failure.diagnostics(),
        };
        let diagnostics_changed = previous.as_ref() != Some(&diagnostics);
        previous = Some(diagnostics);
        let reported = report(WatchReport {
            outcome: &outcome,
            elapsed: started.elapsed(),
            first,
            diagnostics_changed,
            changed,
        });
        // What the build replaced goes after the report, so it does not delay it.
        cache.emit.remove_previous();
        reported
    };
    run(Instant::now(), &[], true).map_err(WatchError::Report)?;

    let mut pending: Vec<PathBuf> = Vec::new();
    let mut first_change: Option<Instant> = None;
    let mut last_change = Instant::now();
    // How long the last change must be quiet: shorter once it is known complete.
    let mut quiet_for = options.debounce;
    loop {
        if stop() {
            break;
        }
        let wait = match first_change {
            Some(first) => {
                let quiet = quiet_for.saturating_sub(last_change.elapsed());
                let cap = MAX_DEBOUNCE.saturating_sub(first.elapsed());
                quiet.min(cap).min(POLL_INTERVAL)
            }
            None => POLL_INTERVAL,
        };
        match events.recv_timeout(wait) {
            Ok(Ok(event)) => {
                let relevant: Vec<PathBuf> = event
                    .paths
                    .into_iter()
                    .filter(|path| is_change(&event.kind) && inputs.is_input(path))
                    .collect();
                if !relevant.is_empty() {
                    last_change = Instant::now();
                    first_change.get_or_insert(last_change);
                    pending.extend(relevant);
                    quiet_for = if completes_a_write(&event.kind) {
                        options.debounce.min(COMPLETE_QUIET)
                    } else {
                        options.debounce
                    };
                }
                continue;
            }
            // A lost event (an overflowed kernel queue): rebuild, since anything may have changed.
            Ok(Err(_)) => {
                last_change = Instant::now();
                first_change.get_or_insert(last_change);
                quiet_for = options.debounce;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        let Some(first) = first_change else { continue };
        let quiet = last_change.elapsed() >= quiet_for;
        if quiet || first.elapsed() >= MAX_DEBOUNCE {
            pending.sort();
            pending.dedup();
            let changed = std::mem::take(&mut pending);
            first_change = None;
            run(first, &changed, false).map_err(WatchError::Report)?;
        }
    }
    drop(watcher);
    Ok(())
}

/// Why the watch loop could not run.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("cannot watch the project root {}: {source}", root.display())]
    Root {
        root: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot watch the project's files: {0}")]
    Watcher(notify::Error),
    #[error("cannot report a build: {0}")]
    Report(std::io::Error),
}

impl WatchError {
    /// The standard-output error that ended the loop, if that is what ended it.
    pub fn report_error(&self) -> Option<&std::io::Error> {
        match self {
            WatchError::Report(error) => Some(error),
            _ => None,
        }
    }
}

/// Whether an event says a file's content, name or existence changed (not that it was read).
fn is_change(kind: &EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode, MetadataKind, ModifyKind};
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Any | EventKind::Other => true,
        EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
    }
}

/// Whether an event says a write is complete: the file was closed after writing, renamed into
/// place (how editors that save atomically write), or removed. Any other change may be the
/// first step of several.
fn completes_a_write(kind: &EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode, ModifyKind, RenameMode};
    matches!(
        kind,
        EventKind::Access(AccessKind::Close(AccessMode::Write))
            | EventKind::Modify(ModifyKind::Name(RenameMode::To | RenameMode::Both))
            | EventKind::Remove(_)
    )
}

/// Which paths of the project are inputs of its build: everything under the root but the output,
/// the build's own siblings of it (staging, the lock), and [`NOT_INPUTS`].
struct ProjectInputs {
    root: PathBuf,
    out: PathBuf,
    /// `.<out>.abgen-`: the prefix of the staging folder, the aside folder and the lock.
    sibling_prefix: String,
}

impl ProjectInputs {
    fn new(root: &Path, out: &Path) -> Self {
        let out = resolved(out);
        let name = out
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        Self {
            root: root.to_owned(),
            sibling_prefix: format!(".{name}.abgen-"),
            out,
        }
    }

    /// Watches the root itself (its config and package files) and every folder in it that may
    /// hold inputs, recursively: never `node_modules`, whose thousands of folders would exhaust
    /// the watches a user may hold. A folder created at the root later is not watched.
    fn watch(&self, watcher: &mut impl Watcher) -> Result<(), WatchError> {
        watcher
            .watch(&self.root, RecursiveMode::NonRecursive)
            .map_err(WatchError::Watcher)?;
        let entries = std::fs::read_dir(&self.root).map_err(|source| WatchError::Root {
            root: self.root.clone(),
            source,
        })?;
        for entry in entries.flatten() {
            let path = entry.path();
            let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
            if is_dir && self.is_input(&path) {
                watcher
                    .watch(&path, RecursiveMode::Recursive)
                    .map_err(WatchError::Watcher)?;
            }
        }
        Ok(())
    }

    fn is_input(&self, path: &Path) -> bool {
        let Ok(relative) = path.strip_prefix(&self.root) else {
            return false;
        };
        if path.starts_with(&self.out) {
            return false;
        }
        let first = relative
            .components()
            .next()
            .map(|component| component.as_os_str().to_string_lossy());
        if first.is_some_and(|first| {
            NOT_INPUTS.contains(&first.as_ref()) || first.starts_with(&self.sibling_prefix)
        }) {
            return false;
        }
        !path
            .file_name()
            .is_some_and(|name| name.to_string_lossy().starts_with(&self.sibling_prefix))
    }
}

/// `path` with its folder canonicalized (the output may not exist yet).
fn resolved(path: &Path) -> PathBuf {
    if let Ok(path) = path.canonicalize() {
        return path;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => parent
            .canonicalize()
            .map_or_else(|_| path.to_owned(), |parent| parent.join(name)),
        _ => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_its_siblings_and_packages_are_not_inputs() {
        let inputs = ProjectInputs {
            root: PathBuf::from("/p"),
            out: PathBuf::from("/p/artifact"),
            sibling_prefix: ".artifact.abgen-".to_owned(),
        };
        assert!(inputs.is_input(Path::new("/p/src/mcp/a/tools/t.tsx")));
        assert!(inputs.is_input(Path::new("/p/agent-bundle.config.ts")));
        assert!(inputs.is_input(Path::new("/p/lib/util.ts")));
        for path in [
            "/p/artifact/abgen.manifest.json",
            "/p/.artifact.abgen-lock",
            "/p/.artifact.abgen-stage-1/bin/abgen-host",
            "/p/node_modules/react/index.js",
            "/p/.agent-bundle/routes.d.ts",
            "/p/.git/index",
            "/elsewhere/src/a.ts",
        ] {
            assert!(!inputs.is_input(Path::new(path)), "{path}");
        }
    }

    #[test]
    fn a_write_ends_with_an_event_that_says_it_is_complete() {
        use notify::event::{DataChange, ModifyKind};
        let dir = tempfile::tempdir().unwrap();
        let (sender, events) = mpsc::channel();
        let mut watcher = notify::recommended_watcher(move |event| {
            let _ = sender.send(event);
        })
        .unwrap();
        watcher
            .watch(dir.path(), RecursiveMode::NonRecursive)
            .unwrap();
        std::fs::write(dir.path().join("a.ts"), "export {};\n").unwrap();
        let mut kinds = Vec::new();
        while let Ok(Ok(event)) = events.recv_timeout(Duration::from_millis(500)) {
            kinds.push(event.kind);
            if completes_a_write(&event.kind) {
                break;
            }
        }
        assert!(
            kinds.last().is_some_and(completes_a_write),
            "no event said the write was complete: {kinds:?}"
        );
        assert!(!completes_a_write(&EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(!completes_a_write(&EventKind::Create(
            notify::event::CreateKind::File
        )));
    }
}
