//! A command's flags, read from its route's input JSON Schema, and the parse of its argv.
//!
//! Entry: [`flags_of`], [`parse_input`]. Each top-level property `fooBar` is the flag
//! `--foo-bar`: a boolean is `--foo-bar` / `--no-foo-bar`, an array takes the flag once per item,
//! anything else takes one value (`--foo-bar V` or `--foo-bar=V`); `--input JSON` gives the whole
//! input instead (or first, under the flags). Invariant: a value that does not fit its flag is a
//! [`UsageError`] naming the flag, what it expects and what it received, never a guess.

use serde_json::{Map, Value};

/// Flags every command has, which no input property may take.
pub const RESERVED: &[&str] = &["help", "json", "ndjson", "version", "yes", "input"];

/// What a flag takes.
#[derive(Debug, Clone, PartialEq)]
pub enum FlagKind {
    Boolean,
    String,
    Number {
        integer: bool,
    },
    Enum(Vec<Value>),
    Array(Box<FlagKind>),
    /// Anything else (an object, a union): given as JSON.
    Json,
}

/// One flag of a command.
#[derive(Debug, Clone, PartialEq)]
pub struct Flag {
    /// The input property (`stalledAfterDays`).
    pub key: String,
    /// The flag without dashes (`stalled-after-days`).
    pub name: String,
    pub kind: FlagKind,
    pub required: bool,
    pub default: Option<Value>,
    pub description: Option<String>,
}

/// An argv that does not fit the command: exit 2 with this message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

/// `fooBar` → `foo-bar`, `URLPath` → `url-path` (the reference CLI's `optionNameOf`).
pub fn option_name_of(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    let mut name = String::new();
    for (index, &current) in chars.iter().enumerate() {
        if index > 0 && current.is_ascii_uppercase() {
            let previous = chars[index - 1];
            let next_is_lower = chars.get(index + 1).is_some_and(char::is_ascii_lowercase);
            if previous.is_ascii_lowercase()
                || previous.is_ascii_digit()
                || (previous.is_ascii_uppercase() && next_is_lower)
            {
                name.push('-');
            }
        }
        name.push(current.to_ascii_lowercase());
    }
    name
}

