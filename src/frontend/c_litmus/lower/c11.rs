//! herd's C11 built-ins (`lib/CLexer.mll` keywords, read whatever the
//! macro file; their meaning is `herd/CSem.ml`'s): loads, stores and
//! fences tagged with their memory order, and the read-modify-writes
//! `atomic_fetch_<op>_explicit`, `atomic_exchange_explicit`,
//! `atomic_compare_exchange_{strong,weak}[_explicit]` (`SCAS`, `WCAS`).
//!
//! herd gives a C11 read-modify-write one event that is both a read and
//! a write (`CAction.RMW`, in herd's sets `R`, `W` and `RMW`, tagged with
//! the memory order); here it is the read and the write of one atomic
//! step, both tagged with that order and related by `rmw`. The two are
//! the same executions under RC11 (`rc11.cat`) only, which reads an RMW
//! through `myrmw = [RMW] | rmw` ([`RC11_TITLE`], [`super::CLitmus::check_model`]):
//! mapping both events onto herd's one maps every relation of rc11.cat
//! into herd's plus the pair (read, write) of one step; a cycle of an
//! axiom through that pair comes back from the write to the read, which
//! is a cycle through herd's event too; the other way, a cycle through
//! herd's event that enters it by `mo` or `rb` (the write) and leaves it
//! by `rb` (the read) goes on by `mo` from the write in the split form,
//! since `atomicity` puts the write right after the value read in `mo`;
//! `dr` sees the same races (a write that `hb` orders after the read is
//! ordered after the write of the step, and the reverse), and `sw`
//! reaches the read where herd's reaches the event. herd's other C11
//! models test `R & W` (`c11_base.cat`'s release sequence) or `rf` into
//! `[RMW]` against `co` (`simple-c11.cat`), which the split form answers
//! differently: refused.

use super::{ThreadLower, ADDR_BASE};
use crate::diag::{Error, SourceFile, Span};
use crate::frontend::c_litmus::syntax::{COp, Ex};
use crate::program::{BinOp, Command, Expr, Fence, LExpr, Program, Tags, Width};

/// The title of herd's RC11 model (`rc11.cat`'s first line `C RC11`), the
/// one model under which the read-modify-writes are answered.
pub(super) const RC11_TITLE: &str = "RC11";

/// A C11 read-modify-write of a thread, kept for the checks that need the
/// whole test.
#[derive(Clone, Debug)]
pub(in crate::frontend::c_litmus) struct RmwSite {
    /// The keyword as written (`atomic_fetch_add_explicit`).
    pub name: String,
    /// The call.
    pub site: Span,
    /// A compare-exchange's (expected address, object address).
    pub cas: Option<(LExpr, LExpr)>,
}

/// The kind of a C11 read-modify-write keyword.
#[derive(Clone, Copy)]
enum Rmw {
    /// `atomic_fetch_<op>_explicit(p, v, mo)`: writes `*p op v`.
    Fetch(COp),
    /// `atomic_exchange_explicit(p, v, mo)`: writes `v`.
    Exchange,
    /// A compare-exchange (`strong`: it fails only on a different value;
    /// `explicit`: it names its success and failure orders, else both
    /// `memory_order_seq_cst`, herd's `CParser.mly`).
    Cas { strong: bool, explicit: bool },
}

/// The read-modify-write keyword `name` of herd's lexer, exactly (the
/// kernel's `atomic_fetch_add_release` and c11.def's `atomic_fetch_add`
/// are the macro file's).
fn rmw_kind(name: &str) -> Option<Rmw> {
    let cas = |strong, explicit| Some(Rmw::Cas { strong, explicit });
    match name {
        "atomic_fetch_add_explicit" => Some(Rmw::Fetch(COp::Add)),
        "atomic_fetch_sub_explicit" => Some(Rmw::Fetch(COp::Sub)),
        "atomic_fetch_or_explicit" => Some(Rmw::Fetch(COp::Or)),
        "atomic_fetch_xor_explicit" => Some(Rmw::Fetch(COp::Xor)),
        "atomic_fetch_and_explicit" => Some(Rmw::Fetch(COp::And)),
        "atomic_exchange_explicit" => Some(Rmw::Exchange),
        "atomic_compare_exchange_weak" | "WCAS" => cas(false, false),
        "atomic_compare_exchange_strong" | "SCAS" => cas(true, false),
        "atomic_compare_exchange_weak_explicit" => cas(false, true),
        "atomic_compare_exchange_strong_explicit" => cas(true, true),
        _ => None,
    }
}

/// The tag of C11 memory order `e` (`memory_order_acquire` → `acq`):
/// the lower-cased name of herd's C set of that order
/// (`crate::cat::parse::herd::C11_SETS`), the tag of herd's `c11.bell`.
/// `None` when `e` is not a memory order.
fn memory_order(e: &Ex) -> Option<&'static str> {
    let Ex::Name(n) = e else { return None };
    Some(match n.strip_prefix("memory_order_")? {
        "relaxed" => "rlx",
        "consume" => "con",
        "acquire" => "acq",
        "release" => "rel",
        "acq_rel" => "acq_rel",
        "seq_cst" => "sc",
        _ => return None,
    })
}

