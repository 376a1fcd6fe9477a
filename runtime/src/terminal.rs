//! The terminal axis (seed 002, The terminal capability): what the process's output streams are,
//! their colour depth and size, and whether they share one target.
//!
//! Entry: [`observe_process`] (the real process: fds 1 and 2 and its environment) and
//! [`observe`] (the same rules over a given environment and given streams, for tests).
//! Invariant: one invocation computes it once, and the CLI's output mode, its colour and the
//! value a route reads as `terminal` all come from that one value; `abgen` picks its own colour
//! with [`color_depth`], so plugin output and framework output agree.

use std::ffi::OsString;
use std::os::fd::{AsFd, BorrowedFd};

use serde::{Deserialize, Serialize};

/// The surface an invocation runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HostSurface {
    Cli,
    Mcp,
    Hook,
    Script,
    Workbench,
}

/// What one output stream is connected to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StreamKind {
    /// A terminal.
    Tty,
    /// A pipe, a file or a socket: something that keeps what is written.
    Pipe,
    /// Closed, or `/dev/null`: nothing reads it.
    None,
}

/// How many colours a stream renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ColorDepth {
    #[serde(rename = "none")]
    None,
    #[serde(rename = "basic")]
    Basic,
    #[serde(rename = "256")]
    Ansi256,
    #[serde(rename = "truecolor")]
    Truecolor,
}

/// One output stream as the axis reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TerminalStream {
    pub kind: StreamKind,
    pub color: ColorDepth,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u16>,
}

/// The terminal axis's value (`schemas/worker-protocol.schema.json` `terminal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Terminal {
    pub host_surface: HostSurface,
    pub stdout: TerminalStream,
    pub stderr: TerminalStream,
    /// fd 1 and fd 2 name one open file (`2>&1`, one shared terminal).
    pub shares_target: bool,
}

/// What probing one file descriptor found, before any environment variable is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamProbe {
    pub kind: StreamKind,
    /// `(columns, rows)` the terminal reports.
    pub size: Option<(u16, u16)>,
    /// `(device, inode)` of the open file, to tell whether two fds name one target.
    pub identity: Option<(u64, u64)>,
}

impl StreamProbe {
    /// A stream that is not open.
    pub const CLOSED: StreamProbe = StreamProbe {
        kind: StreamKind::None,
        size: None,
        identity: None,
    };
}

impl Terminal {
    /// The axis as the worker protocol carries it in a render's `context`.
    pub fn axis(&self) -> serde_json::Value {
        serde_json::json!({
            "state": "available",
            // Observed by the runtime from its own descriptors and environment, not told by a host.
            "source": "derived",
            "value": self,
        })
    }
}

/// The terminal axis of this process, on `surface`.
pub fn observe_process(surface: HostSurface) -> Terminal {
    let env = |name: &str| std::env::var_os(name);
    observe(
        surface,
        &env,
        probe(std::io::stdout().as_fd()),
        probe(std::io::stderr().as_fd()),
    )
}

/// The terminal axis for the given environment and streams.
pub fn observe(
    surface: HostSurface,
    env: &dyn Fn(&str) -> Option<OsString>,
    stdout: StreamProbe,
    stderr: StreamProbe,
) -> Terminal {
    let stream = |probe: StreamProbe| {
        let size = overridden_size(env, &probe);
        TerminalStream {
            kind: probe.kind,
            color: color_depth(env, probe.kind),
            columns: size.0,
            rows: size.1,
        }
    };
    let shares_target = match (stdout.identity, stderr.identity) {
        (Some(out), Some(err)) => out == err,
        _ => false,
    };
    Terminal {
        host_surface: surface,
        stdout: stream(stdout),
        stderr: stream(stderr),
        shares_target,
    }
}

