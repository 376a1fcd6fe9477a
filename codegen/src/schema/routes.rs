//! Schemas of every tool route of a checked project: translate `inputSchema` and
//! `resultSchema`, print them as JSON Schema 2020-12, and warn (AB51xx) where a schema is left
//! to run time.
//!
//! Entry calls: [`translate_routes`], [`translate_const`]. Invariant: a literal
//! `inputJsonSchema` / `outputJsonSchema` in the options replaces translation of that side;
//! an output schema exists only for object-rooted results.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

use abgen_runtime::manifest::{
    ProfileProjection, ProfileSchema, RouteSchemas as ManifestSchemas, SchemaProjection,
    SchemaSource,
};
use rayon::prelude::*;
use serde_json::Value;

use super::hosts::{ProfileRefusal, profile_refusal};
use super::ir::{Io, Kind, Schema};
use super::modules::{ImportedModules, ModuleRef, ModuleSet};
use super::print::print_2020_12;
use super::profile::{Profile, check_input_root, differs_from_canonical, project_owned};
use super::shape::{printable, prints_object_root};
use super::translate::{Fallback, Translator};
use crate::diagnostics::{Code, Diagnostic, Location};
use crate::extract::ExtractedModule;
use crate::project::{LoadedModule, ModuleKind, SourceModule, SourceReader};

/// The options key whose literal JSON Schema replaces the translated input schema.
pub const LITERAL_INPUT_KEY: &str = "inputJsonSchema";
/// The options key whose literal JSON Schema replaces the translated output schema.
pub const LITERAL_OUTPUT_KEY: &str = "outputJsonSchema";

/// How one side of a route's schema is known.
#[derive(Clone, Debug, PartialEq)]
pub enum RouteSchema {
    /// The route declares no schema on this side, or its result is not an object.
    Absent,
    /// A literal `inputJsonSchema` / `outputJsonSchema` in the options.
    Literal,
    /// Translated at build time; printed on demand as zod would print it.
    Static(StaticSchema),
    /// Left to run time; the warning's code says why.
    Runtime(Code),
}

/// A schema translated at build time, known to print on its side.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticSchema {
    pub schema: Schema,
    pub io: Io,
}

impl StaticSchema {
    /// The JSON Schema 2020-12 zod prints for it. `None` only if the schema cannot be printed,
    /// which `translate_routes` ruled out before making it static.
    pub fn json(&self) -> Option<Value> {
        print_2020_12(&self.schema, self.io).ok()
    }
}

/// The two schemas of one MCP route (a tool, a resource or a prompt).
#[derive(Clone, Debug, PartialEq)]
pub struct RouteSchemas {
    pub server: String,
    /// Where the `inputSchema` expression stands, when the route has one.
    pub input_location: Option<Location>,
    pub input: RouteSchema,
    pub output: RouteSchema,
}

/// The output of [`translate_routes`].
#[derive(Debug, Default)]
pub struct SchemaReturn {
    /// By route id (`tool:<server>/<name>`, `resource:…`, `prompt:…`); shared with the
    /// [`TranslationCache`] of a watch loop while the route's translation holds.
    pub routes: BTreeMap<String, Arc<RouteSchemas>>,
    pub diagnostics: Vec<Diagnostic>,
    /// The text of every module outside the route set that a schema referenced.
    pub sources: BTreeMap<String, String>,
}

/// What [`translate_routes`] checks and keeps.
#[derive(Clone, Copy, Debug, Default)]
pub struct TranslateOptions<'t> {
    /// The selected hosts: every route's input schema is checked against their profiles
    /// (AB5210) in the route's own task.
    pub targets: &'t [&'t str],
    /// Check every schema and keep none (`check` prints diagnostics only): each route's
    /// schemas are freed in its task, so the next route reuses their memory.
    pub discard: bool,
}

/// Each route module's translation, kept for the next check of the same project (a watch
/// loop's rebuild), so that a rebuild translates only the routes a change reaches.
///
/// Invariant: a kept translation is reused only for the same extraction of its module (the
/// [`crate::project::ExtractionCache`] hands out one `Arc` while the file's text and kind are
/// unchanged), the same keep/discard choice, and while every relative import the translator
/// followed resolves to the same module with the same text (or still to none).
#[derive(Debug, Default)]
pub struct TranslationCache {
    kept: Mutex<HashMap<String, KeptTranslation>>,
}

#[derive(Debug)]
struct KeptTranslation {
    extracted: Arc<ExtractedModule>,
    discard: bool,
    /// Each followed import, `(importing module, specifier)`, with the path it resolved to and
    /// that module's text.
    imports: Vec<(Import, Option<(String, String)>)>,
    translated: RouteTranslation,
}

/// A relative import the translator followed: `(importing module, specifier)`.
type Import = (String, String);

