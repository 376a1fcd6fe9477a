//! Every environment variable `abgen-host` reads.
//!
//! `ABGEN_NODE` (the Node.js that runs the render worker, default `node` on `PATH`) is read by
//! `abgen_runtime::worker::locate_node`; the ones `abgen-host` itself reads are below.

/// The artifact root `abgen-host hook` answers for, instead of the directory above the running
/// executable's `bin/`. Set by `abgen hooks simulate` and by tests that run a binary from
/// outside an artifact.
pub const ABGEN_ARTIFACT: &str = "ABGEN_ARTIFACT";

/// The default of `abgen-host mcp --max-message-bytes`: the longest message a client may send.
pub const ABGEN_MCP_MAX_MESSAGE_BYTES: &str = "ABGEN_MCP_MAX_MESSAGE_BYTES";

/// The bearer token `abgen-host mcp --http` requires of every request, when set (read from the
/// environment only, so it never shows in a process list).
pub const ABGEN_MCP_HTTP_TOKEN: &str = "ABGEN_MCP_HTTP_TOKEN";

/// A file `abgen-host hook` appends one JSON line to per delivery: who answered it (the warm
/// runtime, a standalone render, or nobody) and the stderr line, if any. Hosts keep hook stderr
/// to themselves (Codex shows none of it), so this is how an operator sees how hooks are answered.
pub const ABGEN_HOOK_LOG: &str = "ABGEN_HOOK_LOG";
