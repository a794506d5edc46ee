//! The surface syntax of herd litmus files, before lowering: comments,
//! header, metadata, init block, thread columns, `locations`, `filter`
//! and the final condition. Everything here is purely syntactic; names
//! are resolved by [`super::lower`].

use crate::diag::{Error, SourceFile, Span};
use crate::frontend::litmus::parse_int;

/// A raw location as written: `0:EAX`, `P1:r2`, `x`, `[x]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RawLoc {
    /// Register `reg` of thread `thread`.
    Reg { thread: usize, reg: String },
    /// A memory location.
    Mem(String),
}

/// A raw value: an integer or a symbol (the address of a variable).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RawVal {
    Int(i64),
    Sym(String),
    /// A code label as a value: `P1:L1` (init), `label:"P0:L0"` or
    /// `label:"0:L0"` (condition): (thread, label).
    Label(usize, String),
    /// An instruction value (`instr:"B .+4"`, `NOP` in an `ins_t` init
    /// item): its text as herd prints it ([`instr_text`]).
    Instr(String),
}

/// An instruction's text as herd prints instruction values: the mnemonic,
/// one blank, the operands separated by `,` without blanks (`B .+4`,
/// `add r1,r1,r1`, `NOP`).
pub(crate) fn instr_text(t: &str) -> String {
    let t = t.trim();
    let (mn, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    let ops: Vec<String> = rest
        .split(',')
        .map(|o| o.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|o| !o.is_empty())
        .collect();
    if ops.is_empty() {
        mn.to_string()
    } else {
        format!("{mn} {}", ops.join(","))
    }
}

/// `ATOMIC_INIT(v)` (the kernel's initialiser of an `atomic_t`, in C
/// litmus tests) → `v`: herd7 7.58 reads it as the integer `v`.
fn atomic_init(t: &str) -> Option<i64> {
    let inner = t.strip_prefix("ATOMIC_INIT")?.trim_start();
    parse_int(inner.strip_prefix('(')?.strip_suffix(')')?.trim())
}

/// `instr:"…"` → the instruction's text.
fn instr_value(t: &str) -> Option<String> {
    t.strip_prefix("instr:\"")
        .and_then(|x| x.strip_suffix('"'))
        .map(instr_text)
}

/// `P1:L1` or `1:L1` → (1, `L1`); also inside `label:"…"`.
fn code_label(t: &str) -> Option<(usize, String)> {
    let t = t
        .strip_prefix("label:\"")
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(t);
    let (th, l) = t.split_once(':')?;
    let th = th.strip_prefix('P').unwrap_or(th);
    let n: usize = th.parse().ok()?;
    (is_ident(l) && !th.is_empty()).then(|| (n, l.to_string()))
}

/// A raw proposition.
#[derive(Clone, Debug)]
pub(crate) enum RawProp {
    True,
    False,
    Atom {
        loc: RawLoc,
        val: RawVal,
        neq: bool,
        span: Span,
        loc_span: Span,
    },
    /// `loc = loc'` (or `<>`), where the right side is a location, not a
    /// value: a thread's register `1:r2` or a bracketed memory location
    /// `[y]` (herd compares the two final values; a bare name `y` on the
    /// right is the address of `y`).
    Same {
        a: RawLoc,
        b: RawLoc,
        neq: bool,
        span: Span,
        a_span: Span,
        b_span: Span,
    },
    Not(Box<RawProp>),
    /// `a /\ b /\ …` (two or more operands).
    And(Vec<RawProp>),
    /// `a \/ b \/ …` (two or more operands).
    Or(Vec<RawProp>),
    Implies(Box<RawProp>, Box<RawProp>),
}

impl RawProp {
    /// Calls `f` on every atom `loc = val` (or `loc != val`) of the
    /// proposition, left to right, with the atom's span and its
    /// location's span; an atom `loc = loc'` calls it once per location,
    /// without a value.
    pub(crate) fn for_each_atom<'a>(
        &'a self,
        f: &mut dyn FnMut(&'a RawLoc, Option<&'a RawVal>, Span, Span),
    ) {
        match self {
            RawProp::True | RawProp::False => {}
            RawProp::Atom {
                loc,
                val,
                span,
                loc_span,
                ..
            } => f(loc, Some(val), *span, *loc_span),
            RawProp::Same {
                a,
                b,
                span,
                a_span,
                b_span,
                ..
            } => {
                f(a, None, *span, *a_span);
                f(b, None, *span, *b_span);
            }
            RawProp::Not(a) => a.for_each_atom(f),
            RawProp::And(v) | RawProp::Or(v) => v.iter().for_each(|a| a.for_each_atom(f)),
            RawProp::Implies(a, b) => {
                a.for_each_atom(f);
                b.for_each_atom(f);
            }
        }
    }
}

/// One init item: `lhs = rhs` (rhs optional), with an optional type.
#[derive(Clone, Debug)]
pub(crate) struct InitItem {
    pub lhs: InitLhs,
    /// The bits of an unsigned type prefix (`uint32_t 0:X1` → 32,
    /// `uint64_t x` → 64), if any.
    pub unsigned: Option<u32>,
    /// The bits of the declared type (`int64_t 0:X1` → 64, `int x` → 32),
    /// if the item has a known integer type.
    pub bits: Option<u32>,
    pub rhs: Option<(RawVal, Span)>,
    /// An array declaration `int v[N] = {…}`: (N, bytes per element,
    /// initial values, missing ones 0); `lhs` is then `Mem(v)`.
    pub array: Option<(usize, u32, Vec<i64>)>,
    pub span: Span,
}

/// Left-hand side of an init item.
#[derive(Clone, Debug)]
pub(crate) enum InitLhs {
    Reg {
        thread: usize,
        reg: String,
    },
    /// A symbolic register `%name` (PPC), bound in whichever thread uses it.
    SymReg(String),
    Mem(String),
}

/// One cell of the code table: optional labels and an optional instruction.
#[derive(Clone, Debug)]
pub(crate) struct Cell {
    pub labels: Vec<(String, Span)>,
    pub instr: Option<(String, Span)>,
}

