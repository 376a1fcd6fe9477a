//! Discovery: walk `<root>/src` and classify files into [`ModuleKind`]s by path convention.
//!
//! Entry call: [`discover_modules`]. Invariant: the result is sorted by path and depends only
//! on the project's files and its own `.gitignore` files (never on ignore files above the root
//! or in the user's home), so two machines discover the same modules.

use std::path::Path;

use ignore::WalkBuilder;

use super::model::{LayoutScope, ModuleKind, SourceModule};
use super::reader::unreadable;
use crate::diagnostics::Diagnostic;

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
    let mut output = DiscoverReturn::default();
    if !root.join("src").is_dir() {
        return output;
    }
    // The walk starts at the root so that the root's `.gitignore` applies, but only `src` is
    // entered; `parents(false)` keeps ignore files above the project out of the decision.
    let walk = WalkBuilder::new(root)
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
    for entry in walk {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                let path = error_path(&error, root);
                output
                    .diagnostics
                    .push(unreadable(&path, &std::io::Error::other(error)));
                continue;
            }
        };
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        let Some(relative) = relative_path(root, entry.path()) else {
            continue;
        };
        if let Some(kind) = classify(&relative) {
            output.modules.push(SourceModule {
                path: relative,
                absolute: entry.path().to_path_buf(),
                kind,
            });
        }
    }
    output.modules.sort();
    output
}

/// What a project-relative, `/`-separated path is, by convention alone; `None` for files that
/// are not modules of the graph (they may still be imported by one).
pub fn classify(relative: &str) -> Option<ModuleKind> {
    let segments: Vec<&str> = relative.split('/').collect();
    if segments.first() != Some(&"src") || segments.iter().any(|s| is_opted_out(s)) {
        return None;
    }
    let file = *segments.last()?;
    let stem = module_stem(file)?;
    match segments[1..] {
        [_] if stem == "layout" => Some(ModuleKind::Layout(LayoutScope::Root)),
        ["mcp", _] => Some(ModuleKind::ServerEntry {
            server: stem.to_owned(),
        }),
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

fn mcp_route(folder: &str, server: &str, stem: &str) -> Option<ModuleKind> {
    // `<tool>.cli.ts` is reserved for a tool's command-line projection, never a route.
    if stem.ends_with(".cli") {
        return None;
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

/// The stem of a `.ts`/`.tsx` module file; declaration files (`.d.ts`) are not modules.
fn module_stem(file: &str) -> Option<&str> {
    let stem = file
        .strip_suffix(".tsx")
        .or_else(|| file.strip_suffix(".ts"))?;
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
    }

    #[test]
    fn ignores_files_outside_the_conventions() {
        for path in [
            "src/mcp/docs/tools/nested/search.ts",
            "src/mcp/docs/helpers/search.ts",
            "src/mcp/docs/tools/search.js",
            "src/mcp/docs/tools/search.d.ts",
            "src/mcp/docs/tools/search.cli.tsx",
            "src/mcp/docs/tools/_draft.ts",
            "src/mcp/_docs/tools/search.ts",
            "src/events/tool/after/extra.ts",
            "src/lib/util.ts",
            "src/index.ts",
            "lib/mcp/docs/tools/search.ts",
            "src/providers/.hidden.ts",
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
        assert!(discover_modules(root.path()).modules.is_empty());
    }
}
