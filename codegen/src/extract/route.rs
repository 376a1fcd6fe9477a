//! Reads a route's declaration into the model: the definition's inline options (schemas split
//! out, the rest through the literal grammar) or the config-export form's `config`, schema
//! exports and captured `const`s.
//!
//! Entry call: [`read_route`]. Invariant: a rejected config (AB4805/AB4806) leaves `config` and
//! `config_locations` empty; schemas are captured regardless, since they are judged later.

use std::sync::Arc;

use oxc_ast::ast::{Expression, ObjectExpression, ObjectPropertyKind};
use serde_json::{Map, Value};

use super::definition::{DefaultAnalysis, Definition};
use super::exports::{ConfigExport, ModuleExports, SchemaSource};
use super::literal::{LiteralReader, Rejected, escape_pointer, static_key};
use super::model::{ExprId, ExtractedModule, NodeBuilder, RouteForm, SchemaNodes};
use super::position::{Positions, span_of};
use super::schema_expr::capture;
use super::scope::TopLevel;
use super::syntax::unwrap_expression;
use crate::diagnostics::{Code, Diagnostic};

/// Whether the route's config could be read; checks of config values are skipped otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigState {
    Read,
    Rejected,
}

/// Fills `form`, `config`, `config_locations`, `definition_location` and the schemas.
pub fn read_route<'a>(
    module: &mut ExtractedModule,
    analysis: &DefaultAnalysis<'a>,
    exports: &ModuleExports<'a>,
    top: &TopLevel<'a>,
    positions: &Positions<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> ConfigState {
    if let Some(definition) = &analysis.definition {
        return read_definition(module, definition, top, positions, diagnostics);
    }
    let has_schema_export = exports.input_schema.is_some() || exports.result_schema.is_some();
    if exports.config.is_none()
        && !has_schema_export
        && module.default_export == super::DefaultExport::Missing
    {
        return ConfigState::Read;
    }
    module.form = Some(RouteForm::ConfigExport);
    let text = positions.source();
    module.input_schema = exports
        .input_schema
        .as_ref()
        .map(|source| schema_from_export(source, top, text, &mut module.schemas));
    module.result_schema = exports
        .result_schema
        .as_ref()
        .map(|source| schema_from_export(source, top, text, &mut module.schemas));
    match &exports.config {
        None => ConfigState::Read,
        Some(ConfigExport::Rejected { reason, span }) => {
            let location = positions.location(*span);
            module.definition_location = Some(location.clone());
            diagnostics.push(
                Diagnostic::new(
                    Code::AB4805,
                    format!("`config` is exported through {reason}"),
                    "Declare it as `export const config = { ... }` with an object literal.",
                )
                .at(location),
            );
            ConfigState::Rejected
        }
        Some(ConfigExport::Value { value, span }) => {
            module.definition_location = Some(positions.location(*span));
            read_config_value(module, value, top, positions, diagnostics)
        }
    }
}

fn read_config_value<'a>(
    module: &mut ExtractedModule,
    value: &Expression<'a>,
    top: &TopLevel<'a>,
    positions: &Positions<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> ConfigState {
    let mut reader = LiteralReader::new(Some(top), positions);
    match reader.read(value, "") {
        Ok(Value::Object(config)) => {
            reader.locations.remove("");
            module.config = Arc::new(config);
            module.config_locations = reader.locations;
            ConfigState::Read
        }
        Ok(other) => {
            diagnostics.push(not_an_object("`config`", &other, positions, value));
            ConfigState::Rejected
        }
        Err(rejected) => {
            diagnostics.push(dynamic_config(&rejected, positions));
            ConfigState::Rejected
        }
    }
}