/// Which quantifier the condition has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RawQuant {
    Exists,
    NotExists,
    Forall,
}

/// The parsed surface of a test.
#[derive(Clone, Debug)]
pub(crate) struct Surface {
    pub arch: String,
    pub arch_span: Span,
    pub name: String,
    pub doc: Option<String>,
    pub metadata: Vec<(String, String)>,
    /// The span of a `Variant=…ifetch…` line (herd's instruction-fetch
    /// variant; checked by the lowering, which has the other metadata).
    pub ifetch: Option<Span>,
    pub init: Vec<InitItem>,
    /// `threads[i]` = the cells of column i, top to bottom.
    pub threads: Vec<Vec<Cell>>,
    pub thread_spans: Vec<Span>,
    pub locations: Vec<(RawLoc, Span, bool)>,
    pub filter: Option<RawProp>,
    pub quant: RawQuant,
    pub prop: RawProp,
}

/// Replaces `(* ... *)` comments (nested) by spaces, keeping offsets and
/// newlines. Before the init block `{` a `(*` opens a comment only when a
/// newline, a `{` or the end of the file follows it, as in herd's splitter
/// (`lib/splitter.mll`, `find_init`: the longest match `[^'\n''{']+`
/// takes any other `(* ...` as header text, skipped line by line; so a
/// header comment need not be closed). Errors: an unterminated comment.
fn strip_comments(src: &SourceFile) -> Result<String, Error> {
    let t = src.text.as_bytes();
    let mut out = t.to_vec();
    let mut i = 0;
    let mut in_str = false;
    let mut header = true;
    while i < t.len() {
        if header && !in_str && t[i] == b'{' {
            header = false;
        }
        if header
            && t[i] == b'('
            && t.get(i + 1) == Some(&b'*')
            && !matches!(t.get(i + 2), None | Some(b'\n' | b'{'))
        {
            // Header text, not a comment: the rest of the line is skipped.
            i += 2;
            continue;
        }
        if t[i] == b'"' {
            in_str = !in_str;
            i += 1;
            continue;
        }
        if t[i] == b'\n' {
            // Strings do not span lines (herd tolerates a missing `"`).
            in_str = false;
        }
        if !in_str && t[i] == b'(' && i + 1 < t.len() && t[i + 1] == b'*' {
            let start = i;
            let mut depth = 0usize;
            loop {
                if i + 1 < t.len() && t[i] == b'(' && t[i + 1] == b'*' {
                    depth += 1;
                    out[i] = b' ';
                    out[i + 1] = b' ';
                    i += 2;
                } else if i + 1 < t.len() && t[i] == b'*' && t[i + 1] == b')' {
                    depth -= 1;
                    out[i] = b' ';
                    out[i + 1] = b' ';
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else if i >= t.len() {
                    return Err(src.error(Span::new(start, start + 2), "unterminated comment `(*`"));
                } else {
                    if t[i] != b'\n' {
                        // Keep UTF-8 boundaries: replace every byte of the
                        // comment by a space (ASCII), which is valid UTF-8.
                        out[i] = b' ';
                    }
                    i += 1;
                }
            }
            continue;
        }
        i += 1;
    }
    Ok(String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// A cursor over the comment-free text.
pub(crate) struct Cur<'a> {
    pub src: &'a SourceFile,
    pub text: &'a str,
    pub pos: usize,
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%' || c == '$'
}

impl<'a> Cur<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }
    fn skip_ws(&mut self) {
        let r = self.rest();
        let n = r.len() - r.trim_start().len();
        self.pos += n;
    }
    fn eof(&self) -> bool {
        self.pos >= self.text.len()
    }
    fn err(&self, span: Span, msg: impl Into<String>) -> Error {
        self.src.error(span, msg)
    }
    fn here(&self) -> Span {
        let end = self.text[self.pos..]
            .char_indices()
            .nth(1)
            .map(|(i, _)| self.pos + i)
            .unwrap_or(self.text.len());
        Span::new(self.pos, end)
    }
    /// The word (identifier characters, plus a leading `~`) at the cursor.
    fn peek_word(&self) -> &'a str {
        let r = self.rest();
        let mut end = 0;
        for (i, c) in r.char_indices() {
            if is_ident_char(c) || (i == 0 && c == '~') {
                end = i + c.len_utf8();
            } else {
                break;
            }
        }
        &r[..end]
    }
    /// Reads up to (not including) the next `c` at the top level; returns
    /// the text and its start offset, and moves past `c`. `None` at EOF.
    fn until(&mut self, c: u8) -> Option<(&'a str, usize)> {
        let start = self.pos;
        let r = self.rest();
        let i = r.bytes().position(|b| b == c)?;
        self.pos += i + 1;
        Some((&self.text[start..start + i], start))
    }
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// `0:EAX`, `P0:r1` → (thread, reg).
fn parse_reg_loc(s: &str) -> Option<(usize, String)> {
    let (t, r) = s.split_once(':')?;
    let t = t.trim();
    let t = t.strip_prefix('P').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let r = r.trim();
    if r.is_empty()
        || !r
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '%')
    {
        return None;
    }
    Some((t.parse().ok()?, r.to_string()))
}

/// Parses a location: `0:EAX`, `P1:r1`, `[x]`, `x`.
pub(crate) fn parse_loc(s: &str) -> Option<RawLoc> {
    let s = s.trim();
    if let Some((t, r)) = parse_reg_loc(s) {
        return Some(RawLoc::Reg { thread: t, reg: r });
    }
    let inner = s
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .map(str::trim)
        .unwrap_or(s);
    if is_ident(inner) {
        return Some(RawLoc::Mem(inner.to_string()));
    }
    // An array element `v[k]`.
    let (name, k) = inner.strip_suffix(']')?.split_once('[')?;
    let k: usize = k.trim().parse().ok()?;
    is_ident(name.trim()).then(|| RawLoc::Mem(format!("{}[{k}]", name.trim())))
}

const KEYWORDS: [&str; 8] = [
    "exists",
    "~exists",
    "forall",
    "final",
    "locations",
    "filter",
    "cases",
    "~",
];

