//! abgen-runtime: the runtime shipped in every artifact as `bin/abgen-host`.
//!
//! It owns the compiled artifact manifest types (`manifest`), which the compiler depends on;
//! the compiler never depends on anything else here, and this crate never depends on the compiler.

pub mod canonical;
pub mod document;
pub mod flight;
pub mod hosts;
pub mod kernel;
pub mod manifest;
pub mod mcp;
pub mod plugin_cli;
pub mod project;
pub mod terminal;
pub mod warm;
pub mod web;
pub mod worker;
