//! What one emit keeps for the next emit of the same output in a watch loop, so that a rebuild
//! writes and hashes only the files that changed. Entry: [`EmitCache`], held by
//! [`super::BuildCache`]; a one-off build passes none and does every step in full.
//!
//! Kept: the bytes and sha256 of every file of the previous plan (a planned file with the same
//! bytes takes its digest from there), each shipped binary by its path, length and modification
//! time (read and hashed once), and the artifact in place after the last swap: each file's
//! digest, mode and [`FileStamp`]. Staging links a file of the output into the new tree instead
//! of writing it again when its planned digest and mode are the ones in place and the file on
//! disk still has the stamp recorded when it was put there; the ownership check takes a file's
//! digest from there when its stamp is unchanged. Also kept: each route of the manifest in
//! place with its canonical text, so a rebuild serialises and schema-checks only the routes
//! that changed ([`EmitCache::kept_fragment`]).
//!
//! Invariant: a kept fact is used only for a file whose stamp is the one recorded, and a stamp
//! is recorded only for a file abgen itself put in place and verified. The stamp holds the
//! inode's change time, which every write, `chmod` or `touch` sets and no one can set back, so an
//! edited file is always hashed again.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use abgen_runtime::manifest::{ProfileSchema, Route, SchemaProjection};
use serde_json::Value;

use super::error::EmitError;
use super::plan::{FilePlan, sha256_hex};
pub(super) use crate::stamp::FileStamp;

/// One file of the artifact in place.
#[derive(Clone, Debug)]
pub(super) struct PlacedFile {
    pub sha256: String,
    pub mode: u32,
    pub stamp: FileStamp,
}

/// The artifact the last swap put in place.
#[derive(Clone, Debug)]
pub(super) struct InPlace {
    pub out: PathBuf,
    pub manifest: FileStamp,
    pub files: BTreeMap<String, PlacedFile>,
}

impl InPlace {
    /// The digest of `relative` in `out` when it is the file abgen put there, unchanged.
    pub(super) fn digest(&self, out: &Path, relative: &str) -> Option<&str> {
        let placed = self.files.get(relative)?;
        (self.out == out && FileStamp::of(&out.join(relative)) == Some(placed.stamp))
            .then_some(placed.sha256.as_str())
    }

    /// The file table of the manifest in `out` when it is the one abgen put there, unchanged.
    pub(super) fn file_table(&self, out: &Path) -> Option<BTreeMap<String, String>> {
        let manifest = out.join(abgen_runtime::manifest::MANIFEST_FILE_NAME);
        (self.out == out && FileStamp::of(&manifest) == Some(self.manifest)).then(|| {
            self.files
                .iter()
                .map(|(path, placed)| (path.clone(), placed.sha256.clone()))
                .collect()
        })
    }
}

#[derive(Debug)]
struct KeptBinary {
    len: u64,
    modified: Option<std::time::SystemTime>,
    bytes: Arc<[u8]>,
}

/// A route of a verified manifest, with its canonical text there.
#[derive(Debug)]
struct KeptRoute {
    route: Route,
    fragment: Arc<str>,
}

/// A route of the manifest being staged, for [`EmitCache::stage_manifest`]: one whose text the
/// cache gave (by id), or one written now, whole, with its text.
#[derive(Debug)]
pub(super) enum StagedRoute {
    Kept(String),
    Written(Box<Route>, Arc<str>),
}

/// What the schema check of a staged manifest covers: the manifest with no routes. Each route
/// whose fragment was written for it was checked in the task that wrote it
/// (`stage::check_written_route`), a kept fragment belongs to a route that passed the check in
/// a manifest verified before, and the manifest schema judges each route alone (see
/// [`super::stage`]), so the verdict is that of checking the whole manifest.
#[derive(Debug)]
pub(super) struct ManifestCheck<'a> {
    pub without_routes: &'a Value,
}

#[derive(Debug, Default)]
struct State {
    binaries: HashMap<PathBuf, KeptBinary>,
    /// The previous plan's bytes and digest of each file, by artifact path.
    digests: HashMap<String, (Arc<[u8]>, String)>,
    in_place: Option<InPlace>,
    /// Each route of the manifest in place, by id.
    routes: HashMap<String, Arc<KeptRoute>>,
    /// The routes of the manifest being staged, kept once it is verified and in place.
    pending: Option<HashMap<String, Arc<KeptRoute>>>,
    /// The directory holding the artifact the last swap replaced, still to be removed.
    previous: Option<PathBuf>,
}

