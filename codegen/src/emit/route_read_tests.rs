use serde_json::{Value, json};

use super::{NotJson, route_for_schema_check};
use crate::emit::canonical_json::canonical_member_item;

/// What the manifest's reader makes of `text` as an item of `routes` (`serde_json`, reading the
/// whole document into values), with each schema form emptied: the oracle of the scan.
fn read_whole(text: &str) -> Result<Value, NotJson> {
    serde_json::from_str::<Value>(text).map_err(|_| NotJson)?;
    let document: Value =
        serde_json::from_str(&format!("{{\"routes\": [{text}]}}")).map_err(|_| NotJson)?;
    let mut route = document["routes"][0].clone();
    empty_forms(&mut route);
    Ok(route)
}

fn empty_forms(value: &mut Value) {
    match value {
        Value::Object(members) => {
            for (key, member) in members.iter_mut() {
                if key == "jsonSchema" {
                    match member {
                        Value::Object(form) => form.clear(),
                        Value::Array(form) => form.clear(),
                        Value::String(form) => form.clear(),
                        _ => {}
                    }
                } else {
                    empty_forms(member);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(empty_forms),
        _ => {}
    }
}

/// A route as the manifest writer writes one: forms with nested subschemas, a config that
/// names `jsonSchema` too, escapes, non-ASCII text, numbers of every kind.
fn written_route() -> String {
    let form = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "jsonSchema": { "type": "string", "description": "a \"quoted\"\n\tname é ✓" },
            "n": { "type": "number", "minimum": -1.5e-7, "maximum": 1e300, "default": 0 },
            "list": { "type": "array", "items": { "anyOf": [{ "const": null }, { "const": true }] } }
        },
        "required": ["jsonSchema"],
        "additionalProperties": false
    });
    let route = json!({
        "id": "tool:a/b",
        "config": { "jsonSchema": { "kept": [1, 2] }, "limits": [18446744073709551615u64, -9223372036854775808i64] },
        "schemas": {
            "input": { "jsonSchema": form, "profiles": { "cursor": { "jsonSchema": true } }, "source": "static" },
            "result": { "jsonSchema": "text", "source": "static" }
        }
    });
    canonical_member_item(&route).unwrap()
}

#[test]
fn a_route_read_for_its_check_keeps_all_but_the_schema_forms() {
    let text = r#"{ "id": "tool:a/b", "n": [1, -2, 1.5, null, true], "schemas": { "input": {
        "jsonSchema": { "type": "object", "properties": { "jsonSchema": {} } },
        "profiles": { "cursor": { "jsonSchema": true } } }, "result": { "jsonSchema": "text" } } }"#;
    assert_eq!(
        route_for_schema_check(text),
        Ok(
            json!({ "id": "tool:a/b", "n": [1, -2, 1.5, null, true], "schemas": {
            "input": { "jsonSchema": {}, "profiles": { "cursor": { "jsonSchema": true } } },
            "result": { "jsonSchema": "" } } })
        )
    );
    assert_eq!(
        route_for_schema_check(r#"{ "jsonSchema": { "a": } }"#),
        Err(NotJson)
    );
    assert_eq!(route_for_schema_check(r#"{ "id": 1 } 2"#), Err(NotJson));
    let escaped = r#"{ "json\u0053chema": { "a": [1] } }"#;
    assert_eq!(
        route_for_schema_check(escaped),
        Ok(json!({ "jsonSchema": {} }))
    );
}

#[test]
fn a_written_route_reads_as_serde_json_reads_it() {
    let text = written_route();
    let read = route_for_schema_check(&text).unwrap();
    assert_eq!(Ok(read.clone()), read_whole(&text));
    assert_eq!(read["config"]["jsonSchema"], json!({}));
    assert_eq!(read["schemas"]["input"]["jsonSchema"], json!({}));
}

/// Every one-byte edit of a written route (each byte removed, or replaced by or preceded by a
/// byte JSON's grammar turns on) is read or refused exactly as `serde_json` reads or refuses
/// the manifest holding it.
#[test]
fn every_one_byte_edit_of_a_route_is_judged_as_serde_json_judges_it() {
    let text = written_route();
    let significant = b"{}[]\":,\\ \n0-.eE+tfnu\x01";
    let mut edits = 0;
    let mut compare = |edited: Vec<u8>| {
        let Ok(edited) = String::from_utf8(edited) else {
            return;
        };
        edits += 1;
        assert_eq!(
            route_for_schema_check(&edited),
            read_whole(&edited),
            "{edited}"
        );
    };
    for at in 0..text.len() {
        let mut removed = text.clone().into_bytes();
        removed.remove(at);
        compare(removed);
        for &byte in significant {
            let mut replaced = text.clone().into_bytes();
            replaced[at] = byte;
            compare(replaced);
            let mut inserted = text.clone().into_bytes();
            inserted.insert(at, byte);
            compare(inserted);
        }
    }
    assert!(edits > 40 * text.len(), "{edits} edits");
}

/// A form as deep as the manifest's reader reads, and one level deeper.
#[test]
fn a_form_is_read_to_the_depth_of_the_manifests_reader_and_no_deeper() {
    let nested = |levels: usize| {
        format!(
            "{{\"schemas\": {{\"input\": {{\"jsonSchema\": {}{}}}}}}}",
            "[".repeat(levels),
            "]".repeat(levels)
        )
    };
    let deepest = (1..200)
        .take_while(|&levels| read_whole(&nested(levels)).is_ok())
        .last()
        .unwrap();
    assert!(deepest > 100, "{deepest}");
    assert!(route_for_schema_check(&nested(deepest)).is_ok());
    assert_eq!(route_for_schema_check(&nested(deepest + 1)), Err(NotJson));
}

#[test]
fn numbers_and_escapes_are_read_as_serde_json_reads_them() {
    for form in [
        "1e400",
        "-1e400",
        "1e308",
        "0.0",
        "-0",
        "01",
        "1.",
        ".5",
        "1e",
        "1e+",
        "18446744073709551616",
        "123456789012345678901234567890",
        r#""\ud83d\ude00""#,
        r#""\ud83d""#,
        r#""\ude00""#,
        r#""\ud83dx""#,
        r#""\u00e9""#,
        r#""\u+0e9""#,
        r#""\x""#,
        "tru",
        "nul",
        "falsey",
    ] {
        let text = format!("{{\"jsonSchema\": [{form}], \"data\": {form}}}");
        assert_eq!(route_for_schema_check(&text), read_whole(&text), "{form}");
        let text = format!("{{\"jsonSchema\": [{form}]}}");
        assert_eq!(route_for_schema_check(&text), read_whole(&text), "{form}");
    }
}
