use serde_json::{Value, json};

use super::to_canonical_json;

fn canonical(text: &str) -> String {
    let value: Value = serde_json::from_str(text).unwrap();
    to_canonical_json(&value)
}

/// `expected` (compact JSON, members in the order the canonical writer must put them) in the
/// writer's layout, which is serde_json's pretty layout with keys kept as given.
fn laid_out(expected: &str) -> String {
    let value: Value = serde_json::from_str(expected).unwrap();
    let mut text = serde_json::to_string_pretty(&value).unwrap();
    text.push('\n');
    text
}

/// The bytes the writer hands over to any later writer: a document with every shape it writes
/// (nested and empty containers, a schema's ordered properties, escapes, numbers). A writer that
/// replaces this one must produce exactly these bytes, since artifact digests and the hashes
/// hosts keep of hook commands are taken over them.
#[test]
fn writes_the_pinned_pretty_layout_byte_for_byte() {
    let value = json!({
        "z": [1, 2.5, -0.0, [], {}, [[]]],
        "a": { "inputSchema": { "type": "object", "properties": { "b": { "type": "string" }, "a": {} } } },
        "s": "tab\t \"quoted\" é",
        "n": null,
        "t": true
    });
    let expected = concat!(
        "{\n",
        "  \"a\": {\n",
        "    \"inputSchema\": {\n",
        "      \"properties\": {\n",
        "        \"b\": {\n",
        "          \"type\": \"string\"\n",
        "        },\n",
        "        \"a\": {}\n",
        "      },\n",
        "      \"type\": \"object\"\n",
        "    }\n",
        "  },\n",
        "  \"n\": null,\n",
        "  \"s\": \"tab\\t \\\"quoted\\\" é\",\n",
        "  \"t\": true,\n",
        "  \"z\": [\n",
        "    1,\n",
        "    2.5,\n",
        "    0,\n",
        "    [],\n",
        "    {},\n",
        "    [\n",
        "      []\n",
        "    ]\n",
        "  ]\n",
        "}\n",
    );
    assert_eq!(to_canonical_json(&value), expected);
}

