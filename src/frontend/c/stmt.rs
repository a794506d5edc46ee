//! Statements: blocks and declarations, `if`, the loops (unwound to
//! `--unwind` iterations, CBMC's meaning; loops whose condition constant
//! propagation decides are unrolled completely; spin loops `while (c);`
//! become loads and `assume(!c)`), `goto` (forward; a backward `goto L`
//! to a labeled item of the same block makes the items from `L` to the
//! last such `goto` a loop, unwound like the others), `break`,
//! `continue`, `return`, `switch` (dispatch and case labels in
//! [`super::switch`]), inline assembly (`mfence`), and inlining of a
//! called function's body.

use super::builder::{negate, LabelId};
use super::ctx::{Ctx, Frame, Local, MAX_CONST_ITERATIONS};
use super::types::{declarator_name, CType};
use crate::diag::Error;
use crate::program::{Command, Expr, Fence, LExpr};
use lang_c::ast::{
    BlockItem, Declaration, DeclarationSpecifier, Expression, ForInitializer, FunctionDefinition,
    Initializer, Label, Statement,
};
use lang_c::span::{Node, Span};
use std::collections::HashMap;

/// How many calls deep [`Ctx::param_tested`] follows a parameter passed
/// on as an argument.
const MAX_PASS_DEPTH: usize = 4;

/// A parameter: its specifiers and declarator.
pub type Param<'a> = (
    &'a [Node<DeclarationSpecifier>],
    Option<&'a Node<lang_c::ast::Declarator>>,
);

/// The kind of a loop.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LoopKind {
    While,
    DoWhile,
    For,
}

impl<'a> Ctx<'a> {
    /// Inlines `f`'s body with `args` bound to its parameters; `ret` is
    /// where `return` goes (a new label when `None`), placed after the
    /// body. Returns the register holding the returned value, if any.
    ///
    /// Errors: recursion, a wrong number of arguments, the body's errors.
    pub fn inline_body(
        &mut self,
        f: &'a Node<FunctionDefinition>,
        args: Vec<LExpr>,
        ret: Option<LabelId>,
        call: Span,
    ) -> Result<Option<(crate::program::RegId, CType)>, Error> {
        let name = declarator_name(&f.node.declarator).unwrap_or_default();
        let discard = std::mem::take(&mut self.discard_result);
        // Recursion is unwound like a loop (docs/c.md, "Recursion"): at
        // most `--unwind` nested copies of a function; a path needing
        // one more ends there, and the answer says so.
        let active = self.frames.iter().filter(|fr| fr.func == name).count();
        if active > 0 && active as u32 >= self.opts.unwind {
            self.cut_here(call);
            let ret_ty =
                self.types
                    .function_return(&f.node.specifiers, &f.node.declarator, self.src)?;
            return Ok(if ret_ty == CType::Void {
                None
            } else {
                Some((self.b.reg(&format!("{name}.return")), ret_ty))
            });
        }
        if self.frames.len() >= 64 {
            return Err(self.err(call, "calls nested deeper than 64"));
        }
        let params = parameters(f);
        let mut args = args;
        if self.frames.is_empty() && name == "main" {
            // `int main(int argc, char **argv)`: run without arguments,
            // `argc` is 1 and `argv` is NULL (docs/c.md, "Limits").
            args = [1, 0]
                .into_iter()
                .take(params.len())
                .map(Expr::Const)
                .collect();
        }
        if args.len() > params.len() && is_variadic(f) {
            // The `...` arguments were evaluated; `va_arg` is outside the
            // subset, so they are not read.
            args.truncate(params.len());
        }
        if params.len() != args.len() && !(self.frames.is_empty() && args.len() <= 1) {
            return Err(self.err(
                call,
                format!(
                    "`{name}` takes {} argument(s), not {}",
                    params.len(),
                    args.len()
                ),
            ));
        }
        let ret_ty =
            self.types
                .function_return(&f.node.specifiers, &f.node.declarator, self.src)?;
        let ret_label = ret.unwrap_or_else(|| self.b.label());
        let ret_reg = if ret_ty == CType::Void || self.frames.is_empty() {
            None
        } else {
            Some((self.b.reg(&format!("{name}.return")), ret_ty))
        };
        let addr_taken = self.addr_taken(f);
        let mut labels = Vec::new();
        collect_labels(&f.node.statement, &mut labels, 0);
        let label_scope: HashMap<String, LabelId> =
            labels.into_iter().map(|l| (l, self.b.label())).collect();
        self.frames.push(Frame {
            func: name.clone(),
            scopes: vec![HashMap::new()],
            label_scopes: vec![label_scope],
            loops: Vec::new(),
            switches: Vec::new(),
            ret: ret_label,
            ret_reg: ret_reg.clone(),
            addr_taken,
            discard,
        });
        let r = self
            .bind_params(&params, args, call)
            .and_then(|_| self.stmt(&f.node.statement));
        self.frames.pop();
        r?;
        if ret.is_none() {
            self.b.place(ret_label);
        } else {
            self.b.jump(ret_label);
        }
        Ok(ret_reg)
    }

