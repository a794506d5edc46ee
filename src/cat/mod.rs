//! The relational model language: a small dialect of herd's cat
//! (Alglave, Maranget, Tautschnig, *Herding cats*, TOPLAS 2014; herd
//! manual). This module owns the AST of a model, the table of compiled-in
//! files (`encodings/*.cat`, among them the stdlib every model starts
//! with) and model loading; [`atomic_steps`] the contraction of the
//! axioms over atomic steps, [`base`] owns the vocabulary of base sets and
//! relations, [`parse`] the syntax and name resolution, [`eval`] the
//! concrete evaluation, [`implied`] what the axioms imply syntactically. Models are data: `--model NAME` picks a
//! compiled-in file, `--model-file` loads a user's file. docs/models.md
//! documents the language.
//!
//! ```text
//! model  := [STRING | NAME] item*
//! item   := 'let' bind ('and' bind)* | 'let' 'rec' bind ('and' bind)*
//!         | ('acyclic' | 'irreflexive' | 'empty') expr ['as' NAME]
//!         | 'include' STRING                  (the file's items, in place)
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
//! `include "FILE"` names a compiled-in file ([`builtin_file`]: `stdlib.cat`,
//! `tso.cat`, …) or a path relative to the including file; every model
//! implicitly starts with `include "stdlib.cat"`.

pub mod atomic_steps;
pub mod base;
pub mod bounds;
pub mod conf;
pub mod eval;
pub mod implied;
pub mod init;
pub mod parse;

use crate::diag::{SourceFile, Span};
use base::{BaseRel, Builtin};

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
    /// A `let` binding: the user's name as parsed, its unique key
    /// `name#k` after resolution.
    Name(String),
    /// A base set or relation (resolution turns the names of
    /// [`base`]'s table into this, unless a `let` shadows them).
    Base(Builtin),
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
    /// Where, in file [`Node::file`].
    pub span: Span,
    /// The file it was read from: an index into [`Model::files`].
    pub file: usize,
    /// Its type (filled by the checker).
    pub ty: Ty,
}

/// What an axiom requires of its expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxiomKind {
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
        kind: AxiomKind,
        /// Of what.
        expr: Node,
        /// Its name (`as NAME`, or a generated one).
        name: String,
        /// Where (in the file of `expr`).
        span: Span,
    },
}

/// herd's `flag ~empty E as NAME`: not a constraint; herd prints
/// `Flag NAME` when E is non-empty on some consistent execution (herd's
/// `lib/interpreter.ml`, `top_herd.ml`: flags are collected over the
/// executions that pass every check).
#[derive(Clone, Debug)]
pub struct Flag {
    /// The flag's name (`data-race`).
    pub name: String,
    /// The key of the hidden `let` binding of E (`flag NAME#k`; a name
    /// no model can write).
    pub key: String,
    /// Where, in file [`Flag::file`].
    pub span: Span,
    /// The file it was read from: an index into [`Model::files`].
    pub file: usize,
    /// The flag's expression is herd's `different-values(r)` (the pairs
    /// of r whose events do not have one value) and E is `r`: an upper
    /// bound of it (so an empty E decides the flag statically), filtered
    /// by the events' values on each candidate the enumeration visits
    /// (`flags_holding` of the varisat encoder).
    pub different_values: bool,
}

/// A parsed, name-resolved and type-checked model.
#[derive(Clone, Debug)]
pub struct Model {
    /// The title (first string or name), or the file stem.
    pub name: String,
    /// Items in order (those of the stdlib and of included files spliced
    /// in where they are included).
    pub stmts: Vec<Stmt>,
    /// Number of expression nodes (ids are `0..nodes`).
    pub nodes: usize,
    /// The model's own file (the one given to the parser).
    pub source: SourceFile,
    /// Every file read, indexed by [`Node::file`]: the stdlib, the model's
    /// file and the included files, in the order they were entered (a file
    /// included twice appears twice).
    pub files: Vec<SourceFile>,
    /// Definition index: binding key (`name#k`) → (statement, binding).
    pub defs: crate::collections::HashMap<String, (usize, usize)>,
    /// herd's flags, in the order read ([`Flag`]).
    pub flags: Vec<Flag>,
    /// Where the model first needs herd's initial writes as events (file
    /// index into [`Model::files`], span): its first `rf^-1` (through
    /// `let` names) or `co0`. When set, the evaluator sees one initial
    /// write per location ([`init`]); `None` keeps them implicit.
    pub init_writes: Option<(usize, Span)>,
    /// Unique per loaded model (clones share it): the key of the
    /// evaluator's values kept between candidates ([`eval`]).
    uid: u64,
    /// The base sets and relations the statements read, sorted
    /// ([`Model::uses`]), computed at the first question; reset with the
    /// uid when the statements change ([`Model::renew`]).
    used: std::sync::OnceLock<Vec<Builtin>>,
}

