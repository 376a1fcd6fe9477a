//! abgen-runtime: the runtime shipped in every artifact as `bin/abgen-host`.
//!
//! It owns the compiled artifact manifest types (`manifest`) and the JSON Schema projections
//! for hosts (`schema_profile`, with the `stack` rule its walks grow by), which the compiler
//! depends on; the compiler never depends on anything else here, and this crate never depends
//! on the compiler.

pub mod canonical;
pub mod document;
pub mod flight;
pub mod hosts;
pub mod kernel;
pub mod manifest;
pub mod mcp;
pub mod plugin_cli;
pub mod project;
pub mod schema_profile;
pub mod stack;
pub mod terminal;
pub mod warm;
pub mod web;
pub mod worker;
