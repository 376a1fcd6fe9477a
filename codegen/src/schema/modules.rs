//! The modules a schema may reference: the route modules the check already extracted, plus
//! relative modules outside the route set (`src/schemas/book.ts`), read and extracted on
//! demand, each at most once.
//!
//! Entry calls: [`ImportedModules::new`], [`ModuleSet::new`] (or [`ModuleSet::of_module`]),
//! [`ModuleSet::get`], [`ModuleSet::resolve_import`]. Invariant: a module outside the route set
//! is parsed once per check, a route module is never parsed again when the set holds the
//! route modules (a route translated in its own task reads one it imports as an imported
//! module), and a specifier never resolves outside the project root.

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::extract::{Expr, ExprId, ExtractedModule, extract_module};
use crate::project::{LoadedModule, ModuleKind, ReadFailure, SourceReader, read_text};
use crate::sync::lock;

/// One module with the text it was extracted from (for diagnostic locations).
#[derive(Debug)]
pub struct ModuleSource {
    pub module: ExtractedModule,
    pub text: String,
}

/// A module as a translation sees it: borrowed from the check, or read on demand.
#[derive(Clone, Debug)]
pub enum ModuleRef<'a> {
    Route(&'a ExtractedModule, &'a str),
    Loaded(Arc<ModuleSource>),
}

impl ModuleRef<'_> {
    pub fn module(&self) -> &ExtractedModule {
        match self {
            ModuleRef::Route(module, _) => module,
            ModuleRef::Loaded(source) => &source.module,
        }
    }

    pub fn text(&self) -> &str {
        match self {
            ModuleRef::Route(_, text) => text,
            ModuleRef::Loaded(source) => &source.text,
        }
    }

    pub fn path(&self) -> &str {
        &self.module().path
    }

    /// The module's captured expression `id`.
    #[inline]
    pub fn expr(&self, id: ExprId) -> Expr<'_> {
        self.module().expr(self.text(), id)
    }
}

/// The modules outside the route set that translations read on demand, each at most once:
/// one per check, shared by every route's translation.
pub struct ImportedModules<'r> {
    root: PathBuf,
    reader: &'r dyn SourceReader,
    /// By project-relative path; `None` when the file does not exist, cannot be read or does
    /// not parse.
    loaded: Mutex<HashMap<String, Option<Arc<ModuleSource>>>>,
}

impl<'r> ImportedModules<'r> {
    /// Modules read through `reader` under `root`.
    pub fn new(root: &Path, reader: &'r dyn SourceReader) -> Self {
        Self {
            root: root.to_path_buf(),
            reader,
            loaded: Mutex::new(HashMap::new()),
        }
    }

    /// The module at a project-relative path, extracting it on first use.
    fn get(&self, path: &str) -> Option<Arc<ModuleSource>> {
        // The lock is held while a module is read, so that two routes importing it at once
        // still parse it once.
        let mut loaded = lock(&self.loaded);
        if let Some(known) = loaded.get(path) {
            return known.clone();
        }
        let source = self.read(path).map(Arc::new);
        loaded.insert(path.to_owned(), source.clone());
        source
    }

    /// The text of every module read, by project-relative path, so that diagnostics pointing
    /// into them render with their source.
    pub fn texts(&self) -> Vec<(String, String)> {
        lock(&self.loaded)
            .iter()
            .filter_map(|(path, source)| Some((path.clone(), source.as_ref()?.text.clone())))
            .collect()
    }

    fn read(&self, path: &str) -> Option<ModuleSource> {
        let absolute = self.root.join(path);
        let text = match read_text(self.reader, &absolute, path) {
            Ok(text) => text,
            Err(ReadFailure::Missing | ReadFailure::Rejected(_)) => return None,
        };
        // A module outside the route set is read for its consts only: `Imported` runs no
        // per-kind contract check, so nothing but parse facts is learned from it.
        let kind = ModuleKind::Imported;
        let extracted = extract_module(path, &kind, &text);
        let parsed = !extracted.diagnostics.iter().any(|d| d.is_error());
        parsed.then_some(ModuleSource {
            module: extracted.module,
            text,
        })
    }
}

