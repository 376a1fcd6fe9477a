//! What a bundling script produced, kept for the next build of the same project, with the files
//! the bundler read to produce it. Entry: [`ScriptCache`], handed to [`super::run_node_script`]'s
//! callers by a watch loop (`crate::dev`); a one-off build passes none.
//!
//! Invariant: a kept output is reused only when the script, its request and the content of every
//! file the bundler read are what they were. A project file is compared by its bytes (not read
//! again while it keeps the settled stamp it had when they were hashed, [`crate::stamp`]); a file
//! under `node_modules/` (React, the runtime package: large, and changed only by an install) by
//! its length and modification time.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::SystemTime;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::esbuild::NodeRun;
use super::served::ServedBundler;
use crate::stamp::FileStamp;
use crate::sync::lock;

/// The marker of the line a bundling script writes last on standard error: the JSON list of the
/// files its bundler read (esbuild's metafile inputs, relative to the working directory).
pub(crate) const INPUTS_MARKER: &str = "abgen-inputs:";

/// The files at the project root that decide how imports resolve (tsconfig `paths`, package
/// `imports` and the lockfile of what is installed): a change to one may change any bundle.
const RESOLUTION_FILES: &[&str] = &[
    "tsconfig.json",
    "jsconfig.json",
    "package.json",
    "package-lock.json",
];

/// Kept outputs of bundling scripts, by script and request, and the served bundler that
/// rebuilds a changed bundle incrementally.
#[derive(Debug, Default)]
pub struct ScriptCache {
    entries: Mutex<HashMap<[u8; 32], Kept>>,
    served: ServedBundler,
    /// The last render worker request, run again ahead of the next build (see
    /// [`ScriptCache::prefetch_worker`]).
    last_worker: Mutex<Option<WorkerRun>>,
    prefetched: Mutex<Prefetch>,
    prefetch_done: Condvar,
}

/// A request to the bundling script: its key and payload.
#[derive(Clone, Debug)]
pub(crate) struct WorkerRun {
    pub key: [u8; 32],
    pub script: &'static str,
    pub payload: serde_json::Value,
    pub working_dir: PathBuf,
}

/// The render worker's bundle made ahead of the build that asks for it.
#[derive(Debug, Default)]
enum Prefetch {
    #[default]
    None,
    Running,
    Done([u8; 32], NodeRun),
}

#[derive(Debug)]
struct Kept {
    stdout: Arc<[u8]>,
    inputs: Vec<(PathBuf, Fingerprint)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Fingerprint {
    /// A project file's sha256, and its settled stamp taken before it was read.
    Bytes {
        sha256: [u8; 32],
        stamp: Option<FileStamp>,
    },
    Stat {
        len: u64,
        modified: Option<SystemTime>,
    },
    Missing,
}

impl ScriptCache {
    /// The key of one run: the script and its request.
    pub(crate) fn key(script: &str, payload: &serde_json::Value) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(script.as_bytes());
        hasher.update([0]);
        hasher.update(serde_json::to_vec(payload).unwrap_or_default());
        hasher.finalize().into()
    }

    /// The kept standard output of the run `key`, when every file it read is unchanged.
    pub(crate) fn get(&self, key: &[u8; 32]) -> Option<Arc<[u8]>> {
        let entries = lock(&self.entries);
        let kept = entries.get(key)?;
        let unchanged = kept
            .inputs
            .iter()
            .all(|(path, fingerprint)| fingerprint.still_holds(path));
        unchanged.then(|| Arc::clone(&kept.stdout))
    }

    /// Keeps the standard output of a completed run `key`, which read `inputs` (relative to
    /// `working_dir`). The project's [`RESOLUTION_FILES`] count as inputs too: esbuild reads
    /// them to resolve imports, and its metafile does not name them.
    /// A project file that kept the settled stamp it had when the run before hashed it is not
    /// read again.
    pub(crate) fn keep(
        &self,
        key: [u8; 32],
        stdout: Arc<[u8]>,
        working_dir: &Path,
        inputs: &[String],
    ) {
        let mut entries = lock(&self.entries);
        let before: HashMap<&Path, &Fingerprint> = entries
            .get(&key)
            .map(|kept| {
                kept.inputs
                    .iter()
                    .map(|(path, fingerprint)| (path.as_path(), fingerprint))
                    .collect()
            })
            .unwrap_or_default();
        let paths: Vec<PathBuf> = inputs
            .iter()
            .map(String::as_str)
            .chain(RESOLUTION_FILES.iter().copied())
            .map(|input| working_dir.join(input))
            .collect();
        let inputs = paths
            .into_par_iter()
            .map(|path| {
                let fingerprint = match before.get(path.as_path()) {
                    Some(kept) if kept.holds_by_stamp(&path) => (*kept).clone(),
                    _ => fingerprint_of(&path),
                };
                (path, fingerprint)
            })
            .collect();
        drop(before);
        entries.insert(key, Kept { stdout, inputs });
    }

