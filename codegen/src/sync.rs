//! The one way the compiler takes a lock.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, using its data even when a thread panicked while holding it. Every lock of the
/// compiler guards a cache or a table of a long-lived loop (a watch loop's caches, the served
/// bundler, the development proxy's epochs) that a panicking holder leaves usable, at worst
/// without what it was adding; the next build or request goes on instead of panicking in turn.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