/// Parses the whole surface syntax.
pub(crate) fn parse_surface(src: &SourceFile) -> Result<Surface, Error> {
    if let Some(off) = src.text.find('\u{fffd}') {
        return Err(src.error(
            Span::new(off, off + 3),
            "invalid UTF-8 in input (is this a text file?)",
        ));
    }
    let text = strip_comments(src)?;
    let mut c = Cur {
        src,
        text: &text,
        pos: 0,
    };
    let mut head = parse_header(&mut c)?;
    parse_metadata(&mut c, &mut head)?;
    let init = parse_init_block(&mut c)?;
    let thread_spans = parse_thread_header(&mut c)?;
    let threads = parse_code_rows(&mut c, thread_spans.len())?;
    let tail = parse_tail(&mut c)?;
    let (quant, prop) = match tail.cond {
        Some((q, p)) => (q, p),
        // No condition (with or without `locations`): `forall (true)`,
        // as herd reads an empty constraint (its splitter's
        // `inside_prog` reaching the end of the file).
        None => (RawQuant::Forall, RawProp::True),
    };
    Ok(Surface {
        arch: head.arch,
        arch_span: head.arch_span,
        name: head.name,
        doc: head.doc,
        metadata: head.metadata,
        ifetch: head.ifetch,
        init,
        threads,
        thread_spans,
        locations: tail.locations,
        filter: tail.filter,
        quant,
        prop,
    })
}

/// What precedes the init block: the header line and the metadata
/// (fields as in [`Surface`]).
struct Head {
    arch: String,
    arch_span: Span,
    name: String,
    doc: Option<String>,
    metadata: Vec<(String, String)>,
    ifetch: Option<Span>,
}

/// Parses the header line `ARCH NAME ["doc"]` at the start of the text
/// (an empty file, or a header without a name, is an error); the metadata
/// is left empty for [`parse_metadata`].
fn parse_header(c: &mut Cur) -> Result<Head, Error> {
    let text = c.text;
    c.skip_ws();
    if c.eof() {
        return Err(c.err(
            Span::new(0, 0),
            "empty litmus file: expected a header `ARCH NAME`",
        ));
    }
    let line_end = c.rest().find('\n').map(|i| c.pos + i).unwrap_or(text.len());
    let header = &text[c.pos..line_end];
    let mut words = header.split_whitespace();
    let arch = words.next().unwrap_or("").to_string();
    let arch_span = Span::new(c.pos, c.pos + arch.len());
    let name = match words.next() {
        // herd drops a `.litmus` suffix from the name.
        Some(n) if !n.starts_with('{') => n.strip_suffix(".litmus").unwrap_or(n).to_string(),
        _ => {
            return Err(c.err(
                Span::new(c.pos, line_end),
                "header must be `ARCH NAME` (e.g. `X86 SB`)",
            ))
        }
    };
    let mut doc = None;
    if let Some(q) = header.find('"') {
        if let Some(e) = header[q + 1..].find('"') {
            doc = Some(header[q + 1..q + 1 + e].to_string());
        }
    }
    c.pos = line_end;
    Ok(Head {
        arch,
        arch_span,
        name,
        doc,
        metadata: Vec::new(),
        ifetch: None,
    })
}

/// Parses the metadata between the header and the init block `{` into
/// `head`: doc strings (the first one kept when the header has none),
/// `key=value` lines (a `Variant` with `ifetch` noted), and any other text,
/// skipped as herd's splitter does. The cursor stops at the `{`.
fn parse_metadata(c: &mut Cur, head: &mut Head) -> Result<(), Error> {
    loop {
        c.skip_ws();
        if c.eof() {
            return Err(c.err(
                Span::new(c.text.len(), c.text.len()),
                "truncated litmus file: expected the init block `{ ... }`",
            ));
        }
        let r = c.rest();
        if r.starts_with('{') {
            return Ok(());
        }
        if let Some(body) = r.strip_prefix('"') {
            // A doc string. As in herd's splitter (`lib/splitter.mll`,
            // `'"' [^'"']* '"'`) it may span lines up to the closing `"`,
            // but not past the init block; a missing closing `"` ends it
            // at the line end.
            let le = r.find('\n').unwrap_or(r.len());
            let init = r.find('{').unwrap_or(r.len());
            let e = match body.find('"').map(|e| e + 1) {
                Some(e) if e < init => e,
                _ => body[..le - 1].find('"').map(|e| e + 1).unwrap_or(le),
            };
            if head.doc.is_none() {
                head.doc = Some(r[1..e].to_string());
            }
            c.pos += (e + 1).min(r.len());
            continue;
        }
        let le = r.find('\n').unwrap_or(r.len());
        let line = &r[..le];
        if let Some((k, v)) = line.split_once('=') {
            if is_ident(k.trim()) {
                if k.trim() == "Variant" && v.split(',').any(|x| x.trim() == "ifetch") {
                    // herd's instruction-fetch model: instructions fetched
                    // from memory that other threads write.
                    head.ifetch = Some(Span::new(c.pos, c.pos + line.trim_end().len()));
                }
                head.metadata
                    .push((k.trim().to_string(), v.trim().to_string()));
                c.pos += le;
                continue;
            }
        }
        // Any other text before the init block is skipped, as herd's
        // splitter does (`find_init`: `[^'\n''{']+`), e.g. an unquoted
        // cycle description `ISyncdWW Wse ISyncdWW Wse` on the second line.
        match line.find('{') {
            Some(b) => c.pos += b,
            None => c.pos += le,
        }
    }
}

/// herd's extensions an unreadable init value belongs to, named for the
/// refusal: memory tags (`x:green`, Arm MTE) and page-table entries
/// (`(oa:PA(x), …)`); empty for another value.
fn init_extension(value: &str) -> &'static str {
    if value.contains("oa:") || value.contains("PA(") {
        " (a page-table entry: cache/tlb)"
    } else if value
        .split_once(':')
        .is_some_and(|(a, b)| is_ident(a) && is_ident(b))
    {
        " (a memory tag: Arm MTE)"
    } else {
        ""
    }
}

