//! The corpus of nesting forms the stack-safety tests generate: every production oxc recurses
//! on (brackets and right-recursive chains, in expressions, statements, types and JSX), the
//! texts that once hid nesting from the pre-scan, and the long flat forms oxc reads in a loop.
//!
//! A source is `prefix + open×n + middle + close×n + suffix`; forms of one [`Category`] take
//! the same middle, so they also nest inside one another, and in forms of other categories
//! through a bridge ([`nested_source`]).

/// Where a form's repetitions stand, and so which other forms they nest with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    Expression,
    Statement,
    Type,
    /// A form with its own context: repeated alone, never mixed.
    Alone,
}

/// Which file types a form belongs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Files {
    Any,
    /// TypeScript without JSX, where `<T>a` is an assertion.
    Ts,
    /// TSX, where `<a>` is an element.
    Tsx,
}

#[derive(Clone, Copy, Debug)]
pub struct Form {
    pub name: &'static str,
    pub category: Category,
    pub files: Files,
    /// oxc recurses once per repetition (so the pre-scan must count it); otherwise oxc reads
    /// the repetitions in a loop and any number of them parses.
    pub recursive: bool,
    pub open: &'static str,
    pub close: &'static str,
    /// The innermost part; for forms of a category, the category's.
    pub middle: &'static str,
    /// Around the repetitions; for forms of a category, the category's.
    pub prefix: &'static str,
    pub suffix: &'static str,
}

const fn nested(
    category: Category,
    files: Files,
    name: &'static str,
    open: &'static str,
    close: &'static str,
) -> Form {
    let (prefix, middle, suffix) = context(category);
    Form {
        name,
        category,
        files,
        recursive: true,
        open,
        close,
        middle,
        prefix,
        suffix,
    }
}

/// A recursive form with a context of its own.
const fn alone(
    name: &'static str,
    prefix: &'static str,
    open: &'static str,
    middle: &'static str,
    close: &'static str,
    suffix: &'static str,
) -> Form {
    Form {
        name,
        category: Category::Alone,
        files: Files::Any,
        recursive: true,
        open,
        close,
        middle,
        prefix,
        suffix,
    }
}

/// A form oxc reads in a loop: `prefix + open×n + suffix`.
const fn flat(
    name: &'static str,
    files: Files,
    prefix: &'static str,
    open: &'static str,
    suffix: &'static str,
) -> Form {
    Form {
        name,
        category: Category::Alone,
        files,
        recursive: false,
        open,
        close: "",
        middle: "",
        prefix,
        suffix,
    }
}

/// The prefix, middle and suffix every form of `category` shares.
pub const fn context(category: Category) -> (&'static str, &'static str, &'static str) {
    match category {
        // An async generator, so `await` and `yield` are both expressions here.
        Category::Expression => ("export async function* g() {\n  f = ", "a", ";\n}\n"),
        Category::Statement => ("", ";", "\n"),
        Category::Type => ("type A<T> = ", "T", ";\n"),
        Category::Alone => ("", "", ""),
    }
}

use Category::{Expression as E, Statement as S, Type as T};
use Files::{Any, Ts, Tsx};

