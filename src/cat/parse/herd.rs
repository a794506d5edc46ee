//! herd's cat language beyond relational expressions, as the Linux
//! kernel's model files use it (herd's `lib/interpreter.ml`; herd manual,
//! "The cat language"): bell declarations (`enum`, `instructions`), local
//! definitions (`let … in`, `let rec … and … in`), user functions
//! (`let f(x) = …`, `let f x = …`), `try … with`, variant conditionals
//! (`if "NAME" then … else …`), `flag`, `with … from`, sets of relations
//! (`{…}`, `map`, `cross`), herd's library files `cross.cat` (given its
//! meaning natively) and the built-ins `singlestep` and
//! `different-values`.
//!
//! Everything is elaborated while parsing into the relational AST of the
//! parent module, which the engines evaluate: a local definition becomes
//! a top-level `let` under a fresh name; a function call expands its
//! body with each parameter bound to a fresh `let` of the argument and
//! each free name of the body bound as it was where the function was
//! defined (lexical scope); sets of relations are evaluated at load time
//! when they are statically known, and refused otherwise.
//!
//! A tag's set (`Once`, `Rcu-lock`) is the base set of the events
//! carrying the tag ([`BaseSet::Tag`]); herd's `RMW` of C is the base set
//! `A`, its `FW` is `W \ domain(co)` within the observed locations
//! ([`BaseSet::Observed`]); `flag ~empty E as NAME` is a
//! hidden `let` of E and a [`crate::cat::Flag`], with
//! `different-values(r)` right after the test read as r, filtered by the
//! events' values on each candidate ([`crate::cat::Flag::different_values`]). What
//! the engines cannot evaluate yet (other flag tests, `different-values`
//! elsewhere) is accepted by the parser and remembered: the model is then
//! refused at the first such construct, a located error naming it
//! ([`State::unsupported`]).

use super::{describe, is_keyword, Origin, P, T};
use crate::cat::base::{BaseRel, BaseSet, Builtin, Tag};
use crate::cat::{AxiomKind, ExprKind, Node, Stmt, Ty};
use crate::collections::{HashMap, HashSet};
use crate::diag::{Error, SourceFile, Span};
use std::path::PathBuf;
use std::rc::Rc;

/// What a model is read with besides its files: herd's `-conf` keys.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `variant NAME,…`: the names `if "NAME"` tests see as true.
    pub variants: Vec<String>,
    /// Folders searched for an `include`d file not found next to the
    /// including file (herd's search path: the configuration's folder,
    /// then each `-I DIR`).
    pub path: Vec<PathBuf>,
    /// The model is read for herd's C tests: the names of herd's C
    /// event sets that no file defines ([`C11_SETS`], `A`, `NA`) mean
    /// what herd's C semantics gives them.
    pub c_sets: bool,
}

/// herd's C sets of memory orders (`herd/CAction.ml`, `arch_sets`: the
/// accesses, read-modify-writes and fences of C11's `atomic_*_explicit`
/// and `atomic_thread_fence` with that `memory_order_*`), each the set of
/// the events carrying the tag of its lower-cased name (`ACQ`: `'acq`, the
/// tags of herd's `c11.bell`), which the C litmus front-end gives them.
pub const C11_SETS: [&str; 6] = ["ACQ", "REL", "ACQ_REL", "SC", "RLX", "CON"];

/// The sets of events herd's C semantics gives to its spinlock
/// primitives (`LKR`, `LKW`, `UL`, `LF`, `RL`, `RU`: herd's
/// `herd/CAction.ml` `arch_sets`, lock.cat's comments). The C litmus
/// front-end tags each lock event with its set's name
/// (`crate::frontend::c_litmus`); the model sees each set as the events
/// carrying that tag ([`BaseSet::Tag`]).
pub const LOCK_SETS: [&str; 6] = ["LKR", "LKW", "UL", "LF", "RL", "RU"];

/// The lock sets whose events are reads (herd's lock.cat: `LKR`, `LF`,
/// `RL`, `RU`).
const LOCK_READS: [&str; 4] = ["LKR", "LF", "RL", "RU"];

/// A user function: parameters and body, read again at each call.
#[derive(Debug)]
pub(super) struct Fun {
    params: Vec<String>,
    /// The body's tokens, ending with `T::Eof`.
    toks: Vec<(T, Span)>,
    src: SourceFile,
    file: usize,
    origin: Origin,
    /// The meaning of the body's free names where the function was
    /// defined.
    captured: HashMap<String, Local>,
}

/// herd's built-in functions given their meaning natively.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Native {
    /// `cross(S)` of herd's cross.cat: every union of one relation from
    /// each set of `S`.
    Cross,
    /// `generate_cos(pco)` of herd's cross.cat: every coherence order
    /// (a linear order of each location's writes) that extends `pco`.
    GenerateCos,
}

/// What a name means while a model is read (before resolution).
#[derive(Clone, Debug)]
pub(super) enum Local {
    /// A local definition or a function's parameter: the fresh
    /// top-level name it was given.
    Rename(String),
    /// A user function.
    Fun(Rc<Fun>),
    /// A set of relations.
    Family(Vec<Value>),
    /// The rf choices of a set of lock reads ([`Value::Reads`]).
    Reads(Node),
    /// A native function.
    Native(Native),
}

/// The value of an expression of herd's language, at load time.
#[derive(Clone, Debug)]
pub(super) enum Value {
    /// A set or relation (evaluated by the engines).
    Node(Node),
    /// A set of values (herd's `{…}`, the results of `map` and `cross`).
    Family(Vec<Value>),
    /// herd's lock.cat `map f S` (and its `cross`) over a set S of lock
    /// reads (`LF`, `RU`, …, which vary with the execution): the
    /// candidate rf edges into the events of S, one per event, from which
    /// `with x from …` picks one combination. Lock events are the
    /// engines' reads and writes of the lock's value (held 1, free 0),
    /// so the engines' rf already chooses one write for each lock read,
    /// and `with x from` binds x to those edges, `rf ; [S]` (herd's
    /// possible sources — an `LKW` of another thread for a failed
    /// trylock, the last `UL` or another thread's for `spin_is_locked` —
    /// are the writes of that value its coherence allows: docs/litmus.md).
    Reads(Node),
}

/// The state of herd's language while one model is read.
#[derive(Debug, Default)]
pub struct State {
    opts: Options,
    /// Scopes of local names, innermost last; scope 0 holds the
    /// top-level functions and sets of relations.
    scopes: Vec<HashMap<String, Local>>,
    /// Names defined by a top-level `let` so far.
    top: HashSet<String>,
    /// The names (top-level or fresh) whose definition is statically
    /// empty.
    empty: HashSet<String>,
    /// The names (top-level or fresh) whose definition is a set of lock
    /// reads ([`lock_reads`]).
    lock_reads: HashSet<String>,
    /// Tag set name (`Rcu-lock`) → tag (`rcu-lock`), from `enum`s.
    tags: HashMap<String, String>,
    /// Names of `enum`s.
    enums: HashSet<String>,
    /// Counter of fresh names.
    fresh: usize,
    /// The first construct the engines cannot evaluate yet: (file,
    /// span, what).
    pub(super) unsupported: Option<(usize, Span, String)>,
    /// The flags read, in order: (name, span, bound only); each one's
    /// expression is the hidden `let` [`FLAG_PREFIX`]`NAME` pushed with
    /// it.
    pub(super) flags: Vec<(String, Span, bool)>,
    /// The first use of herd's `co0` (file, span): the model needs
    /// initial writes as events ([`crate::cat::init`]).
    pub(super) co0: Option<(usize, Span)>,
}

/// The start of the name of the hidden `let` binding of a flag's
/// expression (`flag data-race`): a name with a space, which no model
/// can write.
pub const FLAG_PREFIX: &str = "flag ";

/// The name of herd's flag `Undef` (`lib/flag.ml`: printed `*undef*`),
/// raised by a failed `undefined_unless`: herd then prints `Undef` in
/// place of `Ok`/`No` (`herd/top_herd.ml`).
pub const UNDEF_FLAG: &str = "*undef*";

impl State {
    /// A fresh state reading with `opts`.
    pub fn new(opts: &Options) -> State {
        State {
            opts: opts.clone(),
            scopes: vec![HashMap::default()],
            ..State::default()
        }
    }