/// Parses the init block `{ ... }` (nested braces allowed) at the cursor
/// and an optional `;` after it.
fn parse_init_block(c: &mut Cur) -> Result<Vec<InitItem>, Error> {
    let open = c.pos;
    let mut depth = 0usize;
    let mut close = None;
    for (i, b) in c.rest().bytes().enumerate() {
        if b == b'{' {
            depth += 1;
        } else if b == b'}' {
            depth -= 1;
            if depth == 0 {
                close = Some(c.pos + i);
                break;
            }
        }
    }
    let close =
        close.ok_or_else(|| c.err(Span::new(open, open + 1), "unterminated init block `{`"))?;
    let init = parse_init(c.src, c.text, open + 1, close)?;
    c.pos = close + 1;
    c.skip_ws();
    if c.rest().starts_with(';') {
        c.pos += 1;
    }
    Ok(init)
}

/// Parses the thread header row `P0 | P1 ... ;`: the span of each
/// thread's name (the names must be `P0`, `P1`, ... in order).
fn parse_thread_header(c: &mut Cur) -> Result<Vec<Span>, Error> {
    c.skip_ws();
    let (hdr, hstart) = c.until(b';').ok_or_else(|| {
        c.err(
            Span::new(c.pos, c.text.len()),
            "truncated litmus file: expected the thread header `P0 | P1 ... ;`",
        )
    })?;
    let mut thread_spans = Vec::new();
    let mut off = hstart;
    for (i, col) in hdr.split('|').enumerate() {
        let t = col.trim();
        let s = off + (col.len() - col.trim_start().len());
        let span = Span::new(s, s + t.len());
        if t != format!("P{i}") {
            return Err(c.src.error(
                span,
                format!("expected thread name `P{i}` in the thread header, found `{t}`"),
            ));
        }
        thread_spans.push(span);
        off += col.len() + 1;
    }
    Ok(thread_spans)
}

/// Parses the code rows of `n` threads, up to the tail (a keyword, a
/// condition, `<<` or the end): each thread's non-empty cells in order.
fn parse_code_rows(c: &mut Cur, n: usize) -> Result<Vec<Vec<Cell>>, Error> {
    let mut threads: Vec<Vec<Cell>> = vec![Vec::new(); n];
    loop {
        c.skip_ws();
        if c.eof() || c.rest().starts_with("<<") {
            break;
        }
        let w = c.peek_word();
        if KEYWORDS.contains(&w) || c.rest().starts_with("~exists") || c.rest().starts_with("~ ") {
            break;
        }
        let row_start = c.pos;
        let (row, rstart) = c.until(b';').ok_or_else(|| {
            c.src.error(
                Span::new(row_start, c.text.len()),
                "truncated litmus file: code row without terminating `;` (or missing condition)",
            )
        })?;
        let mut off = rstart;
        for (i, col) in row.split('|').enumerate() {
            let col_start = off;
            off += col.len() + 1;
            if i >= n {
                let s = col_start + (col.len() - col.trim_start().len());
                return Err(c.src.error(
                    Span::new(s, s + col.trim().len().max(1)),
                    format!("code row has more columns than the {n} declared threads"),
                ));
            }
            let cell = parse_cell(col, col_start);
            if cell.labels.is_empty() && cell.instr.is_none() {
                continue;
            }
            threads[i].push(cell);
        }
    }
    Ok(threads)
}

/// What follows the code: `locations`, `filter` and the final condition
/// (fields as in [`Surface`]; `cond` None when the test has none).
struct Tail {
    locations: Vec<(RawLoc, Span, bool)>,
    filter: Option<RawProp>,
    cond: Option<(RawQuant, RawProp)>,
}

/// Parses the tail to the end of the text: `locations [...]`, `filter`,
/// the final condition (at most one), `with` entries and `<< >>` blocks
/// (both skipped), with stray `;` between them.
fn parse_tail(c: &mut Cur) -> Result<Tail, Error> {
    let mut tail = Tail {
        locations: Vec::new(),
        filter: None,
        cond: None,
    };
    loop {
        c.skip_ws();
        while c.rest().starts_with(';') {
            c.pos += 1;
            c.skip_ws();
        }
        if c.eof() {
            return Ok(tail);
        }
        if c.rest().starts_with("<<") {
            match c.rest().find(">>") {
                Some(e) => {
                    c.pos += e + 2;
                    continue;
                }
                None => return Err(c.err(Span::new(c.pos, c.pos + 2), "unterminated `<<` block")),
            }
        }
        let wstart = c.pos;
        let w = c.peek_word();
        let wspan = Span::new(wstart, wstart + w.len().max(1));
        match w {
            "locations" => {
                c.pos += w.len();
                parse_locations(c, wspan, &mut tail.locations)?;
            }
            "filter" => {
                c.pos += w.len();
                tail.filter = Some(parse_prop_at(c)?);
            }
            "exists" | "~exists" | "forall" | "final" | "~" => {
                if tail.cond.is_some() {
                    return Err(c.err(wspan, "more than one final condition"));
                }
                tail.cond = Some(parse_condition(c, w)?);
            }
            "with" => {
                c.pos += w.len();
                skip_with(c);
            }
            _ => {
                let shown: String = c
                    .rest()
                    .chars()
                    .take_while(|ch| !ch.is_whitespace())
                    .collect();
                let span = Span::new(wstart, wstart + shown.len().max(1));
                return Err(c.src.error(
                    span,
                    format!("unexpected `{shown}`: expected `exists`, `~exists`, `forall`, `locations` or `filter`"),
                ));
            }
        }
    }
}