/// Every module a route's schemas may reach: the route modules the check extracted, and the
/// others, read on demand through [`ImportedModules`].
pub struct ModuleSet<'a> {
    imported: &'a ImportedModules<'a>,
    routes: HashMap<&'a str, (&'a ExtractedModule, &'a str)>,
}

impl<'a> ModuleSet<'a> {
    /// `modules` (their texts in `texts`), and what `imported` reads.
    pub fn new(
        imported: &'a ImportedModules<'a>,
        modules: &'a [LoadedModule],
        texts: &'a BTreeMap<String, String>,
    ) -> Self {
        let routes = modules
            .iter()
            .filter_map(|loaded| {
                let path = loaded.source.path.as_str();
                texts
                    .get(path)
                    .map(|text| (path, (&*loaded.extracted, text.as_str())))
            })
            .collect();
        Self { imported, routes }
    }

    /// One module, `module` extracted from `text` at `path`, and what `imported` reads: the
    /// set of a route translated in the task that extracted it, before the others are loaded
    /// (a route module it imports is then read as an imported one).
    pub fn of_module(
        imported: &'a ImportedModules<'a>,
        path: &'a str,
        module: &'a ExtractedModule,
        text: &'a str,
    ) -> Self {
        Self {
            imported,
            routes: HashMap::from([(path, (module, text))]),
        }
    }

    /// The module at a project-relative path, extracting it on first use.
    pub fn get(&self, path: &str) -> Option<ModuleRef<'a>> {
        if let Some((module, text)) = self.routes.get(path) {
            return Some(ModuleRef::Route(module, text));
        }
        self.imported.get(path).map(ModuleRef::Loaded)
    }

    /// The project-relative path a relative `specifier` in module `from` names: `.js`, `.mjs`
    /// and `.jsx` map to their TypeScript sources, and a bare path tries `.ts`, `.tsx` and
    /// `index.ts`. `None` when it leaves the project or names no readable module.
    pub fn resolve_import(&self, from: &str, specifier: &str) -> Option<String> {
        if !(specifier.starts_with("./") || specifier.starts_with("../")) {
            return None;
        }
        let directory = from.rsplit_once('/').map_or("", |(directory, _)| directory);
        let joined = normalize(&format!("{directory}/{specifier}"))?;
        candidates(&joined)
            .into_iter()
            .find(|candidate| self.get(candidate).is_some())
    }
}

/// The files a joined specifier may name, in the order TypeScript's bundler resolution tries.
fn candidates(joined: &str) -> Vec<String> {
    const SOURCES_OF: [(&str, &[&str]); 3] = [
        (".js", &[".ts", ".tsx"]),
        (".mjs", &[".mts"]),
        (".jsx", &[".tsx"]),
    ];
    for (javascript, typescript) in SOURCES_OF {
        if let Some(stem) = joined.strip_suffix(javascript) {
            let mut found: Vec<String> = typescript
                .iter()
                .map(|ext| format!("{stem}{ext}"))
                .collect();
            // A plain JavaScript module is read too, with the same grammar.
            found.push(joined.to_owned());
            return found;
        }
    }
    if [".ts", ".tsx", ".mts"]
        .iter()
        .any(|ext| joined.ends_with(ext))
    {
        return vec![joined.to_owned()];
    }
    vec![
        format!("{joined}.ts"),
        format!("{joined}.tsx"),
        format!("{joined}/index.ts"),
        format!("{joined}/index.tsx"),
    ]
}

/// Resolves `.` and `..` lexically; `None` when the path climbs above the project root.
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::{candidates, normalize};

    #[test]
    fn specifiers_stay_inside_the_project() {
        assert_eq!(
            normalize("src/mcp/a/../b.ts").as_deref(),
            Some("src/mcp/b.ts")
        );
        assert_eq!(normalize("src/../../etc/passwd"), None);
    }

    #[test]
    fn javascript_specifiers_map_to_typescript_sources() {
        assert_eq!(candidates("src/shared.js")[0], "src/shared.ts");
        assert_eq!(candidates("src/shared")[2], "src/shared/index.ts");
    }
}
