//! Memory built-ins: `malloc`/`calloc`/`alloca` (one fresh object per
//! call site of the unwound program), `memset`/`memcpy`/`memmove` over a
//! constant number of cells, and `strcpy` from a string literal.
//! docs/c.md, "Dynamic memory", gives each one's meaning.

use super::ctx::Ctx;
use super::expr::Val;
use super::types::CType;
use crate::diag::Error;
use crate::program::{BinOp, Command, Expr, LExpr};
use lang_c::ast::Expression;
use lang_c::span::{Node, Span};

/// Most cells `memset`/`memcpy`/`memmove` write.
pub const MAX_BLOCK: i64 = 1024;

impl<'a> Ctx<'a> {
    /// `malloc(n)`, `calloc(k, n)`, `alloca(n)` (docs/c.md, "Dynamic
    /// memory"): a fresh object of `n` (`k·n`) cells, allocated at this
    /// call site of the unwound program (which runs at most once per
    /// execution, so one object per site is exact), its cells 0 at the
    /// start; the call returns its address and never fails.
    ///
    /// Errors: a size that constant propagation does not know, or outside
    /// 1..=`MAX_CELLS`; memory beyond the width's addresses.
    pub(super) fn allocate(
        &mut self,
        name: &str,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Val, Error> {
        let want = if name == "calloc" { 2 } else { 1 };
        if args.len() != want {
            return Err(self.err(s, format!("`{name}` takes {want} argument(s)")));
        }
        let mut size: i64 = 1;
        for a in args {
            let v = self.rvalue(a)?;
            if !self.b.live() {
                return Ok(Val::int(Expr::Const(0)));
            }
            let Some(k) = self.b.fold(&v.e).as_const(self.width) else {
                return Err(self.err(
                    a.span,
                    format!("`{name}` of a size that is not a constant here (docs/c.md, \"Dynamic memory\")"),
                ));
            };
            size = size.saturating_mul(k);
        }
        let max = super::types::MAX_CELLS as i64;
        if !(0..=max).contains(&size) {
            return Err(self.err(s, format!("`{name}` of {size} cells (at most {max})")));
        }
        if !self.b.live() {
            return Ok(Val::int(Expr::Const(0)));
        }
        if self.in_cycle > 0 {
            // One object would stand for the allocations of every iteration.
            return Err(self.err(s, format!("`{name}` in a loop kept as a cycle")));
        }
        let line = self.src.line(s);
        let a = self.alloc(&format!("heap.{line}"), size.max(1) as u64, &[], s)?;
        Ok(Val {
            e: Expr::Const(a),
            ty: CType::Ptr(Box::new(CType::Void)),
        })
    }

    /// `strcpy(d, "literal")`: one store per character of the literal
    /// and its terminating 0, at `d`, `d + 1`, …; returns `d`.
    ///
    /// Errors: a source that is not a string literal (its length would
    /// be a loop over memory), or a wrong number of arguments.
    pub(super) fn strcpy(&mut self, args: &'a [Node<Expression>], s: Span) -> Result<Val, Error> {
        if args.len() != 2 {
            return Err(self.err(s, "`strcpy` takes 2 arguments"));
        }
        let chars = match &args[1].node {
            Expression::StringLiteral(p) => super::types::string_value(&p.node),
            _ => None,
        };
        let Some(chars) = chars else {
            return Err(self.err(
                args[1].span,
                "`strcpy` from a source that is not a string literal is not supported",
            ));
        };
        let d = self.rvalue(&args[0])?;
        let d = Val {
            e: self.stable(d.e, args[0].span)?,
            ty: d.ty,
        };
        for (k, c) in chars.iter().chain(std::iter::once(&0)).enumerate() {
            self.emit(
                Command::Store {
                    addr: Expr::bin(BinOp::Add, d.e.clone(), Expr::Const(k as i64)),
                    value: Expr::Const(self.width.wrap(*c)),
                },
                s,
            )?;
        }
        Ok(d)
    }

    /// `memset(p, v, n)`, `memcpy(d, s, n)`, `memmove(d, s, n)` with `n`
    /// a constant of at most [`MAX_BLOCK`] cells: one store per cell
    /// (`memcpy`/`memmove`: all loads first, then the stores, in cell
    /// order); returns `p`/`d`.
    ///
    /// Errors: a size that is not a constant here or above the limit.
    pub(super) fn mem_block(
        &mut self,
        name: &str,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Val, Error> {
        if args.len() != 3 {
            return Err(self.err(s, format!("`{name}` takes 3 arguments")));
        }
        let d = self.rvalue(&args[0])?;
        let d = Val {
            e: self.stable(d.e, args[0].span)?,
            ty: d.ty,
        };
        let v = self.rvalue(&args[1])?;
        let v = self.stable(v.e, args[1].span)?;
        let n = self.rvalue(&args[2])?;
        if !self.b.live() {
            return Ok(d);
        }
        let n = match self.b.fold(&n.e).as_const(self.width) {
            Some(k) if (0..=MAX_BLOCK).contains(&k) => k,
            _ => {
                return Err(self.err(
                    args[2].span,
                    format!(
                    "`{name}` of a size that is not a constant of at most {MAX_BLOCK} cells here"
                ),
                ))
            }
        };
        let at = |base: &LExpr, k: i64| Expr::bin(BinOp::Add, base.clone(), Expr::Const(k));
        if name.ends_with("memset") {
            for k in 0..n {
                self.emit(
                    Command::Store {
                        addr: at(&d.e, k),
                        value: v.clone(),
                    },
                    s,
                )?;
            }
        } else {
            let mut loaded = Vec::new();
            for k in 0..n {
                let t = self.b.reg(&format!("copy.{}.{k}", s.start));
                self.emit(
                    Command::Load {
                        reg: t,
                        addr: at(&v, k),
                    },
                    s,
                )?;
                loaded.push(t);
            }
            for (k, t) in loaded.into_iter().enumerate() {
                self.emit(
                    Command::Store {
                        addr: at(&d.e, k as i64),
                        value: Expr::Var(t),
                    },
                    s,
                )?;
            }
        }
        Ok(d)
    }
}
