//! AB4341: the `web` key's shape (seed 002, §Exposing an App in the browser):
//! `{ apps: [<server>/<app> | { app, tool?, input?, allow? }], open?: 'browser' | 'never' }`.
//! Entry: [`check_web`].

use std::collections::BTreeMap;

use serde_json::Value;

use super::model::locate;
use crate::diagnostics::{Code, Diagnostic, Location};

/// The consent capabilities `allow` may pre-approve.
pub const WEB_CAPABILITIES: [&str; 4] = [
    "call-tool",
    "download-file",
    "open-external-link",
    "request-display-mode",
];

/// One AB4341 per problem of `web` (the config's value at `/web`).
pub fn check_web(
    web: &Value,
    locations: &BTreeMap<String, Location>,
    file: Option<&str>,
) -> Vec<Diagnostic> {
    let mut problems: Vec<(String, String)> = Vec::new();
    match web {
        Value::Object(web) => {
            for (key, value) in web {
                match key.as_str() {
                    "apps" => check_apps(value, &mut problems),
                    "open" if matches!(value.as_str(), Some("browser" | "never")) => {}
                    "open" => problems.push((
                        "/web/open".into(),
                        "`web.open` is neither 'browser' nor 'never'".into(),
                    )),
                    other => problems.push((
                        format!("/web/{other}"),
                        format!("`web.{other}` is not a key of `web` (it has `apps` and `open`)"),
                    )),
                }
            }
            if !web.contains_key("apps") {
                problems.push(("/web".into(), "`web` lists no `apps`".into()));
            }
        }
        _ => problems.push(("/web".into(), "`web` is not an object".into())),
    }
    problems
        .into_iter()
        .map(|(pointer, message)| {
            let diagnostic = Diagnostic::new(
                Code::AB4341,
                message,
                "Write `web: { apps: ['<server>/<app>', { app: '<server>/<app>', tool, input, allow: ['call-tool'] }], open: 'never' }`.",
            );
            match locate(locations, file, &pointer) {
                Some(location) => diagnostic.at(location),
                None => diagnostic,
            }
        })
        .collect()
}

fn check_apps(apps: &Value, problems: &mut Vec<(String, String)>) {
    let Value::Array(apps) = apps else {
        problems.push(("/web/apps".into(), "`web.apps` is not an array".into()));
        return;
    };
    if apps.is_empty() {
        problems.push(("/web/apps".into(), "`web.apps` is empty".into()));
    }
    for (index, entry) in apps.iter().enumerate() {
        let pointer = format!("/web/apps/{index}");
        match entry {
            Value::String(app) => check_selector(app, &pointer, problems),
            Value::Object(entry) => {
                match entry.get("app") {
                    Some(Value::String(app)) => {
                        check_selector(app, &format!("{pointer}/app"), problems);
                    }
                    _ => problems.push((
                        pointer.clone(),
                        format!("`web.apps[{index}]` has no `app` string"),
                    )),
                }
                for (key, value) in entry {
                    let valid = match key.as_str() {
                        "app" => true,
                        "tool" => value.as_str().is_some_and(|tool| !tool.is_empty()),
                        "input" => value.is_object(),
                        "allow" => value.as_array().is_some_and(|allow| {
                            allow.iter().all(|capability| {
                                capability.as_str().is_some_and(|capability| {
                                    WEB_CAPABILITIES.contains(&capability)
                                })
                            })
                        }),
                        _ => false,
                    };
                    if !valid {
                        problems.push((
                            format!("{pointer}/{key}"),
                            match key.as_str() {
                                "tool" => format!("`web.apps[{index}].tool` is not a non-empty string"),
                                "input" => format!("`web.apps[{index}].input` is not an object"),
                                "allow" => format!(
                                    "`web.apps[{index}].allow` is not a list of {}",
                                    WEB_CAPABILITIES.map(|c| format!("'{c}'")).join(", ")
                                ),
                                other => format!(
                                    "`web.apps[{index}].{other}` is not a key of an exposed App (it has `app`, `tool`, `input` and `allow`)"
                                ),
                            },
                        ));
                    }
                }
            }
            _ => problems.push((
                pointer,
                format!("`web.apps[{index}]` is neither '<server>/<app>' nor an object"),
            )),
        }
    }
}

/// `<server>/<app>`: two non-empty segments.
fn check_selector(app: &str, pointer: &str, problems: &mut Vec<(String, String)>) {
    let valid = app.split_once('/').is_some_and(|(server, name)| {
        !server.is_empty() && !name.is_empty() && !name.contains('/')
    });
    if !valid {
        problems.push((
            pointer.to_owned(),
            format!("`{app}` does not name an App as '<server>/<app>'"),
        ));
    }
}
