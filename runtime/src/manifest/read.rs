//! Reading a manifest from an artifact: [`read_manifest`] for the whole document,
//! [`read_server_manifest`] for one MCP server's, [`read_cli_manifest`] for the plugin's command
//! line, [`read_hook_view`] for the hook client's slice,
//! [`read_manifest_head`] for what stands before the routes. All refuse another
//! `manifestVersion`.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::hooks::{HookRoute, HookTables, HookView};
use super::model::{Application, Cli, Limits, MANIFEST_VERSION, Manifest};

/// Why a manifest could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestReadError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a valid abgen manifest: {source}")]
    Invalid {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{path} has manifestVersion {found}; this abgen-host reads version {MANIFEST_VERSION}")]
    Version { path: PathBuf, found: u64 },
}

/// Reads and parses the whole manifest at `path`.
pub fn read_manifest(path: &Path) -> Result<Manifest, ManifestReadError> {
    read_checked(path, |manifest: &Manifest| manifest.manifest_version)
}

/// The manifest at `path` as MCP server `server` serves it: every member, and of the routes
/// only those of `server` (`route.server`), in manifest order. A large plugin's routes are
/// nearly all of its manifest, and a server is one of several: in the canonical layout the other
/// servers' routes are passed over as text, where parsing them took longer than Node's start
/// (13.5 MB, 1,000 routes over ten servers: about 85 ms on a cold process, which a cold
/// `tools/call` waited for), and were then held for the whole session. Any other layout is read
/// whole and filtered; the errors are [`read_manifest`]'s.
pub fn read_server_manifest(path: &Path, server: &str) -> Result<Manifest, ManifestReadError> {
    read_selected(path, &RouteSelection::Server(server))
}

/// The manifest at `path` as the plugin's command line (`abgen-host cli`) runs it: every member,
/// and of the routes only those its commands and scripts render, as [`read_server_manifest`]
/// reads a server's.
pub fn read_cli_manifest(path: &Path) -> Result<Manifest, ManifestReadError> {
    read_selected(path, &RouteSelection::NamedByCli)
}

/// Which routes a partial read of the manifest keeps.
enum RouteSelection<'s> {
    /// The routes of this MCP server.
    Server(&'s str),
    /// The routes the `cli` member's commands and scripts name.
    NamedByCli,
}

impl RouteSelection<'_> {
    /// The route ids `cli` names.
    fn cli_routes(cli: &Cli) -> BTreeSet<&str> {
        let commands = cli.commands.iter().map(|command| command.route.as_str());
        let scripts = cli
            .scripts
            .iter()
            .filter_map(|script| script.route.as_deref());
        commands.chain(scripts).collect()
    }

    /// Keeps the routes of `manifest` this selection names.
    fn retain(&self, manifest: &mut Manifest) {
        match self {
            RouteSelection::Server(server) => manifest
                .routes
                .retain(|route| route.server.as_deref() == Some(*server)),
            RouteSelection::NamedByCli => {
                let named: BTreeSet<String> = Self::cli_routes(&manifest.cli)
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                manifest
                    .routes
                    .retain(|route| named.contains(route.id.as_str()));
            }
        }
    }

    /// The member lines that mark a kept route in the canonical layout, given the text before
    /// the routes line. A route's own members stand six spaces in, one a line, and
    /// the closing quote is in each line, so neither a nested value nor a longer name matches.
    fn canonical_lines(&self, before_routes: &[u8]) -> Option<Vec<String>> {
        let line = |member: &str, value: &str| {
            Some(format!(
                "\n      \"{member}\": {}",
                serde_json::to_string(value).ok()?
            ))
        };
        match self {
            RouteSelection::Server(server) => Some(vec![line("server", server)?]),
            RouteSelection::NamedByCli => {
                #[derive(Deserialize)]
                struct CliHead {
                    cli: Cli,
                }
                let head: CliHead = parse_head(before_routes)?;
                Self::cli_routes(&head.cli)
                    .into_iter()
                    .map(|id| line("id", id))
                    .collect()
            }
        }
    }
}

