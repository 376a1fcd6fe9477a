//! Discovery: walk `<root>/src` and classify files into [`ModuleKind`]s by path convention.
//!
//! Entry calls: [`discover_modules`], or [`walk_modules`] to read modules while the walk goes
//! on. Invariant: the result, once sorted by path (which `discover_modules` does, and the loader
//! for a walk), depends only on the project's files and its own `.gitignore` files (never on
//! ignore files above the root or in the user's home), so two machines discover the same modules.
//!
//! Symlinks are never followed (they could lead out of the project). A symlink where discovery
//! looks — `src` itself, or an entry whose path would be a module or a folder of modules — is an
//! error (AB5343, [`symlink_not_followed`]): what it points at would be missing from the plugin
//! without a word. Other symlinks under `src/` (helpers that routes import) are the bundler's.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

use super::model::{LayoutScope, ModuleKind, SourceModule};
use super::reader::unreadable;
use crate::diagnostics::{Code, Diagnostic, Location};

/// The output of [`discover_modules`].
#[derive(Debug, Default)]
pub struct DiscoverReturn {
    /// Every module of the route graph, sorted by path.
    pub modules: Vec<SourceModule>,
    /// Directories or entries the walk could not read (AB5301).
    pub diagnostics: Vec<Diagnostic>,
}

/// Walks `<root>/src` (respecting `.gitignore`, not following symlinks, skipping `node_modules`
/// and every path segment that starts with `_` or `.`) and keeps the files whose path makes them
/// a module. A project without `src/` has no modules.
pub fn discover_modules(root: &Path) -> DiscoverReturn {
    let mut walk = walk_modules(root);
    let mut modules: Vec<SourceModule> = walk.by_ref().collect();
    modules.sort();
    DiscoverReturn {
        modules,
        diagnostics: walk.diagnostics,
    }
}

/// The walk of [`discover_modules`], one module at a time in the order the walk meets them (not
/// sorted), so that a reader can start on the first modules while the rest of `src/` is still
/// being listed. What the walk could not read or follow is in [`ModuleWalk::diagnostics`] once
/// it has ended.
pub fn walk_modules(root: &Path) -> ModuleWalk {
    let mut walk = ModuleWalk {
        root: root.to_path_buf(),
        entries: None,
        diagnostics: Vec::new(),
    };
    if is_symlink(&root.join("src")) {
        walk.diagnostics.push(symlink_not_followed(
            "src",
            "so no route, provider or skill under it is discovered",
        ));
        return walk;
    }
    if !root.join("src").is_dir() {
        return walk;
    }
    // The walk starts at the root so that the root's `.gitignore` applies, but only `src` is
    // entered; `parents(false)` keeps ignore files above the project out of the decision.
    let entries = WalkBuilder::new(root)
        .standard_filters(false)
        .git_ignore(true)
        .require_git(false)
        .parents(false)
        .follow_links(false)
        .filter_entry(|entry| {
            let name = entry.file_name().to_string_lossy();
            match entry.depth() {
                0 => true,
                1 => name == "src",
                _ => !is_opted_out(&name),
            }
        })
        .build();
    walk.entries = Some(entries);
    walk
}

/// See [`walk_modules`].
pub struct ModuleWalk {
    root: PathBuf,
    /// `None` when there is no `src/` to walk.
    entries: Option<ignore::Walk>,
    /// Directories or entries the walk could not read (AB5301), and symlinks it did not follow
    /// where modules would be (AB5343).
    pub diagnostics: Vec<Diagnostic>,
}

impl Iterator for ModuleWalk {
    type Item = SourceModule;

    fn next(&mut self) -> Option<SourceModule> {
        let root = self.root.as_path();
        loop {
            let entry = match self.entries.as_mut()?.next()? {
                Ok(entry) => entry,
                Err(error) => {
                    let path = error_path(&error, root);
                    self.diagnostics
                        .push(unreadable(&path, &std::io::Error::other(error)));
                    continue;
                }
            };
            let Some(relative) = relative_path(root, entry.path()) else {
                continue;
            };
            if entry.path_is_symlink() {
                if classify(&relative).is_some() || holds_modules(&relative) {
                    self.diagnostics.push(symlink_not_followed(
                        &relative,
                        "so the routes it points at are not discovered",
                    ));
                }
                continue;
            }
            if !entry.file_type().is_some_and(|kind| kind.is_file()) {
                continue;
            }
            if let Some(kind) = classify(&relative) {
                return Some(SourceModule {
                    path: relative,
                    absolute: entry.path().to_path_buf(),
                    kind,
                });
            }
        }
    }
}

