//! Imports the project cannot resolve, found at `check` rather than first by the bundler: every
//! static `import` and `export … from` of a discovered module names a file of the project or a
//! package installed where Node (and esbuild) look for it. Entry: [`check_imports`].
//!
//! Resolution is Node's `node_modules` lookup of the package folder, from the module's folder
//! up to the filesystem root, then the fallback folder (`ABGEN_NODE_MODULES`), the same order
//! the bundler uses. Invariant: what this check lets through may still fail to bundle (an export
//! the package lacks, a subpath its `exports` hides: AB5360 at build), but what it reports
//! never bundles, except under a `tsconfig.json` with `paths` or `baseUrl`, where a bare
//! specifier can be an alias and is left to the bundler.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::diagnostics::{Code, Diagnostic};
use crate::extract::ModuleRequest;
use crate::project::LoadedModule;

/// Node's built-in modules, importable without `node:` (Node 20's `builtinModules`).
const NODE_BUILTINS: &[&str] = &[
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "module",
    "net",
    "os",
    "path",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "stream",
    "string_decoder",
    "sys",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
];

/// Extensions the bundler tries for a relative specifier, in its order.
const EXTENSIONS: &[&str] = &[
    ".tsx", ".ts", ".jsx", ".js", ".mts", ".cts", ".mjs", ".cjs", ".json",
];

/// AB5365 for every request of `modules` that names nothing the project has.
pub fn check_imports(
    root: &Path,
    modules: &[LoadedModule],
    fallback: Option<&Path>,
) -> Vec<Diagnostic> {
    let aliases = declares_path_aliases(root);
    let mut packages = PackageLookup::default();
    let mut found = Vec::new();
    for module in modules {
        let path = &module.source.path;
        let dir = root.join(path);
        let dir = dir.parent().unwrap_or(root);
        for request in &module.extracted.requests {
            if request.type_only {
                continue;
            }
            if let Some(diagnostic) = unresolved(request, dir, fallback, aliases, &mut packages) {
                found.push(diagnostic.at(request.location.clone()));
            }
        }
    }
    found
}

fn unresolved(
    request: &ModuleRequest,
    dir: &Path,
    fallback: Option<&Path>,
    aliases: bool,
    packages: &mut PackageLookup,
) -> Option<Diagnostic> {
    let specifier = request.specifier.as_str();
    if specifier.starts_with("./") || specifier.starts_with("../") {
        if relative_file(dir, specifier) {
            return None;
        }
        return Some(Diagnostic::new(
            Code::AB5365,
            format!("`{specifier}` names no file of the project"),
            "fix the path (relative to this module; `.js` may name a `.ts` file), or create the module",
        ));
    }
    if specifier.starts_with('/') || specifier.contains(':') || aliases {
        // An absolute path, `node:` and other schemes, or a tsconfig alias: the bundler's call.
        return None;
    }
    let package = package_name(specifier);
    if NODE_BUILTINS.contains(&package) || packages.is_installed(dir, package, fallback) {
        return None;
    }
    let message = if package == specifier {
        format!("`{package}` is not installed in the project")
    } else {
        format!("`{package}` is not installed in the project, so `{specifier}` cannot be resolved")
    };
    Some(Diagnostic::new(
        Code::AB5365,
        message,
        format!("run `npm install {package}` in the project root, or fix the import"),
    ))
}

/// The package a bare specifier names: its first segment, or two for a scope.
pub fn package_name(specifier: &str) -> &str {
    let mut ends = specifier.match_indices('/').map(|(at, _)| at);
    let end = if specifier.starts_with('@') {
        ends.nth(1)
    } else {
        ends.next()
    };
    &specifier[..end.unwrap_or(specifier.len())]
}

/// Whether Node finds package `name` from a folder: `node_modules/<name>` in that folder or an
/// ancestor, then in the fallback folder. Each candidate folder is looked at once per check: the
/// modules of a project share their ancestors, and a lookup per import and ancestor was most of
/// `check`'s system time (24,000 `statx` calls for 1,000 routes).
#[derive(Default)]
struct PackageLookup {
    /// Whether package `<name>` is installed for modules of `<folder>`, by folder then name: the
    /// modules of one folder ask for the same few packages, so a walk up the ancestors is done
    /// once per folder and name, not once per import.
    installed: HashMap<PathBuf, HashMap<String, bool>>,
    /// `<folder>/<name>/package.json` is a file, by candidate `<folder>/<name>`.
    has_manifest: HashMap<PathBuf, bool>,
}

impl PackageLookup {
    fn is_installed(&mut self, dir: &Path, name: &str, fallback: Option<&Path>) -> bool {
        if let Some(&installed) = self.installed.get(dir).and_then(|names| names.get(name)) {
            return installed;
        }
        let candidates = dir
            .ancestors()
            .map(|ancestor| ancestor.join("node_modules").join(name))
            .chain(fallback.map(|fallback| fallback.join(name)));
        let mut installed = false;
        for candidate in candidates {
            let found = *self
                .has_manifest
                .entry(candidate)
                .or_insert_with_key(|candidate| candidate.join("package.json").is_file());
            if found {
                installed = true;
                break;
            }
        }
        self.installed
            .entry(dir.to_path_buf())
            .or_default()
            .insert(name.to_owned(), installed);
        installed
    }
}

/// Whether `specifier` (relative to `dir`) is a file, with the extensions and `index` files the
/// bundler tries, and TypeScript's `.js` naming a `.ts` source.
fn relative_file(dir: &Path, specifier: &str) -> bool {
    let path = dir.join(specifier);
    if path.is_file() {
        return true;
    }
    let stem = path.to_string_lossy().into_owned();
    let typescript_source = [
        (".js", ".ts"),
        (".js", ".tsx"),
        (".mjs", ".mts"),
        (".cjs", ".cts"),
        (".jsx", ".tsx"),
    ]
    .iter()
    .filter_map(|(written, source)| {
        stem.strip_suffix(written)
            .map(|base| PathBuf::from(format!("{base}{source}")))
    });
    let with_extension = EXTENSIONS
        .iter()
        .map(|extension| PathBuf::from(format!("{stem}{extension}")));
    let index = EXTENSIONS
        .iter()
        .map(|extension| path.join(format!("index{extension}")));
    typescript_source
        .chain(with_extension)
        .chain(index)
        .any(|candidate| candidate.is_file())
}

/// The project's `tsconfig.json` maps module names (`paths`, `baseUrl`), so a bare specifier may
/// be an alias the bundler resolves.
fn declares_path_aliases(root: &Path) -> bool {
    std::fs::read_to_string(root.join("tsconfig.json"))
        .is_ok_and(|text| text.contains("\"paths\"") || text.contains("\"baseUrl\""))
}

#[cfg(test)]
mod tests {
    use super::package_name;

    #[test]
    fn names_the_package_of_a_specifier() {
        assert_eq!(package_name("react"), "react");
        assert_eq!(package_name("react-dom/server"), "react-dom");
        assert_eq!(
            package_name("@agent-bundle/runtime/worker"),
            "@agent-bundle/runtime"
        );
        assert_eq!(package_name("@scope/pkg"), "@scope/pkg");
    }
}