/// The manifest at `path` with only the routes `selection` keeps: cut as text in the canonical
/// layout, else read whole and filtered, with [`read_manifest`]'s errors.
fn read_selected(
    path: &Path,
    selection: &RouteSelection<'_>,
) -> Result<Manifest, ManifestReadError> {
    if let Some(manifest) = read_canonical_selected(path, selection) {
        return Ok(manifest);
    }
    let mut manifest = read_manifest(path)?;
    selection.retain(&mut manifest);
    Ok(manifest)
}

/// [`read_selected`] of a manifest in the canonical layout: the document with its `routes` cut
/// to the items that hold one of `selection`'s member lines, parsed as one. The file is read a
/// chunk at a time and each route let go once it is passed, so what is held is the kept
/// document, not the file (a large plugin's manifest is megabytes of routes, nearly all of
/// them another server's). `None` for any other layout (or no routes at all), another
/// `manifestVersion`, or a document that does not parse, which the whole read then judges.
fn read_canonical_selected(path: &Path, selection: &RouteSelection<'_>) -> Option<Manifest> {
    let mut read = ForwardRead::open(path)?;
    let routes_at = read.find(0, ROUTES_LINE)?;
    let open = routes_at + ROUTES_LINE.len();
    // `[` and a line break: `[]` (no routes) is a small manifest, read whole.
    if !read.starts_with(open, b"[\n")? {
        return None;
    }
    let lines = selection.canonical_lines(read.slice(0..routes_at)?)?;
    let mut document = read.slice(0..open + 1)?.to_vec();
    let mut kept = 0;
    // Each route from its [`ROUTE_OPEN`] to its [`ROUTE_CLOSE`], the commas between them left
    // out, up to the [`ROUTES_CLOSE`] of the array.
    let mut at = open + 1;
    while !read.starts_with(at, ROUTES_CLOSE)? {
        if !read.starts_with(at, ROUTE_OPEN)? {
            return None;
        }
        let end = read.find(at, ROUTE_CLOSE)? + ROUTE_CLOSE.len();
        let item = read.slice(at..end)?;
        // Only a layout that is not canonical closes `routes` inside a route.
        if memchr::memmem::find(item, ROUTES_CLOSE).is_some() {
            return None;
        }
        let named = lines
            .iter()
            .any(|line| memchr::memmem::find(item, line.as_bytes()).is_some());
        if named {
            if kept > 0 {
                document.push(b',');
            }
            document.extend_from_slice(item);
            kept += 1;
        }
        at = end + usize::from(read.starts_with(end, b",")?);
        read.let_go_before(at);
    }
    read.read_to_end()?;
    document.extend_from_slice(read.slice(at..read.end())?);
    serde_json::from_slice::<Manifest>(&document)
        .ok()
        .filter(|manifest| manifest.manifest_version == MANIFEST_VERSION)
}

/// The members of a manifest that stand before its routes, which are nearly all of a large
/// plugin's manifest: enough to start the artifact's kernel while the rest is read.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManifestHead {
    pub manifest_version: u32,
    pub digest: String,
    pub limits: Limits,
}

/// The head of the manifest at `path`, read only as far as its routes: abgen writes the manifest
/// canonical (keys sorted, two spaces of indent, one member a line), so `digest`, `limits` and
/// `manifestVersion` stand before the line that opens `routes`. `None` for a manifest in another
/// layout, one that cannot be read or whose head does not parse, or another `manifestVersion`:
/// [`read_manifest`] then says what is wrong.
pub fn read_manifest_head(path: &Path) -> Option<ManifestHead> {
    let mut read = ForwardRead::open(path)?;
    let routes_at = read.find(0, ROUTES_LINE)?;
    parse_head::<ManifestHead>(read.slice(0..routes_at)?)
        .filter(|head| head.manifest_version == MANIFEST_VERSION)
}

/// Reads only the identity, digest, limits and hook tables of the manifest at `path`, and the
/// routes its hooks name. A canonical manifest is read only as far as the last of those routes
/// (the event routes sort together, near the start of `routes`); any other is read whole, and
/// [`read_manifest`]'s errors are its errors.
pub fn read_hook_view(path: &Path) -> Result<HookView, ManifestReadError> {
    if let Some(view) = read_canonical_hook_view(path) {
        return Ok(view);
    }
    let mut view = read_checked(path, |view: &HookView| view.manifest_version)?;
    let named = hook_route_ids(&view.hooks);
    view.routes
        .retain(|route| named.contains(route.id.as_str()));
    Ok(view)
}

