//! Reading a manifest from an artifact: [`read_manifest`] for the whole document,
//! [`read_hook_view`] for the hook client's slice, [`read_manifest_head`] for what stands before
//! the routes. All refuse another `manifestVersion`.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::hooks::HookView;
use super::model::{Limits, MANIFEST_VERSION, Manifest};

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
    // No JSON string holds a raw line break, and only the document's own members stand two
    // spaces in, so this line cannot come from inside a value.
    const ROUTES_LINE: &[u8] = b"\n  \"routes\": ";
    const CHUNK: usize = 64 * 1024;
    let mut file = std::fs::File::open(path).ok()?;
    let mut text = Vec::with_capacity(CHUNK);
    let mut searched = 0;
    let routes_at = loop {
        let start = text.len();
        text.resize(start + CHUNK, 0);
        let read = file.read(&mut text[start..]).ok()?;
        text.truncate(start + read);
        if let Some(at) = memchr::memmem::find(&text[searched..], ROUTES_LINE) {
            break searched + at;
        }
        if read == 0 {
            return None;
        }
        searched = text.len().saturating_sub(ROUTES_LINE.len());
    };
    // The head's last member ends with the comma before `routes`: the head closed there is a
    // document of its own.
    text.truncate(routes_at);
    if text.pop() != Some(b',') {
        return None;
    }
    text.extend_from_slice(b"\n}");
    serde_json::from_slice::<ManifestHead>(&text)
        .ok()
        .filter(|head| head.manifest_version == MANIFEST_VERSION)
}

/// Reads only the identity, digest and hook tables of the manifest at `path`.
pub fn read_hook_view(path: &Path) -> Result<HookView, ManifestReadError> {
    read_checked(path, |view: &HookView| view.manifest_version)
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
