//! Hostile inputs: huge files, garbage, and nesting deep enough to overflow a recursive
//! parser. Each runs on a 2 MiB thread (the default for spawned threads) so a stack overflow
//! would fail the test instead of passing on the main thread's larger stack.

use super::{extract, render_diagnostics, tool};
use crate::extract::{MAX_NESTING, extract_config_module};

fn on_small_stack<T: Send + 'static>(run: impl FnOnce() -> T + Send + 'static) -> T {
    let thread = std::thread::Builder::new().stack_size(2 << 20).spawn(run);
    thread
        .and_then(|handle| handle.join().map_err(|_| std::io::Error::other("panicked")))
        .expect("extraction thread")
}

fn codes(source: String) -> String {
    on_small_stack(move || {
        let extracted = extract(&tool(), &source);
        let mut codes: Vec<&str> = extracted
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        codes.dedup();
        codes.join(",")
    })
}

#[test]
fn deep_nesting_is_refused_before_parsing() {
    let depth = 10_000;
    assert_eq!(
        codes(format!(
            "export const config = {}{};",
            "[".repeat(depth),
            "]".repeat(depth)
        )),
        "AB5300"
    );
    assert_eq!(
        codes(format!(
            "export const config = {}1{};",
            "(".repeat(depth),
            ")".repeat(depth)
        )),
        "AB5300"
    );
    assert_eq!(
        codes(format!(
            "export const config = {}1{};",
            "{a:".repeat(depth),
            "}".repeat(depth)
        )),
        "AB5300"
    );
    assert_eq!(
        codes(format!("export const f = {}1;", "x => ".repeat(depth))),
        "AB5300"
    );
    assert_eq!(
        codes(format!("export const f = {}1;", "x ? 1 : ".repeat(depth))),
        "AB5300"
    );
    assert_eq!(
        codes(format!(
            "export const f = {}{};",
            "<a>".repeat(depth),
            "</a>".repeat(depth)
        )),
        "AB5300"
    );
    assert_eq!(
        codes(format!(
            "export const f = `{}{}`;",
            "${`".repeat(depth),
            "`}".repeat(depth)
        )),
        "AB5300"
    );
    let json = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let read = on_small_stack(move || extract_config_module("agent-bundle.config.json", &json));
    assert_eq!(read.diagnostics[0].code.as_str(), "AB5300");
}

#[test]
fn nesting_just_under_the_limit_is_read_with_bounded_recursion() {
    // Deep enough to pass the pre-scan, deeper than the extractor's own readers go.
    let depth = MAX_NESTING - 10;
    let source = format!(
        "import {{ z }} from 'zod';\nexport const config = {{ a: {}{} }};\nexport const inputSchema = {}z.string(){};\n",
        "[".repeat(depth),
        "]".repeat(depth),
        "z.array(".repeat(depth / 2 - 2),
        ")".repeat(depth / 2 - 2),
    );
    let rendered = on_small_stack(move || {
        let extracted = extract(&tool(), &source);
        let schema = extracted
            .module
            .input_schema
            .map(|schema| format!("{schema:?}"))
            .unwrap_or_default();
        (
            render_diagnostics(&extracted.diagnostics),
            schema.contains("nested deeper"),
        )
    });
    assert!(
        rendered.0.contains("AB4806 2:")
            && rendered.0.contains("a value nested deeper than 256 levels"),
        "{}",
        rendered.0
    );
    assert!(
        !rendered.1,
        "a 243-deep call chain is within the capture limit"
    );
}

#[test]
fn long_flat_chains_do_not_recurse() {
    let members = format!(
        "export const inputSchema = z{};\n",
        ".optional()".repeat(20_000)
    );
    let chained = codes(members);
    assert!(!chained.contains("AB5300"), "{chained}");
    // Only the tool contract speaks: the 50,000 statements themselves are fine.
    let statements = "const a = 1;\n".repeat(50_000);
    assert_eq!(codes(statements), "AB4810");
}

#[test]
fn a_five_megabyte_source_is_read() {
    let property = "  key: 'a string value that is not short, to fill the file quickly',\n";
    let body = property.repeat(5 * 1024 * 1024 / property.len());
    let source = format!("export const config = {{\n{body}}};\nexport default async () => null;\n");
    assert!(source.len() >= 5_000_000);
    let output = codes(source);
    // Duplicate keys are fine in the grammar (last wins); the only finding is the missing schemas.
    assert_eq!(output, "AB4810");
}

#[test]
fn garbage_text_yields_diagnostics_not_panics() {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut garbage = String::new();
    for _ in 0..200_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let byte = (seed % 96) as u8 + 32;
        garbage.push(if seed.is_multiple_of(41) {
            '\u{fffd}'
        } else if seed.is_multiple_of(37) {
            '\0'
        } else {
            byte as char
        });
    }
    let output = codes(garbage.clone());
    assert!(output.starts_with("AB5300"), "{output}");
    let read = on_small_stack(move || extract_config_module("agent-bundle.config.ts", &garbage));
    assert!(read.value.is_none());
}
