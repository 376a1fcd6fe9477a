//! The floor `abgen check` is measured against: find the project's source modules, read each
//! one and parse it with `oxc_parser` in parallel, and do nothing else.
//!
//! It is deliberately the cheapest honest version of the first two stages: one allocator per
//! rayon worker, reset between files, so no AST outlives its file; the same file selection
//! (`agent-bundle.config.*` and `.ts`/`.tsx` under `src/`, `.gitignore` honoured, `_`/`.`
//! segments and `.d.ts` skipped) and the same source types (`SourceType::from_path`) the
//! compiler uses. Anything abgen spends above this is semantic analysis, extraction, schemas,
//! the graph and diagnostics.

use std::fs;
use std::path::{Path, PathBuf};

use oxc_allocator::Allocator;
use oxc_parser::Parser;
use oxc_span::SourceType;
use rayon::prelude::*;

/// The modules of the project at `root`, sorted.
pub fn source_files(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["ts", "mts", "js", "mjs"]
        .iter()
        .map(|ext| root.join(format!("agent-bundle.config.{ext}")))
        .filter(|path| path.is_file())
        .take(1)
        .collect();
    let src = root.join("src");
    let walker = ignore::WalkBuilder::new(&src)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| !entry.file_name().to_string_lossy().starts_with('_'))
        .build();
    for entry in walker.flatten() {
        let name = entry.file_name().to_string_lossy();
        let is_module =
            (name.ends_with(".ts") || name.ends_with(".tsx")) && !name.ends_with(".d.ts");
        if is_module && entry.file_type().is_some_and(|kind| kind.is_file()) {
            files.push(entry.into_path());
        }
    }
    files.sort();
    files
}

/// What parsing the project cost, besides time.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct FloorReport {
    pub files: usize,
    pub bytes: usize,
    /// Top-level statements over every file: kept so the parse result is observably used.
    pub statements: usize,
    /// Files with a syntax error (the generated projects must have none).
    pub files_with_errors: usize,
}

impl FloorReport {
    fn merge(self, other: Self) -> Self {
        Self {
            files: self.files + other.files,
            bytes: self.bytes + other.bytes,
            statements: self.statements + other.statements,
            files_with_errors: self.files_with_errors + other.files_with_errors,
        }
    }
}

/// How parse arenas are managed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arena {
    /// One arena per rayon worker, reset between files: the floor.
    Reused,
    /// A fresh arena per file, dropped after it: what a reader without per-thread state pays,
    /// measured to show what reusing arenas would save.
    PerFile,
}

/// Reads and parses every file in parallel. A file that cannot be read counts as an error.
pub fn parse_all(files: &[PathBuf], arena: Arena) -> (FloorReport, Vec<String>) {
    files
        .par_iter()
        .map_init(Allocator::default, |allocator, path| match arena {
            Arena::Reused => {
                let outcome = parse_one(allocator, path);
                allocator.reset();
                outcome
            }
            Arena::PerFile => parse_one(&Allocator::default(), path),
        })
        .fold(
            || (FloorReport::default(), Vec::new()),
            |(report, mut errors), (one, error)| {
                errors.extend(error);
                (report.merge(one), errors)
            },
        )
        .reduce(
            || (FloorReport::default(), Vec::new()),
            |(a, mut errors_a), (b, errors_b)| {
                errors_a.extend(errors_b);
                (a.merge(b), errors_a)
            },
        )
}

fn parse_one(allocator: &Allocator, path: &Path) -> (FloorReport, Option<String>) {
    let failed = |message: String| {
        let report = FloorReport {
            files: 1,
            files_with_errors: 1,
            ..FloorReport::default()
        };
        (report, Some(format!("{}: {message}", path.display())))
    };
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => return failed(error.to_string()),
    };
    let source_type = match SourceType::from_path(path) {
        Ok(source_type) => source_type,
        Err(error) => return failed(error.to_string()),
    };
    let parsed = Parser::new(allocator, &text, source_type).parse();
    let report = FloorReport {
        files: 1,
        bytes: text.len(),
        statements: parsed.program.body.len(),
        files_with_errors: 0,
    };
    if let Some(error) = parsed.diagnostics.errors().next() {
        return failed(error.to_string());
    }
    if parsed.panicked {
        return failed("the parser gave up".to_owned());
    }
    (report, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::write_project;

    #[test]
    fn generated_projects_parse_without_errors() {
        let dir = std::env::temp_dir().join(format!("abgen-bench-floor-{}", std::process::id()));
        let summary = write_project(&dir, 120).expect("write project");
        let files = source_files(&dir);
        // Every written file except package.json is a module.
        assert_eq!(files.len(), summary.files - 1);
        let (report, errors) = parse_all(&files, Arena::Reused);
        assert_eq!(errors, Vec::<String>::new());
        assert_eq!(report.files, files.len());
        assert!(report.statements > 5 * report.files);
        assert_eq!(parse_all(&files, Arena::PerFile).0, report);
        fs::remove_dir_all(&dir).expect("clean up");
    }

    #[test]
    fn private_segments_and_declarations_are_skipped() {
        let dir = std::env::temp_dir().join(format!("abgen-bench-skip-{}", std::process::id()));
        for rel in [
            "src/mcp/a/tools/ok.ts",
            "src/mcp/a/tools/_parked.ts",
            "src/_lib/x.ts",
            "src/types.d.ts",
        ] {
            let path = dir.join(rel);
            fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            fs::write(&path, "export {};\n").expect("write");
        }
        let files = source_files(&dir);
        assert_eq!(files, vec![dir.join("src/mcp/a/tools/ok.ts")]);
        fs::remove_dir_all(&dir).expect("clean up");
    }
}
