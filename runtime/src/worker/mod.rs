//! Supervising the Node render worker: finding Node, spawning it with the frame pipes on fds 3
//! and 4, checking its hello, and turning one render request into a stream of frames.
//!
//! Entry: [`Worker::start`], then [`Worker::render_events`] (or [`Worker::render`] for raw
//! frames); [`SupervisedWorker`] starts one lazily and replaces it after a crash; [`end_all`]
//! ends every worker on the way out (`lifetime` says who starts and ends each process).
//! Invariant: a worker that misbehaves (wrong identity, malformed frame, past its
//! deadline) is killed, and the caller gets an error value naming what happened — never a hang.

mod frame;
mod lifetime;
mod node;
mod protocol;
mod restart;
mod supervisor;

pub use frame::{Frame, FrameBuffer, MAX_FRAME_BYTES, encode_frame};
pub use lifetime::{end_all, end_all_then};
pub use node::{NodeBinary, find_node, find_node_in, locate_node, locate_node_in};
pub use protocol::{
    ComputedSchemas, HostMessage, RenderLimits, RenderRequest, RouteKind, SchemasRequest,
    WORKER_PROTOCOL, WorkerIdentity, WorkerMessage,
};
pub use restart::SupervisedWorker;
pub use supervisor::{Abort, RenderStream, WORKER_SERVER_ENV, Worker, WorkerConfig, WorkerError};
