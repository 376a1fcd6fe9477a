//! Host matchers from canonical selectors: `tools` selectors become the host's exact tool-name
//! list or an (unanchored) regular expression; `files` become a literal `|` list. Entry:
//! [`tool_matcher`], [`file_matcher`].
//!
//! Invariant: equal selector lists give byte-equal matchers (first occurrence order, no
//! duplicates), since Codex trusts a hook by a hash that covers its matcher.

use super::data::{HostMatrix, NativeTools};

/// What a binding matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolMatcher {
    /// No matcher: every occurrence.
    Everything,
    Pattern(String),
    /// Every selector names tools the host does not report to hooks.
    NotOnThisHost,
}

/// Joins the native tools of every selector: an exact `A|B` list when every name is plain, a
/// regular expression (`^(?:A|B)$|^mcp__`) otherwise; no matcher when a selector means "any".
/// `<host>:<tool>` names one host's tool and is skipped on the others.
pub fn tool_matcher<'a>(host: &'a HostMatrix, selectors: &[&'a str]) -> ToolMatcher {
    if selectors.is_empty() {
        return ToolMatcher::Everything;
    }
    let mut names: Vec<&str> = Vec::new();
    let mut patterns: Vec<&str> = Vec::new();
    for selector in selectors {
        if let Some((target, name)) = selector
            .split_once(':')
            .filter(|(_, name)| !name.is_empty())
        {
            if target == host.host {
                names.push(name);
            }
            continue;
        }
        // An unknown selector is reported by `check` (AB4202); here it names no tool.
        match host.selector(selector).unwrap_or(NativeTools::Names(&[])) {
            NativeTools::Names(list) => names.extend(list.iter().map(String::as_str)),
            NativeTools::Pattern(pattern) => patterns.push(pattern),
            NativeTools::Any => return ToolMatcher::Everything,
        }
    }
    dedup_in_order(&mut names);
    dedup_in_order(&mut patterns);
    if names.is_empty() && patterns.is_empty() {
        return ToolMatcher::NotOnThisHost;
    }
    let exact = |name: &&str| name.chars().all(|c| host.is_exact_matcher_char(c));
    if patterns.is_empty() && names.iter().all(exact) {
        return ToolMatcher::Pattern(names.join("|"));
    }
    let mut alternatives: Vec<String> = Vec::new();
    if !names.is_empty() {
        let escaped: Vec<String> = names.iter().map(|name| escape_regex(name)).collect();
        alternatives.push(if escaped.len() == 1 {
            format!("^{}$", escaped[0])
        } else {
            format!("^(?:{})$", escaped.join("|"))
        });
    }
    alternatives.extend(patterns.iter().map(|pattern| (*pattern).to_owned()));
    ToolMatcher::Pattern(alternatives.join("|"))
}

/// Literal file names joined with `|`; `Err` names one that cannot be matched.
pub fn file_matcher(files: &[&str]) -> Result<ToolMatcher, String> {
    if let Some(bad) = files
        .iter()
        .find(|file| file.is_empty() || file.contains('|'))
    {
        return Err((*bad).to_owned());
    }
    Ok(if files.is_empty() {
        ToolMatcher::Everything
    } else {
        ToolMatcher::Pattern(files.join("|"))
    })
}

fn dedup_in_order(items: &mut Vec<&str>) {
    let mut seen = std::collections::HashSet::new();
    items.retain(|item| seen.insert(*item));
}

/// Escapes the characters that are special in both JavaScript and Rust regular expressions.
fn escape_regex(name: &str) -> String {
    let mut escaped = String::with_capacity(name.len());
    for character in name.chars() {
        if "\\^$.|?*+()[]{}".contains(character) {
            escaped.push('\\');
        }
        escaped.push(character);
    }
    escaped
}
