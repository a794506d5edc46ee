//! C types as the IR sees them: every scalar (`int`, `long`, `unsigned`,
//! `char`, `_Bool`, pointers, enums, `pthread_t`, `pthread_mutex_t`) is
//! one W-bit memory cell; arrays and structs are consecutive cells.
//! Addresses and pointer arithmetic count cells, not bytes (docs/c.md).
//!
//! Resolves declaration specifiers and declarators (C11 6.7.2, 6.7.6):
//! the derived declarators of `lang-c` apply from the base type outwards
//! (`int *a[3]`: pointer, then array). Typedefs and struct tags are
//! resolved on use, so unsupported types in unused header declarations
//! (floating point, unions) are never an error.

use super::preprocess::Sources;
use crate::diag::Error;
use lang_c::ast::{
    Constant, DeclarationSpecifier, Declarator, DeclaratorKind, DerivedDeclarator, Expression,
    IntegerBase, SpecifierQualifier, StructDeclaration, StructKind, StructType, TypeQualifier,
    TypeSpecifier,
};
use lang_c::span::Node;
use std::collections::HashMap;

/// A C type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CType {
    /// A signed integer type (char, short, int, long, enums,
    /// `pthread_t`), and `unsigned char`/`unsigned short` (promoted to
    /// `int`, C11 6.3.1.1p2): W-bit two's complement.
    #[default]
    Int,
    /// `unsigned int`, `unsigned long`, `unsigned long long`, `size_t`,
    /// `uintptr_t`: the same W bits, read as 0..2^W by comparisons, `/`,
    /// `%` and `>>` (docs/c.md, "Signedness").
    UInt,
    /// `_Bool`: stores convert to 0/1.
    Bool,
    /// `void` (only behind pointers or as a return type).
    Void,
    /// A pointer (an address: a cell number).
    Ptr(Box<CType>),
    /// An array of `n` elements.
    Array(Box<CType>, u64),
    /// A struct (index into [`Types::structs`]).
    Struct(usize),
    /// `pthread_mutex_t`: one cell, 0 = free.
    Mutex,
    /// A function (only as the type of a function's name).
    Func,
}

impl CType {
    /// True for pointers and arrays (which decay to pointers).
    pub fn is_pointer(&self) -> bool {
        matches!(self, CType::Ptr(_) | CType::Array(..))
    }

    /// True for `unsigned int`/`long`/`long long` and the typedefs of
    /// them this front-end knows ([`CType::UInt`]).
    pub fn is_unsigned(&self) -> bool {
        *self == CType::UInt
    }

    /// The element type of a pointer or array.
    pub fn pointee(&self) -> Option<&CType> {
        match self {
            CType::Ptr(t) | CType::Array(t, _) => Some(t),
            _ => None,
        }
    }
}

/// A struct's fields: name, type, offset in cells.
#[derive(Clone, Debug)]
pub struct StructDef {
    /// The tag (or `<anonymous>`).
    pub name: String,
    /// Fields in order.
    pub fields: Vec<(String, CType, u64)>,
    /// Size in cells.
    pub size: u64,
    /// False for a tag that is declared but never defined in the file
    /// (`struct opaque *p`): pointers to it are values, but its fields,
    /// its size and objects of it are errors.
    pub complete: bool,
}

/// A resolved declaration's type and qualifiers.
#[derive(Clone, Debug, Default)]
pub struct Resolved {
    /// The type.
    pub ty: CType,
    /// `volatile` anywhere in the specifiers.
    pub volatile: bool,
    /// `_Atomic`: stores are locked (sequentially consistent) writes.
    pub atomic: bool,
    /// `typedef` storage class.
    pub typedef: bool,
    /// `static`.
    pub is_static: bool,
    /// `extern`.
    pub is_extern: bool,
    /// `_Thread_local` (GCC's `__thread`): one object per thread.
    pub thread_local: bool,
}

/// Largest object accepted (cells).
pub const MAX_CELLS: u64 = 1 << 16;

