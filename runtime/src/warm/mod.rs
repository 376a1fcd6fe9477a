//! The warm runtime: a private local socket on which a long-lived process (the MCP server, which
//! keeps a render worker warm) answers render requests, so a hook need not start Node
//! (ARCHITECTURE.md §7; schema: `schemas/warm-protocol.schema.json`).
//!
//! Entry: [`WarmHost::start`] in `abgen-host mcp` (the MCP process's own kernel renders the
//! hooks), [`WarmServer::bind`] under it (any [`RenderSource`]), [`request`] on the hook side. Invariants: the socket lives in a 0700
//! directory owned by the user, under a name derived from the plugin root and artifact digest,
//! owned by exactly one server through an flock; both ends check that the peer runs as the same
//! user; a request for another digest is refused, never answered with another artifact's render.

mod client;
mod frame;
mod host;
mod kernel_source;
mod path;
mod protocol;
mod server;

pub use client::{WarmError, final_document, read_reply, request, request_first};
pub use frame::{MAX_FRAME_BYTES, read_frame, write_frame};
pub use host::{HostLog, TAKEOVER_POLL, WarmHost};
pub use path::{PathError, SocketPath, current_uid, peer_uid};
pub use protocol::{WARM_PROTOCOL, WarmKind, WarmRefusal, WarmRequest};
pub use server::{BindError, RenderSource, ServeLimits, WarmServer, remove_owned_sockets};