    fn bind_params(
        &mut self,
        params: &[Param<'a>],
        args: Vec<LExpr>,
        call: Span,
    ) -> Result<(), Error> {
        for ((specs, decl), a) in params.iter().zip(args) {
            let Some(d) = decl else { continue };
            let Some(pname) = declarator_name(d) else {
                continue;
            };
            let r = self.types.resolve(specs, Some(d), self.src)?;
            let ty = match r.ty {
                CType::Array(e, _) => CType::Ptr(e),
                t => t,
            };
            let local = self.bind_local(&pname, ty.clone(), r.atomic, d.span)?;
            self.write_local(&local, a, call)?;
        }
        Ok(())
    }

    /// Assigns `v` to a local (registers: `Assign`; memory: `Store`).
    ///
    /// Errors: see [`Ctx::emit`].
    pub fn write_local(&mut self, l: &Local, v: LExpr, s: Span) -> Result<(), Error> {
        match l {
            Local::Reg(r, ty) => {
                let v = convert(v, ty);
                self.emit(Command::Assign { reg: *r, value: v }, s)
            }
            Local::Mem(a, ty, atomic) => {
                let v = convert(v, ty);
                let st = Command::Store {
                    addr: Expr::Const(*a),
                    value: v,
                };
                self.emit(
                    if *atomic {
                        Command::Atomic(vec![st])
                    } else {
                        st
                    },
                    s,
                )
            }
        }
    }

    /// Lowers a statement.
    ///
    /// Errors: constructs outside the subset (located).
    pub fn stmt(&mut self, s: &'a Node<Statement>) -> Result<(), Error> {
        self.nested(s.span, |c| {
            c.b.at_line(c.src.line(s.span));
            let mark = c.b.mark();
            let r = c.stmt_inner(s);
            c.b.release(mark);
            r
        })
    }

    fn stmt_inner(&mut self, s: &'a Node<Statement>) -> Result<(), Error> {
        match &s.node {
            Statement::Compound(items) => {
                self.frame().scopes.push(HashMap::new());
                let r = self.block_items(items);
                self.frame().scopes.pop();
                r
            }
            Statement::Expression(Some(e)) => self.effect(e),
            Statement::Expression(None) => Ok(()),
            Statement::If(i) => {
                let c = self.cond(&i.node.condition)?;
                let (t, e) = self.b.branch(&c, self.span(i.node.condition.span))?;
                let join = self.b.label();
                self.b.goto_pos(t);
                self.stmt(&i.node.then_statement)?;
                self.b.jump(join);
                self.b.goto_pos(e);
                if let Some(el) = &i.node.else_statement {
                    self.stmt(el)?;
                }
                self.b.place(join);
                Ok(())
            }
            Statement::While(w) => self.lower_loop(
                LoopKind::While,
                None,
                Some(&w.node.expression),
                None,
                &w.node.statement,
                s.span,
            ),
            Statement::DoWhile(w) => self.lower_loop(
                LoopKind::DoWhile,
                None,
                Some(&w.node.expression),
                None,
                &w.node.statement,
                s.span,
            ),
            Statement::For(f) => self.lower_loop(
                LoopKind::For,
                Some(&f.node.initializer),
                f.node.condition.as_deref(),
                f.node.step.as_deref(),
                &f.node.statement,
                s.span,
            ),
            Statement::Goto(id) => {
                let l = self.find_label(&id.node.name, id.span)?;
                if !self.b.live() {
                    // Unreachable (e.g. after `abort()`): no jump.
                    return Ok(());
                }
                if self.b.placed(l) {
                    return self.backward_goto(&id.node.name, id.span);
                }
                self.b.jump(l);
                Ok(())
            }
            Statement::Labeled(l) => match &l.node.label.node {
                Label::Identifier(id) => {
                    let lab = self.find_label(&id.node.name, id.span)?;
                    self.b.place(lab);
                    self.stmt(&l.node.statement)
                }
                _ => {
                    self.case_label(l.node.label.span)?;
                    self.stmt(&l.node.statement)
                }
            },
            Statement::Switch(sw) => self.lower_switch(sw),
            Statement::Continue => {
                // The innermost loop: a switch has no continue target.
                let Some(c) = self.frame().loops.iter().rev().find_map(|&(_, c)| c) else {
                    return Err(self.err(s.span, "`continue` outside a loop"));
                };
                self.b.jump(c);
                Ok(())
            }
            Statement::Break => {
                let Some(&(b, _)) = self.frame().loops.last() else {
                    return Err(self.err(s.span, "`break` outside a loop or switch"));
                };
                self.b.jump(b);
                Ok(())
            }
            Statement::Return(e) => {
                // `return __VERIFIER_nondet_*();` of a call whose value is
                // discarded: any value is returned and none is used, so
                // no draw (0 is one of the values).
                let e = e
                    .as_ref()
                    .filter(|e| !(self.frame().discard && self.is_nondet_call(e)));
                if let Some(e) = e {
                    let v = self.rvalue(e)?;
                    if let Some((r, ty)) = self.frame().ret_reg.clone() {
                        let v = convert(v.e, &ty);
                        self.emit(Command::Assign { reg: r, value: v }, s.span)?;
                    }
                }
                let ret = self.frame().ret;
                self.b.jump(ret);
                Ok(())
            }
            Statement::Asm(a) => self.asm(a, s.span),
        }
    }

    /// A backward `goto L` that is not a loop of its block (module doc):
    /// when `L` labels a statement that ends every path through it (an
    /// error function, `abort`, a `return`, a `goto` forward), a copy of
    /// that statement here is the same as jumping back to it (SV-COMP's
    /// `goto ERROR` to an earlier `ERROR: reach_error();`).
    ///
    /// Errors: the labeled statement can complete normally (then the
    /// jump is a loop that is not one of its block: not supported).
    fn backward_goto(&mut self, name: &str, span: Span) -> Result<(), Error> {
        let func = self.frame().func.clone();
        let target = self
            .funcs
            .get(&func)
            .and_then(|f| labeled_statement(&f.node.statement, name));
        let refuse = |cx: &Ctx<'a>| {
            cx.err(
                span,
                format!("backward `goto {name}` to a statement that can complete (a loop made of goto that is not one of the label's block) is not supported; use a loop statement"),
            )
        };
        let Some(st) = target else {
            return Err(refuse(self));
        };
        let mut labels = Vec::new();
        collect_labels(st, &mut labels, 0);
        let scope: HashMap<String, LabelId> =
            labels.into_iter().map(|l| (l, self.b.label())).collect();
        self.frame().label_scopes.push(scope);
        let r = self.stmt(st);
        self.frame().label_scopes.pop();
        r?;
        if self.b.live() {
            return Err(refuse(self));
        }
        Ok(())
    }

