//! Reading a manifest from an artifact: [`read_manifest`] for the whole document,
//! [`read_hook_view`] for the hook client's slice, [`read_manifest_head`] for what stands before
//! the routes. All refuse another `manifestVersion`.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::hooks::{HookRoute, HookTables, HookView};
use super::model::{Application, Limits, MANIFEST_VERSION, Manifest};

/// Why a manifest could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestReadError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a valid abgen manifest: {source}")]
    Invalid {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{path} has manifestVersion {found}; this abgen-host reads version {MANIFEST_VERSION}")]
    Version { path: PathBuf, found: u64 },
}

/// Reads and parses the whole manifest at `path`.
pub fn read_manifest(path: &Path) -> Result<Manifest, ManifestReadError> {
    read_checked(path, |manifest: &Manifest| manifest.manifest_version)
}

/// The members of a manifest that stand before its routes, which are nearly all of a large
/// plugin's manifest: enough to start the artifact's kernel while the rest is read.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManifestHead {
    pub manifest_version: u32,
    pub digest: String,
    pub limits: Limits,
}

/// The head of the manifest at `path`, read only as far as its routes: abgen writes the manifest
/// canonical (keys sorted, two spaces of indent, one member a line), so `digest`, `limits` and
/// `manifestVersion` stand before the line that opens `routes`. `None` for a manifest in another
/// layout, one that cannot be read or whose head does not parse, or another `manifestVersion`:
/// [`read_manifest`] then says what is wrong.
pub fn read_manifest_head(path: &Path) -> Option<ManifestHead> {
    let mut read = ForwardRead::open(path)?;
    let routes_at = read.find(0, ROUTES_LINE)?;
    serde_json::from_slice::<ManifestHead>(&head_document(read.text(), routes_at)?)
        .ok()
        .filter(|head| head.manifest_version == MANIFEST_VERSION)
}

/// Reads only the identity, digest, limits and hook tables of the manifest at `path`, and the
/// routes its hooks name. A canonical manifest is read only as far as the last of those routes
/// (the event routes sort together, near the start of `routes`); any other is read whole, and
/// [`read_manifest`]'s errors are its errors.
pub fn read_hook_view(path: &Path) -> Result<HookView, ManifestReadError> {
    if let Some(view) = read_canonical_hook_view(path) {
        return Ok(view);
    }
    let mut view = read_checked(path, |view: &HookView| view.manifest_version)?;
    let named = hook_route_ids(&view.hooks);
    view.routes
        .retain(|route| named.contains(route.id.as_str()));
    Ok(view)
}

/// The route ids the hook bindings of `hooks` name, each once.
fn hook_route_ids(hooks: &HookTables) -> BTreeSet<&str> {
    hooks
        .values()
        .flatten()
        .flat_map(|binding| binding.routes.iter().map(String::as_str))
        .collect()
}

/// [`read_hook_view`] of a manifest in the canonical layout, reading its head and then only as
/// far as its hooks' routes; `None` for any other layout, another `manifestVersion`, or a named
/// route this read does not find, which the whole read then judges.
fn read_canonical_hook_view(path: &Path) -> Option<HookView> {
    /// The members of [`HookView`] that stand before the routes.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct HookHead {
        manifest_version: u32,
        application: Application,
        digest: String,
        hooks: HookTables,
        limits: Limits,
    }
    let mut read = ForwardRead::open(path)?;
    let routes_at = read.find(0, ROUTES_LINE)?;
    let head: HookHead = serde_json::from_slice(&head_document(read.text(), routes_at)?).ok()?;
    if head.manifest_version != MANIFEST_VERSION {
        return None;
    }
    let routes = hook_route_ids(&head.hooks)
        .into_iter()
        .map(|id| canonical_route(&mut read, routes_at, id))
        .collect::<Option<Vec<_>>>()?;
    Some(HookView {
        manifest_version: head.manifest_version,
        application: head.application,
        digest: head.digest,
        hooks: head.hooks,
        limits: head.limits,
        routes,
    })
}

