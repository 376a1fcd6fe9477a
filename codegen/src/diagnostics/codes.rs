//! The one table of diagnostic codes: one line per code with its default severity and summary.
//!
//! agent-bundle's codes keep their meaning (so its docs transfer); abgen-only checks use
//! AB5100–AB5999: AB51xx static schemas, AB52xx host profiles and the host matrix, AB53xx
//! bundling, run time and the compiler's own input handling. AB80xx are agent-bundle's
//! development-server codes, with its meaning.

use super::Severity;

macro_rules! codes {
    ($($code:ident $severity:ident $summary:literal;)*) => {
        /// A diagnostic code. `Code::AB4805.as_str() == "AB4805"`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $($code,)* }

        impl Code {
            /// Every code, in table order.
            pub const ALL: &'static [Code] = &[$(Code::$code,)*];

            pub const fn as_str(self) -> &'static str {
                match self { $(Code::$code => stringify!($code),)* }
            }

            /// The severity a diagnostic of this code has unless its constructor says otherwise.
            pub const fn default_severity(self) -> Severity {
                match self { $(Code::$code => Severity::$severity,)* }
            }

            /// One line saying what the code means.
            pub const fn summary(self) -> &'static str {
                match self { $(Code::$code => $summary,)* }
            }
        }
    };
}

