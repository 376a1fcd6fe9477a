//! Reading a manifest from an artifact: [`read_manifest`] for the whole document,
//! [`read_hook_view`] for the hook client's slice. Both refuse another `manifestVersion`.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use super::hooks::HookView;
use super::model::{MANIFEST_VERSION, Manifest};

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