    /// The items of a block in order; a labeled item `L: ...` that a
    /// later `goto L` of the same block jumps back to starts a loop made
    /// of goto ([`Ctx::goto_loop`]).
    fn block_items(&mut self, items: &'a [Node<BlockItem>]) -> Result<(), Error> {
        let mut i = 0;
        while i < items.len() {
            if let Some((label, end)) = goto_loop_at(items, i) {
                self.goto_loop(items, i, end, label)?;
                i = end + 1;
                continue;
            }
            self.draw = self.bounded_draw(items, i);
            let r = self.block_item(&items[i]);
            self.draw = None;
            r?;
            i += 1;
        }
        Ok(())
    }

    /// One item of a block.
    fn block_item(&mut self, it: &'a Node<BlockItem>) -> Result<(), Error> {
        match &it.node {
            BlockItem::Declaration(d) => self.local_declaration(d),
            BlockItem::StaticAssert(_) => Ok(()),
            BlockItem::Statement(st) => self.stmt(st),
        }
    }

    /// A loop made of goto: the items `first..=last` of a block, from the
    /// item labeled `label` to the last one holding a `goto label`,
    /// unwound like a loop statement (module doc): each pass lowers the
    /// items with fresh labels, its `goto label`s jumping forward to the
    /// next pass; falling through the last item leaves the loop; a path
    /// that would start pass `--unwind` + 1 is cut and reported as a cut
    /// loop at the label's line. Gotos from before the loop still reach
    /// the label (the first pass).
    ///
    /// Errors: a `goto` from outside the loop to another label inside it
    /// (located at the label); those of the items.
    fn goto_loop(
        &mut self,
        items: &'a [Node<BlockItem>],
        first: usize,
        last: usize,
        label: &'a str,
    ) -> Result<(), Error> {
        let BlockItem::Statement(head) = &items[first].node else {
            unreachable!("goto_loop_at gives a labeled statement")
        };
        let Statement::Labeled(lab) = &head.node else {
            unreachable!("goto_loop_at gives a labeled statement")
        };
        let span = lab.node.label.span;
        let region = &items[first..=last];
        let mut labels = Vec::new();
        for it in region {
            if let BlockItem::Statement(st) = &it.node {
                collect_labels(st, &mut labels, 0);
            }
        }
        let func = self.frame().func.clone();
        if let Some(&f) = self.funcs.get(&func) {
            let everywhere = goto_targets(&f.node.statement);
            let inside: Vec<String> = region.iter().flat_map(item_goto_targets).collect();
            for m in labels.iter().filter(|m| m.as_str() != label) {
                let count = |v: &[String]| v.iter().filter(|x| *x == m).count();
                if count(&everywhere) > count(&inside) {
                    return Err(self.err(
                        span,
                        format!("`goto {m}` from outside into the loop made of `goto {label}` is not supported"),
                    ));
                }
            }
        }
        let entry = self.find_label(label, span)?;
        self.b.place(entry);
        let exit = self.b.label();
        let mut k: u32 = 0;
        while self.b.live() {
            if k >= self.opts.unwind {
                // The unwinding bound: this path would need another pass.
                self.cut_here(span);
                break;
            }
            let again = self.b.label();
            let mut scope: HashMap<String, LabelId> = HashMap::new();
            for m in &labels {
                let l = if m == label { again } else { self.b.label() };
                scope.insert(m.clone(), l);
            }
            self.frame().label_scopes.push(scope);
            let r = self
                .stmt(&lab.node.statement)
                .and_then(|_| region[1..].iter().try_for_each(|it| self.block_item(it)));
            self.frame().label_scopes.pop();
            r?;
            self.b.jump(exit);
            self.b.place(again);
            k += 1;
        }
        self.b.place(exit);
        Ok(())
    }

    /// Inline assembly: `mfence` (and `lock; addl $0,(%rsp)`-free forms
    /// of it) is a full fence; an empty template (a compiler barrier) is
    /// nothing; anything else is an error.
    fn asm(&mut self, a: &'a Node<lang_c::ast::AsmStatement>, span: Span) -> Result<(), Error> {
        let template = match &a.node {
            lang_c::ast::AsmStatement::GnuBasic(t) => &t.node,
            lang_c::ast::AsmStatement::GnuExtended(x) => &x.template.node,
        };
        let text: String = template
            .iter()
            .map(|p| p.trim_matches('"').to_string())
            .collect::<Vec<_>>()
            .join("");
        let t = text.trim().trim_end_matches(';').trim();
        match t {
            "mfence" | "MFENCE" | "sync" | "dmb ish" | "dmb sy" | "lock; addl $0,0(%%rsp)" => {
                self.emit(Command::Fence(Fence::MFence), span)
            }
            "" => Ok(()),
            _ => Err(self.err(
                span,
                format!("inline assembly `{t}` is not supported (only `mfence` and empty compiler barriers)"),
            )),
        }
    }

    /// The label `name` of the innermost label scope that has it.
    fn find_label(&mut self, name: &str, span: Span) -> Result<LabelId, Error> {
        let f = self.frame();
        for sc in f.label_scopes.iter().rev() {
            if let Some(&l) = sc.get(name) {
                return Ok(l);
            }
        }
        Err(self.err(
            span,
            format!("label `{name}` is not in this function or is inside a loop the goto is outside of (not supported)"),
        ))
    }

