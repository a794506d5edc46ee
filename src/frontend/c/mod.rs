//! Front-end for C/pthreads programs (a subset, docs/c.md): the C
//! preprocessor (`cpp` or `gcc -E` as found on `PATH`), the `lang-c`
//! parser, and a lowering of the parsed program to the Program IR.
//!
//! Stages, one module each:
//! * [`preprocess`]: finding and running the preprocessor, the map from
//!   its output back to the original file (`# line` markers), the nesting
//!   pre-check that keeps the parser's recursion bounded, GCC's `$` in
//!   identifiers and `__thread`;
//! * [`types`]: C types as cells of the IR's memory (every scalar is one
//!   W-bit cell), typedefs, structs, enums;
//! * [`builder`]: one thread's automaton under construction: states,
//!   forward jumps (labels), constant propagation over registers;
//! * [`funptr`]: the functions a call through a pointer may reach;
//! * [`ctx`]: the lowering context (globals, threads, inlined call frames);
//! * [`stmt`]: statements, loops unwound to `--unwind`, calls inlined;
//! * [`switch`]: `switch` statements (dispatch on the case constants,
//!   case labels as forward jump targets);
//! * [`expr`]: expressions and lvalues;
//! * [`call`]: calls (user functions inlined, function pointers, atomic
//!   sections) and their dispatch to the built-ins;
//! * [`atomic_section`]: an atomic section's automaton as one
//!   straight-line `Atomic` step (if-conversion, no path enumeration);
//! * [`builtins`]: the built-in functions by group — SV-COMP conventions
//!   there, [`pthreads`], [`memory`] (allocation, block copies),
//!   [`atomics`] (read-modify-writes, C11 atomics, fences).
//!
//! The whole pipeline runs on a thread with a large stack
//! ([`PIPELINE_STACK`]) so that the generated parser's recursion cannot
//! overflow; nesting is capped before parsing ([`preprocess::check_nesting`])
//! and during lowering ([`ctx::MAX_DEPTH`]).

pub mod atomic_section;
pub mod atomics;
pub mod builder;
pub mod builtins;
pub mod call;
pub mod ctx;
pub mod draws;
pub mod expr;
pub mod funptr;
pub mod memory;
pub mod preprocess;
pub mod pthreads;
pub mod stmt;
pub mod switch;
pub mod types;

use crate::diag::{Error, SourceFile};
use crate::program::{Program, Width};

/// Default `--unwind` for C programs: loop iterations (CBMC's meaning:
/// every loop body runs at most this many times on a path).
pub const DEFAULT_UNWIND: u32 = 10;

/// Stack of the thread that parses and lowers a C file (bytes).
pub const PIPELINE_STACK: usize = 256 << 20;

/// Options of the C front-end (`-D`, `--unwind`, `--no-spin-assume`).
#[derive(Clone, Debug)]
pub struct Options {
    /// Macro definitions passed to the preprocessor (`NAME` or
    /// `NAME=VALUE`, as `-D`).
    pub defines: Vec<String>,
    /// Loop iterations per loop on a path (`--unwind N`, ≥ 1).
    pub unwind: u32,
    /// Replace spin loops `while (c);` (empty body, condition free of side
    /// effects other than loads) by the condition's loads and
    /// `assume(!c)` (the source paper's transformation).
    pub spin_assume: bool,
    /// The preprocessor command; `None`: the first of `cpp`, `gcc -E`,
    /// `cc -E`, `clang -E` found on `PATH`.
    pub cpp: Option<Vec<String>>,
    /// Keep loops as cycles: a loop that needs more than `unwind`
    /// iterations continues in a cycle of the automaton (the loop's rest,
    /// lowered once, jumping back to the start of its body) instead of
    /// being cut, unless it is inside an atomic section (one step) or may
    /// create a thread (threads are fixed when the program is lowered).
    /// Goto loops and recursion are still unwound and cut. The program
    /// is then cyclic ([`Program::max_path`] is `None`): for the
    /// explicit-state engines, not for the bounded or SMC engines.
    pub cyclic: bool,
    /// With `cyclic`: keep loops that may create threads as cycles too;
    /// a thread created in such a cycle (or by such a thread) is then
    /// lowered once and listed in [`Lowered::replicated`]: the program
    /// stands for any number of its copies, for the counting abstraction
    /// only ([`crate::engines::explicit::counting`]). A thread
    /// created in a cycle must take a constant argument and not be joined.
    pub replicate: bool,
    /// When [`parse`] gives up ([`Error::Unknown`], exit 3): the lowering
    /// checks it at every statement and expression; `None`: never.
    pub deadline: Option<std::time::Instant>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            defines: Vec::new(),
            unwind: DEFAULT_UNWIND,
            spin_assume: true,
            cpp: None,
            cyclic: false,
            replicate: false,
            deadline: None,
        }
    }
}

