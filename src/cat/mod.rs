//! The relational model language: a small dialect of herd's cat
//! (Alglave, Maranget, Tautschnig, *Herding cats*, TOPLAS 2014; herd
//! manual). Models are data: `encodings/*.cat` are compiled into the
//! binary, `--model-file` loads a user's file. docs/models.md documents
//! the language.
//!
//! ```text
//! model  := [STRING | NAME] item*
//! item   := 'let' bind ('and' bind)* | 'let' 'rec' bind ('and' bind)*
//!         | ('acyclic' | 'irreflexive' | 'empty') expr ['as' NAME]
//!         | ('show' | 'unshow') NAME (',' NAME)*          (ignored)
//! bind   := NAME '=' expr
//! expr   := e1 ('|' e1)*            union            (lowest)
//! e1     := e2 (';' e2)*            sequence
//! e2     := e3 ('\' e3)*            difference
//! e3     := e4 ('&' e4)*            intersection
//! e4     := e5 ('*' e5)*            cartesian product of two sets
//! e5     := '~' e5 | post           complement
//! post   := atom ('+' | '*' | '?' | '^-1' | '^+' | '^*')*
//! atom   := NAME | '0' | '(' expr ')' | '[' expr ']' | FUN '(' expr ')'
//! FUN    := 'domain' | 'range' | 'fencerel'
//! ```
//! A `*` followed by the start of an atom is the binary product, otherwise
//! the postfix reflexive-transitive closure. Comments are `(* ... *)`.

pub mod eval;
pub mod parse;

use crate::diag::{SourceFile, Span};

/// The type of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A set of events.
    Set,
    /// A binary relation over events.
    Rel,
}

/// Expression node kinds.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A named set or relation (built-in, or a `let` binding's unique key
    /// `name#k` after resolution).
    Name(String),
    /// The empty relation `0`.
    Empty,
    /// `a | b`
    Union(Box<Node>, Box<Node>),
    /// `a & b`
    Inter(Box<Node>, Box<Node>),
    /// `a ; b`
    Seq(Box<Node>, Box<Node>),
    /// `a \ b`
    Diff(Box<Node>, Box<Node>),
    /// `S * T`
    Cart(Box<Node>, Box<Node>),
    /// `~a`
    Compl(Box<Node>),
    /// `r+`
    Plus(Box<Node>),
    /// `r*`
    Star(Box<Node>),
    /// `r?`
    Opt(Box<Node>),
    /// `r^-1`
    Inv(Box<Node>),
    /// `[S]`
    Bracket(Box<Node>),
    /// `domain(r)`
    Domain(Box<Node>),
    /// `range(r)`
    Range(Box<Node>),
    /// `fencerel(S)` = `po; [S]; po`
    FenceRel(Box<Node>),
}

/// An expression node with a unique id (for caches) and its type.
#[derive(Clone, Debug)]
pub struct Node {
    /// Unique within a model.
    pub id: usize,
    /// What it is.
    pub kind: ExprKind,
    /// Where.
    pub span: Span,
    /// Its type (filled by the checker).
    pub ty: Ty,
}

/// What a check requires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckKind {
    /// No cycle.
    Acyclic,
    /// No pair (a, a).
    Irreflexive,
    /// No element at all.
    Empty,
}

/// A top-level item.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let` (rec = false: one binding at a time; rec = true: a group with
    /// least-fixed-point semantics).
    Let {
        /// Mutually recursive group?
        rec: bool,
        /// Bindings in order; names are unique keys `name#k` after
        /// resolution (the part before `#` is the user's name).
        binds: Vec<(String, Node)>,
    },
    /// An axiom.
    Check {
        /// Which.
        kind: CheckKind,
        /// Of what.
        expr: Node,
        /// Its name (`as NAME`, or a generated one).
        name: String,
        /// Where.
        span: Span,
    },
}

/// A parsed, name-resolved and type-checked model.
#[derive(Clone, Debug)]
pub struct Model {
    /// The title (first string or name), or the file stem.
    pub name: String,
    /// Items in order.
    pub stmts: Vec<Stmt>,
    /// Number of expression nodes (ids are `0..nodes`).
    pub nodes: usize,
    /// The source text.
    pub source: SourceFile,
    /// Definition index: binding key (`name#k`) → (statement, binding).
    pub defs: crate::collections::HashMap<String, (usize, usize)>,
}

/// Built-in sets every model may use (events of the unrolled program).
pub const BUILTIN_SETS: &[&str] = &[
    "R", "W", "M", "F", "IW", "A", "MFENCE", "SYNC", "LWSYNC", "ISYNC", "EIEIO", "MEMBAR",
    "MembarLL", "MembarLS", "MembarSL", "MembarSS",
    // PGAS (thesis §8.1.2): remote-operation issue, popa, popb, barrier.
    "ISSUE", "POPA", "POPB", "BAR",
];

/// Built-in relations.
pub const BUILTIN_RELS: &[&str] = &[
    "po", "rf", "co", "fr", "loc", "int", "ext", "id", "addr", "data", "ctrl", "rmw", "univ",
    // PGAS (thesis §8.1.2, §8.2): issue→popa→popb, queue order, barrier matching.
    "op", "fifo", "bar",
];

/// Definitions every model starts with (herd's usual abbreviations).
pub const PRELUDE: &str = "
let po-loc = po & loc
let rfe = rf & ext
let rfi = rf & int
let coe = co & ext
let coi = co & int
let fre = fr & ext
let fri = fr & int
let com = rf | co | fr
";