    /// A block-scope declaration: `static` locals are globals; typedefs
    /// and struct tags are recorded; other objects are bound and
    /// initialised at this point.
    fn local_declaration(&mut self, d: &'a Node<Declaration>) -> Result<(), Error> {
        let is = |k: lang_c::ast::StorageClassSpecifier| {
            d.node
                .specifiers
                .iter()
                .any(|s| matches!(&s.node, DeclarationSpecifier::StorageClass(c) if c.node == k))
        };
        let is_typedef = is(lang_c::ast::StorageClassSpecifier::Typedef);
        let is_static = is(lang_c::ast::StorageClassSpecifier::Static);
        let is_extern = is(lang_c::ast::StorageClassSpecifier::Extern);
        for s in &d.node.specifiers {
            if let DeclarationSpecifier::TypeSpecifier(t) = &s.node {
                if let lang_c::ast::TypeSpecifier::Struct(st) = &t.node {
                    if let (Some(tag), Some(_)) = (&st.node.identifier, &st.node.declarations) {
                        self.types.tag_defs.insert(tag.node.name.clone(), st);
                    }
                }
            }
        }
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
            if super::types::is_function(&id.node.declarator) || is_extern {
                continue;
            }
            if is_static {
                let func = self.frame().func.clone();
                let key = format!("{func}::{name}");
                if !self.globals.contains_key(&key) {
                    self.define_global(&key, &format!("{func}.{name}"), &d.node.specifiers, id)?;
                }
                let g = self.globals[&key].clone();
                let addr = match g.thread_local {
                    Some(_) => self.tls_copy(&key, id.span)?,
                    None => g.addr,
                };
                self.frame()
                    .scopes
                    .last_mut()
                    .expect("a scope")
                    .insert(name, Local::Mem(addr, g.ty, g.atomic));
                continue;
            }
            let sized = self.vla_sizes(&id.node.declarator, &name)?;
            let r = self.types.resolve(
                &d.node.specifiers,
                Some(sized.as_ref().unwrap_or(&id.node.declarator)),
                self.src,
            )?;
            if r.thread_local {
                return Err(self.err(
                    id.span,
                    format!("thread-local `{name}` at block scope must be `static` or `extern` (C11 6.7.1p3)"),
                ));
            }
            let mut ty = r.ty;
            if let (CType::Array(e, 0), Some(init)) = (&ty, &id.node.initializer) {
                if let Initializer::List(items) = &init.node {
                    ty = CType::Array(e.clone(), items.len().max(1) as u64);
                }
            }
            if matches!(ty, CType::Void | CType::Func) {
                return Err(self.err(id.span, format!("object `{name}` has no storage type")));
            }
            // The initializer is evaluated before the name is in scope
            // only for its own registers; C puts it in scope first, which
            // matters only for self-reference.
            let local = self.bind_local(&name, ty.clone(), r.atomic, id.node.declarator.span)?;
            match &id.node.initializer {
                Some(init) if self.truth_draw(&local, &ty, init, &name) => {
                    // Only ever tested against 0: one bit has its paths.
                    let v = self.nondet("__VERIFIER_nondet_bool", init.span)?;
                    self.write_local(&local, v.e, init.span)?;
                }
                Some(init) => self.init_local(&local, &ty, 0, init)?,
                None => {}
            }
        }
        Ok(())
    }

    /// A variable-length array `T name[n]` whose size `n` is not a
    /// constant expression but whose value constant propagation knows
    /// here (e.g. a global read by `main` before it creates a thread):
    /// the declarator with `n` replaced by that constant (C evaluates the
    /// size when the declaration is reached). `None` when every size is
    /// a constant expression.
    ///
    /// Errors: a size whose value is not known here, or outside
    /// 1..=`MAX_CELLS`.
    fn vla_sizes(
        &mut self,
        d: &'a Node<lang_c::ast::Declarator>,
        name: &str,
    ) -> Result<Option<Node<lang_c::ast::Declarator>>, Error> {
        use lang_c::ast::{ArraySize, Constant, DerivedDeclarator, Integer, IntegerBase};
        let mut out: Option<Node<lang_c::ast::Declarator>> = None;
        for (k, dd) in d.node.derived.iter().enumerate() {
            let DerivedDeclarator::Array(a) = &dd.node else {
                continue;
            };
            let ArraySize::VariableExpression(e) = &a.node.size else {
                continue;
            };
            if self.types.const_int(e, self.src).is_ok() {
                continue;
            }
            let v = self.rvalue(e)?.e;
            let max = super::types::MAX_CELLS as i64;
            let n = match self.b.fold(&v).as_const(self.width) {
                Some(n) if (1..=max).contains(&n) => n,
                Some(n) => {
                    return Err(self.err(
                        e.span,
                        format!("variable-length array `{name}` of {n} elements (at most {max})"),
                    ))
                }
                None => {
                    return Err(self.err(
                        e.span,
                        format!("variable-length array `{name}` whose size is not a constant here (docs/c.md, \"Variable-length arrays\")"),
                    ))
                }
            };
            let lit = Expression::Constant(Box::new(Node::new(
                Constant::Integer(Integer {
                    base: IntegerBase::Decimal,
                    number: n.to_string().into_boxed_str(),
                    suffix: lang_c::ast::IntegerSuffix {
                        size: lang_c::ast::IntegerSize::Int,
                        unsigned: false,
                        imaginary: false,
                    },
                }),
                e.span,
            )));
            let copy = out.get_or_insert_with(|| d.clone());
            if let DerivedDeclarator::Array(a2) = &mut copy.node.derived[k].node {
                a2.node.size = ArraySize::VariableExpression(Box::new(Node::new(lit, e.span)));
            }
        }
        Ok(out)
    }

    /// Runs a local's initializer (stores for memory, assignments for
    /// registers).
    fn init_local(
        &mut self,
        l: &Local,
        ty: &CType,
        off: u64,
        init: &'a Node<Initializer>,
    ) -> Result<(), Error> {
        self.enter(init.span)?;
        let r = match (&init.node, ty) {
            (Initializer::Expression(e), CType::Array(..) | CType::Struct(_)) => {
                Err(self.err(e.span, "an array or struct needs a braced initializer"))
            }
            (_, CType::Mutex) => match l {
                Local::Mem(a, _, _) => self.emit(
                    Command::Store {
                        addr: Expr::Const(*a + off as i64),
                        value: Expr::Const(0),
                    },
                    init.span,
                ),
                Local::Reg(r, _) => self.emit(
                    Command::Assign {
                        reg: *r,
                        value: Expr::Const(0),
                    },
                    init.span,
                ),
            },
            (Initializer::Expression(e), t) => {
                let v = self.rvalue(e)?;
                match l {
                    Local::Reg(..) => self.write_local(l, v.e, e.span),
                    Local::Mem(a, _, atomic) => {
                        let cell = Local::Mem(*a + off as i64, t.clone(), *atomic);
                        self.write_local(&cell, v.e, e.span)
                    }
                }
            }
            (Initializer::List(items), CType::Array(elem, n)) => {
                let esize = self.types.size(elem);
                let mut r = Ok(());
                for k in 0..*n {
                    r = match items.get(k as usize) {
                        Some(it) if !it.node.designation.is_empty() => {
                            Err(self.err(it.span, "designated initializers are not supported"))
                        }
                        Some(it) => self.init_local(l, elem, off + k * esize, &it.node.initializer),
                        None => self.zero_local(l, elem, off + k * esize, init.span),
                    };
                    if r.is_err() {
                        break;
                    }
                }
                if items.len() as u64 > *n {
                    r = Err(self.err(init.span, "too many initializers for the array"));
                }
                r
            }
            (Initializer::List(items), CType::Struct(s)) => {
                let fields = self.types.structs[*s].fields.clone();
                let mut r = Ok(());
                for (k, (_, fty, foff)) in fields.iter().enumerate() {
                    r = match items.get(k) {
                        Some(it) if !it.node.designation.is_empty() => {
                            Err(self.err(it.span, "designated initializers are not supported"))
                        }
                        Some(it) => self.init_local(l, fty, off + foff, &it.node.initializer),
                        None => self.zero_local(l, fty, off + foff, init.span),
                    };
                    if r.is_err() {
                        break;
                    }
                }
                r
            }
            (Initializer::List(items), t) => match items.first() {
                Some(it) if items.len() == 1 => self.init_local(l, t, off, &it.node.initializer),
                _ => Err(self.err(init.span, "a scalar takes one initializer")),
            },
        };
        self.leave();
        r
    }

    /// Zeroes the cells of a memory local of type `ty` at `off`.
    fn zero_local(&mut self, l: &Local, ty: &CType, off: u64, span: Span) -> Result<(), Error> {
        if let Local::Mem(a, _, _) = l {
            for k in 0..self.types.size(ty) {
                self.emit(
                    Command::Store {
                        addr: Expr::Const(*a + (off + k) as i64),
                        value: Expr::Const(0),
                    },
                    span,
                )?;
            }
        }
        Ok(())
    }

    /// A loop, unwound (module doc).
    fn lower_loop(
        &mut self,
        kind: LoopKind,
        init: Option<&'a Node<ForInitializer>>,
        cond: Option<&'a Node<Expression>>,
        step: Option<&'a Node<Expression>>,
        body: &'a Node<Statement>,
        span: Span,
    ) -> Result<(), Error> {
        self.frame().scopes.push(HashMap::new());
        let r = self.lower_loop_inner(kind, init, cond, step, body, span);
        self.frame().scopes.pop();
        r
    }

    fn lower_loop_inner(
        &mut self,
        kind: LoopKind,
        init: Option<&'a Node<ForInitializer>>,
        cond: Option<&'a Node<Expression>>,
        step: Option<&'a Node<Expression>>,
        body: &'a Node<Statement>,
        span: Span,
    ) -> Result<(), Error> {
        if let Some(i) = init {
            match &i.node {
                ForInitializer::Empty | ForInitializer::StaticAssert(_) => {}
                ForInitializer::Expression(e) => self.effect(e)?,
                ForInitializer::Declaration(d) => self.local_declaration(d)?,
            }
        }
        // A spin loop: `while (c);` whose condition only reads.
        if self.opts.spin_assume && step.is_none() && is_empty(body) {
            if let Some(c) = cond.filter(|c| !self.has_effects(c, 0)) {
                let v = self.cond(c)?;
                self.emit(Command::Assume(negate(self.b.fold(&v))), c.span)?;
                self.spin_loops += 1;
                return Ok(());
            }
        }
        let exit = self.b.label();
        let syntactic_const = cond.is_none_or(|c| self.types.const_int(c, self.src).is_ok());
        let mut k: u32 = 0;
        loop {
            if !self.b.live() {
                break;
            }
            let mut decided = false;
            if let Some(c) = cond.filter(|_| kind != LoopKind::DoWhile || k > 0) {
                let mark = self.b.mark();
                let v = self.cond(c)?;
                let folded = self.b.fold(&v);
                decided = folded.as_const(self.b.width).is_some();
                let (t, e) = self.b.branch(&folded, self.span(c.span))?;
                self.b.jump_from(e, exit);
                self.b.goto_pos(t);
                self.b.release(mark);
            }
            if !self.b.live() {
                break;
            }
            let more = decided && !syntactic_const && k < MAX_CONST_ITERATIONS;
            if k >= self.opts.unwind && !more {
                // The unwinding bound: this path would need more iterations.
                let creates = self.may_create_threads(body);
                if self.opts.cyclic && self.in_atomic == 0 && (!creates || self.opts.replicate) {
                    // A thread created in the cycle stands for any number.
                    let rep = usize::from(creates);
                    self.replicating += rep;
                    self.in_cycle += 1;
                    let r = self.cyclic_rest(cond, step, body, exit);
                    self.in_cycle -= 1;
                    self.replicating -= rep;
                    r?;
                } else {
                    self.cut_here(span);
                }
                break;
            }
            self.loop_body(body, step, exit)?;
            k += 1;
        }
        self.b.place(exit);
        Ok(())
    }

    /// One copy of a loop's body and its step: `break` goes to `exit`,
    /// `continue` to the step; the body's labels are this copy's own.
    ///
    /// Errors: those of the body and the step.
    fn loop_body(
        &mut self,
        body: &'a Node<Statement>,
        step: Option<&'a Node<Expression>>,
        exit: LabelId,
    ) -> Result<(), Error> {
        let cont = self.b.label();
        let mut labels = Vec::new();
        collect_labels(body, &mut labels, 0);
        let scope: HashMap<String, LabelId> =
            labels.into_iter().map(|l| (l, self.b.label())).collect();
        self.frame().loops.push((exit, Some(cont)));
        self.frame().label_scopes.push(scope);
        let r = self.stmt(body);
        self.frame().label_scopes.pop();
        self.frame().loops.pop();
        r?;
        self.b.place(cont);
        if let Some(st) = step {
            let mark = self.b.mark();
            self.effect(st)?;
            self.b.release(mark);
        }
        Ok(())
    }

    /// The rest of a loop kept as a cycle ([`super::Options::cyclic`]):
    /// from the current position (the condition held, the next iteration
    /// starts) the body, the step and the condition are lowered once, and
    /// the condition's true side jumps back to the start of the body;
    /// its false side, and `break`, go to `exit`.
    ///
    /// Errors: those of the body, step and condition.
    fn cyclic_rest(
        &mut self,
        cond: Option<&'a Node<Expression>>,
        step: Option<&'a Node<Expression>>,
        body: &'a Node<Statement>,
        exit: LabelId,
    ) -> Result<(), Error> {
        let Some(head) = self.b.loop_head() else {
            return Ok(());
        };
        self.cyclic_loops += 1;
        self.loop_body(body, step, exit)?;
        if let Some(c) = cond {
            let mark = self.b.mark();
            let v = self.cond(c)?;
            let folded = self.b.fold(&v);
            let (t, e) = self.b.branch(&folded, self.span(c.span))?;
            self.b.jump_from(e, exit);
            self.b.goto_pos(t);
            self.b.release(mark);
        }
        self.b.jump_back(head);
        Ok(())
    }

    /// True when lowering `body` may create a thread: it names
    /// `pthread_create`, or a function of the file whose body does
    /// (transitively, or through a function pointer: any function whose
    /// name it mentions). Such a loop is unwound, never kept as a cycle
    /// (the program's threads are fixed when it is lowered).
    fn may_create_threads(&self, body: &Node<Statement>) -> bool {
        let mut seen: std::collections::HashSet<String> = Default::default();
        let mut todo = mentioned_names(body);
        while let Some(n) = todo.pop() {
            if n == "pthread_create" {
                return true;
            }
            if !seen.insert(n.clone()) {
                continue;
            }
            if let Some(f) = self.funcs.get(&n) {
                todo.extend(mentioned_names(&f.node.statement));
            }
        }
        false
    }

    /// The condition's value as an expression (side effects emitted).
    ///
    /// Errors: see [`Ctx::rvalue`].
    ///
    /// A condition that is only a `__VERIFIER_nondet_*()` call (not a
    /// function of the file) draws one bit instead of a whole value: the
    /// value is used only through its test against 0, and both outcomes
    /// are possible for every nondeterministic type, so the paths are the
    /// same.
    pub fn cond(&mut self, c: &'a Node<Expression>) -> Result<LExpr, Error> {
        if self.is_nondet_call(c) {
            return Ok(self.nondet("__VERIFIER_nondet_bool", c.span)?.e);
        }
        Ok(self.rvalue(c)?.e)
    }

    /// True for a call `__VERIFIER_nondet_*()` / `nondet_*()` of a
    /// built-in (no function of the file, no local of that name).
    pub(super) fn is_nondet_call(&self, c: &Node<Expression>) -> bool {
        let Expression::Call(call) = &c.node else {
            return false;
        };
        let Expression::Identifier(i) = &call.node.callee.node else {
            return false;
        };
        let n = &i.node.name;
        call.node.arguments.is_empty()
            && (n.starts_with("__VERIFIER_nondet_") || n.starts_with("nondet_"))
            && self.lookup(n).is_none()
            && !self.funcs.contains_key(n)
    }

    /// True when the register local `name` of integer type `ty`,
    /// initialized by `init`, may draw one bit instead of a whole value:
    /// `init` is a nondeterministic call ([`Ctx::is_nondet_call`]) and
    /// every use of the name in the current function is a truth test
    /// ([`truth_tests_only`]) — the paths are those of every value, as
    /// for a condition that is such a call ([`Ctx::cond`]).
    fn truth_draw(&self, local: &Local, ty: &CType, init: &Node<Initializer>, name: &str) -> bool {
        let Initializer::Expression(e) = &init.node else {
            return false;
        };
        if !matches!(local, Local::Reg(..))
            || !matches!(ty, CType::Int | CType::UInt | CType::Bool)
            || !self.is_nondet_call(e)
        {
            return false;
        }
        let func = self
            .frames
            .last()
            .map(|f| f.func.clone())
            .unwrap_or_default();
        self.funcs.get(&func).is_some_and(|f| {
            truth_tests_only(&f.node.statement, name, &|g, j| self.param_tested(g, j, 0))
        })
    }

    /// True when parameter `i` of the file's function `func` is used
    /// only in truth tests ([`truth_tests_only`]) in its body, passing it
    /// on as an argument to a parameter of the same kind (up to
    /// [`MAX_PASS_DEPTH`] calls deep) counting as a test: a
    /// `__VERIFIER_nondet_*()` argument there may draw one bit
    /// ([`Ctx::arg_draw`]). False for built-ins, atomic-section functions
    /// passed through, variadic parameters and unnamed ones.
    pub(super) fn param_tested(&self, func: &str, i: usize, depth: usize) -> bool {
        if depth > MAX_PASS_DEPTH || super::ctx::reserved(func) {
            return false;
        }
        let Some(f) = self.funcs.get(func) else {
            return false;
        };
        let Some((_, Some(d))) = parameters(f).get(i).copied() else {
            return false;
        };
        let Some(pname) = declarator_name(d) else {
            return false;
        };
        truth_tests_only(&f.node.statement, &pname, &|g, j| {
            self.param_tested(g, j, depth + 1)
        })
    }

    /// The value of argument `a` of a call of the file's function `func`
    /// at position `i`: one bit when `a` is a `__VERIFIER_nondet_*()`
    /// call and the parameter is only tested ([`Ctx::param_tested`]: the
    /// paths are those of every value, as for a condition that is such a
    /// call), else `None` (the caller evaluates it).
    ///
    /// Errors: those of the draw.
    pub(super) fn arg_draw(
        &mut self,
        func: &str,
        i: usize,
        a: &'a Node<Expression>,
    ) -> Result<Option<LExpr>, Error> {
        if !self.is_nondet_call(a) || !self.param_tested(func, i, 0) {
            return Ok(None);
        }
        Ok(Some(
            self.nondet_in("__VERIFIER_nondet_bool", a.span, None)?.e,
        ))
    }
}

