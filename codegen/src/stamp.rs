//! A file's identity and last change as `stat` gives them ([`FileStamp`]), and when a stamp may
//! stand for a file's bytes, so that a watch loop's rebuild reads only the files that changed.
//!
//! Two kinds of file are stamped. The artifact's own files: a stamp is recorded only for a file
//! abgen itself put in place and verified (`emit::reuse`). The project's sources and the
//! bundler's inputs, which the author writes: their stamp is trusted only once it has settled
//! ([`FileStamp::settled`]), because the kernel stamps a write with a coarse clock, and a second
//! write of the same length within one tick of the first would leave the stamp as it was.
//!
//! Invariant: the stamp holds the inode's change time, which every write, `chmod` or `touch`
//! sets and no one can set back, so a file written after its stamp was taken never keeps it.

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long before the moment a stamp was taken the file's last change must lie for the stamp
/// to stand for its bytes: far more than the kernel's timestamp tick (a few milliseconds).
const SETTLE: Duration = Duration::from_secs(1);

/// A file's identity and last change: the same stamp means the same bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStamp {
    device: u64,
    inode: u64,
    len: u64,
    modified_ns: i128,
    changed_ns: i128,
}

impl FileStamp {
    /// The stamp of the regular file at `path` (not following a symlink); none for anything
    /// else, or where the platform gives no inode and change time.
    pub fn of(path: &Path) -> Option<Self> {
        let metadata = fs::symlink_metadata(path).ok()?;
        if !metadata.is_file() {
            return None;
        }
        Self::from_metadata(&metadata)
    }

    /// The stamp of the file at `path` when it may stand for the bytes read right after it:
    /// taken now, and settled ([`FileStamp::settled`]). Take it before reading the file, so a
    /// write between the two changes the stamp the next look sees.
    pub fn settled_of(path: &Path) -> Option<Self> {
        let taken = SystemTime::now();
        Self::of(path).filter(|stamp| stamp.settled(taken))
    }

    /// Whether the file's last change lies [`SETTLE`] before `taken`, the moment just before
    /// this stamp was read: then any later write gets a later change time.
    pub fn settled(&self, taken: SystemTime) -> bool {
        self.changed_ns + (SETTLE.as_nanos() as i128) < nanos_since_epoch(taken)
    }

    /// Whether the file's last change lies after `moment` (less the kernel's timestamp tick,
    /// since it stamps with a coarser clock than [`SystemTime::now`]).
    pub fn changed_since(&self, moment: SystemTime) -> bool {
        const TICK_NS: i128 = 20_000_000;
        self.changed_ns >= nanos_since_epoch(moment) - TICK_NS
    }

    #[cfg(unix)]
    fn from_metadata(metadata: &fs::Metadata) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let nanos =
            |seconds: i64, nanos: i64| i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
        Some(Self {
            device: metadata.dev(),
            inode: metadata.ino(),
            len: metadata.len(),
            modified_ns: nanos(metadata.mtime(), metadata.mtime_nsec()),
            changed_ns: nanos(metadata.ctime(), metadata.ctime_nsec()),
        })
    }

    #[cfg(not(unix))]
    fn from_metadata(_metadata: &fs::Metadata) -> Option<Self> {
        None
    }

    /// The same file with the same bytes: linking a file sets its change time, so a link of a
    /// file is recognised by inode, length and modification time.
    pub fn same_content_as(&self, other: &FileStamp) -> bool {
        (self.device, self.inode, self.len, self.modified_ns)
            == (other.device, other.inode, other.len, other.modified_ns)
    }
}

/// `moment` in nanoseconds since the Unix epoch, as a stamp holds its times (0 before it).
fn nanos_since_epoch(moment: SystemTime) -> i128 {
    moment
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as i128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_write_is_not_settled_and_a_later_write_changes_the_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ts");
        fs::write(&path, "export const a = 1;\n").unwrap();
        let stamp = FileStamp::of(&path).unwrap();
        assert!(!stamp.settled(SystemTime::now()), "written a moment ago");
        assert!(stamp.settled(SystemTime::now() + 2 * SETTLE));
        assert_eq!(FileStamp::settled_of(&path), None);
        // The same length, a few kernel clock ticks later: the change time tells them apart.
        std::thread::sleep(Duration::from_millis(50));
        fs::write(&path, "export const a = 2;\n").unwrap();
        let rewritten = FileStamp::of(&path).unwrap();
        assert_eq!(stamp.len, rewritten.len);
        assert_ne!(stamp, rewritten);
        assert_eq!(FileStamp::of(dir.path()), None, "a folder has no stamp");
    }
}
