//! Lowering of a herd litmus test's surface syntax ([`super::syntax`])
//! to a [`LitmusTest`]: variables and their addresses, the init block,
//! each thread column (through [`super::thread`]), `locations`, `filter`
//! and the final condition, and herd's order of the observed locations.

use super::ctx::{access_bits, check_fits, CodeMap, Ctx, Vars};
use super::known::Known;
use super::regs::{norm_reg, reg_rank};
use super::syntax::{InitLhs, RawLoc, RawProp, RawQuant, RawVal};
use super::values::{initial_bytes, ValueSets};
use super::{Arch, LitmusTest, LocKind, Location, Prop, Quantifier};
use crate::diag::{Error, SourceFile, Span};
use crate::program::{
    BinOp, Expr, GExpr, Goal, GoalAt, GoalKind, Program, SharedVar, Thread, ThreadId, UnOp, Width,
};
use std::collections::{BTreeMap, BTreeSet};

/// Parses a herd litmus test and lowers it to the Program IR.
///
/// `width` is the value width W: every integer constant (and every
/// address) must fit in W bits.
///
/// Errors (all located `file:line:column`, never a panic): malformed
/// syntax, truncated files, an unknown architecture, an unsupported
/// instruction (the message names it), an undefined label, a register of
/// a thread that does not exist, a constant that does not fit
/// ([`Error::Input`]); a width outside 1..=64 ([`Error::Unsupported`]).
pub fn parse(src: &SourceFile, width: Width) -> Result<LitmusTest, Error> {
    if width.0 == 0 || width.0 > 64 {
        return Err(Error::Unsupported(format!(
            "width {} is out of range (1..=64)",
            width.0
        )));
    }
    let surf = super::syntax::parse_surface(src)?;
    let arch = match Arch::from_keyword(&surf.arch) {
        Some(a) if a != Arch::C => a,
        _ => {
            return Err(src.error_help(
                surf.arch_span,
                format!("unsupported architecture `{}`", surf.arch),
                "supported: X86, X86_64, PPC, AArch64, RISCV",
            ))
        }
    };
    // Pass 1: collect variable names and constants.
    let make_vars = |mixed: bool| Vars {
        fixed: None,
        seen: BTreeMap::new(),
        prog_syms: None,
        max_const: 0,
        negative: false,
        min_width: 0,
        arrays: surf
            .init
            .iter()
            .filter_map(|it| match (&it.lhs, &it.array) {
                (InitLhs::Mem(m), Some((n, b, _))) => Some((m.clone(), (*n, *b))),
                _ => None,
            })
            .collect(),
        code: code_map(&surf),
        accesses: Vec::new(),
        instrs: BTreeSet::new(),
        instr_base: 0,
        mem64: surf
            .init
            .iter()
            .any(|it| matches!(it.lhs, InitLhs::Mem(_)) && it.bits.is_some_and(|b| b > 32)),
        reg64: surf
            .init
            .iter()
            .any(|it| matches!(it.lhs, InitLhs::Reg { .. }) && it.bits.is_some_and(|b| b > 32)),
        split: BTreeMap::new(),
        split_spans: BTreeSet::new(),
        shared_bytes: None,
        pair_access: None,
        targets: Vec::new(),
        mixed,
        mixed_needed: false,
        fetch: BTreeMap::new(),
        fetch_alts: Vec::new(),
        scalar_bytes: surf
            .init
            .iter()
            .filter_map(|it| match (&it.lhs, &it.array, it.bits, &it.rhs) {
                (InitLhs::Mem(m), None, Some(b), _) => Some((m.clone(), i64::from(b / 8).max(1))),
                // A location that holds an address is a pointer: 8 bytes
                // (herd's AArch64 `x = z`).
                (InitLhs::Mem(m), None, None, Some((RawVal::Sym(_), _))) => Some((m.clone(), 8)),
                _ => None,
            })
            .collect(),
    };
    let mut vars = make_vars(is_mixed(&surf) || arch == Arch::AArch64 && narrow_arrays(&surf));
    lower(src, &surf, arch, width, &mut vars)?;
    assign_addresses(src, width, &mut vars)?;
    let mut t = lower(src, &surf, arch, width, &mut vars)?;
    // An AArch64 test without `Variant=mixed` whose accesses have sizes
    // other than their locations' is read in herd's mixed-size variant
    // (herd7 without `-variant mixed` refuses it: "Illegal mixed-size
    // test"; the public collections run it with the variant).
    if vars.mixed_needed {
        vars = make_vars(true);
        lower(src, &surf, arch, width, &mut vars)?;
        assign_addresses(src, width, &mut vars)?;
        t = lower(src, &surf, arch, width, &mut vars)?;
    }
    // herd's mixed-size variant: locations accessed at another size than
    // their own become byte cells, and a third pass lowers their accesses
    // as byte accesses.
    if !plan_bytes(src, &mut vars)? {
        return Ok(t);
    }
    assign_addresses(src, width, &mut vars)?;
    vars.targets.clear();
    lower(src, &surf, arch, width, &mut vars)
}

/// Gives every variable its address: alphabetical, from the first
/// multiple of 16 above every constant; an array (and a byte-addressed
/// location) takes one address per byte (herd's offsets). Then the code
/// addresses and the instruction values above them.
fn assign_addresses(src: &SourceFile, width: Width, vars: &mut Vars) -> Result<(), Error> {
    let base = (vars.max_const / 16 + 1).saturating_mul(16);
    let mut fixed = BTreeMap::new();
    let mut next = base;
    for (name, span) in vars.seen.iter() {
        let a = next;
        next = next.saturating_add(vars.size(name));
        let last = next.saturating_sub(1);
        if width.0 < 64 && !width.fits(last) {
            return Err(src.error_help(
                *span,
                format!(
                    "the address of `{name}` ({last}) does not fit in {} bits",
                    width.0
                ),
                width.raise_hint(),
            ));
        }
        fixed.insert(name.clone(), a);
    }
    vars.fixed = Some(fixed);
    // Code addresses after the variables'.
    vars.code.base = (next / 16 + 1).saturating_mul(16);
    // Instruction values after the code addresses.
    vars.instr_base = ((vars.code.base + vars.code.size()) / 16 + 1).saturating_mul(16);
    Ok(())
}

/// True for a test of herd's mixed-size variant (`Variant=mixed`). Every
/// AArch64 test is read as one: herd's AArch64 semantics without the
/// variant refuses an access at a size other than its location's ("Illegal
/// mixed-size test"), and with every access at its location's size the
/// variant's byte-addressed memory is one cell per location, so reading it
/// in the variant answers what herd answers with `-variant mixed` (the
/// Dat3M `mixed/` tests carry no `Variant` line).
fn is_mixed(surf: &super::syntax::Surface) -> bool {
    surf.metadata
        .iter()
        .any(|(k, v)| k == "Variant" && v.split(',').any(|x| x.trim() == "mixed"))
}

/// True when the init block declares an array of bytes or half-words: an
/// AArch64 test with one is read in herd's mixed-size variant (its memory
/// is byte-addressed; herd's own AArch64 tests of such arrays carry
/// `Variant=mixed`, the Dat3M `mixed/` ones no line). With every access
/// at its element's size the variant's cells are the elements.
fn narrow_arrays(surf: &super::syntax::Surface) -> bool {
    surf.init
        .iter()
        .any(|it| it.array.as_ref().is_some_and(|a| a.1 < 4))
}

