//! Stack room for recursive walks over JSON the runtime cannot bound by construction: printed
//! JSON Schemas, from the compiler or computed by zod at run time.
//!
//! Entry call: [`recurse`] at every recursion point. Invariant: no walk depends on the calling
//! thread's stack (a main thread, a tokio or rayon worker, a test thread): when less room is
//! left than one level needs, the level runs on a fresh segment allocated for it. The compiler
//! uses the same function for its own recursive readers (`abgen`'s `stack` module re-exports
//! it).

/// The room below which [`recurse`] moves to a new segment: more than one level of the deepest
/// recursion that uses it takes between two calls of it in a debug build (the compiler's schema
/// translation spends about 10 KiB per schema level).
const RED_ZONE: usize = 256 << 10;

/// The size of each segment [`recurse`] adds.
const SEGMENT: usize = 4 << 20;

/// Runs one level of a recursive walk, first moving to a new stack segment when the current one
/// is nearly used up.
pub fn recurse<T>(level: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(RED_ZONE, SEGMENT, level)
}
