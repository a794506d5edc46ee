//! The lowering context of a C translation unit: global memory (globals,
//! `static` locals, locals whose address is taken, thread start/done
//! flags), the threads (`main`, then one per `pthread_create` site in
//! creation order), inlined call frames, and [`lower`], the driver.
//!
//! Threads: thread `T` ≠ `main` starts by waiting for its start flag
//! (`load; assume(flag == 1)`), which the creating thread sets after an
//! `mfence` (so everything it wrote before `pthread_create` is visible);
//! when the program joins threads, `T` ends with an `mfence` and a store
//! of 1 to its done flag, which `pthread_join` waits for. Assertion
//! failures of a thread all lead to one error state, one goal per thread.

use super::builder::{Builder, LabelId};
use super::preprocess::Sources;
use super::types::{declarator_name, is_function, CType, Types};
use super::Options;
use crate::diag::{Error, Span};
use crate::engines::bounded::Deadline;
use crate::program::{
    Command, Expr, Goal, GoalAt, GoalKind, LExpr, Program, RegId, SharedVar, StateId, ThreadId,
    Width,
};
use lang_c::ast::{
    Declaration, DeclarationSpecifier, Expression, ExternalDeclaration, FunctionDefinition,
    Initializer, TranslationUnit, TypeSpecifier,
};
use lang_c::span::Node;
use std::collections::{HashMap, HashSet, VecDeque};

/// Deepest nesting of statements, expressions and inlined calls.
pub const MAX_DEPTH: usize = 256;

/// Most iterations of a loop whose condition is decided by constants
/// (unrolled beyond `--unwind`).
pub const MAX_CONST_ITERATIONS: u32 = 4096;

/// A global object.
#[derive(Clone, Debug)]
pub struct Global {
    /// First cell.
    pub addr: i64,
    /// Its type.
    pub ty: CType,
    /// `_Atomic`: stores are locked.
    pub atomic: bool,
    /// `Some(init)` for a thread-local object (`_Thread_local`,
    /// `__thread`): each thread has its own copy, allocated when the
    /// thread is lowered, with these initial cells (offset, value); `addr`
    /// is then unused (docs/c.md, "Thread-local objects").
    pub thread_local: Option<Vec<(u64, i64)>>,
}

/// A local variable: a register, or cells of memory.
#[derive(Clone, Debug)]
pub enum Local {
    /// A register.
    Reg(RegId, CType),
    /// Memory at a fixed address.
    Mem(i64, CType, bool),
}

/// At most this many values make a bounded draw (a wider range is drawn
/// whole: the narrowing would not help).
const MAX_VALUES: i64 = 1 << 16;

/// A draw into the register local `name` that the next statement bounds
/// ([`super::draws`] finds it; the draw takes it from [`Ctx::draw`]):
/// the bounds found (`lo`, `hi`, inclusive; `None`: no bound on that
/// side).
#[derive(Clone, Debug)]
pub struct Bounded {
    /// The local the draw is assigned to.
    pub name: String,
    /// The least value the assumption lets through, if it bounds below.
    pub lo: Option<i64>,
    /// The greatest value the assumption lets through, if it bounds above.
    pub hi: Option<i64>,
}

impl Bounded {
    /// The range `[lo, hi]` to draw from for a draw of a type that is
    /// `unsigned` or not and has `bits` bits, when it holds at most
    /// [`MAX_VALUES`] values inside the type's range.
    pub fn range(&self, unsigned: bool, bits: u32) -> Option<(i64, i64)> {
        let (tmin, tmax) = if unsigned {
            (0i128, (1i128 << bits) - 1)
        } else {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        };
        let lo = self.lo.map(i128::from).unwrap_or(tmin).max(tmin);
        let hi = self.hi.map(i128::from).unwrap_or(tmax).min(tmax);
        (lo <= hi && hi - lo < i128::from(MAX_VALUES)).then_some((lo as i64, hi as i64))
    }
}

/// One inlined function call.
pub struct Frame {
    /// The function.
    pub func: String,
    /// Block scopes, innermost last.
    pub scopes: Vec<HashMap<String, Local>>,
    /// Label scopes (function body, loop body copies), innermost last.
    pub label_scopes: Vec<HashMap<String, LabelId>>,
    /// `break` and `continue` targets of the enclosing loops and
    /// switches (innermost last; a switch has no `continue` target).
    pub loops: Vec<(LabelId, Option<LabelId>)>,
    /// The case labels of the switches being lowered, innermost last:
    /// each label's target by the label's span (start, end) in the
    /// preprocessed text (`frontend::c::switch`).
    pub switches: Vec<HashMap<(usize, usize), LabelId>>,
    /// Where `return` goes.
    pub ret: LabelId,
    /// The register receiving the returned value.
    pub ret_reg: Option<(RegId, CType)>,
    /// Names whose address the function takes (they live in memory).
    pub addr_taken: HashSet<String>,
    /// The call's value is discarded (`f();` as a statement).
    pub discard: bool,
}

/// What a new thread receives as its argument.
#[derive(Clone, Copy, Debug)]
pub enum ThreadArg {
    /// A value known when the thread is created.
    Const(i64),
    /// A cell the creator wrote before starting the thread.
    Cell(i64),
}

/// A thread created but not yet lowered.
pub struct PendingThread<'a> {
    /// Its id.
    pub id: usize,
    /// The start function.
    pub func: &'a Node<FunctionDefinition>,
    /// The argument.
    pub arg: ThreadArg,
    /// Created in a loop kept as a cycle, or by such a thread
    /// ([`super::Options::replicate`]).
    pub replicated: bool,
}

