//! A lexical pre-scan that bounds how deeply a source nests before oxc sees it.
//!
//! oxc's parser is recursive descent with no depth limit: every bracket, and every step of a
//! right-recursive production (`!!!a`, `a = a = a`, `a ** a ** a`, `if (a) if (a) …`,
//! `else if` chains, labels, `keyof keyof T`), is one more frame. A hostile or generated file
//! would overflow the stack: a crash no diagnostic can report. Entry call: [`nesting_overflow`].
//! Invariant: a source it accepts nests at most [`MAX_NESTING`] levels, which oxc parses within
//! 2 MiB of stack (tested on every form of `tests/deep_forms.rs`), a small part of
//! [`crate::stack::PARSE_STACK`] (the sizes per level are measured there).
//!
//! The estimate is a conservative count over tokens, not a parse. Levels: every `(`, `[`, `{`,
//! template literal and substitution, type-argument `<`, and JSX element. Chains, each one level
//! until the next `;` or `,` of its bracket level or the start of the next statement: a prefix
//! operator where an operand is expected (`!`, `~`, `+`, `-`, `++`, `--`, `...`, a `<T>`
//! assertion), the prefix keywords (`typeof`, `void`, `delete`, `await`, `new`, `yield`, `keyof`,
//! `readonly`, `unique`, `infer`, `extends`), assignment operators, `**`, `=>`, a ternary or
//! conditional-type `?`, the statement heads (`if`, `while`, `for`, `with`, `do`), `return` and
//! `throw` (a function body costs oxc more than any other level, so its statement counts too),
//! labels, and
//! each `.` of a `namespace a.b.c` name. `else` links count apart, surviving the `;` that ends
//! each branch, until a statement that is not an `else` starts. Strings, comments, regular
//! expressions and JSX text are skipped; where a `/` may start a regular expression or divide
//! (after `}` or a contextual keyword), its text is also read as code, and a `<` read as JSX
//! whose text turns out to be code (`<T>(x: T) => T`) is read again as code. What the model
//! misses is still bounded by the parse stack, which takes tens of thousands of levels of any
//! production.
//!
//! Most files never reach the scan: [`nesting_bound`] counts, without the scan's state, every
//! byte and keyword that may open a level or take a chain step, and a file whose count is
//! within [`MAX_NESTING`] cannot nest deeper (a test holds the count above the scan's on every
//! form of `tests/deep_forms.rs` and on random token soups).

/// The deepest nesting the extractor parses; deeper sources get AB5300 without being parsed.
pub const MAX_NESTING: usize = 500;

/// The byte offset where `source` first nests deeper than [`MAX_NESTING`], if it does; `jsx`
/// says whether `<` in operand position starts a JSX element (`.tsx`, `.jsx`) or a type
/// assertion (`.ts`).
pub fn nesting_overflow(source: &str, jsx: bool) -> Option<u32> {
    // Every level or chain step starts at a distinct byte, so a shorter source cannot overflow;
    // nor can one with too few bytes that start a level or a step (most files: a route of a
    // few kilobytes has a few hundred), which costs a fraction of the scan to count.
    if source.len() <= MAX_NESTING || nesting_bound(source.as_bytes()) <= MAX_NESTING {
        return None;
    }
    overflow_beyond(source, jsx, MAX_NESTING)
}

/// Where `source` first nests deeper than `limit`, by the full count.
pub(in crate::extract) fn overflow_beyond(source: &str, jsx: bool, limit: usize) -> Option<u32> {
    let mut scan = Scan {
        bytes: source.as_bytes(),
        jsx,
        limit,
        i: 0,
        levels: vec![Level::new(LevelKind::Root)],
        chains: 0,
        last: Last::Start,
        expect_operand: true,
        namespace_name: false,
        no_jsx_until: 0,
    };
    scan.run()
        .map(|offset| u32::try_from(offset).unwrap_or(u32::MAX))
}

/// A depth no nesting of `bytes` can exceed, counted without the scan's state: the root level,
/// and one for every byte that may open a level or take a chain step by itself (`(`, `[`, `{`,
/// a backtick, `<`, the prefix operators, `?`, `=`, `*`, a label's `:`), every word that may
/// (a chaining keyword, `else`), every `...` (at most a third of the dots), and every dot once
/// `namespace` or `module` appears. Each level and step of [`Scan`] starts at a distinct one of
/// those (it re-reads text only after dropping what the first reading counted), and bytes of
/// strings, comments and JSX text are counted too, so this never falls below the scan's count.
///
/// Every file is counted, so the count reads 64 bytes at a time: each byte's classes are
/// comparisons the compiler turns into vector instructions, packed into one bit per byte, and
/// only the words that start with the initial of a counted word are looked at one by one. A
/// branch on each byte's class, the form before, mispredicted at nearly every word's start and
/// end: `abgen check` of 1,000 routes took 16% more CPU time with it.
pub(in crate::extract) fn nesting_bound(bytes: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return nesting_bound_avx2(bytes);
    }
    count_bound(bytes)
}

/// [`count_bound`] compiled for AVX2, whose comparisons take 32 bytes at a time where the
/// baseline x86-64 takes 16: the classes of a block cost half the instructions.
#[cfg(target_arch = "x86_64")]
#[expect(
    unsafe_code,
    reason = "a function compiled for a CPU feature may only be called where the feature is \
              known to be there"
)]
fn nesting_bound_avx2(bytes: &[u8]) -> usize {
    #[target_feature(enable = "avx2")]
    fn compiled_for_avx2(bytes: &[u8]) -> usize {
        count_bound(bytes)
    }
    // SAFETY: the only caller, `nesting_bound`, detected AVX2 on this CPU first.
    unsafe { compiled_for_avx2(bytes) }
}

