use super::*;

#[test]
fn every_schema_key_has_a_support_row_or_a_deferred_ancestor() {
    let support = support();
    let deferred: Vec<&str> = support
        .table
        .key
        .iter()
        .filter(|row| row.support == KeySupport::Deferred)
        .map(|row| row.path.as_str())
        .collect();
    let under_deferred = |path: &str| {
        deferred
            .iter()
            .any(|parent| path.starts_with(&format!("{parent}.")))
    };
    let paths = support.schema_key_paths();
    for path in &paths {
        assert!(
            support.key(path).is_some() || under_deferred(path),
            "schema key `{path}` has no row in support.toml"
        );
    }
    for row in &support.table.key {
        assert!(
            paths.contains(&row.path),
            "support.toml row `{}` names no key of the schema",
            row.path
        );
        if row.support == KeySupport::Deferred {
            assert!(
                row.example.is_some() && row.why.is_some(),
                "deferred row `{}` needs an example and a why",
                row.path
            );
        }
    }
}

#[test]
fn the_support_table_has_one_row_per_convention_of_the_schema() {
    let support = support();
    let patterns: Vec<&str> = support
        .conventions
        .iter()
        .map(|c| c.pattern.as_str())
        .collect();
    let rows: Vec<&str> = support
        .table
        .path
        .iter()
        .map(|row| row.pattern.as_str())
        .collect();
    assert_eq!(
        patterns, rows,
        "support.toml [[path]] rows follow x-conventions"
    );
    for row in &support.table.path {
        assert!(
            compile_pattern(&row.pattern).is_match(&row.example),
            "`{}` does not match its example `{}`",
            row.pattern,
            row.example
        );
        assert!(
            row.is_supported() != row.code().is_some(),
            "`{}` is either supported or names a known code",
            row.pattern
        );
    }
}

#[test]
fn supported_examples_match_no_reported_pattern() {
    let support = support();
    for row in support.table.path.iter().filter(|row| row.is_supported()) {
        let clash = support
            .reported
            .iter()
            .find(|(_, matcher)| matcher.is_match(&row.example));
        assert!(
            clash.is_none(),
            "`{}` (supported) is also matched by `{}`",
            row.example,
            clash.map_or("", |(r, _)| r.pattern.as_str())
        );
    }
}

#[test]
fn an_unknown_key_and_a_deferred_key_are_reported_where_they_are_written() {
    let value: Value = serde_json::json!({
        "plugin": { "name": "docs", "repository": "x" },
        "mcp": { "servers": { "docs": { "env": { "A": "b" }, "apps": {}, "colour": "red" } } },
        "scripts": { "sync": "./src/tasks/sync.ts" },
        "targts": ["claude"],
        "routes": { "servers": { "docs": "generated" } }
    });
    let found = check_config_keys(value.as_object().unwrap(), &BTreeMap::new(), Some("c.ts"));
    let summary: Vec<(Code, String)> = found.iter().map(|d| (d.code, d.message.clone())).collect();
    assert_eq!(
        summary,
        [
            (
                Code::AB5350,
                "`plugin.repository` is not supported by abgen yet: no host document abgen writes carries the repository yet".to_owned()
            ),
            (
                Code::AB5352,
                "`mcp.servers.docs.colour` is not a key of the config".to_owned()
            ),
            (
                Code::AB5350,
                "`scripts` is not supported by abgen yet: scripts are not built yet".to_owned()
            ),
            (Code::AB5352, "`targts` is not a key of the config".to_owned()),
        ]
    );
    assert!(
        found
            .iter()
            .all(|d| d.location.as_ref().is_some_and(|l| l.file == "c.ts"))
    );
}