/// The lowering context.
pub struct Ctx<'a> {
    /// The sources (for errors and spans).
    pub src: &'a Sources,
    /// Value width.
    pub width: Width,
    /// Front-end options.
    pub opts: &'a Options,
    /// Type tables.
    pub types: Types<'a>,
    /// Function definitions by name.
    pub funcs: HashMap<String, &'a Node<FunctionDefinition>>,
    /// Global objects by name.
    pub globals: HashMap<String, Global>,
    /// The program being built.
    pub prog: Program,
    next_addr: i64,
    /// Threads created, not yet lowered.
    pub pending: VecDeque<PendingThread<'a>>,
    /// Thread names by id.
    pub thread_names: Vec<String>,
    /// Start flag of each thread (`main`'s unused).
    pub start_flags: Vec<i64>,
    /// Done flag of each thread.
    pub done_flags: Vec<i64>,
    /// True when the program calls `pthread_join`.
    pub uses_join: bool,
    /// The thread being built.
    pub b: Builder,
    /// Its inlined call frames.
    pub frames: Vec<Frame>,
    /// Its id.
    pub thread: usize,
    /// The current thread's copies of the thread-local objects: global
    /// key → first cell.
    pub tls: HashMap<String, i64>,
    /// The cell atomic sections access on the paths they do not take
    /// (allocated on first use).
    pub unused: Option<i64>,
    /// Where a failed assertion of this thread goes.
    pub error: Option<(LabelId, Span)>,
    /// Where the thread ends (`pthread_exit`, return of its function).
    pub end: Option<LabelId>,
    /// Where an out-of-bounds array index of this thread goes (docs/c.md,
    /// "Array indices").
    pub bounds: Option<(LabelId, Span)>,
    /// Every object's cells `[start, end)`, in allocation order.
    pub objects: Vec<(i64, i64)>,
    /// Inside the body of a `__VERIFIER_atomic_*` function (its paths
    /// become single steps: indices there are not split).
    pub in_atomic: usize,
    /// Lowering the operand of `&` (one past the end is a valid index).
    pub addr_of: bool,
    /// Memory cells of locals: (thread, function, name, declaration
    /// offset) → address.
    pub local_cells: HashMap<(usize, String, String, usize), i64>,
    /// Loops cut by `--unwind` (source lines, in order).
    pub cut_loops: Vec<usize>,
    /// Spin loops replaced by `assume`.
    pub spin_loops: usize,
    /// Loops kept as cycles ([`super::Options::cyclic`]).
    pub cyclic_loops: usize,
    /// Lowering the cycle of a loop that may create threads, or a
    /// replicated thread ([`super::Options::replicate`]): a thread
    /// created here is replicated.
    pub replicating: usize,
    /// Lowering the rest of a loop kept as a cycle (its allocations
    /// would be one object for every iteration).
    pub in_cycle: usize,
    /// The replicated threads lowered so far.
    pub replicated: Vec<crate::program::Replicated>,
    /// Nesting depth of the lowering recursion.
    pub depth: usize,
    /// When to give up lowering ([`Error::Unknown`]; no instant: never);
    /// checked with the memory budget ([`Ctx::check_limits`]).
    pub deadline: Deadline,
    /// Whether a cut of `--unwind` goes to the thread's unwinding goal
    /// instead of ending the path ([`super::Lowered::unwind_goals`]).
    pub unwinding_goals: bool,
    /// Where this thread's cuts go (with `unwinding_goals`).
    pub unwound: Option<(LabelId, Span)>,
    /// The draw the block item being lowered makes, when the next item
    /// bounds it ([`super::draws`]); taken by the draw.
    pub draw: Option<Bounded>,
    /// The next inlined call's value is discarded (`f();` as a
    /// statement); taken by [`Ctx::inline_body`] into its frame.
    pub discard_result: bool,
    /// A cut that ended its path without an unwinding goal (inside an
    /// atomic section, or without `unwinding_goals`).
    pub unchecked_cut: bool,
    /// The unwinding goals made (indices into `Program::goals`).
    pub unwind_goals: Vec<usize>,
    /// Address-taken sets per function.
    addr_cache: HashMap<String, HashSet<String>>,
    /// Objects declared `extern` without an initializer (defined on first
    /// use when the file does not define them).
    #[allow(clippy::type_complexity)]
    pub externs: HashMap<
        String,
        (
            &'a [Node<DeclarationSpecifier>],
            &'a Node<lang_c::ast::InitDeclarator>,
        ),
    >,
    /// String literals' objects by their characters.
    pub strings: HashMap<Vec<i64>, i64>,
    /// Functions declared (with or without a body) at file scope.
    pub fn_decls: HashSet<String>,
    /// The address of each function used as a value (docs/c.md,
    /// "Function pointers"), and back.
    pub fn_addrs: HashMap<String, i64>,
    /// Function name by address.
    pub fn_names: HashMap<i64, String>,
    /// The targets of calls through pointers whose value is not known
    /// (`funptr::address_taken`), in name order.
    pub fn_targets: Vec<String>,
    /// Where a call through an invalid function pointer (null, or no
    /// function's address) of this thread goes.
    pub bad_call: Option<(LabelId, Span)>,
    /// Where a call of a function declared but not defined in the file
    /// (and not a built-in) of this thread goes.
    pub extern_call: Option<(LabelId, Span)>,
}

