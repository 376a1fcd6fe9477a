//! What extraction learns about one module: plain owned data, produced inside the per-file
//! parallel task so that no later stage parses a file again.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Number, Value};

use crate::diagnostics::{Location, Span};

/// How a route module declares itself.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "form", rename_all = "kebab-case")]
pub enum RouteForm {
    /// `export default defineTool({...}, handler)` (the import may be aliased).
    DefineTool,
    /// `export default events.<family>.<event>({...}, handler)`; `event` is kebab-cased
    /// (`events.modelSwitch.before` → `model-switch/before`, `events.stop` → `stop`).
    DefineEvent { event: String },
    /// `export const config = {...}` (optional) + named schema exports + a default export.
    ConfigExport,
}

/// What the module's default export is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DefaultExport {
    #[default]
    Missing,
    AsyncFunction,
    /// A non-async function (declaration, expression or arrow).
    Function,
    /// A `defineTool(...)` / `events.*(...)` call recognised as [`RouteForm`].
    Definition,
    /// A re-export (`export { default } from './x'`) judged at run time.
    ReExport,
    /// Anything else (an identifier, another call, a literal, a class).
    Other,
}

/// One `import` binding of the module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImportBinding {
    /// The local name (`tool` in `import { defineTool as tool }`).
    pub local: String,
    /// The module specifier as written.
    pub source: String,
    /// The imported name: an export name, `default`, or `*` for a namespace import.
    pub imported: String,
    pub type_only: bool,
}

/// One static module request of the module: an `import` (a side-effect import included) or an
/// `export … from`, in source order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModuleRequest {
    /// The module specifier as written.
    pub specifier: String,
    /// Erased by TypeScript (`import type`, or every named specifier `type`): nothing is loaded.
    pub type_only: bool,
    /// Where the specifier's string literal stands.
    pub location: Location,
}

/// What a schema expression's identifier refers to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Binding {
    /// An import binding: `source` is the specifier, `imported` the export name (`*` for a namespace).
    Import { source: String, imported: String },
    /// A top-level `const` of this module, found in [`ExtractedModule::consts`] under `name`.
    LocalConst { name: String },
    /// A binding the extractor does not follow (a parameter, a `let`, a nested declaration).
    Local,
    /// No binding in the module (a global).
    Global,
}

/// Where a captured schema expression stands in its module's [`SchemaNodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ExprId(u32);

/// A name or string of a captured expression: a span of the module's source text when the
/// source spells it as is (an identifier, a string without escapes), else a range of the
/// arena's own text (an escape, a cooked template, a numeric key, a construct's name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Name {
    /// The start offset, with [`Name::OWNED`] set when it is an offset into the arena's text.
    start: u32,
    end: u32,
}

impl Name {
    const OWNED: u32 = 1 << 31;
}

/// What a captured identifier refers to, in one `u32` (a node stays at 24 bytes): an index
/// into [`ExtractedModule::imports`], an index into the arena's pairs with [`Self::RE_EXPORT`]
/// set (`export { inputSchema } from './x'`), or one of the three markers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BindingRef(u32);

impl BindingRef {
    const RE_EXPORT: u32 = 1 << 31;
    /// A top-level `const` of this module, named as the identifier is.
    pub const LOCAL_CONST: Self = Self(u32::MAX);
    /// A binding the extractor does not follow (a parameter, a `let`, a nested declaration).
    pub const LOCAL: Self = Self(u32::MAX - 1);
    /// No binding in the module (a global).
    pub const GLOBAL: Self = Self(u32::MAX - 2);

    /// The import binding at `index` of [`ExtractedModule::imports`].
    pub fn import(index: usize) -> Self {
        let index = u32::try_from(index).expect("fewer than 2^31 imports");
        assert!(index < Self::RE_EXPORT, "fewer than 2^31 imports");
        Self(index)
    }
}

