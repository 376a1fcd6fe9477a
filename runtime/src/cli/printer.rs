//! The one place `abgen-host` writes to its standard output and standard error.
//!
//! Invariant: stdout carries only a command's result (a host parses it); every message goes to
//! stderr as one line starting with `abgen-host: `.

use std::fmt::Display;
use std::io::{self, Write as _};

/// Writes results to stdout and one-line messages to stderr.
#[derive(Debug, Default, Clone, Copy)]
pub struct Printer;

impl Printer {
    /// Writes `text` to stdout as it is and flushes it.
    pub fn result(&self, text: &str) -> io::Result<()> {
        let mut stdout = io::stdout().lock();
        stdout.write_all(text.as_bytes())?;
        stdout.flush()
    }

    /// Writes `abgen-host: <message>` as one line to stderr; a closed stderr is ignored, since
    /// there is nowhere left to say so.
    pub fn message(&self, message: impl Display) {
        let line = format!("abgen-host: {message}").replace('\n', " ");
        let _ = writeln!(io::stderr().lock(), "{line}");
    }
}
