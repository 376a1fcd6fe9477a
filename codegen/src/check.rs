//! `check`: run every stage up to the route graph and collect diagnostics; writes nothing.