/// What a project-relative, `/`-separated path is, by convention alone; `None` for files that
/// are not modules of the graph (they may still be imported by one).
pub fn classify(relative: &str) -> Option<ModuleKind> {
    let segments: Vec<&str> = relative.split('/').collect();
    if segments.first() != Some(&"src") || segments.iter().any(|s| is_opted_out(s)) {
        return None;
    }
    let file = *segments.last()?;
    if let ["mcp", _] = segments[1..] {
        return entry_stem(file).map(|server| ModuleKind::ServerEntry {
            server: server.to_owned(),
        });
    }
    if segments[1] == "scripts" && segments.len() > 2 {
        return script(&segments[2..]);
    }
    let stem = module_stem(file)?;
    if segments[1] == "cli" && segments.len() > 2 {
        let mut words: Vec<String> = segments[2..segments.len() - 1]
            .iter()
            .map(|word| (*word).to_owned())
            .collect();
        words.push(stem.to_owned());
        return Some(ModuleKind::Cli { words });
    }
    match segments[1..] {
        [_] if stem == "layout" => Some(ModuleKind::Layout(LayoutScope::Root)),
        ["mcp", server, _] if stem == "layout" => Some(ModuleKind::Layout(LayoutScope::Server {
            server: server.to_owned(),
        })),
        ["mcp", server, folder, _] => mcp_route(folder, server, stem),
        ["events", _] => Some(ModuleKind::Event {
            event: stem.to_owned(),
        }),
        ["events", family, _] => Some(ModuleKind::Event {
            event: format!("{family}/{stem}"),
        }),
        ["providers", _] => Some(ModuleKind::Provider {
            name: stem.to_owned(),
        }),
        _ => None,
    }
}

/// Whether `relative` is a folder discovery enters to find modules (`src/mcp/<server>/tools`,
/// `src/events/<family>`, `src/providers`, …). Skills are `skills.rs`'s.
fn holds_modules(relative: &str) -> bool {
    let segments: Vec<&str> = relative.split('/').collect();
    matches!(
        segments[..],
        ["src", "mcp"]
            | ["src", "mcp", _]
            | ["src", "mcp", _, "tools" | "resources" | "prompts" | "apps"]
            | ["src", "events"]
            | ["src", "events", _]
            | ["src", "providers"]
            | ["src", "cli", ..]
            | ["src", "scripts", ..]
    )
}

/// Whether `path` itself is a symlink (not whether it leads anywhere).
pub(crate) fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_symlink())
}

/// AB5343: `relative` is a symlink where abgen reads the project's inputs; `consequence` says
/// what is missing because it is not followed.
pub fn symlink_not_followed(relative: &str, consequence: &str) -> Diagnostic {
    Diagnostic::new(
        Code::AB5343,
        format!("`{relative}` is a symlink; abgen does not follow symlinks, {consequence}"),
        "put the real folder or file at this path (move it here, or copy it), or rename the link with a leading `_` to opt it out",
    )
    .at(Location::file(relative))
    .with_note(
        "a symlink can lead out of the project, and what it points at would be missing from the plugin without a word",
    )
}

fn mcp_route(folder: &str, server: &str, stem: &str) -> Option<ModuleKind> {
    // `<tool>.cli.ts` is a tool's command-line projection, never a route.
    if let Some(tool) = stem.strip_suffix(".cli") {
        return matches!(folder, "tools" | "resources" | "prompts" | "apps").then(|| {
            ModuleKind::ToolCli {
                server: server.to_owned(),
                folder: folder.to_owned(),
                tool: tool.to_owned(),
            }
        });
    }
    let (server, name) = (server.to_owned(), stem.to_owned());
    match folder {
        "tools" => Some(ModuleKind::Tool { server, name }),
        "resources" => Some(ModuleKind::Resource { server, name }),
        "prompts" => Some(ModuleKind::Prompt { server, name }),
        "apps" => Some(ModuleKind::App { server, name }),
        _ => None,
    }
}

/// A script by its path under `src/scripts/`: `.tsx`/`.jsx` render, `.ts` runs as plain Node.
fn script(segments: &[&str]) -> Option<ModuleKind> {
    let (file, folders) = segments.split_last()?;
    let (stem, rendered) = [(".tsx", true), (".jsx", true), (".ts", false)]
        .iter()
        .find_map(|(extension, rendered)| Some((file.strip_suffix(extension)?, *rendered)))?;
    if stem.is_empty() || stem.ends_with(".d") {
        return None;
    }
    let mut name: Vec<&str> = folders.to_vec();
    name.push(stem);
    Some(ModuleKind::Script {
        name: name.join("/"),
        rendered,
    })
}

