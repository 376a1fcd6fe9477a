//! `abgen init`: a new plugin project that builds, type-checks and passes its own test as
//! written: the config, one tool, one event route and one App, `tsconfig.json` (which includes
//! the generated `.agent-bundle/routes.d.ts`), `.gitignore`, a test, and `package.json` with the
//! `build`, `dev`, `test` and `typecheck` scripts and every package pinned. It asks nothing.
//! Entry: [`init_project`] (`npm create abgen` runs the same through the `abgen` package).
//!
//! Invariant: init never replaces a file: when any file it would write exists, it writes
//! nothing and names them (AB5366).

use std::path::{Path, PathBuf};

use crate::diagnostics::{Code, Diagnostic, Location};

/// The files of a new project: path, template (with `%NAME%`, `%SERVER%`, `%VERSION%`, `%REACT%`).
const FILES: &[(&str, &str)] = &[
    (
        "package.json",
        include_str!("../../templates/init/package.json.in"),
    ),
    (
        "agent-bundle.config.ts",
        include_str!("../../templates/init/agent-bundle.config.ts.in"),
    ),
    (
        "tsconfig.json",
        include_str!("../../templates/init/tsconfig.json.in"),
    ),
    (
        ".gitignore",
        include_str!("../../templates/init/gitignore.in"),
    ),
    (
        "src/mcp/%SERVER%/tools/greet.tsx",
        include_str!("../../templates/init/tool.tsx.in"),
    ),
    (
        "src/mcp/%SERVER%/apps/greeter.tsx",
        include_str!("../../templates/init/app.tsx.in"),
    ),
    (
        "src/events/session/start.tsx",
        include_str!("../../templates/init/session-start.tsx.in"),
    ),
    (
        "test/greet.test.mjs",
        include_str!("../../templates/init/greet.test.mjs.in"),
    ),
];

/// What init wrote.
#[derive(Debug)]
pub struct InitReturn {
    pub dir: PathBuf,
    pub name: String,
    /// Project-relative paths, in writing order.
    pub files: Vec<String>,
}

/// Why init wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum InitFailure {
    #[error("{}", .0.message)]
    Diagnostic(Box<Diagnostic>),
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Writes a new project into `dir` (created when missing), named `name` or after `dir`.
pub fn init_project(dir: &Path, name: Option<&str>) -> Result<InitReturn, InitFailure> {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    let name = match name {
        Some(name) => {
            if plugin_name(name) != name {
                return Err(InitFailure::Diagnostic(Box::new(Diagnostic::new(
                    Code::AB5366,
                    format!(
                        "`{name}` cannot name a plugin: it is not a lowercase npm package name"
                    ),
                    format!(
                        "pass `--name {}` or another name of lowercase letters, digits and hyphens",
                        plugin_name(name)
                    ),
                ))));
            }
            name.to_owned()
        }
        None => plugin_name(
            &absolute
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
    };
    let server = name.replace('-', "_");
    let fill = |text: &str| {
        text.replace("%NAME%", &name)
            .replace("%SERVER%", &server)
            .replace("%VERSION%", env!("CARGO_PKG_VERSION"))
            .replace("%REACT%", abgen_runtime::manifest::REACT_VERSION)
    };
    let planned: Vec<(String, String)> = FILES
        .iter()
        .map(|(path, template)| (fill(path), fill(template)))
        .collect();
    let existing: Vec<&str> = planned
        .iter()
        .map(|(path, _)| path.as_str())
        .filter(|path| std::fs::symlink_metadata(dir.join(path)).is_ok())
        .collect();
    if !existing.is_empty() {
        let listed: Vec<String> = existing.iter().map(|path| format!("`{path}`")).collect();
        return Err(InitFailure::Diagnostic(Box::new(
            Diagnostic::new(
                Code::AB5366,
                format!(
                    "`{}` already holds {}, which init would write",
                    dir.display(),
                    listed.join(", ")
                ),
                "run `abgen init` with a new or empty folder (`abgen init my-plugin`), or move those files away; nothing was written",
            )
            .at(Location::file(existing[0]))
            .with_note("init never replaces a file"),
        )));
    }
    for (path, text) in &planned {
        let target = dir.join(path);
        let parent = target.parent().unwrap_or(dir);
        std::fs::create_dir_all(parent).map_err(|source| InitFailure::Io {
            path: parent.to_owned(),
            source,
        })?;
        std::fs::write(&target, text).map_err(|source| InitFailure::Io {
            path: target.clone(),
            source,
        })?;
    }
    Ok(InitReturn {
        dir: dir.to_owned(),
        name,
        files: planned.into_iter().map(|(path, _)| path).collect(),
    })
}

/// `text` made a plugin name: lowercase letters, digits and single hyphens, at most 64
/// characters, `agent-plugin` when nothing is left.
pub fn plugin_name(text: &str) -> String {
    let mut name = String::new();
    for character in text.chars().flat_map(char::to_lowercase) {
        if character.is_ascii_lowercase() || character.is_ascii_digit() {
            name.push(character);
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    let name: String = name.trim_end_matches('-').chars().take(64).collect();
    let name = name.trim_end_matches('-').to_owned();
    if name.is_empty() {
        "agent-plugin".to_owned()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::plugin_name;

    #[test]
    fn makes_a_plugin_name_of_a_folder_name() {
        assert_eq!(plugin_name("my-plugin"), "my-plugin");
        assert_eq!(plugin_name("My Plugin_2"), "my-plugin-2");
        assert_eq!(plugin_name("--x--"), "x");
        assert_eq!(plugin_name("..."), "agent-plugin");
    }
}
