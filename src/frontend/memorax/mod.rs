//! Front-end for Memorax's RMM language (the `.rmm` programs of the
//! Memorax tool, `shared/corpus/memorax/README.md` gives the grammar):
//! `forbidden` control-point tuples (→ goals), global `data`, processes
//! with `process(N)` replication, per-process arrays (`x[my]`, `x[k]`),
//! pointers `[e]` to globals, `locked`, `either`/`or`, `cas`, `while`,
//! `if`, `goto`, `macro … endmacro`, fences, `*` initial values.
//!
//! Stages: [`lex`] (tokens, macro expansion), [`parse`] (this module's
//! AST), [`lower`] (AST → Program IR; the meaning of each construct is
//! documented there and in docs/memorax.md). VIPS-M constructs
//! (`syncrd`, `syncwr`, `slocked`) are a located error: bmc-rmm does not
//! model VIPS-M.

pub mod lex;
pub mod lower;
pub mod parse;

use crate::diag::{Error, SourceFile, Span};
use crate::program::{BinOp, Program, Width};

/// An initial value: a constant or `*` (any value of the domain).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    /// A constant.
    Value(i64),
    /// `*`: nondeterministic.
    Any,
}

/// A declaration `NAME = init [: domain]` (domain `None` = `Z`).
#[derive(Clone, Debug)]
pub struct Decl {
    /// Variable or register name (registers without `$`).
    pub name: String,
    /// Initial value.
    pub init: Init,
    /// `[lo:hi]`, or `None` for `Z` / no domain.
    pub domain: Option<(i64, i64)>,
    /// Where it was declared.
    pub span: Span,
}

/// An arithmetic or Boolean expression over registers.
#[derive(Clone, Debug)]
pub enum MExpr {
    /// A constant (also `true` = 1, `false` = 0).
    Const(i64, Span),
    /// A register (without `$`).
    Reg(String, Span),
    /// Negation `-e`.
    Neg(Box<MExpr>),
    /// `not e`.
    Not(Box<MExpr>),
    /// A binary operation (`+ - = != < > <= >= && ||`, as IR operators).
    Bin(BinOp, Box<MExpr>, Box<MExpr>),
}

/// A memory location.
#[derive(Clone, Debug)]
pub enum MemLoc {
    /// A global variable.
    Global(String, Span),
    /// `x[my]`: the process's own cell of a per-process array.
    Mine(String, Span),
    /// `x[k]`: the k-th other process's cell.
    Other(String, i64, Span),
    /// `[e]`: the e-th global variable in declaration order.
    Pointer(MExpr, Span),
}

/// A statement with its labels.
#[derive(Clone, Debug)]
pub struct LStmt {
    /// Labels naming the control point before the statement.
    pub labels: Vec<(String, Span)>,
    /// The statement.
    pub stmt: Stmt,
    /// Where it starts.
    pub span: Span,
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `nop`.
    Nop,
    /// `fence`.
    Fence,
    /// `ssfence` (store-store fence).
    SsFence,
    /// `llfence` (load-load fence).
    LlFence,
    /// `$r := e`.
    Assign(String, MExpr),
    /// `assume: b`.
    Assume(MExpr),
    /// `read: $r := m`.
    Load(String, MemLoc),
    /// `read: m = e` (blocks unless the value read equals e).
    ReadEq(MemLoc, MExpr),
    /// `write: m := e`.
    Store(MemLoc, MExpr),
    /// `locked write: m := e`.
    LockedWrite(MemLoc, MExpr),
    /// `locked { A or B … }`: each alternative runs atomically.
    Locked(Vec<Vec<LStmt>>),
    /// `either { A or B … }`.
    Either(Vec<Vec<LStmt>>),
    /// `cas(m, old, new)` (blocks unless m holds old).
    Cas(MemLoc, MExpr, MExpr),
    /// `goto L`.
    Goto(String, Span),
    /// `{ A }`.
    Block(Vec<LStmt>),
    /// `if b then A [else B]`.
    If(MExpr, Box<LStmt>, Option<Box<LStmt>>),
    /// `while b do A`.
    While(MExpr, Box<LStmt>),
}

/// A process declaration (before replication).
#[derive(Clone, Debug)]
pub struct Process {
    /// `process(N)`: how many copies (default 1).
    pub copies: u32,
    /// Per-process array declarations (`data` inside the process).
    pub data: Vec<Decl>,
    /// Registers.
    pub regs: Vec<Decl>,
    /// The text.
    pub text: Vec<LStmt>,
    /// Where `process` was written.
    pub span: Span,
}

/// A whole Memorax file.
#[derive(Clone, Debug)]
pub struct File {
    /// `forbidden` rows: one label or `*` (`None`) per process.
    pub forbidden: Vec<Vec<Option<(String, Span)>>>,
    /// Where each row starts.
    pub forbidden_spans: Vec<Span>,
    /// Global variables.
    pub data: Vec<Decl>,
    /// The processes in order.
    pub processes: Vec<Process>,
}

/// Parses a Memorax file into the Program IR.
///
/// Errors: syntax errors, unknown names and labels, VIPS-M constructs,
/// constants that do not fit `width` (located; docs/memorax.md).
pub fn parse_file(src: &SourceFile, width: Width) -> Result<Program, Error> {
    let toks = lex::tokenize(src)?;
    let toks = lex::expand(src, toks)?;
    let file = parse::parse(src, &toks)?;
    lower::lower(src, &file, width)
}

/// True if the text is a Memorax program: its first word outside
/// comments is `forbidden`.
pub fn looks_like(text: &str) -> bool {
    first_word_offset(text).is_some()
}

/// The byte offset of a leading `forbidden` keyword (after comments and
/// white space), if any.
pub fn first_word_offset(text: &str) -> Option<usize> {
    let mut t = text.trim_start();
    while let Some(rest) = t.strip_prefix("/*") {
        t = rest
            .split_once("*/")
            .map(|x| x.1)
            .unwrap_or("")
            .trim_start();
    }
    let ok = t.starts_with("forbidden") && t[9..].chars().next().is_none_or(char::is_whitespace);
    ok.then(|| text.len() - t.len())
}