/// The colour depth of a stream of `kind`, in the informal standards' usual precedence:
/// `FORCE_COLOR` decides outright when set; `CLICOLOR_FORCE` forces colour on even for a pipe;
/// `NO_COLOR` (non-empty) and `CLICOLOR=0` force it off; `TERM=dumb` renders none; otherwise a
/// terminal renders at the depth `COLORTERM`/`TERM` advertise and anything else renders none.
pub fn color_depth(env: &dyn Fn(&str) -> Option<OsString>, kind: StreamKind) -> ColorDepth {
    let var = |name: &str| env(name).map(|value| value.to_string_lossy().into_owned());
    if let Some(force) = var("FORCE_COLOR") {
        return forced_depth(&force);
    }
    if var("CLICOLOR_FORCE").is_some_and(|value| !value.is_empty() && value != "0") {
        // Forced on: at least basic colour, more when the terminal type advertises it.
        return advertised_depth(env).max(ColorDepth::Basic);
    }
    if var("NO_COLOR").is_some_and(|value| !value.is_empty())
        || var("CLICOLOR").is_some_and(|value| value == "0")
    {
        return ColorDepth::None;
    }
    if var("TERM").is_some_and(|term| term == "dumb") {
        return ColorDepth::None;
    }
    match kind {
        StreamKind::Tty => advertised_depth(env).max(ColorDepth::Basic),
        StreamKind::Pipe | StreamKind::None => ColorDepth::None,
    }
}

/// `FORCE_COLOR`'s value: `0`/`false` off; empty, `1` or `true` basic; `2` 256; `3` (or more)
/// truecolor. Any other value still asks for colour, so it is basic.
fn forced_depth(value: &str) -> ColorDepth {
    match value.trim() {
        "0" | "false" => ColorDepth::None,
        "" | "1" | "true" => ColorDepth::Basic,
        "2" => ColorDepth::Ansi256,
        other => match other.parse::<u32>() {
            Ok(level) if level >= 3 => ColorDepth::Truecolor,
            _ => ColorDepth::Basic,
        },
    }
}

/// The depth `COLORTERM` and `TERM` advertise (none when they advertise nothing).
fn advertised_depth(env: &dyn Fn(&str) -> Option<OsString>) -> ColorDepth {
    let var = |name: &str| env(name).map(|value| value.to_string_lossy().to_ascii_lowercase());
    if var("COLORTERM").is_some_and(|value| value == "truecolor" || value == "24bit") {
        return ColorDepth::Truecolor;
    }
    match var("TERM") {
        Some(term) if term.ends_with("-direct") || term.contains("truecolor") => {
            ColorDepth::Truecolor
        }
        Some(term) if term.contains("256color") => ColorDepth::Ansi256,
        Some(term) if !term.is_empty() && term != "dumb" => ColorDepth::Basic,
        _ => ColorDepth::None,
    }
}

/// The reported size with `COLUMNS`/`LINES` (positive integers) overriding each half; a stream
/// that is not open has no size.
fn overridden_size(
    env: &dyn Fn(&str) -> Option<OsString>,
    probe: &StreamProbe,
) -> (Option<u16>, Option<u16>) {
    if probe.kind == StreamKind::None {
        return (None, None);
    }
    let positive = |name: &str| {
        env(name)
            .and_then(|value| value.to_str()?.trim().parse::<u16>().ok())
            .filter(|value| *value > 0)
    };
    let (columns, rows) = probe.size.map_or((None, None), |(c, r)| (Some(c), Some(r)));
    (positive("COLUMNS").or(columns), positive("LINES").or(rows))
}

