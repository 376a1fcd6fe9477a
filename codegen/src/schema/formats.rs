//! The string formats zod 4.6.7 prints: the `format` keyword and the `pattern` it adds.
//!
//! Entry call: [`string_format`]. The patterns are the regular expressions zod itself writes
//! into `z.toJSONSchema` output for these formats (measured by the oracle corpus under
//! `fixtures/schemas/`); they must change together with the pinned zod version.

use std::borrow::Cow;

use super::ir::StringCheck;

pub const EMAIL: &str = r#"^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$"#;
pub const UUID: &str = r#"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"#;
pub const DATETIME: &str = r#"^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z))$"#;
pub const DATE: &str = r#"^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))$"#;
pub const TIME: &str = r#"^(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?$"#;
pub const IPV4: &str = r#"^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])$"#;
pub const IPV6: &str = r#"^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:))$"#;

/// The check a zod format helper (`email`, `uuid`, `iso.datetime`…) adds, by helper name.
pub fn string_format(helper: &str) -> Option<StringCheck> {
    let (name, pattern) = match helper {
        "email" => ("email", Some(EMAIL)),
        "uuid" => ("uuid", Some(UUID)),
        "url" => ("uri", None),
        "datetime" => ("date-time", Some(DATETIME)),
        "date" => ("date", Some(DATE)),
        // zod prints no `format` for times, only the pattern.
        "time" => ("", Some(TIME)),
        "ipv4" => ("ipv4", Some(IPV4)),
        "ipv6" => ("ipv6", Some(IPV6)),
        _ => return None,
    };
    Some(StringCheck::Format {
        name,
        pattern: pattern.map(Cow::Borrowed),
    })
}

/// The pattern zod prints for `startsWith`, `endsWith` and `includes`: the text escaped as a
/// regular expression and anchored as zod anchors it.
pub fn affix_pattern(helper: &str, text: &str) -> Option<StringCheck> {
    let escaped = escape_regex(text);
    let (name, pattern) = match helper {
        "startsWith" => ("starts_with", format!("^{escaped}.*")),
        "endsWith" => ("ends_with", format!(".*{escaped}$")),
        "includes" => ("includes", escaped),
        _ => return None,
    };
    Some(StringCheck::Format {
        name,
        pattern: Some(Cow::Owned(pattern)),
    })
}

/// Escapes the characters a JavaScript regular expression gives a meaning to.
fn escape_regex(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        if "\\^$.*+?()[]{}|/".contains(character) {
            escaped.push('\\');
        }
        escaped.push(character);
    }
    escaped
}
