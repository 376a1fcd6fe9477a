//! Snapshot tests of whole abgen runs over `fixtures/projects/*`; the tests live in `tests/`.