/// One route's translation: its id, its schemas (unless discarded), its fallback warnings and
/// why host profiles refuse its input schema, if they do.
#[derive(Clone, Debug)]
pub struct RouteTranslation {
    id: String,
    schemas: Option<Arc<RouteSchemas>>,
    diagnostics: Vec<Diagnostic>,
    refusal: Option<ProfileRefusal>,
}

impl TranslationCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, KeptTranslation>> {
        crate::sync::lock(&self.kept)
    }
}

/// What `import` from a module resolves to in `set`: the module's path and text.
fn resolved_import(set: &ModuleSet<'_>, (from, specifier): &Import) -> Option<(String, String)> {
    let path = set.resolve_import(from, specifier)?;
    let text = set.get(&path)?.text().to_owned();
    Some((path, text))
}

/// Translates the schemas of every tool, resource and prompt among `modules`; modules they
/// import from outside the route set are read through `reader` under `root`.
pub fn translate_routes(
    root: &Path,
    reader: &dyn SourceReader,
    modules: &[LoadedModule],
    texts: &BTreeMap<String, String>,
    options: TranslateOptions<'_>,
) -> SchemaReturn {
    let imported = ImportedModules::new(root, reader);
    translate_routes_reusing(&imported, modules, texts, options, None)
}

/// [`translate_routes`] with the modules outside the route set read through `imported`,
/// reusing `cache`'s translation of every route whose module and followed imports are
/// unchanged, and keeping this check's.
pub fn translate_routes_reusing(
    imported: &ImportedModules<'_>,
    modules: &[LoadedModule],
    texts: &BTreeMap<String, String>,
    options: TranslateOptions<'_>,
    cache: Option<&TranslationCache>,
) -> SchemaReturn {
    let set = ModuleSet::new(imported, modules, texts);
    let mut kept = cache
        .map(|cache| std::mem::take(&mut *cache.lock()))
        .unwrap_or_default();
    // One task per tool, as extraction does; shared modules are read once behind a lock.
    // Each route's translation, and what to keep of it: `None` when the kept one was reused.
    let translated: Vec<(&str, RouteTranslation, Option<KeptTranslation>)> = modules
        .par_iter()
        .filter_map(|loaded| {
            let path = loaded.source.path.as_str();
            if let Some(previous) = kept.get(path)
                && Arc::ptr_eq(&previous.extracted, &loaded.extracted)
                && previous.discard == options.discard
                && previous
                    .imports
                    .iter()
                    .all(|(import, resolved)| resolved_import(&set, import) == *resolved)
            {
                return Some((path, previous.translated.clone(), None));
            }
            let (translated, followed) =
                translate_route(&set, &loaded.source.kind, path, options.discard)?;
            let fresh = cache.is_some().then(|| KeptTranslation {
                extracted: Arc::clone(&loaded.extracted),
                discard: options.discard,
                imports: followed
                    .into_iter()
                    .map(|import| {
                        let resolved = resolved_import(&set, &import);
                        (import, resolved)
                    })
                    .collect(),
                translated: translated.clone(),
            });
            Some((path, translated, fresh))
        })
        .collect();
    let mut next = HashMap::new();
    let mut in_order = Vec::with_capacity(translated.len());
    for (path, translated, fresh) in translated {
        in_order.push(translated);
        if cache.is_some()
            && let Some(entry) = fresh.or_else(|| kept.remove(path))
        {
            next.insert(path.to_owned(), entry);
        }
    }
    if let Some(cache) = cache {
        *cache.lock() = next;
    }
    collect_translations(in_order, options.targets, imported)
}

/// [`translate_routes`] of the one module `module`, extracted from `text` as `source` says,
/// in the task that extracted it (the route modules of the check are not all loaded yet, so
/// one it imports is read as an imported module). Its schemas are kept unless `discard`.
pub fn translate_in_task(
    imported: &ImportedModules<'_>,
    source: &SourceModule,
    module: &ExtractedModule,
    text: &str,
    discard: bool,
) -> Option<RouteTranslation> {
    let set = ModuleSet::of_module(imported, &source.path, module, text);
    translate_route(&set, &source.kind, &source.path, discard).map(|(translated, _)| translated)
}

/// The [`SchemaReturn`] of every route's translation, in module path order: their fallback
/// warnings, the AB5210 of each route id for every one of `targets` with a schema profile, and
/// the text of every module `imported` read.
pub fn collect_translations(
    translated: impl IntoIterator<Item = RouteTranslation>,
    targets: &[&str],
    imported: &ImportedModules<'_>,
) -> SchemaReturn {
    let mut output = SchemaReturn::default();
    // Of two routes with one id (AB4802), the later one's schemas stand, and only they are
    // checked against the host profiles.
    let mut refusals = BTreeMap::new();
    for translated in translated {
        output.diagnostics.extend(translated.diagnostics);
        refusals.insert(translated.id.clone(), translated.refusal);
        if let Some(schemas) = translated.schemas {
            output.routes.insert(translated.id, schemas);
        }
    }
    for (id, refusal) in refusals {
        if let Some(refusal) = refusal {
            output.diagnostics.extend(refusal.diagnostics(&id, targets));
        }
    }
    output.sources = imported.texts().into_iter().collect();
    output
}