/// The type tables of one translation unit.
pub struct Types<'a> {
    /// Typedef name → (specifiers, declarator) as written.
    pub typedefs: HashMap<String, (&'a [Node<DeclarationSpecifier>], &'a Node<Declarator>)>,
    /// Struct tag → index into `structs` once resolved.
    tags: HashMap<String, usize>,
    /// Struct tag → its definition as written.
    pub tag_defs: HashMap<String, &'a Node<StructType>>,
    /// Resolved structs.
    pub structs: Vec<StructDef>,
    /// Enumerator → value (set by the caller while scanning).
    pub enum_consts: HashMap<String, i64>,
    /// Nesting of the resolution (typedefs of typedefs…).
    depth: usize,
}

impl<'a> Types<'a> {
    /// Empty tables.
    pub fn new() -> Types<'a> {
        Types {
            typedefs: HashMap::new(),
            tags: HashMap::new(),
            tag_defs: HashMap::new(),
            structs: Vec::new(),
            enum_consts: HashMap::new(),
            depth: 0,
        }
    }

    /// The tag of the incomplete struct `t` is or holds as an element or
    /// field (`None`: `t` is complete; pointers are complete).
    pub fn incomplete(&self, t: &CType) -> Option<String> {
        match t {
            CType::Array(e, _) => self.incomplete(e),
            CType::Struct(i) if !self.structs[*i].complete => Some(self.structs[*i].name.clone()),
            _ => None,
        }
    }

    /// The size of `t` in cells.
    ///
    /// Errors: none for complete types; `Void`/`Func` count one cell.
    pub fn size(&self, t: &CType) -> u64 {
        match t {
            CType::Array(e, n) => self.size(e).saturating_mul(*n),
            CType::Struct(i) => self.structs[*i].size,
            _ => 1,
        }
    }

    /// Resolves declaration specifiers plus an optional declarator.
    ///
    /// Errors: floating point, unions, bit-fields, `typeof`, variable
    /// length arrays, unknown typedef or struct (located).
    pub fn resolve(
        &mut self,
        specs: &[Node<DeclarationSpecifier>],
        decl: Option<&Node<Declarator>>,
        src: &Sources,
    ) -> Result<Resolved, Error> {
        let mut quals = Resolved::default();
        let mut tss = Vec::new();
        for s in specs {
            match &s.node {
                DeclarationSpecifier::StorageClass(c) => match c.node {
                    lang_c::ast::StorageClassSpecifier::Typedef => quals.typedef = true,
                    lang_c::ast::StorageClassSpecifier::Static => quals.is_static = true,
                    lang_c::ast::StorageClassSpecifier::Extern => quals.is_extern = true,
                    lang_c::ast::StorageClassSpecifier::ThreadLocal => quals.thread_local = true,
                    _ => {}
                },
                DeclarationSpecifier::TypeSpecifier(t) => tss.push(t),
                DeclarationSpecifier::TypeQualifier(q) => qualifier(&q.node, &mut quals),
                _ => {}
            }
        }
        self.finish(&tss, decl, src, quals)
    }

    /// Resolves a type name (casts, `sizeof`, struct fields).
    ///
    /// Errors: as [`Types::resolve`].
    pub fn resolve_sq(
        &mut self,
        specs: &[Node<SpecifierQualifier>],
        decl: Option<&Node<Declarator>>,
        src: &Sources,
    ) -> Result<Resolved, Error> {
        let mut quals = Resolved::default();
        let mut tss = Vec::new();
        for s in specs {
            match &s.node {
                SpecifierQualifier::TypeSpecifier(t) => tss.push(t),
                SpecifierQualifier::TypeQualifier(q) => qualifier(&q.node, &mut quals),
                SpecifierQualifier::Extension(_) => {}
            }
        }
        self.finish(&tss, decl, src, quals)
    }

    /// The type of the type specifiers `tss` with declarator `decl`,
    /// stored in `quals` (shared tail of [`Types::resolve`] and
    /// [`Types::resolve_sq`]).
    ///
    /// Errors: as [`Types::resolve`].
    fn finish(
        &mut self,
        tss: &[&Node<TypeSpecifier>],
        decl: Option<&Node<Declarator>>,
        src: &Sources,
        mut quals: Resolved,
    ) -> Result<Resolved, Error> {
        let base = self.base(tss, src, &mut quals)?;
        quals.ty = self.declarator(base, decl, src, &mut quals)?;
        Ok(quals)
    }

    /// The base type of the type specifiers.
    fn base(
        &mut self,
        tss: &[&Node<TypeSpecifier>],
        src: &Sources,
        quals: &mut Resolved,
    ) -> Result<CType, Error> {
        let mut ty: Option<CType> = None;
        // `unsigned` makes the integer type unsigned unless it is `char`
        // or `short`, which promote to (signed) `int` (C11 6.3.1.1p2).
        let (mut unsigned, mut narrow) = (false, false);
        for t in tss {
            unsigned |= matches!(t.node, TypeSpecifier::Unsigned);
            narrow |= matches!(t.node, TypeSpecifier::Char | TypeSpecifier::Short);
            let this = match &t.node {
                TypeSpecifier::Void => CType::Void,
                TypeSpecifier::Char
                | TypeSpecifier::Short
                | TypeSpecifier::Int
                | TypeSpecifier::Long
                | TypeSpecifier::Signed
                | TypeSpecifier::Unsigned => CType::Int,
                TypeSpecifier::Bool => CType::Bool,
                TypeSpecifier::Float | TypeSpecifier::Double | TypeSpecifier::Complex => {
                    return Err(src.error(t.span, "floating-point types are not supported"))
                }
                TypeSpecifier::TS18661Float(_) => {
                    return Err(src.error(t.span, "floating-point types are not supported"))
                }
                TypeSpecifier::Atomic(tn) => {
                    quals.atomic = true;
                    let r =
                        self.resolve_sq(&tn.node.specifiers, tn.node.declarator.as_ref(), src)?;
                    r.ty
                }
                TypeSpecifier::Struct(st) => self.struct_type(st, src)?,
                TypeSpecifier::Enum(e) => {
                    let mut next = 0i64;
                    for en in &e.node.enumerators {
                        if let Some(x) = &en.node.expression {
                            next = self.const_int(x, src)?;
                        }
                        self.enum_consts
                            .insert(en.node.identifier.node.name.clone(), next);
                        next = next.wrapping_add(1);
                    }
                    CType::Int
                }
                TypeSpecifier::TypedefName(id) => {
                    self.typedef(&id.node.name, t.span, src, quals)?
                }
                TypeSpecifier::TypeOf(_) => {
                    return Err(src.error(t.span, "`typeof` is not supported"))
                }
            };
            // `unsigned long int`: several specifiers, one integer type.
            ty = Some(match (ty, this) {
                (None, x) => x,
                (Some(CType::Int), CType::Int) => CType::Int,
                (Some(a), _) => a,
            });
        }
        Ok(match ty.unwrap_or(CType::Int) {
            CType::Int if unsigned && !narrow => CType::UInt,
            t => t,
        })
    }

    /// A typedef name: the pthread types by name, else its definition.
    fn typedef(
        &mut self,
        name: &str,
        span: lang_c::span::Span,
        src: &Sources,
        quals: &mut Resolved,
    ) -> Result<CType, Error> {
        match name {
            "pthread_mutex_t" => return Ok(CType::Mutex),
            "pthread_cond_t" => return Ok(CType::Mutex),
            "pthread_condattr_t" => return Ok(CType::Int),
            "pthread_t"
            | "pthread_attr_t"
            | "pthread_mutexattr_t"
            | "ssize_t"
            | "ptrdiff_t"
            | "intptr_t" => return Ok(CType::Int),
            "size_t" | "uintptr_t" => return Ok(CType::UInt),
            _ => {}
        }
        if let Some(t) = name.strip_prefix("atomic_") {
            quals.atomic = true;
            // `atomic_uint`, `atomic_ulong`, `atomic_size_t`, … (C11
            // 7.17.6).
            return Ok(int_named(t));
        }
        let Some(&(specs, decl)) = self.typedefs.get(name) else {
            return Err(src.error(span, format!("unknown type `{name}`")));
        };
        self.depth += 1;
        if self.depth > 64 {
            self.depth = 0;
            return Err(src.error(span, "typedefs nested too deeply"));
        }
        let r = self.resolve(specs, Some(decl), src);
        self.depth -= 1;
        let r = r.map_err(|e| match e {
            Error::Input(_) => src.error(
                span,
                format!("type `{name}` is not supported here: {}", short(&e)),
            ),
            e => e,
        })?;
        quals.volatile |= r.volatile;
        quals.atomic |= r.atomic;
        Ok(r.ty)
    }

    /// A struct specifier: defines or refers to a struct.
    fn struct_type(&mut self, st: &Node<StructType>, src: &Sources) -> Result<CType, Error> {
        if st.node.kind.node == StructKind::Union {
            return Err(src.error(st.span, "unions are not supported"));
        }
        let tag = st.node.identifier.as_ref().map(|i| i.node.name.clone());
        if st.node.declarations.is_none() {
            let Some(tag) = tag else {
                return Err(src.error(st.span, "struct without a tag or fields"));
            };
            if let Some(&i) = self.tags.get(&tag) {
                return Ok(CType::Struct(i));
            }
            let Some(&def) = self.tag_defs.get(&tag) else {
                // Never defined in the file: an incomplete type, usable
                // only behind pointers that are not dereferenced.
                let idx = self.structs.len();
                self.structs.push(StructDef {
                    name: tag.clone(),
                    fields: Vec::new(),
                    size: 1,
                    complete: false,
                });
                self.tags.insert(tag, idx);
                return Ok(CType::Struct(idx));
            };
            return self.struct_type(def, src);
        }
        if let Some(t) = &tag {
            if let Some(&i) = self.tags.get(t) {
                return Ok(CType::Struct(i));
            }
        }
        let idx = self.structs.len();
        self.structs.push(StructDef {
            name: tag.clone().unwrap_or_else(|| "<anonymous>".into()),
            fields: Vec::new(),
            size: 0,
            complete: true,
        });
        if let Some(t) = &tag {
            self.tags.insert(t.clone(), idx);
        }
        let mut fields = Vec::new();
        let mut off = 0u64;
        for d in st.node.declarations.iter().flatten() {
            let StructDeclaration::Field(f) = &d.node else {
                continue;
            };
            for sd in &f.node.declarators {
                if sd.node.bit_width.is_some() {
                    return Err(src.error(sd.span, "bit-fields are not supported"));
                }
                let r = self.resolve_sq(&f.node.specifiers, sd.node.declarator.as_ref(), src)?;
                let name = sd
                    .node
                    .declarator
                    .as_ref()
                    .and_then(declarator_name)
                    .unwrap_or_default();
                if let Some(tag) = self.incomplete(&r.ty) {
                    return Err(src.error(
                        sd.span,
                        format!("field `{name}` has the incomplete type `struct {tag}`"),
                    ));
                }
                let size = self.size(&r.ty);
                fields.push((name, r.ty, off));
                off = off.saturating_add(size);
            }
        }
        if off > MAX_CELLS {
            return Err(src.error(st.span, format!("struct larger than {MAX_CELLS} cells")));
        }
        self.structs[idx].fields = fields;
        self.structs[idx].size = off.max(1);
        Ok(CType::Struct(idx))
    }

    /// The value of an integer constant expression (array sizes,
    /// enumerators): literals, enumerators, `sizeof` of a type, unary and
    /// binary arithmetic, comparisons, `?:`, casts.
    ///
    /// Errors: anything else (located), division by zero.
    pub fn const_int(&mut self, e: &Node<Expression>, src: &Sources) -> Result<i64, Error> {
        self.depth += 1;
        if self.depth > 256 {
            self.depth = 0;
            return Err(src.error(e.span, "constant expression nested too deeply"));
        }
        let r = self.const_int_inner(e, src);
        self.depth = self.depth.saturating_sub(1);
        r
    }

    fn const_int_inner(&mut self, e: &Node<Expression>, src: &Sources) -> Result<i64, Error> {
        use lang_c::ast::{BinaryOperator as B, UnaryOperator as U};
        match &e.node {
            Expression::Constant(c) => constant_value(&c.node).ok_or_else(|| {
                src.error(
                    e.span,
                    "unsupported constant (floating point or out of range)",
                )
            }),
            Expression::Identifier(i) => {
                self.enum_consts.get(&i.node.name).copied().ok_or_else(|| {
                    src.error(e.span, format!("`{}` is not a constant", i.node.name))
                })
            }
            Expression::SizeOfTy(t) => {
                let r = self.resolve_sq(
                    &t.node.0.node.specifiers,
                    t.node.0.node.declarator.as_ref(),
                    src,
                )?;
                if let Some(tag) = self.incomplete(&r.ty) {
                    return Err(src.error(
                        e.span,
                        format!("`sizeof` of the incomplete type `struct {tag}`"),
                    ));
                }
                Ok(self.size(&r.ty) as i64)
            }
            Expression::Cast(c) => self.const_int(&c.node.expression, src),
            Expression::UnaryOperator(u) => {
                let v = self.const_int(&u.node.operand, src)?;
                match u.node.operator.node {
                    U::Minus => Ok(v.wrapping_neg()),
                    U::Plus => Ok(v),
                    U::Complement => Ok(!v),
                    U::Negate => Ok((v == 0) as i64),
                    _ => Err(src.error(e.span, "not a constant expression")),
                }
            }
            Expression::Conditional(c) => {
                if self.const_int(&c.node.condition, src)? != 0 {
                    self.const_int(&c.node.then_expression, src)
                } else {
                    self.const_int(&c.node.else_expression, src)
                }
            }
            Expression::BinaryOperator(b) => {
                let x = self.const_int(&b.node.lhs, src)?;
                let y = self.const_int(&b.node.rhs, src)?;
                let div0 = || src.error(e.span, "division by zero in a constant expression");
                Ok(match b.node.operator.node {
                    B::Plus => x.wrapping_add(y),
                    B::Minus => x.wrapping_sub(y),
                    B::Multiply => x.wrapping_mul(y),
                    B::Divide => x.checked_div(y).ok_or_else(div0)?,
                    B::Modulo => x.checked_rem(y).ok_or_else(div0)?,
                    B::ShiftLeft => x.wrapping_shl(y.clamp(0, 63) as u32),
                    B::ShiftRight => x.wrapping_shr(y.clamp(0, 63) as u32),
                    B::Less => (x < y) as i64,
                    B::Greater => (x > y) as i64,
                    B::LessOrEqual => (x <= y) as i64,
                    B::GreaterOrEqual => (x >= y) as i64,
                    B::Equals => (x == y) as i64,
                    B::NotEquals => (x != y) as i64,
                    B::BitwiseAnd => x & y,
                    B::BitwiseOr => x | y,
                    B::BitwiseXor => x ^ y,
                    B::LogicalAnd => (x != 0 && y != 0) as i64,
                    B::LogicalOr => (x != 0 || y != 0) as i64,
                    _ => return Err(src.error(e.span, "not a constant expression")),
                })
            }
            _ => Err(src.error(e.span, "not a constant expression")),
        }
    }

    /// The return type of a function declared by `specs` and `decl`
    /// (its function declarator left out).
    ///
    /// Errors: as [`Types::resolve`].
    pub fn function_return(
        &mut self,
        specs: &[Node<DeclarationSpecifier>],
        decl: &Node<Declarator>,
        src: &Sources,
    ) -> Result<CType, Error> {
        let mut d = decl.clone();
        strip_function(&mut d);
        Ok(self.resolve(specs, Some(&d), src)?.ty)
    }

    /// Applies a declarator's derived parts to `base`.
    fn declarator(
        &mut self,
        base: CType,
        decl: Option<&Node<Declarator>>,
        src: &Sources,
        quals: &mut Resolved,
    ) -> Result<CType, Error> {
        let Some(d) = decl else {
            return Ok(base);
        };
        let mut t = base;
        for dd in &d.node.derived {
            t = match &dd.node {
                DerivedDeclarator::Pointer(qs) => {
                    for q in qs {
                        if let lang_c::ast::PointerQualifier::TypeQualifier(q) = &q.node {
                            qualifier(&q.node, quals);
                        }
                    }
                    CType::Ptr(Box::new(t))
                }
                DerivedDeclarator::Array(a) => {
                    let n = match &a.node.size {
                        lang_c::ast::ArraySize::VariableExpression(e)
                        | lang_c::ast::ArraySize::StaticExpression(e) => {
                            let n = self.const_int(e, src)?;
                            if n <= 0 || n as u64 > MAX_CELLS {
                                return Err(src.error(
                                    e.span,
                                    format!("array size must be 1..={MAX_CELLS}, not {n}"),
                                ));
                            }
                            n as u64
                        }
                        _ => 0,
                    };
                    let elem = self.size(&t);
                    if elem.saturating_mul(n) > MAX_CELLS {
                        return Err(
                            src.error(dd.span, format!("array larger than {MAX_CELLS} cells"))
                        );
                    }
                    CType::Array(Box::new(t), n)
                }
                DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_) => CType::Func,
                DerivedDeclarator::Block(_) => {
                    return Err(src.error(dd.span, "blocks are not supported"))
                }
            };
        }
        match &d.node.kind.node {
            DeclaratorKind::Declarator(inner) => self.declarator(t, Some(inner), src, quals),
            _ => Ok(t),
        }
    }
}

