//! Host envelopes in, native hook outputs out: one table of data per host, looked up by the
//! decoder and encoder ids that the manifest's hook bindings name (`claude.tool`,
//! `claude.pre-tool`, …). Each host file starts with a table of its native events and their
//! decoder and encoder ids: `claude.rs`, `codex.rs`, `cursor.rs`.
//!
//! Entry: [`decoder`] and [`encoder`], then [`Decoder::decode`] (stdin payload → canonical event,
//! or the reason to stay silent) and [`Encoder::encode`] (hook answer → stdout). A new host adds
//! one file of tables beside `claude.rs` and one line to [`HOSTS`]. Invariant: no payload makes a
//! decoder panic, and a payload it does not recognise as its host's answers with silence.

mod claude;
mod codex;
mod cursor;
mod decode;
mod encode;
mod json;

pub use decode::{
    DecodeInput, Decoded, Decoder, HostEnvelope, Silence, ToolNames, ToolRow, ToolShape,
};
pub use encode::{Accepts, Encoder, NativeOutput};
pub use json::{JsonError, Payload, read_payload};

/// What abgen knows about each host's hooks.
pub struct HostTables {
    pub decoders: &'static [Decoder],
    pub encoders: &'static [Encoder],
}

/// Every host this runtime answers hooks for.
pub const HOSTS: &[HostTables] = &[claude::TABLES, codex::TABLES, cursor::TABLES];

/// The decoder named `id`.
pub fn decoder(id: &str) -> Option<&'static Decoder> {
    HOSTS
        .iter()
        .flat_map(|host| host.decoders)
        .find(|decoder| decoder.id == id)
}

/// The encoder named `id`.
pub fn encoder(id: &str) -> Option<&'static Encoder> {
    HOSTS
        .iter()
        .flat_map(|host| host.encoders)
        .find(|encoder| encoder.id == id)
}