/// One node of a captured expression; children are indices, lists are ranges of the arena's
/// link tables.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
enum NodeKind {
    Call {
        callee: ExprId,
        args: (u32, u32),
    },
    Member {
        object: ExprId,
        property: Name,
    },
    Ident {
        name: Name,
        binding: BindingRef,
    },
    String(Name),
    /// The bits of a finite `f64`, in two halves (a node stays 4-byte aligned).
    Number([u32; 2]),
    Bool(bool),
    Null,
    Object {
        properties: (u32, u32),
    },
    Array {
        items: (u32, u32),
    },
    /// The pair of `(pattern, flags)` at this index.
    Regex(u32),
    Unsupported(Name),
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
struct Node {
    kind: NodeKind,
    span: Span,
}

/// Every schema expression captured in one module, as an index arena: one `Vec` of nodes and
/// a few link tables per module instead of a `Box`, `Vec` or `String` per node, and names as
/// spans of the module's source text. Read through [`Expr`], which pairs it with that text.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SchemaNodes {
    nodes: Vec<Node>,
    /// Call arguments and array items.
    links: Vec<ExprId>,
    /// Object properties, in source order.
    properties: Vec<(Name, ExprId)>,
    /// Re-exports' `(specifier, imported name)` and regular expressions' `(pattern, flags)`.
    pairs: Vec<(Name, Name)>,
    /// Text no source span spells.
    text: String,
}

impl SchemaNodes {
    /// These nodes in vectors of exactly their lengths, leaving `self` empty with its capacity
    /// for the next module: the arenas of a project live until the end of the run, and one
    /// grown by doubling holds up to as much again unused, which shrinking it in place does not
    /// give back (the allocator keeps the block), while every module's growth from empty made
    /// it reallocate and copy again.
    pub(in crate::extract) fn take_compact(&mut self) -> SchemaNodes {
        let compact = SchemaNodes {
            nodes: self.nodes.as_slice().to_vec(),
            links: self.links.as_slice().to_vec(),
            properties: self.properties.as_slice().to_vec(),
            pairs: self.pairs.as_slice().to_vec(),
            text: self.text.as_str().to_owned(),
        };
        self.clear();
        compact
    }

    /// Empties these nodes, keeping their capacity for the next module.
    pub(in crate::extract) fn clear(&mut self) {
        self.nodes.clear();
        self.links.clear();
        self.properties.clear();
        self.pairs.clear();
        self.text.clear();
    }
}

/// Builds a module's [`SchemaNodes`]: the extractor's side of the arena.
pub(in crate::extract) struct NodeBuilder<'n, 's> {
    nodes: &'n mut SchemaNodes,
    /// The source text the parser read, whose addresses the AST's names point into.
    source: &'s str,
}

impl<'n, 's> NodeBuilder<'n, 's> {
    pub fn new(nodes: &'n mut SchemaNodes, source: &'s str) -> Self {
        Self { nodes, source }
    }

    fn push(&mut self, kind: NodeKind, span: Span) -> ExprId {
        let id = ExprId(u32::try_from(self.nodes.nodes.len()).expect("fewer than 2^32 nodes"));
        self.nodes.nodes.push(Node { kind, span });
        id
    }

    /// `text` as a [`Name`]: a span of the source when `text` is a slice of it (the parser's
    /// names and unescaped strings are), else a copy in the arena.
    pub fn name(&mut self, text: &str) -> Name {
        let base = self.source.as_ptr() as usize;
        let at = text.as_ptr() as usize;
        if at >= base && at + text.len() <= base + self.source.len() && !text.is_empty() {
            let start = u32::try_from(at - base).expect("a source under 2 GiB");
            let end = start + u32::try_from(text.len()).expect("a source under 2 GiB");
            if start < Name::OWNED && end < Name::OWNED {
                return Name { start, end };
            }
        }
        let start = self.nodes.text.len();
        self.nodes.text.push_str(text);
        let start = u32::try_from(start).expect("an arena text under 2 GiB");
        let end = u32::try_from(self.nodes.text.len()).expect("an arena text under 2 GiB");
        Name {
            start: start | Name::OWNED,
            end,
        }
    }