impl<'a> Ctx<'a> {
    /// Enters one level of recursion.
    ///
    /// Errors: deeper than [`MAX_DEPTH`] (located at `span`).
    pub fn enter(&mut self, span: lang_c::span::Span) -> Result<(), Error> {
        self.check_limits()?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.src.error(
                span,
                format!("statements, expressions or calls nested deeper than {MAX_DEPTH}"),
            ));
        }
        Ok(())
    }

    /// The resource check of the lowering ([`Deadline::check`]: the
    /// deadline and the process's memory budget), made at every
    /// statement, expression and call ([`Ctx::enter`], so at every
    /// iteration of an unwound loop) and between the passes that finish
    /// a thread.
    ///
    /// Errors: [`Error::Unknown`] naming the limit that was reached,
    /// "while lowering the C program".
    pub fn check_limits(&self) -> Result<(), Error> {
        super::builder::check_limits(&self.deadline)
    }

    /// Leaves one level of recursion.
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Runs `f` one level of recursion deeper ([`Ctx::enter`] at `span`,
    /// [`Ctx::leave`] after `f`, whatever it returns).
    ///
    /// Errors: those of [`Ctx::enter`] and of `f`.
    pub fn nested<T>(
        &mut self,
        span: lang_c::span::Span,
        f: impl FnOnce(&mut Self) -> Result<T, Error>,
    ) -> Result<T, Error> {
        self.enter(span)?;
        let r = f(self);
        self.leave();
        r
    }

    /// The IR span of a parser span.
    pub fn span(&self, s: lang_c::span::Span) -> Span {
        self.src.span(s)
    }

    /// A located error.
    pub fn err(&self, s: lang_c::span::Span, msg: impl Into<String>) -> Error {
        self.src.error(s, msg)
    }

    /// Emits a command at parser span `s`.
    ///
    /// Errors: the thread outgrows its instruction limit.
    pub fn emit(&mut self, cmd: Command, s: lang_c::span::Span) -> Result<(), Error> {
        let sp = self.span(s);
        self.b.emit(cmd, sp)
    }

    /// Allocates `size` cells named `name` with initial values `init`
    /// (offset → value, zeros omitted).
    ///
    /// Errors: the object has no cells (an array without a length, such
    /// as `int a[];` or `int a[*];` outside a parameter list: C gives a
    /// tentative `int a[];` one element at the end of the file, which is
    /// not modelled); the addresses outgrow the width.
    pub fn alloc(
        &mut self,
        name: &str,
        size: u64,
        init: &[(u64, i64)],
        span: lang_c::span::Span,
    ) -> Result<i64, Error> {
        if size == 0 {
            return Err(self.err(
                span,
                format!("object `{name}` has no cells (an array without a length)"),
            ));
        }
        let addr = self.next_addr;
        let end = addr.saturating_add(size as i64);
        if !self.width.fits(end) || end > self.width.max() {
            return Err(self.err(
                span,
                format!(
                    "the program's memory ({end} cells) does not fit --width {} addresses; {}",
                    self.width.0,
                    self.width.raise_hint()
                ),
            ));
        }
        self.next_addr = end;
        self.objects.push((addr, end));
        if let Some(m) = &mut self.b.init_mem {
            // A new object (heap, static local): no store reached it yet.
            for a in addr..end {
                let o = (a - addr) as u64;
                m.insert(
                    a,
                    init.iter()
                        .find(|x| x.0 == o)
                        .map_or(0, |x| self.width.wrap(x.1)),
                );
            }
        }
        let mut unique = name.to_string();
        let mut k = 1;
        while self
            .prog
            .vars
            .iter()
            .any(|v| self.prog.name(v.name) == unique)
        {
            k += 1;
            unique = format!("{name}_{k}");
        }
        let sym = self.prog.names.intern(&unique);
        let first = init
            .iter()
            .find(|(o, _)| *o == 0)
            .map_or(0, |x| self.width.wrap(x.1));
        self.prog.vars.push(SharedVar {
            name: sym,
            addr,
            init: first,
            span: self.span(span),
        });
        for &(o, v) in init {
            if v != 0 {
                self.prog.init.insert(addr + o as i64, self.width.wrap(v));
            }
        }
        Ok(addr)
    }

    /// The current frame.
    pub fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a frame")
    }

    /// Looks a name up: locals of the current function, then globals.
    pub fn lookup(&self, name: &str) -> Option<Local> {
        if let Some(f) = self.frames.last() {
            for s in f.scopes.iter().rev() {
                if let Some(l) = s.get(name) {
                    return Some(l.clone());
                }
            }
        }
        let g = self.globals.get(name)?;
        let addr = match &g.thread_local {
            None => g.addr,
            Some(_) => *self.tls.get(name)?,
        };
        Some(Local::Mem(addr, g.ty.clone(), g.atomic))
    }

    /// The first cell of the current thread's copy of the thread-local
    /// global `key`, allocated (`NAME.THREAD`, with the object's initial
    /// cells) on the thread's first use.
    ///
    /// Errors: `key` is not a thread-local global; the memory does not
    /// fit the width.
    pub fn tls_copy(&mut self, key: &str, span: lang_c::span::Span) -> Result<i64, Error> {
        if let Some(&a) = self.tls.get(key) {
            return Ok(a);
        }
        let Some(g) = self.globals.get(key) else {
            return Err(self.err(span, format!("`{key}` is not a global object")));
        };
        let Some(init) = g.thread_local.clone() else {
            return Err(self.err(span, format!("`{key}` is not thread-local")));
        };
        let size = self.types.size(&g.ty);
        let name = format!(
            "{}.{}",
            key.replace("::", "."),
            self.thread_names[self.thread]
        );
        let a = self.alloc(&name, size, &init, span)?;
        self.tls.insert(key.to_string(), a);
        Ok(a)
    }

    /// Declares a local of the current function in the innermost scope:
    /// in memory when it is an array or struct or its address is taken,
    /// else a register.
    ///
    /// Errors: the memory does not fit the width.
    pub fn bind_local(
        &mut self,
        name: &str,
        ty: CType,
        atomic: bool,
        decl: lang_c::span::Span,
    ) -> Result<Local, Error> {
        if let Some(tag) = self.types.incomplete(&ty) {
            return Err(self.err(
                decl,
                format!("local `{name}` has the incomplete type `struct {tag}`"),
            ));
        }
        let f = self.frames.last().expect("a frame");
        let func = f.func.clone();
        let in_mem =
            matches!(ty, CType::Array(..) | CType::Struct(_)) || f.addr_taken.contains(name);
        let local = if in_mem {
            let key = (self.thread, func.clone(), name.to_string(), decl.start);
            let addr = match self.local_cells.get(&key) {
                Some(&a) => a,
                None => {
                    let size = self.types.size(&ty);
                    let tname = self.thread_names[self.thread].clone();
                    let a = self.alloc(&format!("{tname}.{func}.{name}"), size, &[], decl)?;
                    self.local_cells.insert(key, a);
                    a
                }
            };
            Local::Mem(addr, ty, atomic)
        } else {
            let base = if self.frames.len() == 1 {
                name.to_string()
            } else {
                format!("{func}.{name}")
            };
            // A name bound in an enclosing scope of any active frame gets
            // its own register (shadowing).
            let live: HashSet<RegId> = self
                .frames
                .iter()
                .flat_map(|f| f.scopes.iter())
                .flat_map(|s| s.values())
                .filter_map(|l| match l {
                    Local::Reg(r, _) => Some(*r),
                    _ => None,
                })
                .collect();
            let mut rname = base.clone();
            let mut k = 1;
            while self.b.has_reg(&rname) && live.contains(&self.b.reg(&rname)) {
                k += 1;
                rname = format!("{base}'{k}");
            }
            Local::Reg(self.b.reg(&rname), ty)
        };
        self.frame()
            .scopes
            .last_mut()
            .expect("a scope")
            .insert(name.to_string(), local.clone());
        Ok(local)
    }

    /// The names whose address function `f` takes (other than the handle
    /// of `pthread_create`, which may stay a register).
    pub fn addr_taken(&mut self, f: &'a Node<FunctionDefinition>) -> HashSet<String> {
        let name = declarator_name(&f.node.declarator).unwrap_or_default();
        if let Some(s) = self.addr_cache.get(&name) {
            return s.clone();
        }
        let mut v = AddrTaken::default();
        lang_c::visit::Visit::visit_statement(
            &mut v,
            &f.node.statement.node,
            &f.node.statement.span,
        );
        self.addr_cache.insert(name, v.names.clone());
        v.names
    }

    /// The register of a fresh copy of a value (so that later code cannot
    /// change it); constants stay constants.
    ///
    /// Errors: see [`Ctx::emit`].
    pub fn stable(&mut self, e: LExpr, s: lang_c::span::Span) -> Result<LExpr, Error> {
        let e = self.b.fold(&e);
        if matches!(e, Expr::Const(_)) {
            return Ok(e);
        }
        let t = self.b.temp();
        self.emit(Command::Assign { reg: t, value: e }, s)?;
        Ok(match self.b.known(t) {
            Some(c) => Expr::Const(c),
            None => Expr::Var(t),
        })
    }

    /// Jumps to this thread's error state (an assertion failed).
    pub fn fail(&mut self, s: lang_c::span::Span) {
        let sp = self.span(s);
        self.b.jump_shared(&mut self.error, sp);
    }

    /// The unwinding bound at `s` (a loop, goto loop or recursive call):
    /// this path would need one more iteration. Recorded in `cut_loops`;
    /// the path goes to the thread's unwinding goal (with
    /// `unwinding_goals`, outside atomic sections), else it ends.
    pub fn cut_here(&mut self, s: lang_c::span::Span) {
        self.cut_loops.push(self.src.line(s));
        if self.unwinding_goals && self.in_atomic == 0 {
            let sp = self.span(s);
            self.b.jump_shared(&mut self.unwound, sp);
        } else {
            self.unchecked_cut |= self.b.live();
        }
        self.b.cur = None;
    }
}

