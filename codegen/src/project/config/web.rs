//! `web`: the Apps `<plugin> web` (`bin/abgen-host web`) exposes. Every problem is one AB4341 at
//! the value that has it; what can only be judged against the route graph (does the App exist,
//! which tool opens it) is `check`'s.

use abgen_runtime::manifest::{WEB_CAPABILITIES, Web, WebApp, WebOpen};
use serde_json::Value;

use super::typing::Typer;
use crate::diagnostics::Code;

const APP_SHAPE: &str =
    "write each entry as '<server>/<app>' or { app: '<server>/<app>', tool?, input?, allow? }";

impl Typer<'_> {
    pub(super) fn web(&mut self, web: Option<&Value>) -> Option<Web> {
        let web = web?;
        let Some(fields) = web.as_object() else {
            self.invalid_web(
                "/web",
                "`web` must be an object",
                "write `web: { apps: ['<server>/<app>'] }`, or remove it",
            );
            return None;
        };
        let open = match fields.get("open") {
            None => WebOpen::Never,
            Some(Value::String(open)) if open == "browser" => WebOpen::Browser,
            Some(Value::String(open)) if open == "never" => WebOpen::Never,
            Some(other) => {
                self.invalid_web(
                    "/web/open",
                    &format!("`web.open` is {other}; it must be 'browser' or 'never'"),
                    "write `open: 'browser'` to open the user's browser, or `open: 'never'` (the default)",
                );
                WebOpen::Never
            }
        };
        let Some(entries) = fields.get("apps").and_then(Value::as_array) else {
            self.invalid_web(
                "/web/apps",
                "`web.apps` must be a list of the Apps to expose",
                "write `apps: ['<server>/<app>']`, naming Apps under `src/mcp/<server>/apps/`",
            );
            return None;
        };
        let mut apps: Vec<WebApp> = Vec::new();
        for (index, entry) in entries.iter().enumerate() {
            let pointer = format!("/web/apps/{index}");
            let Some(app) = self.web_app(entry, &pointer) else {
                continue;
            };
            if apps.iter().any(|seen| seen.app == app.app) {
                self.invalid_web(
                    &pointer,
                    &format!("`web.apps` lists `{}` twice", app.app),
                    "list each App once",
                );
                continue;
            }
            apps.push(app);
        }
        Some(Web { apps, open })
    }

    fn web_app(&mut self, entry: &Value, pointer: &str) -> Option<WebApp> {
        let (app, fields) = match entry {
            Value::String(app) => (app.clone(), None),
            Value::Object(fields) => match fields.get("app") {
                Some(Value::String(app)) => (app.clone(), Some(fields)),
                _ => {
                    self.invalid_web(
                        pointer,
                        "a `web.apps` entry object has no `app` string",
                        APP_SHAPE,
                    );
                    return None;
                }
            },
            other => {
                self.invalid_web(
                    pointer,
                    &format!("a `web.apps` entry is {other}"),
                    APP_SHAPE,
                );
                return None;
            }
        };
        let app_pointer = if fields.is_some() {
            format!("{pointer}/app")
        } else {
            pointer.to_owned()
        };
        let well_formed = app.split_once('/').is_some_and(|(server, name)| {
            !server.is_empty() && !name.is_empty() && !name.contains('/')
        });
        if !well_formed {
            self.invalid_web(
                &app_pointer,
                &format!("`{app}` in `web.apps` is not `<server>/<app>`"),
                "name the App by its server and file name, e.g. 'status/status' for `src/mcp/status/apps/status.ts`",
            );
            return None;
        }
        let mut web_app = WebApp {
            app,
            tool: None,
            input: None,
            allow: Vec::new(),
        };
        let Some(fields) = fields else {
            return Some(web_app);
        };
        let mut valid = true;
        for (key, value) in fields {
            let at = format!("{pointer}/{key}");
            match (key.as_str(), value) {
                ("app", _) => {}
                ("tool", Value::String(tool)) if !tool.is_empty() => {
                    web_app.tool = Some(tool.clone())
                }
                ("input", Value::Object(input)) => web_app.input = Some(input.clone()),
                ("allow", Value::Array(capabilities)) => {
                    for (index, capability) in capabilities.iter().enumerate() {
                        match capability.as_str().filter(|c| WEB_CAPABILITIES.contains(c)) {
                            Some(capability) => web_app.allow.push(capability.to_owned()),
                            None => {
                                valid = false;
                                self.invalid_web(
                                    &format!("{at}/{index}"),
                                    &format!("`allow` names {capability}, which is not a consent capability"),
                                    &format!("allow only {}; browser hardware and clipboard permissions always ask in the host page", WEB_CAPABILITIES.map(|c| format!("'{c}'")).join(", ")),
                                );
                            }
                        }
                    }
                }
                ("tool", _) => {
                    valid = false;
                    self.invalid_web(&at, "`tool` must be the opening tool's name", "write `tool: '<tool name>'`, or remove it to open with the only tool that links the App");
                }
                ("input", _) => {
                    valid = false;
                    self.invalid_web(
                        &at,
                        "`input` must be an object (the opening call's arguments)",
                        "write `input: { … }`, or remove it to call with `{}`",
                    );
                }
                ("allow", _) => {
                    valid = false;
                    self.invalid_web(
                        &at,
                        "`allow` must be a list of consent capabilities",
                        "write e.g. `allow: ['call-tool']`",
                    );
                }
                (other, _) => {
                    valid = false;
                    self.invalid_web(
                        &at,
                        &format!("a `web.apps` entry has no key `{other}`"),
                        "an entry takes `app`, `tool`, `input` and `allow`",
                    );
                }
            }
        }
        valid.then_some(web_app)
    }

    fn invalid_web(&mut self, pointer: &str, message: &str, recovery: &str) {
        self.report(Code::AB4341, pointer, message, recovery);
    }
}