    pub fn call(&mut self, callee: ExprId, args: &[ExprId], span: Span) -> ExprId {
        let args = self.links(args);
        self.push(NodeKind::Call { callee, args }, span)
    }

    pub fn member(&mut self, object: ExprId, property: &str, span: Span) -> ExprId {
        let property = self.name(property);
        self.push(NodeKind::Member { object, property }, span)
    }

    pub fn ident(&mut self, name: &str, binding: BindingRef, span: Span) -> ExprId {
        let name = self.name(name);
        self.push(NodeKind::Ident { name, binding }, span)
    }

    /// An identifier naming what `export { imported } from 'source'` re-exports.
    pub fn re_export(&mut self, source: &str, imported: &str, span: Span) -> ExprId {
        let pair = (self.name(source), self.name(imported));
        let binding = BindingRef(self.pair(pair) | BindingRef::RE_EXPORT);
        self.push(
            NodeKind::Ident {
                name: pair.1,
                binding,
            },
            span,
        )
    }

    pub fn string(&mut self, value: &str, span: Span) -> ExprId {
        let value = self.name(value);
        self.push(NodeKind::String(value), span)
    }

    /// A finite number (the capture refuses the others).
    pub fn number(&mut self, value: f64, span: Span) -> ExprId {
        let bits = value.to_bits();
        let halves = [(bits >> 32) as u32, bits as u32];
        self.push(NodeKind::Number(halves), span)
    }

    pub fn boolean(&mut self, value: bool, span: Span) -> ExprId {
        self.push(NodeKind::Bool(value), span)
    }

    pub fn null(&mut self, span: Span) -> ExprId {
        self.push(NodeKind::Null, span)
    }

    pub fn object(&mut self, properties: &[(Name, ExprId)], span: Span) -> ExprId {
        let start = u32::try_from(self.nodes.properties.len()).expect("fewer than 2^32 properties");
        self.nodes.properties.extend_from_slice(properties);
        let properties = (
            start,
            u32::try_from(properties.len()).expect("fewer than 2^32"),
        );
        self.push(NodeKind::Object { properties }, span)
    }

    pub fn array(&mut self, items: &[ExprId], span: Span) -> ExprId {
        let items = self.links(items);
        self.push(NodeKind::Array { items }, span)
    }

    pub fn regex(&mut self, pattern: &str, flags: &str, span: Span) -> ExprId {
        let pair = (self.name(pattern), self.name(flags));
        let index = self.pair(pair);
        self.push(NodeKind::Regex(index), span)
    }

    fn pair(&mut self, pair: (Name, Name)) -> u32 {
        let index = u32::try_from(self.nodes.pairs.len()).expect("fewer than 2^31 pairs");
        assert!(index < BindingRef::RE_EXPORT, "fewer than 2^31 pairs");
        self.nodes.pairs.push(pair);
        index
    }

    pub fn unsupported(&mut self, construct: &str, span: Span) -> ExprId {
        let construct = self.name(construct);
        self.push(NodeKind::Unsupported(construct), span)
    }

    fn links(&mut self, ids: &[ExprId]) -> (u32, u32) {
        let start = u32::try_from(self.nodes.links.len()).expect("fewer than 2^32 links");
        self.nodes.links.extend_from_slice(ids);
        (
            start,
            u32::try_from(ids.len()).expect("fewer than 2^32 links"),
        )
    }
}

/// A captured expression read with its module's source text: what translation walks.
#[derive(Clone, Copy)]
pub struct Expr<'m> {
    module: &'m ExtractedModule,
    source: &'m str,
    id: ExprId,
}