/// The code addresses of the test's threads ([`CodeMap`]), enabled when
/// an instruction is `BL`, `BLR`, `BR` or `ADR`, or a value is a label.
fn code_map(surf: &super::syntax::Surface) -> CodeMap {
    let mut m = CodeMap::default();
    let mut off = 0i64;
    for cells in &surf.threads {
        let mut labels = BTreeMap::new();
        let mut n = 0usize;
        for c in cells {
            for (l, _) in &c.labels {
                labels.entry(l.clone()).or_insert(n);
            }
            if let Some((t, _)) = &c.instr {
                n += 1;
                let mn = super::ops::mnemonic(t).0.to_ascii_uppercase();
                m.enabled |=
                    surf.arch == "AArch64" && matches!(mn.as_str(), "BL" | "BLR" | "BR" | "ADR");
            }
        }
        m.offsets.push(off);
        m.counts.push(n);
        m.labels.push(labels);
        off += n as i64 + 1;
    }
    let label = |v: &RawVal| matches!(v, RawVal::Label(..));
    m.enabled |= surf
        .init
        .iter()
        .any(|it| it.rhs.as_ref().is_some_and(|(v, _)| label(v)));
    m.enabled |= raw_has_label(&surf.prop) || surf.filter.as_ref().is_some_and(raw_has_label);
    m
}

/// True when a condition compares with a code label.
fn raw_has_label(p: &RawProp) -> bool {
    raw_has(p, &|v| matches!(v, RawVal::Label(..)))
}

/// True when a condition compares with a value `pred` holds of.
fn raw_has(p: &RawProp, pred: &dyn Fn(&RawVal) -> bool) -> bool {
    let mut found = false;
    p.for_each_atom(&mut |_, val, _, _| found |= val.is_some_and(pred));
    found
}

/// The instruction values as herd prints them: `NOP`, `instr:"B .+4"`.
fn instr_names(vars: &Vars) -> BTreeMap<i64, String> {
    vars.instrs
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let name = if t == "NOP" {
                t.clone()
            } else {
                format!("instr:\"{t}\"")
            };
            (vars.instr_base + k as i64, name)
        })
        .collect()
}

/// The instruction texts of one thread's cells, in code order (the
/// `k` of [`code_instr_text`] and `CodeMap::pos_addr`).
fn instr_texts(cells: &[super::syntax::Cell]) -> impl Iterator<Item = &str> {
    cells
        .iter()
        .filter_map(|c| c.instr.as_ref().map(|(x, _)| x.as_str()))
}

/// The text of instruction `k` of thread `t` as an instruction value
/// (herd's `instr:"…"`): the label operand of a branch or an `ADR`
/// (`B`, `B.cond`, `BL`, `CBZ`, `CBNZ`, `TBZ`, `TBNZ`, `ADR`: its last
/// operand) is PC-relative, `.+4` per instruction ahead (`.-4` back), as
/// herd prints a `BranchTarget.Offset`; any other instruction is its text
/// ([`super::syntax::instr_text`]).
fn code_instr_text(vars: &Vars, t: usize, k: usize, text: &str) -> String {
    let norm = super::syntax::instr_text(text);
    let (mn, ops) = norm.split_once(' ').unwrap_or((norm.as_str(), ""));
    let up = mn.to_ascii_uppercase();
    let takes_label = up.starts_with("B.")
        || matches!(
            up.as_str(),
            "B" | "BL" | "CBZ" | "CBNZ" | "TBZ" | "TBNZ" | "ADR"
        );
    if !takes_label || ops.is_empty() {
        return norm;
    }
    let (head, target) = match ops.rsplit_once(',') {
        Some((h, l)) => (Some(h), l),
        None => (None, ops),
    };
    let Some(&to) = vars.code.labels.get(t).and_then(|ls| ls.get(target)) else {
        return norm;
    };
    let off = 4 * (to as i64 - k as i64);
    let rel = if off >= 0 {
        format!(".+{off}")
    } else {
        format!(".{off}")
    };
    match head {
        Some(h) => format!("{mn} {h},{rel}"),
        None => format!("{mn} {rel}"),
    }
}

/// The code address of label `l` of thread `t`, or a located error.
fn label_value(src: &SourceFile, vars: &Vars, t: usize, l: &str, sp: Span) -> Result<i64, Error> {
    vars.code
        .label_addr(t, l)
        .ok_or_else(|| src.error(sp, format!("no label `{l}` in thread {t}")))
}

/// herd's sort key of a location: (register 0 / memory 1, thread,
/// register rank, name).
type LocKey = (usize, usize, (usize, String), String);

struct Resolver<'a> {
    src: &'a SourceFile,
    arch: Arch,
    width: Width,
    locs: Vec<(Location, LocKey)>,
}

/// What the init block gives besides the registers' initial values
/// (which [`read_init`] sets in the program's threads).
#[derive(Default)]
struct InitBlock {
    /// Scalar locations and arrays (first element): value and span.
    mem: BTreeMap<String, (i64, Span)>,
    /// Arrays: every element's value.
    arrays: BTreeMap<String, Vec<i64>>,
    /// Symbolic registers (`%x`): value and span.
    syms: BTreeMap<String, (i64, Span)>,
    /// Registers (thread, name) initialised to an address.
    ptr_regs: BTreeSet<(usize, String)>,
    /// Locations initialised to an address.
    ptr_mem: BTreeSet<String>,
    /// Symbolic registers initialised to an address.
    ptr_syms: BTreeSet<String>,
    /// Locations typed unsigned (by herd name: `0:X1`, `[x]`): bits.
    unsigned_locs: BTreeMap<String, u32>,
    /// Locations with a declared integer type (its bits); arrays by name.
    typed_locs: BTreeMap<String, u32>,
}

/// The declared types of the init block: the unsigned locations and the
/// typed ones ([`InitBlock::unsigned_locs`], [`InitBlock::typed_locs`]).
fn init_types(surf: &super::syntax::Surface, arch: Arch, init: &mut InitBlock) {
    let unsigned_locs = &mut init.unsigned_locs;
    let typed_locs = &mut init.typed_locs;
    for it in &surf.init {
        if let Some(bits) = it.bits {
            match &it.lhs {
                InitLhs::Reg { thread, reg } => {
                    typed_locs.insert(format!("{thread}:{}", norm_reg(arch, reg)), bits);
                }
                InitLhs::Mem(m) if it.array.is_some() => {
                    typed_locs.insert(m.clone(), bits);
                }
                InitLhs::Mem(m) => {
                    typed_locs.insert(format!("[{m}]"), bits);
                }
                InitLhs::SymReg(_) => {}
            }
        }
        if let Some(bits) = it.unsigned {
            match &it.lhs {
                InitLhs::Reg { thread, reg } => {
                    unsigned_locs.insert(format!("{thread}:{}", norm_reg(arch, reg)), bits);
                }
                InitLhs::Mem(m) => {
                    unsigned_locs.insert(format!("[{m}]"), bits);
                }
                InitLhs::SymReg(_) => {}
            }
        }
    }
}

