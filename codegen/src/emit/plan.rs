//! The file plan: every file of the artifact (except the manifest) as bytes and a mode, keyed by
//! its artifact-relative path. Entry: [`FilePlan::add`]; [`FilePlan::file_table`] and
//! [`file_table_digest`] give the manifest's `files` and `digest`.
//!
//! Invariant: a path is planned once; the file table is sorted by path and hashes exactly the
//! bytes that [`super::stage`] writes.

use std::collections::BTreeMap;
use std::sync::Arc;

use abgen_runtime::manifest::{FileEntry, MANIFEST_FILE_NAME};
use sha2::{Digest, Sha256};

use super::canonical_json::serialize_canonical;
use super::error::EmitError;

/// `rw-r--r--`.
pub const MODE_FILE: u32 = 0o644;
/// `rwxr-xr-x`.
pub const MODE_EXECUTABLE: u32 = 0o755;

/// One planned file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedFile {
    /// Shared, so a plan can hold a large file kept from an earlier build without copying it.
    pub contents: Arc<[u8]>,
    pub mode: u32,
}

/// Every planned file, sorted by artifact-relative `/`-separated path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilePlan {
    files: BTreeMap<String, PlannedFile>,
}

impl FilePlan {
    /// Plans `contents` at `path`; two outputs claiming one path is a bug in a host table.
    pub fn add(
        &mut self,
        path: &str,
        contents: impl Into<Vec<u8>>,
        mode: u32,
    ) -> Result<(), EmitError> {
        self.add_shared(path, contents.into().into(), mode)
    }

    /// [`FilePlan::add`] of bytes already shared.
    pub fn add_shared(
        &mut self,
        path: &str,
        contents: Arc<[u8]>,
        mode: u32,
    ) -> Result<(), EmitError> {
        if path == MANIFEST_FILE_NAME || self.files.contains_key(path) {
            return Err(EmitError::DuplicatePath(path.to_owned()));
        }
        self.files
            .insert(path.to_owned(), PlannedFile { contents, mode });
        Ok(())
    }

    pub fn files(&self) -> impl Iterator<Item = (&str, &PlannedFile)> {
        self.files.iter().map(|(path, file)| (path.as_str(), file))
    }

    pub fn get(&self, path: &str) -> Option<&PlannedFile> {
        self.files.get(path)
    }

    /// The manifest's `files`: path, sha256 and mode of every planned file, sorted by path.
    pub fn file_table(&self) -> Vec<FileEntry> {
        self.files
            .iter()
            .map(|(path, file)| FileEntry {
                path: path.clone(),
                sha256: sha256_hex(&file.contents),
                mode: file.mode,
            })
            .collect()
    }

    /// [`FilePlan::file_table`] with each file's sha256 taken from `digests` (every planned
    /// path's, as [`super::reuse::EmitCache::digests`] gives them).
    pub(super) fn file_table_from(&self, digests: &BTreeMap<String, String>) -> Vec<FileEntry> {
        self.files
            .iter()
            .map(|(path, file)| FileEntry {
                path: path.clone(),
                sha256: digests
                    .get(path)
                    .cloned()
                    .unwrap_or_else(|| sha256_hex(&file.contents)),
                mode: file.mode,
            })
            .collect()
    }
}

/// The artifact digest (the epoch): sha256 of the canonical JSON bytes of the file table,
/// final newline included.
pub fn file_table_digest(files: &[FileEntry]) -> Result<String, EmitError> {
    let canonical = serialize_canonical(&files).map_err(|source| EmitError::Serialize {
        what: "the file table",
        source,
    })?;
    Ok(sha256_hex(canonical.as_bytes()))
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}