/// [`nesting_bound`], inlined into each of its compilations.
#[inline(always)]
fn count_bound(bytes: &[u8]) -> usize {
    let mut steps = 0;
    let mut dots = 0;
    let mut dotted_names = false;
    // Whether the last byte of the previous block was a word byte: a word it ends starts there.
    let mut word_before = 0;
    let mut last = [0; BLOCK];
    for (index, chunk) in bytes.chunks(BLOCK).enumerate() {
        let block: &[u8; BLOCK] = match chunk.try_into() {
            Ok(block) => block,
            // The last, shorter block, padded with bytes that belong to no class.
            Err(_) => {
                last[..chunk.len()].copy_from_slice(chunk);
                &last
            }
        };
        let classes = BlockClasses::of(block);
        steps += classes.opens;
        dots += classes.dots;
        let offset = index * BLOCK;
        let mut candidates = classes.counted_initials & !(classes.words << 1 | word_before);
        word_before = classes.words >> (BLOCK - 1);
        while candidates != 0 {
            let at = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            let run = (!(classes.words >> at)).trailing_zeros() as usize;
            let start = offset + at;
            // A word that reaches the block's end may go on in the next one.
            let len = if at + run < BLOCK {
                run
            } else {
                skip_word(&bytes[..bytes.len().min(start + LONGEST_WORD + 1)], start) - start
            };
            let word = bound_word(bytes, start, len);
            steps += usize::from(word == BoundWord::Counted);
            dotted_names |= word == BoundWord::DottedNames;
        }
    }
    1 + steps + if dotted_names { dots } else { dots / 3 }
}

/// The bytes [`nesting_bound`] reads at a time: one bit each in a `u64`.
const BLOCK: usize = 64;

/// The longest word [`bound_word`] knows (`namespace`).
const LONGEST_WORD: usize = 9;

/// One block's bytes by class, for [`nesting_bound`]: one bit per byte in each mask.
struct BlockClasses {
    /// Bytes of words ([`is_word_byte`]).
    words: u64,
    /// Bytes that a counted word may start with: the initials of the chaining keywords, `else`,
    /// `namespace` and `module`.
    counted_initials: u64,
    /// `(`, `[`, `{`, a backtick, `<`, `!`, `~`, `+`, `-`, `?`, `=`, `*` and `:`: each one level or
    /// chain step at most.
    opens: usize,
    dots: usize,
}

impl BlockClasses {
    #[inline(always)]
    fn of(block: &[u8; BLOCK]) -> BlockClasses {
        // One byte per byte of the block, 0 or 1, written without branches so that the loops
        // compile to vector comparisons; packed into bits below.
        let mut words = [0u8; BLOCK];
        let mut counted_initials = [0u8; BLOCK];
        let mut opens = 0u8;
        let mut dots = 0u8;
        for (at, &byte) in block.iter().enumerate() {
            words[at] = u8::from(is_word_byte(byte));
            counted_initials[at] = u8::from(is_counted_initial(byte));
            opens += u8::from(opens_by_itself(byte));
            dots += u8::from(byte == b'.');
        }
        BlockClasses {
            words: pack_bits(&words),
            counted_initials: pack_bits(&counted_initials),
            opens: usize::from(opens),
            dots: usize::from(dots),
        }
    }
}

/// Bit `i` set where `flags[i]` is 1 (every flag is 0 or 1).
#[inline(always)]
fn pack_bits(flags: &[u8; BLOCK]) -> u64 {
    let (eights, _) = flags.as_chunks::<8>();
    let mut bits = 0;
    for (index, eight) in eights.iter().enumerate() {
        // The multiplication moves the low bit of byte `k` to bit `56 + k`, and no sum of the
        // other products reaches those bits.
        let packed = u64::from_le_bytes(*eight).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        bits |= packed << (8 * index);
    }
    bits
}

/// `(`, `[`, `{`, a backtick, `<`, `!`, `~`, `+`, `-`, `?`, `=`, `*` or `:`: a byte that may open a
/// level or take a chain step by itself.
#[inline(always)]
fn opens_by_itself(byte: u8) -> bool {
    (byte == b'(')
        | (byte == b'[')
        | (byte == b'{')
        | (byte == b'`')
        | (byte == b'<')
        | (byte == b'!')
        | (byte == b'~')
        | (byte == b'+')
        | (byte == b'-')
        | (byte == b'?')
        | (byte == b'=')
        | (byte == b'*')
        | (byte == b':')
}

/// Whether a word [`bound_word`] counts may start with `byte`: the initials of [`BOUND_WORDS`],
/// spelled as comparisons rather than read from a table built from it, since a table look-up
/// per byte does not vectorise (a test holds every initial of the list here).
#[inline(always)]
fn is_counted_initial(byte: u8) -> bool {
    (byte == b'a')
        | (byte == b'd')
        | (byte == b'e')
        | (byte == b'f')
        | (byte == b'i')
        | (byte == b'k')
        | (byte == b'm')
        | (byte == b'n')
        | (byte == b'r')
        | (byte == b't')
        | (byte == b'u')
        | (byte == b'v')
        | (byte == b'w')
        | (byte == b'y')
}

/// What a whole word is to [`nesting_bound`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BoundWord {
    /// A chaining keyword ([`classify`]) or `else`: one step.
    Counted,
    /// `namespace` or `module`: every dot may then take a step.
    DottedNames,
    Other,
}