pub const FORMS: &[Form] = &[
    // Expressions: prefix operators and keywords.
    nested(E, Any, "not", "!", ""),
    nested(E, Any, "minus", "- ", ""),
    nested(E, Any, "plus", "+ ", ""),
    nested(E, Any, "minus plus", "-+", ""),
    nested(E, Any, "bitwise not", "~", ""),
    nested(E, Any, "prefix increment", "++ ", ""),
    nested(E, Any, "typeof", "typeof ", ""),
    nested(E, Any, "void", "void ", ""),
    nested(E, Any, "delete", "delete ", ""),
    nested(E, Any, "await", "await ", ""),
    nested(E, Any, "yield", "yield ", ""),
    nested(E, Any, "yield star", "yield* ", ""),
    nested(E, Any, "new", "new ", ""),
    nested(E, Any, "spread", "[...", "]"),
    // Right-associative operators.
    nested(E, Any, "assignment", "a = ", ""),
    nested(E, Any, "compound assignment", "a += ", ""),
    nested(E, Any, "logical assignment", "a ??= ", ""),
    nested(E, Any, "exponent assignment", "a **= ", ""),
    nested(E, Any, "exponent", "a ** ", ""),
    nested(E, Any, "conditional else", "a ? b : ", ""),
    nested(E, Any, "conditional then", "a ? ", " : b"),
    nested(E, Any, "conditional before a decimal", "a ?.5 : ", ""),
    nested(E, Any, "arrow", "x => ", ""),
    nested(E, Any, "async arrow", "async x => ", ""),
    nested(E, Any, "parenthesized arrow", "() => ", ""),
    nested(E, Any, "arrow to object", "() => ({ a: ", " })"),
    nested(E, Any, "class heritage", "class extends ", " {}"),
    // Brackets.
    nested(E, Any, "parentheses", "(", ")"),
    nested(E, Any, "arrays", "[", "]"),
    nested(E, Any, "objects", "{ a: ", " }"),
    nested(E, Any, "templates", "`${", "}`"),
    nested(E, Any, "calls", "f(", ")"),
    nested(E, Any, "spread arguments", "f(...", ")"),
    nested(E, Any, "computed members", "a[", "]"),
    nested(E, Any, "optional calls", "a?.(", ")"),
    nested(E, Any, "new with arguments", "new a(", ")"),
    nested(E, Any, "dynamic imports", "import(", ")"),
    nested(E, Any, "functions", "function () { return ", " }"),
    // TypeScript and JSX expressions.
    nested(E, Ts, "type assertions", "<T>", ""),
    nested(E, Any, "generic calls", "f<A<", ">>()"),
    nested(E, Tsx, "jsx elements", "<a>", "</a>"),
    nested(E, Tsx, "jsx fragments", "<>", "</>"),
    nested(E, Tsx, "jsx attributes", "<a b=", " />"),
    nested(E, Tsx, "jsx expressions", "<a>{", "}</a>"),
    nested(E, Tsx, "jsx text with a quote", "<a>'", "</a>"),
    nested(E, Tsx, "jsx text with a semicolon", "<a>;", "</a>"),
    nested(E, Tsx, "jsx text with a comma", "<a>,", "</a>"),
    nested(E, Tsx, "jsx text with a comment", "<a>//", "</a>"),
    nested(E, Tsx, "jsx text with brackets", "<a>)]", "</a>"),
    nested(E, Tsx, "jsx attribute strings", "<a b=\"\\\" c={", "} />"),
    // Statements.
    nested(S, Any, "if", "if (a) ", ""),
    nested(S, Any, "else if blocks", "if (a) {} else ", ""),
    nested(S, Any, "else if statements", "if (a) f(); else ", ""),
    nested(
        S,
        Any,
        "else if without semicolons",
        "if (a) f()\nelse ",
        "",
    ),
    nested(S, Any, "dangling else", "if (a) ", " else f();"),
    nested(S, Any, "while", "while (a) ", ""),
    nested(S, Any, "do while", "do ", " while (a);"),
    nested(S, Any, "for", "for (;;) ", ""),
    nested(S, Any, "for in", "for (a in b) ", ""),
    nested(S, Any, "for of", "for (a of b) ", ""),
    nested(S, Any, "for await", "for await (a of b) ", ""),
    nested(S, Any, "with", "with (a) ", ""),
    nested(S, Any, "labels", "a: ", ""),
    nested(S, Any, "blocks", "{", "}"),
    nested(S, Any, "try", "try {", "} finally {}"),
    nested(S, Any, "switch", "switch (a) { case 1: ", " }"),
    nested(S, Any, "function declarations", "function f() {", "}"),
    nested(S, Any, "class methods", "class A { m() {", "} }"),
    nested(S, Any, "arrow statements", "f = () => { ", " };"),
    nested(S, Any, "namespaces", "namespace a {", "}"),
    // Types.
    nested(T, Any, "keyof", "keyof ", ""),
    nested(T, Any, "readonly", "readonly ", ""),
    nested(T, Any, "unique", "unique ", ""),
    nested(T, Any, "infer", "T extends infer U extends ", " ? 1 : 2"),
    nested(T, Any, "conditional type else", "T extends 1 ? 1 : ", ""),
    nested(T, Any, "conditional type then", "T extends 1 ? ", " : 2"),
    nested(T, Any, "type arguments", "A<", ">"),
    nested(T, Any, "type arguments after a comma", "A<B, ", ">"),
    nested(T, Any, "function types", "() => ", ""),
    nested(T, Any, "constructor types", "new () => ", ""),
    nested(
        T,
        Any,
        "abstract constructor types",
        "abstract new () => ",
        "",
    ),
    nested(T, Any, "type predicates", "(x: T) => x is ", ""),
    nested(T, Any, "generic function types", "<U>(x: U) => ", ""),
    nested(T, Any, "tuples", "[", "]"),
    nested(T, Any, "object types", "{ a: ", " }"),
    nested(T, Any, "parenthesized types", "(", ")"),
    nested(T, Any, "template types", "`${", "}`"),
    nested(T, Any, "mapped types", "{ [K in keyof T]: ", " }"),
    nested(T, Any, "nullable types", "?", ""),
    nested(T, Any, "non-nullable types", "!", ""),
    // Alone: forms with a context of their own.
    alone("dotted namespaces", "namespace a", ".a", " {}", "", "\n"),
    alone("exported negations", "export default ", "!", "a", "", ";\n"),
    alone(
        "commas in type arguments",
        "type A = ",
        "Map<B, ",
        "C",
        ">",
        ";\n",
    ),
    alone(
        "division after braces",
        "x = {} / ",
        "(",
        "a",
        ")",
        " / 2;\n",
    ),
    alone(
        "division after a function",
        "x = function () {} / ",
        "(",
        "a",
        ")",
        " / 2;\n",
    ),
    alone(
        "division after a contextual keyword",
        "let type = 1;\nx = type / ",
        "(",
        "a",
        ")",
        " / 2;\n",
    ),
    // Flat: oxc reads these in a loop, so any length parses and the pre-scan must accept it.
    flat("member chains", Any, "export const f = a", ".b", ";\n"),
    flat("optional chains", Any, "export const f = a", "?.b", ";\n"),
    flat("call chains", Any, "export const f = a", "()", ";\n"),
    flat(
        "generic call chains",
        Any,
        "export const f = a",
        "<T>()",
        ";\n",
    ),
    flat("tagged templates", Any, "export const f = a", "``", ";\n"),
    flat("non-null assertions", Any, "export const f = a", "!", ";\n"),
    flat("as chains", Any, "export const f = a", " as T", ";\n"),
    flat(
        "satisfies chains",
        Any,
        "export const f = a",
        " satisfies T",
        ";\n",
    ),
    flat("binary chains", Any, "export const f = a", " + a", ";\n"),
    flat(
        "mixed precedence",
        Any,
        "export const f = a",
        " || a && a | a ^ a & a == a << a + a * a",
        ";\n",
    ),
    flat(
        "string concatenation",
        Any,
        "export const f = 'a'",
        " + 'a'",
        ";\n",
    ),
    flat("sequences", Any, "export const f = (a", ", a", ");\n"),
    flat(
        "array elements",
        Any,
        "export const f = [a",
        ", [a]",
        "];\n",
    ),
    flat("statements", Any, "", "a = 1;\n", ""),
    flat("statements without semicolons", Any, "", "a = b => c\n", ""),
    flat("if statements", Any, "", "if (a) { b = 1 }\n", ""),
    flat("declarations", Any, "", "export const a = () => 1\n", ""),
    flat("decorators", Any, "", "@a ", "class A {}\n"),
    flat("unions", Any, "type A = B", " | B", ";\n"),
    flat("intersections", Any, "type A = B", " & B", ";\n"),
    flat("array types", Any, "type A = B", "[]", ";\n"),
    flat("indexed access types", Any, "type A = B", "[K]", ";\n"),
    flat("qualified names", Any, "type A = a", ".b", ";\n"),
    flat("type queries", Any, "type A = typeof a", ".b", ";\n"),
    flat(
        "jsx siblings",
        Tsx,
        "export const f = <ul>",
        "<li>x</li><br/>",
        "</ul>;\n",
    ),
    flat(
        "jsx text",
        Tsx,
        "export const f = <p>",
        "it's a (test); ok, // not a comment ",
        "</p>;\n",
    ),
];