/// Converts a value to a type on assignment: `_Bool` becomes 0/1.
pub fn convert(v: LExpr, ty: &CType) -> LExpr {
    if *ty == CType::Bool && !super::builder::is_boolean(&v) {
        Expr::bin(crate::program::BinOp::Ne, v, Expr::Const(0))
    } else {
        v
    }
}

/// True for `;` and `{}`.
fn is_empty(s: &Node<Statement>) -> bool {
    match &s.node {
        Statement::Expression(None) => true,
        Statement::Compound(items) => items.is_empty(),
        _ => false,
    }
}

/// When item `i` of a block is a statement labeled `L` (an identifier
/// label) and a later item of the block, or the item itself, holds a
/// `goto L`: `L` and the index of the last such item (module doc: a loop
/// made of goto).
fn goto_loop_at(items: &[Node<BlockItem>], i: usize) -> Option<(&str, usize)> {
    let BlockItem::Statement(st) = &items[i].node else {
        return None;
    };
    let Statement::Labeled(l) = &st.node else {
        return None;
    };
    let Label::Identifier(id) = &l.node.label.node else {
        return None;
    };
    let name = id.node.name.as_str();
    let last = (i..items.len())
        .rev()
        .find(|&j| item_goto_targets(&items[j]).iter().any(|t| t == name))?;
    Some((name, last))
}