/// Reads the init block: registers' initial values into `p`'s threads,
/// memory, symbolic registers and pointers into the result; records
/// constants and addresses in `vars`.
fn read_init(
    src: &SourceFile,
    surf: &super::syntax::Surface,
    arch: Arch,
    width: Width,
    vars: &mut Vars,
    p: &mut Program,
) -> Result<InitBlock, Error> {
    let nthreads = surf.threads.len();
    let mut init = InitBlock::default();
    init_types(surf, arch, &mut init);
    let InitBlock {
        mem: mem_init,
        arrays: array_init,
        syms: sym_init,
        ptr_regs,
        ptr_mem,
        ptr_syms,
        ..
    } = &mut init;
    for it in &surf.init {
        let (val, is_ptr) = match &it.rhs {
            None => (0, false),
            Some((RawVal::Int(v), sp)) => {
                check_fits(src, width, *v, *sp)?;
                vars.constant(width.wrap(*v));
                (width.wrap(*v), false)
            }
            Some((RawVal::Sym(s), sp)) => (vars.addr(s, *sp), true),
            Some((RawVal::Label(t, l), sp)) => (label_value(src, vars, *t, l, *sp)?, false),
            Some((RawVal::Instr(i), _)) => (vars.instr(i), false),
        };
        if let (InitLhs::Mem(m), Some((_, _, vals))) = (&it.lhs, &it.array) {
            for v in vals {
                check_fits(src, width, *v, it.span)?;
                vars.constant(width.wrap(*v));
            }
            vars.addr(m, it.span);
            let vals: Vec<i64> = vals.iter().map(|v| width.wrap(*v)).collect();
            mem_init.insert(m.clone(), (vals[0], it.span));
            array_init.insert(m.clone(), vals);
            continue;
        }
        match &it.lhs {
            InitLhs::Reg { thread, reg } => {
                if *thread >= nthreads {
                    return Err(src.error(
                        it.span,
                        format!("init of register of thread {thread}, but the test has {nthreads} threads"),
                    ));
                }
                if arch == Arch::AArch64 && is_w_view(reg) {
                    return Err(src.error_help(
                        it.span,
                        format!("unsupported init of `{reg}`: the init block sets X registers"),
                        format!(
                            "herd7 refuses it too (\"{reg} is not a register\"); write the X view"
                        ),
                    ));
                }
                let rn = norm_reg(arch, reg);
                let s = p.names.intern(&rn);
                let t = &mut p.threads[*thread];
                let r = t.reg(s);
                t.reg_init[r.0 as usize] = val;
                if is_ptr {
                    ptr_regs.insert((*thread, rn));
                }
            }
            InitLhs::SymReg(name) => {
                sym_init.insert(name.clone(), (val, it.span));
                if is_ptr {
                    ptr_syms.insert(name.clone());
                }
            }
            InitLhs::Mem(m) => {
                vars.addr(m, it.span);
                mem_init.insert(m.clone(), (val, it.span));
                if is_ptr {
                    ptr_mem.insert(m.clone());
                }
            }
        }
    }
    Ok(init)
}

/// Lowers every thread's code into `p` (its registers' initial values
/// already set), with the mixed-size checks of AArch64 tests; returns per
/// thread whether its control flow has a cycle.
fn lower_code(
    src: &SourceFile,
    surf: &super::syntax::Surface,
    arch: Arch,
    width: Width,
    vars: &mut Vars,
    p: &mut Program,
    init: &mut InitBlock,
) -> Result<Vec<bool>, Error> {
    let mixed = vars.mixed;
    // Code.
    let mut cyclic = Vec::new();
    for ti in 0..surf.threads.len() {
        let mut names = std::mem::take(&mut p.names);
        let mut thread = std::mem::replace(
            &mut p.threads[ti],
            Thread::new(
                crate::program::intern::Sym(0),
                crate::program::intern::Sym(0),
                Span::default(),
            ),
        );
        let r = {
            let mut cx = Ctx {
                src,
                width,
                names: &mut names,
                thread: &mut thread,
                vars,
                arch,
                seg: ti,
            };
            super::thread::lower_thread(&mut cx, &surf.threads, ti)
        };
        p.names = names;
        if r.is_ok() && mixed {
            check_sizes(&thread, ti, vars, &init.typed_locs)?;
        } else if r.is_ok()
            && arch == Arch::AArch64
            && has_mixed_access(&thread, vars, &init.typed_locs)
        {
            vars.mixed_needed = true;
        }
        vars.accesses.clear();
        // Symbolic registers used by this thread get their init values.
        for (sname, (v, _)) in &init.syms {
            if let Some(s) = p.names.get(sname) {
                if let Some(rid) = thread.find_reg(s) {
                    thread.reg_init[rid.0 as usize] = *v;
                    if init.ptr_syms.contains(sname) {
                        init.ptr_regs.insert((ti, sname.clone()));
                    }
                }
            }
        }
        p.threads[ti] = thread;
        cyclic.push(r?);
    }
    Ok(cyclic)
}

/// The shared variables of `p` (each named location at its address, with
/// its initial value; byte-addressed ones as byte cells) and the initial
/// memory, with each code address holding its instruction when the test
/// uses both.
fn shared_vars(surf: &super::syntax::Surface, vars: &mut Vars, p: &mut Program, init: &InitBlock) {
    let (mem_init, array_init) = (&init.mem, &init.arrays);
    // Shared variables.
    if let Some(fixed) = &vars.fixed {
        for (name, addr) in fixed {
            let (init, span) = mem_init
                .get(name)
                .copied()
                .unwrap_or((0, vars.seen.get(name).copied().unwrap_or_default()));
            let s = p.names.intern(name);
            p.vars.push(SharedVar {
                name: s,
                addr: *addr,
                init,
                span,
            });
            if let Some(&(_, elem)) = vars.split.get(name) {
                // Byte cells, little-endian (herd's mixed-size memory).
                let vals = match array_init.get(name) {
                    Some(vs) => vs.clone(),
                    None => vec![init],
                };
                for (k, v) in vals.iter().enumerate() {
                    for b in 0..i64::from(elem) {
                        let byte = (v >> (8 * b).min(63)) & 255;
                        if byte != 0 {
                            p.init.insert(addr + k as i64 * i64::from(elem) + b, byte);
                        }
                    }
                }
                p.vars.last_mut().expect("just pushed").init = init & 255;
                continue;
            }
            if init != 0 {
                p.init.insert(*addr, init);
            }
            let bytes = vars.arrays.get(name).map_or(1, |a| i64::from(a.1));
            for (k, v) in array_init.get(name).into_iter().flatten().enumerate() {
                if k > 0 && *v != 0 {
                    p.init.insert(addr + k as i64 * bytes, *v);
                }
            }
        }
    }
    // With code addresses, each code address holds its instruction (a
    // load from `ADR X0,L0` reads `instr:"…"`, as in herd).
    if vars.code.enabled {
        for (t, cells) in surf.threads.iter().enumerate() {
            for (k, text) in instr_texts(cells).enumerate() {
                let v = vars.instr(&code_instr_text(vars, t, k, text));
                if vars.fixed.is_some() {
                    p.init.insert(vars.code.pos_addr(t, k), v);
                }
            }
        }
    }
}