/// Parses ` [loc; loc*; ...]` after `locations` (its span `wspan`) into
/// `locations`: each location with its span and whether it is starred.
fn parse_locations(
    c: &mut Cur,
    wspan: Span,
    locations: &mut Vec<(RawLoc, Span, bool)>,
) -> Result<(), Error> {
    c.skip_ws();
    if !c.rest().starts_with('[') {
        return Err(c.err(c.here(), "expected `[` after `locations`"));
    }
    c.pos += 1;
    let (body, bstart) = c
        .until(b']')
        .ok_or_else(|| c.err(wspan, "unterminated `locations [`"))?;
    let mut off = bstart;
    for item in body.split(';') {
        let s = off + (item.len() - item.trim_start().len());
        off += item.len() + 1;
        let t = item.trim();
        if t.is_empty() {
            continue;
        }
        let span = Span::new(s, s + t.len());
        let (t, star) = match t.strip_suffix('*') {
            Some(x) => (x.trim(), true),
            None => (t, false),
        };
        let loc = parse_loc(t).ok_or_else(|| {
            c.src
                .error(span, format!("bad location `{t}` in `locations`"))
        })?;
        locations.push((loc, span, star));
    }
    Ok(())
}

/// Parses the final condition at the cursor, introduced by `w` (`exists`,
/// `final`, `forall`, `~exists` or `~ exists`): its quantifier and
/// proposition.
fn parse_condition(c: &mut Cur, w: &str) -> Result<(RawQuant, RawProp), Error> {
    let q = match w {
        "exists" | "final" => RawQuant::Exists,
        "forall" => RawQuant::Forall,
        "~exists" => RawQuant::NotExists,
        _ => {
            c.pos += 1;
            c.skip_ws();
            if c.peek_word() != "exists" {
                return Err(c.err(c.here(), "expected `exists` after `~`"));
            }
            RawQuant::NotExists
        }
    };
    c.pos += c.peek_word().len();
    let p = parse_prop_at(c)?;
    Ok((q, p))
}

/// Skips the entries `name: kind;` after `with` (old `final` style):
/// herd keeps `exists`.
fn skip_with(c: &mut Cur) {
    loop {
        c.skip_ws();
        let r = c.rest();
        let le = r.find('\n').unwrap_or(r.len());
        let line = &r[..le];
        if line.contains(':') && line.trim_end().ends_with(';') && !line.starts_with("<<") {
            c.pos += le;
        } else {
            break;
        }
    }
}

fn parse_cell(col: &str, col_start: usize) -> Cell {
    let mut labels = Vec::new();
    let mut s = col;
    let mut base = col_start;
    loop {
        let lead = s.len() - s.trim_start().len();
        let t = s.trim_start();
        // A label is an identifier followed by `:` at the start of the cell.
        let id_len = t
            .char_indices()
            .take_while(|(_, ch)| ch.is_ascii_alphanumeric() || *ch == '_' || *ch == '.')
            .map(|(i, ch)| i + ch.len_utf8())
            .last()
            .unwrap_or(0);
        if id_len > 0
            && t[id_len..].starts_with(':')
            && !t[..id_len].starts_with(|c: char| c.is_ascii_digit())
        {
            let st = base + lead;
            labels.push((t[..id_len].to_string(), Span::new(st, st + id_len)));
            s = &t[id_len + 1..];
            base = st + id_len + 1;
        } else {
            break;
        }
    }
    let lead = s.len() - s.trim_start().len();
    let t = s.trim();
    let instr = if t.is_empty() {
        None
    } else {
        let st = base + lead;
        Some((t.to_string(), Span::new(st, st + t.len())))
    };
    Cell { labels, instr }
}

/// Removes the blanks after the colon of a thread prefix (`0: X0`,
/// `P1 : r1` → `0:X0`, `P1:r1`) so that the register is one word.
fn join_thread_colon(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(i) = rest.find(':') {
        let before = rest[..i].trim_end();
        let word = before.rsplit(char::is_whitespace).next().unwrap_or("");
        let w = word.strip_prefix('P').unwrap_or(word);
        let thread = !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
        if thread {
            out.push_str(before);
            out.push(':');
            rest = rest[i + 1..].trim_start();
        } else {
            out.push_str(&rest[..=i]);
            rest = &rest[i + 1..];
        }
    }
    out.push_str(rest);
    out
}