/// The statement labeled `name` (an identifier label) in `s`.
fn labeled_statement<'a>(s: &'a Node<Statement>, name: &str) -> Option<&'a Node<Statement>> {
    struct Find<'a, 'n> {
        name: &'n str,
        found: Option<&'a Node<Statement>>,
    }
    impl<'a> lang_c::visit::Visit<'a> for Find<'a, '_> {
        fn visit_labeled_statement(
            &mut self,
            l: &'a lang_c::ast::LabeledStatement,
            span: &'a Span,
        ) {
            if let Label::Identifier(id) = &l.label.node {
                if id.node.name == self.name && self.found.is_none() {
                    self.found = Some(&l.statement);
                }
            }
            lang_c::visit::visit_labeled_statement(self, l, span);
        }
    }
    let mut v = Find { name, found: None };
    lang_c::visit::Visit::visit_statement(&mut v, &s.node, &s.span);
    v.found
}

/// The targets of the `goto`s in a block item (nested statements and
/// statement expressions included).
fn item_goto_targets(it: &Node<BlockItem>) -> Vec<String> {
    let mut v = GotoTargets::default();
    lang_c::visit::Visit::visit_block_item(&mut v, &it.node, &it.span);
    v.0
}

/// The targets of the `goto`s in a statement, nested ones included.
fn goto_targets(s: &Node<Statement>) -> Vec<String> {
    let mut v = GotoTargets::default();
    lang_c::visit::Visit::visit_statement(&mut v, &s.node, &s.span);
    v.0
}