impl Default for Types<'_> {
    fn default() -> Self {
        Self::new()
    }
}

/// Removes the function declarator nearest the name.
fn strip_function(d: &mut Node<Declarator>) {
    if let DeclaratorKind::Declarator(inner) = &mut d.node.kind.node {
        if nearest(inner).is_some() {
            strip_function(inner);
            return;
        }
    }
    if matches!(
        d.node.derived.last().map(|x| &x.node),
        Some(DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_))
    ) {
        d.node.derived.pop();
    }
}

/// The integer type a name suffix abbreviates (`atomic_uint`,
/// `__VERIFIER_nondet_ulong`, …): [`CType::UInt`] for `uint`, `ulong`,
/// `ulonglong`, `unsigned`, `u32`, `u64`, `size_t`, `uintptr_t`; else
/// [`CType::Int`] (`uchar`, `ushort`, `u8`, `u16` promote to `int`,
/// C11 6.3.1.1p2).
pub fn int_named(t: &str) -> CType {
    let unsigned =
        (t.starts_with('u') && !matches!(t, "uchar" | "ushort" | "u8" | "u16")) || t == "size_t";
    if unsigned {
        CType::UInt
    } else {
        CType::Int
    }
}

/// The type of an integer or character literal of value `v` (as
/// [`constant_value`] reads it): unsigned with a `u`/`U` suffix or when
/// it exceeds the largest signed W-bit value (C11 6.4.4.1p5 gives such
/// a constant the first of the listed types that can represent it; every
/// integer type here has W bits, so that is an unsigned one), else `int`.
pub fn constant_type(c: &Constant, v: i64, w: crate::program::Width) -> CType {
    match c {
        Constant::Integer(i) if i.suffix.unsigned || v as u64 > w.max() as u64 => CType::UInt,
        _ => CType::Int,
    }
}

