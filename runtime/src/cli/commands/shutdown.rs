//! How `abgen-host` stops: every way out ends the render workers it started first.
//!
//! Entry: [`on_exit_signals`] (installed before any command runs) and [`end_workers`] (after the
//! command returns). SIGTERM, SIGINT and SIGHUP are taken on a thread of their own, which removes
//! the warm socket this process owns (if it serves one), kills and reaps every live worker and
//! then ends the process: a hook or a render dies of the signal
//! as it would have (a parent sees "killed by SIGTERM"), an MCP server exits with 128 + its
//! number (130, 143), as stdio servers do. SIGKILL cannot be caught: the workers'
//! death signal covers it (`abgen_runtime::worker`'s `lifetime` module says who ends what).

use abgen_runtime::worker;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::cli::Printer;

/// How the process ends once its workers are gone.
#[derive(Debug, Clone, Copy)]
pub enum OnSignal {
    /// Die of the signal, as the process would have without the handler.
    Die,
    /// Exit with 128 + the signal's number (SIGINT 130, SIGTERM 143, SIGHUP 129).
    ExitWithCode,
}

/// Handles SIGTERM, SIGINT and SIGHUP from now on: end the workers, then end as `on_signal` says.
pub fn on_exit_signals(printer: &Printer, on_signal: OnSignal) {
    let mut signals = match Signals::new([SIGTERM, SIGINT, SIGHUP]) {
        Ok(signals) => signals,
        Err(error) => {
            // Without the handler a signal still ends this process, and on Linux the workers'
            // death signal ends them; only the explicit reap is lost.
            printer.message(format!("cannot handle exit signals: {error}"));
            return;
        }
    };
    let spawned = std::thread::Builder::new()
        .name("abgen-exit-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                // An MCP server's hook socket goes first: the process ends without dropping it.
                abgen_runtime::warm::remove_owned_sockets();
                // Dying of the signal while the worker list is still locked keeps the command's
                // thread from reporting the killed worker as a failed render first.
                worker::end_all_then(|| match on_signal {
                    OnSignal::Die => {
                        let _ = signal_hook::low_level::emulate_default_handler(signal);
                    }
                    OnSignal::ExitWithCode => std::process::exit(128 + signal),
                });
            }
        });
    if let Err(error) = spawned {
        printer.message(format!("cannot handle exit signals: {error}"));
    }
}

/// Ends every worker still running once the command is done (a hook that answered at its
/// deadline leaves its render thread, and that thread's worker, behind).
pub fn end_workers() {
    worker::end_all();
}