/// Collects the target of every `goto` it visits.
#[derive(Default)]
struct GotoTargets(Vec<String>);

impl<'ast> lang_c::visit::Visit<'ast> for GotoTargets {
    fn visit_statement(&mut self, s: &'ast Statement, span: &'ast Span) {
        if let Statement::Goto(id) = s {
            self.0.push(id.node.name.clone());
        }
        lang_c::visit::visit_statement(self, s, span);
    }
}

/// The labels defined in `s` outside nested loops.
fn collect_labels(s: &Node<Statement>, out: &mut Vec<String>, depth: usize) {
    if depth > super::ctx::MAX_DEPTH {
        return;
    }
    match &s.node {
        Statement::Labeled(l) => {
            if let Label::Identifier(id) = &l.node.label.node {
                out.push(id.node.name.clone());
            }
            collect_labels(&l.node.statement, out, depth + 1);
        }
        Statement::Compound(items) => {
            for it in items {
                if let BlockItem::Statement(st) = &it.node {
                    collect_labels(st, out, depth + 1);
                }
            }
        }
        Statement::If(i) => {
            collect_labels(&i.node.then_statement, out, depth + 1);
            if let Some(e) = &i.node.else_statement {
                collect_labels(e, out, depth + 1);
            }
        }
        Statement::Switch(sw) => collect_labels(&sw.node.statement, out, depth + 1),
        _ => {}
    }
}

