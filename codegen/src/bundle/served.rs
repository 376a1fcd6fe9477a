//! One long-lived Node process running `templates/esbuild-worker.mjs` in its served mode, for a
//! watch loop: it keeps an esbuild context per bundle, so a rebuild reparses only the files
//! that changed instead of starting Node and esbuild and parsing React and every route again.
//! Entry: [`ServedBundler`], held by the loop's [`super::ScriptCache`].
//!
//! Who starts it and who ends it: the first bundle a [`ServedBundler`] is asked for starts the
//! process (so `abgen dev` and `abgen build --watch` start it, and a one-off build, which holds
//! no cache, never does); dropping the [`ServedBundler`] — the watch loop returning, however it
//! was told to stop — closes its stdin, waits for it a bounded time and kills it if it is still
//! there. Killed outright, abgen cannot do that: the process then sees its stdin end and exits
//! by itself. It runs in a process group of its own, so a terminal's Ctrl-C reaches only abgen,
//! which then ends it as above.
//!
//! Invariant: an answer is exactly what the one-shot run of the same script and request writes
//! (the script computes both with one function). Anything wrong with the served process (it
//! cannot start, dies, answers out of turn) ends it and returns nothing, and the caller runs
//! the request one-shot, whose own failure is then the one reported.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::esbuild::{NodeRun, node_program};

/// How long a served process may take to exit once its stdin is closed before it is killed.
const EXIT_BOUND: Duration = Duration::from_secs(2);

/// The served bundling process, started on first use (see the module doc).
#[derive(Default)]
pub struct ServedBundler {
    served: Mutex<Option<Served>>,
}

impl std::fmt::Debug for ServedBundler {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ServedBundler")
            .field("pid", &self.pid())
            .finish()
    }
}

struct Served {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

/// The header line of one answer of the served loop; `stdout_bytes` bytes of stdout follow it.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    id: u64,
    stdout_bytes: usize,
    stderr: String,
    code: i32,
}

impl ServedBundler {
    fn served(&self) -> MutexGuard<'_, Option<Served>> {
        crate::sync::lock(&self.served)
    }

    /// The served process's id, while one runs.
    pub fn pid(&self) -> Option<u32> {
        self.served().as_ref().map(|served| served.child.id())
    }

    /// Runs `payload` through the served `script` (started in `working_dir` if none runs), or
    /// nothing when the served process cannot answer (see the module doc).
    pub(crate) fn run(
        &self,
        script: &str,
        payload: &serde_json::Value,
        working_dir: &Path,
    ) -> Option<NodeRun> {
        if cfg!(not(unix)) {
            return None;
        }
        let mut served = self.served();
        if served.is_none() {
            *served = Served::start(script, working_dir);
        }
        let answer = served.as_mut()?.ask(payload);
        if answer.is_none()
            && let Some(broken) = served.take()
        {
            broken.end();
        }
        answer
    }
}

impl Served {
    fn start(script: &str, working_dir: &Path) -> Option<Self> {
        let mut command = Command::new(node_program());
        command
            .args([
                "--input-type=module",
                "--eval",
                script,
                "--",
                r#"{"serve":true}"#,
            ])
            .current_dir(working_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // What the served loop itself could not answer goes into an answer's stderr; Node's
            // own last words, if it dies, are of no use to the user (the one-shot run follows).
            .stderr(Stdio::null());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().ok()?;
        let stdin = child.stdin.take()?;
        let stdout = BufReader::new(child.stdout.take()?);
        Some(Served {
            child,
            stdin,
            stdout,
            next_id: 0,
        })
    }

    fn ask(&mut self, payload: &serde_json::Value) -> Option<NodeRun> {
        self.next_id += 1;
        let id = self.next_id;
        // One write of the whole line: serde_json's byte writer, not `Display` (which formats
        // the worker entry's text a piece at a time), and no copy of the payload.
        #[derive(serde::Serialize)]
        struct Request<'a> {
            id: u64,
            request: &'a serde_json::Value,
        }
        let mut line = serde_json::to_vec(&Request {
            id,
            request: payload,
        })
        .ok()?;
        line.push(b'\n');
        self.stdin.write_all(&line).ok()?;
        self.stdin.flush().ok()?;
        let mut line = String::new();
        if self.stdout.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let answer: Answer = serde_json::from_str(&line).ok()?;
        if answer.id != id {
            return None;
        }
        let mut stdout = vec![0; answer.stdout_bytes];
        self.stdout.read_exact(&mut stdout).ok()?;
        Some(NodeRun {
            stdout,
            stdout_read: true,
            stderr: answer.stderr,
            status: exit_status(answer.code)?,
        })
    }

    /// Closes the process's stdin (its served loop then ends), waits for it at most
    /// [`EXIT_BOUND`], and kills it if it is still there.
    fn end(self) {
        let Served {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        let deadline = Instant::now() + EXIT_BOUND;
        while Instant::now() < deadline {
            match child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for ServedBundler {
    fn drop(&mut self) {
        if let Some(served) = self.served().take() {
            served.end();
        }
    }
}

#[cfg(unix)]
fn exit_status(code: i32) -> Option<std::process::ExitStatus> {
    use std::os::unix::process::ExitStatusExt;
    u8::try_from(code)
        .ok()
        .map(|code| std::process::ExitStatus::from_raw(i32::from(code) << 8))
}

#[cfg(not(unix))]
fn exit_status(_code: i32) -> Option<std::process::ExitStatus> {
    // No way to make an `ExitStatus` here: every request runs one-shot.
    None
}