fn lower(
    src: &SourceFile,
    surf: &super::syntax::Surface,
    arch: Arch,
    width: Width,
    vars: &mut Vars,
) -> Result<LitmusTest, Error> {
    let mut p = Program {
        source: Some(src.clone()),
        ..Program::default()
    };
    for (i, sp) in surf.thread_spans.iter().enumerate() {
        let name = p.names.intern(&format!("P{i}"));
        let q0 = p.names.intern("q0");
        p.threads.push(Thread::new(name, q0, *sp));
    }
    // Init: registers and memory.
    let mut init = read_init(src, surf, arch, width, vars, &mut p)?;
    // herd's mixed-size variant (byte-addressed memory): sizes are checked.
    let mixed = vars.mixed;
    if let Some(sp) = surf.ifetch {
        plan_fetches(src, surf, arch, sp, vars)?;
    }
    if !mixed {
        if let Some(it) = surf
            .init
            .iter()
            .find(|it| it.array.as_ref().is_some_and(|a| a.1 < 4))
        {
            return Err(src.error_help(
                it.span,
                "unsupported array of bytes or half-words outside herd's mixed-size variant (byte/half-access: mixed-size cells)",
                "byte and half-word arrays are read in `Variant=mixed` tests, whose memory is byte-addressed; see docs/litmus.md",
            ));
        }
    }
    let cyclic = lower_code(src, surf, arch, width, vars, &mut p, &mut init)?;
    let prog_syms = vars
        .prog_syms
        .get_or_insert_with(|| vars.seen.keys().cloned().collect());
    new_symbols(src, surf, prog_syms)?;
    // Locations of the condition, `locations` and the filter.
    let mut rs = Resolver {
        src,
        arch,
        width,
        locs: Vec::new(),
    };
    let mut star_locs = Vec::new();
    for (l, sp, star) in &surf.locations {
        // A whole array: its elements, printed together (`v={1,2}`).
        let elems = match l {
            RawLoc::Mem(m) => vars.arrays.get(m).map(|&(n, _)| (m.clone(), n)),
            RawLoc::Reg { .. } => None,
        };
        let parts = match elems {
            Some((m, n)) => (0..n).map(|k| RawLoc::Mem(format!("{m}{{{k}}}"))).collect(),
            None => vec![l.clone()],
        };
        for l in &parts {
            let i = rs.loc(&mut p, vars, l, *sp)?;
            if *star {
                star_locs.push(i);
            }
        }
    }
    let n_listed = rs.locs.len();
    let raw_prop = rs.prop(&mut p, vars, &surf.prop)?;
    let raw_filter = match &surf.filter {
        Some(f) => Some(rs.prop(&mut p, vars, f)?),
        None => None,
    };
    shared_vars(surf, vars, &mut p, &init);
    resolve_targets(src, &p, vars, width, &init.typed_locs)?;
    let address_probes =
        super::refusals::refuse_by_values(src, &p, vars, width, surf.ifetch.is_some())?;
    type_locations(
        &mut rs,
        &p,
        &init,
        star_locs,
        &raw_prop,
        raw_filter.as_ref(),
    );
    // herd's order.
    let mut order: Vec<usize> = (0..rs.locs.len()).collect();
    order.sort_by(|a, b| rs.locs[*a].1.cmp(&rs.locs[*b].1));
    let mut remap = vec![0; order.len()];
    for (new, old) in order.iter().enumerate() {
        remap[*old] = new;
    }
    let observed: Vec<Location> = order.iter().map(|i| rs.locs[*i].0.clone()).collect();
    let mut main_locs = BTreeSet::new();
    raw_prop.collect_locs(&mut main_locs);
    let shown: Vec<bool> = order
        .iter()
        .map(|i| *i < n_listed || main_locs.contains(i))
        .collect();
    let prop = typed_prop(raw_prop.remap(&remap), &observed);
    let filter = raw_filter.map(|f| typed_prop(f.remap(&remap), &observed));
    // A test that runs at 64 bits compares a location of a narrower type
    // in that type (herd's `int` registers compare in 32 bits).
    let wide = vars.max_const > u32::MAX as i64 || vars.min_width >= 64;
    let cond = prop_expr(&prop, &observed, wide);
    let filter_expr = filter.as_ref().map(|f| prop_expr(f, &observed, wide));
    let goal_cond = match &filter_expr {
        Some(f) => Expr::bin(BinOp::And, f.clone(), cond.clone()),
        None => cond.clone(),
    };
    p.goals.push(Goal {
        name: Some(surf.name.clone()),
        kind: GoalKind::Goal,
        at: GoalAt::Final,
        cond: Some(goal_cond),
        span: Span::default(),
    });
    // herd prints `Loop` when a loop was unrolled: not for loops that run
    // on concrete values to their end (`program::concrete::concrete_prefix`).
    let has_loop = p.threads.iter().zip(&cyclic).any(|(th, &c)| {
        c && crate::program::concrete::concrete_prefix(th, width).is_none_or(|(_, q)| {
            th.outgoing()
                .get(q.0 as usize)
                .is_some_and(|o| !o.is_empty())
        })
    });
    Ok(LitmusTest {
        program: p,
        name: surf.name.clone(),
        arch,
        doc: surf.doc.clone(),
        metadata: surf.metadata.clone(),
        quantifier: quantifier(surf.quant),
        prop,
        cond,
        filter,
        filter_expr,
        observed,
        shown,
        has_loop,
        width,
        min_width: Width(vars.min_width.max(1)),
        shared_bytes: vars.shared_bytes.clone(),
        pair_access: pair_access(src, surf, vars),
        code_labels: code_labels(vars),
        address_probes,
        var_sizes: (vars.fixed.iter().flatten())
            .map(|(name, &a)| (a, vars.size(name)))
            .collect(),
    })
}