/// A fresh [`Model`] uid (never 0).
fn next_model_uid() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The stdlib (herd's usual abbreviations: `po-loc`, `rfe`, `com`, …),
/// which every model implicitly includes first.
pub const STDLIB: &str = include_str!("../../encodings/stdlib.cat");

impl Model {
    /// Does the model read base set or relation `b` anywhere (in any
    /// definition or axiom, used or not)? Encoders skip building what no
    /// model reads (e.g. dependencies).
    ///
    /// The statements are walked once per model (the answer is asked for
    /// every test of a batch).
    pub fn uses(&self, b: impl Into<Builtin>) -> bool {
        fn walk(n: &Node, out: &mut Vec<Builtin>) {
            use ExprKind::*;
            match &n.kind {
                Base(x) => out.push(*x),
                Name(_) | Empty => {}
                Union(x, y) | Inter(x, y) | Seq(x, y) | Diff(x, y) | Cart(x, y) => {
                    walk(x, out);
                    walk(y, out);
                }
                Compl(x) | Plus(x) | Star(x) | Opt(x) | Inv(x) | Bracket(x) | Domain(x)
                | Range(x) | FenceRel(x) => walk(x, out),
            }
        }
        let used = self.used.get_or_init(|| {
            let mut out = Vec::new();
            for s in &self.stmts {
                match s {
                    Stmt::Let { binds, .. } => binds.iter().for_each(|(_, e)| walk(e, &mut out)),
                    Stmt::Check { expr, .. } => walk(expr, &mut out),
                }
            }
            out.sort_unstable();
            out.dedup();
            out
        });
        used.binary_search(&b.into()).is_ok()
    }

    /// Gives the model a new identity after its statements changed: a
    /// fresh uid (the evaluator's cached values are not reused) and no
    /// cached [`Model::uses`] answers.
    pub(crate) fn renew(&mut self) {
        self.uid = next_model_uid();
        self.used = std::sync::OnceLock::new();
    }

    /// The file node `n` was read from (for locating a message at
    /// `n.span`).
    pub fn file_of(&self, n: &Node) -> &SourceFile {
        &self.files[n.file]
    }
}

impl Model {
    /// The non-recursive `let` definitions by name (a later binding of a
    /// name replaces an earlier one).
    pub fn let_defs(&self) -> crate::collections::HashMap<&str, &Node> {
        self.stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Let { rec: false, binds } => Some(binds),
                _ => None,
            })
            .flatten()
            .map(|(n, e)| (n.as_str(), e))
            .collect()
    }

    /// The name of an `acyclic` axiom whose relation contains
    /// hb = po ∪ rf ∪ co ∪ fr as a union of its top-level terms (following
    /// `let` names). Such a model makes every consistent execution robust
    /// by construction (SC, thesis 003 Lemma 2.16).
    pub fn acyclic_contains_hb(&self) -> Option<&str> {
        let defs = self.let_defs();
        self.stmts.iter().find_map(|s| match s {
            Stmt::Check {
                kind: AxiomKind::Acyclic,
                expr,
                name,
                ..
            } => {
                let mut out = Vec::new();
                union_members(expr, &defs, &mut |m| {
                    if let ExprKind::Base(b) = &m.kind {
                        out.push(*b)
                    }
                });
                [BaseRel::Po, BaseRel::Rf, BaseRel::Co, BaseRel::Fr]
                    .iter()
                    .all(|r| out.contains(&Builtin::Rel(*r)))
                    .then_some(name.as_str())
            }
            _ => None,
        })
    }
}

