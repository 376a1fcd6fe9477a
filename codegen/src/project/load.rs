//! Loading: read and extract every discovered module, one parallel task per file.
//!
//! Entry call: [`load_modules`]. Invariant: every discovered module yields one
//! [`LoadedModule`] in discovery order, even when its file could not be read (its extraction
//! is then empty and a diagnostic says why), so route identities never depend on file contents.

use std::collections::BTreeMap;

use rayon::prelude::*;

use super::model::SourceModule;
use super::reader::{ReadFailure, SourceReader, read_text, unreadable};
use crate::diagnostics::Diagnostic;
use crate::extract::{ExtractedModule, extract_module};

/// One discovered module together with what extraction learned from it.
#[derive(Clone, Debug)]
pub struct LoadedModule {
    pub source: SourceModule,
    pub extracted: ExtractedModule,
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

/// Reads and extracts `modules` in parallel.
pub fn load_modules(modules: Vec<SourceModule>, reader: &dyn SourceReader) -> LoadReturn {
    let results: Vec<(LoadedModule, Option<String>, Vec<Diagnostic>)> = modules
        .into_par_iter()
        .map(|module| load_one(module, reader))
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
) -> (LoadedModule, Option<String>, Vec<Diagnostic>) {
    let empty = ExtractedModule {
        path: source.path.clone(),
        ..ExtractedModule::default()
    };
    match read_text(reader, &source.absolute, &source.path) {
        Ok(text) => {
            let extracted = extract_module(&source.path, &source.kind, &text);
            (
                LoadedModule {
                    source,
                    extracted: extracted.module,
                },
                Some(text),
                extracted.diagnostics,
            )
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
