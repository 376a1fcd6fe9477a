//! Re-checking a route's `tools` selectors at run time.
//!
//! The host's matcher already filtered by native tool name, but it can only approximate a
//! selector (`other` registers for every tool, and hosts add tools the matcher never named), so
//! the hook client checks again against the canonical tool before anything renders.

use super::event::CanonicalTool;

/// Whether a route with `selectors` (its `tools` config) answers for `tool` delivered by `host`.
///
/// No selectors: every delivery. A selector is a canonical kind (`file.write`) or one host's
/// tool by name (`claude:NotebookEdit`). A route that selects tools never answers an event
/// without one.
pub fn selectors_match(selectors: &[String], host: &str, tool: Option<&CanonicalTool>) -> bool {
    if selectors.is_empty() {
        return true;
    }
    let Some(tool) = tool else {
        return false;
    };
    selectors
        .iter()
        .any(|selector| match selector.split_once(':') {
            Some((selector_host, name)) => selector_host == host && name == tool.name,
            None => selector == tool.selector.as_str(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::ToolSelector;

    fn tool(selector: ToolSelector, name: &str) -> CanonicalTool {
        CanonicalTool {
            selector,
            name: name.into(),
            input: serde_json::Value::Null,
            truncated: false,
            lossy: false,
        }
    }

    #[test]
    fn kinds_and_host_names_select() {
        let write = tool(ToolSelector::FileWrite, "Write");
        let selectors = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(selectors_match(&[], "claude", Some(&write)));
        assert!(selectors_match(&[], "claude", None));
        assert!(selectors_match(
            &selectors(&["file.write"]),
            "claude",
            Some(&write)
        ));
        assert!(!selectors_match(
            &selectors(&["shell", "mcp"]),
            "claude",
            Some(&write)
        ));
        assert!(selectors_match(
            &selectors(&["claude:Write"]),
            "claude",
            Some(&write)
        ));
        assert!(!selectors_match(
            &selectors(&["codex:Write"]),
            "claude",
            Some(&write)
        ));
        assert!(!selectors_match(
            &selectors(&["other"]),
            "claude",
            Some(&write)
        ));
        assert!(!selectors_match(
            &selectors(&["file.write"]),
            "claude",
            None
        ));
    }
}
