//! Deterministic synthetic projects for the `abgen check` benchmark.
//!
//! Route `i` is a pure function of `i` (its own seeded generator), never of the project size,
//! so the 10,000-route project contains the 1,000-route project's files byte for byte: any
//! difference in time per route between sizes comes from the tool, not from the inputs. The
//! schemas and JSX stay inside the static grammar a real plugin uses (zod objects, enums,
//! arrays, nested objects, optional/default, local `const` references), so the benchmark
//! exercises the same extraction paths a real project does, not a degenerate fast path.

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::Path;

/// The MCP servers tools are spread over, in round-robin order.
pub const SERVERS: [&str; 10] = [
    "github", "linear", "slack", "notion", "postgres", "files", "calendar", "search", "billing",
    "deploy",
];

/// Event routes every project has, whatever its size: (path under `src/events`, source).
const EVENT_ROUTES: [(&str, &str); 5] = [
    (
        "tool/after.ts",
        "import { events } from 'agent-bundle/routes';\n\n\
         export default events.tool.after({ tools: ['file.write'] }, async (e) => null);\n",
    ),
    (
        "tool/before.ts",
        "import { events } from 'agent-bundle/routes';\n\n\
         export default events.tool.before({ tools: ['shell'], timeoutMs: 2000 }, async (e) => null);\n",
    ),
    (
        "session/start.ts",
        "import { events } from 'agent-bundle/routes';\n\n\
         export default events.session.start({}, async (e) => null);\n",
    ),
    (
        "prompt/submit.ts",
        "import { events } from 'agent-bundle/routes';\n\n\
         export default events.prompt.submit({}, async (e) => null);\n",
    ),
    (
        "stop.ts",
        "import { events } from 'agent-bundle/routes';\n\n\
         export default events.stop({}, async (e) => null);\n",
    ),
];

// The three hosts that deliver hooks: with the default `portable` target alone, every event
// route would be an error (AB4824), and a benchmark should time the path a valid project takes.
const CONFIG: &str = "import { defineConfig } from 'agent-bundle/config';\n\n\
export default defineConfig({ plugin: { name: 'bench' }, targets: ['claude', 'codex', 'cursor'] });\n";

const PACKAGE_JSON: &str = "{\n  \"name\": \"bench\",\n  \"version\": \"0.0.0\",\n  \"private\": true,\n  \"type\": \"module\"\n}\n";

const VERBS: [&str; 12] = [
    "list",
    "get",
    "create",
    "update",
    "delete",
    "search",
    "sync",
    "archive",
    "export",
    "import",
    "summarize",
    "audit",
];
const NOUNS: [&str; 14] = [
    "issues",
    "comments",
    "channels",
    "pages",
    "tables",
    "files",
    "events",
    "invoices",
    "deployments",
    "users",
    "labels",
    "reviews",
    "queries",
    "reports",
];
const FIELDS: [&str; 40] = [
    "query",
    "repo",
    "owner",
    "path",
    "limit",
    "cursor",
    "since",
    "until",
    "tags",
    "labels",
    "title",
    "body",
    "assignee",
    "priority",
    "status",
    "includeArchived",
    "timeoutMs",
    "region",
    "environment",
    "dryRun",
    "format",
    "sort",
    "order",
    "page",
    "pageSize",
    "workspace",
    "team",
    "project",
    "branch",
    "commit",
    "message",
    "email",
    "url",
    "id",
    "ids",
    "parentId",
    "locale",
    "timezone",
    "metadata",
    "filters",
];
const ENUMS: [&[&str]; 6] = [
    &["open", "closed", "all"],
    &["low", "medium", "high", "urgent"],
    &["asc", "desc"],
    &["json", "markdown", "csv", "text"],
    &["draft", "review", "approved", "merged", "rejected"],
    &["production", "staging", "preview"],
];
const PHRASES: [&str; 10] = [
    "Only items changed after this point are returned",
    "Case-insensitive; matched against the title and body",
    "Defaults to the workspace of the current session",
    "Use the value returned by the previous page",
    "Must be unique within the project",
    "Shown to the user in the summary",
    "Maximum number of results to return",
    "ISO 8601 timestamp in UTC",
    "Leave empty to include every item",
    "Used to group related entries in the report",
];

