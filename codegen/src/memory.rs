//! How the kernel backs the `abgen` binary's memory.
//!
//! Entry calls: [`use_base_pages_from_start`], from the binary's `.init_array` before anything
//! allocates, then [`restore_huge_pages`] once the command line says the command is not
//! `check`, `generate` or `inspect`, whose heaps stay small. The binary's allocator (mimalloc)
//! asks for transparent huge pages on its arena, and the first touch of any byte of a 2 MiB huge
//! page makes the kernel find, perhaps compact, and zero all of it: `abgen check` of 1,000 routes
//! touched 53 MB for a live heap of 16 MB. On base pages it touches 32 MB, and its time no
//! longer depends on what ran before it. Measured at 1,000 routes
//! (`bench/check/results-base-pages.md`, `bench/README.md`): right after another process freed
//! its memory, `check` took 36.5 ms on base pages against 78.3 ms on huge pages and `generate`
//! 44.5 against 105.1 ms; where huge pages come free, base pages cost up to a twentieth
//! (`check`) or a tenth (`generate`, `inspect`). `abgen build`, whose heap passes 100 MB, keeps
//! them: there the best case gains more (66 against 75 ms at the minimum, 25,000 fewer page
//! faults) and the worst loses less (115 against 84 ms) than for the small heaps.
//!
//! The choice is made before `main` because the Rust runtime allocates before it: that first
//! allocation reserves mimalloc's arena, and its first touch was a whole huge page, zeroed on
//! the main thread before any work could start, for every command.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether [`use_base_pages_from_start`] turned huge pages off, so that
/// [`restore_huge_pages`] turns them on again (and never where the process started without
/// them, e.g. inherited from its parent).
static OFF_FROM_START: AtomicBool = AtomicBool::new(false);

/// Base pages from the process's first allocation on, when it started with huge pages allowed.
///
/// Called from the binary's `.init_array`, before the Rust runtime is set up: it allocates
/// nothing and cannot panic.
#[cfg(target_os = "linux")]
#[expect(
    unsafe_code,
    reason = "prctl is a raw libc call; PR_GET_THP_DISABLE takes integer arguments only and \
              touches no memory of this process"
)]
pub fn use_base_pages_from_start() {
    let unused: libc::c_ulong = 0;
    // SAFETY: see the reason above. The answer is 1 when huge pages are off, 0 when they are
    // allowed, and -1 on a kernel without the option.
    let disabled = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, unused, unused, unused, unused) };
    if disabled == 0 {
        use_base_pages();
        OFF_FROM_START.store(true, Ordering::Relaxed);
    }
}

/// Base pages from the process's first allocation on.
#[cfg(not(target_os = "linux"))]
pub fn use_base_pages_from_start() {}

/// Allows huge pages again if [`use_base_pages_from_start`] turned them off; mimalloc's arena
/// keeps its advice, so the allocations from now on may get them.
#[cfg(target_os = "linux")]
#[expect(
    unsafe_code,
    reason = "prctl is a raw libc call; PR_SET_THP_DISABLE takes integer arguments only and \
              touches no memory of this process"
)]
pub fn restore_huge_pages() {
    if OFF_FROM_START.swap(false, Ordering::Relaxed) {
        let unused: libc::c_ulong = 0;
        // SAFETY: see the reason above; the option was set by this process, so it exists.
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, unused, unused, unused, unused);
        }
    }
}

/// Allows huge pages again if [`use_base_pages_from_start`] turned them off.
#[cfg(not(target_os = "linux"))]
pub fn restore_huge_pages() {}

/// Asks the kernel to back this process's memory from now on with base pages only.
///
/// The setting is the process's and is inherited by its children; a kernel without it (before
/// Linux 3.15, or not Linux) leaves the process as it was.
#[cfg(target_os = "linux")]
#[expect(
    unsafe_code,
    reason = "prctl is a raw libc call; PR_SET_THP_DISABLE takes integer arguments only and \
              touches no memory of this process"
)]
pub fn use_base_pages() {
    // prctl is variadic and the kernel reads each argument as an unsigned long (and refuses
    // the option unless the last three are zero), so they are passed at that width.
    let (disable, unused): (libc::c_ulong, libc::c_ulong) = (1, 0);
    // SAFETY: see the reason above. A kernel without the option answers EINVAL, and the
    // process then goes on with huge pages, so the result is not checked.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, disable, unused, unused, unused);
    }
}

/// Asks the kernel to back this process's memory from now on with base pages only.
#[cfg(not(target_os = "linux"))]
pub fn use_base_pages() {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::{restore_huge_pages, use_base_pages, use_base_pages_from_start};

    /// The kernel reports the setting in `/proc/self/status` (Linux 5.0 and later).
    fn thp_enabled() -> Option<String> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        status
            .lines()
            .find_map(|line| line.strip_prefix("THP_enabled:"))
            .map(|value| value.trim().to_owned())
    }

    #[test]
    fn base_pages_turn_huge_pages_off_for_the_process() {
        // The test process keeps the setting; no other test depends on huge pages. One test, so
        // that no other thread of the harness changes it between the steps.
        let at_start = thp_enabled();
        use_base_pages_from_start();
        assert_eq!(thp_enabled().as_deref(), Some("0"));
        restore_huge_pages();
        assert_eq!(
            thp_enabled(),
            at_start,
            "restored to what the process started with"
        );
        use_base_pages();
        assert_eq!(thp_enabled().as_deref(), Some("0"));
        // Off before the first call, so the restore leaves it off.
        use_base_pages_from_start();
        restore_huge_pages();
        assert_eq!(thp_enabled().as_deref(), Some("0"));
    }
}
