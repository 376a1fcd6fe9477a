//! Loading: read and extract every discovered module, one parallel task per file.
//!
//! Entry calls: [`load_modules`], [`load_modules_then`] (each module's schema expressions read
//! in its own task and not kept). Invariant: every discovered module yields one
//! [`LoadedModule`] in discovery order, even when its file could not be read (its extraction
//! is then empty and a diagnostic says why), so route identities never depend on file contents.
//! [`load_modules_reusing`] takes an [`ExtractionCache`]: a watch loop's rebuild extracts only
//! the files whose text changed since the last one, and reads again only the files whose
//! settled stamp changed ([`crate::stamp`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::model::SourceModule;
use super::reader::{ReadFailure, SourceReader, read_text, unreadable};
use super::texts::{KeepTexts, ReleasedTexts, TextDigest};
use crate::diagnostics::Diagnostic;
use crate::extract::{ExtractReturn, ExtractedModule, extract_module, extract_module_then};
use crate::stamp::FileStamp;

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
    /// The text of every module that could be read and whose text the load keeps
    /// ([`KeepTexts`]), by project-relative path.
    pub texts: BTreeMap<String, String>,
    /// The digest of every text the load read and did not keep.
    pub released: ReleasedTexts,
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
    /// The file's settled stamp, taken before `text` was read.
    stamp: Option<FileStamp>,
    text: String,
    module: Arc<ExtractedModule>,
    diagnostics: Vec<Diagnostic>,
}