/// The words [`bound_word`] knows: every chaining keyword of [`classify`] and `else` (a test
/// holds the list to `classify`), then `namespace` and `module`.
const BOUND_WORDS: [(&[u8], BoundWord); 21] = {
    use BoundWord::{Counted, DottedNames};
    [
        (b"if", Counted),
        (b"do", Counted),
        (b"new", Counted),
        (b"for", Counted),
        (b"void", Counted),
        (b"with", Counted),
        (b"else", Counted),
        (b"await", Counted),
        (b"yield", Counted),
        (b"keyof", Counted),
        (b"infer", Counted),
        (b"while", Counted),
        (b"throw", Counted),
        (b"typeof", Counted),
        (b"delete", Counted),
        (b"unique", Counted),
        (b"return", Counted),
        (b"extends", Counted),
        (b"readonly", Counted),
        (b"namespace", DottedNames),
        (b"module", DottedNames),
    ]
};

/// [`BOUND_WORDS`] by length and initial, which no two of them share: each one's first eight
/// bytes as a little-endian number (the ninth, of `namespace`, is checked apart; an empty
/// slot's 0 matches no word, which starts with a letter).
static BOUND_WORDS_BY_SHAPE: [[(u64, BoundWord); 26]; LONGEST_WORD + 1] = {
    let mut table = [[(0, BoundWord::Other); 26]; LONGEST_WORD + 1];
    let mut index = 0;
    while index < BOUND_WORDS.len() {
        let (word, what) = BOUND_WORDS[index];
        let slot = &mut table[word.len()][(word[0] - b'a') as usize];
        assert!(matches!(slot.1, BoundWord::Other), "two words of one shape");
        *slot = (first_eight(word), what);
        index += 1;
    }
    table
};

/// The first eight bytes of `word` (fewer when it is shorter) as a little-endian number.
const fn first_eight(word: &[u8]) -> u64 {
    let mut number = 0;
    let mut index = 0;
    while index < word.len() && index < 8 {
        number |= (word[index] as u64) << (8 * index);
        index += 1;
    }
    number
}

/// What the word of `len` bytes at `start` of `source` is to [`nesting_bound`].
fn bound_word(source: &[u8], start: usize, len: usize) -> BoundWord {
    let Some(row) = BOUND_WORDS_BY_SHAPE.get(len) else {
        return BoundWord::Other;
    };
    let Some(&(expected, what)) = row.get(usize::from(source[start].wrapping_sub(b'a'))) else {
        return BoundWord::Other;
    };
    // Eight bytes read at once where the source has them, the word's own kept.
    let eight = match source[start..].first_chunk::<8>() {
        Some(eight) => u64::from_le_bytes(*eight),
        None => first_eight(&source[start..]),
    };
    let first = if len >= 8 {
        eight
    } else {
        eight & ((1 << (8 * len)) - 1)
    };
    let ninth_matches = len <= 8 || source[start + 8] == b'e';
    if first == expected && ninth_matches {
        what
    } else {
        BoundWord::Other
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LevelKind {
    Root,
    /// `(`, `[` or `{`; the byte that closes it.
    Bracket(u8),
    /// A template literal's text.
    Template,
    /// `${ … }` inside a template literal.
    Substitution,
    /// A type-argument or type-parameter list, or a `<` comparison: closed by `>`, or dropped
    /// by the `;` or closing bracket of its enclosing level. `prefix` marks a `<T>` assertion,
    /// which recurses into its operand.
    Angle {
        prefix: bool,
    },
    /// A JSX opening tag, up to its `>` or `/>`.
    JsxTag,
    /// A JSX element's children, up to its closing tag.
    JsxChildren,
}

#[derive(Clone, Copy, Debug)]
struct Level {
    kind: LevelKind,
    /// Right-recursive steps seen in this level since its last `;`, `,` or statement start.
    chain: usize,
    /// `else` links of an `if` chain in this level.
    else_chain: usize,
    /// A `(` that holds the head of `if`, `while`, `for` or `with`: its `)` starts a statement.
    statement_head: bool,
    /// Where a JSX level's text starts: after the tag's name, or after the opening tag.
    start: usize,
}

impl Level {
    fn new(kind: LevelKind) -> Self {
        Self {
            kind,
            chain: 0,
            else_chain: 0,
            statement_head: false,
            start: 0,
        }
    }
}

/// The previous significant token, as far as the counting rules need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Last {
    Start,
    /// `;`.
    Semicolon,
    /// A `}` that closed a block or object.
    CloseBrace,
    /// The `)` of a statement head (`if (…)`), after which a statement starts.
    HeadClose,
    /// The `:` of a label.
    LabelColon,
    /// A word: its text decides (`else`, `do`, `for`).
    Word,
    Other,
}

/// What a word means to the counting rules; plain identifiers mean nothing.
#[derive(Clone, Copy, Debug, Default)]
struct WordClass {
    /// An operand or a declared name follows (so a `/` starts a regular expression, and a word
    /// does not start a new statement).
    operand_follows: bool,
    /// The keyword recurses into what follows it.
    chains: bool,
    /// The word continues an expression after an operand; any other word there starts a
    /// statement.
    infix: bool,
}

/// One `match` rather than list lookups: most words are identifiers, and this is the scan's
/// hottest path.
fn classify(word: &[u8]) -> WordClass {
    const fn class(operand_follows: bool, chains: bool, infix: bool) -> WordClass {
        WordClass {
            operand_follows,
            chains,
            infix,
        }
    }
    // Every keyword is 2 to 10 lowercase letters.
    if !(2..=10).contains(&word.len()) || !word[0].is_ascii_lowercase() {
        return WordClass::default();
    }
    match word {
        b"typeof" | b"void" | b"delete" | b"await" | b"new" | b"yield" | b"readonly"
        | b"unique" | b"if" | b"for" | b"with" | b"do" | b"return" | b"throw" => {
            class(true, true, false)
        }
        b"extends" | b"keyof" | b"infer" | b"while" => class(true, true, true),
        b"in" | b"instanceof" | b"as" | b"satisfies" | b"of" | b"is" | b"else" | b"catch"
        | b"finally" | b"implements" | b"from" | b"asserts" => class(true, false, true),
        b"case" | b"default" | b"export" | b"function" | b"class" | b"async" | b"let"
        | b"const" | b"var" | b"type" | b"interface" | b"enum" | b"namespace" | b"module"
        | b"declare" | b"abstract" | b"import" | b"static" | b"get" | b"set" | b"accessor"
        | b"override" | b"public" | b"private" | b"protected" | b"break" | b"continue"
        | b"switch" | b"try" => class(true, false, false),
        _ => WordClass::default(),
    }
}

struct Scan<'s> {
    bytes: &'s [u8],
    jsx: bool,
    /// The deepest nesting accepted: [`MAX_NESTING`], or another in tests.
    limit: usize,
    i: usize,
    levels: Vec<Level>,
    /// The sum of every level's `chain` and `else_chain`.
    chains: usize,
    last: Last,
    /// The last word, when `last` is [`Last::Word`].
    expect_operand: bool,
    /// Inside the dotted name of `namespace a.b.c`, where each `.` nests one declaration.
    namespace_name: bool,
    /// Up to this offset a `<` starts no JSX element: the text is being read again as code.
    no_jsx_until: usize,
}