/// Calls `f` on each member of `expr` read as a union: through `|`, `+`
/// (a closure contains the members of its operand) and the names of
/// `defs` ([`Model::let_defs`]); every other node is a member, a name
/// not in `defs` is skipped. Depth-limited (64 nested terms), like the
/// model's other walks of user input.
pub fn union_members<'a>(
    expr: &'a Node,
    defs: &crate::collections::HashMap<&str, &'a Node>,
    f: &mut dyn FnMut(&'a Node),
) {
    fn walk<'a>(
        n: &'a Node,
        defs: &crate::collections::HashMap<&str, &'a Node>,
        f: &mut dyn FnMut(&'a Node),
        depth: usize,
    ) {
        if depth > 64 {
            return;
        }
        match &n.kind {
            ExprKind::Union(a, b) => {
                walk(a, defs, f, depth + 1);
                walk(b, defs, f, depth + 1);
            }
            ExprKind::Plus(a) => walk(a, defs, f, depth + 1),
            ExprKind::Name(s) => {
                if let Some(d) = defs.get(s.as_str()) {
                    walk(d, defs, f, depth + 1)
                }
            }
            _ => f(n),
        }
    }
    walk(expr, defs, f, 0)
}

/// The built-in model files (compiled in): (name, file text).
pub const BUILTIN_MODELS: &[(&str, &str)] = &[
    ("sc", include_str!("../../encodings/sc.cat")),
    ("tso", include_str!("../../encodings/tso.cat")),
    ("pso", include_str!("../../encodings/pso.cat")),
    ("rmo", include_str!("../../encodings/rmo.cat")),
    ("power", include_str!("../../encodings/power.cat")),
    ("pgas", include_str!("../../encodings/pgas.cat")),
    ("aarch64", include_str!("../../encodings/aarch64.cat")),
    ("riscv", include_str!("../../encodings/riscv.cat")),
    ("sc-instr", include_str!("../../encodings/sc-instr.cat")),
];

/// The compiled-in file `include "name"` denotes: `stdlib.cat` or a
/// built-in model's file `NAME.cat`; returns the path messages show
/// (`encodings/NAME.cat`) and the text.
pub fn builtin_file(name: &str) -> Option<(String, &'static str)> {
    let text = match name.strip_suffix(".cat")? {
        "stdlib" => STDLIB,
        stem => BUILTIN_MODELS.iter().find(|m| m.0 == stem)?.1,
    };
    Some((format!("encodings/{name}"), text))
}

/// The names of the compiled-in files (for messages).
pub fn builtin_file_names() -> Vec<String> {
    std::iter::once("stdlib")
        .chain(BUILTIN_MODELS.iter().map(|m| m.0))
        .map(|n| format!("{n}.cat"))
        .collect()
}

/// The built-in model a name denotes, resolving aliases (`x86tso` and
/// `x86-tso` are `tso`, `ppc` is `power`, `arm` and `armv8` are
/// `aarch64`, `rvwmo` is `riscv`); `None` for an unknown name.
/// The one place a model name is resolved.
pub fn builtin_name(name: &str) -> Option<&'static str> {
    let key = match name {
        "x86tso" | "x86-tso" => "tso",
        "ppc" => "power",
        "arm" | "armv8" => "aarch64",
        "rvwmo" => "riscv",
        n => n,
    };
    BUILTIN_MODELS.iter().map(|m| m.0).find(|n| *n == key)
}

/// Loads a built-in model by name (aliases: [`builtin_name`]).
///
/// Errors: unknown name (lists the known ones).
pub fn builtin(name: &str) -> Result<Model, crate::diag::Error> {
    match builtin_name(name).and_then(|n| BUILTIN_MODELS.iter().find(|m| m.0 == n)) {
        Some((n, text)) => parse::parse_model_from(
            &SourceFile::new(format!("encodings/{n}.cat"), *text),
            parse::Origin::Builtin,
        ),
        None => Err(crate::diag::Error::UnknownName(format!(
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
