//! What herd7 refuses in a test that only the test's values reveal: a
//! store to a code address without instruction fetch, and a narrow (8-,
//! 16- or 32-bit) load or store of an address value. Each is found from
//! the value sets of the test ([`ValueSets`]), a superset of the values
//! herd's candidate executions give, so it refuses at least what herd
//! refuses (and may refuse a test where only an impossible path makes
//! the access); code a thread never reaches is not checked.

use super::ctx::{access_bits, Vars};
use super::values::{initial_bytes, Set, ValueSets};
use crate::diag::{Error, SourceFile, Span};
use crate::program::{Command, LExpr, Program, Width};

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
/// Errors: the first such access, located at its instruction.
pub(super) fn refuse_by_values(
    src: &SourceFile,
    p: &Program,
    vars: &Vars,
    width: Width,
    ifetch: bool,
) -> Result<(), Error> {
    let code_check = !ifetch && vars.code.enabled;
    let mixed_check = vars.mixed && vars.split.is_empty();
    if !code_check && !mixed_check {
        return Ok(());
    }
    let Some(fixed) = vars.fixed.as_ref() else {
        return Ok(());
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
    for (ti, th) in p.threads.iter().enumerate() {
        for ins in &th.instrs {
            for acc in accesses(&ins.cmd) {
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
                if !mixed_check {
                    continue;
                }
                let Some(b) = bits(ti, ins.span).filter(|&b| b < 64) else {
                    continue;
                };
                let (what, values): (&str, Set) = match &acc.stored {
                    Some(v) => ("store", sets.at_access(th, ti, v, ins.span)),
                    None => ("load", sets.loaded(&addrs, i64::from(b / 8))),
                };
                if let Some(name) = values.iter().flatten().find_map(|&v| location(v)) {
                    return Err(src.error_help(
                        ins.span,
                        format!("{b}-bit {what} of a value that may be the address of `{name}`: an address is a 64-bit value (narrow access to an address)"),
                        format!("herd7 refuses the test too (\"Illegal operation mask{b}\"); see docs/litmus.md"),
                    ));
                }
            }
        }
    }
    Ok(())
}