/// True for the name of an AArch64 W register (`W6`, `w0`), which
/// herd's init block does not take.
fn is_w_view(reg: &str) -> bool {
    reg.strip_prefix(['W', 'w'])
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// The condition's quantifier.
fn quantifier(q: RawQuant) -> Quantifier {
    match q {
        RawQuant::Exists => Quantifier::Exists,
        RawQuant::NotExists => Quantifier::NotExists,
        RawQuant::Forall => Quantifier::Forall,
    }
}

/// The located error [`LitmusTest::pair_access`] for the first load or
/// store pair of a test of two threads or more ([`Vars::pair_access`]).
fn pair_access(src: &SourceFile, surf: &super::syntax::Surface, vars: &Vars) -> Option<Error> {
    let sp = vars.pair_access.filter(|_| surf.threads.len() > 1)?;
    Some(src.error_help(
        sp,
        "unsupported load or store pair (LDP/STP) under a model other than aarch64.cat: herd's po leaves its two accesses unordered, this tool's orders them (ldp/stp)",
        "aarch64.cat (`--model arm`) cannot tell the two apart and answers it; see docs/litmus.md",
    ))
}

/// The attributes of the observed locations `rs` resolved: whether each
/// may hold an address (herd prints it symbolically: a `*` of the
/// `locations` list, a symbolic value in the condition or filter, or the
/// pointers' flow), and its herd type (unsigned, bits).
fn type_locations(
    rs: &mut Resolver,
    p: &Program,
    init: &InitBlock,
    star_locs: Vec<usize>,
    raw_prop: &Prop,
    raw_filter: Option<&Prop>,
) {
    // Which locations may hold addresses.
    let mut ptr_locs: BTreeSet<usize> = star_locs.into_iter().collect();
    collect_symbolic(raw_prop, &mut ptr_locs);
    if let Some(f) = raw_filter {
        collect_symbolic(f, &mut ptr_locs);
    }
    let flow = super::pointers::pointer_flow(p, &init.ptr_regs, &init.ptr_mem);
    for (i, (loc, _)) in rs.locs.iter_mut().enumerate() {
        let by_flow = match loc.kind {
            LocKind::Reg { thread, reg } => flow.0.contains(&(thread.0 as usize, reg.0)),
            LocKind::Mem { addr } => flow.1.contains(&addr),
        };
        loc.holds_address = by_flow || ptr_locs.contains(&i);
        // herd's locations are of type `int` unless the init block types
        // them; an array element has its array's type.
        let base = loc.name.split(['[', '{']).next().unwrap_or("");
        loc.unsigned = init
            .unsigned_locs
            .get(&loc.name)
            .or_else(|| init.unsigned_locs.get(&format!("[{base}]")))
            .copied();
        loc.bits = init
            .typed_locs
            .get(&loc.name)
            .or_else(|| init.typed_locs.get(base))
            .copied()
            .unwrap_or(32);
    }
}

/// herd's names of the code addresses and instruction values
/// (`label:"P0:L0"`, `instr:"NOP"`), by value.
fn code_labels(vars: &Vars) -> BTreeMap<i64, String> {
    instr_names(vars)
        .into_iter()
        .chain(if vars.code.enabled {
            vars.code
                .labels
                .iter()
                .enumerate()
                .flat_map(|(t, ls)| ls.keys().map(move |l| (t, l)).collect::<Vec<_>>())
                .filter_map(|(t, l)| {
                    Some((vars.code.label_addr(t, l)?, format!("label:\"P{t}:{l}\"")))
                })
                .collect()
        } else {
            BTreeMap::new()
        })
        .collect()
}

impl Resolver<'_> {
    /// Index (in resolution order) of a location, adding it if new.
    fn loc(
        &mut self,
        p: &mut Program,
        vars: &mut Vars,
        l: &RawLoc,
        sp: Span,
    ) -> Result<usize, Error> {
        let (loc, key) = match l {
            RawLoc::Reg { thread, reg } => {
                if *thread >= p.threads.len() {
                    return Err(self.src.error(
                        sp,
                        format!(
                            "thread {thread} does not exist (the test has {} threads)",
                            p.threads.len()
                        ),
                    ));
                }
                let rn = norm_reg(self.arch, reg);
                let s = p.names.intern(&rn);
                let r = p.threads[*thread].reg(s);
                let name = format!("{thread}:{rn}");
                (
                    Location {
                        kind: LocKind::Reg {
                            thread: ThreadId(*thread as u32),
                            reg: r,
                        },
                        name: name.clone(),
                        holds_address: false,
                        unsigned: None,
                        bits: 32,
                        cells: 1,
                    },
                    (0, *thread, reg_rank(self.arch, &rn), name),
                )
            }
            RawLoc::Mem(m) => {
                if let Some((base, k)) = super::ctx::array_element(m) {
                    match vars.arrays.get(base) {
                        Some(&(n, _)) if k < n => {}
                        Some(&(n, _)) => {
                            return Err(self.src.error(
                                sp,
                                format!("`{base}[{k}]` is outside the array ({n} elements)"),
                            ))
                        }
                        None => {
                            return Err(self
                                .src
                                .error(sp, format!("`{base}` is not an array of the init block")))
                        }
                    }
                }
                let a = vars.addr(m, sp);
                // A byte-addressed location's value is its element's bytes.
                let base = super::ctx::array_element(m).map_or(m.as_str(), |(b, _)| b);
                let cells = vars.split.get(base).map_or(1, |&(_, e)| e.max(1));
                // herd prints array elements without brackets.
                let name = if m.contains(['[', '{']) {
                    m.clone()
                } else {
                    format!("[{m}]")
                };
                (
                    Location {
                        kind: LocKind::Mem { addr: a },
                        name: name.clone(),
                        holds_address: false,
                        unsigned: None,
                        bits: 32,
                        cells,
                    },
                    (1, 0, (0, String::new()), m.clone()),
                )
            }
        };
        if let Some(i) = self.locs.iter().position(|(x, _)| x.name == loc.name) {
            return Ok(i);
        }
        self.locs.push((loc, key));
        Ok(self.locs.len() - 1)
    }

    fn prop(&mut self, p: &mut Program, vars: &mut Vars, rp: &RawProp) -> Result<Prop, Error> {
        Ok(match rp {
            RawProp::True => Prop::True,
            RawProp::False => Prop::False,
            RawProp::Atom {
                loc,
                val,
                neq,
                span,
                loc_span,
            } => {
                let i = self.loc(p, vars, loc, *loc_span)?;
                let (value, symbolic) = match val {
                    RawVal::Int(v) => {
                        check_fits(self.src, self.width, *v, *span)?;
                        vars.constant(self.width.wrap(*v));
                        (self.width.wrap(*v), false)
                    }
                    RawVal::Sym(s) => (vars.addr(s, *span), true),
                    RawVal::Label(t, l) => (label_value(self.src, vars, *t, l, *span)?, true),
                    RawVal::Instr(i) => (vars.instr(i), true),
                };
                let a = Prop::Eq {
                    loc: i,
                    value,
                    symbolic,
                };
                if *neq {
                    Prop::Not(Box::new(a))
                } else {
                    a
                }
            }
            RawProp::Same {
                a,
                b,
                neq,
                a_span,
                b_span,
                ..
            } => {
                let a = self.loc(p, vars, a, *a_span)?;
                let b = self.loc(p, vars, b, *b_span)?;
                Prop::same(a, b, *neq)
            }
            RawProp::Not(a) => Prop::Not(Box::new(self.prop(p, vars, a)?)),
            RawProp::And(xs) | RawProp::Or(xs) => {
                let and = matches!(rp, RawProp::And(_));
                let mut v = Vec::new();
                for x in xs {
                    match self.prop(p, vars, x)? {
                        Prop::And(ys) if and => v.extend(ys),
                        Prop::Or(ys) if !and => v.extend(ys),
                        y => v.push(y),
                    }
                }
                if and {
                    Prop::And(v)
                } else {
                    Prop::Or(v)
                }
            }
            RawProp::Implies(a, b) => Prop::Implies(
                Box::new(self.prop(p, vars, a)?),
                Box::new(self.prop(p, vars, b)?),
            ),
        })
    }
}

/// Refuses a final condition that names a location or a symbolic value
/// (`x`, `0:X1=y`) that neither the init block nor the code mentions, as
/// herd does ("Post-condition introduces new symbolic location(s)",
/// herd's `check_post_condition_symbols_exist`): such a location exists in
/// no execution of the test.
fn new_symbols(
    src: &SourceFile,
    surf: &super::syntax::Surface,
    known: &BTreeSet<String>,
) -> Result<(), Error> {
    let mut names: Vec<(&str, Span)> = Vec::new();
    surf.prop.for_each_atom(&mut |loc, val, span, loc_span| {
        if let RawLoc::Mem(m) = loc {
            names.push((m, loc_span));
        }
        if let Some(RawVal::Sym(s)) = val {
            names.push((s, span));
        }
    });
    for (name, span) in names {
        let base = super::ctx::array_element(name).map_or(name, |(b, _)| b);
        if !known.contains(base) {
            return Err(src.error(
                span,
                format!(
                    "the final condition names `{base}`, a location that neither the init block nor the code mentions (herd7 refuses it too: post-condition introduces new symbolic location)"
                ),
            ));
        }
    }
    Ok(())
}

