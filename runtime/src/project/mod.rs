//! Projectors: render events and documents out to what each consumer reads.
//!
//! Entry: [`cli::project_cli`]. Invariant: projectors read only documents and render events,
//! never Flight or worker frames, so every consumer sees the same decoded result.

pub mod cli;