/// What a binding a captured identifier names is, borrowed from its module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingView<'m> {
    /// An import binding (or a re-export): `source` is the specifier, `imported` the export
    /// name (`*` for a namespace).
    Import {
        source: &'m str,
        imported: &'m str,
    },
    /// A top-level `const` of this module, found in [`ExtractedModule::consts`] under `name`.
    LocalConst {
        name: &'m str,
    },
    Local,
    Global,
}

/// A literal written in a schema expression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal<'m> {
    String(&'m str),
    Number(f64),
    Bool(bool),
    Null,
}

impl Literal<'_> {
    pub fn value(&self) -> Value {
        match *self {
            Literal::String(text) => Value::String(text.to_owned()),
            // Integral values within 2^53 are integers (`-0` is `0`); the capture keeps only
            // finite numbers.
            Literal::Number(value) if value.fract() == 0.0 && value.abs() <= MAX_SAFE => {
                Value::Number(Number::from(value as i64))
            }
            Literal::Number(value) => Number::from_f64(value).map_or(Value::Null, Value::Number),
            Literal::Bool(value) => Value::Bool(value),
            Literal::Null => Value::Null,
        }
    }
}

/// 2^53 − 1, the largest integer a JavaScript number holds exactly.
pub(crate) const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// The shapes of a captured expression, as translation matches on them.
#[derive(Clone, Copy)]
pub enum ExprKind<'m> {
    /// `callee(args…)`; a method call has an [`ExprKind::Member`] callee.
    Call {
        callee: Expr<'m>,
        args: Exprs<'m>,
    },
    /// `object.property` (also `object['property']` with a literal key).
    Member {
        object: Expr<'m>,
        property: &'m str,
    },
    Ident {
        name: &'m str,
        binding: BindingView<'m>,
    },
    /// A string, number, boolean or null literal (casts unwrapped).
    Literal(Literal<'m>),
    /// An object literal with static keys, in source order.
    Object {
        properties: Properties<'m>,
    },
    Array {
        items: Exprs<'m>,
    },
    Regex {
        pattern: &'m str,
        flags: &'m str,
    },
    /// Anything outside the grammar above (a function, a spread, a template with
    /// substitutions…), named as a user would read it (`a function expression`).
    Unsupported {
        construct: &'m str,
    },
}