impl Model {
    /// Every relation/set name the model reads (for deciding which base
    /// relations the encoder must build).
    pub fn uses(&self, name: &str) -> bool {
        fn walk(n: &Node, name: &str) -> bool {
            use ExprKind::*;
            match &n.kind {
                Name(s) => s == name,
                Empty => false,
                Union(a, b) | Inter(a, b) | Seq(a, b) | Diff(a, b) | Cart(a, b) => {
                    walk(a, name) || walk(b, name)
                }
                Compl(a) | Plus(a) | Star(a) | Opt(a) | Inv(a) | Bracket(a) | Domain(a)
                | Range(a) | FenceRel(a) => walk(a, name),
            }
        }
        self.stmts.iter().any(|s| match s {
            Stmt::Let { binds, .. } => binds.iter().any(|(_, e)| walk(e, name)),
            Stmt::Check { expr, .. } => walk(expr, name),
        })
    }
}

impl Model {
    /// The name of an `acyclic` axiom whose relation contains
    /// hb = po ∪ rf ∪ co ∪ fr as a union of its top-level terms (following
    /// `let` names). Such a model makes every consistent execution robust
    /// by construction (SC, thesis 003 Lemma 2.16).
    pub fn acyclic_contains_hb(&self) -> Option<&str> {
        let defs: crate::collections::HashMap<&str, &Node> = self
            .stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Let { rec: false, binds } => Some(binds),
                _ => None,
            })
            .flatten()
            .map(|(n, e)| (n.as_str(), e))
            .collect();
        fn leaves<'m>(
            n: &'m Node,
            defs: &crate::collections::HashMap<&str, &'m Node>,
            out: &mut Vec<&'m str>,
            depth: usize,
        ) {
            if depth > 64 {
                return;
            }
            match &n.kind {
                ExprKind::Union(a, b) => {
                    leaves(a, defs, out, depth + 1);
                    leaves(b, defs, out, depth + 1);
                }
                ExprKind::Plus(a) => leaves(a, defs, out, depth + 1),
                ExprKind::Name(s) => match defs.get(s.as_str()) {
                    Some(d) => leaves(d, defs, out, depth + 1),
                    None => out.push(s),
                },
                _ => {}
            }
        }
        self.stmts.iter().find_map(|s| match s {
            Stmt::Check {
                kind: CheckKind::Acyclic,
                expr,
                name,
                ..
            } => {
                let mut out = Vec::new();
                leaves(expr, &defs, &mut out, 0);
                ["po", "rf", "co", "fr"]
                    .iter()
                    .all(|r| out.contains(r))
                    .then_some(name.as_str())
            }
            _ => None,
        })
    }
}

/// The built-in model files (compiled in): (name, file text).
pub const BUILTIN_MODELS: &[(&str, &str)] = &[
    ("sc", include_str!("../../encodings/sc.cat")),
    ("tso", include_str!("../../encodings/tso.cat")),
    ("pso", include_str!("../../encodings/pso.cat")),
    ("rmo", include_str!("../../encodings/rmo.cat")),
    ("power", include_str!("../../encodings/power.cat")),
    ("pgas", include_str!("../../encodings/pgas.cat")),
];

/// The built-in model a name denotes, resolving aliases (`x86tso` and
/// `x86-tso` are `tso`, `ppc` is `power`); `None` for an unknown name.
/// The one place a model name is resolved.
pub fn builtin_name(name: &str) -> Option<&'static str> {
    let key = match name {
        "x86tso" | "x86-tso" => "tso",
        "ppc" => "power",
        n => n,
    };
    BUILTIN_MODELS.iter().map(|m| m.0).find(|n| *n == key)
}

/// Loads a built-in model by name (aliases: [`builtin_name`]).
///
/// Errors: unknown name (lists the known ones).
pub fn builtin(name: &str) -> Result<Model, crate::diag::Error> {
    match builtin_name(name).and_then(|n| BUILTIN_MODELS.iter().find(|m| m.0 == n)) {
        Some((n, text)) => {
            parse::parse_model(&SourceFile::new(format!("encodings/{n}.cat"), *text))
        }
        None => Err(crate::diag::Error::Usage(format!(
            "unknown model `{name}`; built-in models: {}",
            BUILTIN_MODELS
                .iter()
                .map(|m| m.0)
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Loads the model of `--model NAME` / `--model-file FILE`: the file when
/// given, else the built-in model `name`.
///
/// Errors: unknown name; the file cannot be read; its syntax/type errors.
pub fn load_model(name: &str, file: Option<&str>) -> Result<Model, crate::diag::Error> {
    match file {
        Some(f) => parse::parse_model(&SourceFile::read(f)?),
        None => builtin(name),
    }
}

/// Loads a model given as one word, a built-in name or a `.cat` file (as
/// in `diff --models sc,my.cat`): a spec ending in `.cat`, containing a
/// path separator or naming an existing file is a file.
///
/// Errors: see [`load_model`].
pub fn load_model_spec(spec: &str) -> Result<Model, crate::diag::Error> {
    let is_file = spec.ends_with(".cat")
        || spec.contains('/')
        || spec.contains(std::path::MAIN_SEPARATOR)
        || std::path::Path::new(spec).is_file();
    if is_file {
        load_model("", Some(spec))
    } else {
        load_model(spec, None)
    }
}
