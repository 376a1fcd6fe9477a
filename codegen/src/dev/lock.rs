//! The project's development lock, `<root>/.agent-bundle/dev.json`: which `abgen dev` process
//! serves the project and where its newest good artifact is (its output and its epoch, the
//! artifact digest). `abgen dev` writes it after every successful build and removes it when it
//! stops; `abgen dev proxy` reads it to find the epoch that new calls go to.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The lock's format version.
pub const DEV_LOCK_VERSION: u32 = 1;

/// What the lock says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DevLock {
    pub version: u32,
    /// The `abgen dev` process.
    pub pid: u32,
    /// Its output directory, absolute.
    pub out: PathBuf,
    /// The epoch now at `out`: its manifest's digest.
    pub digest: String,
}

/// `<root>/.agent-bundle/dev.json`.
pub fn dev_lock_path(root: &Path) -> PathBuf {
    root.join(".agent-bundle").join("dev.json")
}

/// Writes the lock whole (a sibling file renamed over it), so a reader never sees half of it.
pub fn write_dev_lock(root: &Path, lock: &DevLock) -> io::Result<()> {
    let path = dev_lock_path(root);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let staged = path.with_file_name(format!(".dev.json.{}", lock.pid));
    let text = serde_json::to_string_pretty(lock).map_err(io::Error::other)?;
    std::fs::write(&staged, text + "\n")?;
    std::fs::rename(&staged, &path)
}

/// The lock, when there is one this version of abgen reads.
pub fn read_dev_lock(root: &Path) -> Option<DevLock> {
    let text = std::fs::read_to_string(dev_lock_path(root)).ok()?;
    serde_json::from_str::<DevLock>(&text)
        .ok()
        .filter(|lock| lock.version == DEV_LOCK_VERSION)
}

/// Removes the lock if process `pid` wrote it (abgen never deletes what it did not write).
pub fn remove_dev_lock(root: &Path, pid: u32) {
    if read_dev_lock(root).is_some_and(|lock| lock.pid == pid) {
        let _ = std::fs::remove_file(dev_lock_path(root));
    }
}

/// Whether process `pid` is running (a signal-0 probe).
pub fn process_alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        // It exists, and belongs to someone else.
        Err(rustix::io::Errno::PERM) => true,
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_round_trips_and_is_removed_only_by_its_writer() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(read_dev_lock(root.path()), None);
        let lock = DevLock {
            version: DEV_LOCK_VERSION,
            pid: std::process::id(),
            out: root.path().join("artifact"),
            digest: "abc".to_owned(),
        };
        write_dev_lock(root.path(), &lock).unwrap();
        assert_eq!(read_dev_lock(root.path()), Some(lock.clone()));
        remove_dev_lock(root.path(), lock.pid + 1);
        assert!(
            dev_lock_path(root.path()).is_file(),
            "another process's lock stays"
        );
        remove_dev_lock(root.path(), lock.pid);
        assert!(!dev_lock_path(root.path()).exists());
        assert!(process_alive(std::process::id()));
    }
}