impl<'m> Expr<'m> {
    #[inline]
    fn node(&self) -> &'m Node {
        &self.module.schemas.nodes[self.id.0 as usize]
    }

    #[inline]
    fn at(&self, id: ExprId) -> Expr<'m> {
        Expr { id, ..*self }
    }

    #[inline]
    fn text(&self, name: Name) -> &'m str {
        let range = (name.start & !Name::OWNED) as usize..name.end as usize;
        let text = if name.start & Name::OWNED != 0 {
            &self.module.schemas.text
        } else {
            self.source
        };
        text.get(range).unwrap_or_default()
    }

    #[inline]
    pub fn span(&self) -> Span {
        self.node().span
    }

    #[inline(always)]
    pub fn kind(&self) -> ExprKind<'m> {
        let schemas = &self.module.schemas;
        match self.node().kind {
            NodeKind::Call { callee, args } => ExprKind::Call {
                callee: self.at(callee),
                args: Exprs {
                    at: *self,
                    ids: &schemas.links[range(args)],
                },
            },
            NodeKind::Member { object, property } => ExprKind::Member {
                object: self.at(object),
                property: self.text(property),
            },
            NodeKind::Ident { name, binding } => ExprKind::Ident {
                name: self.text(name),
                binding: self.binding(name, binding),
            },
            NodeKind::String(value) => ExprKind::Literal(Literal::String(self.text(value))),
            NodeKind::Number([high, low]) => {
                let value = f64::from_bits((u64::from(high) << 32) | u64::from(low));
                ExprKind::Literal(Literal::Number(value))
            }
            NodeKind::Bool(value) => ExprKind::Literal(Literal::Bool(value)),
            NodeKind::Null => ExprKind::Literal(Literal::Null),
            NodeKind::Object { properties } => ExprKind::Object {
                properties: Properties {
                    at: *self,
                    entries: &schemas.properties[range(properties)],
                },
            },
            NodeKind::Array { items } => ExprKind::Array {
                items: Exprs {
                    at: *self,
                    ids: &schemas.links[range(items)],
                },
            },
            NodeKind::Regex(index) => {
                let (pattern, flags) = schemas.pairs[index as usize];
                ExprKind::Regex {
                    pattern: self.text(pattern),
                    flags: self.text(flags),
                }
            }
            NodeKind::Unsupported(construct) => ExprKind::Unsupported {
                construct: self.text(construct),
            },
        }
    }

    #[inline]
    fn binding(&self, name: Name, binding: BindingRef) -> BindingView<'m> {
        match binding {
            BindingRef::LOCAL_CONST => BindingView::LocalConst {
                name: self.text(name),
            },
            BindingRef::LOCAL => BindingView::Local,
            BindingRef::GLOBAL => BindingView::Global,
            BindingRef(index) if index & BindingRef::RE_EXPORT != 0 => {
                let (source, imported) =
                    self.module.schemas.pairs[(index & !BindingRef::RE_EXPORT) as usize];
                BindingView::Import {
                    source: self.text(source),
                    imported: self.text(imported),
                }
            }
            BindingRef(index) => match self.module.imports.get(index as usize) {
                Some(import) => BindingView::Import {
                    source: &import.source,
                    imported: &import.imported,
                },
                None => BindingView::Global,
            },
        }
    }

    /// Whether this is an identifier (a reference to follow).
    #[inline]
    pub fn is_ident(&self) -> bool {
        matches!(self.node().kind, NodeKind::Ident { .. })
    }

    /// Whether this is a member access (`a.b`).
    #[inline]
    pub fn is_member(&self) -> bool {
        matches!(self.node().kind, NodeKind::Member { .. })
    }

    /// Whether this is a construct outside the captured grammar.
    #[inline]
    pub fn is_unsupported(&self) -> bool {
        matches!(self.node().kind, NodeKind::Unsupported(_))
    }
}

fn range((start, len): (u32, u32)) -> std::ops::Range<usize> {
    start as usize..(start + len) as usize
}

/// A call's arguments or an array's items.
#[derive(Clone, Copy)]
pub struct Exprs<'m> {
    at: Expr<'m>,
    ids: &'m [ExprId],
}

impl<'m> Exprs<'m> {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    #[inline]
    pub fn get(&self, index: usize) -> Option<Expr<'m>> {
        self.ids.get(index).map(|id| self.at.at(*id))
    }

    #[inline]
    pub fn first(&self) -> Option<Expr<'m>> {
        self.get(0)
    }

    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = Expr<'m>> + 'm {
        let at = self.at;
        self.ids.iter().map(move |id| at.at(*id))
    }
}

/// An object literal's properties, in source order.
#[derive(Clone, Copy)]
pub struct Properties<'m> {
    at: Expr<'m>,
    entries: &'m [(Name, ExprId)],
}

impl<'m> Properties<'m> {
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = (&'m str, Expr<'m>)> + 'm {
        let at = self.at;
        self.entries
            .iter()
            .map(move |(key, id)| (at.text(*key), at.at(*id)))
    }
}

/// A top-level `const` whose initializer was captured as a schema expression.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConstBinding {
    pub exported: bool,
    pub init: ExprId,
}