/// SplitMix64: tiny, deterministic, and good enough to vary synthetic sources.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`n > 0`); the modulo bias is irrelevant here.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[self.below(items.len())]
    }

    /// `count` distinct entries of `items`, in a shuffled order.
    fn distinct<'a>(&mut self, items: &[&'a str], count: usize) -> Vec<&'a str> {
        let mut pool = items.to_vec();
        for i in (1..pool.len()).rev() {
            pool.swap(i, self.below(i + 1));
        }
        pool.truncate(count.min(pool.len()));
        pool
    }
}

/// Where route `index` lives: (server, tool name).
pub fn route_name(index: usize) -> (&'static str, String) {
    let mut rng = Rng::new(index as u64);
    let server = SERVERS[index % SERVERS.len()];
    let verb = rng.pick(&VERBS);
    let noun = rng.pick(&NOUNS);
    (server, format!("{verb}_{noun}_{index:05}"))
}

/// Writes a complete project with `routes` tool routes (plus config, package.json and the
/// fixed event routes) under `out`, which must not exist or be empty.
pub fn write_project(out: &Path, routes: usize) -> io::Result<Summary> {
    let mut summary = Summary::default();
    fs::create_dir_all(out)?;
    let mut put = |rel: &str, text: &str| -> io::Result<()> {
        let path = out.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(&path, text)?;
        summary.files += 1;
        summary.bytes += text.len();
        Ok(())
    };
    put("agent-bundle.config.ts", CONFIG)?;
    put("package.json", PACKAGE_JSON)?;
    for (rel, text) in EVENT_ROUTES {
        put(&format!("src/events/{rel}"), text)?;
    }
    for index in 0..routes {
        let (server, name) = route_name(index);
        put(
            &format!("src/mcp/{server}/tools/{name}.tsx"),
            &tool_source(index),
        )?;
    }
    summary.tools = routes;
    summary.events = EVENT_ROUTES.len();
    Ok(summary)
}

/// What [`write_project`] wrote.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub bytes: usize,
    pub tools: usize,
    pub events: usize,
}