/// What emits of one output keep for the next (see the module doc).
#[derive(Debug, Default)]
pub struct EmitCache {
    state: Mutex<State>,
}

impl EmitCache {
    fn state(&self) -> MutexGuard<'_, State> {
        crate::sync::lock(&self.state)
    }

    /// Records the directory holding the artifact a swap replaced, removed by
    /// [`EmitCache::remove_previous`] (or when the cache is dropped).
    pub(super) fn set_previous(&self, previous: Option<PathBuf>) {
        let earlier = std::mem::replace(&mut self.state().previous, previous);
        if let Some(earlier) = earlier {
            let _ = super::stage::remove_artifact(&earlier);
        }
    }

    /// Removes the artifact the last swap replaced: a watch loop calls it once it has reported
    /// the build, so the removal is not part of the time to the new artifact. A failure is left
    /// to the next build, whose staging starts by removing that same directory.
    pub fn remove_previous(&self) {
        let Some(previous) = self.state().previous.take() else {
            return;
        };
        let started = std::time::SystemTime::now();
        let _ = super::stage::remove_artifact(&previous);
        // The previous tree shared the inodes of every file linked into the new one, and
        // unlinking a name sets its inode's change time: the stamps recorded at the swap are
        // taken again for exactly those files, so the next emit still links them.
        let mut state = self.state();
        if let Some(in_place) = &mut state.in_place {
            for (path, placed) in &mut in_place.files {
                if let Some(now) = FileStamp::of(&in_place.out.join(path))
                    && now.same_content_as(&placed.stamp)
                    && now.changed_since(started)
                {
                    placed.stamp = now;
                }
            }
        }
    }

    /// The bytes of a binary to ship (`abgen-host`), read again only when its length or
    /// modification time changed.
    pub(super) fn read_binary(&self, path: &Path) -> Result<Arc<[u8]>, EmitError> {
        let metadata =
            fs::metadata(path).map_err(EmitError::io("read the abgen-host binary at", path))?;
        let modified = metadata.modified().ok();
        let mut state = self.state();
        if let Some(kept) = state.binaries.get(path)
            && kept.len == metadata.len()
            && kept.modified.is_some()
            && kept.modified == modified
        {
            return Ok(kept.bytes.clone());
        }
        let bytes: Arc<[u8]> = fs::read(path)
            .map_err(EmitError::io("read the abgen-host binary at", path))?
            .into();
        state.binaries.insert(
            path.to_owned(),
            KeptBinary {
                len: metadata.len(),
                modified,
                bytes: bytes.clone(),
            },
        );
        Ok(bytes)
    }

    /// The sha256 of every planned file, by path: the previous plan's digest for bytes it had
    /// at the same path, else hashed now. Keeps this plan's digests for the next.
    pub(super) fn digests(&self, plan: &FilePlan) -> BTreeMap<String, String> {
        let mut state = self.state();
        let mut digests = BTreeMap::new();
        let mut kept = HashMap::with_capacity(state.digests.len());
        for (path, file) in plan.files() {
            let sha256 = match state.digests.get(path) {
                Some((bytes, sha256))
                    if Arc::ptr_eq(bytes, &file.contents) || **bytes == *file.contents =>
                {
                    sha256.clone()
                }
                _ => sha256_hex(&file.contents),
            };
            kept.insert(path.to_owned(), (file.contents.clone(), sha256.clone()));
            digests.insert(path.to_owned(), sha256);
        }
        state.digests = kept;
        digests
    }

    /// The route's canonical text in the manifest in place, if the route there is equal to it.
    pub(super) fn kept_fragment(&self, route: &Route) -> Option<Arc<str>> {
        // Compared outside the lock: the routes of a manifest are looked up in parallel.
        let kept = self.state().routes.get(&route.id).cloned()?;
        same_text(&kept.route, route).then(|| kept.fragment.clone())
    }

    /// Keeps each route of the manifest being staged with its text there, for the emit after
    /// this manifest is verified and in place.
    pub(super) fn stage_manifest(&self, routes: Vec<StagedRoute>) {
        let mut state = self.state();
        let mut pending = HashMap::with_capacity(routes.len());
        for staged in routes {
            let kept = match staged {
                StagedRoute::Kept(id) => state.routes.remove(&id),
                StagedRoute::Written(route, fragment) => Some(Arc::new(KeptRoute {
                    route: *route,
                    fragment,
                })),
            };
            if let Some(kept) = kept {
                pending.insert(kept.route.id.clone(), kept);
            }
        }
        state.pending = Some(pending);
    }

    /// The artifact in place after the last swap, if any.
    pub(super) fn in_place(&self) -> Option<InPlace> {
        self.state().in_place.clone()
    }

    /// Records what the swap just put in `out`: each planned file with its digest and current
    /// stamp. A file without a stamp, or an unreadable manifest stamp, records nothing, so the
    /// next emit does everything in full.
    pub(super) fn placed(&self, out: &Path, plan: &FilePlan, digests: &BTreeMap<String, String>) {
        let placed = (|| {
            let manifest = FileStamp::of(&out.join(abgen_runtime::manifest::MANIFEST_FILE_NAME))?;
            let mut files = BTreeMap::new();
            for (path, file) in plan.files() {
                files.insert(
                    path.to_owned(),
                    PlacedFile {
                        sha256: digests.get(path)?.clone(),
                        mode: file.mode,
                        stamp: FileStamp::of(&out.join(path))?,
                    },
                );
            }
            Some(InPlace {
                out: out.to_owned(),
                manifest,
                files,
            })
        })();
        let mut state = self.state();
        state.in_place = placed;
        // The manifest passed its check and is in place: its routes are the ones to keep.
        state.routes = state.pending.take().unwrap_or_default();
    }

    /// Forgets the artifact in place and the manifest being staged (a failed emit).
    pub(super) fn forget_in_place(&self) {
        let mut state = self.state();
        state.in_place = None;
        state.pending = None;
        state.routes.clear();
    }
}