/// `c` carrying herd's memory-order tag `tag`.
fn tagged(tag: &str, c: Command) -> Command {
    Command::Tagged(Tags::new([tag]), Box::new(c))
}

impl ThreadLower<'_> {
    /// herd's C11 built-ins (`herd/CSem.ml`): `atomic_load_explicit(p,
    /// mo)` one read, `atomic_store_explicit(p, v, mo)` one write,
    /// `atomic_thread_fence(mo)` one fence, each tagged with its memory
    /// order ([`memory_order`]); the read-modify-writes
    /// ([`ThreadLower::c11_rmw`]). `None` for another name.
    ///
    /// Errors: the wrong number of arguments, an argument that is not a
    /// memory order where herd's parser wants one (`MEMORDER`).
    pub(super) fn c11_builtin(
        &mut self,
        name: &str,
        args: &[(Ex, Span)],
        site: Span,
    ) -> Result<Option<LExpr>, Error> {
        let kind = rmw_kind(name);
        let n = match (name, kind) {
            ("atomic_load_explicit", _) => 2,
            ("atomic_store_explicit", _) => 3,
            ("atomic_thread_fence", _) => 1,
            (_, Some(Rmw::Fetch(_) | Rmw::Exchange)) => 3,
            (_, Some(Rmw::Cas { explicit, .. })) => 3 + 2 * explicit as usize,
            _ => return Ok(None),
        };
        if args.len() != n {
            return Err(self.src.error(
                site,
                format!("`{name}` takes {n} arguments, found {}", args.len()),
            ));
        }
        let order = |k: usize| {
            let (mo, msp) = &args[k];
            memory_order(mo).ok_or_else(|| {
                self.err(
                    *msp,
                    site,
                    "expected a memory order (`memory_order_relaxed`, `_acquire`, `_release`, \
                     `_acq_rel`, `_seq_cst`, `_consume`)",
                )
            })
        };
        if let Some(kind) = kind {
            let orders = match kind {
                Rmw::Cas { explicit: true, .. } => (order(3)?, order(4)?),
                Rmw::Cas { .. } => ("sc", "sc"),
                _ => (order(2)?, ""),
            };
            return self.c11_rmw(name, kind, args, orders, site).map(Some);
        }
        let tag = order(n - 1)?;
        Ok(Some(match name {
            "atomic_load_explicit" => {
                let addr = self.expr(&args[0].0, args[0].1, site)?;
                let r = self.temp();
                self.emit(tagged(tag, Command::Load { reg: r, addr }), site);
                Expr::Var(r)
            }
            "atomic_store_explicit" => {
                let addr = self.expr(&args[0].0, args[0].1, site)?;
                let value = self.expr(&args[1].0, args[1].1, site)?;
                self.emit(tagged(tag, Command::Store { addr, value }), site);
                Expr::Const(0)
            }
            _ => {
                self.emit(tagged(tag, Command::Fence(Fence::Marker)), site);
                Expr::Const(0)
            }
        }))
    }

    /// A C11 read-modify-write (`herd/CSem.ml`, `Fetch`, `Exchange`,
    /// `ECas`), `orders` its (success, failure) memory-order tags:
    ///
    /// * `atomic_fetch_<op>_explicit(p, v, mo)`: the read of `*p` and the
    ///   write of the value read `op v`, one atomic step; its value is
    ///   the value read (herd's `M.fetch`);
    /// * `atomic_exchange_explicit(p, v, mo)`: the same writing `v`;
    /// * `atomic_compare_exchange_*(obj, exp, des, succ, fail)`: a plain
    ///   read of `*exp`, then either (success) the read of `*obj` — its
    ///   value must be the one of `*exp` — and the write of `des`, one
    ///   atomic step tagged `succ` (`des` evaluated there only), value 1;
    ///   or (failure) a read of `*obj` tagged `fail` (a strong one only
    ///   when the value differs from `*exp`'s), then a plain write of the
    ///   value read to `*exp`, value 0. The value is a constant of each
    ///   alternative, as herd's (`altT`), so nothing depends on the reads
    ///   through it.
    fn c11_rmw(
        &mut self,
        name: &str,
        kind: Rmw,
        args: &[(Ex, Span)],
        (succ, fail): (&str, &str),
        site: Span,
    ) -> Result<LExpr, Error> {
        let Rmw::Cas { strong, .. } = kind else {
            let addr = self.expr(&args[0].0, args[0].1, site)?;
            let v = self.expr(&args[1].0, args[1].1, site)?;
            let r = self.temp();
            let value = match kind {
                Rmw::Fetch(op) => super::bin(op, Expr::Var(r), v),
                _ => v,
            };
            let load = tagged(
                succ,
                Command::Load {
                    reg: r,
                    addr: addr.clone(),
                },
            );
            let store = tagged(succ, Command::Store { addr, value });
            self.emit(Command::Atomic(vec![load, store]), site);
            self.rmws.push(RmwSite {
                name: name.to_string(),
                site,
                cas: None,
            });
            return Ok(Expr::Var(r));
        };
        let exp = self.expr(&args[1].0, args[1].1, site)?;
        let obj = self.expr(&args[0].0, args[0].1, site)?;
        let ve = self.temp();
        let load_exp = Command::Load {
            reg: ve,
            addr: exp.clone(),
        };
        // The compare-exchange is one event of its statement (herd's
        // operation; `*exp` is the thread's own, `check_expected`), its
        // desired value's accesses others.
        self.one_event(|l| l.emit(load_exp, site));
        let (start, join, res) = (self.cur, self.fresh_state(), self.temp());
        // Failure: the read tagged `fail`, the value read written to `*exp`.
        let ro = self.temp();
        let load = |reg, tag| {
            let addr = obj.clone();
            tagged(tag, Command::Load { reg, addr })
        };
        let store_exp = Command::Store {
            addr: exp.clone(),
            value: Expr::Var(ro),
        };
        self.uncounted(|l| {
            l.emit(load(ro, fail), site);
            if strong {
                let differs = Expr::bin(BinOp::Ne, Expr::Var(ro), Expr::Var(ve));
                l.emit(Command::Guard(differs), site);
            }
            l.emit(store_exp, site);
        });
        let assign = |value| Command::Assign {
            reg: res,
            value: Expr::Const(value),
        };
        self.emit_to(assign(0), site, join);
        // Success: one atomic step reading the expected value.
        self.cur = start;
        let des = self.expr(&args[2].0, args[2].1, site)?;
        let rs = self.temp();
        let step = Command::Atomic(vec![
            load(rs, succ),
            Command::Guard(Expr::bin(BinOp::Eq, Expr::Var(rs), Expr::Var(ve))),
            tagged(
                succ,
                Command::Store {
                    addr: obj.clone(),
                    value: des,
                },
            ),
        ]);
        self.uncounted(|l| l.emit(step, site));
        self.emit_to(assign(1), site, join);
        self.cur = join;
        self.rmws.push(RmwSite {
            name: name.to_string(),
            site,
            cas: Some((exp, obj)),
        });
        Ok(Expr::Var(res))
    }
}