/// The source of tool route `index`.
pub fn tool_source(index: usize) -> String {
    let (server, name) = route_name(index);
    // A second stream, so the name draw above does not shift with template changes below.
    let mut rng = Rng::new(index as u64 ^ 0x5EED_0000_0000_0000);
    let mut consts = Vec::new();
    let mut src = String::with_capacity(4096);

    src.push_str("import { Suspense } from 'react';\n");
    src.push_str("import { defineTool } from 'agent-bundle/routes';\n");
    src.push_str("import { z } from 'zod';\n");
    src.push_str("import { Agent } from '@agent-bundle/runtime';\n\n");

    // File-level schema constants the options object refers to by name.
    if rng.chance(60) {
        let values = rng.pick(&ENUMS);
        let _ = writeln!(src, "const Choice = z.enum([{}]);\n", quoted_list(values));
        consts.push("Choice");
    }
    if rng.chance(40) {
        src.push_str(
            "const Pagination = z.object({\n  \
             cursor: z.string().max(256).optional().describe('Opaque cursor from the previous page'),\n  \
             pageSize: z.number().int().min(1).max(200).default(50),\n});\n\n",
        );
        consts.push("Pagination");
    }

    src.push_str(
        "type Row = { id: string; label: string; score: number; updatedAt: string };\n\n\
         async function loadRows(scope: string, query: unknown, limit = 20): Promise<Row[]> {\n  \
         const seed = JSON.stringify(query).length;\n  \
         return Array.from({ length: Math.min(limit, 5 + (seed % 7)) }, (_, index) => ({\n    \
         id: `${scope}-${index}`,\n    \
         label: `${scope} item ${index + 1}`,\n    \
         score: (seed * (index + 3)) % 100,\n    \
         updatedAt: new Date(Date.UTC(2025, 0, 1 + index)).toISOString(),\n  \
         }));\n}\n\n",
    );
    src.push_str(
        "async function Details({ rows, limit }: { rows: readonly Row[]; limit: number }) {\n  \
         const lines = rows\n    .slice(0, limit)\n    \
         .map((row) => `- **${row.label}** (${row.id}), score ${row.score}, updated ${row.updatedAt}`);\n  \
         return <Agent.Markdown>{lines.join('\\n')}</Agent.Markdown>;\n}\n\n",
    );

    let (verb, noun) = name.split_once('_').map_or(("get", "items"), |(v, rest)| {
        (v, rest.rsplit_once('_').map_or(rest, |(n, _)| n))
    });
    if rng.chance(70) {
        let _ = write!(
            src,
            "/**\n * {} {} in {server}. The summary goes out at once; the details stream in behind a\n \
             * Suspense boundary, so a client that renders progressively shows them as they arrive.\n */\n",
            capitalized(verb),
            noun,
        );
    }
    src.push_str("export default defineTool(\n  {\n");
    if rng.chance(50) {
        let _ = writeln!(src, "    title: '{} {}',", capitalized(verb), noun);
    }
    let _ = writeln!(
        src,
        "    description:\n      '{} {} in {}. {}.',",
        capitalized(verb),
        noun,
        server,
        rng.pick(&PHRASES)
    );
    src.push_str("    inputSchema: ");
    let fields = 3 + rng.below(6);
    object_schema(&mut src, &mut rng, &consts, fields, 0, 2);
    src.push_str(",\n    resultSchema: ");
    let fields = 2 + rng.below(4);
    object_schema(&mut src, &mut rng, &consts, fields, 0, 2);
    src.push_str(",\n");
    if rng.chance(50) {
        let read_only = matches!(
            verb,
            "list" | "get" | "search" | "summarize" | "audit" | "export"
        );
        let _ = writeln!(
            src,
            "    annotations: {{ readOnlyHint: {read_only}, openWorldHint: {} }},",
            rng.chance(50)
        );
    }
    src.push_str("  },\n");

    let limit = 3 + rng.below(8);
    let _ = write!(
        src,
        "  async (input) => {{\n    \
         const started = Date.now();\n    \
         const rows = await loadRows('{server}/{name}', input, {limit});\n    \
         const best = rows.reduce((top, row) => (row.score > top ? row.score : top), 0);\n    \
         return (\n      \
         <Agent.Result value={{{{ ok: true, count: rows.length, best, elapsedMs: Date.now() - started }}}}>\n        \
         <Agent.Markdown>{{`## {} {}\\n\\nFound ${{rows.length}} {noun}; best score ${{best}}.`}}</Agent.Markdown>\n",
        capitalized(verb),
        noun,
    );
    match rng.below(3) {
        0 => src.push_str(
            "        <Suspense fallback={<Agent.Progress completed={0} message=\"Loading details\" />}>\n          \
             <Details rows={rows} limit={5} />\n        </Suspense>\n",
        ),
        1 => src.push_str(
            "        {rows.length === 0 ? (\n          <Agent.Markdown>No matches.</Agent.Markdown>\n        \
             ) : (\n          <Suspense fallback={<Agent.Markdown>Loading...</Agent.Markdown>}>\n            \
             <Details rows={rows} limit={rows.length} />\n          </Suspense>\n        )}\n",
        ),
        _ => src.push_str(
            "        {rows.slice(0, 3).map((row) => (\n          \
             <Agent.Markdown key={row.id}>{`### ${row.label}\\n\\nScore: ${row.score}`}</Agent.Markdown>\n        \
             ))}\n        <Suspense fallback={<Agent.Markdown>...</Agent.Markdown>}>\n          \
             <Details rows={rows.slice(3)} limit={10} />\n        </Suspense>\n",
        ),
    }
    src.push_str("      </Agent.Result>\n    );\n  },\n);\n");
    src
}

fn object_schema(
    src: &mut String,
    rng: &mut Rng,
    consts: &[&str],
    fields: usize,
    depth: usize,
    indent: usize,
) {
    let pad = "  ".repeat(indent);
    src.push_str("z.object({\n");
    for field in rng.distinct(&FIELDS, fields) {
        let _ = write!(src, "{pad}  {field}: ");
        field_schema(src, rng, consts, depth, indent + 1);
        src.push_str(",\n");
    }
    let _ = write!(src, "{pad}}})");
}