/// The translation of the MCP route module (a tool, a resource or a prompt; or a rendered
/// command or script) at `path`, whose path made it a `kind`, with the imports the translator
/// followed; `None` for other modules. Its schemas are kept unless `discard`.
fn translate_route(
    set: &ModuleSet<'_>,
    kind: &ModuleKind,
    path: &str,
    discard: bool,
) -> Option<(RouteTranslation, Vec<Import>)> {
    let (id, server) = match kind {
        ModuleKind::Tool { server, name } => (format!("tool:{server}/{name}"), server.as_str()),
        ModuleKind::Resource { server, name } => {
            (format!("resource:{server}/{name}"), server.as_str())
        }
        ModuleKind::Prompt { server, name } => (format!("prompt:{server}/{name}"), server.as_str()),
        // A rendered command's input schema is its flags; it has no server.
        ModuleKind::Cli { words } => (format!("cli:{}", words.join("/")), ""),
        ModuleKind::Script {
            name,
            rendered: true,
        } => (format!("script:{name}"), ""),
        _ => return None,
    };
    let module = set.get(path)?;
    module.module().form.as_ref()?;
    let mut diagnostics = Vec::new();
    let mut translator = Translator::new(set);
    let mut route = RouteContext {
        id: &id,
        server,
        module: &module,
        diagnostics: &mut diagnostics,
    };
    let extracted = module.module();
    let input = route.side(&mut translator, extracted, Io::Input);
    let output = route.side(&mut translator, extracted, Io::Output);
    let schemas = RouteSchemas {
        server: server.to_owned(),
        input_location: extracted
            .input_schema
            .map(|id| Location::span(module.path(), module.text(), module.expr(id).span())),
        input,
        output,
    };
    let translated = RouteTranslation {
        refusal: profile_refusal(&schemas),
        schemas: (!discard).then(|| Arc::new(schemas)),
        id,
        diagnostics,
    };
    Some((translated, translator.followed_imports))
}

/// Translates the exported const `name` of the module at `path` (project-relative) whose text
/// is `text`, following its references through `reader` under `root`.
pub fn translate_const(
    root: &Path,
    reader: &dyn SourceReader,
    path: &str,
    text: &str,
    name: &str,
) -> Result<Schema, Fallback> {
    let kind = ModuleKind::Imported;
    let extracted = crate::extract::extract_module(path, &kind, text).module;
    let no_texts = BTreeMap::new();
    let imported = ImportedModules::new(root, reader);
    let set = ModuleSet::new(&imported, &[], &no_texts);
    let module = ModuleRef::Route(&extracted, text);
    let init = match extracted.consts.get(name) {
        Some(binding) => binding.init,
        None => {
            return Err(Fallback {
                code: Code::AB5104,
                construct: format!("`{name}`, which is not a top-level const"),
                location: Location::file(path),
            });
        }
    };
    Translator::new(&set)
        .schema(&module, module.expr(init))
        .map_err(|fallback| *fallback)
}