impl Scan<'_> {
    fn run(&mut self) -> Option<usize> {
        let mut last_word: &[u8] = b"";
        while self.i < self.bytes.len() {
            if self.levels.len() + self.chains > self.limit {
                return Some(self.i);
            }
            if self.top_kind() == LevelKind::JsxChildren {
                self.jsx_children();
                continue;
            }
            let byte = self.bytes[self.i];
            let next = self.bytes.get(self.i + 1).copied().unwrap_or(0);
            match byte {
                b' ' | b'\t' | b'\n' | b'\r' => {
                    self.skip_whitespace();
                    continue;
                }
                b'/' if next == b'/' => {
                    self.i = skip_until(self.bytes, self.i + 2, b'\n');
                    continue;
                }
                b'/' if next == b'*' => {
                    self.i =
                        find(self.bytes, self.i + 2, b"*/").map_or(self.bytes.len(), |end| end + 2);
                    continue;
                }
                _ => {}
            }
            if is_word_byte(byte) {
                let start = self.i;
                while self.i < self.bytes.len() && is_word_byte(self.bytes[self.i]) {
                    self.i += 1;
                }
                let word = &self.bytes[start..self.i];
                self.word(word, last_word);
                last_word = word;
                continue;
            }
            let operand_expected = self.expect_operand;
            let last_was_close_brace = self.last == Last::CloseBrace;
            self.expect_operand = true;
            let mut last = Last::Other;
            match byte {
                b'\'' | b'"' => {
                    let in_tag = self.top_kind() == LevelKind::JsxTag;
                    self.i = skip_string(self.bytes, self.i + 1, byte, !in_tag);
                    self.expect_operand = false;
                    self.last = Last::Other;
                    continue;
                }
                b'`' => {
                    self.levels.push(Level::new(LevelKind::Template));
                    self.i += 1;
                    self.template_text();
                    self.last = Last::Other;
                    continue;
                }
                b'/' if operand_expected => {
                    let end = skip_regex(self.bytes, self.i + 1);
                    // After a `}` the `/` divides if the braces were an object literal or a
                    // function or class expression, and starts a regular expression after a
                    // block; after a contextual keyword (`type`, `get`, `of`, `async`) it
                    // divides if the word is a variable. Read the text up to the regular
                    // expression's end as code too.
                    let ambiguous = last_was_close_brace || self.last == Last::Word;
                    if ambiguous && let Some(offset) = self.as_division(end) {
                        return Some(offset);
                    }
                    self.i = end;
                    self.expect_operand = false;
                    self.last = Last::Other;
                    continue;
                }
                b'(' | b'[' | b'{' => {
                    self.namespace_name = false;
                    let close = match byte {
                        b'(' => b')',
                        b'[' => b']',
                        _ => b'}',
                    };
                    let mut level = Level::new(LevelKind::Bracket(close));
                    level.statement_head = byte == b'('
                        && self.last == Last::Word
                        && matches!(last_word, b"if" | b"while" | b"for" | b"with" | b"await");
                    self.levels.push(level);
                }
                b')' | b']' | b'}' => {
                    self.drop_angles();
                    match self.top_kind() {
                        LevelKind::Substitution if byte == b'}' => {
                            self.pop();
                            self.i += 1;
                            self.template_text();
                            self.last = Last::Other;
                            continue;
                        }
                        LevelKind::Bracket(_) => {
                            let closed = self.pop();
                            last = if closed.statement_head {
                                Last::HeadClose
                            } else if byte == b'}' {
                                Last::CloseBrace
                            } else {
                                self.expect_operand = false;
                                Last::Other
                            };
                        }
                        // A stray closer (a syntax error oxc reports): nothing to close.
                        _ => self.expect_operand = byte == b'}',
                    }
                }
                b';' => {
                    self.drop_angles();
                    self.reset_chain();
                    self.namespace_name = false;
                    last = Last::Semicolon;
                }
                b',' => self.reset_chain(),
                b'.' if next == b'.' && self.bytes.get(self.i + 2) == Some(&b'.') => {
                    if operand_expected {
                        self.add_chain();
                    }
                    self.i += 3;
                    self.last = Last::Other;
                    continue;
                }
                b'.' if next.is_ascii_digit() => {
                    self.i = skip_word(self.bytes, self.i + 1);
                    self.expect_operand = false;
                    self.last = Last::Other;
                    continue;
                }
                b'.' => {
                    if self.namespace_name {
                        self.add_chain();
                    }
                    // A property name follows, never an operand.
                    self.expect_operand = false;
                    self.i += 1;
                    self.skip_whitespace();
                    let start = self.i;
                    self.i = skip_word(self.bytes, self.i);
                    if self.i > start {
                        last_word = b"";
                    }
                    self.last = Last::Other;
                    continue;
                }
                b'?' => {
                    if next == b'?' {
                        // `??` is a loop, `??=` assigns; where an operand is expected these are
                        // two prefix `?` of nullable types.
                        let assigns = self.bytes.get(self.i + 2) == Some(&b'=');
                        if assigns || operand_expected {
                            self.add_chain();
                        }
                        if operand_expected {
                            self.add_chain();
                        }
                        self.i += if assigns { 3 } else { 2 };
                        self.last = Last::Other;
                        continue;
                    }
                    let optional_chain =
                        next == b'.' && !self.bytes.get(self.i + 2).is_some_and(u8::is_ascii_digit);
                    if optional_chain {
                        self.expect_operand = false;
                    } else {
                        self.add_chain();
                    }
                }
                b'=' => {
                    let rest = &self.bytes[self.i..];
                    if rest.starts_with(b"=>") {
                        self.add_chain();
                        self.i += 2;
                    } else if rest.starts_with(b"===") {
                        self.i += 3;
                    } else if rest.starts_with(b"==") {
                        self.i += 2;
                    } else {
                        if self.top_kind() != LevelKind::JsxTag {
                            self.add_chain();
                        }
                        self.i += 1;
                    }
                    self.last = Last::Other;
                    continue;
                }
                b'!' if next == b'=' => {
                    let strict = self.bytes.get(self.i + 2) == Some(&b'=');
                    self.i += if strict { 3 } else { 2 };
                    self.last = Last::Other;
                    continue;
                }
                b'!' | b'~' if operand_expected => self.add_chain(),
                b'+' | b'-' if next == byte => {
                    // `++`/`--`: prefix recurses, postfix ends the operand.
                    if operand_expected {
                        self.add_chain();
                    } else {
                        self.expect_operand = false;
                    }
                    self.i += 2;
                    self.last = Last::Other;
                    continue;
                }
                b'+' | b'-' if operand_expected => self.add_chain(),
                b'*' if next == b'*' => {
                    self.add_chain();
                    self.i += 2;
                    self.last = Last::Other;
                    continue;
                }
                b'<' => {
                    self.open_angle(operand_expected, next);
                    self.last = Last::Other;
                    continue;
                }
                b'>' if next == b'=' && !matches!(self.top_kind(), LevelKind::Angle { .. }) => {
                    self.i += 2;
                    self.last = Last::Other;
                    continue;
                }
                b'>' => match self.top_kind() {
                    LevelKind::Angle { prefix } => {
                        self.pop();
                        if prefix {
                            self.add_chain();
                        } else {
                            // `Array<T>` is a type, `f<T>(…)` a call: either is an operand.
                            self.expect_operand = false;
                        }
                    }
                    LevelKind::JsxTag => {
                        let start = self.i + 1;
                        if let Some(top) = self.levels.last_mut() {
                            top.kind = LevelKind::JsxChildren;
                            top.start = start;
                        }
                    }
                    _ => {}
                },
                b'/' if next == b'>' && self.top_kind() == LevelKind::JsxTag => {
                    self.pop();
                    self.i += 2;
                    self.after_element();
                    continue;
                }
                b'!' => self.expect_operand = false,
                _ => {}
            }
            self.last = last;
            self.i += 1;
        }
        (self.levels.len() + self.chains > self.limit).then_some(self.bytes.len())
    }

    /// Counts one word: keywords, labels, the start of a statement.
    fn word(&mut self, word: &[u8], previous_word: &[u8]) {
        let starts_number = word[0].is_ascii_digit();
        let class = classify(word);
        let last = self.last;
        let after_operand = !self.expect_operand;
        // A word after an operand continues the expression only as an infix keyword; any other
        // starts a new statement (automatic semicolon insertion), ending every chain.
        let statement_start = after_operand || last == Last::CloseBrace;
        if statement_start && !starts_number && !class.infix {
            self.reset_chain();
            self.reset_else();
        } else if last == Last::Semicolon && word != b"else" {
            self.reset_else();
        }
        // Property names after a `.` are consumed with it, so any word ends a dotted name.
        self.namespace_name = last == Last::Word
            && matches!(previous_word, b"namespace" | b"module")
            && !starts_number;
        if starts_number {
            self.expect_operand = false;
            self.last = Last::Other;
            return;
        }
        if word == b"else" {
            self.add_else();
        } else if class.chains && !(word == b"if" && last == Last::Word && previous_word == b"else")
        {
            self.add_chain();
        }
        self.expect_operand = class.operand_follows;
        self.last = Last::Word;
        // A label: a word and a `:` where a statement starts.
        let statement_position = matches!(
            last,
            Last::Start | Last::Semicolon | Last::CloseBrace | Last::HeadClose | Last::LabelColon
        ) || (last == Last::Word
            && matches!(previous_word, b"else" | b"do"));
        if statement_position {
            let after = skip_whitespace_from(self.bytes, self.i);
            if self.bytes.get(after) == Some(&b':') && self.bytes.get(after + 1) != Some(&b':') {
                self.add_chain();
                self.i = after + 1;
                self.expect_operand = true;
                self.last = Last::LabelColon;
            }
        }
    }

    /// Where the text from the current `/` up to `end`, read as a division and the code after
    /// it, first nests too deep, if it does.
    fn as_division(&self, end: usize) -> Option<usize> {
        let mut division = Scan {
            bytes: &self.bytes[..end],
            jsx: self.jsx,
            limit: self.limit,
            i: self.i + 1,
            levels: self.levels.clone(),
            chains: self.chains,
            last: Last::Other,
            expect_operand: true,
            namespace_name: false,
            no_jsx_until: self.no_jsx_until,
        };
        division.run()
    }

    /// `<`: a JSX element, a type assertion, or a type-argument list or comparison.
    fn open_angle(&mut self, operand_expected: bool, next: u8) {
        let rest = &self.bytes[self.i..];
        if rest.starts_with(b"<<") || rest.starts_with(b"<=") {
            self.i += 2;
            return;
        }
        self.i += 1;
        let jsx_here = self.jsx && self.i > self.no_jsx_until;
        if jsx_here && operand_expected && (is_word_start(next) || next == b'>') {
            let name_end = skip_jsx_name(self.bytes, self.i);
            let after = skip_whitespace_from(self.bytes, name_end);
            let rest = &self.bytes[after.min(self.bytes.len())..];
            // `<T,>(…) =>` and `<T extends U>(…) =>` are type parameters, not elements.
            let type_parameters =
                rest.starts_with(b",") || (rest.starts_with(b"extends") && name_end > self.i);
            if !type_parameters {
                self.push_jsx_tag(name_end);
                self.expect_operand = false;
                return;
            }
        }
        self.levels.push(Level::new(LevelKind::Angle {
            prefix: operand_expected && !self.jsx,
        }));
        self.expect_operand = true;
    }

    /// JSX children: text up to a `{` expression, a nested element or the closing tag.
    fn jsx_children(&mut self) {
        while self.i < self.bytes.len() {
            match self.bytes[self.i] {
                b'{' => {
                    self.levels.push(Level::new(LevelKind::Bracket(b'}')));
                    self.i += 1;
                    self.expect_operand = true;
                    self.last = Last::Other;
                    return;
                }
                b'<' => {
                    let after = skip_whitespace_from(self.bytes, self.i + 1);
                    if self.bytes.get(after) == Some(&b'/') {
                        self.i = skip_until(self.bytes, after, b'>').saturating_add(1);
                        self.pop();
                        self.after_element();
                        return;
                    }
                    let name_end = skip_jsx_name(self.bytes, after);
                    self.push_jsx_tag(name_end.max(self.i + 1));
                    return;
                }
                // JSX text cannot hold these: this was not an element after all (a generic
                // function type `<T>(x: T) => T`). Read the text of every element open here
                // again, as code and without JSX up to this byte, so each byte is read at most
                // twice; the nesting already counted was checked on the way.
                b'}' | b'>' => {
                    self.no_jsx_until = self.i;
                    while matches!(self.top_kind(), LevelKind::JsxTag | LevelKind::JsxChildren)
                        && self.levels.len() > 1
                    {
                        self.i = self.pop().start;
                    }
                    self.expect_operand = true;
                    self.last = Last::Other;
                    return;
                }
                _ => self.i += 1,
            }
        }
    }

    /// Opens a JSX tag whose name ends at `name_end`.
    fn push_jsx_tag(&mut self, name_end: usize) {
        let mut tag = Level::new(LevelKind::JsxTag);
        tag.start = name_end;
        self.levels.push(tag);
        self.i = name_end;
        self.expect_operand = false;
    }

    /// After an element closed: its parent's children go on, or it was an operand.
    fn after_element(&mut self) {
        self.expect_operand = false;
        self.last = Last::Other;
    }

    /// Template text up to its closing backtick (popping the template level) or a `${`
    /// (pushing the substitution's level).
    fn template_text(&mut self) {
        while self.i < self.bytes.len() {
            match self.bytes[self.i] {
                b'\\' => self.i += 2,
                b'`' => {
                    if self.top_kind() == LevelKind::Template {
                        self.pop();
                    }
                    self.i += 1;
                    self.expect_operand = false;
                    return;
                }
                b'$' if self.bytes.get(self.i + 1) == Some(&b'{') => {
                    self.levels.push(Level::new(LevelKind::Substitution));
                    self.i += 2;
                    self.expect_operand = true;
                    return;
                }
                _ => self.i += 1,
            }
        }
        self.i = self.i.min(self.bytes.len());
    }

    fn top_kind(&self) -> LevelKind {
        self.levels
            .last()
            .map_or(LevelKind::Root, |level| level.kind)
    }

    /// Pops the innermost level (never the root), with its chains.
    fn pop(&mut self) -> Level {
        if self.levels.len() <= 1 {
            return Level::new(LevelKind::Root);
        }
        let closed = self.levels.pop().unwrap_or(Level::new(LevelKind::Root));
        self.chains -= closed.chain + closed.else_chain;
        closed
    }

    /// Drops unclosed `<` levels (comparisons) at a `;` or closing bracket of their level.
    fn drop_angles(&mut self) {
        while matches!(self.top_kind(), LevelKind::Angle { .. }) {
            self.pop();
        }
    }

    fn add_chain(&mut self) {
        if let Some(level) = self.levels.last_mut() {
            level.chain += 1;
            self.chains += 1;
        }
    }

    fn add_else(&mut self) {
        if let Some(level) = self.levels.last_mut() {
            level.else_chain += 1;
            self.chains += 1;
        }
    }

    fn reset_chain(&mut self) {
        if let Some(level) = self.levels.last_mut() {
            self.chains -= level.chain;
            level.chain = 0;
        }
    }

    fn reset_else(&mut self) {
        if let Some(level) = self.levels.last_mut() {
            self.chains -= level.else_chain;
            level.else_chain = 0;
        }
    }

    fn skip_whitespace(&mut self) {
        self.i = skip_whitespace_from(self.bytes, self.i);
    }
}