fn field_schema(src: &mut String, rng: &mut Rng, consts: &[&str], depth: usize, indent: usize) {
    let nested = depth < 2;
    match rng.below(if nested { 13 } else { 10 }) {
        0 | 1 => {
            let min = rng.below(3);
            let max = [64, 120, 256, 2000][rng.below(4)];
            let _ = write!(src, "z.string().min({min}).max({max})");
            describe(src, rng);
        }
        2 => {
            let format = rng.pick(&["email", "url", "uuid", "datetime"]);
            let _ = write!(src, "z.string().{format}()");
            describe(src, rng);
        }
        3 => {
            let max = [10, 100, 1000, 86_400_000][rng.below(4)];
            let int = if rng.chance(50) {
                "z.int()"
            } else {
                "z.number().int()"
            };
            let _ = write!(src, "{int}.min(0).max({max})");
            if rng.chance(50) {
                let _ = write!(src, ".default({})", rng.below(10));
            }
        }
        4 => {
            let _ = write!(src, "z.boolean().default({})", rng.chance(30));
            describe(src, rng);
        }
        5 => {
            let values = rng.pick(&ENUMS);
            let _ = write!(src, "z.enum([{}])", quoted_list(values));
            if rng.chance(60) {
                let _ = write!(src, ".default('{}')", values[0]);
            }
        }
        6 => {
            let max = [10, 20, 50][rng.below(3)];
            let _ = write!(src, "z.array(z.string().min(1).max(64)).max({max})");
            describe(src, rng);
        }
        7 => src.push_str("z.union([z.literal('all'), z.literal('mine'), z.literal('team')])"),
        8 => src.push_str("z.string().max(500).nullable()"),
        9 => match consts.first() {
            Some(name) if rng.chance(50) => src.push_str(name),
            _ => src.push_str("z.record(z.string(), z.string().max(200))"),
        },
        10 => {
            src.push_str("z.array(");
            let fields = 2 + rng.below(3);
            object_schema(src, rng, consts, fields, depth + 1, indent);
            let _ = write!(src, ").max({})", [25, 50, 100][rng.below(3)]);
        }
        11 => {
            let fields = 2 + rng.below(3);
            object_schema(src, rng, consts, fields, depth + 1, indent);
            describe(src, rng);
        }
        _ => match consts.last() {
            Some(name) => src.push_str(name),
            None => src.push_str("z.number().min(0).max(1)"),
        },
    }
    if rng.chance(25) {
        src.push_str(".optional()");
    }
}

fn describe(src: &mut String, rng: &mut Rng) {
    if rng.chance(70) {
        let _ = write!(src, ".describe('{}')", rng.pick(&PHRASES));
    }
}

fn quoted_list(values: &[&str]) -> String {
    values
        .iter()
        .map(|v| format!("'{v}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_do_not_depend_on_project_size() {
        assert_eq!(tool_source(7), tool_source(7));
        assert_eq!(route_name(123), route_name(123));
        assert_ne!(tool_source(7), tool_source(8));
    }

    #[test]
    fn names_are_unique_and_valid_identity_segments() {
        let mut seen = std::collections::HashSet::new();
        for index in 0..10_000 {
            let (server, name) = route_name(index);
            assert!(
                seen.insert((server, name.clone())),
                "duplicate {server}/{name}"
            );
            assert!(
                name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "{name}"
            );
        }
    }

    #[test]
    fn sources_are_realistically_sized_and_varied() {
        let total: usize = (0..200).map(|i| tool_source(i).len()).sum();
        let mean = total / 200;
        assert!(
            (2000..6000).contains(&mean),
            "mean tool source is {mean} bytes"
        );
        let all: String = (0..200).map(tool_source).collect();
        for needle in [
            ".optional()",
            ".default(",
            "z.enum(",
            "z.array(z.object(",
            "Pagination",
            "Suspense",
        ] {
            assert!(all.contains(needle), "no generated route uses {needle}");
        }
    }

    #[test]
    fn writes_a_project_prefix_of_larger_ones() {
        let dir = std::env::temp_dir().join(format!("abgen-bench-gen-{}", std::process::id()));
        let summary = write_project(&dir, 25).expect("write project");
        assert_eq!(summary.tools, 25);
        assert_eq!(summary.files, 25 + EVENT_ROUTES.len() + 2);
        let (server, name) = route_name(24);
        let written = fs::read_to_string(dir.join(format!("src/mcp/{server}/tools/{name}.tsx")))
            .expect("read route");
        assert_eq!(written, tool_source(24));
        fs::remove_dir_all(&dir).expect("clean up");
    }
}
