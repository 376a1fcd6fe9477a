//! Hostile inputs: huge files, garbage, and nesting deep enough to overflow a recursive
//! parser. Each runs on a thread of its own with a small stack, so a stack overflow would fail
//! the test instead of passing on the main thread's larger stack: 2 MiB (the default for
//! spawned threads, and rayon's) or, to show that extraction brings its own stack, 256 KiB.

use oxc_allocator::Allocator;
use oxc_parser::Parser;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use super::deep_forms::{self, Category, FORMS, Files, Form};
use super::{extract, render_diagnostics, tool};
use crate::extract::nesting::{nesting_bound, nesting_overflow, overflow_beyond};
use crate::extract::parse::source_type;
use crate::extract::{MAX_NESTING, extract_config_module, extract_module};

fn on_small_stack<T: Send + 'static>(run: impl FnOnce() -> T + Send + 'static) -> T {
    on_stack(2 << 20, run)
}

fn on_stack<T: Send + 'static>(bytes: usize, run: impl FnOnce() -> T + Send + 'static) -> T {
    let thread = std::thread::Builder::new().stack_size(bytes).spawn(run);
    thread
        .and_then(|handle| handle.join().map_err(|_| std::io::Error::other("panicked")))
        .expect("extraction thread")
}

/// A stack far too small for any deep parse: only the parse stack extraction brings can take it.
const TINY_STACK: usize = 256 << 10;

/// Whether extracting `source` at `path` on a [`TINY_STACK`] thread reports AB5300.
fn refused_on_a_tiny_stack(path: &'static str, source: String) -> bool {
    on_stack(TINY_STACK, move || {
        extract_module(path, &tool(), &source)
            .diagnostics
            .iter()
            .any(|diagnostic| diagnostic.code.as_str() == "AB5300")
    })
}

fn is_jsx(path: &str) -> bool {
    source_type(path).is_jsx()
}

/// Parses with oxc alone on a 2 MiB thread, without the parse stack: what the pre-scan accepts
/// must fit there (the invariant of `nesting.rs`), or the test process aborts.
fn parses_unaided_in_2_mib(path: &'static str, source: String) {
    on_small_stack(move || {
        let allocator = Allocator::default();
        let returned = Parser::new(&allocator, &source, source_type(path)).parse();
        drop(returned);
    });
}