/// The route ids the hook bindings of `hooks` name, each once.
fn hook_route_ids(hooks: &HookTables) -> BTreeSet<&str> {
    hooks
        .values()
        .flatten()
        .flat_map(|binding| binding.routes.iter().map(String::as_str))
        .collect()
}

/// [`read_hook_view`] of a manifest in the canonical layout, reading its head and then only as
/// far as its hooks' routes; `None` for any other layout, another `manifestVersion`, or a named
/// route this read does not find, which the whole read then judges.
fn read_canonical_hook_view(path: &Path) -> Option<HookView> {
    /// The members of [`HookView`] that stand before the routes.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct HookHead {
        manifest_version: u32,
        application: Application,
        digest: String,
        hooks: HookTables,
        limits: Limits,
    }
    let mut read = ForwardRead::open(path)?;
    let routes_at = read.find(0, ROUTES_LINE)?;
    let head: HookHead = parse_head(read.slice(0..routes_at)?)?;
    if head.manifest_version != MANIFEST_VERSION {
        return None;
    }
    let routes = hook_route_ids(&head.hooks)
        .into_iter()
        .map(|id| canonical_route(&mut read, routes_at, id))
        .collect::<Option<Vec<_>>>()?;
    Some(HookView {
        manifest_version: head.manifest_version,
        application: head.application,
        digest: head.digest,
        hooks: head.hooks,
        limits: head.limits,
        routes,
    })
}

/// The route `id` of a canonical manifest whose `routes` line starts at `routes_at`, read as a
/// hook route. The routes are the array's items four spaces in, with their members one a line
/// six spaces in, and the array closes on the first line two spaces in: so the route is the
/// object around the line that gives `id` six spaces in, if that line comes before the close.
fn canonical_route(read: &mut ForwardRead, routes_at: usize, id: &str) -> Option<HookRoute> {
    // The id's closing quote is in the line searched for, so no longer id matches it.
    let id_line = format!("\n      \"id\": {}", serde_json::to_string(id).ok()?);
    let at = read.find(routes_at, id_line.as_bytes())?;
    let before = read.slice(routes_at..at)?;
    if memchr::memmem::find(before, ROUTES_CLOSE).is_some() {
        return None;
    }
    let start = routes_at + memchr::memmem::rfind(before, ROUTE_OPEN)? + 1;
    let end = read.find(at, ROUTE_CLOSE)? + ROUTE_CLOSE.len();
    serde_json::from_slice::<HookRoute>(read.slice(start..end)?)
        .ok()
        .filter(|route| route.id == id)
}

/// The line that opens a canonical manifest's `routes`. No JSON string holds a raw line break,
/// and only the document's own members stand two spaces in, so this line cannot come from
/// inside a value.
const ROUTES_LINE: &[u8] = b"\n  \"routes\": ";

/// The line break and brace that open a route of a canonical manifest, four spaces in, and the
/// ones that close it: only the items of `routes` stand four spaces in with a brace.
const ROUTE_OPEN: &[u8] = b"\n    {";
const ROUTE_CLOSE: &[u8] = b"\n    }";

/// The line that closes a canonical manifest's `routes`: every line inside it stands at least
/// four spaces in, so the first line after [`ROUTES_LINE`] two spaces in that starts with `]`
/// is this one.
const ROUTES_CLOSE: &[u8] = b"\n  ]";

/// The members of a canonical manifest that stand before its routes, parsed as `T` from
/// `before_routes`, the text before its routes line: closed as a document of its own, since its
/// last member ends with the comma before `routes`. `None` when no comma stands there or the
/// head is no `T`.
fn parse_head<T: DeserializeOwned>(before_routes: &[u8]) -> Option<T> {
    let (last, head) = before_routes.split_last()?;
    if *last != b',' {
        return None;
    }
    serde_json::from_slice(&[head, b"\n}"].concat()).ok()
}