fn parse_init(
    src: &SourceFile,
    text: &str,
    start: usize,
    end: usize,
) -> Result<Vec<InitItem>, Error> {
    let body = &text[start..end];
    let mut items = Vec::new();
    let mut off = start;
    // Split on `;` and newlines, but not inside braces (array initialisers).
    let mut pieces = Vec::new();
    let mut depth = 0;
    let mut last = 0;
    for (i, b) in body.bytes().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b';' | b'\n' if depth == 0 => {
                pieces.push(&body[last..i]);
                last = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(&body[last..]);
    for piece in pieces {
        let pstart = off;
        off += piece.len() + 1;
        let t = piece.trim();
        if t.is_empty() {
            continue;
        }
        let s = pstart + (piece.len() - piece.trim_start().len());
        let span = Span::new(s, s + t.len());
        let (lhs_text, rhs) = match t.split_once('=') {
            Some((l, r)) => (l.trim(), Some(r.trim())),
            None => (t, None),
        };
        // `0: X0` (blanks after a thread's colon) is the register `0:X0`.
        let joined = join_thread_colon(lhs_text);
        let lhs_text = joined.as_str();
        // Drop a type prefix: every word but the last (`int x`, `uint64_t 0:rax`).
        let words: Vec<&str> = lhs_text.split_whitespace().collect();
        let Some(last) = words.last() else {
            return Err(src.error(span, "bad init item: missing location before `=`"));
        };
        let ty = words[..words.len() - 1].join(" ");
        let mut lname = last.trim_start_matches('*');
        if lname.contains('[') && !lname.starts_with('[') {
            items.push(parse_array(src, t, lname, &ty, rhs, span)?);
            continue;
        }
        if lname.is_empty() {
            return Err(src.error(span, format!("bad init item `{t}`")));
        }
        let lhs = if let Some(sym) = lname.strip_prefix('%') {
            if !is_ident(sym) {
                return Err(src.error(span, format!("bad symbolic register `{lname}`")));
            }
            InitLhs::SymReg(lname.to_string())
        } else {
            if lname.starts_with('[') && lname.ends_with(']') {
                lname = lname[1..lname.len() - 1].trim();
                if lname.starts_with("PTE(") || lname.starts_with("PA(") {
                    return Err(src.error(
                        span,
                        format!("unsupported init item `{t}`: page-table entries (cache/tlb)"),
                    ));
                }
                if !is_ident(lname) {
                    return Err(src.error(span, format!("bad memory location in init item `{t}`")));
                }
            }
            match parse_loc(lname) {
                Some(RawLoc::Reg { thread, reg }) => InitLhs::Reg { thread, reg },
                Some(RawLoc::Mem(m)) => InitLhs::Mem(m),
                None => {
                    return Err(
                        src.error(span, format!("bad init item `{t}`: expected `loc = value`"))
                    )
                }
            }
        };
        let rhs = match rhs {
            None => None,
            Some(r) => {
                let rs = s + t.find('=').map(|i| i + 1).unwrap_or(0);
                let rs = rs + (text[rs..].len() - text[rs..].trim_start().len());
                let rspan = Span::new(rs, rs + r.len().max(1));
                let r2 = r.trim_start_matches('&');
                if r.is_empty() {
                    return Err(src.error(
                        span,
                        format!("bad init item `{t}`: missing value after `=`"),
                    ));
                }
                if let Some(v) = parse_int(r2) {
                    Some((RawVal::Int(v), rspan))
                } else if let Some(v) = atomic_init(r2) {
                    Some((RawVal::Int(v), rspan))
                } else if let Some(i) = instr_value(r2) {
                    Some((RawVal::Instr(i), rspan))
                } else if ty.contains("ins_t") && r2 == "NOP" {
                    Some((RawVal::Instr(r2.to_string()), rspan))
                } else if is_ident(r2) {
                    Some((RawVal::Sym(r2.to_string()), rspan))
                } else if let Some(b) = r2.strip_suffix("[0]").filter(|b| is_ident(b)) {
                    // `0:X2=v[0]`: the address of an array's element 0 is
                    // the array's address (herd's `A128`); other elements
                    // fall through to the error below.
                    Some((RawVal::Sym(b.to_string()), rspan))
                } else if let Some((t, l)) = code_label(r2) {
                    Some((RawVal::Label(t, l), rspan))
                } else {
                    let what = init_extension(r2);
                    return Err(src.error(
                        rspan,
                        format!(
                            "unsupported init value `{r}`{what}: expected an integer or a variable name"
                        ),
                    ));
                }
            }
        };
        let unsigned = unsigned_bits(&ty);
        // A memory location typed as a pointer (`ins_t *y`) is 8 bytes.
        let pointer = last.starts_with('*') || ty.ends_with('*');
        let bits = match &lhs {
            InitLhs::Mem(_) if pointer => Some(64),
            _ => type_bits(&ty),
        };
        items.push(InitItem {
            lhs,
            unsigned,
            bits,
            rhs,
            array: None,
            span,
        });
    }
    Ok(items)
}

/// Longest array of the init block (elements).
const MAX_ARRAY: usize = 1024;

/// An array declaration `TYPE v[N]` with optional initialiser
/// `{a, b, …}` (item text `t`, the declarator `decl`, the type `ty`).
/// Elements of 1, 2, 4 or 8 bytes; byte and half-word arrays only in a
/// `Variant=mixed` test (the lowering checks), whose memory is
/// byte-addressed.
fn parse_array(
    src: &SourceFile,
    t: &str,
    decl: &str,
    ty: &str,
    rhs: Option<&str>,
    span: Span,
) -> Result<InitItem, Error> {
    let bad = |m: String| src.error(span, m);
    let (name, rest) = decl.split_once('[').unwrap_or((decl, ""));
    let n: usize = rest
        .strip_suffix(']')
        .and_then(|x| x.trim().parse().ok())
        .filter(|n| (1..=MAX_ARRAY).contains(n))
        .ok_or_else(|| {
            bad(format!(
                "bad array declaration `{t}`: expected `TYPE name[N]` with 1 ≤ N ≤ {MAX_ARRAY}"
            ))
        })?;
    if !is_ident(name) {
        return Err(bad(format!("bad array name in `{t}`")));
    }
    let bytes = match ty.trim() {
        "" | "int" | "int32_t" | "uint32_t" | "unsigned" | "unsigned int" => 4,
        "int64_t" | "uint64_t" | "long" | "unsigned long" | "intptr_t" | "uintptr_t" => 8,
        // Byte and half-word arrays: only in herd's mixed-size variant
        // (checked by the lowering, which has the metadata).
        "int8_t" | "uint8_t" | "char" => 1,
        "int16_t" | "uint16_t" | "short" => 2,
        other => {
            return Err(src.error_help(
                span,
                format!("unsupported init item `{t}`: arrays of `{other}` (byte/half-access: mixed-size cells)"),
                "arrays of 8-, 16-, 32- and 64-bit integers are supported",
            ))
        }
    };
    let mut vals = Vec::new();
    if let Some(r) = rhs {
        let inner = r
            .strip_prefix('{')
            .and_then(|x| x.strip_suffix('}'))
            .ok_or_else(|| {
                bad(format!(
                    "bad array initialiser in `{t}`: expected `{{a, b, …}}`"
                ))
            })?;
        for v in inner.split(',').map(str::trim).filter(|v| !v.is_empty()) {
            let x = parse_int(v).ok_or_else(|| {
                bad(format!(
                    "bad array element `{v}` in `{t}`: expected an integer"
                ))
            })?;
            vals.push(x);
        }
        if vals.len() > n {
            return Err(bad(format!(
                "array `{name}` has {n} elements but {} initial values",
                vals.len()
            )));
        }
    }
    vals.resize(n, 0);
    Ok(InitItem {
        lhs: InitLhs::Mem(name.to_string()),
        unsigned: unsigned_bits(ty),
        bits: Some(bytes * 8),
        rhs: None,
        array: Some((n, bytes, vals)),
        span,
    })
}

/// The bits of a C integer type as herd sizes them (`int8_t`/`char` 8,
/// `int16_t`/`short` 16, `int`/`int32_t`/`unsigned` 32, `int64_t`/`long`/
/// `intptr_t` 64, signed or unsigned); None for no type or another one.
fn type_bits(ty: &str) -> Option<u32> {
    let t = ty.trim();
    let t = t.strip_prefix("unsigned ").unwrap_or(t).trim();
    let t = t
        .strip_prefix('u')
        .filter(|r| r.starts_with("int"))
        .unwrap_or(t);
    Some(match t {
        "int8_t" | "char" => 8,
        "int16_t" | "short" => 16,
        "int" | "int32_t" | "unsigned" => 32,
        "int64_t" | "long" | "intptr_t" | "long long" => 64,
        _ => return None,
    })
}

/// The bits of an unsigned C type (`uint8_t` … `uint64_t`, `unsigned`,
/// `unsigned long`), as herd types locations; None for signed types.
fn unsigned_bits(ty: &str) -> Option<u32> {
    match ty.trim() {
        "uint8_t" => Some(8),
        "uint16_t" => Some(16),
        "uint32_t" | "unsigned" | "unsigned int" => Some(32),
        "uint64_t" | "unsigned long" | "uintptr_t" => Some(64),
        _ => None,
    }
}

// ---------------------------------------------------------------- props

#[derive(Clone, Debug, PartialEq)]
enum PTok {
    And,
    Or,
    Not,
    Implies,
    LParen,
    RParen,
    True,
    False,
    Atom(String),
    End,
}

struct PLex<'a, 'b> {
    c: &'b mut Cur<'a>,
    peeked: Option<(PTok, Span)>,
    /// Nesting of parentheses, `~` and `=>` so far (capped at
    /// [`MAX_PROP_DEPTH`], so that no condition overflows the stack).
    depth: usize,
}

/// Deepest nesting of parentheses, `~` and `=>` accepted in a condition
/// (long `/\` and `\/` chains are flat and not limited).
pub(crate) const MAX_PROP_DEPTH: usize = 256;

impl PLex<'_, '_> {
    fn next_raw(&mut self) -> Result<(PTok, Span), Error> {
        self.c.skip_ws();
        let s = self.c.pos;
        let r = self.c.rest();
        let two = |t: PTok, me: &mut Self| {
            me.c.pos += 2;
            Ok((t, Span::new(s, s + 2)))
        };
        if r.is_empty() || r.starts_with(';') || r.starts_with("<<") {
            return Ok((PTok::End, Span::new(s, s)));
        }
        if r.starts_with("/\\") {
            return two(PTok::And, self);
        }
        if r.starts_with("\\/") {
            return two(PTok::Or, self);
        }
        if r.starts_with("=>") {
            return two(PTok::Implies, self);
        }
        if r.starts_with('(') {
            self.c.pos += 1;
            return Ok((PTok::LParen, Span::new(s, s + 1)));
        }
        if r.starts_with(')') {
            self.c.pos += 1;
            return Ok((PTok::RParen, Span::new(s, s + 1)));
        }
        if let Some(after) = r.strip_prefix('~') {
            // `~exists` after a `filter` starts the final condition.
            let after = after.trim_start();
            if after.starts_with("exists")
                && !after[6..].starts_with(|ch: char| ch.is_ascii_alphanumeric() || ch == '_')
            {
                return Ok((PTok::End, Span::new(s, s)));
            }
            self.c.pos += 1;
            return Ok((PTok::Not, Span::new(s, s + 1)));
        }
        let w = self.c.peek_word();
        match w {
            "not" => {
                self.c.pos += 3;
                return Ok((PTok::Not, Span::new(s, s + 3)));
            }
            "true" => {
                self.c.pos += 4;
                return Ok((PTok::True, Span::new(s, s + 4)));
            }
            "false" => {
                self.c.pos += 5;
                return Ok((PTok::False, Span::new(s, s + 5)));
            }
            "with" | "locations" | "filter" | "exists" | "forall" | "~exists" => {
                return Ok((PTok::End, Span::new(s, s)));
            }
            _ => {}
        }
        // An atom: everything up to an operator, parenthesis, `;` or newline
        // that follows a complete `loc = value`.
        let mut end = 0;
        let b = r.as_bytes();
        let mut seen_eq = false;
        let mut in_str = false;
        while end < b.len() {
            let ch = b[end];
            if ch == b'"' {
                in_str = !in_str;
            } else if !in_str {
                if ch == b'(' || ch == b')' || ch == b';' {
                    break;
                }
                let tail = &b[end..];
                if tail.starts_with(b"/\\") || tail.starts_with(b"\\/") || tail.starts_with(b"=>") {
                    break;
                }
                if ch == b'=' || ch == b'<' || ch == b'!' {
                    seen_eq = true;
                }
                if ch == b'\n' && seen_eq && !r[..end].trim_end().ends_with(['=', '>']) {
                    break;
                }
            }
            end += 1;
        }
        let atom = r[..end].trim_end();
        if atom.is_empty() {
            return Err(self.c.err(self.c.here(), "expected a proposition"));
        }
        self.c.pos += atom.len();
        Ok((PTok::Atom(atom.to_string()), Span::new(s, s + atom.len())))
    }
    fn peek(&mut self) -> Result<&(PTok, Span), Error> {
        if self.peeked.is_none() {
            let t = self.next_raw()?;
            self.peeked = Some(t);
        }
        Ok(self.peeked.as_ref().expect("just set"))
    }
    fn next(&mut self) -> Result<(PTok, Span), Error> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.next_raw(),
        }
    }
}

