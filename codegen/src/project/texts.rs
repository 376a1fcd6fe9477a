//! The source texts a check keeps to render its diagnostics with excerpts.
//!
//! A check that only reports (`abgen check`, [`crate::check::check_project_diagnostics`])
//! releases each MCP route's text in the task that extracted it, where the next file's read
//! reuses the memory, and keeps its [`TextDigest`]; once the diagnostics are known,
//! [`read_released_again`] reads back the few files they point into. Kept, the texts were a
//! third of the live heap of a check of 1,000 routes, and each touched fresh pages.
//!
//! Invariant: a text read again stands in for the one extracted only when it is the same text
//! (length and hash); a file changed since is rendered without an excerpt, never with the
//! lines of another text under positions computed from the first.

use std::collections::BTreeMap;
use std::hash::Hasher;
use std::path::Path;

use super::model::ModuleKind;
use super::reader::{SourceReader, read_text};
use crate::diagnostics::Diagnostic;

/// Which module texts a load keeps in [`super::LoadReturn::texts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepTexts {
    /// Every module's.
    All,
    /// Every module's but the MCP routes' (tools, resources, prompts: most of a project), whose
    /// digests go to [`super::LoadReturn::released`]. Every other stage reads its texts (the
    /// hook check reads the event routes', the Apps' compile its own modules').
    NotOfMcpRoutes,
}

impl KeepTexts {
    /// Whether a load under this choice keeps the text of a module of `kind`.
    pub fn keeps(self, kind: &ModuleKind) -> bool {
        match self {
            KeepTexts::All => true,
            KeepTexts::NotOfMcpRoutes => !matches!(
                kind,
                ModuleKind::Tool { .. } | ModuleKind::Resource { .. } | ModuleKind::Prompt { .. }
            ),
        }
    }
}

/// What identifies a released text: its length and a 64-bit hash of its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextDigest {
    len: usize,
    hash: u64,
}

impl TextDigest {
    pub fn of(text: &str) -> Self {
        let mut hasher = rustc_hash::FxHasher::default();
        hasher.write(text.as_bytes());
        Self {
            len: text.len(),
            hash: hasher.finish(),
        }
    }
}

/// The texts a load released, by project-relative path.
pub type ReleasedTexts = BTreeMap<String, TextDigest>;

/// Reads again, under `root`, every released file one of `diagnostics` points into, and adds
/// its text to `sources` when it is still the text that was released.
pub fn read_released_again(
    root: &Path,
    reader: &dyn SourceReader,
    released: &ReleasedTexts,
    diagnostics: &[Diagnostic],
    sources: &mut BTreeMap<String, String>,
) {
    for diagnostic in diagnostics {
        let Some(location) = &diagnostic.location else {
            continue;
        };
        let file = location.file.as_str();
        let Some(digest) = released.get(file) else {
            continue;
        };
        if sources.contains_key(file) {
            continue;
        }
        if let Ok(text) = read_text(reader, &root.join(file), file)
            && TextDigest::of(&text) == *digest
        {
            sources.insert(file.to_owned(), text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::{Code, Location};

    #[test]
    fn a_text_read_again_is_used_only_when_it_is_the_text_released() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let tools = root.join("src/mcp/docs/tools");
        std::fs::create_dir_all(&tools).unwrap();
        let (same, changed, quiet) = (
            "src/mcp/docs/tools/a.ts",
            "src/mcp/docs/tools/b.ts",
            "src/mcp/docs/tools/c.ts",
        );
        for path in [same, changed, quiet] {
            std::fs::write(root.join(path), "export const x = 1;\n").unwrap();
        }
        let released: ReleasedTexts = [same, changed, quiet]
            .into_iter()
            .map(|path| (path.to_owned(), TextDigest::of("export const x = 1;\n")))
            .collect();
        // The same length, another text.
        std::fs::write(root.join(changed), "export const y = 1;\n").unwrap();
        let at = |file: &str| Diagnostic::new(Code::AB5102, "m", "r").at(Location::file(file));
        let diagnostics = [at(same), at(changed), at(same)];
        let mut sources = BTreeMap::new();
        read_released_again(
            root,
            &crate::project::FsReader,
            &released,
            &diagnostics,
            &mut sources,
        );
        assert_eq!(
            sources.into_iter().collect::<Vec<_>>(),
            [(same.to_owned(), "export const x = 1;\n".to_owned())],
            "the changed file is left out, and the file no diagnostic points into is not read"
        );
    }

    #[test]
    fn only_mcp_routes_are_released() {
        let tool = ModuleKind::Tool {
            server: "docs".to_owned(),
            name: "get".to_owned(),
        };
        let event = ModuleKind::Event {
            event: "session/start".to_owned(),
        };
        assert!(!KeepTexts::NotOfMcpRoutes.keeps(&tool));
        assert!(KeepTexts::NotOfMcpRoutes.keeps(&event));
        assert!(KeepTexts::NotOfMcpRoutes.keeps(&ModuleKind::Imported));
        assert!(KeepTexts::All.keeps(&tool));
    }
}
