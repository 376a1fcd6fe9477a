//! Projectors: render events and documents out to what each consumer reads.
//!
//! Entry: [`cli::project_cli`], [`hook::project_hook`], [`mcp::project_mcp`]. Invariant: projectors read only documents
//! and render events, never Flight or worker frames, so every consumer sees the same decoded result.

pub mod cli;
pub mod hook;
pub mod mcp;