/// Identifier, keyword and number bytes (non-ASCII bytes belong to identifiers; `\` starts a
/// unicode escape in one, `#` a private name).
/// Written without branches: [`nesting_bound`] classifies every byte of every file with it.
#[inline(always)]
const fn is_word_byte(byte: u8) -> bool {
    ((byte | 0x20).wrapping_sub(b'a') < 26)
        | (byte.wrapping_sub(b'0') < 10)
        | (byte == b'_')
        | (byte == b'$')
        | (byte == b'\\')
        | (byte == b'#')
        | (byte >= 0x80)
}

fn is_word_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || matches!(byte, b'_' | b'$') || byte >= 0x80
}

fn skip_word(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && is_word_byte(bytes[i]) {
        i += 1;
    }
    i
}

/// A JSX element name: `a`, `a.b`, `a:b`, `my-element`.
fn skip_jsx_name(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && (is_word_byte(bytes[i]) || matches!(bytes[i], b'.' | b':' | b'-')) {
        i += 1;
    }
    i
}

fn skip_whitespace_from(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn skip_until(bytes: &[u8], from: usize, stop: u8) -> usize {
    bytes[from.min(bytes.len())..]
        .iter()
        .position(|b| *b == stop)
        .map_or(bytes.len(), |at| from + at)
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|at| from + at)
}