fn collect_symbolic(p: &Prop, out: &mut BTreeSet<usize>) {
    match p {
        Prop::Eq { loc, symbolic, .. } => {
            if *symbolic {
                out.insert(*loc);
            }
        }
        Prop::Same { .. } => {}
        Prop::Not(a) => collect_symbolic(a, out),
        Prop::And(v) | Prop::Or(v) => v.iter().for_each(|x| collect_symbolic(x, out)),
        Prop::Implies(a, b) => {
            collect_symbolic(a, out);
            collect_symbolic(b, out);
        }
        Prop::True | Prop::False => {}
    }
}

/// The goal expression of a proposition (1 when it holds).
pub fn prop_expr(p: &Prop, observed: &[Location], wide: bool) -> GExpr {
    match p {
        Prop::True => Expr::Const(1),
        Prop::False => Expr::Const(0),
        Prop::Eq {
            loc,
            value,
            symbolic,
        } => {
            let v = typed_expr(&observed[*loc], wide && !symbolic);
            Expr::bin(BinOp::Eq, v, Expr::Const(*value))
        }
        Prop::Same { a, b } => Expr::bin(
            BinOp::Eq,
            typed_expr(&observed[*a], wide),
            typed_expr(&observed[*b], wide),
        ),
        Prop::Not(a) => Expr::un(UnOp::Not, prop_expr(a, observed, wide)),
        Prop::And(v) => fold(v, BinOp::And, 1, observed, wide),
        Prop::Or(v) => fold(v, BinOp::Or, 0, observed, wide),
        Prop::Implies(a, b) => Expr::bin(
            BinOp::Or,
            Expr::un(UnOp::Not, prop_expr(a, observed, wide)),
            prop_expr(b, observed, wide),
        ),
    }
}

/// The goal expression of a location's final value, sign-extended from
/// the location's bits when `extend` (the run is wider than the
/// location: the value as [`Location::typed`] gives it).
fn typed_expr(l: &Location, extend: bool) -> GExpr {
    let v = l.expr();
    if !extend || l.bits >= 64 || l.bits == 0 {
        return v;
    }
    // Sign extension from `bits`: ((v + 2^(b-1)) & (2^b - 1)) - 2^(b-1).
    let half = 1i64 << (l.bits - 1);
    Expr::bin(
        BinOp::Sub,
        Expr::bin(
            BinOp::BitAnd,
            Expr::bin(BinOp::Add, v, Expr::Const(half)),
            Expr::Const((half << 1) - 1),
        ),
        Expr::Const(half),
    )
}

/// `p` with each constant compared to a location converted to the
/// location's type ([`Location::typed`]: `0:X1=0xffffffff` on an `int`
/// register is `0:X1=-1`), as herd compares.
fn typed_prop(p: Prop, observed: &[Location]) -> Prop {
    match p {
        Prop::Eq {
            loc,
            value,
            symbolic: false,
        } => Prop::Eq {
            loc,
            value: observed[loc].typed(value),
            symbolic: false,
        },
        Prop::Not(a) => Prop::Not(Box::new(typed_prop(*a, observed))),
        Prop::And(v) => Prop::And(v.into_iter().map(|x| typed_prop(x, observed)).collect()),
        Prop::Or(v) => Prop::Or(v.into_iter().map(|x| typed_prop(x, observed)).collect()),
        Prop::Implies(a, b) => Prop::Implies(
            Box::new(typed_prop(*a, observed)),
            Box::new(typed_prop(*b, observed)),
        ),
        other => other,
    }
}

/// `op` over `v` (`unit` when empty): folded from the left for short
/// lists, as a balanced tree for long ones (so that a condition with
/// thousands of disjuncts gives an expression of logarithmic depth).
fn fold(v: &[Prop], op: BinOp, unit: i64, observed: &[Location], wide: bool) -> GExpr {
    const LEFT_FOLD_MAX: usize = 64;
    if v.len() > LEFT_FOLD_MAX {
        let (a, b) = v.split_at(v.len() / 2);
        return Expr::bin(
            op,
            fold(a, op, unit, observed, wide),
            fold(b, op, unit, observed, wide),
        );
    }
    let mut it = v.iter().map(|x| prop_expr(x, observed, wide));
    match it.next() {
        None => Expr::Const(unit),
        Some(first) => it.fold(first, |acc, e| Expr::bin(op, acc, e)),
    }
}

/// herd's instruction-fetch variant (`Variant=ifetch`; Simner et al.,
/// "ARMv8-A system semantics: instruction fetch in relaxed
/// architectures", ESOP 2020): the modifiable instructions — those at a
/// label a register of the init block holds — are fetched from their code
/// address ([`Vars::fetch`]) and run as the instruction value read: the
/// original, or one of the init block's instruction values
/// ([`Vars::fetch_alts`]). Refused with a located error (at the
/// `Variant` line): other architectures than AArch64, a test without
/// `CacheType=DIC` (instruction caches that need invalidation to see a
/// write are not modelled), and a thread that stores while holding the
/// address of its own code (a thread modifying the code it runs, which
/// herd lets fetch stale values regardless of program order).
fn plan_fetches(
    src: &SourceFile,
    surf: &super::syntax::Surface,
    arch: Arch,
    sp: Span,
    vars: &mut Vars,
) -> Result<(), Error> {
    let refuse = |what: &str| {
        Err(src.error_help(
            sp,
            format!("unsupported variant `ifetch`: {what} (instruction fetch: self-modifying code)"),
            "instruction fetch is modelled for AArch64 tests with `CacheType=DIC` where a thread modifies another's code; see docs/litmus.md",
        ))
    };
    if arch != Arch::AArch64 {
        return refuse("not an AArch64 test");
    }
    let dic = surf
        .metadata
        .iter()
        .any(|(k, v)| k == "CacheType" && v.split(',').any(|x| x.trim() == "DIC"));
    if !dic {
        return refuse("instruction caches without `CacheType=DIC`");
    }
    vars.fetch.clear();
    vars.fetch_alts.clear();
    let mut targets = BTreeSet::new();
    for it in &surf.init {
        match (&it.lhs, &it.rhs) {
            (InitLhs::Reg { thread, .. }, Some((RawVal::Label(t, l), lsp))) => {
                let a = label_value(src, vars, *t, l, *lsp)?;
                targets.insert(a);
                let stores = surf.threads.get(*thread).is_some_and(|cells| {
                    cells.iter().any(|c| {
                        c.instr.as_ref().is_some_and(|(x, _)| {
                            let m = super::ops::mnemonic(x).0.to_ascii_uppercase();
                            m.starts_with("ST") || m.starts_with("SWP") || m.starts_with("CAS")
                        })
                    })
                });
                if *t == *thread && stores {
                    return refuse(&format!(
                        "thread {t} stores and holds the address of its own code"
                    ));
                }
            }
            (_, Some((RawVal::Instr(i), _))) => {
                let v = vars.instr(i);
                if !vars.fetch_alts.iter().any(|(_, x)| x == i) {
                    vars.fetch_alts.push((v, i.clone()));
                }
            }
            _ => {}
        }
    }
    for (t, cells) in surf.threads.iter().enumerate() {
        for (k, text) in instr_texts(cells).enumerate() {
            let a = vars.code.pos_addr(t, k);
            if targets.contains(&a) {
                let v = vars.instr(&code_instr_text(vars, t, k, text));
                vars.fetch.insert(a, v);
            }
        }
    }
    Ok(())
}