/// True for a file name the C front-end reads: `.c`, and `.i` (C that
/// is already preprocessed, [`is_preprocessed_path`]).
pub fn is_c_path(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    p.ends_with(".c") || p.ends_with(".i")
}

/// True for `.i`: C that is already preprocessed (GCC's meaning of the
/// extension, as SV-COMP distributes its tasks); its text is parsed as
/// it is, without running the preprocessor again (`-D` does not apply).
pub fn is_preprocessed_path(path: &str) -> bool {
    path.to_ascii_lowercase().ends_with(".i")
}

/// True when `text` reads as C rather than as one of the other formats
/// (for a file whose extension does not say): its first line that is not
/// blank or a comment is a preprocessor directive or line marker
/// (`#include`, `#define`, `# 1 "f.c"`), or starts with a word only a C
/// declaration starts with (`typedef`, `extern`, `static`, `struct`,
/// `int`, `void`, `__extension__`, ...), none of them a word that starts
/// a native, Trencher, Memorax or litmus file.
pub fn looks_like(text: &str) -> bool {
    let mut in_comment = false;
    for line in text.lines() {
        let mut l = line.trim();
        if in_comment {
            match l.find("*/") {
                Some(i) => {
                    in_comment = false;
                    l = l[i + 2..].trim();
                }
                None => continue,
            }
        }
        while let Some(rest) = l.strip_prefix("/*") {
            match rest.find("*/") {
                Some(i) => l = rest[i + 2..].trim(),
                None => {
                    in_comment = true;
                    l = "";
                }
            }
        }
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        if let Some(d) = l.strip_prefix('#') {
            let d = d.trim_start();
            return ["include", "define", "if", "pragma", "undef", "line"]
                .iter()
                .any(|k| d.starts_with(k))
                || d.starts_with(|c: char| c.is_ascii_digit());
        }
        let word: String = l
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        return matches!(
            word.as_str(),
            "typedef"
                | "extern"
                | "static"
                | "struct"
                | "union"
                | "enum"
                | "int"
                | "void"
                | "char"
                | "unsigned"
                | "signed"
                | "long"
                | "short"
                | "const"
                | "volatile"
                | "inline"
                | "_Bool"
                | "__extension__"
                | "__thread"
                | "_Thread_local"
                | "pthread_t"
                | "pthread_mutex_t"
        );
    }
    false
}

/// Preprocesses, parses and lowers the C program `src` (its text is fed
/// to the preprocessor on standard input; `#include "…"` is searched in
/// the file's directory).
///
/// The result is acyclic (loops unwound, calls inlined):
/// [`Program::max_path`] is its longest path and [`Program::notes`] says
/// which loops `--unwind` cut and how many spin loops became `assume`s.
///
/// Errors: no preprocessor found, or the preprocessor's own error; a
/// syntax error; a construct outside the subset of docs/c.md — each
/// located at the original file's line and column (exit 2);
/// [`Options::deadline`] passed ([`Error::Unknown`], exit 3).
pub fn parse(src: &SourceFile, width: Width, opts: &Options) -> Result<Program, Error> {
    lower_until(src, width, opts, opts.deadline, false).map(|l| l.program)
}