/// Collects `&name` operands (not the first argument of
/// `pthread_create`).
#[derive(Default)]
struct AddrTaken {
    names: HashSet<String>,
    skip: usize,
}

impl<'ast> lang_c::visit::Visit<'ast> for AddrTaken {
    fn visit_unary_operator_expression(
        &mut self,
        n: &'ast lang_c::ast::UnaryOperatorExpression,
        span: &'ast lang_c::span::Span,
    ) {
        if n.operator.node == lang_c::ast::UnaryOperator::Address {
            if let Expression::Identifier(i) = &n.operand.node {
                if self.skip == 0 {
                    self.names.insert(i.node.name.clone());
                }
            }
        }
        lang_c::visit::visit_unary_operator_expression(self, n, span);
    }

    fn visit_call_expression(
        &mut self,
        n: &'ast lang_c::ast::CallExpression,
        span: &'ast lang_c::span::Span,
    ) {
        let is_create =
            matches!(&n.callee.node, Expression::Identifier(i) if i.node.name == "pthread_create");
        if is_create {
            self.visit_expression(&n.callee.node, &n.callee.span);
            for (k, a) in n.arguments.iter().enumerate() {
                let plain = k == 0
                    && matches!(&a.node, Expression::UnaryOperator(u)
                    if u.node.operator.node == lang_c::ast::UnaryOperator::Address
                        && matches!(u.node.operand.node, Expression::Identifier(_)));
                if plain {
                    self.skip += 1;
                }
                self.visit_expression(&a.node, &a.span);
                if plain {
                    self.skip -= 1;
                }
            }
        } else {
            lang_c::visit::visit_call_expression(self, n, span);
        }
        let _ = span;
    }
}

/// Finds calls of `pthread_join`.
#[derive(Default)]
struct Calls {
    join: bool,
}

impl<'ast> lang_c::visit::Visit<'ast> for Calls {
    fn visit_call_expression(
        &mut self,
        n: &'ast lang_c::ast::CallExpression,
        span: &'ast lang_c::span::Span,
    ) {
        if let Expression::Identifier(i) = &n.callee.node {
            let name = i.node.name.as_str();
            if name == "pthread_join" {
                self.join = true;
            }
        }
        lang_c::visit::visit_call_expression(self, n, span);
    }
}

/// Collects the struct definitions (tag and fields) of file-scope
/// declarations, nested ones included.
#[derive(Default)]
struct TagDefs<'ast> {
    defs: Vec<&'ast Node<lang_c::ast::StructType>>,
}

impl<'ast> lang_c::visit::Visit<'ast> for TagDefs<'ast> {
    fn visit_type_specifier(&mut self, n: &'ast TypeSpecifier, span: &'ast lang_c::span::Span) {
        if let TypeSpecifier::Struct(st) = n {
            if st.node.identifier.is_some() && st.node.declarations.is_some() {
                self.defs.push(st);
            }
        }
        lang_c::visit::visit_type_specifier(self, n, span);
    }
}

/// Lowers a parsed translation unit to the Program IR (module doc), giving
/// up at `deadline`.
///
/// Errors: constructs outside the subset (located), no `main`; the
/// deadline passed ([`Error::Unknown`]).
pub fn lower(
    unit: &TranslationUnit,
    src: &Sources,
    width: Width,
    opts: &Options,
    deadline: Option<std::time::Instant>,
    unwinding_goals: bool,
) -> Result<super::Lowered, Error> {
    let mut cx = Ctx {
        src,
        width,
        opts,
        types: Types::new(),
        funcs: HashMap::new(),
        globals: HashMap::new(),
        prog: Program {
            source: Some(src.main.clone()),
            ..Program::default()
        },
        next_addr: 1,
        pending: VecDeque::new(),
        thread_names: Vec::new(),
        start_flags: Vec::new(),
        done_flags: Vec::new(),
        uses_join: false,
        b: Builder::new(width),
        frames: Vec::new(),
        thread: 0,
        tls: HashMap::new(),
        unused: None,
        error: None,
        end: None,
        bounds: None,
        objects: Vec::new(),
        in_atomic: 0,
        cyclic_loops: 0,
        replicating: 0,
        in_cycle: 0,
        replicated: Vec::new(),
        addr_of: false,
        local_cells: HashMap::new(),
        cut_loops: Vec::new(),
        spin_loops: 0,
        depth: 0,
        deadline: Deadline(deadline),
        unwinding_goals,
        unwound: None,
        draw: None,
        discard_result: false,
        unchecked_cut: false,
        unwind_goals: Vec::new(),
        addr_cache: HashMap::new(),
        externs: HashMap::new(),
        strings: HashMap::new(),
        fn_decls: HashSet::new(),
        fn_addrs: HashMap::new(),
        fn_names: HashMap::new(),
        fn_targets: Vec::new(),
        bad_call: None,
        extern_call: None,
    };
    cx.file_scope_names(unit);
    // Function pointers: the file's functions and which of them code
    // reachable from `main` may use as values (module `funptr`).
    let mut global_refs: HashMap<String, super::funptr::Refs> = HashMap::new();
    for ext in &unit.0 {
        match &ext.node {
            ExternalDeclaration::Declaration(d) => {
                for id in &d.node.declarators {
                    let Some(name) = declarator_name(&id.node.declarator) else {
                        continue;
                    };
                    if is_function(&id.node.declarator) {
                        cx.fn_decls.insert(name);
                        continue;
                    }
                    let r = global_refs.entry(name).or_default();
                    if let Some(i) = &id.node.initializer {
                        super::funptr::initializer_refs(i, r);
                    }
                }
            }
            ExternalDeclaration::FunctionDefinition(f) => {
                if let Some(n) = declarator_name(&f.node.declarator) {
                    cx.fn_decls.insert(n);
                }
            }
            ExternalDeclaration::StaticAssert(_) => {}
        }
    }
    // Address 0 is NULL: no object lives there.
    let mut calls = Calls::default();
    for ext in &unit.0 {
        match &ext.node {
            ExternalDeclaration::Declaration(d) => cx.scan_declaration(d, true)?,
            ExternalDeclaration::FunctionDefinition(f) => {
                if let Some(n) = declarator_name(&f.node.declarator) {
                    cx.funcs.insert(n, f);
                }
                lang_c::visit::Visit::visit_function_definition(&mut calls, &f.node, &f.span);
            }
            ExternalDeclaration::StaticAssert(_) => {}
        }
    }
    cx.uses_join = calls.join;
    if cx.funcs.contains_key("main") {
        cx.fn_targets = super::funptr::address_taken(&cx.funcs, &global_refs, "main")
            .into_iter()
            .collect();
    }
    let Some(main) = cx.funcs.get("main").copied() else {
        return Err(src.main.error(
            Span::new(0, src.main.text.len().min(1)),
            "the C program has no `main` function",
        ));
    };
    cx.new_thread_slot("main", main.span)?;
    cx.pending.push_back(PendingThread {
        id: 0,
        func: main,
        arg: ThreadArg::Const(0),
        replicated: false,
    });
    let mut longest = 0u32;
    while let Some(p) = cx.pending.pop_front() {
        let l = cx.lower_thread(p)?;
        longest = longest.max(l);
    }
    let notes = cx.notes();
    cx.prog.notes = notes;
    // A loop kept as a cycle has no longest path.
    cx.prog.max_path = (cx.cyclic_loops == 0).then_some(longest.max(1));
    // Pointers read from cells that only ever hold constants become
    // constant addresses where a single value is possible (docs/c.md).
    crate::program::values::constant_addresses(&mut cx.prog, width);
    let mut cut_loops = cx.cut_loops.clone();
    cut_loops.sort_unstable();
    cut_loops.dedup();
    Ok(super::Lowered {
        program: cx.prog,
        cut_loops,
        unwind_goals: cx.unwind_goals,
        unchecked_cut: cx.unchecked_cut,
        replicated: cx.replicated,
    })
}