/// True when one of thread `t`'s memory accesses ([`Vars::accesses`],
/// outside herd's mixed-size variant) has a size other than the location
/// it addresses statically: an array element's size, the location's
/// declared type, or 32 bits. Such a test is read in the variant: herd7
/// without it rejects the test ("Illegal mixed-size test"), and with it
/// an access is a set of byte accesses — plain, acquire and release ones
/// are modelled per byte, exclusive and atomic ones are refused there
/// with a located error (a narrow atomic read outside the variant would
/// write its truncated value over the whole location).
fn has_mixed_access(t: &Thread, vars: &Vars, typed: &BTreeMap<String, u32>) -> bool {
    let Some(fixed) = &vars.fixed else {
        return false;
    };
    let known = Known::new(t);
    vars.accesses.iter().any(|a| {
        // An address computed from values read: the variant's value sets
        // find the locations it may fall in (`resolve_targets`) and what
        // herd refuses there (`refusals`).
        let Some(x) = known.address(t, &a.addr, a.span) else {
            return true;
        };
        // An address inside no location (a register offset past a
        // scalar: `STR W0,[X2,X3]` with X3 = 4) addresses bytes of
        // herd's mixed-size memory, never another cell of ours.
        let Some((name, _)) = fixed.iter().find(|(n, &v)| v <= x && x < v + vars.size(n)) else {
            return vars.code.position(x).is_none();
        };
        let decl = match vars.arrays.get(name) {
            Some(&(_, b)) => b * 8,
            None => typed
                .get(&format!("[{name}]"))
                .or_else(|| typed.get(name.as_str()))
                .copied()
                .unwrap_or(32),
        };
        a.bits != decl
    })
}

/// Finds the location each of thread `t`'s memory accesses
/// ([`Vars::accesses`], recorded by the AArch64 lowering) addresses, in a
/// test of herd's mixed-size variant (`Variant=mixed`), where memory is
/// byte-addressed and an access a set of byte accesses; the result goes to
/// [`Vars::targets`] for [`plan_bytes`]. The location an access addresses is
/// the value of its address when that is known statically
/// ([`Known`]: a constant propagation over the thread, with herd's
/// dependency zeros such as `EOR W4,W0,W0`). An address not known so
/// (a register offset computed from a value read: `LDR W2,[X1,W4,SXTW]`)
/// is recorded without a location; [`resolve_targets`] then finds the
/// locations it may address from the test's value sets. (Outside the
/// variant herd's memory is one cell per location, and no check is
/// needed.)
fn check_sizes(
    t: &Thread,
    ti: usize,
    vars: &mut Vars,
    typed: &BTreeMap<String, u32>,
) -> Result<(), Error> {
    let accesses = std::mem::take(&mut vars.accesses);
    let Some(fixed) = &vars.fixed else {
        return Ok(());
    };
    let decl = |name: &str| decl_bits(vars, typed, name);
    let known = Known::new(t);
    let mut found = Vec::new();
    for a in accesses {
        let target = known.address(t, &a.addr, a.span).and_then(|x| {
            fixed
                .iter()
                .find(|(n, &v)| v <= x && x < v + vars.size(n))
                .map(|(n, &v)| (n.clone(), x - v))
        });
        let Some((name, offset)) = target else {
            // Resolved from the test's value sets once every thread is
            // lowered (`resolve_targets`).
            found.push(super::ctx::Target {
                thread: ti,
                access: a,
                name: String::new(),
                offset: 0,
                decl: 0,
            });
            continue;
        };
        let d = decl(&name);
        found.push(super::ctx::Target {
            thread: ti,
            access: a,
            name,
            offset,
            decl: d,
        });
    }
    vars.targets.extend(found);
    Ok(())
}

/// The declared bits of location `name` in a `Variant=mixed` test: its
/// init block type (`uint16_t x` 16, an array's element type), else its
/// scalar bytes, else herd's `int` (32).
fn decl_bits(vars: &Vars, typed: &BTreeMap<String, u32>, name: &str) -> u32 {
    typed
        .get(&format!("[{name}]"))
        .or_else(|| typed.get(name))
        .copied()
        .or_else(|| vars.scalar_bytes.get(name).map(|b| *b as u32 * 8))
        .unwrap_or(32)
}

/// Resolves the accesses of a `Variant=mixed` test whose address is not
/// known statically ([`check_sizes`] records them without a location):
/// herd evaluates such an address per candidate execution, so the access
/// addresses, in each, the location its value falls in. The value sets of
/// the test ([`ValueSets`]: every value each register may hold, from the
/// bytes the init block and the stores may put in memory) give a superset
/// of those addresses; the access is recorded once per location it may
/// address ([`Vars::targets`]), and [`plan_bytes`] makes all of them byte
/// cells when one is (an instruction is lowered as byte accesses or not
/// as a whole), so the access reads or writes the bytes at its address
/// in every execution, as herd's. Runs on the second lowering pass only
/// (its accesses are whole accesses). An address whose value set is not
/// finite, or that may fall outside every location, stays without a
/// location: in a test with 8- or 16-bit accesses or locations that is a
/// located "unsupported … (byte/half-access: mixed-size accesses)" error
/// here, in another an error only if some location becomes byte cells
/// ([`plan_bytes`]).
fn resolve_targets(
    src: &SourceFile,
    p: &Program,
    vars: &mut Vars,
    width: Width,
    typed: &BTreeMap<String, u32>,
) -> Result<(), Error> {
    if !vars.mixed || !vars.split.is_empty() || !vars.targets.iter().any(|t| t.name.is_empty()) {
        return Ok(());
    }
    let Some(fixed) = vars.fixed.clone() else {
        return Ok(());
    };
    let mem = initial_bytes(p, vars, &fixed);
    let targets = vars.targets.clone();
    let bytes = |ti: usize, sp: Span| access_bits(&targets, ti, sp).map(|b| i64::from(b / 8));
    let sets = ValueSets::new(p, mem, width, &bytes);
    let narrow = fixed.keys().any(|n| decl_bits(vars, typed, n) < 32)
        || targets.iter().any(|t| t.access.bits < 32);
    let mut out = Vec::new();
    for t in targets {
        if !t.name.is_empty() {
            out.push(t);
            continue;
        }
        let addrs = p
            .threads
            .get(t.thread)
            .and_then(|th| sets.at_access(th, t.thread, &t.access.addr, t.access.span));
        let located: Option<Vec<(String, i64)>> = addrs.as_ref().and_then(|xs| {
            xs.iter()
                .map(|&x| {
                    fixed
                        .iter()
                        .find(|(n, &v)| v <= x && x < v + vars.size(n))
                        .map(|(n, &v)| (n.clone(), x - v))
                })
                .collect()
        });
        // A possible value that herd would reject (misaligned, or across
        // the location's end) may belong to no execution: refused, as the
        // value sets over-approximate.
        let bad = located.as_ref().and_then(|ps| {
            ps.iter().find(|(n, off)| {
                let b = i64::from(t.access.bits / 8);
                t.access.bits % 8 != 0 || off + b > vars.size(n) || (b > 1 && off % b != 0)
            })
        });
        if let (Some((name, off)), true) = (bad, narrow) {
            return Err(src.error_help(
                t.access.span,
                format!(
                    "unsupported {}-bit access at an address computed from values read: it may be byte {off} of `{name}`, not aligned to its size or across the location's end (mixed-size: addresses from values read)",
                    t.access.bits
                ),
                "the locations such an access may address are found from the values the test's loads can read (a superset); herd7 rejects a misaligned access; see docs/litmus.md",
            ));
        }
        match located {
            Some(places) if !places.is_empty() && bad.is_none() => {
                for (name, offset) in places {
                    let decl = decl_bits(vars, typed, &name);
                    out.push(super::ctx::Target {
                        name,
                        offset,
                        decl,
                        ..t.clone()
                    });
                }
            }
            _ if narrow => {
                return Err(src.error_help(
                    t.access.span,
                    format!(
                        "unsupported {}-bit access to an address not known statically in a test with byte or half-word accesses (byte/half-access: mixed-size accesses)",
                        t.access.bits
                    ),
                    "an address computed from values read is modelled when the values the test's loads can read give it finitely many values, each inside a location; see docs/litmus.md",
                ));
            }
            _ => out.push(t),
        }
    }
    vars.targets = out;
    Ok(())
}