fn read_definition<'a>(
    module: &mut ExtractedModule,
    definition: &Definition<'a>,
    top: &TopLevel<'a>,
    positions: &Positions<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> ConfigState {
    module.form = Some(definition.form.clone());
    module.definition_location = Some(positions.location(definition.span));
    let Some(options) = definition.options else {
        return ConfigState::Rejected;
    };
    let (config_state, first_rejection) = read_options(module, options, top, positions);
    if let Some(rejected) = first_rejection {
        diagnostics.push(dynamic_config(&rejected, positions));
    }
    config_state
}

/// Splits `inputSchema`/`resultSchema` out of the options and reads the rest as config.
fn read_options<'a>(
    module: &mut ExtractedModule,
    options: &ObjectExpression<'a>,
    top: &TopLevel<'a>,
    positions: &Positions<'_>,
) -> (ConfigState, Option<Rejected>) {
    let mut reader = LiteralReader::new(Some(top), positions);
    let mut first_rejection = None;
    let mut config = Map::new();
    for property in &options.properties {
        let property = match property {
            ObjectPropertyKind::ObjectProperty(property) => property,
            ObjectPropertyKind::SpreadProperty(spread) => {
                let rejected = Rejected {
                    construct: "a spread".to_owned(),
                    span: span_of(spread.as_ref()),
                };
                first_rejection.get_or_insert(rejected);
                continue;
            }
        };
        let schema_slot = match static_key(&property.key, property.computed).as_deref() {
            Ok("inputSchema") => Some(&mut module.input_schema),
            Ok("resultSchema") => Some(&mut module.result_schema),
            _ => None,
        };
        if let Some(slot) = schema_slot {
            *slot = Some(capture(
                &property.value,
                top,
                positions.source(),
                &mut module.schemas,
            ));
            continue;
        }
        if first_rejection.is_some() {
            continue;
        }
        let read = LiteralReader::property_key(property).and_then(|key| {
            let value = reader.read_property(property, &format!("/{}", escape_pointer(&key)))?;
            Ok((key, value))
        });
        match read {
            Ok((key, value)) => {
                config.insert(key, value);
            }
            Err(rejected) => first_rejection = Some(rejected),
        }
    }
    if first_rejection.is_some() {
        return (ConfigState::Rejected, first_rejection);
    }
    module.config = Arc::new(config);
    module.config_locations = reader.locations;
    (ConfigState::Read, None)
}

fn schema_from_export(
    source: &SchemaSource<'_>,
    top: &TopLevel<'_>,
    text: &str,
    nodes: &mut SchemaNodes,
) -> ExprId {
    match source {
        SchemaSource::Init(init) => capture(init, top, text, nodes),
        SchemaSource::Local { name, span } => {
            NodeBuilder::new(nodes, text).ident(name, top.resolve_ref(name), *span)
        }
        SchemaSource::ReExport {
            source,
            imported,
            span,
        } => NodeBuilder::new(nodes, text).re_export(source, imported, *span),
    }
}

/// AB4806, worded as agent-bundle words it.
pub fn dynamic_config(rejected: &Rejected, positions: &Positions<'_>) -> Diagnostic {
    let location = positions.location(rejected.span);
    let (line, column) = (location.line.unwrap_or(1), location.column.unwrap_or(1));
    Diagnostic::new(
        Code::AB4806,
        format!(
            "dynamic config: {} at {line}:{column} is outside the static route-config grammar",
            rejected.construct
        ),
        "Write the value as a literal (string, number, boolean, null, array, object) or a reference to a top-level string `const`.",
    )
    .with_note("abgen reads config without executing the module")
    .at(location)
}

/// AB4805 for a config value that is static but not an object.
pub fn not_an_object(
    subject: &str,
    value: &Value,
    positions: &Positions<'_>,
    at: &Expression<'_>,
) -> Diagnostic {
    let what = match value {
        Value::Null => "`null`",
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Object(_) => "an object",
    };
    Diagnostic::new(
        Code::AB4805,
        format!("{subject} is {what}, not an object"),
        "Write an object literal: `{ ... }`.",
    )
    .at(positions.of(unwrap_expression(at)))
}