#[test]
fn reads_back_to_the_same_bytes() {
    let first = canonical(r#"{"b":[{"y":{},"x":[1,{"q":[]}]}],"a":"\u0001"}"#);
    assert_eq!(canonical(&first), first);
}

#[test]
fn sorts_keys_at_every_depth_and_ends_with_a_newline() {
    assert_eq!(
        canonical(r#"{ "b": 1, "a": { "z": [ {"y": 1, "x": 2} ], "c": null } }"#),
        laid_out(r#"{"a":{"c":null,"z":[{"x":2,"y":1}]},"b":1}"#)
    );
}

#[test]
fn sorts_by_code_point_not_by_locale() {
    assert_eq!(
        canonical(r#"{"b":0,"B":0,"é":0,"a":0,"_":0}"#),
        laid_out(r#"{"B":0,"_":0,"a":0,"b":0,"é":0}"#)
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
        laid_out(concat!(
            r#"{"tools":[{"inputSchema":{"properties":{"zeta":{"description":"z","type":"string"},"#,
            r#""alpha":{"properties":{"y":{"type":"number"},"b":{"type":"number"}},"type":"object"}},"#,
            r#""required":["zeta","alpha"],"type":"object"},"name":"t"}]}"#,
        ))
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
        laid_out(concat!(
            r#"{"jsonSchema":{"$defs":{"y":{},"z":{"properties":{"f":{},"e":{}}}},"#,
            r#""anyOf":[{"properties":{"b":{},"a":{}}}],"const":{"properties":{"g":2,"h":1}},"#,
            r#""default":{"properties":{"i":2,"j":1}},"items":{"properties":{"d":{},"c":{}}}}}"#,
        ))
    );
}

#[test]
fn sorts_a_properties_member_outside_any_schema() {
    assert_eq!(
        canonical(r#"{"properties":{"b":1,"a":2}}"#),
        laid_out(r#"{"properties":{"a":2,"b":1}}"#)
    );
}

/// A key that must be escaped is sorted by its own text, not by its escaped text, beside keys
/// written as they are, in data and in schema maps, and in the document a member is spliced
/// into.
#[test]
fn sorts_escaped_keys_by_their_text() {
    let keys = r#"{"b":0,"a\"q":1,"a":2,"\u0001x":3,"é":4,"a\\":5,"a\n":6}"#;
    let sorted = r#"{"\u0001x":3,"a":2,"a\n":6,"a\"q":1,"a\\":5,"b":0,"é":4}"#;
    assert_eq!(canonical(keys), laid_out(sorted));
    let schema = format!(r#"{{"jsonSchema":{{"$defs":{keys},"properties":{keys}}}}}"#);
    assert_eq!(
        canonical(&schema),
        laid_out(&format!(
            r#"{{"jsonSchema":{{"$defs":{sorted},"properties":{keys}}}}}"#
        ))
    );
    let document: Value = serde_json::from_str(keys).unwrap();
    let spliced = super::serialize_canonical_spliced(&document, "a").unwrap();
    let item = super::canonical_member_item(&json!(1)).unwrap().text;
    let mut whole = document.clone();
    whole["a"] = json!([1]);
    assert_eq!(
        String::from_utf8(spliced.pieces([item.as_str()].into_iter()).concat()).unwrap(),
        to_canonical_json(&whole)
    );
}

#[test]
fn escapes_quotes_backslashes_and_control_characters_only() {
    let value = json!({ "s": "q\"b\\n\n\t\r\u{8}\u{c}\u{1}\u{1f} é ✓ 😀 / \u{7f} \u{2028}" });
    assert_eq!(
        to_canonical_json(&value),
        "{\n  \"s\": \"q\\\"b\\\\n\\n\\t\\r\\b\\f\\u0001\\u001f é ✓ 😀 / \u{7f} \u{2028}\"\n}\n"
    );
}

#[test]
fn writes_numbers_in_one_form() {
    let one_line = |text: &str| canonical(text).replace("\n  ", "").replace('\n', "");
    assert_eq!(
        one_line("[0, -0, 1, -1, 18446744073709551615, -9223372036854775808]"),
        "[0,0,1,-1,18446744073709551615,-9223372036854775808]"
    );
    assert_eq!(
        one_line("[1.0, -0.0, 2.50, 0.1, 1e3, 1.5e300, 9007199254740993.0, 1e-7]"),
        "[1,0,2.5,0.1,1000,1.5e+300,9007199254740992.0,1e-7]"
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

/// A rebuild writes the manifest from kept route fragments: the spliced document must be the
/// bytes of writing the whole one, for any items, none included, and around members sorted
/// before and after the spliced one (schema members among them).
#[test]
fn a_spliced_member_is_written_as_the_whole_document_is() {
    use super::{canonical_member_item, serialize_canonical_spliced};
    let document = json!({
        "routes": "replaced",
        "a": { "inputSchema": { "properties": { "b": { "type": "string" }, "a": {} } } },
        "jsonSchema": { "properties": { "z": {}, "y": {} } },
        "z": [1, [], {}],
    });
    let items = [
        json!({ "id": "b", "schemas": { "input": { "jsonSchema": { "properties": { "q": {}, "p": {} } } } } }),
        json!([1, { "y": 2, "x": [] }]),
        json!("text\n"),
    ];
    for count in [0, 1, 3] {
        let items = &items[..count];
        let mut whole = document.clone();
        whole["routes"] = Value::Array(items.to_vec());
        let fragments: Vec<String> = items
            .iter()
            .map(|item| canonical_member_item(item).unwrap().text)
            .collect();
        let spliced = serialize_canonical_spliced(&document, "routes").unwrap();
        let bytes = spliced
            .pieces(fragments.iter().map(String::as_str))
            .concat();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            to_canonical_json(&whole),
            "{count} items"
        );
    }
}

/// The depth the writer counts for an item is the nesting `serde_json` reads it at in the
/// document, to the limit where `serde_json` stops reading, for arrays, objects and enum
/// variants, empty or not.
#[test]
fn a_written_item_counts_the_nesting_a_reader_reads() {
    use super::canonical_member_item;
    #[derive(serde::Serialize)]
    enum Wrapped {
        Newtype(Value),
        Struct { inner: Value },
    }
    let nested = |levels: usize, leaf: Value| {
        (0..levels).fold(leaf, |inner, level| match level % 3 {
            0 => json!([inner]),
            1 => json!({ "k": inner, "jsonSchema": {} }),
            _ => serde_json::to_value(Wrapped::Newtype(inner)).unwrap(),
        })
    };
    let reads =
        |text: &str| serde_json::from_str::<Value>(&format!("{{\"routes\": [{text}]}}")).is_ok();
    for levels in 118..=128 {
        for leaf in [json!(1), json!([]), json!({})] {
            let empty_leaf = !leaf.is_number();
            let item = canonical_member_item(&nested(levels, leaf)).unwrap();
            // The document's object and its array, the item's containers, and an empty leaf.
            assert_eq!(item.depth, 2 + levels + usize::from(empty_leaf), "{levels}");
            assert_eq!(reads(&item.text), item.depth <= 127, "{levels} levels");
        }
    }
    let variant = canonical_member_item(&Wrapped::Struct { inner: json!([[]]) }).unwrap();
    assert_eq!(variant.depth, 2 + 2 + 2);
    assert!(reads(&variant.text));
    assert_eq!(canonical_member_item(&json!("text")).unwrap().depth, 2);
}

/// The writer serializes a typed value as `serde_json::to_value` sees it: struct fields sorted
/// whatever their declaration order, skipped and `None` members, every shape of enum variant,
/// map keys that are not strings, a schema member of a struct, and floats that are not finite.
#[test]
fn a_typed_value_is_written_as_its_json_value_is() {
    use std::collections::BTreeMap;

    use serde::Serialize;

    use super::serialize_canonical;

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Typed {
        zeta: u8,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
        none: Option<u8>,
        alpha: Vec<Kind>,
        by_number: BTreeMap<u32, bool>,
        input_schema: Value,
        floats: [f64; 4],
        unit: (),
        tuple: (i8, char),
    }

    #[derive(Serialize)]
    enum Kind {
        Unit,
        Newtype(String),
        Tuple(u8, u8),
        Struct { b: u8, a: u8 },
    }

    let typed = Typed {
        zeta: 1,
        skipped: None,
        none: None,
        alpha: vec![
            Kind::Unit,
            Kind::Newtype("x\n".into()),
            Kind::Tuple(1, 2),
            Kind::Struct { b: 1, a: 2 },
        ],
        by_number: BTreeMap::from([(10, true), (9, false)]),
        input_schema: json!({ "type": "object", "properties": { "z": {}, "a": {} } }),
        floats: [1.0, f64::NAN, 0.5, -3.0],
        unit: (),
        tuple: (-1, 'é'),
    };
    let written = serialize_canonical(&typed).unwrap();
    assert_eq!(
        written,
        to_canonical_json(&serde_json::to_value(&typed).unwrap())
    );
    assert!(written.starts_with("{\n  \"alpha\": [\n    \"Unit\",\n    {\n      \"Newtype\""));
    assert!(written.contains("\"properties\": {\n      \"z\": {},\n      \"a\": {}\n    }"));
}

/// Map keys of every kind `serde_json::to_value` takes are written as it writes them (sorted
/// by their text), and a key it refuses is refused here too.
#[test]
fn map_keys_are_written_as_their_json_value_is() {
    use std::collections::BTreeMap;

    use super::serialize_canonical;

    fn same<K: serde::Serialize + Ord>(keys: Vec<K>) {
        let map: BTreeMap<K, u8> = keys.into_iter().zip(0..).collect();
        assert_eq!(
            serialize_canonical(&map).unwrap(),
            to_canonical_json(&serde_json::to_value(&map).unwrap())
        );
    }
    same(vec![true, false]);
    same(vec!['b', 'a', '"', '\u{7}']);
    same(vec![-1_i64, 10, 2, i64::MIN]);
    same(vec![u128::from(u64::MAX), 0]);
    same(vec![
        "a\\b".to_owned(),
        "a".to_owned(),
        "a\"".to_owned(),
        String::new(),
    ]);
    // Float keys, which a `BTreeMap` cannot hold: a finite one is a key, `NaN` is refused.
    struct FloatKeys(Vec<f64>);
    impl serde::Serialize for FloatKeys {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_map(self.0.iter().map(|key| (key, 0)))
        }
    }
    let floats = FloatKeys(vec![2.5, -0.5, 1e300]);
    assert_eq!(
        serialize_canonical(&floats).unwrap(),
        to_canonical_json(&serde_json::to_value(&floats).unwrap())
    );
    let nan = FloatKeys(vec![f64::NAN]);
    assert!(serde_json::to_value(&nan).is_err());
    assert!(serialize_canonical(&nan).is_err());
    let unit_key = BTreeMap::from([((), 1)]);
    assert!(serde_json::to_value(&unit_key).is_err());
    assert!(serialize_canonical(&unit_key).is_err());
}

/// A host profile's form written after its canonical form copies the text of each subschema
/// its profile leaves unchanged (`UNCHANGED_SUBSCHEMA`): the document is the one written from
/// the forms as trees, whether the host form stands deeper than the canonical one (as in a
/// manifest) or shallower, and after an object whose members were reordered (which moves the
/// canonical text the copies would come from).
#[test]
fn a_host_form_copied_from_its_canonical_form_is_the_form_written() {
    use abgen_runtime::schema_profile::{DRAFT_2020_12, Profile, ProfileForm};
    use serde::Serialize;

    use super::serialize_canonical;

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Projection<'a> {
        json_schema: &'a Value,
        profiles: Profiles<'a>,
    }
    #[derive(Serialize)]
    struct Profiles<'a> {
        codex: Form<'a>,
        cursor: Form<'a>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Form<'a> {
        json_schema: ProfileForm<'a>,
    }
    /// A canonical form deep in a first member, its host forms shallower in the next.
    #[derive(Serialize)]
    struct Shallower<'a> {
        a: &'a Value,
        b: Profiles<'a>,
    }
    fn same<T: Serialize>(document: &T) {
        let written = serialize_canonical(document).unwrap();
        let from_trees = to_canonical_json(&serde_json::to_value(document).unwrap());
        assert_eq!(written, from_trees);
    }
    let forms = |canonical| Profiles {
        codex: Form {
            json_schema: ProfileForm::new(canonical, Profile::Codex),
        },
        cursor: Form {
            json_schema: ProfileForm::new(canonical, Profile::Cursor),
        },
    };

    // Keys in the order the printer leaves them (the writer's), properties in theirs.
    let canonical = json!({
        "$schema": DRAFT_2020_12,
        "properties": {
            "z": {"format": "email", "type": ["string", "null"]},
            "plain": {"properties": {"n": {"minimum": 0, "type": "integer"}}, "required": ["n"], "type": "object"},
            "tags": {"additionalProperties": {"format": "uri", "type": "string"}, "type": "object"},
            "list": {"items": {"anyOf": [{"type": "string"}, {"properties": {}, "type": "object"}]}, "type": "array"},
            "d": {"const": {"type": ["x"], "format": "kept"}, "default": {"type": "object"}}
        },
        "required": ["z", "plain"],
        "type": "object"
    });
    same(&Projection {
        json_schema: &canonical,
        profiles: forms(&canonical),
    });
    let deep = json!({"x": {"y": {"jsonSchema": canonical}}});
    same(&Shallower {
        a: &deep,
        b: forms(&deep["x"]["y"]["jsonSchema"]),
    });
    // Members out of key order: the object is reordered once written, its text moved.
    let moved = json!({"b": {"jsonSchema": canonical}, "a": 1});
    same(&Shallower {
        a: &moved,
        b: forms(&moved["b"]["jsonSchema"]),
    });
}