    /// Remembers `run`, the render worker's request, for [`ScriptCache::prefetch_worker`].
    pub(crate) fn remember_worker(&self, run: WorkerRun) {
        *lock(&self.last_worker) = Some(run);
    }

    /// Claims the prefetch of the next build: the last worker request, if any. Called before
    /// [`ScriptCache::prefetch_worker`] is started, so the build's own request waits for it
    /// rather than running beside it.
    pub(crate) fn claim_prefetch(&self) -> Option<WorkerRun> {
        self.discard_prefetch();
        let run = lock(&self.last_worker).clone()?;
        *lock(&self.prefetched) = Prefetch::Running;
        Some(run)
    }

    /// Runs the claimed request on the served bundler while the build checks the project,
    /// when its kept bundle is stale (a file it read changed): a change that leaves the worker
    /// entry as it was (any change but to the set of routes, providers and layouts) then finds
    /// its bundle made by the time it asks. The build's request takes it with
    /// [`ScriptCache::take_prefetched`] when it is the same request.
    pub(crate) fn prefetch_worker(&self, run: &WorkerRun) {
        /// Ends the prefetch however the thread ends (a panic too), so a request waiting in
        /// [`ScriptCache::take_prefetched`] is never left waiting.
        struct Finish<'a>(&'a ScriptCache, Prefetch);
        impl Drop for Finish<'_> {
            fn drop(&mut self) {
                *lock(&self.0.prefetched) = std::mem::take(&mut self.1);
                self.0.prefetch_done.notify_all();
            }
        }
        let mut finish = Finish(self, Prefetch::None);
        if self.get(&run.key).is_none()
            && let Some(answer) = self.served.run(run.script, &run.payload, &run.working_dir)
        {
            finish.1 = Prefetch::Done(run.key, answer);
        }
    }

    /// Forgets a prefetched answer the build did not take (it ended before asking, or asked
    /// another request), so no later build can take an answer made for an earlier one.
    pub(crate) fn discard_prefetch(&self) {
        *lock(&self.prefetched) = Prefetch::None;
    }

    /// The prefetched answer to the request `key`, waiting for a prefetch still running; none
    /// when there is none, or it answered another request.
    pub(crate) fn take_prefetched(&self, key: &[u8; 32]) -> Option<NodeRun> {
        let mut prefetched = lock(&self.prefetched);
        while matches!(*prefetched, Prefetch::Running) {
            prefetched = self
                .prefetch_done
                .wait(prefetched)
                .unwrap_or_else(|poison| poison.into_inner());
        }
        if !matches!(&*prefetched, Prefetch::Done(done, _) if done == key) {
            return None;
        }
        match std::mem::take(&mut *prefetched) {
            Prefetch::Done(_, answer) => Some(answer),
            _ => None,
        }
    }

    /// The long-lived bundling process of this cache's builds (started on first use, ended
    /// when the cache is dropped).
    pub fn served(&self) -> &ServedBundler {
        &self.served
    }

    /// How many outputs are kept.
    pub fn len(&self) -> usize {
        self.entries.lock().map_or(0, |entries| entries.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The files a script's standard error names on its last [`INPUTS_MARKER`] line, if any: the
/// bundler's inputs that are files (not `<stdin>` or a namespaced virtual module).
pub(crate) fn reported_inputs(stderr: &str) -> Option<Vec<String>> {
    let line = stderr
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix(INPUTS_MARKER))?;
    let inputs: Vec<String> = serde_json::from_str(line).ok()?;
    Some(
        inputs
            .into_iter()
            .filter(|input| !input.starts_with('<') && !input.contains(':'))
            .collect(),
    )
}

/// Standard error without the [`INPUTS_MARKER`] line, for messages a reader sees.
pub(crate) fn without_inputs_line(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|line| !line.starts_with(INPUTS_MARKER))
        .map(|line| format!("{line}\n"))
        .collect()
}