/// The stem of a `.ts`/`.tsx` module file; declaration files (`.d.ts`) are not modules.
fn module_stem(file: &str) -> Option<&str> {
    let stem = file
        .strip_suffix(".tsx")
        .or_else(|| file.strip_suffix(".ts"))?;
    (!stem.is_empty() && !stem.ends_with(".d")).then_some(stem)
}

/// The server id of a handwritten stdio entry file: `.ts`, `.tsx`, `.mts`, `.js` or `.cjs`.
fn entry_stem(file: &str) -> Option<&str> {
    let stem = [".tsx", ".ts", ".mts", ".cjs", ".js"]
        .iter()
        .find_map(|extension| file.strip_suffix(extension))?;
    (!stem.is_empty() && !stem.ends_with(".d")).then_some(stem)
}

/// A segment starting with `_` or `.` opts the path out; `node_modules` is never read.
fn is_opted_out(segment: &str) -> bool {
    segment.starts_with('_') || segment.starts_with('.') || segment == "node_modules"
}

fn relative_path(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let segments: Option<Vec<&str>> = relative
        .components()
        .map(|component| component.as_os_str().to_str())
        .collect();
    Some(segments?.join("/"))
}

fn error_path(error: &ignore::Error, root: &Path) -> String {
    match error {
        ignore::Error::WithPath { path, .. } => {
            relative_path(root, path).unwrap_or_else(|| path.display().to_string())
        }
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err, root)
        }
        _ => "src".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(server: &str, name: &str) -> Option<ModuleKind> {
        Some(ModuleKind::Tool {
            server: server.into(),
            name: name.into(),
        })
    }

    #[test]
    fn classifies_every_convention() {
        assert_eq!(
            classify("src/mcp/docs/tools/search.tsx"),
            tool("docs", "search")
        );
        assert_eq!(
            classify("src/mcp/docs/apps/panel.tsx"),
            Some(ModuleKind::App {
                server: "docs".into(),
                name: "panel".into()
            })
        );
        assert_eq!(
            classify("src/events/tool/after.ts"),
            Some(ModuleKind::Event {
                event: "tool/after".into()
            })
        );
        assert_eq!(
            classify("src/events/stop.tsx"),
            Some(ModuleKind::Event {
                event: "stop".into()
            })
        );
        assert_eq!(
            classify("src/layout.tsx"),
            Some(ModuleKind::Layout(LayoutScope::Root))
        );
        assert_eq!(
            classify("src/mcp/docs/layout.ts"),
            Some(ModuleKind::Layout(LayoutScope::Server {
                server: "docs".into()
            }))
        );
        assert_eq!(
            classify("src/providers/project-auth.ts"),
            Some(ModuleKind::Provider {
                name: "project-auth".into()
            })
        );
        assert_eq!(
            classify("src/mcp/docs.ts"),
            Some(ModuleKind::ServerEntry {
                server: "docs".into()
            })
        );
        assert_eq!(
            classify("src/mcp/docs/tools/search.cli.ts"),
            Some(ModuleKind::ToolCli {
                server: "docs".into(),
                folder: "tools".into(),
                tool: "search".into()
            })
        );
        assert_eq!(
            classify("src/cli/library/audit.tsx"),
            Some(ModuleKind::Cli {
                words: vec!["library".into(), "audit".into()]
            })
        );
        assert_eq!(
            classify("src/cli/status.ts"),
            Some(ModuleKind::Cli {
                words: vec!["status".into()]
            })
        );
        assert_eq!(
            classify("src/scripts/report.tsx"),
            Some(ModuleKind::Script {
                name: "report".into(),
                rendered: true
            })
        );
        assert_eq!(
            classify("src/scripts/sync.ts"),
            Some(ModuleKind::Script {
                name: "sync".into(),
                rendered: false
            })
        );
        assert_eq!(
            classify("src/scripts/nested/sync.ts"),
            Some(ModuleKind::Script {
                name: "nested/sync".into(),
                rendered: false
            }),
            "a nested script is discovered so that it can be refused"
        );
    }

    #[test]
    fn ignores_files_outside_the_conventions() {
        for path in [
            "src/mcp/docs/tools/nested/search.ts",
            "src/mcp/docs/helpers/search.ts",
            "src/mcp/docs/tools/search.js",
            "src/mcp/docs/tools/search.d.ts",
            "src/mcp/docs/tools/_draft.ts",
            "src/mcp/_docs/tools/search.ts",
            "src/events/tool/after/extra.ts",
            "src/lib/util.ts",
            "src/index.ts",
            "lib/mcp/docs/tools/search.ts",
            "src/providers/.hidden.ts",
            "src/cli/library/_draft.tsx",
            "src/cli/notes.md",
            "src/scripts/types.d.ts",
        ] {
            assert_eq!(classify(path), None, "{path}");
        }
    }

    #[test]
    fn walk_respects_gitignore_opt_outs_and_sorts() {
        let root = tempfile::tempdir().expect("tempdir");
        let files = [
            "src/mcp/b/tools/z.ts",
            "src/mcp/b/tools/a.tsx",
            "src/mcp/a/tools/x.ts",
            "src/mcp/a/tools/ignored.ts",
            "src/mcp/a/.cache/tools/x.ts",
            "src/node_modules/mcp/a/tools/x.ts",
            "src/events/stop.ts",
        ];
        for file in files {
            let path = root.path().join(file);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, "export {}\n").expect("write");
        }
        std::fs::write(root.path().join(".gitignore"), "ignored.ts\n").expect("write");
        let found = discover_modules(root.path());
        let paths: Vec<&str> = found.modules.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "src/events/stop.ts",
                "src/mcp/a/tools/x.ts",
                "src/mcp/b/tools/a.tsx",
                "src/mcp/b/tools/z.ts"
            ]
        );
        assert!(found.diagnostics.is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_not_followed() {
        let root = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("x.ts"), "export {}\n").expect("write");
        std::fs::create_dir_all(root.path().join("src/mcp/a")).expect("mkdir");
        std::os::unix::fs::symlink(outside.path(), root.path().join("src/mcp/a/tools"))
            .expect("symlink");
        let found = discover_modules(root.path());
        assert!(found.modules.is_empty());
        let codes: Vec<(Code, Option<&str>)> = found
            .diagnostics
            .iter()
            .map(|d| (d.code, d.location.as_ref().map(|l| l.file.as_str())))
            .collect();
        assert_eq!(codes, [(Code::AB5343, Some("src/mcp/a/tools"))]);
        assert!(found.diagnostics[0].is_error());
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_src_is_an_error_not_an_empty_project() {
        let root = tempfile::tempdir().expect("tempdir");
        let real = root.path().join("real-src/mcp/a/tools");
        std::fs::create_dir_all(&real).expect("mkdir");
        std::fs::write(real.join("x.ts"), "export {}\n").expect("write");
        std::os::unix::fs::symlink("real-src", root.path().join("src")).expect("symlink");
        let found = discover_modules(root.path());
        assert!(found.modules.is_empty());
        assert_eq!(found.diagnostics.len(), 1);
        let diagnostic = &found.diagnostics[0];
        assert_eq!(diagnostic.code, Code::AB5343);
        assert!(diagnostic.is_error());
        assert!(
            diagnostic.message.starts_with("`src` is a symlink"),
            "{}",
            diagnostic.message
        );
    }

    #[cfg(unix)]
    #[test]
    fn only_symlinks_on_module_paths_are_reported() {
        let root = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("x.ts"), "export {}\n").expect("write");
        for dir in ["src/mcp/a/tools", "src/lib", "src/events"] {
            std::fs::create_dir_all(root.path().join(dir)).expect("mkdir");
        }
        let link = |target: &Path, at: &str| {
            std::os::unix::fs::symlink(target, root.path().join(at)).expect("symlink")
        };
        let file = outside.path().join("x.ts");
        link(&file, "src/mcp/a/tools/linked.ts");
        link(outside.path(), "src/events/session");
        link(outside.path(), "src/providers");
        // A helper that routes import, a parked link and a non-module name are not discovery's.
        link(&file, "src/lib/helper.ts");
        link(&file, "src/mcp/a/tools/_parked.ts");
        link(&file, "src/mcp/a/tools/notes.md");
        let found = discover_modules(root.path());
        let mut reported: Vec<&str> = found
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::AB5343)
            .filter_map(|d| d.location.as_ref().map(|l| l.file.as_str()))
            .collect();
        reported.sort_unstable();
        assert_eq!(
            reported,
            [
                "src/events/session",
                "src/mcp/a/tools/linked.ts",
                "src/providers"
            ]
        );
        assert_eq!(found.diagnostics.len(), 3);
    }
}