/// `form` repeated `n` times.
pub fn source(form: &Form, n: usize) -> String {
    format!(
        "{}{}{}{}{}",
        form.prefix,
        form.open.repeat(n),
        form.middle,
        form.close.repeat(n),
        form.suffix
    )
}

/// The forms of `chain` one inside the other, outermost first, in the context of the first
/// one's category. Where the category changes, a bridge leads from one to the next (a
/// statement holds an expression as `f = …;`, an expression a statement as `() => { … }`, an
/// expression or statement a type as `(a as …)` or `type A<T> = …;`); nothing leads out of a
/// type, so an expression or statement form after a type form is left out.
pub fn nested_source(chain: &[&Form]) -> String {
    let Some(first) = chain.first() else {
        return String::new();
    };
    let (prefix, _, suffix) = context(first.category);
    let mut text = String::from(prefix);
    let mut closes: Vec<&str> = Vec::new();
    let mut current = first.category;
    for form in chain {
        if form.category != current {
            let Some((open, close)) = bridge(current, form.category) else {
                continue;
            };
            text.push_str(open);
            closes.push(close);
            current = form.category;
        }
        text.push_str(form.open);
        closes.push(form.close);
    }
    text.push_str(context(current).1);
    for close in closes.iter().rev() {
        text.push_str(close);
    }
    text.push_str(suffix);
    text
}

fn bridge(from: Category, to: Category) -> Option<(&'static str, &'static str)> {
    match (from, to) {
        (Category::Statement, Category::Expression) => Some(("f = ", ";")),
        (Category::Expression, Category::Statement) => Some(("() => { ", " }")),
        (Category::Expression, Category::Type) => Some(("(a as ", ")")),
        (Category::Statement, Category::Type) => Some(("type A<T> = ", ";")),
        _ => None,
    }
}

/// The path a form's source is read as: TSX unless it needs plain TypeScript.
pub fn path(form: &Form) -> &'static str {
    match form.files {
        Files::Ts => "src/mcp/demo/tools/search.ts",
        Files::Any | Files::Tsx => "src/mcp/demo/tools/search.tsx",
    }
}
