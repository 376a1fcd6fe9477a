//! Which modules under `src/mcp/<server>/apps/` are Apps. Seed 002's own layout keeps a view
//! beside its App: `apps/status.ts` (the App, with its `config.resourceUri`) imports
//! `apps/StatusPanel.tsx` (a component). A module there that exports no `config` and that an App
//! of the same folder imports is such a view: it is bundled into that App, never a route of its
//! own. Any other module there is an App and needs its `config.resourceUri` (AB4812).

use std::collections::BTreeSet;

use crate::diagnostics::{Code, Diagnostic};
use crate::project::{LoadedModule, ModuleKind};

/// Removes the view modules from `modules`, and the AB4812 each would have reported from
/// `diagnostics`.
pub fn split_view_modules(modules: &mut Vec<LoadedModule>, diagnostics: &mut Vec<Diagnostic>) {
    let apps: Vec<&LoadedModule> = modules
        .iter()
        .filter(|module| matches!(module.source.kind, ModuleKind::App { .. }))
        .collect();
    let mut views = BTreeSet::new();
    for app in &apps {
        if !declares_config(app) {
            continue;
        }
        let folder = parent(&app.source.path);
        for import in &app.extracted.imports {
            if import.type_only {
                continue;
            }
            let Some(relative) = import.source.strip_prefix("./") else {
                continue;
            };
            // `./StatusPanel.tsx`, `./StatusPanel.js` or `./StatusPanel`: the same module.
            let stem = strip_module_extension(relative);
            if let Some(view) = apps.iter().find(|candidate| {
                !declares_config(candidate)
                    && parent(&candidate.source.path) == folder
                    && strip_module_extension(file_name(&candidate.source.path)) == stem
            }) {
                views.insert(view.source.path.clone());
            }
        }
    }
    if views.is_empty() {
        return;
    }
    modules.retain(|module| !views.contains(&module.source.path));
    diagnostics.retain(|diagnostic| {
        diagnostic.code != Code::AB4812
            || !diagnostic
                .location
                .as_ref()
                .is_some_and(|location| views.contains(&location.file))
    });
}

fn declares_config(module: &LoadedModule) -> bool {
    module.extracted.exports.iter().any(|name| name == "config")
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(parent, _)| parent)
}

fn file_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}

fn strip_module_extension(name: &str) -> &str {
    [".tsx", ".ts", ".jsx", ".js", ".mjs"]
        .iter()
        .find_map(|extension| name.strip_suffix(extension))
        .unwrap_or(name)
}
