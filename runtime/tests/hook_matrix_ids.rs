//! The compiler's host matrix (`host-matrix/<host>.toml`) and the runtime's host tables agree:
//! every decoder and encoder id an event row names exists here, belongs to that host, and an
//! event the matrix calls deny-capable has an encoder that can write a deny.

use std::path::Path;

use abgen_runtime::hosts;

/// `key = value` of one `[[events]]` block, the value without its quotes.
fn field<'b>(block: &'b str, key: &str) -> Option<&'b str> {
    block.lines().find_map(|line| {
        let (name, value) = line.split_once('=')?;
        (name.trim() == key).then(|| value.trim().trim_matches('"'))
    })
}

#[test]
fn every_matrix_row_names_runtime_tables() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("../host-matrix");
    let mut checked = 0;
    for host in ["claude", "codex", "cursor"] {
        let text = std::fs::read_to_string(directory.join(format!("{host}.toml"))).unwrap();
        for block in text.split("[[events]]").skip(1) {
            let block = block.split("\n[[").next().unwrap_or(block);
            let (Some(event), Some(decoder), Some(encoder)) = (
                field(block, "event"),
                field(block, "decoder"),
                field(block, "encoder"),
            ) else {
                continue;
            };
            let prefix = format!("{host}.");
            assert!(
                decoder.starts_with(&prefix) && encoder.starts_with(&prefix),
                "{host} {event}"
            );
            assert!(
                hosts::decoder(decoder).is_some(),
                "{host} {event}: no decoder `{decoder}`"
            );
            let encoder_row = hosts::encoder(encoder)
                .unwrap_or_else(|| panic!("{host} {event}: no encoder `{encoder}`"));
            // A route the compiler lets deny must have its deny delivered. (An encoder may
            // write a deny where the matrix keeps routes from denying: Claude reads a block
            // after a failed tool, which the matrix does not offer.)
            if field(block, "deny") == Some("true") {
                assert!(
                    encoder_row.accepts.deny,
                    "{host} {event}: the matrix lets routes deny; `{encoder}` cannot"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 30, "{checked}");
}