/// Skips a quoted string; an unterminated one ends at the line's end, as the lexer's error
/// does. JSX attribute strings have no escapes.
fn skip_string(bytes: &[u8], mut i: usize, quote: u8, escapes: bool) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if escapes => i += 2,
            b'\n' if escapes => return i,
            byte if byte == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

fn skip_regex(bytes: &[u8], mut i: usize) -> usize {
    let mut in_class = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            b'[' => {
                in_class = true;
                i += 1;
            }
            b']' => {
                in_class = false;
                i += 1;
            }
            b'/' if !in_class => return skip_word(bytes, i + 1),
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::{BOUND_WORDS, BoundWord, MAX_NESTING, bound_word, classify, nesting_overflow};

    /// `counted_word` is `classify`'s chaining keywords and `else`, over every keyword
    /// `classify` knows and words near them.
    #[test]
    fn counted_words_are_the_chaining_keywords_and_else() {
        let words = [
            "typeof",
            "void",
            "delete",
            "await",
            "new",
            "yield",
            "readonly",
            "unique",
            "if",
            "for",
            "with",
            "do",
            "return",
            "throw",
            "extends",
            "keyof",
            "infer",
            "while",
            "in",
            "instanceof",
            "as",
            "satisfies",
            "of",
            "is",
            "else",
            "catch",
            "finally",
            "implements",
            "from",
            "asserts",
            "case",
            "default",
            "export",
            "function",
            "class",
            "async",
            "let",
            "const",
            "var",
            "type",
            "interface",
            "enum",
            "namespace",
            "module",
            "declare",
            "abstract",
            "import",
            "static",
            "get",
            "set",
            "accessor",
            "override",
            "public",
            "private",
            "protected",
            "break",
            "continue",
            "switch",
            "try",
            "iff",
            "d",
            "dodo",
            "elses",
            "Else",
            "typeOf",
            "news",
            "fo",
            "",
        ];
        for word in words {
            let bytes = word.as_bytes();
            let expected = classify(bytes).chains || bytes == b"else";
            let counted =
                !bytes.is_empty() && bound_word(bytes, 0, bytes.len()) == BoundWord::Counted;
            assert_eq!(counted, expected, "{word}");
        }
        for (word, what) in BOUND_WORDS {
            assert!(super::is_counted_initial(word[0]), "{word:?}");
            assert_eq!(bound_word(word, 0, word.len()), what);
        }
    }

    /// [`super::nesting_bound`] as its documentation states it, one word at a time.
    fn bound_by_words(bytes: &[u8]) -> usize {
        let mut bound = 1;
        let mut dots = 0;
        let mut dotted_names = false;
        for run in bytes.split(|&byte| !super::is_word_byte(byte)) {
            bound += usize::from(classify(run).chains || run == b"else");
            dotted_names |= matches!(run, b"namespace" | b"module");
        }
        for &byte in bytes {
            bound += usize::from(b"([{`<!~+-?=*:".contains(&byte));
            dots += usize::from(byte == b'.');
        }
        bound + if dotted_names { dots } else { dots / 3 }
    }

    /// The bound read in blocks of 64 bytes counts what the plain count does, whatever the
    /// length and wherever a word meets a block's edge, compiled for AVX2 or not.
    #[test]
    fn the_bound_in_blocks_is_the_plain_count() {
        let pieces: [&[u8]; 24] = [
            b"if",
            b"else",
            b"do",
            b"typeof",
            b"namespace",
            b"namespaces",
            b"module",
            b"readonly",
            b"extends",
            b"ifx",
            b"x",
            b"Else",
            b"elsE",
            b"9",
            b"_",
            b"$",
            b"\\",
            b"#",
            "\u{e9}".as_bytes(),
            b" ",
            b".",
            b"(",
            b"=>",
            b"\n",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..4_000 {
            let mut source = Vec::new();
            // Lengths around one, two and three blocks, and some longer.
            let target = [60, 64, 70, 127, 130, 192, 700][case % 7];
            while source.len() < target {
                source.extend_from_slice(pieces[(next() % 24) as usize]);
            }
            for cut in [source.len(), source.len() - 1, 63.min(source.len())] {
                let bytes = &source[..cut];
                // Both compilations: the one this CPU runs, and the baseline one.
                for bound in [super::nesting_bound(bytes), super::count_bound(bytes)] {
                    assert_eq!(
                        bound,
                        bound_by_words(bytes),
                        "{:?}",
                        String::from_utf8_lossy(bytes)
                    );
                }
            }
        }
    }

    #[test]
    fn refuses_every_deeply_nesting_construct() {
        let depth = 10_000;
        for (name, source) in [
            (
                "arrays",
                format!("{}{}", "[".repeat(depth), "]".repeat(depth)),
            ),
            (
                "parentheses",
                format!("{}1{}", "(".repeat(depth), ")".repeat(depth)),
            ),
            (
                "objects",
                format!("{}1{}", "{a:".repeat(depth), "}".repeat(depth)),
            ),
            ("arrows", "x => ".repeat(depth)),
            ("conditionals", "x ? 1 : ".repeat(depth)),
            (
                "jsx",
                format!("{}{}", "<a>".repeat(depth), "</a>".repeat(depth)),
            ),
            (
                "templates",
                format!("`{}{}`", "${`".repeat(depth), "`}".repeat(depth)),
            ),
            (
                "type arguments",
                format!("type A = {}1{};", "Array<".repeat(depth), ">".repeat(depth)),
            ),
            ("negations", format!("{}a", "!".repeat(depth))),
            ("assignments", format!("{}1", "a=".repeat(depth))),
            ("if statements", format!("{};", "if(a)".repeat(depth))),
            (
                "else if chains",
                format!("if(a)f();{}", "else if(a)f();".repeat(depth)),
            ),
            ("labels", format!("{};", "a:".repeat(depth))),
        ] {
            assert!(nesting_overflow(&source, true).is_some(), "{name}");
        }
    }

    #[test]
    fn accepts_ordinary_code_however_long() {
        let statement = "if (a < b && c > d) { f(`x ${y}`, /[(]/g, '(', \"[\"); } // (\n";
        assert_eq!(nesting_overflow(&statement.repeat(10_000), true), None);
        let siblings = format!("<ul>{}</ul>", "<li>x</li><br/>".repeat(10_000));
        assert_eq!(nesting_overflow(&siblings, true), None);
        let within = format!(
            "{}{}",
            "[".repeat(MAX_NESTING - 1),
            "]".repeat(MAX_NESTING - 1)
        );
        assert_eq!(nesting_overflow(&within, true), None);
    }

    #[test]
    fn statements_end_chains_with_or_without_semicolons() {
        for (name, statement) in [
            ("assignments", "a = b = c\n"),
            ("declarations", "export const a = async (b) => await c(b)\n"),
            ("negations", "x = !a\n"),
            ("if blocks", "if (a) { b = 1 } else if (c) { d = 2 }\n"),
            ("loops", "for (const a of b) { c += a }\nwhile (a) a--\n"),
            ("classes", "class A extends B { m() { return 1 } p = 2 }\n"),
            ("types", "type A<T> = T extends B ? keyof T : never\n"),
            (
                "generic arrows",
                "type F = <T>(x: T) => T\nconst g = <T,>(x: T) => x\n",
            ),
            (
                "jsx",
                "const e = <a href=\"x\">it's (fine); {b ? <b/> : c}</a>\n",
            ),
            ("labels", "outer: for (;;) { break outer }\n"),
        ] {
            let source = statement.repeat(5_000);
            assert_eq!(nesting_overflow(&source, true), None, "{name}");
        }
    }

    #[test]
    fn a_division_after_braces_hides_no_nesting() {
        let depth = 10_000;
        let parentheses = format!("{}a{}", "(".repeat(depth), ")".repeat(depth));
        for source in [
            format!("x = {{}} / {parentheses} / 2;"),
            format!("x = function () {{}} / {parentheses};"),
            format!("if (a) {{}} /'/; {parentheses};"),
            format!("let type = 1; x = type / {parentheses} / 2;"),
        ] {
            assert!(nesting_overflow(&source, true).is_some(), "{source:.40}");
        }
        let regex = "if (a) {} /[(]/.test(b);\n".repeat(1_000);
        assert_eq!(nesting_overflow(&regex, true), None);
    }

    #[test]
    fn jsx_text_hides_no_nesting() {
        for text in ["'", "\"", ";", ",", "//", "/*", "`", ")", "]"] {
            let source = format!(
                "x = {}{}",
                format!("<a>{text}").repeat(1_000),
                "</a>".repeat(1_000)
            );
            assert!(nesting_overflow(&source, true).is_some(), "{text}");
        }
    }
}
