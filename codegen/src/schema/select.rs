//! One schema of one tool of a checked project, in one profile: what `abgen schema` prints.
//!
//! Entry call: [`select_schema`]. Invariant: the printed schema is exactly what the manifest
//! carries for that tool and side (the literal, or the static translation projected), and
//! every reason it cannot be printed is a sentence for the user, never a panic.

use serde_json::Value;

use super::ir::Io;
use super::profile::{Profile, project};
use super::routes::{LITERAL_INPUT_KEY, LITERAL_OUTPUT_KEY, RouteSchema};
use crate::check::CheckReturn;

/// Why no schema can be printed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SelectError {
    #[error("no tool `{route}` in the project; its tools are: {known}")]
    UnknownRoute { route: String, known: String },
    #[error("unknown profile `{0}`; profiles are 2020-12, draft-07-lax, claude, codex, cursor")]
    UnknownProfile(String),
    #[error("`{route}` has no {side} schema{why}")]
    Absent {
        route: String,
        side: &'static str,
        why: &'static str,
    },
    #[error(
        "the {side} schema of `{route}` is computed at run time ({code}); `abgen check` says why"
    )]
    Runtime {
        route: String,
        side: &'static str,
        code: &'static str,
    },
    #[error("the {side} schema of `{route}` cannot be given to {profile} as it is: {reason}")]
    Profile {
        route: String,
        side: &'static str,
        profile: &'static str,
        reason: String,
    },
}

/// The `io` schema of the tool `route` (`tool:<server>/<name>`) in `profile`.
pub fn select_schema(
    checked: &CheckReturn,
    route: &str,
    io: Io,
    profile: &str,
) -> Result<Value, SelectError> {
    let profile =
        Profile::parse(profile).ok_or_else(|| SelectError::UnknownProfile(profile.to_owned()))?;
    let Some(schemas) = checked.schemas.get(route) else {
        let known: Vec<&str> = checked.schemas.keys().map(String::as_str).collect();
        return Err(SelectError::UnknownRoute {
            route: route.to_owned(),
            known: known.join(", "),
        });
    };
    let (side, translated, literal_key) = match io {
        Io::Input => ("input", &schemas.input, LITERAL_INPUT_KEY),
        Io::Output => ("output", &schemas.output, LITERAL_OUTPUT_KEY),
    };
    let canonical = match translated {
        RouteSchema::Static(schema) => schema.json().ok_or(SelectError::Absent {
            route: route.to_owned(),
            side,
            why: " (it cannot be printed)",
        })?,
        RouteSchema::Literal => {
            literal(checked, route, literal_key).ok_or(SelectError::Absent {
                route: route.to_owned(),
                side,
                why: " (its literal is not readable)",
            })?
        }
        RouteSchema::Runtime(code) => {
            return Err(SelectError::Runtime {
                route: route.to_owned(),
                side,
                code: code.as_str(),
            });
        }
        RouteSchema::Absent => {
            return Err(SelectError::Absent {
                route: route.to_owned(),
                side,
                why: match io {
                    Io::Input => "",
                    Io::Output => " (only results whose root is an object have one)",
                },
            });
        }
    };
    project(&canonical, profile, io == Io::Input).map_err(|problem| SelectError::Profile {
        route: route.to_owned(),
        side,
        profile: profile.name(),
        reason: problem.reason,
    })
}

/// The literal schema the route's options give under `key`.
fn literal(checked: &CheckReturn, route: &str, key: &str) -> Option<Value> {
    let (server, name) = route.strip_prefix("tool:")?.split_once('/')?;
    let wanted = format!("src/mcp/{server}/tools/{name}.");
    checked
        .modules
        .iter()
        .find(|module| module.source.path.starts_with(&wanted))
        .and_then(|module| module.extracted.config.get(key).cloned())
}