/// The value of an integer or character literal (`None`: floating point
/// or beyond 64 bits).
pub fn constant_value(c: &Constant) -> Option<i64> {
    match c {
        Constant::Integer(i) => {
            let radix = match i.base {
                IntegerBase::Decimal => 10,
                IntegerBase::Octal => 8,
                IntegerBase::Hexadecimal => 16,
                IntegerBase::Binary => 2,
            };
            let v = u64::from_str_radix(&i.number, radix).ok()?;
            Some(v as i64)
        }
        Constant::Float(_) => None,
        Constant::Character(s) => char_value(s),
    }
}

/// The characters of a string literal as bytes (its adjacent pieces
/// concatenated, escapes decoded, other characters as their UTF-8 bytes,
/// no terminating 0); `None` for a malformed escape.
pub fn string_value(pieces: &[String]) -> Option<Vec<i64>> {
    let mut out = Vec::new();
    for p in pieces {
        let p = p
            .strip_prefix("u8")
            .or_else(|| p.strip_prefix(['L', 'u', 'U']))
            .unwrap_or(p);
        let inner = p.strip_prefix('"').and_then(|x| x.strip_suffix('"'))?;
        let cs: Vec<char> = inner.chars().collect();
        let mut k = 0;
        while k < cs.len() {
            if cs[k] != '\\' {
                // A character is its UTF-8 bytes, as the C compiler
                // stores a string literal of the source's encoding.
                let mut buf = [0u8; 4];
                out.extend(cs[k].encode_utf8(&mut buf).bytes().map(i64::from));
                k += 1;
                continue;
            }
            let c = *cs.get(k + 1)?;
            k += 2;
            let v = match c {
                'n' => 10,
                't' => 9,
                'r' => 13,
                'a' => 7,
                'b' => 8,
                'f' => 12,
                'v' => 11,
                'e' => 27,
                'x' => {
                    let mut v: i64 = 0;
                    let mut n = 0;
                    while k < cs.len() && cs[k].is_ascii_hexdigit() && n < 8 {
                        v = v * 16 + cs[k].to_digit(16)? as i64;
                        k += 1;
                        n += 1;
                    }
                    if n == 0 {
                        return None;
                    }
                    v
                }
                '0'..='7' => {
                    let mut v = c.to_digit(8)? as i64;
                    let mut n = 1;
                    while k < cs.len() && n < 3 && cs[k].is_digit(8) {
                        v = v * 8 + cs[k].to_digit(8)? as i64;
                        k += 1;
                        n += 1;
                    }
                    v
                }
                c => c as i64,
            };
            out.push(v);
        }
    }
    Some(out)
}