/// Everything extraction learns about one source module.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ExtractedModule {
    /// Project-relative, `/`-separated path.
    pub path: String,
    /// `None` when the module declares itself in no recognised form.
    pub form: Option<RouteForm>,
    /// The static options object (the `defineTool` / `events.*` first argument or the
    /// `config` export) without `inputSchema`/`resultSchema`. Empty when absent or rejected.
    /// Shared with the route graph's node of the module, which reads it as it is.
    pub config: Arc<Map<String, Value>>,
    /// Where every value of `config` was written, keyed by JSON Pointer (`/resourceUri`,
    /// `/tools/0`), for diagnostics of later stages.
    pub config_locations: BTreeMap<String, Location>,
    /// Where the definition call or `config` export stands.
    pub definition_location: Option<Location>,
    /// The captured `inputSchema` expression; `None` when the route declares none, or when
    /// the module's schema nodes were released (`input_presence` still says what it was).
    pub input_schema: Option<ExprId>,
    /// The captured `resultSchema` expression, as `input_schema`.
    pub result_schema: Option<ExprId>,
    /// What `input_schema` is at its root, kept when the schema nodes are released.
    pub input_presence: SchemaPresence,
    /// What `result_schema` is at its root, kept when the schema nodes are released.
    pub result_presence: SchemaPresence,
    /// Every captured schema expression of the module (`input_schema`, `result_schema` and
    /// `consts` index into it), its names spans of the module's source text. Empty, with
    /// `input_schema`, `result_schema` and `consts`, once released
    /// ([`crate::extract::extract_module_then`]).
    pub schemas: SchemaNodes,
    /// Top-level `const`s whose initializers are captured (for schema references).
    pub consts: BTreeMap<String, ConstBinding>,
    pub imports: Vec<ImportBinding>,
    /// Every static `import` and `export … from`, in source order.
    pub requests: Vec<ModuleRequest>,
    /// Names of the module's named exports, sorted (`default` excluded).
    pub exports: Vec<String>,
    pub default_export: DefaultExport,
    /// The module opens with a `'use client'` directive.
    pub use_client: bool,
}

impl ExtractedModule {
    /// The captured expression `id`, read with `source`, the text this module was extracted
    /// from.
    #[inline]
    pub fn expr<'m>(&'m self, source: &'m str, id: ExprId) -> Expr<'m> {
        Expr {
            module: self,
            source,
            id,
        }
    }

    /// Reads what the schema expressions are at their roots into `input_presence` and
    /// `result_presence` (the kind of a node needs no name, so no source text).
    pub(in crate::extract) fn read_presence(&mut self) {
        let presence = |schema: Option<ExprId>| match schema.map(|id| self.expr("", id)) {
            None => SchemaPresence::Absent,
            Some(expression) if expression.is_ident() => SchemaPresence::Reference,
            Some(expression) if expression.is_unsupported() => SchemaPresence::Unsupported,
            Some(_) => SchemaPresence::Expression,
        };
        let (input, result) = (presence(self.input_schema), presence(self.result_schema));
        self.input_presence = input;
        self.result_presence = result;
    }

    /// Drops every captured schema expression, leaving `input_presence` and `result_presence`:
    /// for a caller that has read all it needs of them while the module was extracted.
    pub(in crate::extract) fn release_schema_nodes(&mut self) {
        self.schemas = SchemaNodes::default();
        self.input_schema = None;
        self.result_schema = None;
        self.consts.clear();
    }
}

/// Whether a route declares a schema, and as what kind of expression.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchemaPresence {
    #[default]
    Absent,
    /// An inline expression (a zod call chain, a literal).
    Expression,
    /// An identifier naming a const or an import, resolved by the schema stage.
    Reference,
    /// An expression outside the static grammar.
    Unsupported,
}

#[cfg(test)]
mod tests {
    use super::Node;

    /// Every node of a captured expression is as large as the largest variant, and a project's
    /// arenas live until the end of the run: a variant growing past this makes `check` touch
    /// more memory.
    #[test]
    fn a_schema_node_stays_small() {
        assert!(
            std::mem::size_of::<Node>() <= 24,
            "a schema node is {} bytes",
            std::mem::size_of::<Node>()
        );
    }
}
