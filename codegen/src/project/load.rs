//! Loading: read and extract every discovered module, one parallel task per file.
//!
//! Entry call: [`load_modules`]. Invariant: every discovered module yields one
//! [`LoadedModule`] in discovery order, even when its file could not be read (its extraction
//! is then empty and a diagnostic says why), so route identities never depend on file contents.
//! [`load_modules_reusing`] takes an [`ExtractionCache`]: a watch loop's rebuild extracts only
//! the files whose text changed since the last one.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::model::SourceModule;
use super::reader::{ReadFailure, SourceReader, read_text, unreadable};
use crate::diagnostics::Diagnostic;
use crate::extract::{ExtractedModule, extract_module};

/// One discovered module together with what extraction learned from it.
#[derive(Clone, Debug)]
pub struct LoadedModule {
    pub source: SourceModule,
    /// Shared with the [`ExtractionCache`] of a watch loop, which hands it to every rebuild
    /// while the file's text is unchanged (a deep copy per module and rebuild was an eighth of
    /// a rebuild's time at 1,000 routes).
    pub extracted: Arc<ExtractedModule>,
}

/// The output of [`load_modules`].
#[derive(Debug, Default)]
pub struct LoadReturn {
    /// One per discovered module, in discovery (path) order.
    pub modules: Vec<LoadedModule>,
    /// The text of every module that could be read, by project-relative path.
    pub texts: BTreeMap<String, String>,
    pub diagnostics: Vec<Diagnostic>,
}

/// What extraction produced from one file's text, kept for the next build of the same project:
/// extraction is a pure function of the path, the kind and the text.
#[derive(Debug, Default)]
pub struct ExtractionCache {
    entries: Mutex<HashMap<String, CachedExtraction>>,
}

#[derive(Debug)]
struct CachedExtraction {
    kind: super::model::ModuleKind,
    text: String,
    module: Arc<ExtractedModule>,
    diagnostics: Vec<Diagnostic>,
}

impl ExtractionCache {
    /// The extraction of `path` as `kind` from `text`: the cached one when the file's kind and
    /// text are what they were, else a fresh one, then kept.
    fn extract(
        &self,
        path: &str,
        kind: &super::model::ModuleKind,
        text: &str,
    ) -> (Arc<ExtractedModule>, Vec<Diagnostic>) {
        let entries = self
            .entries
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if let Some(cached) = entries.get(path)
            && cached.kind == *kind
            && cached.text == text
        {
            return (Arc::clone(&cached.module), cached.diagnostics.clone());
        }
        // Extraction runs outside the lock, so files still extract in parallel.
        drop(entries);
        let extracted = extract_module(path, kind, text);
        let module = Arc::new(extracted.module);
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        entries.insert(
            path.to_owned(),
            CachedExtraction {
                kind: kind.clone(),
                text: text.to_owned(),
                module: Arc::clone(&module),
                diagnostics: extracted.diagnostics.clone(),
            },
        );
        (module, extracted.diagnostics)
    }

    /// Forgets every file not in `paths` (a file deleted since), so the cache holds only the
    /// project's current files.
    pub fn retain(&self, paths: &[&str]) {
        let keep: std::collections::HashSet<&str> = paths.iter().copied().collect();
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        entries.retain(|path, _| keep.contains(path.as_str()));
    }

    /// How many files' extractions are kept.
    pub fn len(&self) -> usize {
        self.entries.lock().map_or(0, |entries| entries.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Reads and extracts `modules` in parallel.
pub fn load_modules(modules: Vec<SourceModule>, reader: &dyn SourceReader) -> LoadReturn {
    load_modules_reusing(modules, reader, None)
}

/// [`load_modules`], reusing `cache`'s extraction of every file whose text is unchanged.
pub fn load_modules_reusing(
    modules: Vec<SourceModule>,
    reader: &dyn SourceReader,
    cache: Option<&ExtractionCache>,
) -> LoadReturn {
    let results: Vec<(LoadedModule, Option<String>, Vec<Diagnostic>)> = modules
        .into_par_iter()
        .map(|module| load_one(module, reader, cache))
        .collect();
    let mut output = LoadReturn::default();
    output.modules.reserve(results.len());
    for (module, text, diagnostics) in results {
        if let Some(text) = text {
            output.texts.insert(module.source.path.clone(), text);
        }
        output.diagnostics.extend(diagnostics);
        output.modules.push(module);
    }
    output
}

fn load_one(
    source: SourceModule,
    reader: &dyn SourceReader,
    cache: Option<&ExtractionCache>,
) -> (LoadedModule, Option<String>, Vec<Diagnostic>) {
    let empty = Arc::new(ExtractedModule {
        path: source.path.clone(),
        ..ExtractedModule::default()
    });
    match read_text(reader, &source.absolute, &source.path) {
        Ok(text) => {
            let (extracted, diagnostics) = match cache {
                Some(cache) => cache.extract(&source.path, &source.kind, &text),
                None => {
                    let extracted = extract_module(&source.path, &source.kind, &text);
                    (Arc::new(extracted.module), extracted.diagnostics)
                }
            };
            (LoadedModule { source, extracted }, Some(text), diagnostics)
        }
        Err(ReadFailure::Rejected(diagnostic)) => (
            LoadedModule {
                source,
                extracted: empty,
            },
            None,
            vec![*diagnostic],
        ),
        // Discovered a moment ago and gone now: report it like any other unreadable file.
        Err(ReadFailure::Missing) => {
            let error = std::io::Error::from(std::io::ErrorKind::NotFound);
            let diagnostic = unreadable(&source.path, &error);
            (
                LoadedModule {
                    source,
                    extracted: empty,
                },
                None,
                vec![diagnostic],
            )
        }
    }
}