/// A file read forward, a chunk at a time, only as far as the lines searched for in it, and
/// holding only what it has not been told to let go. Positions are offsets in the file.
struct ForwardRead {
    file: std::fs::File,
    /// The file from `base` on, as far as read.
    held: Vec<u8>,
    /// Where `held` starts in the file: what stands before it was let go.
    base: usize,
}

impl ForwardRead {
    const CHUNK: usize = 64 * 1024;

    fn open(path: &Path) -> Option<Self> {
        Some(Self {
            file: std::fs::File::open(path).ok()?,
            held: Vec::with_capacity(Self::CHUNK),
            base: 0,
        })
    }

    /// Where what has been read ends.
    fn end(&self) -> usize {
        self.base + self.held.len()
    }

    /// The bytes at `range`; `None` when they were let go or not read yet.
    fn slice(&self, range: std::ops::Range<usize>) -> Option<&[u8]> {
        let start = range.start.checked_sub(self.base)?;
        let end = range.end.checked_sub(self.base)?;
        self.held.get(start..end)
    }

    /// Reads one more chunk; `false` at the end of the file or when it cannot be read.
    fn read_chunk(&mut self) -> bool {
        let start = self.held.len();
        self.held.resize(start + Self::CHUNK, 0);
        let read = self.file.read(&mut self.held[start..]).unwrap_or(0);
        self.held.truncate(start + read);
        read > 0
    }

    /// Reads the rest of the file; `None` when it cannot be read.
    fn read_to_end(&mut self) -> Option<()> {
        self.file.read_to_end(&mut self.held).ok().map(drop)
    }

    /// Where the first `needle` at or after `from` starts, reading on as far as it; `None` when
    /// the file ends first, cannot be read, or `from` was let go.
    fn find(&mut self, from: usize, needle: &[u8]) -> Option<usize> {
        let mut searched = from;
        loop {
            if let Some(at) = memchr::memmem::find(self.slice(searched..self.end())?, needle) {
                return Some(searched + at);
            }
            // A needle across the end of what was read starts in its last `needle.len() - 1`
            // bytes.
            searched = self.end().saturating_sub(needle.len() - 1).max(from);
            if !self.read_chunk() {
                return None;
            }
        }
    }

    /// Whether the file holds `prefix` at `at`, reading on as far as that; `None` when `at`
    /// was let go.
    fn starts_with(&mut self, at: usize, prefix: &[u8]) -> Option<bool> {
        while self.end() < at + prefix.len() && self.read_chunk() {}
        Some(self.slice(at..self.end())?.starts_with(prefix))
    }

    /// Lets go of what stands before `at`, once that is a chunk or more: moving the rest to the
    /// front then costs less than what it frees.
    fn let_go_before(&mut self, at: usize) {
        let passed = at.saturating_sub(self.base).min(self.held.len());
        if passed >= Self::CHUNK {
            self.held.drain(..passed);
            self.base += passed;
        }
    }
}

/// Parses the manifest once; an old or future manifest gets a version error, not a confusing
/// field error: when the parse fails, `manifestVersion` alone is read to tell which it is.
fn read_checked<T: DeserializeOwned>(
    path: &Path,
    version_of: impl Fn(&T) -> u32,
) -> Result<T, ManifestReadError> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct VersionOnly {
        manifest_version: u64,
    }
    let io = |source| ManifestReadError::Io {
        path: path.to_owned(),
        source,
    };
    let invalid = |source| ManifestReadError::Invalid {
        path: path.to_owned(),
        source,
    };
    let other_version = |found| ManifestReadError::Version {
        path: path.to_owned(),
        found,
    };
    let bytes = std::fs::read(path).map_err(io)?;
    match serde_json::from_slice::<T>(&bytes) {
        Ok(read) if version_of(&read) == MANIFEST_VERSION => Ok(read),
        Ok(read) => Err(other_version(u64::from(version_of(&read)))),
        Err(error) => {
            let version: VersionOnly = serde_json::from_slice(&bytes).map_err(invalid)?;
            if version.manifest_version == u64::from(MANIFEST_VERSION) {
                Err(invalid(error))
            } else {
                Err(other_version(version.manifest_version))
            }
        }
    }
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