impl Drop for EmitCache {
    fn drop(&mut self) {
        self.remove_previous();
    }
}

/// Whether `kept` is written as the same text as `route`: equal, with the members of every map
/// in the same order. `==` on `serde_json` maps ignores their order, and a schema's
/// `properties` keep theirs in the text (hosts show parameters in that order).
fn same_text(kept: &Route, route: &Route) -> bool {
    let same_side =
        |kept: Option<&SchemaProjection>, side: Option<&SchemaProjection>| match (kept, side) {
            (Some(kept), Some(side)) => {
                same_form(kept.json_schema.as_deref(), side.json_schema.as_deref())
                    && kept
                        .profiles
                        .values()
                        .zip(side.profiles.values())
                        .all(|(kept, form)| same_profile_form(&kept.json_schema, &form.json_schema))
            }
            (kept, side) => kept.is_none() && side.is_none(),
        };
    kept == route
        && same_members(&kept.config, &route.config)
        && same_side(kept.schemas.input.as_ref(), route.schemas.input.as_ref())
        && same_side(kept.schemas.result.as_ref(), route.schemas.result.as_ref())
}

/// Two host forms written alike: from canonical forms written alike (the profiles are equal,
/// as the routes are), or as trees.
fn same_profile_form(kept: &ProfileSchema, form: &ProfileSchema) -> bool {
    match (kept, form) {
        (
            ProfileSchema::FromCanonical { canonical, .. },
            ProfileSchema::FromCanonical {
                canonical: other, ..
            },
        ) => same_form(Some(canonical), Some(other)),
        (kept, form) => same_value(&kept.to_value(), &form.to_value()),
    }
}

/// [`same_value`] of two forms, the very same tree at once.
fn same_form(kept: Option<&Value>, form: Option<&Value>) -> bool {
    match (kept, form) {
        (Some(kept), Some(form)) => std::ptr::eq(kept, form) || same_value(kept, form),
        (kept, form) => kept.is_none() && form.is_none(),
    }
}

/// Equal values, with the members of every map in the same order.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => same_members(a, b),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_value(a, b))
        }
        _ => a == b,
    }
}

fn same_members(a: &serde_json::Map<String, Value>, b: &serde_json::Map<String, Value>) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((key_a, a), (key_b, b))| key_a == key_b && same_value(a, b))
}