/// The function declarator of a function definition (the innermost one
/// of nested declarators, e.g. `int (*f(void))(int)` gives `f(void)`).
fn function_declarator(f: &Node<FunctionDefinition>) -> Option<&lang_c::ast::FunctionDeclarator> {
    fn find(d: &Node<lang_c::ast::Declarator>) -> Option<&lang_c::ast::FunctionDeclarator> {
        if let lang_c::ast::DeclaratorKind::Declarator(inner) = &d.node.kind.node {
            if let Some(x) = find(inner) {
                return Some(x);
            }
        }
        d.node.derived.iter().rev().find_map(|x| match &x.node {
            lang_c::ast::DerivedDeclarator::Function(fd) => Some(&fd.node),
            _ => None,
        })
    }
    find(&f.node.declarator)
}

/// True when a function definition's parameter list ends with `...`.
pub fn is_variadic(f: &Node<FunctionDefinition>) -> bool {
    function_declarator(f).is_some_and(|fd| fd.ellipsis == lang_c::ast::Ellipsis::Some)
}

/// The parameters of a function definition: (specifiers, declarator);
/// `(void)` has none.
pub fn parameters(f: &Node<FunctionDefinition>) -> Vec<Param<'_>> {
    let Some(fd) = function_declarator(f) else {
        return Vec::new();
    };
    let ps: Vec<_> = fd
        .parameters
        .iter()
        .map(|p| (p.node.specifiers.as_slice(), p.node.declarator.as_ref()))
        .collect();
    let is_void = ps.len() == 1
        && ps[0].1.is_none()
        && ps[0].0.iter().any(|s| {
            matches!(&s.node, DeclarationSpecifier::TypeSpecifier(t)
                if t.node == lang_c::ast::TypeSpecifier::Void)
        });
    if is_void {
        Vec::new()
    } else {
        ps
    }
}

/// The identifiers `s` mentions (variables, called and address-taken
/// functions).
/// True when every use of the name `name` in `body` (as an expression)
/// is a truth test: the condition of `if`, `while`, `do`, `for` or
/// `?:`, or an operand of `!`, `&&`, `||`. An assignment, `&name`, an
/// argument, an operand of arithmetic or a comparison is another use.
fn truth_tests_only(
    body: &Node<Statement>,
    name: &str,
    pass: &dyn Fn(&str, usize) -> bool,
) -> bool {
    use lang_c::ast::{BinaryOperator as B, UnaryOperator as U};
    struct Uses<'n> {
        name: &'n str,
        pass: &'n dyn Fn(&str, usize) -> bool,
        all: usize,
        tests: usize,
    }
    impl Uses<'_> {
        fn test(&mut self, e: &Node<Expression>) {
            if matches!(&e.node, Expression::Identifier(i) if i.node.name == self.name) {
                self.tests += 1;
            }
        }
    }
    impl<'ast> lang_c::visit::Visit<'ast> for Uses<'_> {
        fn visit_expression(&mut self, e: &'ast Expression, span: &'ast Span) {
            match e {
                Expression::Identifier(i) if i.node.name == self.name => self.all += 1,
                Expression::UnaryOperator(u) if u.node.operator.node == U::Negate => {
                    self.test(&u.node.operand)
                }
                Expression::BinaryOperator(b)
                    if matches!(b.node.operator.node, B::LogicalAnd | B::LogicalOr) =>
                {
                    self.test(&b.node.lhs);
                    self.test(&b.node.rhs);
                }
                Expression::Conditional(c) => self.test(&c.node.condition),
                Expression::Call(c) => {
                    if let Expression::Identifier(f) = &c.node.callee.node {
                        for (j, a) in c.node.arguments.iter().enumerate() {
                            if (self.pass)(&f.node.name, j) {
                                self.test(a);
                            }
                        }
                    }
                }
                _ => {}
            }
            lang_c::visit::visit_expression(self, e, span);
        }
        fn visit_statement(&mut self, s: &'ast Statement, span: &'ast Span) {
            match s {
                Statement::If(i) => self.test(&i.node.condition),
                Statement::While(w) => self.test(&w.node.expression),
                Statement::DoWhile(d) => self.test(&d.node.expression),
                Statement::For(f) => {
                    if let Some(c) = &f.node.condition {
                        self.test(c);
                    }
                }
                _ => {}
            }
            lang_c::visit::visit_statement(self, s, span);
        }
    }
    let mut u = Uses {
        name,
        pass,
        all: 0,
        tests: 0,
    };
    lang_c::visit::Visit::visit_statement(&mut u, &body.node, &body.span);
    u.all == u.tests
}

fn mentioned_names(s: &Node<Statement>) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'ast> lang_c::visit::Visit<'ast> for Names {
        fn visit_identifier(&mut self, i: &'ast lang_c::ast::Identifier, _: &'ast Span) {
            self.0.push(i.name.clone());
        }
    }
    let mut v = Names(Vec::new());
    lang_c::visit::Visit::visit_statement(&mut v, &s.node, &s.span);
    v.0
}