fn parse_prop_at(c: &mut Cur) -> Result<RawProp, Error> {
    let mut lx = PLex {
        c,
        peeked: None,
        depth: 0,
    };
    let p = parse_implies(&mut lx)?;
    match lx.peek()? {
        (PTok::End, _) => {}
        (_, sp) => {
            let sp = *sp;
            return Err(lx.c.err(sp, "unexpected token in proposition"));
        }
    }
    // Give back a peeked End (it consumed nothing).
    Ok(p)
}

/// Enters one level of nesting at `sp`.
///
/// Errors: nesting deeper than [`MAX_PROP_DEPTH`] (located).
fn deeper(lx: &mut PLex, sp: Span) -> Result<(), Error> {
    lx.depth += 1;
    if lx.depth > MAX_PROP_DEPTH {
        return Err(lx.c.err(
            sp,
            format!("condition nested more than {MAX_PROP_DEPTH} levels deep"),
        ));
    }
    Ok(())
}

fn parse_implies(lx: &mut PLex) -> Result<RawProp, Error> {
    let a = parse_or(lx)?;
    let (t, sp) = lx.peek()?.clone();
    if t == PTok::Implies {
        lx.next()?;
        deeper(lx, sp)?;
        let b = parse_implies(lx)?;
        lx.depth -= 1;
        return Ok(RawProp::Implies(Box::new(a), Box::new(b)));
    }
    Ok(a)
}

