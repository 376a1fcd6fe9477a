//! The module's top-level bindings: imports, `const`s, functions and every other declaration.
//!
//! Entry call: [`TopLevel::collect`]. Invariant: a name resolves here exactly as it would in the
//! module scope, for every expression extraction reads.
//!
//! Why not `oxc_semantic`: everything extraction resolves (a definition's callee, schema
//! references, string consts in config values) is an expression evaluated in the module scope,
//! where only imports and top-level declarations can bind a name (redeclaring an import is a
//! syntax error), and extraction never descends into function bodies. Measured on 1,000 realistic
//! tool routes (1.5 MB, release build): read 3.9 ms, read + parse 11.2 ms, read + parse +
//! `SemanticBuilder` 14.6–18.6 ms. Semantic analysis would take 30–65 % on top of parsing, most of
//! the budget `abgen check` has (2× of read + parse) for everything else, to answer a question the
//! top-level statements answer exactly.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use oxc_ast::ast::{
    BindingPattern, Declaration, Expression, ImportDeclarationSpecifier, ImportOrExportKind,
    ModuleExportName, Program, Statement, VariableDeclarationKind,
};

use super::model::{Binding, BindingRef, ImportBinding};
use super::syntax::unwrap_expression;

/// A top-level `const` with a plain identifier and an initializer.
#[derive(Clone, Copy)]
pub struct ConstDeclaration<'a> {
    pub init: &'a Expression<'a>,
    pub exported: bool,
}

/// Every binding of the module scope.
#[derive(Default)]
pub struct TopLevel<'a> {
    pub imports: Vec<ImportBinding>,
    import_by_local: HashMap<&'a str, usize, NameHash>,
    /// `const` declarations, in source order.
    pub consts: Vec<(&'a str, ConstDeclaration<'a>)>,
    const_by_name: HashMap<&'a str, usize, NameHash>,
    /// Function declarations and `const`s initialized with a function: name → is async.
    functions: HashMap<&'a str, bool, NameHash>,
    /// Any other top-level binding (`let`, `var`, classes, destructured names, enums…).
    others: HashSet<&'a str, NameHash>,
}

/// The hasher of the scope's name maps: every identifier of a schema is looked up in them, and
/// SipHash (the default, built against flooding) was most of each look-up. A module's names only
/// slow down that module's own extraction, so a multiply-rotate hash (rustc's FxHash) will do.
type NameHash = BuildHasherDefault<NameHasher>;

#[derive(Default)]
struct NameHasher(u64);

impl NameHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl<'a> TopLevel<'a> {
    pub fn collect(program: &'a Program<'a>) -> Self {
        let mut top = Self::default();
        for statement in &program.body {
            match statement {
                Statement::ImportDeclaration(import) => top.add_import(import),
                Statement::ExportNamedDeclaration(_)
                | Statement::ExportFromDeclaration(_)
                | Statement::ExportAllDeclaration(_)
                | Statement::ExportDefaultDeclaration(_) => {}
                Statement::ExportDeclaration(export) => {
                    top.add_declaration(&export.declaration, true)
                }
                _ => {
                    if let Some(declaration) = statement.as_declaration() {
                        top.add_declaration(declaration, false);
                    }
                }
            }
        }
        top
    }

    /// What `name`, read in the module scope, refers to.
    pub fn resolve(&self, name: &str) -> Binding {
        if let Some(import) = self.import(name) {
            return Binding::Import {
                source: import.source.clone(),
                imported: import.imported.clone(),
            };
        }
        if self.const_by_name.contains_key(name) {
            return Binding::LocalConst {
                name: name.to_owned(),
            };
        }
        if self.functions.contains_key(name) || self.others.contains(name) {
            return Binding::Local;
        }
        Binding::Global
    }

    /// [`TopLevel::resolve`] as an index into the module's imports, for the schema arena.
    pub fn resolve_ref(&self, name: &str) -> BindingRef {
        if let Some(index) = self.import_by_local.get(name) {
            return BindingRef::import(*index);
        }
        if self.const_by_name.contains_key(name) {
            return BindingRef::LOCAL_CONST;
        }
        if self.functions.contains_key(name) || self.others.contains(name) {
            return BindingRef::LOCAL;
        }
        BindingRef::GLOBAL
    }

    pub fn import(&self, name: &str) -> Option<&ImportBinding> {
        self.import_by_local
            .get(name)
            .map(|index| &self.imports[*index])
    }