impl<'a> Ctx<'a> {
    /// Struct tags and typedef names defined anywhere at file scope,
    /// recorded before the declarations are lowered.
    fn file_scope_names(&mut self, unit: &'a TranslationUnit) {
        // Struct tags defined anywhere at file scope, so that a pointer to a
        // struct declared before its definition (`typedef struct t t; t *p;`
        // … `struct t { … };`) names the defined struct (C11 6.7.2.3).
        let mut tags = TagDefs::default();
        for ext in &unit.0 {
            if let ExternalDeclaration::Declaration(d) = &ext.node {
                lang_c::visit::Visit::visit_declaration(&mut tags, &d.node, &d.span);
                // File-scope typedef names likewise (a struct's pointer field
                // may name a typedef that follows the struct).
                let is_typedef = d.node.specifiers.iter().any(|s| {
                    matches!(&s.node, DeclarationSpecifier::StorageClass(c)
                    if c.node == lang_c::ast::StorageClassSpecifier::Typedef)
                });
                if is_typedef {
                    for id in &d.node.declarators {
                        if let Some(name) = declarator_name(&id.node.declarator) {
                            self.types
                                .typedefs
                                .entry(name)
                                .or_insert((&d.node.specifiers, &id.node.declarator));
                        }
                    }
                }
            }
        }
        for st in tags.defs {
            if let Some(tag) = &st.node.identifier {
                self.types
                    .tag_defs
                    .entry(tag.node.name.clone())
                    .or_insert(st);
            }
        }
    }

