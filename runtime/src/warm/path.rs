//! Where the warm socket lives and who may use it.
//!
//! `$XDG_RUNTIME_DIR/abgen/` when the session has one, else `/tmp/abgen-<uid>/`; the directory
//! is 0700 and must be owned by the current user (a directory someone else made in `/tmp`, or one
//! opened to others, is refused, never used). In it, `<hash>.sock` and `<hash>.lock`, where
//! `<hash>` is 16 hex digits of sha256 over the plugin root and the artifact digest: short enough
//! for the 108-byte socket path limit, distinct per installed artifact. Both exist while a server
//! of that artifact runs (or after one was killed): a server that stops removes them
//! (`super::server`), and the directory itself stays.
//!
//! A server binds in the first of those two directories its environment names. A host may start
//! its MCP servers with a filtered environment while its hooks see the whole one (Codex passes an
//! MCP server only HOME, LOGNAME, PATH, SHELL, USER, LANG, LC_ALL, TERM, TMPDIR and TZ, so no
//! `XDG_RUNTIME_DIR`), so a client looks in both, in that order.
//!
//! Entry: [`SocketPath::for_artifact`], then [`SocketPath::prepare_directory`] (server), or
//! [`SocketPath::candidates_for_artifact`], then [`SocketPath::check_directory`] (client).

use std::fs::DirBuilder;
use std::io;
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

/// The longest socket path the kernel takes (`sun_path` is 108 bytes, NUL included).
const MAX_SOCKET_PATH_BYTES: usize = 107;

/// The socket and lock file of one artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocketPath {
    pub directory: PathBuf,
    pub socket: PathBuf,
    pub lock: PathBuf,
}

/// Why the socket directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("{} does not exist", .0.display())]
    Missing(PathBuf),
    #[error("{} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    #[error("{} is owned by uid {owner}, not by this user (uid {uid})", .path.display())]
    Owner { path: PathBuf, owner: u32, uid: u32 },
    #[error("{} has mode {mode:o}; it must be 0700", .path.display())]
    Mode { path: PathBuf, mode: u32 },
    #[error("the socket path {} is longer than {MAX_SOCKET_PATH_BYTES} bytes", .0.display())]
    TooLong(PathBuf),
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
}

/// The session's runtime directory, when its environment names one, then the fallback in `/tmp`.
fn socket_directories() -> Vec<PathBuf> {
    socket_directories_in(std::env::var_os("XDG_RUNTIME_DIR"))
}

fn socket_directories_in(runtime: Option<std::ffi::OsString>) -> Vec<PathBuf> {
    runtime
        .filter(|dir| !dir.is_empty())
        .map(|runtime| PathBuf::from(runtime).join("abgen"))
        .into_iter()
        .chain([PathBuf::from(format!("/tmp/abgen-{}", current_uid()))])
        .collect()
}

impl SocketPath {
    /// The socket of the artifact at `root` with `digest`, in this user's runtime directory.
    pub fn for_artifact(root: &Path, digest: &str) -> Result<Self, PathError> {
        Self::in_directory(&socket_directories()[0], root, digest)
    }

    /// Every place a server of the artifact may listen, in the order a client tries them.
    pub fn candidates_for_artifact(root: &Path, digest: &str) -> Result<Vec<Self>, PathError> {
        socket_directories()
            .iter()
            .map(|directory| Self::in_directory(directory, root, digest))
            .collect()
    }

    /// The socket of the artifact at `root` with `digest`, in `directory`. The root is made
    /// canonical first, so the server and a hook that reach one artifact by different paths
    /// (relative, through a link) name the same socket.
    pub fn in_directory(directory: &Path, root: &Path, digest: &str) -> Result<Self, PathError> {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_owned());
        let mut hasher = Sha256::new();
        hasher.update(root.as_os_str().as_encoded_bytes());
        hasher.update([0]);
        hasher.update(digest.as_bytes());
        let name: String = hasher.finalize()[..8]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        let socket = directory.join(format!("{name}.sock"));
        if socket.as_os_str().len() > MAX_SOCKET_PATH_BYTES {
            return Err(PathError::TooLong(socket));
        }
        Ok(Self {
            directory: directory.to_owned(),
            lock: directory.join(format!("{name}.lock")),
            socket,
        })
    }

    /// Creates the directory (0700) if needed, then checks it as [`Self::check_directory`] does.
    pub fn prepare_directory(&self) -> Result<(), PathError> {
        match DirBuilder::new().mode(0o700).create(&self.directory) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(source) => {
                return Err(PathError::Io {
                    path: self.directory.clone(),
                    source,
                });
            }
        }
        self.check_directory()
    }

    /// The directory exists, is a real directory (not a link), belongs to this user and is open
    /// to no one else.
    pub fn check_directory(&self) -> Result<(), PathError> {
        let path = &self.directory;
        let metadata = match std::fs::symlink_metadata(path) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                return Err(PathError::Missing(path.clone()));
            }
            Err(source) => {
                return Err(PathError::Io {
                    path: path.clone(),
                    source,
                });
            }
        };
        if !metadata.file_type().is_dir() {
            return Err(PathError::NotADirectory(path.clone()));
        }
        let uid = current_uid();
        if metadata.uid() != uid {
            return Err(PathError::Owner {
                path: path.clone(),
                owner: metadata.uid(),
                uid,
            });
        }
        let mode = metadata.mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(PathError::Mode {
                path: path.clone(),
                mode,
            });
        }
        Ok(())
    }
}

/// The effective uid of this process.
pub fn current_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// The uid of the process at the other end of `stream` (`SO_PEERCRED`).
pub fn peer_uid(stream: &UnixStream) -> io::Result<u32> {
    rustix::net::sockopt::socket_peercred(stream)
        .map(|credentials| credentials.uid.as_raw())
        .map_err(io::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_tries_the_runtime_directory_then_the_fallback_a_filtered_server_binds_in() {
        let fallback = PathBuf::from(format!("/tmp/abgen-{}", current_uid()));
        assert_eq!(
            socket_directories_in(Some("/run/user/1000".into())),
            [PathBuf::from("/run/user/1000/abgen"), fallback.clone()]
        );
        // A server started without XDG_RUNTIME_DIR (as Codex starts MCP servers) binds here.
        assert_eq!(socket_directories_in(None), std::slice::from_ref(&fallback));
        assert_eq!(socket_directories_in(Some("".into())), [fallback]);
    }
}