/// The value of a character literal such as `'a'`, `'\n'`, `'\x41'`.
fn char_value(s: &str) -> Option<i64> {
    let inner = s.strip_prefix(['L', 'u', 'U']).unwrap_or(s);
    let inner = inner
        .strip_prefix('\'')
        .and_then(|x| x.strip_suffix('\''))?;
    let mut cs = inner.chars();
    match cs.next()? {
        '\\' => {
            let rest: String = cs.collect();
            Some(match rest.as_str() {
                "n" => 10,
                "t" => 9,
                "r" => 13,
                "0" => 0,
                "\\" => 92,
                "'" => 39,
                "\"" => 34,
                "a" => 7,
                "b" => 8,
                "f" => 12,
                "v" => 11,
                r if r.starts_with('x') => i64::from_str_radix(&r[1..], 16).ok()?,
                r => i64::from_str_radix(r, 8).ok()?,
            })
        }
        c if cs.next().is_none() => Some(c as i64),
        _ => None,
    }
}

/// Records a type qualifier.
fn qualifier(q: &TypeQualifier, r: &mut Resolved) {
    match q {
        TypeQualifier::Volatile => r.volatile = true,
        TypeQualifier::Atomic => r.atomic = true,
        _ => {}
    }
}

/// The identifier a declarator declares, if any.
pub fn declarator_name(d: &Node<Declarator>) -> Option<String> {
    match &d.node.kind.node {
        DeclaratorKind::Identifier(i) => Some(i.node.name.clone()),
        DeclaratorKind::Declarator(inner) => declarator_name(inner),
        DeclaratorKind::Abstract => None,
    }
}

/// True when the declarator declares a function: the derived part
/// nearest the name (the last one of the innermost declarator that has
/// any) is a function declarator.
pub fn is_function(d: &Node<Declarator>) -> bool {
    matches!(
        nearest(d),
        Some(DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_))
    )
}

/// The derived declarator nearest the declared name.
fn nearest(d: &Node<Declarator>) -> Option<&DerivedDeclarator> {
    if let DeclaratorKind::Declarator(inner) = &d.node.kind.node {
        if let Some(x) = nearest(inner) {
            return Some(x);
        }
    }
    d.node.derived.last().map(|x| &x.node)
}

/// The message of a located error without its location and snippet.
fn short(e: &Error) -> String {
    match e {
        Error::Input(i) => i.message.clone(),
        e => e.to_string(),
    }
}