    /// The program's notes: the loops `--unwind` cut, the spin loops
    /// replaced by `assume`s.
    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.cut_loops.is_empty() {
            let mut lines: Vec<usize> = self.cut_loops.clone();
            lines.sort_unstable();
            lines.dedup();
            let ls: Vec<String> = lines
                .iter()
                .map(|l| format!("{}:{l}", self.src.main.path))
                .collect();
            notes.push(format!(
                "--unwind {} cut the loops at {} (paths needing more iterations are not explored)",
                self.opts.unwind,
                ls.join(", ")
            ));
        }
        if self.spin_loops > 0 {
            notes.push(format!(
            "{} spin loop(s) `while (c);` replaced by load + assume(!c) (--no-spin-assume keeps them as loops)",
            self.spin_loops
        ));
        }
        notes
    }
    /// Reserves a thread id: its name, start and done flags.
    ///
    /// Errors: memory does not fit the width; too many threads.
    pub fn new_thread_slot(
        &mut self,
        func: &str,
        span: lang_c::span::Span,
    ) -> Result<usize, Error> {
        let id = self.thread_names.len();
        if id >= 256 {
            return Err(self.err(span, "more than 256 threads"));
        }
        let mut name = func.to_string();
        let mut k = 1;
        while self.thread_names.contains(&name) {
            k += 1;
            name = format!("{func}_{k}");
        }
        self.thread_names.push(name.clone());
        if id == 0 {
            self.start_flags.push(0);
            self.done_flags.push(0);
        } else {
            let s = self.alloc(&format!("{name}.started"), 1, &[], span)?;
            self.start_flags.push(s);
            let d = if self.uses_join {
                self.alloc(&format!("{name}.done"), 1, &[], span)?
            } else {
                0
            };
            self.done_flags.push(d);
        }
        Ok(id)
    }

    /// Records typedefs, struct tags, enumerators; allocates the objects
    /// a file-scope (`global`) declaration defines.
    fn scan_declaration(&mut self, d: &'a Node<Declaration>, global: bool) -> Result<(), Error> {
        for s in &d.node.specifiers {
            if let DeclarationSpecifier::TypeSpecifier(t) = &s.node {
                self.scan_type_specifier(t)?;
            }
        }
        let is_typedef = d.node.specifiers.iter().any(|s| {
            matches!(&s.node, DeclarationSpecifier::StorageClass(c)
                if c.node == lang_c::ast::StorageClassSpecifier::Typedef)
        });
        for id in &d.node.declarators {
            let Some(name) = declarator_name(&id.node.declarator) else {
                continue;
            };
            if is_typedef {
                self.types
                    .typedefs
                    .insert(name, (&d.node.specifiers, &id.node.declarator));
                continue;
            }
            if !global || is_function(&id.node.declarator) {
                continue;
            }
            let is_extern = d.node.specifiers.iter().any(|s| {
                matches!(&s.node, DeclarationSpecifier::StorageClass(c)
                    if c.node == lang_c::ast::StorageClassSpecifier::Extern)
            });
            if is_extern && id.node.initializer.is_none() {
                // Defined later in the file, or elsewhere: then a cell of
                // its own on first use (docs/c.md, "extern objects").
                self.externs.insert(name, (&d.node.specifiers, id));
                continue;
            }
            self.define_global(&name, &name, &d.node.specifiers, id)?;
        }
        Ok(())
    }

    fn scan_type_specifier(&mut self, t: &'a Node<TypeSpecifier>) -> Result<(), Error> {
        match &t.node {
            TypeSpecifier::Enum(e) => {
                let mut next = 0i64;
                for en in &e.node.enumerators {
                    if let Some(x) = &en.node.expression {
                        next = self.types.const_int(x, self.src)?;
                    }
                    self.types
                        .enum_consts
                        .insert(en.node.identifier.node.name.clone(), next);
                    next = next.wrapping_add(1);
                }
            }
            TypeSpecifier::Struct(st) => {
                if let (Some(tag), Some(_)) = (&st.node.identifier, &st.node.declarations) {
                    self.types.tag_defs.insert(tag.node.name.clone(), st);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Allocates a global (or `static` local, `key` names it) with its
    /// constant initializer.
    ///
    /// Errors: unsupported type or initializer (located).
    pub fn define_global(
        &mut self,
        key: &str,
        shown: &str,
        specs: &'a [Node<DeclarationSpecifier>],
        id: &'a Node<lang_c::ast::InitDeclarator>,
    ) -> Result<(), Error> {
        let r = self
            .types
            .resolve(specs, Some(&id.node.declarator), self.src)?;
        let mut ty = r.ty;
        // `int a[] = {1, 2}`: the size from the initializer.
        if let (CType::Array(e, 0), Some(init)) = (&ty, &id.node.initializer) {
            match &init.node {
                Initializer::List(items) => {
                    ty = CType::Array(e.clone(), items.len().max(1) as u64);
                }
                Initializer::Expression(x) => {
                    if let Expression::StringLiteral(p) = &x.node {
                        let n = super::types::string_value(&p.node).map_or(0, |c| c.len());
                        ty = CType::Array(e.clone(), n as u64 + 1);
                    }
                }
            }
        }
        if matches!(ty, CType::Void | CType::Func) {
            return Err(self.err(id.span, format!("object `{shown}` has no storage type")));
        }
        if let Some(tag) = self.types.incomplete(&ty) {
            return Err(self.err(
                id.span,
                format!("object `{shown}` has the incomplete type `struct {tag}`"),
            ));
        }
        let mut init = Vec::new();
        if let Some(i) = &id.node.initializer {
            self.const_init(&ty, 0, i, &mut init)?;
        }
        let size = self.types.size(&ty);
        if let Some(g) = self.globals.get(key) {
            if self.types.size(&g.ty) != size {
                return Err(self.err(
                    id.span,
                    format!("object `{shown}` defined again with a type of another size"),
                ));
            }
        }
        if let Some(g) = self.globals.get_mut(key) {
            // A tentative definition followed by a definition.
            if let Some(cells) = &mut g.thread_local {
                cells.extend(init);
                return Ok(());
            }
            let addr = g.addr;
            for (o, v) in init {
                self.prog.init.insert(addr + o as i64, self.width.wrap(v));
            }
            return Ok(());
        }
        if r.thread_local {
            // Each thread's copy is allocated when the thread is lowered
            // (now, for an object first defined inside a thread's code).
            self.globals.insert(
                key.to_string(),
                Global {
                    addr: 0,
                    ty,
                    atomic: r.atomic,
                    thread_local: Some(init),
                },
            );
            if !self.frames.is_empty() {
                self.tls_copy(key, id.span)?;
            }
            return Ok(());
        }
        let addr = self.alloc(shown, size, &init, id.span)?;
        self.globals.insert(
            key.to_string(),
            Global {
                addr,
                ty,
                atomic: r.atomic,
                thread_local: None,
            },
        );
        Ok(())
    }

    /// Flattens a constant initializer of an object of type `ty` at cell
    /// offset `off` into `(offset, value)` pairs.
    fn const_init(
        &mut self,
        ty: &CType,
        off: u64,
        init: &'a Node<Initializer>,
        out: &mut Vec<(u64, i64)>,
    ) -> Result<(), Error> {
        self.nested(init.span, |c| c.const_init_inner(ty, off, init, out))
    }

    fn const_init_inner(
        &mut self,
        ty: &CType,
        off: u64,
        init: &'a Node<Initializer>,
        out: &mut Vec<(u64, i64)>,
    ) -> Result<(), Error> {
        match (&init.node, ty) {
            (Initializer::Expression(e), CType::Array(elem, n))
                if matches!(e.node, Expression::StringLiteral(_)) && **elem != CType::Bool =>
            {
                // `char s[N] = "…"`: the characters, then zeros.
                let Expression::StringLiteral(p) = &e.node else {
                    unreachable!("matched above")
                };
                let Some(chars) = super::types::string_value(&p.node) else {
                    return Err(self.err(e.span, "malformed escape in a string literal"));
                };
                if chars.len() as u64 > *n {
                    return Err(self.err(e.span, "string literal longer than the array"));
                }
                for (k, c) in chars.into_iter().enumerate() {
                    out.push((off + k as u64, c));
                }
                Ok(())
            }
            (Initializer::Expression(e), CType::Array(..) | CType::Struct(_)) => {
                Err(self.err(e.span, "an array or struct needs a braced initializer"))
            }
            (Initializer::Expression(e), CType::Mutex) => {
                let _ = e;
                Ok(())
            }
            (Initializer::Expression(e), t) => {
                let v = self.const_value(e)?;
                let v = if *t == CType::Bool {
                    (v != 0) as i64
                } else {
                    v
                };
                out.push((off, v));
                Ok(())
            }
            (Initializer::List(_), CType::Mutex) => Ok(()),
            (Initializer::List(items), CType::Array(elem, n)) => {
                let esize = self.types.size(elem);
                for (k, it) in items.iter().enumerate() {
                    if !it.node.designation.is_empty() {
                        return Err(self.err(it.span, "designated initializers are not supported"));
                    }
                    if k as u64 >= *n {
                        return Err(self.err(it.span, "too many initializers for the array"));
                    }
                    self.const_init(elem, off + k as u64 * esize, &it.node.initializer, out)?;
                }
                Ok(())
            }
            (Initializer::List(items), CType::Struct(s)) => {
                let fields = self.types.structs[*s].fields.clone();
                for (k, it) in items.iter().enumerate() {
                    if !it.node.designation.is_empty() {
                        return Err(self.err(it.span, "designated initializers are not supported"));
                    }
                    let Some((_, fty, foff)) = fields.get(k) else {
                        return Err(self.err(it.span, "too many initializers for the struct"));
                    };
                    self.const_init(fty, off + foff, &it.node.initializer, out)?;
                }
                Ok(())
            }
            (Initializer::List(items), t) => match items.first() {
                Some(it) if items.len() == 1 => self.const_init(t, off, &it.node.initializer, out),
                _ => Err(self.err(init.span, "a scalar takes one initializer")),
            },
        }
    }

    /// The value of a constant expression of a global initializer:
    /// integers, enumerators, `NULL`, `&global` (with constant indices and
    /// fields), arrays (their address), arithmetic.
    ///
    /// Errors: not a constant (located).
    pub fn const_value(&mut self, e: &'a Node<Expression>) -> Result<i64, Error> {
        self.nested(e.span, |c| c.const_value_inner(e))
    }

    fn const_value_inner(&mut self, e: &'a Node<Expression>) -> Result<i64, Error> {
        use lang_c::ast::UnaryOperator as U;
        match &e.node {
            Expression::UnaryOperator(u) if u.node.operator.node == U::Address => {
                self.const_address(&u.node.operand)
            }
            Expression::Identifier(i) => match self.globals.get(&i.node.name) {
                Some(g) if g.thread_local.is_some() => Err(self.thread_local_not_constant(e)),
                Some(g) if matches!(g.ty, CType::Array(..)) => Ok(g.addr),
                None if self.is_function_name(&i.node.name) => self.func_addr(&i.node.name, e.span),
                _ => self.types.const_int(e, self.src),
            },
            Expression::StringLiteral(p) => Ok(self.string_addr(&p.node, e.span)?.0),
            Expression::Cast(c) => self.const_value(&c.node.expression),
            _ => self.types.const_int(e, self.src),
        }
    }

    /// The address of function `name` as a value (docs/c.md, "Function
    /// pointers"): a one-cell object `fn.NAME` allocated on first use.
    ///
    /// Errors: the memory does not fit the width.
    pub fn func_addr(&mut self, name: &str, span: lang_c::span::Span) -> Result<i64, Error> {
        if let Some(&a) = self.fn_addrs.get(name) {
            return Ok(a);
        }
        let a = self.alloc(&format!("fn.{name}"), 1, &[], span)?;
        self.fn_addrs.insert(name.to_string(), a);
        self.fn_names.insert(a, name.to_string());
        Ok(a)
    }

    /// The address of a string literal's characters (docs/c.md, "String
    /// literals"): one object per distinct string, its characters and a
    /// terminating 0 as initial memory, allocated on first use.
    ///
    /// Errors: a malformed escape; the memory does not fit the width.
    pub fn string_addr(
        &mut self,
        pieces: &[String],
        span: lang_c::span::Span,
    ) -> Result<(i64, u64), Error> {
        let Some(chars) = super::types::string_value(pieces) else {
            return Err(self.err(span, "malformed escape in a string literal"));
        };
        let len = chars.len() as u64 + 1;
        if let Some(&a) = self.strings.get(&chars) {
            return Ok((a, len));
        }
        let init: Vec<(u64, i64)> = chars
            .iter()
            .enumerate()
            .map(|(k, &c)| (k as u64, c))
            .collect();
        let a = self.alloc(&format!("str.{}", self.strings.len() + 1), len, &init, span)?;
        self.strings.insert(chars, a);
        Ok((a, len))
    }

    /// True when `name`, not bound as an object here, names a function
    /// of the file (defined or declared).
    pub fn is_function_name(&self, name: &str) -> bool {
        self.lookup(name).is_none()
            && (self.funcs.contains_key(name) || self.fn_decls.contains(name))
    }

    /// The address of a global lvalue with constant indices and fields.
    fn const_address(&mut self, e: &'a Node<Expression>) -> Result<i64, Error> {
        self.nested(e.span, |c| c.const_address_inner(e))
    }

    fn const_address_inner(&mut self, e: &'a Node<Expression>) -> Result<i64, Error> {
        use lang_c::ast::BinaryOperator as B;
        match &e.node {
            Expression::Identifier(i) => match self.globals.get(&i.node.name) {
                Some(g) if g.thread_local.is_some() => Err(self.thread_local_not_constant(e)),
                Some(g) => Ok(g.addr),
                None if self.is_function_name(&i.node.name) => self.func_addr(&i.node.name, e.span),
                None => Err(self.err(e.span, format!("`{}` is not a global object", i.node.name))),
            },
            Expression::BinaryOperator(b) if b.node.operator.node == B::Index => {
                let base = self.const_address(&b.node.lhs)?;
                let ty = self.const_type(&b.node.lhs);
                let k = self.types.const_int(&b.node.rhs, self.src)?;
                let esize = ty
                    .as_ref()
                    .and_then(|t| t.pointee())
                    .map_or(1, |t| self.types.size(t));
                Ok(base + k * esize as i64)
            }
            Expression::Member(m)
                if m.node.operator.node == lang_c::ast::MemberOperator::Direct =>
            {
                let base = self.const_address(&m.node.expression)?;
                let ty = self.const_type(&m.node.expression);
                let Some(CType::Struct(s)) = ty else {
                    return Err(self.err(e.span, "member of a non-struct"));
                };
                let f = &m.node.identifier.node.name;
                match self.types.structs[s].fields.iter().find(|x| &x.0 == f) {
                    Some((_, _, o)) => Ok(base + *o as i64),
                    None => Err(self.err(m.node.identifier.span, format!("no field `{f}`"))),
                }
            }
            _ => Err(self.err(e.span, "not a constant address")),
        }
    }

    /// The error for a thread-local object in a constant expression: its
    /// address differs from thread to thread (C11 6.6p9: not an address
    /// constant).
    fn thread_local_not_constant(&self, e: &Node<Expression>) -> Error {
        self.err(
            e.span,
            "the address of a thread-local object is not a constant (each thread has its own)",
        )
    }

    /// The type of a global lvalue expression (constant initializers).
    fn const_type(&self, e: &Node<Expression>) -> Option<CType> {
        match &e.node {
            Expression::Identifier(i) => self.globals.get(&i.node.name).map(|g| g.ty.clone()),
            Expression::BinaryOperator(b) => self.const_type(&b.node.lhs)?.pointee().cloned(),
            Expression::Member(m) => match self.const_type(&m.node.expression)? {
                CType::Struct(s) => self.types.structs[s]
                    .fields
                    .iter()
                    .find(|x| x.0 == m.node.identifier.node.name)
                    .map(|x| x.1.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// The start of thread `id`'s automaton: `main`'s view of the initial
    /// memory, the thread's copies of the thread-local objects, and (for
    /// a created thread) the wait for its start flag.
    ///
    /// Errors: those of [`Self::tls_copy`] and [`Self::emit`].
    fn thread_prologue(&mut self, id: usize, fspan: lang_c::span::Span) -> Result<(), Error> {
        if id == 0 {
            // Before `main` creates a thread, its loads of cells it has not
            // stored to read the initial memory (builder::Builder::init_mem).
            let mut m = HashMap::new();
            for &(lo, hi) in &self.objects {
                for a in lo..hi {
                    m.insert(a, self.prog.init.get(&a).copied().unwrap_or(0));
                }
            }
            self.b.init_mem = Some(m);
        }
        // This thread's copies of the thread-local objects (in name
        // order, so that addresses do not depend on hashing).
        let mut keys: Vec<String> = self
            .globals
            .iter()
            .filter(|(_, g)| g.thread_local.is_some())
            .map(|(k, _)| k.clone())
            .collect();
        keys.sort();
        for k in keys {
            self.tls_copy(&k, fspan)?;
        }
        if id != 0 {
            let t = self.b.temp();
            let flag = self.start_flags[id];
            self.emit(
                Command::Load {
                    reg: t,
                    addr: Expr::Const(flag),
                },
                fspan,
            )?;
            self.emit(
                Command::Assume(Expr::bin(
                    crate::program::BinOp::Eq,
                    Expr::Var(t),
                    Expr::Const(1),
                )),
                fspan,
            )?;
            self.b.release(0);
        }
        Ok(())
    }

    /// Lowers one thread: waits for its start flag, runs its function,
    /// signals its end; returns the longest path of its automaton.
    fn lower_thread(&mut self, p: PendingThread<'a>) -> Result<u32, Error> {
        let objects_before = self.objects.len();
        let replicated = p.replicated;
        let id = p.id;
        self.replicating += usize::from(replicated);
        let r = self.lower_thread_body(p);
        self.replicating -= usize::from(replicated);
        if replicated && r.is_ok() {
            // Its own cells: the objects allocated while lowering it, but
            // the flags of the threads it creates (shared with them).
            let owned = self.objects[objects_before..]
                .iter()
                .copied()
                .filter(|&(lo, _)| {
                    !self.start_flags.contains(&lo) && !self.done_flags.contains(&lo)
                })
                .collect();
            self.replicated.push(crate::program::Replicated {
                thread: ThreadId(self.prog.threads.len() as u32 - 1),
                start_flag: self.start_flags[id],
                owned,
            });
        }
        r
    }

    /// [`Ctx::lower_thread`] but the bookkeeping of replicated threads.
    fn lower_thread_body(&mut self, p: PendingThread<'a>) -> Result<u32, Error> {
        self.thread = p.id;
        self.tls.clear();
        self.b = Builder::new(self.width);
        self.error = None;
        self.bounds = None;
        self.bad_call = None;
        self.extern_call = None;
        self.unwound = None;
        self.frames.clear();
        self.depth = 0;
        let f = p.func;
        let fspan = f.span;
        self.b.at_line(self.src.line(fspan));
        self.thread_prologue(p.id, fspan)?;
        let end = self.b.label();
        self.end = Some(end);
        let args: Vec<LExpr> = match p.arg {
            ThreadArg::Const(v) => vec![Expr::Const(v)],
            ThreadArg::Cell(a) => {
                let t = self.b.temp();
                self.emit(
                    Command::Load {
                        reg: t,
                        addr: Expr::Const(a),
                    },
                    fspan,
                )?;
                vec![Expr::Var(t)]
            }
        };
        self.inline_body(f, args, Some(end), fspan)?;
        self.b.place(end);
        if p.id != 0 && self.uses_join {
            let done = self.done_flags[p.id];
            self.emit(Command::Fence(crate::program::Fence::MFence), fspan)?;
            self.emit(
                Command::Store {
                    addr: Expr::Const(done),
                    value: Expr::Const(1),
                },
                fspan,
            )?;
        }
        self.b.cur = None;
        let err = self.error.take();
        let mut err_state = None;
        if let Some((l, sp)) = err {
            self.b.place(l);
            err_state = self.b.cur.map(|s| (s, sp));
            self.b.cur = None;
        }
        let mut extra_goals = Vec::new();
        let mut unwound_state = None;
        if let Some((l, sp)) = self.unwound.take() {
            self.b.place(l);
            unwound_state = self.b.cur.map(|st| (st, sp));
            self.b.cur = None;
        }
        let kinds = [
            (self.bounds.take(), "out-of-bounds index"),
            (
                self.bad_call.take(),
                "call through an invalid function pointer",
            ),
            (
                self.extern_call.take(),
                "call of a function declared but not defined in the file",
            ),
        ];
        for (l, what) in kinds {
            if let Some((l, sp)) = l {
                self.b.place(l);
                if let Some(st) = self.b.cur {
                    extra_goals.push((st, sp, what));
                }
                self.b.cur = None;
            }
        }
        let b = std::mem::replace(&mut self.b, Builder::new(self.width));
        let name = self.thread_names[p.id].clone();
        let tspan = self.span(fspan);
        let fin = b.finish(&mut self.prog.names, &name, tspan, &self.deadline)?;
        let tid = ThreadId(self.prog.threads.len() as u32);
        self.prog.threads.push(fin.thread);
        if let Some((s, sp)) = err_state {
            let q = StateId(fin.map[s as usize]);
            self.prog.goals.push(Goal {
                name: Some(format!("assertion in {name}")),
                kind: GoalKind::Assertion,
                at: GoalAt::States(vec![(tid, q)]),
                cond: None,
                span: sp,
            });
        }
        for (s, sp, what) in extra_goals {
            let q = StateId(fin.map[s as usize]);
            self.prog.goals.push(Goal {
                name: Some(format!("{what} in {name}")),
                kind: GoalKind::Assertion,
                at: GoalAt::States(vec![(tid, q)]),
                cond: None,
                span: sp,
            });
        }
        if let Some((s, sp)) = unwound_state {
            let q = StateId(fin.map[s as usize]);
            self.unwind_goals.push(self.prog.goals.len());
            self.prog.goals.push(Goal {
                name: Some(format!("unwinding assertion in {name}")),
                kind: GoalKind::Goal,
                at: GoalAt::States(vec![(tid, q)]),
                cond: None,
                span: sp,
            });
        }
        Ok(fin.longest.unwrap_or(0))
    }
}

/// Names the C front-end always treats as built-ins, even if the file
/// defines a function of that name: the pthreads API, the atomic
/// section markers, and SV-COMP's error functions (the `unreach-call`
/// property is the call itself; the benchmarks define `reach_error` with
/// an empty body or `assert(0)`).
pub(super) fn reserved(n: &str) -> bool {
    n.starts_with("pthread_")
        || matches!(
            n,
            "__VERIFIER_atomic_begin"
                | "__VERIFIER_atomic_end"
                | "reach_error"
                | "__VERIFIER_error"
        )
}