impl Fingerprint {
    /// Whether the file at `path` still has this fingerprint: a project file with its recorded
    /// settled stamp is not read again.
    fn still_holds(&self, path: &Path) -> bool {
        if self.holds_by_stamp(path) {
            return true;
        }
        match (self, fingerprint_of(path)) {
            (Fingerprint::Bytes { sha256, .. }, Fingerprint::Bytes { sha256: now, .. }) => {
                *sha256 == now
            }
            (kept, now) => *kept == now,
        }
    }

    /// Whether this is a project file's fingerprint whose settled stamp the file at `path`
    /// still has: its bytes are the ones hashed, without reading them.
    fn holds_by_stamp(&self, path: &Path) -> bool {
        matches!(
            self,
            Fingerprint::Bytes { stamp: Some(stamp), .. } if FileStamp::of(path) == Some(*stamp)
        )
    }
}

fn fingerprint_of(path: &Path) -> Fingerprint {
    let in_packages = path
        .components()
        .any(|component| component.as_os_str() == "node_modules");
    if in_packages {
        return match std::fs::metadata(path) {
            Ok(metadata) => Fingerprint::Stat {
                len: metadata.len(),
                modified: metadata.modified().ok(),
            },
            Err(_) => Fingerprint::Missing,
        };
    }
    let stamp = FileStamp::settled_of(path);
    match std::fs::read(path) {
        Ok(bytes) => Fingerprint::Bytes {
            sha256: Sha256::digest(&bytes).into(),
            stamp,
        },
        Err(_) => Fingerprint::Missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_is_reused_only_while_every_input_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.ts"), "export const a = 1;\n").unwrap();
        let cache = ScriptCache::default();
        let key = ScriptCache::key("script", &serde_json::json!({ "entry": "a" }));
        assert_eq!(cache.get(&key), None);
        cache.keep(
            key,
            Arc::from(&b"bundle"[..]),
            dir.path(),
            &["a.ts".to_owned()],
        );
        assert_eq!(cache.get(&key).as_deref(), Some(&b"bundle"[..]));
        let other = ScriptCache::key("script", &serde_json::json!({ "entry": "b" }));
        assert_eq!(cache.get(&other), None, "another request is another run");
        std::fs::write(dir.path().join("a.ts"), "export const a = 2;\n").unwrap();
        assert_eq!(cache.get(&key), None, "a changed input");
        std::fs::remove_file(dir.path().join("a.ts")).unwrap();
        assert_eq!(cache.get(&key), None, "a deleted input");
        cache.keep(key, Arc::from(&b"bundle"[..]), dir.path(), &[]);
        assert_eq!(cache.get(&key).as_deref(), Some(&b"bundle"[..]));
        std::fs::write(dir.path().join("tsconfig.json"), "{}\n").unwrap();
        assert_eq!(
            cache.get(&key),
            None,
            "a tsconfig.json that decides resolution"
        );
    }

    #[test]
    fn a_prefetch_that_fails_leaves_no_request_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ScriptCache::default();
        // The served bundler's Node process exits at once: no answer.
        cache.remember_worker(WorkerRun {
            key: [7; 32],
            script: "process.exit(3);",
            payload: serde_json::json!({ "entry": "" }),
            working_dir: dir.path().to_owned(),
        });
        let claimed = cache.claim_prefetch().expect("a last request");
        std::thread::scope(|scope| {
            scope.spawn(|| cache.prefetch_worker(&claimed));
            assert!(cache.take_prefetched(&[7; 32]).is_none());
        });
        assert!(
            cache.take_prefetched(&[7; 32]).is_none(),
            "nothing left running"
        );
    }

    #[test]
    fn the_inputs_line_is_the_last_marked_line() {
        let stderr = "(node) a warning\nabgen-inputs:[\"old\"]\nabgen-inputs:[\"src/a.ts\",\"<stdin>\",\"(disabled):fs\"]\n";
        assert_eq!(reported_inputs(stderr), Some(vec!["src/a.ts".to_owned()]));
        assert_eq!(reported_inputs("no marker\n"), None);
        assert_eq!(without_inputs_line(stderr), "(node) a warning\n");
    }
}