codes! {
    AB4000 Error "`plugin.name` is missing or not a non-empty string";
    AB4001 Error "`plugin.version` is declared but is not a non-empty string";
    AB4002 Error "skill `name` is missing or not 1–64 lowercase letters, digits and single hyphens";
    AB4003 Error "skill `description` is missing, blank or longer than 1024 characters";
    AB4004 Error "skill name differs from its folder";
    AB4005 Error "SKILL.md links a relative resource the skill does not ship";
    AB4011 Warning "package.json is unreadable or not a JSON object";
    AB4100 Error "unknown target";
    AB4201 Error "`tools` on an event route whose event does not concern a tool";
    AB4202 Error "bad tool selector in an event route's `tools`";
    AB4304 Error "a declared or handed-off MCP server has none, or more than one, of `entry`, `command` and `url` (and no `src/mcp/<id>.ts` entry)";
    AB4305 Error "a declared MCP server's `targets` is not a non-empty list of target names";
    AB4307 Error "a declared server's `entry` (or `{ prebuilt }`) file does not exist";
    AB4308 Error "a local entry or generated server declares a transport other than stdio";
    AB4309 Error "a local entry or generated server declares `cwd` (it runs from the plugin root)";
    AB4310 Error "a stdio MCP server declares `headers`";
    AB4313 Error "a declared MCP server's `command` is empty";
    AB4314 Error "a `command` server declares a transport other than stdio";
    AB4315 Error "a declared server's `cwd` carries a path token a selected host does not expand in `cwd`";
    AB4316 Error "a declared MCP server's `url` is not http(s)";
    AB4317 Error "a `url` server without `transport: 'streamable-http'`";
    AB4318 Error "a remote MCP server declares `args`, `env` or `cwd`";
    AB4322 Error "a server abgen does not generate (a `command`, a `url` or a local `entry`) declares `apps`";
    AB4323 Error "`mcp.servers.<id>.apps` is not an object";
    AB4324 Error "a declared App's name is not `^[a-z][a-z0-9-]*$`";
    AB4325 Error "a declared App has the name of an App route of the same server";
    AB4326 Error "a declared App is not an object";
    AB4327 Error "a declared App's `entry` is not a module path inside the project";
    AB4328 Error "a declared App's `entry` file does not exist";
    AB4329 Error "a declared App's `resourceUri` is not a `ui://` URI";
    AB4331 Error "a declared App's `template` is not an `.html`/`.htm` path inside the project";
    AB4332 Error "a declared App's `template` file does not exist";
    AB4333 Error "a declared App's `targets` is not a non-empty list of target names, or leaves out `portable` while its server ships there";
    AB4334 Error "a declared App selects a target its server does not ship to";
    AB4335 Error "a declared App's `_meta` is not an object";
    AB4340 Error "a server whose `routes.servers` mode is 'generated' redeclares `entry`, `command` or `url`";
    AB4341 Error "invalid `web`: not `{ apps, open? }`, an entry that is not `<server>/<app>` or names no App, an opening tool that is unknown or ambiguous, or an `allow` that is not a consent capability";
    AB4721 Error "a `tools.rsbuild` value abgen does not apply (it bundles with esbuild; only `output.sourceMap.js` is read)";
    AB4730 Error "a stdio entry has no default-exported server factory (it connects a transport itself, or exports nothing to call)";
    AB4733 Info "a `src/mcp/<id>.ts` entry is shadowed (an explicit 'generated' mode, or a declared `entry`, `command` or `url`)";
    AB4736 Error "a legacy top-level `skills/`, `commands/` or `rules/` file: no longer discovered";
    AB4770 Error "an MCP App failed to compile (the bundler's message at the failing file:line:col)";
    AB4771 Warning "an MCP App compiled with a bundler warning";
    AB4772 Warning "an MCP App document of 1 MiB or more in production, or over the 2 MiB hosts accept";
    AB4766 Error "the plugin's executable `bin/<plugin>` would be a file abgen already writes";
    AB4800 Error "an MCP server has route modules and an entry claim, without an explicit `routes.servers` mode";
    AB4802 Error "two modules derive the same route id";
    AB4803 Error "unsafe identity segment in a route path";
    AB4804 Error "bad `routes` override";
    AB4805 Error "rejected `config` declaration shape or non-object config value";
    AB4806 Error "dynamic `config` initializer outside the static grammar";
    AB4808 Error "a script nested below `src/scripts/` (scripts are one level: `src/scripts/<name>`)";
    AB4810 Error "route definition is not statically readable, or an MCP route misses its schemas or a function default export";
    AB4811 Error "MCP route exports `execute` or `render`";
    AB4812 Error "App route without a static non-empty `config.resourceUri`";
    AB4813 Error "the command graph collides: a command word that is not lowercase letters, digits, `-` and `_`, two commands with one path, a command that is also a group of commands, or a command named `web` (or `run` beside scripts)";
    AB4815 Error "a rendered `src/cli/**` command or `src/scripts/*.tsx` script breaks its contract: no function default export, exports `execute` or `render`, or a malformed `config.description`";
    AB4822 Error "`routes.mcpCommands` `include` is empty, or one of its patterns matches no generated tool";
    AB4823 Error "event route outside the event vocabulary";
    AB4824 Error "event route selects an unknown target or an unsupported event capability";
    AB4825 Error "event `config.targets` is not a non-empty array of non-empty names";
    AB4829 Error "two App routes of one server share a `resourceUri`";
    AB4830 Error "layout module breaks the layout contract";
    AB4831 Error "two layout modules for one scope";
    AB4832 Error "server layout for a server with no tool, resource or prompt routes";
    AB4835 Error "malformed `config.render`";
    AB4836 Error "malformed `config.execution`, or declared on a resource or prompt";
    AB4837 Error "a routed module value-imports a compiler-carrying framework entry, or an MCP App (or a module it imports) compiler-carrying or Node-only code";
    AB4839 Warning "schema references form a cycle; the schema is computed at run time";
    AB4840 Error "a `<tool>.cli.ts` command-line projection beside no tool, outside `tools/`, or a second one for one tool";
    AB4841 Error "a `<tool>.cli.ts` projection's `config` is not `{ command, description?, confirm? }` with `command` the command's words";
    AB4940 Error "provider module's default export is not a function";
    AB4941 Error "two providers share one key";
    AB4942 Error "provider key `processLifetime` is reserved";
    AB5101 Warning "a schema calls a function or method abgen does not read statically; it is computed at run time";
    AB5102 Warning "a schema only zod can compute (z.lazy, z.custom, z.preprocess, a computed default); it is computed at run time";
    AB5103 Warning "a result schema's output type comes from a transform; it is computed at run time";
    AB5104 Warning "a schema references a value abgen cannot follow (a spread, a package import, a `let`, a global); it is computed at run time";
    AB5105 Warning "a schema uses a zod type with no JSON Schema form (date, bigint, map, set…); it is computed at run time";
    AB5106 Error "a literal `inputJsonSchema` or `outputJsonSchema` is not a valid JSON Schema";
    AB5200 Warning "an event route reaches a target through a degraded native mapping";
    AB5201 Warning "an event route renders a deny on an event that cannot deny on a target";
    AB5202 Error "`delivery: ['deferred']` is not supported yet";
    AB5203 Error "a `standalone` fallback cannot fit the event's budget on a target";
    AB5204 Warning "an event route's tool selectors name no tool a target reports to hooks";
    AB5205 Error "an event route sets `failure` on an event that cannot deny on a target";
    AB5206 Warning "an event route without a standalone fallback is for an event a target fires before any MCP server runs";
    AB5210 Warning "a tool's input schema cannot be given to a selected host without accepting less (its root is not a plain object)";
    AB5300 Error "source file does not parse";
    AB5301 Error "source file cannot be read";
    AB5302 Error "source file is not UTF-8 text";
    AB5303 Error "`'use client'` in a route module: Agent Documents have no client components";
    AB5304 Info "`file/change` is accepted as an alias of `file/saved`";
    AB5305 Error "no `agent-bundle.config.*` or package.json gives the project a plugin name";
    AB5306 Error "two config files where one is expected";
    AB5307 Error "a config field has the wrong shape";
    AB5310 Error "malformed event `config.delivery`";
    AB5311 Error "event `config.timeoutMs` is not a positive integer";
    AB5312 Error "event `config.runtime` is not `shared` or `standalone`";
    AB5313 Error "event `config.fallback` is not `none` or `standalone`";
    AB5314 Error "event `config.native` is not an array of field names";
    AB5315 Warning "unknown key in an event route's `config`";
    AB5316 Error "event `config.failure` is not `open` or `closed`";
    AB5320 Error "a tool's `config.excludeClients` is not a list of 1–128 character client-name prefixes";
    AB5321 Error "an MCP tool, resource or prompt wire name breaks MCP's name rule (1–128 characters of `A-Z a-z 0-9 _ - .`)";
    AB5322 Error "a tool's `config.model` is neither `'content'` nor `'structured'`";
    AB5340 Error "`--out` holds files abgen did not write there, or changed ones: abgen replaces only its own artifact";
    AB5341 Error "`--out` is a file or something else that is not a directory";
    AB5342 Error "`--out` is the project root, a folder containing it, a filesystem root, or inside `src/`";
    AB5343 Error "a symlink where abgen discovers routes or skills (`src`, a module path, `src/skills`): abgen does not follow symlinks";
    AB5344 Error "nothing to build: no `agent-bundle.config.*`, and no routes, servers or skills under `src/`";
    AB5350 Error "a config key abgen does not build yet";
    AB5351 Error "a conventional file abgen does not build yet (`src/state.ts`, `src/cli.ts`, commands, rules, assets…)";
    AB5352 Error "a key the config schema does not know";
    AB5353 Error "a module nested below a route folder: route modules are its direct children";
    AB5354 Warning "a project-root `.env`: never shipped; the installed plugin reads the operator's `.env` from its own root";
    AB5360 Error "bundling failed: esbuild could not bundle a module of the project";
    AB5361 Error "a package the build needs is not installed (esbuild beside abgen; React or the runtime package in the project)";
    AB5362 Error "Node.js 20 or newer is not found";
    AB5363 Error "a React package outside the pinned version (react, react-dom, react-server-dom-webpack 19.3.1)";
    AB5364 Error "two copies of one React package in the render worker's bundle";
    AB5365 Error "an import the project cannot resolve: a package that is not installed, or a relative path that names no file";
    AB5366 Error "`abgen init` would replace a file, or was given a name that is not a plugin name";
    AB5367 Error "`--platform` names a platform key abgen does not know, or one that is the plugin's own name";
    AB5368 Error "`--platform` names a Windows platform: an artifact's `bin/abgen-host` launcher is POSIX sh, with no Windows launcher yet";
    AB5369 Error "the build failed in abgen itself: a file it could not read or write, or an internal error";
    AB5370 Error "the `abgen-host` of a `--platform` is not found: its npm platform package `@abgen/<platform>` is not installed, or is of another version";
    AB8024 Error "`abgen dev proxy`: the development epoch a request needs is gone (its artifact removed, its runtime ended or not starting)";
    AB8025 Error "`abgen dev proxy`: no development server (no `abgen dev` runs for the project, or it has no good build yet)";
}