/// The flags of an input schema (none when the schema is only known at run time).
pub fn flags_of(schema: Option<&Value>) -> Vec<Flag> {
    let Some(schema) = schema.and_then(Value::as_object) else {
        return Vec::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|keys| keys.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(key, property)| Flag {
            key: key.clone(),
            name: option_name_of(key),
            kind: kind_of(property),
            required: required.contains(&key.as_str()),
            default: property.get("default").cloned(),
            description: property
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
        .collect()
}

fn kind_of(property: &Value) -> FlagKind {
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        return FlagKind::Enum(values.clone());
    }
    match property.get("type").and_then(Value::as_str) {
        Some("boolean") => FlagKind::Boolean,
        Some("string") => FlagKind::String,
        Some("integer") => FlagKind::Number { integer: true },
        Some("number") => FlagKind::Number { integer: false },
        Some("array") => match property.get("items") {
            Some(items) => match kind_of(items) {
                FlagKind::Array(_) => FlagKind::Array(Box::new(FlagKind::Json)),
                item => FlagKind::Array(Box::new(item)),
            },
            None => FlagKind::Array(Box::new(FlagKind::Json)),
        },
        _ => FlagKind::Json,
    }
}

/// What a flag's value must be, in words (for help and usage errors).
pub fn expectation(kind: &FlagKind) -> String {
    match kind {
        FlagKind::Boolean => "true or false".to_owned(),
        FlagKind::String => "a string".to_owned(),
        FlagKind::Number { integer: true } => "an integer".to_owned(),
        FlagKind::Number { integer: false } => "a number".to_owned(),
        FlagKind::Enum(values) => format!(
            "one of {}",
            values
                .iter()
                .map(|value| value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        FlagKind::Array(item) => format!("{} (repeat the flag for each)", expectation(item)),
        FlagKind::Json => "a JSON value".to_owned(),
    }
}

/// The message of a value that does not fit `target`.
pub fn invalid_value(target: &str, expected: &str, received: &Value) -> UsageError {
    UsageError(format!(
        "Invalid value for {target}: expected {expected}; received {received}."
    ))
}

/// The command's input from its argv (global flags already removed). `--input` gives a base
/// object; each flag sets its key over it.
pub fn parse_input(flags: &[Flag], args: &[String]) -> Result<Value, UsageError> {
    let mut input = Map::new();
    let mut index = 0;
    let mut set: Vec<(String, Value)> = Vec::new();
    while index < args.len() {
        let arg = &args[index];
        index += 1;
        let Some(body) = arg.strip_prefix("--") else {
            return Err(UsageError(format!(
                "unexpected argument `{arg}`: give every input as a flag (see --help)"
            )));
        };
        let (name, inline) = match body.split_once('=') {
            Some((name, value)) => (name, Some(value.to_owned())),
            None => (body, None),
        };
        let mut take_value = |what: &str| -> Result<String, UsageError> {
            if let Some(value) = inline.clone() {
                return Ok(value);
            }
            match args.get(index) {
                Some(value) => {
                    index += 1;
                    Ok(value.clone())
                }
                None => Err(UsageError(format!("--{what} needs a value"))),
            }
        };
        if name == "input" {
            let text = take_value("input")?;
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(object)) => input.extend(object),
                Ok(other) => return Err(invalid_value("--input", "a JSON object", &other)),
                Err(_) => {
                    return Err(invalid_value(
                        "--input",
                        "a JSON object",
                        &Value::String(text),
                    ));
                }
            }
            continue;
        }
        if let Some(flag) = name
            .strip_prefix("no-")
            .and_then(|negated| flags.iter().find(|flag| flag.name == negated))
            .filter(|flag| flag.kind == FlagKind::Boolean)
        {
            if inline.is_some() {
                return Err(UsageError(format!("--{name} takes no value")));
            }
            set.push((flag.key.clone(), Value::Bool(false)));
            continue;
        }
        let Some(flag) = flags.iter().find(|flag| flag.name == name) else {
            let known: Vec<String> = flags
                .iter()
                .map(|flag| format!("--{}", flag.name))
                .collect();
            return Err(UsageError(format!(
                "unknown flag `--{name}`; this command takes {}",
                if known.is_empty() {
                    "--input only".to_owned()
                } else {
                    format!("{} and --input", known.join(", "))
                }
            )));
        };
        let target = format!("--{}", flag.name);
        let value = match &flag.kind {
            FlagKind::Boolean => match inline.as_deref() {
                None => Value::Bool(true),
                Some("true") => Value::Bool(true),
                Some("false") => Value::Bool(false),
                Some(other) => {
                    return Err(invalid_value(
                        &target,
                        "true or false",
                        &Value::String(other.to_owned()),
                    ));
                }
            },
            FlagKind::Array(item) => {
                let text = take_value(&flag.name)?;
                let value = scalar(item, &text, &target)?;
                match set.iter_mut().find(|(key, _)| *key == flag.key) {
                    Some((_, Value::Array(items))) => items.push(value),
                    _ => set.push((flag.key.clone(), Value::Array(vec![value]))),
                }
                continue;
            }
            kind => {
                let text = take_value(&flag.name)?;
                scalar(kind, &text, &target)?
            }
        };
        set.retain(|(key, _)| *key != flag.key);
        set.push((flag.key.clone(), value));
    }
    input.extend(set);
    for flag in flags {
        if flag.required && !input.contains_key(&flag.key) {
            return Err(UsageError(format!(
                "missing --{}: expected {}",
                flag.name,
                expectation(&flag.kind)
            )));
        }
    }
    Ok(Value::Object(input))
}

/// One value of a non-boolean flag.
fn scalar(kind: &FlagKind, text: &str, target: &str) -> Result<Value, UsageError> {
    let received = || Value::String(text.to_owned());
    match kind {
        FlagKind::String => Ok(received()),
        FlagKind::Number { integer } => {
            let number: Option<serde_json::Number> = if *integer {
                text.parse::<i64>().ok().map(Into::into)
            } else {
                text.parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
            };
            number
                .map(Value::Number)
                .ok_or_else(|| invalid_value(target, &expectation(kind), &received()))
        }
        FlagKind::Enum(values) => {
            // A string choice as typed; any other (a number, a boolean) as its JSON.
            let typed = serde_json::from_str::<Value>(text).ok();
            values
                .iter()
                .find(|value| value.as_str() == Some(text) || typed.as_ref() == Some(*value))
                .cloned()
                .ok_or_else(|| invalid_value(target, &expectation(kind), &received()))
        }
        FlagKind::Boolean => match text {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(invalid_value(target, "true or false", &received())),
        },
        FlagKind::Json | FlagKind::Array(_) => serde_json::from_str(text)
            .map_err(|_| invalid_value(target, "a JSON value", &received())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn audit_flags() -> Vec<Flag> {
        flags_of(Some(&json!({
            "type": "object",
            "properties": {
                "checks": {"type": "array", "items": {"type": "string", "enum": ["unshelved", "unrated"]},
                           "default": ["unshelved", "unrated"]},
                "stalledAfterDays": {"type": "integer", "default": 60},
                "verbose": {"type": "boolean"},
                "query": {"type": "string"},
                "ratio": {"type": "number"},
            },
            "required": ["query"],
        })))
    }

    fn parse(args: &[&str]) -> Result<Value, UsageError> {
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        parse_input(&audit_flags(), &args)
    }

    #[test]
    fn option_names_are_kebab_case() {
        assert_eq!(option_name_of("stalledAfterDays"), "stalled-after-days");
        assert_eq!(option_name_of("bookIds"), "book-ids");
        assert_eq!(option_name_of("URLPath"), "url-path");
        assert_eq!(option_name_of("query"), "query");
        assert_eq!(option_name_of("v2Name"), "v2-name");
    }

    #[test]
    fn flags_parse_by_kind() {
        assert_eq!(
            parse(&[
                "--query",
                "le guin",
                "--stalled-after-days=30",
                "--verbose",
                "--checks",
                "unrated",
                "--checks",
                "unshelved",
                "--ratio",
                "0.5"
            ])
            .unwrap(),
            json!({"query": "le guin", "stalledAfterDays": 30, "verbose": true,
                   "checks": ["unrated", "unshelved"], "ratio": 0.5})
        );
        assert_eq!(
            parse(&["--query=x", "--no-verbose"]).unwrap(),
            json!({"query": "x", "verbose": false})
        );
        assert_eq!(
            parse(&["--input", r#"{"query": "a", "ratio": 2}"#, "--query", "b"]).unwrap(),
            json!({"query": "b", "ratio": 2}),
            "a flag sets its key over --input"
        );
    }

    #[test]
    fn values_that_do_not_fit_are_usage_errors_naming_the_flag() {
        assert_eq!(
            parse(&["--query", "x", "--stalled-after-days", "soon"])
                .unwrap_err()
                .0,
            r#"Invalid value for --stalled-after-days: expected an integer; received "soon"."#
        );
        assert_eq!(
            parse(&["--query", "x", "--checks", "lost"]).unwrap_err().0,
            r#"Invalid value for --checks: expected one of unshelved, unrated; received "lost"."#
        );
        assert_eq!(
            parse(&["--verbose"]).unwrap_err().0,
            "missing --query: expected a string"
        );
        assert!(
            parse(&["--query", "x", "--colour"])
                .unwrap_err()
                .0
                .contains("unknown flag `--colour`")
        );
        assert!(
            parse(&["--query"])
                .unwrap_err()
                .0
                .contains("--query needs a value")
        );
        assert!(
            parse(&["stray"])
                .unwrap_err()
                .0
                .contains("unexpected argument `stray`")
        );
        assert_eq!(
            parse(&["--input", "[1]"]).unwrap_err().0,
            "Invalid value for --input: expected a JSON object; received [1]."
        );
    }
}
