use serde_json::{Value, json};

use super::to_canonical_json;

fn canonical(text: &str) -> String {
    let value: Value = serde_json::from_str(text).unwrap();
    to_canonical_json(&value)
}

#[test]
fn sorts_keys_at_every_depth_and_ends_with_a_newline() {
    assert_eq!(
        canonical(r#"{ "b": 1, "a": { "z": [ {"y": 1, "x": 2} ], "c": null } }"#),
        "{\"a\":{\"c\":null,\"z\":[{\"x\":2,\"y\":1}]},\"b\":1}\n"
    );
}

#[test]
fn sorts_by_code_point_not_by_locale() {
    assert_eq!(
        canonical(r#"{"b":0,"B":0,"é":0,"a":0,"_":0}"#),
        "{\"B\":0,\"_\":0,\"a\":0,\"b\":0,\"é\":0}\n"
    );
}

#[test]
fn keeps_schema_properties_in_insertion_order() {
    let document = canonical(
        r#"{"tools":[{"name":"t","inputSchema":{"type":"object","required":["zeta","alpha"],
        "properties":{"zeta":{"type":"string","description":"z"},"alpha":{"type":"object",
        "properties":{"y":{"type":"number"},"b":{"type":"number"}}}}}}]}"#,
    );
    assert_eq!(
        document,
        concat!(
            r#"{"tools":[{"inputSchema":{"properties":{"zeta":{"description":"z","type":"string"},"#,
            r#""alpha":{"properties":{"y":{"type":"number"},"b":{"type":"number"}},"type":"object"}},"#,
            r#""required":["zeta","alpha"],"type":"object"},"name":"t"}]}"#,
            "\n"
        )
    );
}

#[test]
fn follows_subschema_keywords_but_not_data_keywords() {
    let document = canonical(
        r#"{"jsonSchema":{"anyOf":[{"properties":{"b":{},"a":{}}}],"items":{"properties":{"d":{},"c":{}}},
        "$defs":{"z":{"properties":{"f":{},"e":{}}},"y":{}},
        "const":{"properties":{"h":1,"g":2}},"default":{"properties":{"j":1,"i":2}}}}"#,
    );
    assert_eq!(
        document,
        concat!(
            r#"{"jsonSchema":{"$defs":{"y":{},"z":{"properties":{"f":{},"e":{}}}},"#,
            r#""anyOf":[{"properties":{"b":{},"a":{}}}],"const":{"properties":{"g":2,"h":1}},"#,
            r#""default":{"properties":{"i":2,"j":1}},"items":{"properties":{"d":{},"c":{}}}}}"#,
            "\n"
        )
    );
}

#[test]
fn sorts_a_properties_member_outside_any_schema() {
    assert_eq!(
        canonical(r#"{"properties":{"b":1,"a":2}}"#),
        "{\"properties\":{\"a\":2,\"b\":1}}\n"
    );
}

#[test]
fn escapes_quotes_backslashes_and_control_characters_only() {
    let value = json!({ "s": "q\"b\\n\n\t\r\u{8}\u{c}\u{1}\u{1f} é ✓ 😀 / \u{7f} \u{2028}" });
    assert_eq!(
        to_canonical_json(&value),
        "{\"s\":\"q\\\"b\\\\n\\n\\t\\r\\b\\f\\u0001\\u001f é ✓ 😀 / \u{7f} \u{2028}\"}\n"
    );
}

#[test]
fn writes_numbers_in_one_form() {
    assert_eq!(
        canonical("[0, -0, 1, -1, 18446744073709551615, -9223372036854775808]"),
        "[0,0,1,-1,18446744073709551615,-9223372036854775808]\n"
    );
    assert_eq!(
        canonical("[1.0, -0.0, 2.50, 0.1, 1e3, 1.5e300, 9007199254740993.0, 1e-7]"),
        "[1,0,2.5,0.1,1000,1.5e+300,9007199254740992.0,1e-7]\n"
    );
}

#[test]
fn is_independent_of_insertion_order_outside_schemas() {
    let forward = json!({ "a": 1, "b": { "c": 2, "d": 3 } });
    let mut reversed = serde_json::Map::new();
    reversed.insert("b".into(), json!({ "d": 3, "c": 2 }));
    reversed.insert("a".into(), json!(1));
    assert_eq!(
        to_canonical_json(&forward),
        to_canonical_json(&Value::Object(reversed))
    );
}
