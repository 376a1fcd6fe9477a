//! The embedded matrix files: valid against `schemas/host-matrix.schema.json`, complete over the
//! event vocabulary, every source tag defined, and every decoder and encoder id known to the
//! runtime that answers the hooks.

use std::path::Path;

use super::{MATRIX_SOURCES, SupportState, hosts};
use crate::graph::EVENT_VOCABULARY;

fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/host-matrix.schema.json");
    let text = std::fs::read_to_string(path).expect("the host matrix schema is readable");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::draft202012::new(&schema).expect("the schema compiles")
}

#[test]
fn every_matrix_file_is_valid_against_its_schema() {
    let validator = schema();
    for (name, text) in MATRIX_SOURCES {
        let value: serde_json::Value = toml::from_str(text).expect("the file is TOML");
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|error| format!("{}: {error}", error.instance_path()))
            .collect();
        assert!(errors.is_empty(), "host-matrix/{name}.toml: {errors:#?}");
        assert_eq!(
            value["host"], *name,
            "host-matrix/{name}.toml names another host"
        );
    }
}

#[test]
fn every_host_has_exactly_one_row_per_canonical_event() {
    for host in hosts() {
        let mut events: Vec<&str> = host.events.iter().map(|row| row.event.as_str()).collect();
        events.sort_unstable();
        let mut vocabulary = EVENT_VOCABULARY.to_vec();
        vocabulary.sort_unstable();
        assert_eq!(
            events, vocabulary,
            "{}: events differ from the vocabulary",
            host.host
        );
    }
}

#[test]
fn every_source_names_a_defined_source_tag() {
    for host in hosts() {
        let tagged = |source: &str| host.sources.keys().any(|tag| source.contains(tag.as_str()));
        let mut sources: Vec<&str> = vec![
            &host.client_source,
            &host.model_source,
            &host.plugin.source,
            &host.mcp.source,
            &host.mcp.tasks.source,
        ];
        sources.extend(host.marketplace.iter().map(|row| row.source.as_str()));
        sources.extend(host.hooks.iter().map(|row| row.source.as_str()));
        sources.extend(host.tools.iter().map(|row| row.source.as_str()));
        sources.extend(host.events.iter().map(|row| row.source.as_str()));
        let untagged: Vec<&&str> = sources.iter().filter(|source| !tagged(source)).collect();
        assert!(
            untagged.is_empty(),
            "{}: sources without a tag: {untagged:?}",
            host.host
        );
    }
}

#[test]
fn every_decoder_and_encoder_id_exists_in_the_runtime() {
    let mut missing = Vec::new();
    for host in hosts() {
        for row in host.events.iter().filter(|row| row.state.emits()) {
            if let Some(id) = row.decoder.as_deref()
                && abgen_runtime::hosts::decoder(id).is_none()
            {
                missing.push(format!("{}: decoder {id}", host.host));
            }
            if let Some(id) = row.encoder.as_deref()
                && abgen_runtime::hosts::encoder(id).is_none()
            {
                missing.push(format!("{}: encoder {id}", host.host));
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "ids the runtime does not know: {missing:#?}"
    );
}

#[test]
fn hosts_with_events_have_hooks_and_tools_and_templates_are_json() {
    for host in hosts() {
        let emits = host
            .events
            .iter()
            .any(|row| row.state != SupportState::Unavailable);
        assert_eq!(emits, host.hooks.is_some(), "{}", host.host);
        if emits {
            assert_eq!(host.tools.len(), 6, "{}: one row per selector", host.host);
        }
        let mut templates = vec![&host.plugin.manifest_template, &host.mcp.document_template];
        templates.push(&host.mcp.entry_template);
        templates.extend(host.marketplace.iter().map(|row| &row.template));
        if let Some(hooks) = &host.hooks {
            templates.extend([&hooks.document_template, &hooks.handler_template]);
        }
        for template in templates {
            let parsed: Result<serde_json::Value, _> = serde_json::from_str(template);
            assert!(
                parsed.is_ok_and(|value| value.is_object()),
                "{}: {template}",
                host.host
            );
        }
    }
}