impl RouteSchemas {
    /// The manifest's form for a build for `targets`: translated schemas with the projection
    /// of every target that has a schema profile where it differs from the canonical form (a
    /// host without one takes the canonical form), and run-time schemas; a literal or absent
    /// side is `None` (the emitter reads a literal from the route's options itself). Equal forms
    /// of two profiles are one shared tree.
    pub fn to_manifest(&self, targets: &[&str]) -> ManifestSchemas {
        let projection = |side: &RouteSchema, input: bool| match side {
            RouteSchema::Static(schema) => schema.json().map(|json_schema| {
                // The canonical form a client with no host profile gets: the printed schema
                // through the canonical projection (tuples without `items: false`), made in
                // the printed schema itself; the host profiles' forms are written from it.
                let canonical = project_owned(json_schema, Profile::Canonical, false)
                    .ok()
                    .map(Arc::new);
                let profiles = targets
                    .iter()
                    .filter_map(|target| Profile::for_target(target))
                    .filter_map(|profile| {
                        let canonical = canonical.as_ref()?;
                        // A host served the canonical form gets no form of its own (nor does
                        // one whose profile cannot take the schema: `check` warned, AB5210).
                        if !differs_from_canonical(profile, canonical)
                            || (input && check_input_root(canonical, profile).is_err())
                        {
                            return None;
                        }
                        let json_schema = ProfileSchema::FromCanonical {
                            canonical: Arc::clone(canonical),
                            profile,
                        };
                        Some((profile.name().to_owned(), ProfileProjection { json_schema }))
                    })
                    .collect();
                SchemaProjection {
                    source: SchemaSource::Static,
                    profiles,
                    json_schema: canonical,
                }
            }),
            RouteSchema::Runtime(_) => Some(SchemaProjection {
                source: SchemaSource::Runtime,
                json_schema: None,
                profiles: BTreeMap::new(),
            }),
            RouteSchema::Absent | RouteSchema::Literal => None,
        };
        ManifestSchemas {
            input: projection(&self.input, true),
            result: projection(&self.output, false),
        }
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

struct RouteContext<'r, 'a> {
    id: &'r str,
    server: &'r str,
    module: &'r ModuleRef<'a>,
    diagnostics: &'r mut Vec<Diagnostic>,
}

impl<'a> RouteContext<'_, 'a> {
    fn side(
        &mut self,
        translator: &mut Translator<'_, 'a>,
        extracted: &ExtractedModule,
        io: Io,
    ) -> RouteSchema {
        let (literal_key, expression) = match io {
            Io::Input => (LITERAL_INPUT_KEY, extracted.input_schema),
            Io::Output => (LITERAL_OUTPUT_KEY, extracted.result_schema),
        };
        if let Some(literal) = extracted.config.get(literal_key) {
            self.check_literal(extracted, literal_key, literal);
            return RouteSchema::Literal;
        }
        let Some(expression) = expression.map(|id| self.module.expr(id)) else {
            return RouteSchema::Absent;
        };
        let schema = match translator.schema(self.module, expression) {
            Ok(schema) => schema,
            Err(fallback) => return self.runtime(*fallback, io),
        };
        // A result with no JSON form at all (`z.undefined()`, a text-only tool) has no output
        // schema, and neither has one whose printed root is not an object: MCP carries an
        // output schema only for object-rooted results.
        if io == Io::Output && matches!(schema.unwrapped().kind, Kind::Undefined) {
            return RouteSchema::Absent;
        }
        match printable(&schema, io) {
            Ok(()) if io == Io::Output && !prints_object_root(&schema) => RouteSchema::Absent,
            Ok(()) => RouteSchema::Static(StaticSchema { schema, io }),
            Err(unrepresentable) => {
                let code = match io {
                    Io::Input => Code::AB5105,
                    Io::Output => Code::AB5103,
                };
                let location =
                    Location::span(self.module.path(), self.module.text(), expression.span());
                self.runtime(
                    Fallback {
                        code,
                        construct: format!(
                            "{}, which has no JSON Schema form",
                            unrepresentable.construct
                        ),
                        location,
                    },
                    io,
                )
            }
        }
    }

    /// AB5106 unless `literal` compiles as a JSON Schema under the draft it declares (2020-12
    /// when it declares none); nothing is fetched, so a remote `$ref` does not compile either.
    fn check_literal(&mut self, extracted: &ExtractedModule, key: &str, literal: &Value) {
        let problem = match literal {
            Value::Bool(_) => return,
            // The `jsonschema` crate recurses once per level (up to the extractor's 256).
            Value::Object(_) => {
                match crate::stack::with_parse_stack(|| jsonschema::validator_for(literal)) {
                    Ok(_) => return,
                    Err(error) => format!("at `{}`: {error}", error.instance_path()),
                }
            }
            other => format!("it is {}, not an object or a boolean", json_kind(other)),
        };
        let location = extracted
            .config_locations
            .get(&format!("/{key}"))
            .cloned()
            .unwrap_or_else(|| Location::file(self.module.path()));
        self.diagnostics.push(
            Diagnostic::new(
                Code::AB5106,
                format!(
                    "`{key}` of `{}` is not a valid JSON Schema: {problem}",
                    self.id
                ),
                format!(
                    "Fix the literal, or remove `{key}` and let abgen translate the zod schema."
                ),
            )
            .at(location),
        );
    }

    fn runtime(&mut self, fallback: Fallback, io: Io) -> RouteSchema {
        let (side, key) = match io {
            Io::Input => ("input", LITERAL_INPUT_KEY),
            Io::Output => ("result", LITERAL_OUTPUT_KEY),
        };
        let diagnostic = Diagnostic::new(
            fallback.code,
            format!(
                "the {side} schema of `{}` is computed at run time: {}",
                self.id, fallback.construct
            ),
            format!("Write it with zod calls abgen reads statically, or give a literal `{key}` in the options."),
        )
        .at(fallback.location)
        .with_note(format!(
            "tools/list of server `{}` then needs Node to compute the schema.",
            self.server
        ));
        self.diagnostics.push(diagnostic);
        RouteSchema::Runtime(fallback.code)
    }
}