/// A lowered C program with what the lowering knows beyond the IR.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// The program ([`parse`]'s result).
    pub program: Program,
    /// The source lines (of the input file, ascending, distinct) of the
    /// loops, goto loops and recursive calls where `--unwind` ended a path
    /// that needed more iterations. Empty: every path of the C program
    /// runs to its end within the unwinding, so the lowered program has
    /// all of its behaviours.
    pub cut_loops: Vec<usize>,
    /// With unwinding goals ([`lower_until`]): the goals (indices into
    /// `program.goals`, one per thread that has a cut) reached where a
    /// path needs one more iteration than the unwinding gives (CBMC's
    /// unwinding assertions). When none of them is reachable and
    /// `unchecked_cut` is false, the cuts removed no execution.
    pub unwind_goals: Vec<usize>,
    /// A cut ended its path without going to an unwinding goal (one
    /// inside a `__VERIFIER_atomic_*` section, or every cut without
    /// unwinding goals).
    pub unchecked_cut: bool,
    /// With [`Options::replicate`]: the threads created in loops kept as
    /// cycles, any number of copies of each.
    pub replicated: Vec<crate::program::Replicated>,
}

/// [`parse`], giving up at `deadline`, with the loops the unwinding cut;
/// with `unwinding_goals`, a path that needs one more iteration than the
/// unwinding gives goes to its thread's unwinding goal (a goal of kind
/// [`crate::program::GoalKind::Goal`], listed in
/// [`Lowered::unwind_goals`]) instead of ending, so that a reachability
/// check of those goals alone says whether the cuts removed anything.
///
/// Errors: those of [`parse`]; the deadline passed before the lowering
/// ended ([`Error::Unknown`], exit 3).
pub fn lower_until(
    src: &SourceFile,
    width: Width,
    opts: &Options,
    deadline: Option<std::time::Instant>,
    unwinding_goals: bool,
) -> Result<Lowered, Error> {
    let src = src.clone();
    let opts = opts.clone();
    let worker = std::thread::Builder::new()
        .name("c-front-end".into())
        .stack_size(PIPELINE_STACK)
        .spawn(move || pipeline(&src, width, &opts, deadline, unwinding_goals))
        .map_err(|e| Error::Tool(format!("cannot start the C front-end: {e}")))?;
    worker
        .join()
        .unwrap_or_else(|_| Err(Error::Tool("the C front-end failed".into())))
}

/// Preprocess, check nesting, parse, lower (on the big-stack thread).
fn pipeline(
    src: &SourceFile,
    width: Width,
    opts: &Options,
    deadline: Option<std::time::Instant>,
    unwinding_goals: bool,
) -> Result<Lowered, Error> {
    let pp = if is_preprocessed_path(&src.path) {
        preprocess::blank_comments(&src.text)
    } else {
        preprocess::run(src, opts)?
    };
    let (pp, widened) = preprocess::thread_keyword(pp);
    let mut sources = preprocess::Sources::new(src.clone(), &pp);
    sources.set_widened(widened);
    preprocess::check_nesting(&pp, &sources)?;
    let pp = preprocess::dollar_identifiers(pp, &sources)?;
    let config = lang_c::driver::Config::with_gcc();
    let unit = match lang_c::driver::parse_preprocessed(&config, pp) {
        Ok(p) => p.unit,
        Err(e) => {
            let mut expected: Vec<&str> = e.expected.iter().copied().collect();
            expected.sort_unstable();
            expected.truncate(8);
            let span = lang_c::span::Span::span(e.offset, e.offset + 1);
            return Err(sources.error(
                span,
                format!("syntax error: expected one of {}", expected.join(" ")),
            ));
        }
    };
    ctx::lower(&unit, &sources, width, opts, deadline, unwinding_goals)
}
