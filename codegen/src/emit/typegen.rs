//! `.agent-bundle/routes.d.ts`: the type map of every route (tools, resources, prompts and event
//! routes; Apps are called, not callable) and providers, plus the `agent-bundle/app`
//! augmentation (`AppRegister`) that types an App's tool calls. Rendered from
//! `templates/routes.d.ts.j2`. Entry: [`render_route_types`], [`write_route_types`].
//!
//! Invariant: the text depends only on the sorted route ids, module paths and provider keys, so
//! a prebuild step that runs `abgen generate` before the author's bundler changes nothing when
//! nothing changed (and the file is replaced by a rename, never half-written).

use std::path::{Path, PathBuf};

use abgen_runtime::manifest::RouteKind;
use minijinja::{Environment, context};
use serde::Serialize;

use super::error::EmitError;
use super::input::EmitInput;

/// Where the file sits, relative to the project root.
pub const ROUTE_TYPES_PATH: &str = ".agent-bundle/routes.d.ts";
const TEMPLATE: &str = include_str!("../../../templates/routes.d.ts.j2");

#[derive(Serialize, Debug)]
struct TypedModule {
    /// JSON string literals, safe to paste into TypeScript.
    id: String,
    key: String,
    specifier: String,
    event: Option<String>,
}

/// The `import` specifier of a project-relative module, from inside `.agent-bundle/`.
fn specifier(source: &str) -> String {
    let without_extension = source.rsplit_once('.').map_or(source, |(stem, _)| stem);
    literal(&format!("../{without_extension}.js"))
}

fn literal(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// The file's text for `input`.
pub fn render_route_types(input: &EmitInput) -> Result<String, EmitError> {
    RouteTypes::of(input).render()
}

/// What the route types are rendered from, taken from an emit input (so that the rendering,
/// the costly part, can run while the input is in use elsewhere).
#[derive(Debug)]
pub struct RouteTypes {
    routes: Vec<TypedModule>,
    providers: Vec<TypedModule>,
    has_tools: bool,
}

impl RouteTypes {
    pub fn of(input: &EmitInput) -> Self {
        let mut routes: Vec<TypedModule> = input
            .routes
            .iter()
            .filter(|route| route.kind != RouteKind::App)
            .map(|route| TypedModule {
                id: literal(&route.id),
                key: String::new(),
                specifier: specifier(&route.source),
                event: route.event.as_deref().map(literal),
            })
            .collect();
        routes.sort_by(|a, b| a.id.cmp(&b.id));
        let mut providers: Vec<TypedModule> = input
            .providers
            .iter()
            .map(|provider| TypedModule {
                id: String::new(),
                key: literal(&provider.key),
                specifier: specifier(&provider.source),
                event: None,
            })
            .collect();
        providers.sort_by(|a, b| a.key.cmp(&b.key));
        let has_tools = input
            .routes
            .iter()
            .any(|route| route.kind == RouteKind::Tool);
        RouteTypes {
            routes,
            providers,
            has_tools,
        }
    }

    /// The text of `.agent-bundle/routes.d.ts`.
    pub fn render(&self) -> Result<String, EmitError> {
        let mut environment = Environment::new();
        environment.set_keep_trailing_newline(true);
        let mut render = || -> Result<String, minijinja::Error> {
            environment.add_template("routes.d.ts", TEMPLATE)?;
            let text = environment.get_template("routes.d.ts")?.render(context! {
                routes => self.routes,
                providers => self.providers,
                has_tools => self.has_tools,
            })?;
            Ok(format!("{}\n", text.trim_end()))
        };
        render().map_err(|error| EmitError::TypesTemplate(error.to_string()))
    }
}

/// Writes the file under `project_root` (a temporary sibling renamed over it); returns its path.
pub fn write_route_types(project_root: &Path, input: &EmitInput) -> Result<PathBuf, EmitError> {
    write_rendered_route_types(project_root, &render_route_types(input)?)
}

/// [`write_route_types`] of an already rendered `text`.
pub fn write_rendered_route_types(project_root: &Path, text: &str) -> Result<PathBuf, EmitError> {
    let path = project_root.join(ROUTE_TYPES_PATH);
    let directory = path.parent().unwrap_or(project_root);
    std::fs::create_dir_all(directory).map_err(EmitError::io("create", directory))?;
    if std::fs::read_to_string(&path).is_ok_and(|current| current == text) {
        return Ok(path);
    }
    let temporary = directory.join(format!(".routes.d.ts.{}.tmp", std::process::id()));
    std::fs::write(&temporary, text).map_err(EmitError::io("write", &temporary))?;
    std::fs::rename(&temporary, &path).map_err(EmitError::io("replace", &path))?;
    Ok(path)
}
