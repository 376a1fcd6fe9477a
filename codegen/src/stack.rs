//! Stack room for the recursion abgen cannot bound by construction: oxc's recursive-descent
//! parser (and the walks over what it returns), and abgen's own recursive readers of captured
//! schema trees, literal values and printed schemas.
//!
//! Entry calls: [`with_parse_stack`] around one file's parse and everything that reads its AST
//! (and around the compilation of a literal JSON Schema, which recurses in `jsonschema`),
//! [`recurse`] at every recursion point abgen owns, [`install_worker_stacks`] once at the start
//! of the `abgen` binary. Invariant: no entry depends on the calling thread's stack (the
//! process's main thread, a rayon worker, a test thread): when less room is left than the call
//! needs, the closure runs on a fresh segment allocated for it, so a source the nesting
//! pre-scan (`extract::nesting`) accepts parses on any thread.
//!
//! Sizes, from `oxc_parser` 0.146 measured per repetition of every form of the extractor's test
//! corpus in the dev and release profiles (`bench/stack/README.md`, `examples/parse_stack.rs`):
//! 140–580 B per step of a prefix chain (`!`, `typeof`, `new`, `a=`, `**`, `if (a)`, labels,
//! `keyof`), up to 1,000 B per `=>`, 900–1,900 B per bracket or body (`(`, `[`, `{a:`, template
//! substitutions, function bodies, JSX expressions, tuple and object types, type arguments), at
//! most 1.9 KB per level the pre-scan counts. A source the pre-scan accepts (at most
//! [`crate::extract::MAX_NESTING`] levels) therefore needs under 1 MiB. [`PARSE_STACK`] is 64
//! MiB: a recursive production the pre-scan failed to model still parses to a depth of about
//! 35,000 levels of the costliest bracket and over 100,000 of any prefix chain instead of
//! aborting the process, and a source under 36 KB parses whatever it holds (none of the forms
//! measured takes more than 1.8 KB per byte of source: the `[` of a tuple type). The
//! segment is reserved address space: only the pages a parse touches are ever backed by
//! memory. A fresh segment costs about 15 µs (map, guard page, unmap), a sixth of an average
//! route's whole check, hence [`install_worker_stacks`].

/// The stack a parse and its AST walks may use.
pub const PARSE_STACK: usize = 64 << 20;

/// Runs `parse` with at least [`PARSE_STACK`] bytes of stack left for it.
pub fn with_parse_stack<T>(parse: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(PARSE_STACK, PARSE_STACK, parse)
}

/// One level of a recursive walk: the runtime's, shared so the compiler and the runtime's schema
/// projections grow their stacks by one rule.
pub use abgen_runtime::stack::recurse;

/// The stack of each rayon worker of the `abgen` binary: a parse's room plus what the pool
/// itself uses below it, so [`with_parse_stack`] never needs a fresh segment there.
pub const WORKER_STACK: usize = PARSE_STACK + (2 << 20);

/// Gives the global rayon pool [`WORKER_STACK`]-sized threads. Call before anything uses rayon;
/// if the pool already exists it is left as it is (parses then move to fresh segments).
pub fn install_worker_stacks() {
    let _ = rayon::ThreadPoolBuilder::new()
        .stack_size(WORKER_STACK)
        .build_global();
}