/// Refuses a compare-exchange whose expected location another thread may
/// reach or that is its object, located at the call: herd's events of one
/// statement are not related by `po` (`herd/CSem.ml` gives a statement
/// one program-order index; its events are ordered by `iico` only), while
/// here the plain read and write of `*exp` are in `po` with the accesses
/// of `*obj`; the two agree when no other thread reaches `*exp` (`dr` is
/// `ext`, and the thread's own accesses of `*exp` keep their order).
/// A thread reaches a location through its parameters and the registers
/// the init block gives its address; a location whose address some
/// location holds initially may be reached by any thread.
///
/// Errors: the expected address is not a parameter's or a register's the
/// thread never writes; it is the object's; another thread reaches it.
pub(in crate::frontend::c_litmus) fn check_expected(
    src: &SourceFile,
    p: &Program,
    rmws: &[Vec<RmwSite>],
) -> Result<(), Error> {
    for (ti, sites) in rmws.iter().enumerate() {
        let t = &p.threads[ti];
        let written = crate::frontend::litmus::pointers::written_regs(t);
        let addr_of = |e: &LExpr| {
            let mut known = true;
            e.for_each_var(&mut |r| known &= !written.contains(&r.0));
            let a = e.eval(Width(64), Default::default(), &mut |r| {
                t.reg_init[r.0 as usize]
            });
            (known && a >= ADDR_BASE).then_some(a)
        };
        for s in sites {
            let Some((exp, obj)) = &s.cas else { continue };
            let refuse = |why: String| {
                Err(src.error(s.site, format!("`{}`: {why} is not supported", s.name)))
            };
            let Some(a) = addr_of(exp) else {
                return refuse(
                    "an expected argument other than a parameter (or a register the thread \
                     never writes)"
                        .into(),
                );
            };
            if addr_of(obj) == Some(a) {
                return refuse("the same location as object and expected value".into());
            }
            let held = p.init.values().any(|&v| v == a);
            let other = (p.threads.iter().enumerate())
                .find(|(k, o)| *k != ti && o.reg_init.contains(&a))
                .map(|(k, _)| k);
            if held || other.is_some() {
                let by = other.map_or("a location holding its address".to_string(), |k| {
                    format!("thread P{k}")
                });
                return refuse(format!(
                    "an expected location that {by} also reaches (herd orders the accesses \
                     of one statement by iico, not po)"
                ));
            }
        }
    }
    Ok(())
}
