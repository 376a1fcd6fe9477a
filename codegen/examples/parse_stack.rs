//! What oxc's parse costs in stack, per repetition of every nesting form of the extractor's test
//! corpus (`src/extract/tests/deep_forms.rs`, included here as it is). `parse_stack [FORM]`
//! finds, for 1,000 and for 3,000 repetitions, the least thread stack (to 8 KiB) that oxc alone
//! parses the form in, each attempt in a child process (an overflow aborts it), and prints the
//! difference per repetition as a Markdown table row. `parse_stack --pre-scan` instead prints,
//! for every form, whether the nesting pre-scan refuses it at 100,000 repetitions when extraction
//! runs it. The figures recorded in `bench/stack/README.md` and `src/stack.rs` come from here.

#![allow(
    clippy::print_stdout,
    reason = "an example that prints its measurements"
)]

#[allow(
    dead_code,
    reason = "the corpus also serves tests this example does not run"
)]
#[path = "../src/extract/tests/deep_forms.rs"]
mod deep_forms;

use std::process::Command;

use deep_forms::{FORMS, Form};

const DEPTHS: (usize, usize) = (1_000, 3_000);

fn form(name: &str) -> &'static Form {
    FORMS
        .iter()
        .find(|form| form.name == name)
        .unwrap_or_else(|| panic!("no form named {name}"))
}

/// In the child: parse `name` repeated `depth` times on a thread of `stack` bytes.
fn parse_in_child(name: &str, depth: usize, stack: usize) {
    let form = form(name);
    let source = deep_forms::source(form, depth);
    let path = deep_forms::path(form);
    let parsed = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            let allocator = oxc_allocator::Allocator::default();
            let source_type = oxc_span::SourceType::from_path(path).unwrap_or_default();
            let returned = oxc_parser::Parser::new(&allocator, &source, source_type).parse();
            returned.diagnostics.len()
        })
        .and_then(|thread| thread.join().map_err(|_| std::io::Error::other("panicked")));
    assert!(parsed.is_ok());
}

/// Whether the form parses at `depth` in `stack` bytes, asked of a fresh process.
fn fits(name: &str, depth: usize, stack: usize) -> bool {
    let exe = std::env::current_exe().expect("own path");
    Command::new(exe)
        .args(["--child", name, &depth.to_string(), &stack.to_string()])
        // The overflow's own report is the expected outcome of most attempts.
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// The least stack, in KiB to 8 KiB, that `name` parses in at `depth`; `None` above 1 GiB.
fn least_stack(name: &str, depth: usize) -> Option<usize> {
    let (mut low, mut high) = (16usize, 1 << 20);
    if !fits(name, depth, high << 10) {
        return None;
    }
    while high - low > 8 {
        let middle = (low + high) / 2;
        if fits(name, depth, middle << 10) {
            high = middle;
        } else {
            low = middle;
        }
    }
    Some(high)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, name, depth, stack] if flag == "--child" => {
            parse_in_child(
                name,
                depth.parse().expect("depth"),
                stack.parse().expect("stack"),
            );
        }
        [flag] if flag == "--pre-scan" => {
            let kind = abgen::project::ModuleKind::Tool {
                server: "demo".to_owned(),
                name: "search".to_owned(),
            };
            for form in FORMS {
                let source = deep_forms::source(form, 100_000);
                let extracted =
                    abgen::extract::extract_module(deep_forms::path(form), &kind, &source);
                let refused = extracted
                    .diagnostics
                    .iter()
                    .any(|diagnostic| diagnostic.message.contains("levels deep"));
                println!("| {} | {} | {refused} |", form.name, form.recursive);
            }
        }
        names => {
            println!(
                "| form | KiB at {} | KiB at {} | bytes per repetition |",
                DEPTHS.0, DEPTHS.1
            );
            println!("| --- | ---: | ---: | ---: |");
            let chosen: Vec<&Form> = if names.is_empty() {
                FORMS.iter().filter(|form| form.recursive).collect()
            } else {
                names.iter().map(|name| form(name)).collect()
            };
            for form in chosen {
                let (Some(low), Some(high)) = (
                    least_stack(form.name, DEPTHS.0),
                    least_stack(form.name, DEPTHS.1),
                ) else {
                    println!("| {} | over 1 GiB | | |", form.name);
                    continue;
                };
                let per = (high.saturating_sub(low) << 10) / (DEPTHS.1 - DEPTHS.0);
                println!("| {} | {low} | {high} | {per} |", form.name);
            }
        }
    }
}
