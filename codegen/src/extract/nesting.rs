//! A lexical pre-scan that bounds how deeply a source nests before oxc sees it.
//!
//! oxc's parser is recursive descent with no depth limit, so a hostile or generated file (ten
//! thousand `[` in a row) would overflow the thread's stack: a crash no diagnostic can report.
//! Entry call: [`nesting_overflow`]. Invariant: a source it accepts parses within a 2 MiB stack.
//!
//! The estimate is a conservative count over bytes, not a parse: every open `(`, `[`, `{` and
//! template substitution is one level, and each statement-level run of right-recursive tokens
//! (`=>`, a ternary `?`, an opening JSX or type-argument `<name`) adds one level until the next
//! `;` or `,` of that bracket level. Strings, comments and regular expressions are skipped.
//! A measurement on oxc 0.146 (debug build, 2 MiB thread) overflowed between 1,000 and 3,000
//! nested brackets and between 3,000 and 10,000 arrows or JSX elements, hence [`MAX_NESTING`].
//! Long `else if` chains are not counted: they recurse too, but need ~3,000 links to matter.

/// The deepest nesting the extractor parses; deeper sources get AB5300 without being parsed.
pub const MAX_NESTING: usize = 500;

/// The byte offset where `source` first nests deeper than [`MAX_NESTING`], if it does.
pub fn nesting_overflow(source: &str) -> Option<u32> {
    let bytes = source.as_bytes();
    // Every level and chain step the exact scan counts starts at one of these bytes, so a source
    // with fewer of them than the limit cannot overflow. Counting them is a tight loop the
    // compiler vectorises; the exact scan below runs only for the rare source that has enough.
    let openers = bytes
        .iter()
        .filter(|byte| matches!(byte, b'(' | b'[' | b'{' | b'`' | b'$' | b'=' | b'?' | b'<'))
        .count();
    if openers < MAX_NESTING {
        return None;
    }
    let mut levels: Vec<Level> = vec![Level::default()];
    let mut chains = 0usize;
    let mut i = 0usize;
    let mut previous_significant = b';';
    while i < bytes.len() {
        if levels.len() + chains > MAX_NESTING {
            return Some(i as u32);
        }
        let byte = bytes[i];
        match byte {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = skip_until(bytes, i + 2, b'\n');
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = find(bytes, i + 2, b"*/").map_or(bytes.len(), |end| end + 2);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'>') => {
                let top = levels.last_mut().map(|level| &mut level.chain);
                if let Some(chain) = top.filter(|chain| **chain > 0) {
                    *chain -= 1;
                    chains -= 1;
                }
            }
            b'/' if starts_regex(previous_significant) => {
                i = skip_regex(bytes, i + 1);
                previous_significant = b'a';
                continue;
            }
            b'\'' | b'"' => {
                i = skip_string(bytes, i + 1, byte);
                previous_significant = b'a';
                continue;
            }
            b'`' => {
                levels.push(Level {
                    template: true,
                    ..Level::default()
                });
                i = skip_template_text(bytes, i + 1, &mut levels);
                previous_significant = b'a';
                continue;
            }
            b'(' | b'[' | b'{' => levels.push(Level::default()),
            b')' | b']' | b'}' => {
                if levels.len() > 1 {
                    let closed = levels.pop().unwrap_or_default();
                    chains -= closed.chain;
                }
                if byte == b'}' && levels.last().is_some_and(|level| level.template) {
                    i = skip_template_text(bytes, i + 1, &mut levels);
                    previous_significant = b'a';
                    continue;
                }
            }
            b';' | b',' => {
                if let Some(level) = levels.last_mut() {
                    chains -= level.chain;
                    level.chain = 0;
                }
            }
            b'=' if bytes.get(i + 1) == Some(&b'>') => add_chain(&mut levels, &mut chains),
            b'?' if !matches!(bytes.get(i + 1), Some(b'.' | b'?'))
                && previous_significant != b'?' =>
            {
                add_chain(&mut levels, &mut chains);
            }
            b'<' => match bytes.get(i + 1) {
                Some(b'/') => {
                    if let Some(level) = levels.last_mut().filter(|level| level.chain > 0) {
                        level.chain -= 1;
                        chains -= 1;
                    }
                }
                Some(next) if next.is_ascii_alphabetic() || *next == b'>' => {
                    add_chain(&mut levels, &mut chains);
                }
                _ => {}
            },
            _ => {}
        }
        if !byte.is_ascii_whitespace() {
            previous_significant = byte;
        }
        i += 1;
    }
    None
}