/// 122 forms, 104 MB of source in all: about 2 s in the dev profile on two cores.
#[test]
fn every_form_at_100_000_repetitions_is_refused_or_parses() {
    const REPETITIONS: usize = 100_000;
    let mut wrong = Vec::new();
    for form in FORMS {
        let source = deep_forms::source(form, REPETITIONS);
        let path = deep_forms::path(form);
        let counted = nesting_overflow(&source, is_jsx(path)).is_some();
        let refused = refused_on_a_tiny_stack(path, source);
        if counted != form.recursive || refused != form.recursive {
            wrong.push(format!(
                "{} (pre-scan {counted}, AB5300 {refused})",
                form.name
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The deepest repetition of each recursive form that the pre-scan accepts.
fn deepest_accepted(form: &Form) -> usize {
    let jsx = is_jsx(deep_forms::path(form));
    let accepted = |n: usize| nesting_overflow(&deep_forms::source(form, n), jsx).is_none();
    // Every repetition counts at least one level, so MAX_NESTING + 1 of them are refused.
    let (mut low, mut high) = (0, MAX_NESTING + 1);
    assert!(!accepted(high), "{} is not counted", form.name);
    while high - low > 1 {
        let middle = (low + high) / 2;
        if accepted(middle) {
            low = middle;
        } else {
            high = middle;
        }
    }
    low
}

#[test]
fn the_deepest_accepted_nesting_of_every_form_parses_on_any_thread() {
    for form in FORMS.iter().filter(|form| form.recursive) {
        let depth = deepest_accepted(form);
        // A form counted several times per repetition may stop sooner, never very soon.
        assert!(depth >= MAX_NESTING / 5, "{} stops at {depth}", form.name);
        let path = deep_forms::path(form);
        let source = deep_forms::source(form, depth);
        parses_unaided_in_2_mib(path, source.clone());
        refused_on_a_tiny_stack(path, source);
    }
}

/// Random nestings of every form of every category, one inside the other: a source the
/// pre-scan accepts parses with oxc alone in 2 MiB, one it refuses gets AB5300, and extraction
/// returns on a tiny stack either way.
#[test]
fn random_nestings_of_every_form_are_refused_or_parse() {
    let strategy = (
        any::<bool>(),
        prop::collection::vec((any::<prop::sample::Index>(), 1..120usize), 1..12),
    );
    let mut runner = TestRunner::new(Config {
        cases: 128,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&strategy, |(tsx, segments)| {
        let files = if tsx { Files::Tsx } else { Files::Ts };
        let forms: Vec<&Form> = FORMS
            .iter()
            .filter(|form| form.category != Category::Alone)
            .filter(|form| form.files == Files::Any || form.files == files)
            .collect();
        let chain: Vec<&Form> = segments
            .iter()
            .flat_map(|(index, count)| std::iter::repeat_n(*index.get(&forms), *count))
            .collect();
        let source = deep_forms::nested_source(&chain);
        let path = if tsx {
            "src/mcp/demo/tools/search.tsx"
        } else {
            "src/mcp/demo/tools/search.ts"
        };
        let refused = refused_on_a_tiny_stack(path, source.clone());
        if nesting_overflow(&source, tsx).is_none() {
            parses_unaided_in_2_mib(path, source);
        } else {
            prop_assert!(refused, "refused by the pre-scan but not reported");
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
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
            .map(|schema| super::schema_text(&extracted.module, &source, schema))
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

/// The scan never nests deeper than what `nesting_bound` counts without it, the bound the
/// pre-scan skips the scan under: `source` scanned with the bound as its limit never overflows.
fn within_its_bound(source: &str, jsx: bool) -> bool {
    overflow_beyond(source, jsx, nesting_bound(source.as_bytes())).is_none()
}

#[test]
fn no_form_nests_deeper_than_its_bound() {
    let mut wrong = Vec::new();
    for form in FORMS {
        let jsx = is_jsx(deep_forms::path(form));
        for repetitions in [1, 2, 7, 60, 400, 2_000] {
            if !within_its_bound(&deep_forms::source(form, repetitions), jsx) {
                wrong.push(format!("{} × {repetitions}", form.name));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn random_nestings_and_token_soups_stay_within_their_bound() {
    // Tokens that open levels, take chain steps, or make the scan read text twice (JSX text
    // that turns out to be code, a `/` that may divide), in any order.
    // Separated by `|`.
    const TOKENS: &str = concat!(
        "(|)|[|]|{|}|`|${|`}|<|>|<a>|</a>|<T>|<T,>|/>|!|~|+|-|++|--|...|",
        "?|??|??=|?.|:|=|=>|==|**|/|/[(]/|'|\"|;|,|\n|a|a:|typeof |await |",
        "new |if (a) |else |return |keyof |extends |namespace a.b.|x.y|",
        "1|.5|// c\n|/* c */",
    );
    let strategy = (
        any::<bool>(),
        prop::collection::vec(any::<prop::sample::Index>(), 1..1_500),
    );
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    });
    let tokens: Vec<&str> = TOKENS.split('|').collect();
    let forms: Vec<&Form> = FORMS.iter().collect();
    let result = runner.run(&strategy, |(jsx, picks)| {
        let soup: String = picks.iter().map(|pick| *pick.get(&tokens)).collect();
        prop_assert!(within_its_bound(&soup, jsx), "{soup:?}");
        let chain: Vec<&Form> = picks
            .iter()
            .take(40)
            .map(|pick| *pick.get(&forms))
            .collect();
        let nested = deep_forms::nested_source(&chain);
        prop_assert!(within_its_bound(&nested, jsx), "{nested:.200}");
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}

#[test]
fn a_route_of_a_few_kilobytes_is_not_scanned() {
    // The shape of an ordinary tool route: its bound is far below the limit, so the scan
    // (the most expensive part of reading a file after oxc's parse) is skipped.
    let route = r#"import { Agent } from '@agent-bundle/runtime';
import { defineTool } from 'agent-bundle/routes';
import { z } from 'zod';

const Item = z.object({ id: z.string().min(1), score: z.number().int().min(0).max(100) });

export default defineTool(
  {
    description: 'Finds the items of a team, newest first.',
    inputSchema: z.object({ team: z.array(z.string().min(1).max(64)).max(10), limit: z.int().min(1).max(50).default(10) }),
    resultSchema: z.object({ items: z.array(Item), next: z.string().nullable() }),
  },
  async ({ team, limit }, { signal }) => {
    const items = await search(team, limit, signal);
    return (
      <Agent.Result value={{ items, next: items.length === limit ? items[limit - 1].id : null }}>
        <Agent.Markdown>{`Found ${items.length} items for ${team.join(', ')}.`}</Agent.Markdown>
      </Agent.Result>
    );
  },
);
"#
    .repeat(4);
    assert!(route.len() > 3_000);
    assert!(
        nesting_bound(route.as_bytes()) < MAX_NESTING,
        "{}",
        nesting_bound(route.as_bytes())
    );
}