/// `a \/ b \/ …`, iteratively (a chain of any length is flat).
fn parse_or(lx: &mut PLex) -> Result<RawProp, Error> {
    let mut v = vec![parse_and(lx)?];
    while lx.peek()?.0 == PTok::Or {
        lx.next()?;
        v.push(parse_and(lx)?);
    }
    Ok(if v.len() == 1 {
        v.remove(0)
    } else {
        RawProp::Or(v)
    })
}

/// `a /\ b /\ …`, iteratively.
fn parse_and(lx: &mut PLex) -> Result<RawProp, Error> {
    let mut v = vec![parse_unary(lx)?];
    while lx.peek()?.0 == PTok::And {
        lx.next()?;
        v.push(parse_unary(lx)?);
    }
    Ok(if v.len() == 1 {
        v.remove(0)
    } else {
        RawProp::And(v)
    })
}

fn parse_unary(lx: &mut PLex) -> Result<RawProp, Error> {
    let (t, sp) = lx.next()?;
    match t {
        PTok::Not => {
            deeper(lx, sp)?;
            let a = parse_unary(lx)?;
            lx.depth -= 1;
            Ok(RawProp::Not(Box::new(a)))
        }
        PTok::True => Ok(RawProp::True),
        PTok::False => Ok(RawProp::False),
        PTok::LParen => {
            deeper(lx, sp)?;
            let p = parse_implies(lx)?;
            lx.depth -= 1;
            match lx.next()? {
                (PTok::RParen, _) => Ok(p),
                (_, sp2) => Err(lx.c.err(sp2, "expected `)` in proposition")),
            }
        }
        PTok::Atom(a) => parse_atom(lx.c.src, &a, sp),
        PTok::End => Err(lx.c.err(
            if sp.start >= lx.c.text.len() {
                Span::new(lx.c.text.len(), lx.c.text.len())
            } else {
                sp
            },
            "truncated condition: expected a proposition",
        )),
        _ => Err(lx.c.err(sp, "expected a proposition")),
    }
}

/// The right side of a condition atom when it is a location rather than a
/// value: a register of a thread (`1:r2`) or a bracketed memory location
/// (`[y]`), as herd reads `0:r1=1:r2` and `x=[y]`.
fn location_value(v: &str) -> Option<RawLoc> {
    let register = v.split_once(':').is_some_and(|(t, r)| {
        !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) && !r.is_empty()
    });
    let bracketed = v.starts_with('[') && v.ends_with(']');
    if register || bracketed {
        parse_loc(v)
    } else {
        None
    }
}

fn parse_atom(src: &SourceFile, a: &str, span: Span) -> Result<RawProp, Error> {
    let (l, v, neq) = if let Some((l, v)) = a.split_once("<>") {
        (l, v, true)
    } else if let Some((l, v)) = a.split_once("!=") {
        (l, v, true)
    } else if let Some((l, v)) = a.split_once("==") {
        (l, v, false)
    } else if let Some((l, v)) = a.split_once('=') {
        (l, v, false)
    } else {
        return Err(src.error(span, format!("bad atom `{a}`: expected `location = value`")));
    };
    let lt = l.trim();
    let loc_span = Span::new(span.start, span.start + l.trim_end().len());
    let loc = parse_loc(lt).ok_or_else(|| src.error(loc_span, format!("bad location `{lt}`")))?;
    let vt = v.trim();
    if let Some(b) = location_value(vt) {
        let bs = span.start + a.len() - v.trim_start().len();
        return Ok(RawProp::Same {
            a: loc,
            b,
            neq,
            span,
            a_span: loc_span,
            b_span: Span::new(bs, bs + vt.len()),
        });
    }
    if let (Some(inner), RawLoc::Mem(m)) =
        (vt.strip_prefix('{').and_then(|x| x.strip_suffix('}')), &loc)
    {
        // A whole array `v={1,2}`: its elements, printed together.
        let mut v = Vec::new();
        for (k, x) in inner.split(',').map(str::trim).enumerate() {
            let Some(i) = parse_int(x) else {
                return Err(src.error(span, format!("bad array value `{vt}` in condition")));
            };
            v.push(RawProp::Atom {
                loc: RawLoc::Mem(format!("{m}{{{k}}}")),
                val: RawVal::Int(i),
                neq: false,
                span,
                loc_span,
            });
        }
        let all = RawProp::And(v);
        return Ok(if neq {
            RawProp::Not(Box::new(all))
        } else {
            all
        });
    }
    let val = if let Some(i) = parse_int(vt) {
        RawVal::Int(i)
    } else if is_ident(vt) {
        RawVal::Sym(vt.to_string())
    } else if let Some((t, l)) = vt.starts_with("label:").then(|| code_label(vt)).flatten() {
        RawVal::Label(t, l)
    } else if let Some(i) = instr_value(vt) {
        RawVal::Instr(i)
    } else {
        let vs = span.start + a.len() - v.trim_start().len();
        return Err(src.error(
            Span::new(vs, vs + vt.len().max(1)),
            format!(
                "unsupported value `{vt}` in condition: expected an integer or a variable name"
            ),
        ));
    };
    Ok(RawProp::Atom {
        loc,
        val,
        neq,
        span,
        loc_span,
    })
}
