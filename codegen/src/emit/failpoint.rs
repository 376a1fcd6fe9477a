//! Deterministic failpoints for the staging and swap steps: `ABGEN_FAILPOINT` names one or more
//! steps (comma-separated); at a named step the build fails or dies there, so tests prove what a
//! failed or killed build leaves behind without relying on timing. Entry: [`Failpoint::hit`].
//!
//! Unset (always, outside tests) every check is one environment lookup per step.

use super::error::EmitError;

/// The environment variable naming the steps to fail at.
pub const FAILPOINT_ENV: &str = "ABGEN_FAILPOINT";

/// A step of staging and swapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failpoint {
    /// Writing the staging tree fails with an I/O error (a failed build).
    StageWrite,
    /// The process dies with the staging tree complete, before the swap.
    BeforeSwap,
    /// The process dies after the exchange, with the previous artifact still in the staging name.
    AfterSwap,
    /// The kernel reports that it cannot exchange (forces the two-rename swap).
    ExchangeUnsupported,
    /// The process dies between the two renames of the fallback swap.
    BetweenRenames,
    /// The process dies after the fallback's second rename, the previous artifact still aside.
    AfterRenames,
}

impl Failpoint {
    pub const fn name(self) -> &'static str {
        match self {
            Failpoint::StageWrite => "stage-write",
            Failpoint::BeforeSwap => "before-swap",
            Failpoint::AfterSwap => "after-swap",
            Failpoint::ExchangeUnsupported => "exchange-unsupported",
            Failpoint::BetweenRenames => "between-renames",
            Failpoint::AfterRenames => "after-renames",
        }
    }

    /// Whether `ABGEN_FAILPOINT` names this step.
    pub fn is_set(self) -> bool {
        std::env::var(FAILPOINT_ENV)
            .is_ok_and(|steps| steps.split(',').any(|step| step.trim() == self.name()))
    }

    /// At a named step: an error for [`Failpoint::StageWrite`], the end of the process (as if
    /// killed) for the others.
    pub fn hit(self) -> Result<(), EmitError> {
        if !self.is_set() {
            return Ok(());
        }
        if self == Failpoint::StageWrite {
            return Err(EmitError::Io {
                action: "write (failpoint)",
                path: self.name().into(),
                source: std::io::Error::other("injected by ABGEN_FAILPOINT"),
            });
        }
        std::process::abort()
    }
}