/// The route `id` of a canonical manifest whose `routes` line starts at `routes_at`, read as a
/// hook route. The routes are the array's items four spaces in, with their members one a line
/// six spaces in, and the array closes on the first line two spaces in: so the route is the
/// object around the line that gives `id` six spaces in, if that line comes before the close.
fn canonical_route(read: &mut ForwardRead, routes_at: usize, id: &str) -> Option<HookRoute> {
    const ROUTE_OPEN: &[u8] = b"\n    {";
    const ROUTE_CLOSE: &[u8] = b"\n    }";
    const ROUTES_CLOSE: &[u8] = b"\n  ]";
    // The id's closing quote is in the line searched for, so no longer id matches it.
    let id_line = format!("\n      \"id\": {}", serde_json::to_string(id).ok()?);
    let at = read.find(routes_at, id_line.as_bytes())?;
    let before = &read.text()[routes_at..at];
    if memchr::memmem::find(before, ROUTES_CLOSE).is_some() {
        return None;
    }
    let start = routes_at + memchr::memmem::rfind(before, ROUTE_OPEN)? + 1;
    let end = read.find(at, ROUTE_CLOSE)? + ROUTE_CLOSE.len();
    serde_json::from_slice::<HookRoute>(&read.text()[start..end])
        .ok()
        .filter(|route| route.id == id)
}

/// The line that opens a canonical manifest's `routes`. No JSON string holds a raw line break,
/// and only the document's own members stand two spaces in, so this line cannot come from
/// inside a value.
const ROUTES_LINE: &[u8] = b"\n  \"routes\": ";

/// The head of a canonical manifest, the text before its routes line at `routes_at`, closed as
/// a document of its own: its last member ends with the comma before `routes`. `None` when no
/// comma stands there.
fn head_document(text: &[u8], routes_at: usize) -> Option<Vec<u8>> {
    let (last, head) = text[..routes_at].split_last()?;
    (*last == b',').then(|| [head, b"\n}"].concat())
}

/// A file read forward, a chunk at a time, only as far as the lines searched for in it.
struct ForwardRead {
    file: std::fs::File,
    text: Vec<u8>,
}

impl ForwardRead {
    const CHUNK: usize = 64 * 1024;

    fn open(path: &Path) -> Option<Self> {
        Some(Self {
            file: std::fs::File::open(path).ok()?,
            text: Vec::with_capacity(Self::CHUNK),
        })
    }

    /// What has been read so far.
    fn text(&self) -> &[u8] {
        &self.text
    }

    /// Where the first `needle` at or after `from` starts, reading on as far as it; `None` when
    /// the file ends first or cannot be read.
    fn find(&mut self, from: usize, needle: &[u8]) -> Option<usize> {
        let mut searched = from;
        loop {
            if let Some(at) = memchr::memmem::find(self.text.get(searched..)?, needle) {
                return Some(searched + at);
            }
            // A needle across the end of what was read starts in its last `needle.len() - 1`
            // bytes.
            searched = self.text.len().saturating_sub(needle.len() - 1).max(from);
            let start = self.text.len();
            self.text.resize(start + Self::CHUNK, 0);
            let read = self.file.read(&mut self.text[start..]).ok()?;
            self.text.truncate(start + read);
            if read == 0 {
                return None;
            }
        }
    }
}

/// Parses the manifest once; an old or future manifest gets a version error, not a confusing
/// field error: when the parse fails, `manifestVersion` alone is read to tell which it is.
fn read_checked<T: DeserializeOwned>(
    path: &Path,
    version_of: impl Fn(&T) -> u32,
) -> Result<T, ManifestReadError> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct VersionOnly {
        manifest_version: u64,
    }
    let io = |source| ManifestReadError::Io {
        path: path.to_owned(),
        source,
    };
    let invalid = |source| ManifestReadError::Invalid {
        path: path.to_owned(),
        source,
    };
    let other_version = |found| ManifestReadError::Version {
        path: path.to_owned(),
        found,
    };
    let bytes = std::fs::read(path).map_err(io)?;
    match serde_json::from_slice::<T>(&bytes) {
        Ok(read) if version_of(&read) == MANIFEST_VERSION => Ok(read),
        Ok(read) => Err(other_version(u64::from(version_of(&read)))),
        Err(error) => {
            let version: VersionOnly = serde_json::from_slice(&bytes).map_err(invalid)?;
            if version.manifest_version == u64::from(MANIFEST_VERSION) {
                Err(invalid(error))
            } else {
                Err(other_version(version.manifest_version))
            }
        }
    }
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