/// Chooses the byte-addressed locations of a `Variant=mixed` test from
/// [`Vars::targets`] (herd's mixed-size variant; Flur et al., "Mixed-size
/// concurrency: ARM, POWER, C/C++11, and SC", POPL 2017): a location
/// accessed at a size other than its own (a word store to a byte array,
/// a byte load of an `int`) becomes byte cells ([`Vars::split`]), and
/// every access to it a sequence of byte accesses
/// ([`Vars::split_spans`]; `ops::byte_load`, `ops::byte_store`), each
/// byte with its own rf and co; the bytes of one access are one
/// instruction's events, related by the base relation `si`
/// (`program::Ann::SI`), over which the model lifts its orders (herd's
/// `sca-class`). Returns false when there is none.
///
/// Plain, acquire and release loads and stores, the LSE atomics
/// (`SWP`, `CAS`, `LD<op>`: a read and a write of bytes, rmw per byte)
/// and the exclusives (`LDXR`/`STXR`: a reservation of the load's bytes,
/// the store's bytes written together when it succeeds) inside the
/// location are modelled. A location
/// accessed by two threads needs a model that reads `si` (the located
/// error [`Vars::shared_bytes`] is reported under another). Otherwise a
/// located "unsupported … (mixed-size: …)" error names what is not
/// modelled: an ordered pair (`STILP`/`LDIAPP`) to it, an access
/// crossing its end, a misaligned access (herd rejects
/// it). Acquire and release accesses annotate every byte.
fn plan_bytes(src: &SourceFile, vars: &mut Vars) -> Result<bool, Error> {
    let elem = |t: &super::ctx::Target| i64::from(t.decl / 8).max(1);
    for t in vars.targets.iter().filter(|t| !t.name.is_empty()) {
        let a = &t.access;
        let size = vars.size(&t.name);
        if a.bits % 8 != 0 || t.offset + i64::from(a.bits / 8) > size {
            return Err(src.error_help(
                a.span,
                format!(
                    "unsupported {}-bit access at byte {} of `{}`, a location of {size} bytes: it crosses the location's end (mixed-size: accesses across locations)",
                    a.bits, t.offset, t.name
                ),
                "see docs/litmus.md",
            ));
        }
        // herd's mixed-size variant rejects a misaligned access ("Unaligned
        // or out-of-bound access", a user error) unless its `unaligned`
        // variant is on.
        if a.bits > 8 && t.offset % i64::from(a.bits / 8) != 0 {
            return Err(src.error_help(
                a.span,
                format!(
                    "unsupported {}-bit access at byte {} of `{}`: not aligned to its size (mixed-size: unaligned accesses)",
                    a.bits, t.offset, t.name
                ),
                "herd7 -variant mixed rejects it too (\"Unaligned or out-of-bound access\"); see docs/litmus.md",
            ));
        }
    }
    let mut split: BTreeSet<String> = vars
        .targets
        .iter()
        .filter(|t| !t.name.is_empty() && (t.access.bits != t.decl || t.offset % elem(t) != 0))
        .map(|t| t.name.clone())
        .collect();
    // An instruction of two accesses (LDP/STP) is lowered as byte
    // accesses or not as a whole: a location it accesses with a split
    // one is split too.
    loop {
        let span_of = |t: &super::ctx::Target| (t.access.span.start, t.access.span.end);
        let spans: BTreeSet<(usize, usize)> = vars
            .targets
            .iter()
            .filter(|t| split.contains(&t.name))
            .map(span_of)
            .collect();
        let more: Vec<String> = vars
            .targets
            .iter()
            .filter(|t| !t.name.is_empty() && !split.contains(&t.name))
            .filter(|t| spans.contains(&span_of(t)))
            .map(|t| t.name.clone())
            .collect();
        if more.is_empty() {
            break;
        }
        split.extend(more);
    }
    if split.is_empty() {
        return Ok(false);
    }
    if let Some(t) = vars.targets.iter().find(|t| t.name.is_empty()) {
        return Err(src.error_help(
            t.access.span,
            format!(
                "unsupported {}-bit access to an address not known statically in a test with mixed-size accesses (byte/half-access: mixed-size accesses)",
                t.access.bits
            ),
            "in a `Variant=mixed` test every access must address a location known statically (a register set in the init block, plus an offset); see docs/litmus.md",
        ));
    }
    let mut owner: BTreeMap<&str, usize> = BTreeMap::new();
    for t in vars.targets.iter().filter(|t| split.contains(&t.name)) {
        let a = &t.access;
        if !a.plain && !a.ordered && !a.atomic && !a.exclusive {
            return Err(src.error_help(
                a.span,
                format!(
                    "unsupported paired access to `{}`, a location accessed at several sizes (mixed-size: STILP/LDIAPP at byte-addressed locations)",
                    t.name
                ),
                "in a `Variant=mixed` test only LDR/STR, LDAR/LDAPR/STLR, LDXR/STXR, SWP, CAS and LD<op>/ST<op> (and their byte, half-word and sign-extending forms) may access a location at a size other than its own; see docs/litmus.md",
            ));
        }
        let first = *owner.entry(&t.name).or_insert(t.thread);
        if first != t.thread && vars.shared_bytes.is_none() {
            vars.shared_bytes = Some(src.error_help(
                a.span,
                format!(
                    "unsupported access to `{}` by thread P{}: a location accessed at several sizes is accessed by P{first} too, under a model without `si` (mixed-size: byte-addressed locations shared between threads)",
                    t.name, t.thread
                ),
                "herd's single-copy atomicity of an access's bytes is the model's: a model that reads `si` (same instruction; `--model arm`) answers it; see docs/litmus.md",
            ));
        }
    }
    for name in &split {
        let entry = match vars.arrays.get(name) {
            Some(&(n, b)) => (n as i64 * i64::from(b), b),
            None => {
                let d = vars
                    .targets
                    .iter()
                    .find(|t| &t.name == name)
                    .map_or(32, |t| t.decl);
                (i64::from(d / 8), d / 8)
            }
        };
        vars.split.insert(name.clone(), entry);
    }
    vars.split_spans = vars
        .targets
        .iter()
        .filter(|t| split.contains(&t.name))
        .map(|t| (t.access.span.start, t.access.span.end))
        .collect();
    Ok(true)
}
