//! The seam through which every project file is read, and the decoding of its bytes into text.
//!
//! Entry call: [`read_text`] with a [`SourceReader`] ([`FsReader`] in production; tests inject
//! one that fails on chosen files, since tests run as root and `chmod` cannot deny a read).
//! Invariant: a file that cannot be read or is not text becomes one diagnostic naming the file
//! (AB5301 / AB5302), never an abort.

use std::io;
use std::path::Path;

use crate::diagnostics::{Code, Diagnostic, Location, line_column};
use crate::stamp::FileStamp;

/// Reads the bytes of one file. Implementations must be shareable across the parallel
/// per-file tasks.
pub trait SourceReader: Sync {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;

    /// The file's settled stamp ([`FileStamp::settled_of`]), taken before a read: a watch
    /// loop reuses what it learned from a file whose stamp is the one recorded then. None
    /// means "read it".
    fn settled_stamp(&self, _path: &Path) -> Option<FileStamp> {
        None
    }
}

/// Reads from the file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct FsReader;

impl SourceReader for FsReader {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn settled_stamp(&self, path: &Path) -> Option<FileStamp> {
        FileStamp::settled_of(path)
    }
}

/// Why a file could not be turned into text.
#[derive(Debug)]
pub enum ReadFailure {
    /// The file does not exist.
    Missing,
    /// The file exists but could not be read, or is not text; the diagnostic says which.
    Rejected(Box<Diagnostic>),
}

/// Reads `absolute` (shown to the user as `relative`) and decodes it as UTF-8 text.
pub fn read_text(
    reader: &dyn SourceReader,
    absolute: &Path,
    relative: &str,
) -> Result<String, ReadFailure> {
    let bytes = match reader.read(absolute) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Err(ReadFailure::Missing),
        Err(error) => {
            return Err(ReadFailure::Rejected(Box::new(unreadable(
                relative, &error,
            ))));
        }
    };
    decode_text(bytes, relative).map_err(|diagnostic| ReadFailure::Rejected(Box::new(diagnostic)))
}

/// AB5301 for `relative`, with the operating system's reason.
pub fn unreadable(relative: &str, error: &io::Error) -> Diagnostic {
    Diagnostic::new(
        Code::AB5301,
        format!("cannot read `{relative}`: {error}"),
        "make the file readable by the user running abgen, or rename it with a leading `_` to opt it out",
    )
    .at(Location::file(relative))
}

/// Decodes bytes as UTF-8 source text; a NUL byte or invalid UTF-8 is AB5302 at that position.
#[expect(clippy::result_large_err, reason = "private; boxed by its one caller")]
fn decode_text(bytes: Vec<u8>, relative: &str) -> Result<String, Diagnostic> {
    let recovery = "save the file as UTF-8 text, or move it out of `src/` if it is not source code";
    if let Some(offset) = memchr::memchr(0, &bytes) {
        let (line, column) = position_in_valid_prefix(&bytes, offset);
        return Err(Diagnostic::new(
            Code::AB5302,
            format!(
                "`{relative}` contains a NUL byte at {line}:{column}; it looks like a binary file"
            ),
            recovery,
        )
        .at(point(relative, line, column)));
    }
    String::from_utf8(bytes).map_err(|error| {
        let offset = error.utf8_error().valid_up_to();
        let (line, column) = position_in_valid_prefix(error.as_bytes(), offset);
        Diagnostic::new(
            Code::AB5302,
            format!("`{relative}` is not valid UTF-8 at {line}:{column}"),
            recovery,
        )
        .at(point(relative, line, column))
    })
}

/// Line and column of `offset`, counted over the longest valid UTF-8 prefix before it.
fn position_in_valid_prefix(bytes: &[u8], offset: usize) -> (u32, u32) {
    let before = &bytes[..offset.min(bytes.len())];
    let text = match std::str::from_utf8(before) {
        Ok(text) => text,
        Err(error) => std::str::from_utf8(&before[..error.valid_up_to()]).unwrap_or_default(),
    };
    line_column(text, u32::try_from(text.len()).unwrap_or(u32::MAX))
}

/// A position without a span: the file is not text, so no source excerpt can be shown.
fn point(relative: &str, line: u32, column: u32) -> Location {
    Location {
        line: Some(line),
        column: Some(column),
        ..Location::file(relative)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    struct Fixed(io::Result<Vec<u8>>);

    impl SourceReader for Fixed {
        fn read(&self, _: &Path) -> io::Result<Vec<u8>> {
            match &self.0 {
                Ok(bytes) => Ok(bytes.clone()),
                Err(error) => Err(io::Error::new(error.kind(), error.to_string())),
            }
        }
    }

    fn read(result: io::Result<Vec<u8>>) -> Result<String, ReadFailure> {
        read_text(&Fixed(result), &PathBuf::from("/p/src/a.ts"), "src/a.ts")
    }

    fn rejected(result: Result<String, ReadFailure>) -> Diagnostic {
        match result {
            Err(ReadFailure::Rejected(diagnostic)) => *diagnostic,
            other => panic!("expected a rejection, got {other:?}"),
        }
    }

    #[test]
    fn permission_denied_is_ab5301_naming_the_file() {
        let error = io::Error::new(io::ErrorKind::PermissionDenied, "permission denied");
        let diagnostic = rejected(read(Err(error)));
        assert_eq!(diagnostic.code, Code::AB5301);
        assert!(
            diagnostic.message.contains("`src/a.ts`"),
            "{}",
            diagnostic.message
        );
        assert_eq!(
            diagnostic.location.map(|l| l.file),
            Some("src/a.ts".to_owned())
        );
    }

    #[test]
    fn missing_file_is_not_a_diagnostic() {
        let error = io::Error::new(io::ErrorKind::NotFound, "gone");
        assert!(matches!(read(Err(error)), Err(ReadFailure::Missing)));
    }

    #[test]
    fn nul_byte_is_ab5302_with_its_position() {
        let diagnostic = rejected(read(Ok(b"const a = 1;\nab\0c".to_vec())));
        assert_eq!(diagnostic.code, Code::AB5302);
        let location = diagnostic.location.expect("located");
        assert_eq!((location.line, location.column), (Some(2), Some(3)));
    }

    #[test]
    fn invalid_utf8_is_ab5302() {
        let diagnostic = rejected(read(Ok(vec![b'a', b'\n', 0xff, b'b'])));
        assert_eq!(diagnostic.code, Code::AB5302);
        assert!(diagnostic.message.contains("2:1"), "{}", diagnostic.message);
    }

    #[test]
    fn large_text_file_is_read() {
        let text = "// padding\n".repeat(5 * 1024 * 1024 / 11);
        assert_eq!(read(Ok(text.clone().into_bytes())).ok(), Some(text));
    }
}
