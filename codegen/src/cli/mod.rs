//! Command-line definitions (clap). Behaviour lives in the stages; this module only parses.