#[derive(Clone, Copy, Debug, Default)]
struct Level {
    /// Right-recursive tokens seen in this bracket level since its last `;` or `,`.
    chain: usize,
    /// This level is the text of a template literal (closed by its backtick).
    template: bool,
}

fn add_chain(levels: &mut [Level], chains: &mut usize) {
    if let Some(level) = levels.last_mut() {
        level.chain += 1;
        *chains += 1;
    }
}

/// After these bytes a `/` starts a regular expression rather than a division.
fn starts_regex(previous: u8) -> bool {
    matches!(
        previous,
        b'(' | b',' | b'=' | b':' | b'[' | b'!' | b'&' | b'|' | b'?' | b'{' | b'}' | b';'
    )
}

fn skip_until(bytes: &[u8], from: usize, stop: u8) -> usize {
    bytes[from.min(bytes.len())..]
        .iter()
        .position(|b| *b == stop)
        .map_or(bytes.len(), |at| from + at)
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|at| from + at)
}

/// Skips a quoted string; an unterminated one ends at the line's end, as the lexer's error does.
fn skip_string(bytes: &[u8], mut i: usize, quote: u8) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            byte if byte == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

fn skip_regex(bytes: &[u8], mut i: usize) -> usize {
    let mut in_class = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            b'[' => {
                in_class = true;
                i += 1;
            }
            b']' => {
                in_class = false;
                i += 1;
            }
            b'/' if !in_class => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Skips template text up to its closing backtick (popping the template level) or to a `${`
/// (pushing the substitution's level); returns the offset after the token that stopped it.
fn skip_template_text(bytes: &[u8], mut i: usize, levels: &mut Vec<Level>) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'`' => {
                if levels.len() > 1 {
                    levels.pop();
                }
                return i + 1;
            }
            b'$' if bytes.get(i + 1) == Some(&b'{') => {
                levels.push(Level::default());
                return i + 2;
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::{MAX_NESTING, nesting_overflow};

    #[test]
    fn refuses_every_deeply_nesting_construct() {
        let depth = 10_000;
        for (name, source) in [
            (
                "arrays",
                format!("{}{}", "[".repeat(depth), "]".repeat(depth)),
            ),
            (
                "parentheses",
                format!("{}1{}", "(".repeat(depth), ")".repeat(depth)),
            ),
            (
                "objects",
                format!("{}1{}", "{a:".repeat(depth), "}".repeat(depth)),
            ),
            ("arrows", "x => ".repeat(depth)),
            ("conditionals", "x ? 1 : ".repeat(depth)),
            (
                "jsx",
                format!("{}{}", "<a>".repeat(depth), "</a>".repeat(depth)),
            ),
            (
                "templates",
                format!("`{}{}`", "${`".repeat(depth), "`}".repeat(depth)),
            ),
            (
                "type arguments",
                format!("type A = {}1{};", "Array<".repeat(depth), ">".repeat(depth)),
            ),
        ] {
            assert!(nesting_overflow(&source).is_some(), "{name}");
        }
    }

    #[test]
    fn accepts_ordinary_code_however_long() {
        let statement = "if (a < b && c > d) { f(`x ${y}`, /[(]/g, '(', \"[\"); } // (\n";
        assert_eq!(nesting_overflow(&statement.repeat(10_000)), None);
        let siblings = format!("<ul>{}</ul>", "<li>x</li><br/>".repeat(10_000));
        assert_eq!(nesting_overflow(&siblings), None);
        let within = format!(
            "{}{}",
            "[".repeat(MAX_NESTING - 1),
            "]".repeat(MAX_NESTING - 1)
        );
        assert_eq!(nesting_overflow(&within), None);
    }
}