    /// The search path of `include`.
    pub(super) fn path(&self) -> &[PathBuf] {
        &self.opts.path
    }

    /// Records top-level function `name`.
    pub(super) fn define_fun(&mut self, name: String, f: Rc<Fun>) {
        self.top.remove(&name);
        self.scopes[0].insert(name, Local::Fun(f));
    }

    fn lookup(&self, n: &str) -> Option<&Local> {
        self.scopes.iter().rev().find_map(|s| s.get(n))
    }
}

/// The set name of herd tag `tag` (`'rcu-lock` → `Rcu-lock`, `'ONCE` →
/// `ONCE`): its first letter capitalized (the kernel's model files).
pub fn tag_set_name(tag: &str) -> String {
    let mut c = tag.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Whether `n` is statically empty given the names `empty` holds: a
/// conservative syntactic test (true only when `n` denotes the empty set
/// or relation in every execution).
fn static_empty(n: &Node, empty: &HashSet<String>) -> bool {
    use ExprKind::*;
    // Guards the recursion like the other walks of a model (the tree
    // height is bounded while it is built).
    match &n.kind {
        Empty => true,
        Name(k) => empty.contains(k),
        Base(_) | Compl(_) | Star(_) | Opt(_) => false,
        Union(a, b) => static_empty(a, empty) && static_empty(b, empty),
        Inter(a, b) | Seq(a, b) | Cart(a, b) => static_empty(a, empty) || static_empty(b, empty),
        Diff(a, _) => static_empty(a, empty),
        Plus(a) | Inv(a) | Bracket(a) | Domain(a) | Range(a) | FenceRel(a) => {
            static_empty(a, empty)
        }
    }
}

/// Whether `n` is the value of `generate_cos` ([`P::cos_marker`]): `co`,
/// or `co` between some writes.
fn is_cos(n: &Node) -> bool {
    let co = |n: &Node| matches!(n.kind, ExprKind::Base(Builtin::Rel(BaseRel::Co)));
    co(n) || matches!(&n.kind, ExprKind::Inter(a, _) if co(a))
}

/// Whether `n` is a set of lock reads given the names `reads` holds: a
/// lock read set (`LF`, `RU`, …), a union of such sets, or such a set
/// less or intersected with anything (syntactic: herd's lock.cat maps
/// over `LF \ range(rfi-lf)` and `RU`).
fn lock_reads(n: &Node, reads: &HashSet<String>) -> bool {
    use ExprKind::*;
    match &n.kind {
        Base(Builtin::Set(BaseSet::Tag(t))) => LOCK_READS.iter().any(|s| Tag::new(s) == *t),
        Name(k) => reads.contains(k),
        Union(a, b) => lock_reads(a, reads) && lock_reads(b, reads),
        Diff(a, _) => lock_reads(a, reads),
        Inter(a, b) => lock_reads(a, reads) || lock_reads(b, reads),
        _ => false,
    }
}

impl P<'_> {
    fn herd(&mut self) -> &mut State {
        &mut self.ld.herd
    }

    /// Records the first construct the engines cannot evaluate yet.
    fn unsupported(&mut self, sp: Span, what: String) {
        if self.ld.herd.unsupported.is_none() {
            self.ld.herd.unsupported = Some((self.file, sp, what));
        }
    }

    /// A fresh top-level name for a local `name`.
    fn fresh(&mut self, name: &str) -> String {
        self.herd().fresh += 1;
        format!("{name}%{}", self.ld.herd.fresh)
    }

    /// Pushes `let key = e` as a top-level statement.
    fn push_let(&mut self, key: String, e: Node) {
        if static_empty(&e, &self.ld.herd.empty) {
            self.ld.herd.empty.insert(key.clone());
        } else {
            self.ld.herd.empty.remove(&key);
        }
        if lock_reads(&e, &self.ld.herd.lock_reads) {
            self.ld.herd.lock_reads.insert(key.clone());
        } else {
            self.ld.herd.lock_reads.remove(&key);
        }
        self.ld.stmts.push(Stmt::Let {
            rec: false,
            binds: vec![(key, e)],
        });
    }

    /// Records a top-level `let name = v`.
    pub(super) fn define_top(&mut self, name: String, v: Value) {
        match v {
            Value::Node(e) => {
                self.ld.herd.scopes[0].remove(&name);
                self.ld.herd.top.insert(name.clone());
                self.push_let(name, e);
            }
            Value::Family(f) => {
                self.ld.herd.top.remove(&name);
                self.ld.herd.scopes[0].insert(name, Local::Family(f));
            }
            Value::Reads(s) => {
                self.ld.herd.top.remove(&name);
                self.ld.herd.scopes[0].insert(name, Local::Reads(s));
            }
        }
    }

    /// Records a top-level `let rec` group's names.
    pub(super) fn define_top_rec(&mut self, binds: &[(String, Node)]) {
        for (n, _) in binds {
            self.ld.herd.scopes[0].remove(n);
            self.ld.herd.top.insert(n.clone());
            self.ld.herd.empty.remove(n);
        }
    }

    fn node_of(&mut self, v: Value, sp: Span) -> Result<Node, Error> {
        match v {
            Value::Node(n) => Ok(n),
            Value::Family(_) | Value::Reads(_) => Err(self.src.error(
                sp,
                "a set of relations (herd's `{…}`, `map`, `cross`) where a set or relation of events is expected",
            )),
        }
    }

    /// A name node referring to top-level name `key`.
    fn name_ref(&mut self, key: &str, sp: Span) -> Node {
        self.node(ExprKind::Name(key.to_string()), sp)
    }

    /// A value: herd's expression where a set of relations may appear
    /// (right-hand sides of `let`, arguments, `with … from`).
    pub(super) fn value(&mut self) -> Result<Value, Error> {
        let sp = self.span();
        match self.peek().clone() {
            T::Name(k) if k == "let" => {
                self.bump();
                self.let_in(|p| p.value())
            }
            T::Sym("{") => {
                self.bump();
                let mut out = Vec::new();
                while !self.is_sym("}") {
                    out.push(self.value()?);
                    if !self.is_sym(",") {
                        break;
                    }
                    self.bump();
                }
                self.expect_sym("}")?;
                Ok(Value::Family(out))
            }
            T::Name(k) if k == "map" => {
                self.bump();
                let (f, fsp) = self.name()?;
                if !matches!(self.ld.herd.lookup(&f), Some(Local::Fun(_))) {
                    return Err(self
                        .src
                        .error(fsp, format!("`map` expects a function, `{f}` is not one")));
                }
                let arg = self.unary()?;
                if static_empty(&arg, &self.ld.herd.empty) {
                    Ok(Value::Family(Vec::new()))
                } else if lock_reads(&arg, &self.ld.herd.lock_reads) {
                    Ok(Value::Reads(arg))
                } else {
                    Err(self.src.error(
                        sp.join(arg.span),
                        "`map` over a set of events or pairs that is not empty in every execution is not supported yet",
                    ))
                }
            }
            T::Name(n) => match self.ld.herd.lookup(&n).cloned() {
                Some(Local::Family(f)) => {
                    self.bump();
                    Ok(Value::Family(f))
                }
                Some(Local::Reads(s)) => {
                    self.bump();
                    Ok(Value::Reads(s))
                }
                Some(Local::Native(nat)) => {
                    self.bump();
                    self.native(nat, sp)
                }
                _ => Ok(Value::Node(self.expr()?)),
            },
            T::Sym("(") if self.paren_family() => {
                self.bump();
                let v = self.value()?;
                self.expect_sym(")")?;
                Ok(v)
            }
            _ => Ok(Value::Node(self.expr()?)),
        }
    }

    /// Whether the parenthesis at the cursor opens a set of relations
    /// (`(map …)`, `({…})`, `(NAME)` of a set of relations).
    fn paren_family(&self) -> bool {
        match self.toks.get(self.pos + 1).map(|t| &t.0) {
            Some(T::Sym("{")) => true,
            Some(T::Name(n)) if n == "map" => true,
            Some(T::Name(n)) => matches!(
                self.ld.herd.lookup(n),
                Some(Local::Family(_) | Local::Reads(_) | Local::Native(_))
            ),
            _ => false,
        }
    }

    /// The arguments of a call: `(a, b, …)` or one atom.
    fn args(&mut self) -> Result<Vec<Value>, Error> {
        if self.is_sym("(") {
            self.bump();
            let mut out = Vec::new();
            if !self.is_sym(")") {
                loop {
                    out.push(self.value()?);
                    if !self.is_sym(",") {
                        break;
                    }
                    self.bump();
                }
            }
            self.expect_sym(")")?;
            Ok(out)
        } else {
            Ok(vec![Value::Node(self.atom()?)])
        }
    }

    /// A call of user function `f` at `sp` (the arguments follow).
    fn call(&mut self, f: &Rc<Fun>, sp: Span) -> Result<Value, Error> {
        let args = self.args()?;
        if args.len() != f.params.len() {
            return Err(self.src.error(
                sp,
                format!(
                    "this function takes {} argument(s), given {}",
                    f.params.len(),
                    args.len()
                ),
            ));
        }
        self.depth += 1;
        if self.depth > 200 {
            return Err(self.src.error(sp, "function calls nested too deeply"));
        }
        let mut scope = f.captured.clone();
        for (p, a) in f.params.iter().zip(args) {
            match a {
                Value::Node(n) => {
                    let key = self.fresh(p);
                    self.push_let(key.clone(), n);
                    scope.insert(p.clone(), Local::Rename(key));
                }
                Value::Family(v) => {
                    scope.insert(p.clone(), Local::Family(v));
                }
                Value::Reads(s) => {
                    scope.insert(p.clone(), Local::Reads(s));
                }
            }
        }
        // Read the body where it was written, in the function's scope.
        let saved = (
            std::mem::replace(&mut self.toks, f.toks.clone()),
            std::mem::replace(&mut self.pos, 0),
            std::mem::replace(&mut self.src, f.src.clone()),
            std::mem::replace(&mut self.file, f.file),
            std::mem::replace(&mut self.origin, f.origin),
        );
        let globals = self.ld.herd.scopes[0].clone();
        let scopes = std::mem::replace(&mut self.ld.herd.scopes, vec![globals, scope]);
        let r = self.value().and_then(|v| match self.peek() {
            T::Eof => Ok(v),
            t => Err(self.src.error(
                self.span(),
                format!("unexpected {} in a function's body", describe(t)),
            )),
        });
        self.ld.herd.scopes = scopes;
        (self.toks, self.pos, self.src, self.file, self.origin) = saved;
        self.depth -= 1;
        r
    }

    /// A call of native function `nat` at `sp`.
    fn native(&mut self, nat: Native, sp: Span) -> Result<Value, Error> {
        let mut args = self.args()?;
        if args.len() != 1 {
            return Err(self.src.error(sp, "this function takes one argument"));
        }
        let arg = args.pop().unwrap_or(Value::Family(Vec::new()));
        match nat {
            // One rf edge into each lock read: already a combination.
            Native::Cross if matches!(arg, Value::Reads(_)) => Ok(arg),
            Native::Cross => {
                let Value::Family(sets) = arg else {
                    return Err(self
                        .src
                        .error(sp, "`cross` expects a set of sets of relations"));
                };
                // Every union of one member of each set.
                let mut out: Vec<Option<Node>> = vec![None];
                for s in sets {
                    let Value::Family(members) = s else {
                        return Err(self
                            .src
                            .error(sp, "`cross` expects a set of sets of relations"));
                    };
                    let mut next = Vec::new();
                    for acc in &out {
                        for m in &members {
                            let Value::Node(m) = m else {
                                return Err(self
                                    .src
                                    .error(sp, "`cross` expects a set of sets of relations"));
                            };
                            next.push(Some(match acc {
                                None => m.clone(),
                                Some(a) => {
                                    let span = a.span.join(m.span);
                                    self.node(
                                        ExprKind::Union(Box::new(a.clone()), Box::new(m.clone())),
                                        span,
                                    )
                                }
                            }));
                        }
                    }
                    out = next;
                }
                let mut vals = Vec::new();
                for o in out {
                    vals.push(Value::Node(match o {
                        Some(n) => n,
                        None => self.node(ExprKind::Empty, sp),
                    }));
                }
                Ok(Value::Family(vals))
            }
            Native::GenerateCos => {
                let Value::Node(pco) = arg else {
                    return Err(self.src.error(sp, "`generate_cos` expects a relation"));
                };
                Ok(Value::Node(self.cos_marker(pco, sp)))
            }
        }
    }

    /// `generate_cos(pco)`: every coherence order extending `pco`. The
    /// engines choose co themselves (a strict total order of each
    /// location's writes, the initial write first); the value is `co`
    /// between the writes the name `W` holds where it is called (the
    /// base set unless the model redefined it: lock.cat's `W | LKW`)
    /// with the axiom that it contains `pco`'s pairs of distinct base
    /// writes to one location (herd's cross.cat: `linearisations` of
    /// each location's writes).
    fn cos_marker(&mut self, pco: Node, sp: Span) -> Node {
        let key = self.fresh("pco");
        self.push_let(key.clone(), pco);
        let b = |p: &mut Self, x: Builtin| p.node(ExprKind::Base(x), sp);
        let w = b(self, Builtin::Set(BaseSet::W));
        let w2 = b(self, Builtin::Set(BaseSet::W));
        let ww = self.node(ExprKind::Cart(Box::new(w), Box::new(w2)), sp);
        let loc = b(self, Builtin::Rel(BaseRel::Loc));
        let id = b(self, Builtin::Rel(BaseRel::Id));
        let co = b(self, Builtin::Rel(BaseRel::Co));
        let pref = self.name_ref(&key, sp);
        let e = self.node(ExprKind::Inter(Box::new(pref), Box::new(ww)), sp);
        let e = self.node(ExprKind::Inter(Box::new(e), Box::new(loc)), sp);
        let e = self.node(ExprKind::Diff(Box::new(e), Box::new(id)), sp);
        let e = self.node(ExprKind::Diff(Box::new(e), Box::new(co)), sp);
        self.ld.checks += 1;
        self.ld.stmts.push(Stmt::Check {
            kind: AxiomKind::Empty,
            expr: e,
            name: "generate_cos".into(),
            span: sp,
        });
        let co = self.node(ExprKind::Base(Builtin::Rel(BaseRel::Co)), sp);
        if !self.ld.herd.top.contains("W") {
            return co;
        }
        // cross.cat orders the writes `W` names where it is called
        // (lock.cat: `W | LKW`, its `UL` events left out until it merges
        // them): the engines' co between those.
        let (w1, w2) = (self.name_ref("W", sp), self.name_ref("W", sp));
        let ww = self.node(ExprKind::Cart(Box::new(w1), Box::new(w2)), sp);
        self.node(ExprKind::Inter(Box::new(co), Box::new(ww)), sp)
    }

    /// `let … in BODY` after `let`: the bindings become top-level `let`s
    /// under fresh names, visible in `body`.
    fn let_in<R>(&mut self, body: impl FnOnce(&mut Self) -> Result<R, Error>) -> Result<R, Error> {
        let rec = if self.is_kw("rec") {
            self.bump();
            true
        } else {
            false
        };
        let mut scope: HashMap<String, Local> = HashMap::default();
        if rec {
            // Names first: the group sees itself.
            let mut names = Vec::new();
            let save = self.pos;
            loop {
                let (n, _) = self.name()?;
                names.push(n);
                self.skip_binding()?;
                if self.is_kw("and") {
                    self.bump();
                } else {
                    break;
                }
            }
            self.pos = save;
            for n in &names {
                let key = self.fresh(n);
                scope.insert(n.clone(), Local::Rename(key));
            }
            self.ld.herd.scopes.push(scope);
            let mut binds = Vec::new();
            for n in &names {
                self.name()?;
                self.expect_sym("=")?;
                let e = self.expr()?;
                let Some(Local::Rename(key)) = self.ld.herd.lookup(n).cloned() else {
                    unreachable!("bound above")
                };
                binds.push((key, e));
                if self.is_kw("and") {
                    self.bump();
                }
            }
            self.ld.stmts.push(Stmt::Let { rec: true, binds });
        } else {
            loop {
                let (n, nsp) = self.name()?;
                let local = if self.is_sym("=") {
                    self.bump();
                    match self.value()? {
                        Value::Node(e) => {
                            let key = self.fresh(&n);
                            self.push_let(key.clone(), e);
                            Local::Rename(key)
                        }
                        Value::Family(f) => Local::Family(f),
                        Value::Reads(s) => Local::Reads(s),
                    }
                } else {
                    Local::Fun(self.fun_def(nsp)?)
                };
                scope.insert(n, local);
                if self.is_kw("and") {
                    self.bump();
                } else {
                    break;
                }
            }
            self.ld.herd.scopes.push(scope);
        }
        let r = (|| {
            if !self.is_kw("in") {
                return Err(self.src.error(
                    self.span(),
                    format!("expected `in`, found {}", describe(self.peek())),
                ));
            }
            self.bump();
            body(self)
        })();
        self.ld.herd.scopes.pop();
        r
    }

    /// Skips `= EXPR` of a binding (to read a `let rec` group's names).
    fn skip_binding(&mut self) -> Result<(), Error> {
        self.expect_sym("=")?;
        let mut depth = 0i32;
        loop {
            match self.peek().clone() {
                T::Eof => return Ok(()),
                T::Sym("(" | "[" | "{") => depth += 1,
                T::Sym(")" | "]" | "}") => depth -= 1,
                T::Name(k) if depth == 0 && matches!(k.as_str(), "and" | "in") => return Ok(()),
                T::Name(k) if depth == 0 && is_keyword(&k) && k != "let" => return Ok(()),
                _ => {}
            }
            self.bump();
        }
    }

    /// A function definition after its name (at `nsp`): `(a, b) = BODY`,
    /// `(a) = BODY` or `a = BODY`. The body's tokens are kept, with the
    /// meaning of its free names here.
    pub(super) fn fun_def(&mut self, nsp: Span) -> Result<Rc<Fun>, Error> {
        let mut params = Vec::new();
        if self.is_sym("(") {
            self.bump();
            loop {
                params.push(self.name()?.0);
                if !self.is_sym(",") {
                    break;
                }
                self.bump();
            }
            self.expect_sym(")")?;
        } else {
            params.push(self.name()?.0);
        }
        self.expect_sym("=")?;
        let start = self.pos;
        self.skip_body()?;
        let mut toks: Vec<(T, Span)> = self.toks[start..self.pos].to_vec();
        if toks.is_empty() {
            return Err(self.src.error(nsp, "a function without a body"));
        }
        let end = toks.last().map(|t| t.1).unwrap_or(nsp);
        toks.push((T::Eof, Span::new(end.end, end.end)));
        // Capture the free names' meaning here (lexical scope).
        let mut captured: HashMap<String, Local> = HashMap::default();
        for (t, sp) in &toks {
            let T::Name(n) = t else { continue };
            if params.contains(n) || captured.contains_key(n) || is_keyword(n) {
                continue;
            }
            if let Some(l) = self.ld.herd.lookup(n).cloned() {
                captured.insert(n.clone(), l);
            } else if self.ld.herd.top.contains(n) || Builtin::from_name(n).is_some() {
                let key = self.fresh(n);
                let r = self.name_ref(n, *sp);
                self.push_let(key.clone(), r);
                captured.insert(n.clone(), Local::Rename(key));
            }
        }
        Ok(Rc::new(Fun {
            params,
            toks,
            src: self.src.clone(),
            file: self.file,
            origin: self.origin,
            captured,
        }))
    }

    /// Skips a function's body: up to the next top-level item, `and` or
    /// `in` outside brackets and nested `let … in`.
    fn skip_body(&mut self) -> Result<(), Error> {
        let mut depth = 0i32;
        let mut lets = 0i32;
        loop {
            match self.peek().clone() {
                T::Eof => return Ok(()),
                T::Sym("(" | "[" | "{") => depth += 1,
                T::Sym(")" | "]" | "}") => {
                    if depth == 0 {
                        return Ok(());
                    }
                    depth -= 1
                }
                T::Name(k) if k == "let" => {
                    if depth == 0 && lets == 0 && self.at_item_start() {
                        return Ok(());
                    }
                    lets += 1
                }
                T::Name(k) if k == "in" => {
                    if lets == 0 && depth == 0 {
                        return Ok(());
                    }
                    lets -= 1
                }
                T::Name(k) if k == "and" && depth == 0 && lets == 0 => return Ok(()),
                T::Name(k) if depth == 0 && lets == 0 && is_item_keyword(&k) => return Ok(()),
                _ => {}
            }
            self.bump();
        }
    }

    /// Whether the `let` at the cursor starts a top-level item (it
    /// starts its line, at column 0).
    fn at_item_start(&self) -> bool {
        let sp = self.span();
        sp.start == 0 || self.src.text.as_bytes().get(sp.start - 1) == Some(&b'\n')
    }

    /// An atom of herd's language starting with name `n` at `sp` (already
    /// consumed), or `None` when `n` is a plain name.
    pub(super) fn herd_atom(&mut self, n: &str, sp: Span) -> Result<Option<Node>, Error> {
        match n {
            "let" => return self.let_in(|p| p.expr()).map(Some),
            "if" => return self.variant_if(sp).map(Some),
            "try" => return self.try_with().map(Some),
            "singlestep" if self.is_sym("(") && self.lookup_plain(n) => {
                // herd's built-in: singlestep(r) = r \ (r; r).
                self.bump();
                let r = self.expr()?;
                let end = self.expect_sym(")")?;
                let span = sp.join(end);
                let key = self.fresh("singlestep");
                self.push_let(key.clone(), r);
                let (a, b, c) = (
                    self.name_ref(&key, span),
                    self.name_ref(&key, span),
                    self.name_ref(&key, span),
                );
                let rr = self.node(ExprKind::Seq(Box::new(b), Box::new(c)), span);
                return Ok(Some(
                    self.node(ExprKind::Diff(Box::new(a), Box::new(rr)), span),
                ));
            }
            "different-values" if self.is_sym("(") && self.lookup_plain(n) => {
                self.bump();
                let r = self.expr()?;
                let end = self.expect_sym(")")?;
                self.unsupported(
                    sp.join(end),
                    "`different-values` (pairs of events with different values) is not supported yet"
                        .into(),
                );
                return Ok(Some(r));
            }
            _ => {}
        }
        match self.ld.herd.lookup(n).cloned() {
            Some(Local::Rename(k)) => return Ok(Some(self.name_ref(&k, sp))),
            Some(Local::Fun(f)) => {
                let v = self.call(&f, sp)?;
                return self.node_of(v, sp).map(Some);
            }
            Some(Local::Native(nat)) => {
                let v = self.native(nat, sp)?;
                return self.node_of(v, sp).map(Some);
            }
            Some(Local::Family(_) | Local::Reads(_)) => {
                return Err(self.src.error(
                    sp,
                    format!(
                    "`{n}` is a set of relations, where a set or relation of events is expected"
                ),
                ))
            }
            None => {}
        }
        if self.ld.herd.top.contains(n) {
            return Ok(None);
        }
        if let Some(tag) = self.ld.herd.tags.get(n).cloned() {
            let t = Builtin::Set(BaseSet::Tag(Tag::new(&tag)));
            return Ok(Some(self.node(ExprKind::Base(t), sp)));
        }
        if self.ld.herd.opts.c_sets {
            if let Some(set) = self.c_set(n, sp) {
                return Ok(Some(set));
            }
        }
        // herd's R, W, M of C: its memory accesses, no lock event (herd's
        // `Lock`, `Unlock`, … actions are not `Access`es: lock.cat adds
        // them to R and W itself). Only in a model that declares tags
        // (herd's C models); elsewhere no event is a lock event.
        if matches!(n, "R" | "W" | "M") && !self.ld.herd.enums.is_empty() {
            let set = match n {
                "R" => BaseSet::R,
                "W" => BaseSet::W,
                _ => BaseSet::M,
            };
            let base = self.node(ExprKind::Base(Builtin::Set(set)), sp);
            let locks = self.lock_events(sp);
            return Ok(Some(
                self.node(ExprKind::Diff(Box::new(base), Box::new(locks)), sp),
            ));
        }
        if Builtin::from_name(n).is_some() {
            return Ok(None);
        }
        Ok(Some(match n {
            "_" => self.node(ExprKind::Base(Builtin::Rel(BaseRel::Univ)), sp),
            "emptyset" => self.empty_set(sp),
            // co0: each initial write before the other writes of its
            // location, `loc & (IW * (W \ IW))` (herd's `pco` of the
            // initial writes); initial writes are then events
            // ([`crate::cat::init`]).
            "co0" => {
                if self.ld.herd.co0.is_none() {
                    self.ld.herd.co0 = Some((self.file, sp));
                }
                let b = |p: &mut Self, x: Builtin| p.node(ExprKind::Base(x), sp);
                let iw = b(self, Builtin::Set(BaseSet::IW));
                let w = b(self, Builtin::Set(BaseSet::W));
                let iw2 = b(self, Builtin::Set(BaseSet::IW));
                let later = self.node(ExprKind::Diff(Box::new(w), Box::new(iw2)), sp);
                let cart = self.node(ExprKind::Cart(Box::new(iw), Box::new(later)), sp);
                let loc = b(self, Builtin::Rel(BaseRel::Loc));
                self.node(ExprKind::Inter(Box::new(loc), Box::new(cart)), sp)
            }
            n if LOCK_SETS.contains(&n) => {
                self.node(ExprKind::Base(Builtin::Set(BaseSet::Tag(Tag::new(n)))), sp)
            }
            // herd's RMW of C: the accesses of its atomic primitives
            // (`is_rmw_or_atomic` of herd's C actions: the read and write
            // of xchg, cmpxchg, atomic_op…, the read of a failed
            // cmpxchg), which are the accesses of the atomic steps the C
            // front-end lowers them to: the base set A, less the lock
            // events (herd's `Lock` actions are not in it; the front-end
            // makes `spin_lock` an atomic step too).
            "RMW" => {
                let a = self.node(ExprKind::Base(Builtin::Set(BaseSet::A)), sp);
                let locks = self.lock_events(sp);
                self.node(ExprKind::Diff(Box::new(a), Box::new(locks)), sp)
            }
            // herd's final writes (`make_write_mem_finals`): the co-last
            // store of each observed location (herd computes final values
            // only for the locations a test observes, its
            // `observed_finals_only`: `BaseSet::Observed`), W \
            // domain(co), an initial write or a lock event never (herd's
            // final rf from the initial state is no store; its lock events
            // are no stores). Without initial writes as events, a
            // location no event writes has none.
            "FW" => {
                let w = self.node(ExprKind::Base(Builtin::Set(BaseSet::W)), sp);
                let co = self.node(ExprKind::Base(Builtin::Rel(BaseRel::Co)), sp);
                let d = self.node(ExprKind::Domain(Box::new(co)), sp);
                let iw = self.node(ExprKind::Base(Builtin::Set(BaseSet::IW)), sp);
                let locks = self.lock_events(sp);
                let not = self.node(ExprKind::Union(Box::new(iw), Box::new(locks)), sp);
                let not = self.node(ExprKind::Union(Box::new(d), Box::new(not)), sp);
                let fw = self.node(ExprKind::Diff(Box::new(w), Box::new(not)), sp);
                let obs = self.node(ExprKind::Base(Builtin::Set(BaseSet::Observed)), sp);
                self.node(ExprKind::Inter(Box::new(fw), Box::new(obs)), sp)
            }
            _ => return Ok(None),
        }))
    }

    /// herd's C set `n` ([`Options::c_sets`]): a memory-order set of
    /// [`C11_SETS`]; `A`, the accesses with a memory order (herd's
    /// `old_is_atomic`: `M` ∩ the memory-order sets); `NA`, the other
    /// accesses and fences (herd's complement of `A`). `None` for other
    /// names.
    fn c_set(&mut self, n: &str, sp: Span) -> Option<Node> {
        let tag = |p: &mut Self, t: &str| {
            p.node(ExprKind::Base(Builtin::Set(BaseSet::Tag(Tag::new(t)))), sp)
        };
        if C11_SETS.contains(&n) {
            return Some(tag(self, n));
        }
        if !matches!(n, "A" | "NA") {
            return None;
        }
        let mut ordered = tag(self, C11_SETS[0]);
        for t in &C11_SETS[1..] {
            let x = tag(self, t);
            ordered = self.node(ExprKind::Union(Box::new(ordered), Box::new(x)), sp);
        }
        let m = self.node(ExprKind::Base(Builtin::Set(BaseSet::M)), sp);
        let a = self.node(ExprKind::Inter(Box::new(m), Box::new(ordered)), sp);
        if n == "A" {
            return Some(a);
        }
        let m = self.node(ExprKind::Base(Builtin::Set(BaseSet::M)), sp);
        let f = self.node(ExprKind::Base(Builtin::Set(BaseSet::F)), sp);
        let all = self.node(ExprKind::Union(Box::new(m), Box::new(f)), sp);
        Some(self.node(ExprKind::Diff(Box::new(all), Box::new(a)), sp))
    }

    /// The lock events: the union of the [`LOCK_SETS`].
    fn lock_events(&mut self, sp: Span) -> Node {
        let mut out: Option<Node> = None;
        for n in LOCK_SETS {
            let t = self.node(ExprKind::Base(Builtin::Set(BaseSet::Tag(Tag::new(n)))), sp);
            out = Some(match out {
                None => t,
                Some(o) => self.node(ExprKind::Union(Box::new(o), Box::new(t)), sp),
            });
        }
        out.unwrap_or_else(|| self.empty_set(sp))
    }

    /// The empty set of events: `domain(0)`.
    fn empty_set(&mut self, sp: Span) -> Node {
        let e = self.node(ExprKind::Empty, sp);
        self.node(ExprKind::Domain(Box::new(e)), sp)
    }

    /// Whether name `n` has no local, top-level or tag meaning (so a
    /// built-in function of that name is meant).
    fn lookup_plain(&self, n: &str) -> bool {
        self.ld.herd.lookup(n).is_none() && !self.ld.herd.top.contains(n)
    }

    /// `if "NAME" then A else B` after `if` (at `sp`): A when the variant
    /// NAME is set (`-conf`'s `variant`), else B. Both are read.
    fn variant_if(&mut self, sp: Span) -> Result<Node, Error> {
        let (cond, csp) = self.bump();
        let T::Str(v) = cond else {
            return Err(self.src.error(
                csp,
                format!(
                    "expected a variant name in quotes after `if`, found {}",
                    describe(&cond)
                ),
            ));
        };
        self.expect_kw("then")?;
        let a = self.expr()?;
        self.expect_kw("else")?;
        let b = self.expr()?;
        let _ = sp;
        Ok(if self.ld.herd.opts.variants.contains(&v) {
            a
        } else {
            b
        })
    }

    /// herd's top-level variant block at the cursor (`lib/modelParser.mly`,
    /// `IfVariant`): `if "NAME" ITEMS [else ITEMS] end`, the first items
    /// when variant NAME is set, else the second. The branch not taken is
    /// skipped unread (it may include files of another variant). False
    /// (nothing read) when the `if` is not of that form.
    pub(super) fn variant_block(&mut self) -> Result<bool, Error> {
        let is_block = matches!(self.toks.get(self.pos + 1), Some((T::Str(_), _)))
            && !matches!(self.toks.get(self.pos + 2), Some((T::Name(t), _)) if t == "then");
        if !is_block {
            return Ok(false);
        }
        let sp = self.bump().1;
        let (T::Str(v), _) = self.bump() else {
            return Ok(false);
        };
        let on = self.ld.herd.opts.variants.contains(&v);
        let branch = |p: &mut Self, read: bool| -> Result<(), Error> {
            if read {
                p.if_depth += 1;
                let r = p.items();
                p.if_depth -= 1;
                r
            } else {
                p.skip_branch(sp)
            }
        };
        branch(self, on)?;
        if self.is_kw("else") {
            self.bump();
            branch(self, !on)?;
        }
        self.expect_kw("end")?;
        Ok(true)
    }

    /// Skips the tokens of a variant block's branch up to its `else` or
    /// `end` (nested blocks and `match … end` skipped whole, the `else`
    /// of an `if … then … else` expression passed over).
    fn skip_branch(&mut self, start: Span) -> Result<(), Error> {
        let (mut depth, mut pending_else) = (0usize, 0usize);
        loop {
            match self.peek().clone() {
                T::Eof => return Err(self.src.error(start, "this `if` has no `end`")),
                T::Name(k) if k == "if" => {
                    let block = !self.toks[self.pos..]
                        .iter()
                        .skip(1)
                        .take(2)
                        .any(|(t, _)| matches!(t, T::Name(n) if n == "then"));
                    if block {
                        depth += 1;
                    } else {
                        pending_else += 1;
                    }
                }
                T::Name(k) if k == "match" => depth += 1,
                T::Name(k) if k == "else" && pending_else > 0 => pending_else -= 1,
                T::Name(k) if (k == "else" || k == "end") && depth == 0 => return Ok(()),
                T::Name(k) if k == "end" => depth -= 1,
                _ => {}
            }
            self.bump();
        }
    }

    /// `try A with B` after `try`: A, unless A names something undefined
    /// (herd evaluates B when A fails; the only failure at load time here
    /// is an unknown name).
    fn try_with(&mut self) -> Result<Node, Error> {
        let defined = match self.peek().clone() {
            T::Name(n) => {
                self.ld.herd.lookup(&n).is_some()
                    || self.ld.herd.top.contains(&n)
                    || self.ld.herd.tags.contains_key(&n)
                    || Builtin::from_name(&n).is_some()
                    || LOCK_SETS.contains(&n.as_str())
                    || matches!(n.as_str(), "emptyset" | "_" | "co0" | "RMW" | "FW")
                    || (self.ld.herd.opts.c_sets
                        && (C11_SETS.contains(&n.as_str()) || matches!(n.as_str(), "A" | "NA")))
            }
            _ => {
                return Err(self.src.error(
                    self.span(),
                    "`try` is supported around a name only (`try NAME with EXPR`)",
                ))
            }
        };
        let a = self.expr()?;
        self.expect_kw("with")?;
        let b = self.expr()?;
        Ok(if defined { a } else { b })
    }

    fn expect_kw(&mut self, k: &str) -> Result<(), Error> {
        if self.is_kw(k) {
            self.bump();
            Ok(())
        } else {
            Err(self.src.error(
                self.span(),
                format!("expected `{k}`, found {}", describe(self.peek())),
            ))
        }
    }

    /// herd's items beyond `let` and axioms, at the cursor (keyword `k`);
    /// false when `k` is none of them.
    pub(super) fn herd_item(&mut self, k: &str) -> Result<bool, Error> {
        let sp = self.span();
        match k {
            "enum" => {
                self.bump();
                let (name, _) = self.name()?;
                self.expect_sym("=")?;
                loop {
                    if self.is_sym("|") {
                        self.bump();
                        self.expect_sym("|")?;
                    }
                    match self.bump() {
                        (T::Name(t), _) if t.starts_with('\'') => {
                            let tag = t[1..].to_string();
                            self.ld.herd.tags.insert(tag_set_name(&tag), tag);
                        }
                        (t, tsp) => {
                            return Err(self.src.error(
                                tsp,
                                format!("expected a tag (`'NAME`), found {}", describe(&t)),
                            ))
                        }
                    }
                    if !self.is_sym("|") {
                        break;
                    }
                }
                self.ld.herd.enums.insert(name);
            }
            "instructions" => {
                // `instructions R[Tags]`: which events may carry which
                // tags (herd checks the test against it).
                self.bump();
                self.name()?;
                self.expect_sym("[")?;
                let (e, esp) = self.name()?;
                if !self.ld.herd.enums.contains(&e) {
                    return Err(self.src.error(esp, format!("`{e}` is not an `enum`")));
                }
                self.expect_sym("]")?;
            }
            "flag" | "undefined_unless" => {
                self.bump();
                // herd's `flag ~empty E as NAME`, and `undefined_unless
                // empty E as NAME` (herd's `lib/interpreter.ml`: a failed
                // `undefined_unless` keeps the execution and adds herd's
                // flag `Undef`, printed `*undef*`, whatever its name: the
                // flag [`UNDEF_FLAG`] when E is non-empty on some
                // consistent execution); the other tests (`flag empty`,
                // `flag acyclic`, `undefined_unless acyclic`, …) are not
                // read yet.
                let undef = k == "undefined_unless";
                let test_sp = self.span();
                let negated = self.is_sym("~");
                if negated {
                    self.bump();
                }
                let test = match self.bump() {
                    (T::Name(k), _)
                        if matches!(k.as_str(), "empty" | "acyclic" | "irreflexive") =>
                    {
                        k
                    }
                    (t, ksp) => {
                        return Err(self.src.error(
                            ksp,
                            format!(
                                "expected `empty`, `acyclic` or `irreflexive`, found {}",
                                describe(&t)
                            ),
                        ))
                    }
                };
                // `different-values(r)` right after the test: read as its
                // bound r (Flag::different_values).
                let dv = matches!(self.peek(), T::Name(n) if n == "different-values")
                    && matches!(self.toks.get(self.pos + 1), Some((T::Sym(s), _)) if *s == "(")
                    && self.lookup_plain("different-values");
                let e = if dv {
                    self.bump();
                    self.bump();
                    let e = self.expr()?;
                    self.expect_sym(")")?;
                    e
                } else {
                    self.expr()?
                };
                self.expect_kw("as")?;
                let (mut name, nsp) = self.name()?;
                if negated == undef || test != "empty" {
                    self.unsupported(
                        test_sp.join(nsp),
                        format!(
                            "`{k} {}{test} … as {name}` (only herd's `flag ~empty … as NAME` and `undefined_unless empty … as NAME` are supported)",
                            if negated { "~" } else { "" }
                        ),
                    );
                }
                if undef {
                    name = UNDEF_FLAG.to_string();
                }
                self.ld.herd.flags.push((name.clone(), sp.join(nsp), dv));
                self.ld.stmts.push(Stmt::Let {
                    rec: false,
                    binds: vec![(format!("{FLAG_PREFIX}{name}"), e)],
                });
            }
            "with" => {
                self.bump();
                let (x, _) = self.name()?;
                self.expect_kw("from")?;
                let v = self.value()?;
                let end = self.toks[self.pos.saturating_sub(1)].1;
                let e = match v {
                    Value::Reads(s) => {
                        let rf = self.node(ExprKind::Base(Builtin::Rel(BaseRel::Rf)), sp);
                        let br = self.node(ExprKind::Bracket(Box::new(s)), sp);
                        self.node(ExprKind::Seq(Box::new(rf), Box::new(br)), sp)
                    }
                    Value::Node(n) if x == "co" && is_cos(&n) => n,
                    Value::Family(mut f) if f.len() == 1 => match f.pop() {
                        Some(Value::Node(n)) => n,
                        _ => return Err(self.src.error(sp.join(end), "`with … from` a set whose member is not a relation")),
                    },
                    _ => {
                        return Err(self.src.error(
                            sp.join(end),
                            "`with … from` over a set other than a single relation or herd's `generate_cos` is not supported yet",
                        ))
                    }
                };
                self.define_top(x, Value::Node(e));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `include "cross.cat"`: herd's library of candidate generators,
    /// given its meaning natively ([`Native`]); true when `name` is it.
    pub(super) fn native_include(&mut self, name: &str) -> bool {
        if name != "cross.cat" {
            return false;
        }
        let s = &mut self.ld.herd.scopes[0];
        s.insert("cross".into(), Local::Native(Native::Cross));
        s.insert("generate_cos".into(), Local::Native(Native::GenerateCos));
        true
    }
}

/// Keywords that start a top-level item (a function body ends before
/// them).
fn is_item_keyword(k: &str) -> bool {
    matches!(
        k,
        "acyclic"
            | "irreflexive"
            | "empty"
            | "show"
            | "unshow"
            | "include"
            | "flag"
            | "undefined_unless"
            | "enum"
            | "instructions"
            | "with"
    )
}

/// The type of `n` read off its syntax, given the types of names in
/// `tys`; `None` when it depends on names of unknown type only.
fn infer(n: &Node, tys: &HashMap<String, Ty>) -> Option<Ty> {
    use ExprKind::*;
    match &n.kind {
        Name(k) => tys
            .get(k)
            .copied()
            .or_else(|| Builtin::from_name(k).map(Builtin::ty)),
        Base(b) => Some(b.ty()),
        Empty => None,
        Union(a, b) | Inter(a, b) | Diff(a, b) => infer(a, tys).or_else(|| infer(b, tys)),
        Compl(a) => infer(a, tys),
        Seq(..) | Cart(..) | Plus(_) | Star(_) | Opt(_) | Inv(_) | Bracket(_) | FenceRel(_) => {
            Some(Ty::Rel)
        }
        Domain(_) | Range(_) => Some(Ty::Set),
    }
}

/// herd's `let rec` over sets (the kernel's bell file matches
/// `Rcu-lock`/`Rcu-unlock` pairs with a group of sets and relations): the
/// engines' least fixed points are over relations, so each set `s` of a
/// group is kept as the relation `[s]` inside it (its definition `e`
/// becomes `[e]`, its uses `domain(s)`) and rebound to `domain(s)` after
/// the group. `[·]` and `domain` are monotone and inverse on sets, so the
/// fixed point is the same. Runs before name resolution, on user names;
/// `next_id` numbers the new nodes.
pub(super) fn sets_in_rec_groups(stmts: &mut Vec<Stmt>, next_id: &mut usize) {
    let mut tys: HashMap<String, Ty> = HashMap::default();
    let mut out = Vec::with_capacity(stmts.len());
    let mut mk = |kind: ExprKind, like: &Node| {
        *next_id += 1;
        Node {
            id: *next_id - 1,
            kind,
            span: like.span,
            file: like.file,
            ty: Ty::Rel,
        }
    };
    for st in stmts.drain(..) {
        match st {
            Stmt::Let {
                rec: true,
                mut binds,
            } => {
                // Types of the group's names, to a fixed point.
                let mut group: HashMap<String, Ty> = tys.clone();
                for (n, _) in &binds {
                    group.remove(n);
                }
                loop {
                    let mut changed = false;
                    for (n, e) in &binds {
                        if !group.contains_key(n) {
                            if let Some(t) = infer(e, &group) {
                                group.insert(n.clone(), t);
                                changed = true;
                            }
                        }
                    }
                    if !changed {
                        break;
                    }
                }
                let sets: HashSet<String> = binds
                    .iter()
                    .filter(|(n, _)| group.get(n) == Some(&Ty::Set))
                    .map(|(n, _)| n.clone())
                    .collect();
                for (n, e) in binds.iter_mut() {
                    wrap_set_uses(e, &sets, &mut mk);
                    if sets.contains(n) {
                        let inner = std::mem::replace(&mut e.kind, ExprKind::Empty);
                        let moved = mk(inner, e);
                        e.kind = ExprKind::Bracket(Box::new(moved));
                    }
                    tys.insert(n.clone(), Ty::Rel);
                }
                let after: Vec<(String, Node)> = binds
                    .iter()
                    .filter(|(n, _)| sets.contains(n))
                    .map(|(n, e)| {
                        let r = mk(ExprKind::Name(n.clone()), e);
                        (n.clone(), mk(ExprKind::Domain(Box::new(r)), e))
                    })
                    .collect();
                out.push(Stmt::Let { rec: true, binds });
                for b in after {
                    tys.insert(b.0.clone(), Ty::Set);
                    out.push(Stmt::Let {
                        rec: false,
                        binds: vec![b],
                    });
                }
            }
            Stmt::Let { rec: false, binds } => {
                for (n, e) in &binds {
                    match infer(e, &tys) {
                        Some(t) => tys.insert(n.clone(), t),
                        None => tys.remove(n),
                    };
                }
                out.push(Stmt::Let { rec: false, binds });
            }
            st => out.push(st),
        }
    }
    *stmts = out;
}

/// Replaces each use of a name of `sets` in `n` by `domain(name)`.
fn wrap_set_uses(
    n: &mut Node,
    sets: &HashSet<String>,
    mk: &mut impl FnMut(ExprKind, &Node) -> Node,
) {
    use ExprKind::*;
    match &mut n.kind {
        Name(k) if sets.contains(k.as_str()) => {
            let r = mk(Name(k.clone()), n);
            n.kind = Domain(Box::new(r));
        }
        Name(_) | Base(_) | Empty => {}
        Union(a, b) | Inter(a, b) | Seq(a, b) | Diff(a, b) | Cart(a, b) => {
            wrap_set_uses(a, sets, mk);
            wrap_set_uses(b, sets, mk);
        }
        Compl(a) | Plus(a) | Star(a) | Opt(a) | Inv(a) | Bracket(a) | Domain(a) | Range(a)
        | FenceRel(a) => wrap_set_uses(a, sets, mk),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cat::Model;

    fn parse_with(text: &str, variants: &[&str]) -> Result<Model, Error> {
        let opts = Options {
            variants: variants.iter().map(|v| v.to_string()).collect(),
            path: Vec::new(),
            c_sets: false,
        };
        super::super::parse_model_files(&[], &SourceFile::new("t.cat", text), Origin::Disk, &opts)
    }

    fn parse(text: &str) -> Result<Model, Error> {
        parse_with(text, &[])
    }

    /// The user names of the model's `let` keys (`name#k` → `name`).
    fn lets(m: &Model) -> Vec<String> {
        m.stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Let { binds, .. } => Some(binds),
                _ => None,
            })
            .flatten()
            .map(|(k, _)| k.split('#').next().unwrap_or(k).to_string())
            .collect()
    }

    fn axioms(m: &Model) -> Vec<&str> {
        m.stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Check { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The definition (after resolution) of the last `let` of user name
    /// `name`.
    fn def<'m>(m: &'m Model, name: &str) -> &'m Node {
        m.stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Let { binds, .. } => Some(binds),
                _ => None,
            })
            .flatten()
            .rev()
            .find(|(k, _)| k.split('#').next() == Some(name))
            .map(|(_, e)| e)
            .expect("defined")
    }

    #[test]
    fn local_definitions_become_fresh_top_level_lets() {
        let m = parse(
            "let a = let x = po and y = rf in x ; y\n\
             let b = let rec m = m ; m | po in m\n\
             acyclic a | b as ax",
        )
        .unwrap();
        let l = lets(&m);
        assert!(l.iter().any(|n| n.starts_with("x%")), "{l:?}");
        assert!(l.iter().any(|n| n.starts_with("y%")), "{l:?}");
        assert!(l.iter().any(|n| n.starts_with("m%")), "{l:?}");
        assert!(m
            .stmts
            .iter()
            .any(|s| matches!(s, Stmt::Let { rec: true, binds } if binds[0].0.starts_with("m%"))));
        // The local names are not visible afterwards.
        let e = parse("let a = let x = po in x\nacyclic x").unwrap_err();
        assert!(e.to_string().contains("unknown name `x`"), "{e}");
    }

    #[test]
    fn functions_expand_with_lexical_scope() {
        let m = parse(
            "let g = po\n\
             let f(r) = r ; g\n\
             let g = rf\n\
             let h x = x | g\n\
             acyclic f(co) | h co as ax",
        )
        .unwrap();
        // f's `g` is the first one (po): its alias is defined before the
        // second `g`.
        let l = lets(&m);
        let alias = l.iter().position(|n| n.starts_with("g%")).expect("alias");
        let second_g = l.iter().rposition(|n| n == "g").expect("g");
        assert!(alias < second_g, "{l:?}");
        assert!(matches!(
            &def(&m, l[alias].as_str()).kind,
            ExprKind::Name(k) if k.starts_with("g#")
        ));
        // Wrong arity is a located error.
        let e = parse("let f(a, b) = a ; b\nacyclic f(po)").unwrap_err();
        assert!(e.to_string().contains("t.cat:2:9"), "{e}");
    }

    #[test]
    fn try_and_variant_conditionals_are_decided_at_load_time() {
        let m = parse("let a = try NOSUCH with po\nlet b = try rf with po\nacyclic a | b").unwrap();
        assert!(matches!(
            def(&m, "a").kind,
            ExprKind::Base(Builtin::Rel(BaseRel::Po))
        ));
        assert!(matches!(
            def(&m, "b").kind,
            ExprKind::Base(Builtin::Rel(BaseRel::Rf))
        ));
        let text = "let a = if \"v2\" then po else rf\nacyclic a";
        let on = parse_with(text, &["v2"]).unwrap();
        assert!(matches!(
            def(&on, "a").kind,
            ExprKind::Base(Builtin::Rel(BaseRel::Po))
        ));
        let off = parse_with(text, &["v1"]).unwrap();
        assert!(matches!(
            def(&off, "a").kind,
            ExprKind::Base(Builtin::Rel(BaseRel::Rf))
        ));
    }

    #[test]
    fn sets_of_relations_known_at_load_time() {
        // herd's lock.cat shape: one rf edge per lock-fail event, none here.
        let m = parse(
            "include \"cross.cat\"\n\
             let one p = p\n\
             let all = let per e = map one (po ; [{e}]) in map per (LF \\ range(rf))\n\
             with x from cross(all)\n\
             acyclic po | x as ax",
        )
        .unwrap();
        // The lock-fail events are lock reads: `x` is the rf edge the
        // engines choose into each, `rf ; [LF \ range(rf)]`.
        let ExprKind::Seq(rf, onto) = &def(&m, "x").kind else {
            panic!("x is not rf ; [S]: {:?}", def(&m, "x").kind)
        };
        assert!(matches!(rf.kind, ExprKind::Base(Builtin::Rel(BaseRel::Rf))));
        assert!(matches!(onto.kind, ExprKind::Bracket(_)));
        // Over a statically empty set the family is empty, and so is x.
        let m = parse(
            "include \"cross.cat\"\n\
             let one p = p\n\
             let all = let per e = map one (po ; [{e}]) in map per (emptyset)\n\
             with x from cross(all)\n\
             acyclic po | x as ax",
        )
        .unwrap();
        assert!(matches!(def(&m, "x").kind, ExprKind::Empty));
        // A set of events that may be non-empty is refused, located.
        let e = parse("let one p = p\nlet s = map one (R)\nacyclic po").unwrap_err();
        assert!(e.to_string().contains("t.cat:2:9"), "{e}");
        assert!(e.to_string().contains("`map`"), "{e}");
    }

    #[test]
    fn generate_cos_is_the_engines_co_extending_its_argument() {
        let m = parse(
            "include \"cross.cat\"\n\
             let pco = po-loc & (W * W)\n\
             with co from generate_cos(pco)\n\
             acyclic po | co as ax",
        )
        .unwrap();
        assert_eq!(axioms(&m), ["generate_cos", "ax"]);
        assert!(matches!(
            def(&m, "co").kind,
            ExprKind::Base(Builtin::Rel(BaseRel::Co))
        ));
    }

    #[test]
    fn let_rec_over_sets_is_kept_as_relations() {
        let m = parse(
            "let pairs = let rec\n\
               open = R | domain(matched)\n\
               and matched = matched | ([open] ; po ; [W])\n\
             in matched\n\
             acyclic pairs as ax",
        )
        .unwrap();
        let group = m
            .stmts
            .iter()
            .find_map(|s| match s {
                Stmt::Let { rec: true, binds } => Some(binds),
                _ => None,
            })
            .unwrap();
        assert!(matches!(group[0].1.kind, ExprKind::Bracket(_)));
        assert!(group.iter().all(|(_, e)| e.ty == Ty::Rel));
        assert!(matches!(
            def(
                &m,
                lets(&m).iter().find(|n| n.starts_with("open%")).unwrap()
            )
            .kind,
            ExprKind::Domain(_)
        ));
    }

    #[test]
    fn singlestep_is_r_minus_r_r() {
        let m = parse("let s = singlestep(po)\nacyclic s").unwrap();
        let ExprKind::Diff(a, b) = &def(&m, "s").kind else {
            panic!("{:?}", def(&m, "s"))
        };
        assert!(matches!(&a.kind, ExprKind::Name(k) if k.starts_with("singlestep%")));
        assert!(matches!(&b.kind, ExprKind::Seq(..)));
    }

    #[test]
    fn c11_sets_undefined_unless_and_variant_blocks() {
        use crate::cat::base::Tag;
        let c = |text: &str| {
            let opts = Options {
                c_sets: true,
                ..Options::default()
            };
            super::super::parse_model_files(
                &[],
                &SourceFile::new("t.cat", text),
                Origin::Disk,
                &opts,
            )
        };
        // herd's C sets: a memory order's tag; `A` the accesses with one.
        let m = c("C RC11\nlet a = ACQ | SC\nlet b = A * _\nacyclic po").unwrap();
        assert_eq!(m.name, "RC11");
        let ExprKind::Union(x, y) = &def(&m, "a").kind else {
            panic!("{:?}", def(&m, "a"))
        };
        assert!(
            matches!(x.kind, ExprKind::Base(Builtin::Set(BaseSet::Tag(t))) if t == Tag::new("acq"))
        );
        assert!(
            matches!(y.kind, ExprKind::Base(Builtin::Set(BaseSet::Tag(t))) if t == Tag::new("sc"))
        );
        // `_` in a product is the set of every event.
        let ExprKind::Cart(a, u) = &def(&m, "b").kind else {
            panic!("{:?}", def(&m, "b"))
        };
        assert!(matches!(a.kind, ExprKind::Inter(..)));
        assert!(matches!(u.kind, ExprKind::Domain(..)));
        // Without C sets, `ACQ` is the base set of acquire accesses.
        let m = parse("let a = ACQ\nacyclic po").unwrap();
        assert!(!matches!(
            def(&m, "a").kind,
            ExprKind::Base(Builtin::Set(BaseSet::Tag(_)))
        ));
        // `undefined_unless empty E as NAME`: herd's `Undef` flag.
        let m = parse("undefined_unless empty po as Dr\nacyclic po").unwrap();
        assert_eq!(m.flags.len(), 1);
        assert_eq!(m.flags[0].name, UNDEF_FLAG);
        let e = parse("undefined_unless acyclic po as Dr\nacyclic po")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("t.cat:1:18") && e.contains("undefined_unless acyclic"),
            "{e}"
        );
        // A top-level variant block: the branch of the variant, the other
        // skipped unread (its `include` names no file).
        let text = "if \"v\" let a = po else include \"absent.cat\" let a = if \"w\" then po else rf end\nacyclic a";
        assert!(parse_with(text, &["v"]).is_ok());
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains("absent.cat"), "{e}");
        let e = parse("if \"v\" let a = po\nacyclic a")
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.cat:1:1") && e.contains("no `end`"), "{e}");
    }

    #[test]
    fn tags_flags_and_what_the_engines_cannot_evaluate() {
        use crate::cat::base::Tag;
        // A tag's set is the base set of the events carrying it.
        let bell = "enum Acc = 'ONCE || 'rcu-lock\n\
                    instructions R[Acc]\n\
                    let a = Rcu-lock | ONCE | RMW\n\
                    acyclic po";
        let m = parse(bell).unwrap();
        let sets = |n: &Node, out: &mut Vec<BaseSet>| {
            fn walk(n: &Node, out: &mut Vec<BaseSet>) {
                match &n.kind {
                    ExprKind::Base(Builtin::Set(s)) => out.push(*s),
                    ExprKind::Union(a, b) => {
                        walk(a, out);
                        walk(b, out)
                    }
                    // herd's RMW: A less the lock events.
                    ExprKind::Diff(a, _) => walk(a, out),
                    _ => {}
                }
            }
            walk(n, out)
        };
        let mut got = Vec::new();
        sets(def(&m, "a"), &mut got);
        assert_eq!(
            got,
            vec![
                BaseSet::Tag(Tag::new("rcu-lock")),
                BaseSet::Tag(Tag::new("once")),
                BaseSet::A
            ]
        );
        assert_eq!(Tag::new("'ONCE"), Tag::new("once"));
        assert_eq!(Tag::new("Rcu-lock").name(), "rcu-lock");
        // `flag ~empty E as NAME`: a hidden binding and a flag.
        let m = parse("flag ~empty po as f\nflag ~empty different-values(rf) as g\nacyclic po")
            .unwrap();
        let flags: Vec<(&str, bool)> = m
            .flags
            .iter()
            .map(|f| (f.name.as_str(), f.different_values))
            .collect();
        assert_eq!(flags, vec![("f", false), ("g", true)]);
        assert!(m.defs.contains_key(&m.flags[0].key));
        // Other flag tests, and `different-values` elsewhere, are refused
        // where they are.
        let e = parse("flag acyclic po as f\nacyclic po")
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.cat:1:6"), "{e}");
        assert!(e.contains("flag acyclic"), "{e}");
        let e = parse("let d = different-values(rf)\nacyclic po")
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.cat:1:9"), "{e}");
        let e = parse("instructions R[Nope]\nacyclic po")
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.cat:1:16"), "{e}");
        assert_eq!(tag_set_name("rcu-lock"), "Rcu-lock");
        assert_eq!(tag_set_name("ONCE"), "ONCE");
    }
}
