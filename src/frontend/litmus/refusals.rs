//! What herd7 refuses in a test that only the test's values reveal: a
//! store to a code address without instruction fetch, and a narrow (8-,
//! 16- or 32-bit) load or store of an address value. Each is found from
//! the value sets of the test ([`ValueSets`]), a superset of the values
//! herd's candidate executions give, so it refuses at least what herd
//! refuses (and may refuse a test where only an impossible path makes
//! the access); code a thread never reaches is not checked. It also
//! finds the accesses whose address may be an integer (herd: "Non
//! symbolic address"), which the run probes under the model.

use super::ctx::{access_bits, Vars};
use super::test::AddressProbe;
use super::values::{initial_bytes, Set, ValueSets};
use crate::diag::{Error, SourceFile, Span};
use crate::program::{Command, Expr, LExpr, Program, Width};

/// A memory access of an instruction: its address, and for a store the
/// value written.
struct Access {
    addr: LExpr,
    stored: Option<LExpr>,
}

/// The accesses of `cmd` (nested atomic and annotated commands
/// included).
fn accesses(cmd: &Command) -> Vec<Access> {
    let mut out = Vec::new();
    cmd.for_each(&mut |c| match c {
        Command::Load { addr, .. } | Command::LoadReserve { addr, .. } => out.push(Access {
            addr: addr.clone(),
            stored: None,
        }),
        Command::Store { addr, value } | Command::StoreCond { addr, value, .. } => {
            out.push(Access {
                addr: addr.clone(),
                stored: Some(value.clone()),
            })
        }
        _ => {}
    });
    out
}

/// Refuses what herd7 refuses and the test's value sets show (second
/// lowering pass; `ifetch`: the test has `Variant=ifetch`):
/// * without `ifetch`, a store that may write to a code address
///   (self-modifying code; herd7 wants `-variant self`); an address of
///   unknown value in a test with code addresses is refused too;
/// * in a test read in herd's mixed-size variant (AArch64 tests with
///   accesses of other sizes than their locations' or with addresses
///   computed from values read), on the pass whose accesses are whole
///   (before any location becomes byte cells): an access narrower than
///   64 bits that may load or store the address of a location (herd:
///   "Illegal operation mask32").
///
/// Returns the probes of the accesses whose address may be an integer
/// (a value below every location's, in a test without code addresses):
/// whether one is made depends on the model (herd7 answers a test whose
/// only such access is in executions its model forbids), so the run
/// decides ([`AddressProbe`]).
///
/// Errors: the first access refused, located at its instruction.
pub(super) fn refuse_by_values(
    src: &SourceFile,
    p: &Program,
    vars: &Vars,
    width: Width,
    ifetch: bool,
) -> Result<Vec<AddressProbe>, Error> {
    let code_check = !ifetch && vars.code.enabled;
    let mixed_check = vars.mixed && vars.split.is_empty();
    let Some(fixed) = vars.fixed.as_ref() else {
        return Ok(Vec::new());
    };
    let bits = |ti: usize, sp: Span| access_bits(&vars.targets, ti, sp);
    let bytes = |ti: usize, sp: Span| bits(ti, sp).map(|b| i64::from(b / 8));
    let mut sets: Option<ValueSets> = None;
    // The location whose address range holds `v`.
    let location = |v: i64| {
        fixed
            .iter()
            .find(|(n, &a)| a <= v && v < a + vars.size(n))
            .map(|(n, _)| n.as_str())
    };
    let lowest = fixed.values().copied().min().unwrap_or(i64::MAX);
    let mut probes = Vec::new();
    for (ti, th) in p.threads.iter().enumerate() {
        for ins in &th.instrs {
            for acc in accesses(&ins.cmd) {
                // A constant address at or above every location's, not a
                // code address: no check below can refuse or probe it, so
                // a test of such accesses only (X86's `[x]`) builds no
                // value sets.
                if let Expr::Const(c) = &acc.addr {
                    let code_store =
                        code_check && acc.stored.is_some() && vars.code.position(*c).is_some();
                    if !mixed_check && *c >= lowest && !code_store {
                        continue;
                    }
                }
                let sets = sets.get_or_insert_with(|| {
                    ValueSets::new(p, initial_bytes(p, vars, fixed), width, &bytes)
                });
                if !sets.reaches(th, ti, ins.span) {
                    continue;
                }
                let addrs = sets.at_access(th, ti, &acc.addr, ins.span);
                if code_check && acc.stored.is_some() {
                    let may = match &addrs {
                        Some(xs) => xs.iter().any(|a| vars.code.position(*a).is_some()),
                        None => true,
                    };
                    if may {
                        return Err(src.error(
                            ins.span,
                            "store to a code address (self-modifying code) in a test without `Variant=ifetch`: herd7 refuses it too unless run with `-variant self` (instruction fetch)",
                        ));
                    }
                }
                // Every location's address lies above every constant of
                // the test: a smaller address is an integer.
                if !vars.code.enabled && addrs.iter().flatten().any(|&a| a < lowest) {
                    probes.push(AddressProbe::below(ti, ins, &acc.addr, lowest));
                }
                if !mixed_check {
                    continue;
                }
                let Some(b) = bits(ti, ins.span).filter(|&b| b < 64) else {
                    continue;
                };
                // A narrow load of an address, a narrow store of one, and a
                // narrow store over one (herd merges the stored bytes into
                // the location's old value, which masks the address).
                // Only addresses inside a location: the analysis' value
                // sets over-approximate, and an address outside every
                // location is no location's value.
                let inside: Set = addrs.as_ref().map(|xs| {
                    xs.iter()
                        .copied()
                        .filter(|&a| location(a).is_some())
                        .collect()
                });
                let cell = sets.loaded(&inside, i64::from(b / 8));
                let stored = acc
                    .stored
                    .as_ref()
                    .map(|v| sets.at_access(th, ti, v, ins.span));
                let address_in = |s: &Set| s.iter().flatten().find_map(|&v| location(v));
                let found = match &stored {
                    Some(v) => address_in(v)
                        .map(|n| format!("store of a value that may be the address of `{n}`"))
                        .or_else(|| {
                            address_in(&cell).map(|n| {
                                format!("store over a value that may be the address of `{n}`")
                            })
                        }),
                    None => address_in(&cell)
                        .map(|n| format!("load of a value that may be the address of `{n}`")),
                };
                if let Some(what) = found {
                    return Err(src.error_help(
                        ins.span,
                        format!("{b}-bit {what}: an address is a 64-bit value (narrow access to an address)"),
                        format!("herd7 refuses the test too (\"Illegal operation mask{b}\"); see docs/litmus.md"),
                    ));
                }
            }
        }
    }
    Ok(probes)
}
