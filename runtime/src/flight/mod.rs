//! The React Flight decoder: production Flight bytes in, Agent Document render events out.
//!
//! Entry: [`FlightDecoder`] — `push` bytes as they arrive (split anywhere), `progress` for worker
//! progress frames, `finish` at end of stream. Invariant: input never panics the decoder; a broken
//! stream, an unknown element or an exceeded limit ends the render with an `error` event and a
//! failed `complete`, and nothing follows `complete`.

mod chunks;
mod decoder;
mod error;
mod model;
mod pending;
mod rows;
mod snapshot;
mod values;

pub use decoder::FlightDecoder;
pub use error::FlightError;