/// What `fd` is: a terminal (with its size), a pipe or file, or nothing.
pub fn probe(fd: BorrowedFd<'_>) -> StreamProbe {
    let Ok(stat) = rustix::fs::fstat(fd) else {
        return StreamProbe::CLOSED;
    };
    // `dev_t` and `ino_t` are not u64 on every platform.
    #[allow(clippy::unnecessary_cast)]
    let identity = Some((stat.st_dev as u64, stat.st_ino as u64));
    if rustix::termios::isatty(fd) {
        let size = rustix::termios::tcgetwinsize(fd)
            .ok()
            .filter(|size| size.ws_col > 0 && size.ws_row > 0)
            .map(|size| (size.ws_col, size.ws_row));
        return StreamProbe {
            kind: StreamKind::Tty,
            size,
            identity,
        };
    }
    let is_dev_null = rustix::fs::stat("/dev/null")
        .is_ok_and(|null| null.st_rdev == stat.st_rdev && null.st_mode == stat.st_mode);
    StreamProbe {
        kind: if is_dev_null {
            StreamKind::None
        } else {
            StreamKind::Pipe
        },
        size: None,
        identity,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        }
    }

    const TTY: StreamKind = StreamKind::Tty;
    const PIPE: StreamKind = StreamKind::Pipe;

    /// The precedence table, one row per case: environment, stream, expected depth.
    #[test]
    fn color_follows_the_precedence_table_case_by_case() {
        use ColorDepth::{Ansi256, Basic, None as Off, Truecolor};
        type Env = &'static [(&'static str, &'static str)];
        let table: &[(Env, StreamKind, ColorDepth)] = &[
            // No variable: a terminal renders at least basic colour, a pipe none.
            (&[], TTY, Basic),
            (&[], PIPE, Off),
            (&[], StreamKind::None, Off),
            // FORCE_COLOR decides outright, for a pipe too, over everything else.
            (&[("FORCE_COLOR", "0")], TTY, Off),
            (&[("FORCE_COLOR", "false")], TTY, Off),
            (&[("FORCE_COLOR", "")], PIPE, Basic),
            (&[("FORCE_COLOR", "1")], PIPE, Basic),
            (&[("FORCE_COLOR", "true")], PIPE, Basic),
            (&[("FORCE_COLOR", "2")], PIPE, Ansi256),
            (&[("FORCE_COLOR", "3")], PIPE, Truecolor),
            (&[("FORCE_COLOR", "1"), ("NO_COLOR", "1")], PIPE, Basic),
            (&[("FORCE_COLOR", "0"), ("CLICOLOR_FORCE", "1")], TTY, Off),
            (&[("FORCE_COLOR", "2"), ("TERM", "dumb")], TTY, Ansi256),
            (
                &[("FORCE_COLOR", "1"), ("COLORTERM", "truecolor")],
                TTY,
                Basic,
            ),
            // CLICOLOR_FORCE forces colour on even for a pipe, over NO_COLOR and TERM=dumb.
            (&[("CLICOLOR_FORCE", "1")], PIPE, Basic),
            (&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], PIPE, Basic),
            (&[("CLICOLOR_FORCE", "1"), ("TERM", "dumb")], TTY, Basic),
            (
                &[("CLICOLOR_FORCE", "1"), ("TERM", "xterm-256color")],
                PIPE,
                Ansi256,
            ),
            (&[("CLICOLOR_FORCE", "0")], PIPE, Off),
            (&[("CLICOLOR_FORCE", "")], PIPE, Off),
            // NO_COLOR (non-empty) and CLICOLOR=0 force it off.
            (&[("NO_COLOR", "1")], TTY, Off),
            (&[("NO_COLOR", "")], TTY, Basic),
            (&[("CLICOLOR", "0")], TTY, Off),
            (&[("CLICOLOR", "1")], TTY, Basic),
            (&[("CLICOLOR", "1")], PIPE, Off),
            (&[("NO_COLOR", "1"), ("COLORTERM", "truecolor")], TTY, Off),
            // TERM=dumb renders none.
            (&[("TERM", "dumb")], TTY, Off),
            (&[("TERM", "dumb"), ("COLORTERM", "truecolor")], TTY, Off),
            // Otherwise a terminal renders what COLORTERM/TERM advertise; a pipe none.
            (&[("COLORTERM", "truecolor")], TTY, Truecolor),
            (&[("COLORTERM", "24bit")], TTY, Truecolor),
            (&[("TERM", "xterm-256color")], TTY, Ansi256),
            (&[("TERM", "xterm-direct")], TTY, Truecolor),
            (&[("TERM", "xterm")], TTY, Basic),
            (&[("TERM", "xterm-256color")], PIPE, Off),
            (&[("COLORTERM", "truecolor")], PIPE, Off),
        ];
        for (pairs, kind, expected) in table {
            let env = env_of(pairs);
            assert_eq!(
                color_depth(&env, *kind),
                *expected,
                "{pairs:?} on a {kind:?} stream"
            );
        }
    }

    #[test]
    fn columns_and_lines_override_the_reported_size() {
        let tty = StreamProbe {
            kind: TTY,
            size: Some((120, 40)),
            identity: Some((1, 7)),
        };
        let pipe = StreamProbe {
            kind: PIPE,
            size: None,
            identity: Some((2, 9)),
        };
        let reported = observe(HostSurface::Cli, &env_of(&[]), tty, pipe);
        assert_eq!(
            (reported.stdout.columns, reported.stdout.rows),
            (Some(120), Some(40))
        );
        assert_eq!(
            (reported.stderr.columns, reported.stderr.rows),
            (None, None)
        );

        let env = env_of(&[("COLUMNS", "80"), ("LINES", "nope")]);
        let overridden = observe(HostSurface::Cli, &env, tty, pipe);
        assert_eq!(
            (overridden.stdout.columns, overridden.stdout.rows),
            (Some(80), Some(40)),
            "COLUMNS wins, an unparsable LINES leaves the terminal's rows"
        );
        assert_eq!(
            (overridden.stderr.columns, overridden.stderr.rows),
            (Some(80), None)
        );
        let closed = observe(HostSurface::Cli, &env, tty, StreamProbe::CLOSED);
        assert_eq!(closed.stderr.columns, None, "a closed stream has no size");
        let zero = observe(HostSurface::Cli, &env_of(&[("COLUMNS", "0")]), tty, pipe);
        assert_eq!(zero.stdout.columns, Some(120), "COLUMNS=0 is no override");
    }

    #[test]
    fn shares_target_when_both_streams_name_one_open_file() {
        let at = |identity| StreamProbe {
            kind: TTY,
            size: None,
            identity,
        };
        let env = env_of(&[]);
        let same = Some((3, 11));
        assert!(observe(HostSurface::Cli, &env, at(same), at(same)).shares_target);
        assert!(!observe(HostSurface::Cli, &env, at(same), at(Some((3, 12)))).shares_target);
        assert!(!observe(HostSurface::Cli, &env, at(same), StreamProbe::CLOSED).shares_target);
    }

    #[test]
    fn the_axis_serializes_as_the_protocol_names_it() {
        let terminal = observe(
            HostSurface::Script,
            &env_of(&[("TERM", "xterm-256color")]),
            StreamProbe {
                kind: TTY,
                size: Some((100, 30)),
                identity: Some((1, 1)),
            },
            StreamProbe {
                kind: PIPE,
                size: None,
                identity: Some((1, 2)),
            },
        );
        assert_eq!(
            terminal.axis(),
            serde_json::json!({
                "state": "available",
                "source": "derived",
                "value": {
                    "hostSurface": "script",
                    "stdout": {"kind": "tty", "color": "256", "columns": 100, "rows": 30},
                    "stderr": {"kind": "pipe", "color": "none"},
                    "sharesTarget": false,
                },
            })
        );
    }

    #[test]
    fn probes_a_pseudo_terminal_with_its_size() {
        use rustix::fs::{Mode, OFlags};
        let controller =
            rustix::pty::openpt(rustix::pty::OpenptFlags::RDWR | rustix::pty::OpenptFlags::NOCTTY)
                .expect("a pseudo-terminal");
        rustix::pty::grantpt(&controller).expect("grantpt");
        rustix::pty::unlockpt(&controller).expect("unlockpt");
        let name = rustix::pty::ptsname(&controller, Vec::new()).expect("ptsname");
        let terminal = rustix::fs::open(
            name.as_c_str(),
            OFlags::RDWR | OFlags::NOCTTY,
            Mode::empty(),
        )
        .expect("the terminal side");
        let size = rustix::termios::Winsize {
            ws_row: 33,
            ws_col: 101,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        rustix::termios::tcsetwinsize(&terminal, size).expect("set the size");
        let probed = probe(terminal.as_fd());
        assert_eq!(probed.kind, StreamKind::Tty);
        assert_eq!(probed.size, Some((101, 33)));
        let again = rustix::io::dup(terminal.as_fd()).expect("dup");
        let observed = observe(
            HostSurface::Cli,
            &env_of(&[("TERM", "xterm-256color")]),
            probed,
            probe(again.as_fd()),
        );
        assert!(observed.shares_target, "one terminal on both streams");
        assert_eq!(observed.stdout.color, ColorDepth::Ansi256);
    }

    #[test]
    fn probes_a_pipe_dev_null_and_a_shared_descriptor() {
        let (reader, writer) = rustix::pipe::pipe().expect("a pipe");
        let pipe = probe(writer.as_fd());
        assert_eq!(pipe.kind, StreamKind::Pipe);
        assert_eq!(pipe.identity, probe(reader.as_fd()).identity);
        let null = std::fs::File::create("/dev/null").expect("/dev/null");
        assert_eq!(probe(null.as_fd()).kind, StreamKind::None);
        let duplicate = rustix::io::dup(writer.as_fd()).expect("dup");
        assert_eq!(probe(duplicate.as_fd()).identity, pipe.identity);
    }
}