    pub fn const_declaration(&self, name: &str) -> Option<ConstDeclaration<'a>> {
        self.const_by_name
            .get(name)
            .map(|index| self.consts[*index].1)
    }

    /// `Some(is_async)` when `name` is a top-level function (declaration or `const f = () => …`).
    pub fn function(&self, name: &str) -> Option<bool> {
        self.functions.get(name).copied()
    }

    fn add_import(&mut self, import: &'a oxc_ast::ast::ImportDeclaration<'a>) {
        let Some(specifiers) = &import.specifiers else {
            return;
        };
        let source = import.source.value.as_str();
        let declaration_type_only = import.import_kind == ImportOrExportKind::Type;
        for specifier in specifiers {
            let (local, imported, type_only) = match specifier {
                ImportDeclarationSpecifier::ImportSpecifier(named) => (
                    named.local.name.as_str(),
                    export_name(&named.imported),
                    declaration_type_only || named.import_kind == ImportOrExportKind::Type,
                ),
                ImportDeclarationSpecifier::ImportDefaultSpecifier(default) => (
                    default.local.name.as_str(),
                    "default".to_owned(),
                    declaration_type_only,
                ),
                ImportDeclarationSpecifier::ImportNamespaceSpecifier(namespace) => (
                    namespace.local.name.as_str(),
                    "*".to_owned(),
                    declaration_type_only,
                ),
            };
            self.import_by_local.insert(local, self.imports.len());
            self.imports.push(ImportBinding {
                local: local.to_owned(),
                source: source.to_owned(),
                imported,
                type_only,
            });
        }
    }

    fn add_declaration(&mut self, declaration: &'a Declaration<'a>, exported: bool) {
        match declaration {
            Declaration::VariableDeclaration(variables) => {
                for declarator in &variables.declarations {
                    match (&declarator.id, &declarator.init) {
                        (BindingPattern::BindingIdentifier(id), Some(init))
                            if variables.kind == VariableDeclarationKind::Const =>
                        {
                            let name = id.name.as_str();
                            if let Some(is_async) = function_expression(init) {
                                self.functions.insert(name, is_async);
                            }
                            self.const_by_name.insert(name, self.consts.len());
                            self.consts
                                .push((name, ConstDeclaration { init, exported }));
                        }
                        (pattern, _) => self.others.extend(bound_names(pattern)),
                    }
                }
            }
            Declaration::FunctionDeclaration(function) => {
                if let Some(id) = &function.id {
                    self.functions.insert(id.name.as_str(), function.r#async);
                }
            }
            Declaration::ClassDeclaration(class) => {
                if let Some(id) = &class.id {
                    self.others.insert(id.name.as_str());
                }
            }
            Declaration::TSEnumDeclaration(enumeration) => {
                self.others.insert(enumeration.id.name.as_str());
            }
            Declaration::TSImportEqualsDeclaration(import) => {
                self.others.insert(import.id.name.as_str());
            }
            Declaration::TSNamespaceDeclaration(_)
            | Declaration::TSExternalModuleDeclaration(_)
            | Declaration::TSGlobalDeclaration(_)
            | Declaration::TSTypeAliasDeclaration(_)
            | Declaration::TSInterfaceDeclaration(_) => {}
        }
    }
}

/// `Some(is_async)` when the expression (casts unwrapped) is a function or arrow function.
pub fn function_expression(expression: &Expression<'_>) -> Option<bool> {
    match unwrap_expression(expression) {
        Expression::ArrowFunctionExpression(arrow) => Some(arrow.r#async),
        Expression::FunctionExpression(function) => Some(function.r#async),
        _ => None,
    }
}

/// The name a module export name spells (`default`, an identifier, or a string).
pub fn export_name(name: &ModuleExportName<'_>) -> String {
    name.name().as_str().to_owned()
}

/// Every name a binding pattern declares.
pub fn bound_names<'a>(pattern: &'a BindingPattern<'a>) -> Vec<&'a str> {
    let mut names = Vec::new();
    let mut pending = vec![pattern];
    while let Some(pattern) = pending.pop() {
        match pattern {
            BindingPattern::BindingIdentifier(id) => names.push(id.name.as_str()),
            BindingPattern::ObjectPattern(object) => {
                pending.extend(object.properties.iter().map(|property| &property.value));
                pending.extend(object.rest.iter().map(|rest| &rest.argument));
            }
            BindingPattern::ArrayPattern(array) => {
                pending.extend(array.elements.iter().flatten());
                pending.extend(array.rest.iter().map(|rest| &rest.argument));
            }
            BindingPattern::AssignmentPattern(assignment) => pending.push(&assignment.left),
        }
    }
    names
}