impl ExtractionCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        crate::sync::lock(&self.entries)
    }

    /// How many files' extractions are kept.
    pub fn len(&self) -> usize {
        self.entries.lock().map_or(0, |entries| entries.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The kept entries of one load, read without a lock by the parallel per-file tasks.
type Kept = HashMap<String, CachedExtraction>;

impl CachedExtraction {
    /// Whether this entry stands for the file as it is now: the same kind, and the settled
    /// `stamp` recorded when its text was read (the file need not be read again).
    fn still_stamped(&self, kind: &super::model::ModuleKind, stamp: Option<FileStamp>) -> bool {
        stamp.is_some() && self.stamp == stamp && self.kind == *kind
    }
}

/// Reads and extracts `modules` in parallel.
pub fn load_modules(modules: Vec<SourceModule>, reader: &dyn SourceReader) -> LoadReturn {
    load_modules_reusing(modules, reader, None)
}

/// [`load_modules`], reusing `cache`'s extraction of every file whose text is unchanged. The
/// cache then holds exactly these modules (a file deleted since is forgotten).
pub fn load_modules_reusing(
    modules: Vec<SourceModule>,
    reader: &dyn SourceReader,
    cache: Option<&ExtractionCache>,
) -> LoadReturn {
    load_modules_from(modules.into_par_iter(), reader, cache)
}

/// [`load_modules_reusing`] of modules as they come, e.g. from a walk that is still going
/// ([`crate::project::walk_modules`] through `par_bridge`); the result is in path order whatever
/// order they came in.
pub fn load_modules_from(
    modules: impl ParallelIterator<Item = SourceModule>,
    reader: &dyn SourceReader,
    cache: Option<&ExtractionCache>,
) -> LoadReturn {
    let extract = |source: &SourceModule, text: &str| {
        (extract_module(&source.path, &source.kind, text), None::<()>)
    };
    load_with(modules, reader, cache, KeepTexts::All, &extract).0
}

/// [`load_modules_from`], running `then` in each file's task on the module it extracted (with
/// the file's text) while the module's schema expressions are still in the thread's arena; the
/// modules returned keep none of them ([`extract_module_then`]), and the texts `keep` leaves
/// out are released there too. `then`'s answers come in path order, one for each module that
/// was read and answered.
pub fn load_modules_then<T: Send>(
    modules: impl ParallelIterator<Item = SourceModule>,
    reader: &dyn SourceReader,
    keep: KeepTexts,
    then: &(impl Fn(&SourceModule, &ExtractedModule, &str) -> Option<T> + Sync),
) -> (LoadReturn, Vec<T>) {
    let extract = |source: &SourceModule, text: &str| {
        extract_module_then(&source.path, &source.kind, text, |extracted| {
            then(source, &extracted.module, text)
        })
    };
    load_with(modules, reader, None, keep, &extract)
}

/// How a load extracts one file's text: the extraction, and what else its task answers.
type Extract<'e, T> = dyn Fn(&SourceModule, &str) -> (ExtractReturn, Option<T>) + Sync + 'e;

fn load_with<T: Send>(
    modules: impl ParallelIterator<Item = SourceModule>,
    reader: &dyn SourceReader,
    cache: Option<&ExtractionCache>,
    keep: KeepTexts,
    extract: &Extract<'_, T>,
) -> (LoadReturn, Vec<T>) {
    let kept: Option<Kept> = cache.map(|cache| std::mem::take(&mut *cache.lock()));
    // Each file's result boxed in its task: the collect, which grows and then joins one vector
    // per task, moves pointers instead of results hundreds of bytes each.
    let mut results: Vec<Box<(Loaded, Option<T>)>> = modules
        .map(|module| Box::new(load_one(module, reader, kept.as_ref(), keep, extract)))
        .collect();
    results.sort_unstable_by(|a, b| a.0.0.source.path.cmp(&b.0.0.source.path));
    let mut output = LoadReturn::default();
    output.modules.reserve(results.len());
    let mut answers = Vec::new();
    let mut kept = kept;
    let mut next = Kept::with_capacity(if cache.is_some() { results.len() } else { 0 });
    for result in results {
        let ((module, text, diagnostics, entry), answer) = *result;
        if let Some(kept) = &mut kept {
            let entry = match entry {
                Entry::Fresh(entry) => Some(*entry),
                Entry::Kept => kept.remove(&module.source.path),
                Entry::None => None,
            };
            if let Some(entry) = entry {
                next.insert(module.source.path.clone(), entry);
            }
        }
        match text {
            LoadedText::Kept(text) => {
                output.texts.insert(module.source.path.clone(), text);
            }
            LoadedText::Released(digest) => {
                output.released.insert(module.source.path.clone(), digest);
            }
            LoadedText::Unread => {}
        }
        output.diagnostics.extend(diagnostics);
        output.modules.push(module);
        answers.extend(answer);
    }
    if let Some(cache) = cache {
        *cache.lock() = next;
    }
    (output, answers)
}

/// What a load keeps of one file for the next.
enum Entry {
    /// The kept entry still holds (its stamp or its text is unchanged).
    Kept,
    /// A new entry: the file was read and extracted again.
    Fresh(Box<CachedExtraction>),
    /// Nothing: no cache, or the file could not be read.
    None,
}

/// What a load holds of one file's text once its task is done.
enum LoadedText {
    Kept(String),
    Released(TextDigest),
    /// The file could not be read.
    Unread,
}

type Loaded = (LoadedModule, LoadedText, Vec<Diagnostic>, Entry);

fn load_one<T>(
    source: SourceModule,
    reader: &dyn SourceReader,
    kept: Option<&Kept>,
    keep: KeepTexts,
    extract: &Extract<'_, T>,
) -> (Loaded, Option<T>) {
    // A file that could not be read: an empty extraction, and the diagnostic that says why.
    let unread = |source: SourceModule, diagnostic: Diagnostic| {
        let extracted = Arc::new(ExtractedModule {
            path: source.path.clone(),
            ..ExtractedModule::default()
        });
        let loaded = LoadedModule { source, extracted };
        (
            (loaded, LoadedText::Unread, vec![diagnostic], Entry::None),
            None,
        )
    };
    let stamp = kept.and_then(|_| reader.settled_stamp(&source.absolute));
    let previous = kept.and_then(|kept| kept.get(&source.path));
    if let Some(previous) = previous
        && previous.still_stamped(&source.kind, stamp)
    {
        let extracted = Arc::clone(&previous.module);
        let (text, diagnostics) = (previous.text.clone(), previous.diagnostics.clone());
        let loaded = LoadedModule { source, extracted };
        return (
            (loaded, LoadedText::Kept(text), diagnostics, Entry::Kept),
            None,
        );
    }
    match read_text(reader, &source.absolute, &source.path) {
        Ok(text) => {
            let (module, diagnostics, answer) = match previous {
                // The same text: the extraction holds, under the stamp it was read with now.
                Some(previous) if previous.kind == source.kind && previous.text == text => {
                    let module = Arc::clone(&previous.module);
                    (module, previous.diagnostics.clone(), None)
                }
                _ => {
                    let (extracted, answer) = extract(&source, &text);
                    (Arc::new(extracted.module), extracted.diagnostics, answer)
                }
            };
            let entry = match kept {
                Some(_) => Entry::Fresh(Box::new(CachedExtraction {
                    kind: source.kind.clone(),
                    stamp,
                    text: text.clone(),
                    module: Arc::clone(&module),
                    diagnostics: diagnostics.clone(),
                })),
                None => Entry::None,
            };
            let text = if keep.keeps(&source.kind) {
                LoadedText::Kept(text)
            } else {
                LoadedText::Released(TextDigest::of(&text))
            };
            let loaded = LoadedModule {
                source,
                extracted: module,
            };
            ((loaded, text, diagnostics, entry), answer)
        }
        Err(ReadFailure::Rejected(diagnostic)) => unread(source, *diagnostic),
        // Discovered a moment ago and gone now: report it like any other unreadable file.
        Err(ReadFailure::Missing) => {
            let error = std::io::Error::from(std::io::ErrorKind::NotFound);
            let diagnostic = unreadable(&source.path, &error);
            unread(source, diagnostic)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::project::discover::discover_modules;

    /// The file system, counting reads.
    #[derive(Default)]
    struct CountingReader {
        reads: AtomicUsize,
    }

    impl SourceReader for CountingReader {
        fn read(&self, path: &std::path::Path) -> std::io::Result<Vec<u8>> {
            self.reads.fetch_add(1, Ordering::SeqCst);
            std::fs::read(path)
        }

        fn settled_stamp(&self, path: &std::path::Path) -> Option<FileStamp> {
            FileStamp::settled_of(path)
        }
    }

    #[test]
    fn a_rebuild_reads_again_only_files_whose_settled_stamp_changed() {
        let dir = tempfile::tempdir().unwrap();
        let tools = dir.path().join("src/mcp/docs/tools");
        std::fs::create_dir_all(&tools).unwrap();
        for name in ["a", "b"] {
            std::fs::write(tools.join(format!("{name}.ts")), "export const x = 1;\n").unwrap();
        }
        // Older than the settling time, as every file is but the one just edited.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let reader = CountingReader::default();
        let cache = ExtractionCache::default();
        let load = || {
            let before = reader.reads.load(Ordering::SeqCst);
            let loaded =
                load_modules_reusing(discover_modules(dir.path()).modules, &reader, Some(&cache));
            (loaded, reader.reads.load(Ordering::SeqCst) - before)
        };
        assert_eq!(load().1, 2);
        let (unchanged, reads) = load();
        assert_eq!(reads, 0, "both stamps settled and unchanged");
        assert_eq!(unchanged.texts.len(), 2);

        std::fs::write(tools.join("b.ts"), "export const x = 22;\n").unwrap();
        let (changed, reads) = load();
        assert_eq!(reads, 1, "the edited file only");
        assert_eq!(
            changed.texts["src/mcp/docs/tools/b.ts"],
            "export const x = 22;\n"
        );
        assert_eq!(
            load().1,
            1,
            "a fresh stamp is not trusted: the file is read again"
        );
    }
}
