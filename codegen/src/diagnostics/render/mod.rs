//! Renderers of diagnostics, one file per output format.
