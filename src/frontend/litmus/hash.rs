//! herd's hash of a litmus test, the `Hash=` line of herd7 logs (herd's
//! `mcompare7` uses it to tell whether two logs ran the same test).
//!
//! herdtools7 (`lib/testHash.ml`, applied in `lib/genParser.ml`) computes
//! it as `hex(MD5(D_info ++ D_init ++ D_code ++ D_observed))`, each `D_` a
//! raw 16-byte MD5 digest of a normalised text:
//!
//! * info: empty for tests without `MemoryType`/`MT` metadata (all X86
//!   and PPC tests), and then not part of the concatenation;
//! * init: the init items sorted by location (registers by thread then
//!   name, before memory by name), duplicates dropped, each printed
//!   `loc=value` (`TYPE loc=value` when typed, `TYPE *loc=value` for a
//!   pointer; an untyped item whose value is an instruction is typed
//!   `ins_t`), joined by `"; "`;
//! * code: the thread columns as herd prints a program — per line, each
//!   column's entry padded to the column's width as `" %-*s "`, columns
//!   joined by `|`, each line ending in `";\n"`; an entry is an
//!   instruction in herd's printed form or a label `Lnn:`, labels being
//!   renamed `L00`, `L01`, … in the order of their names;
//! * observed: the locations of `locations [...]` and of the final
//!   condition, sorted and deduplicated as in the init, joined by `"; "`.
//!
//! A test whose metadata already has a `Hash=` keeps it (herd does the
//! same). This is our own code, written from the description above.

use super::syntax::{self, RawLoc, Surface};
use crate::diag::{Error, SourceFile};
use md5::{Digest, Md5};
use std::collections::{BTreeMap, BTreeSet};

/// A location as herd orders them: registers (thread, name) before
/// memory (name), the names compared as strings.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Reg(usize, String),
    Sym(String),
    Mem(String),
}

impl Key {
    fn of(l: &RawLoc) -> Key {
        match l {
            RawLoc::Reg { thread, reg } => Key::Reg(*thread, reg.clone()),
            RawLoc::Mem(m) => Key::Mem(m.clone()),
        }
    }

    fn dump(&self) -> String {
        match self {
            Key::Reg(t, r) => format!("{t}:{r}"),
            Key::Sym(s) | Key::Mem(s) => s.clone(),
        }
    }
}

/// herd's hash of the test in `src` (32 lowercase hex digits).
///
/// Errors: the surface syntax errors of the test (located).
pub fn herd_hash(src: &SourceFile) -> Result<String, Error> {
    let s = syntax::parse_surface(src)?;
    if let Some((_, h)) = s
        .metadata
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("Hash"))
    {
        return Ok(h.clone());
    }
    let parts = hash_texts(src, &s);
    let mut all = Vec::with_capacity(48);
    for p in &parts {
        all.extend_from_slice(&Md5::digest(p.as_bytes()));
    }
    Ok(hex(&Md5::digest(&all)))
}

/// The three texts herd digests: init, code, observed locations.
fn hash_texts(src: &SourceFile, s: &Surface) -> [String; 3] {
    [init_text(src, s), code_text(s), observed_text(s)]
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The init items, sorted by location, first of each location kept.
fn init_text(src: &SourceFile, s: &Surface) -> String {
    let mut items: BTreeMap<Key, String> = BTreeMap::new();
    for it in &s.init {
        let text = src.text.get(it.span.start..it.span.end).unwrap_or("");
        let (lhs, rhs) = match text.split_once('=') {
            Some((l, r)) => (l.trim(), r.trim()),
            None => (text.trim(), "0"),
        };
        let words: Vec<&str> = lhs.split_whitespace().collect();
        let Some(last) = words.last() else { continue };
        let mut ty = words[..words.len() - 1].join(" ");
        // An instruction value types its location `ins_t`.
        if ty.is_empty() && matches!(it.rhs, Some((syntax::RawVal::Instr(_), _))) {
            ty = "ins_t".to_string();
        }
        let pointer = last.starts_with('*');
        let key = match &it.lhs {
            syntax::InitLhs::Reg { thread, reg } => Key::Reg(*thread, reg.clone()),
            // herd prints a symbolic register `%r` of the init as `r`.
            syntax::InitLhs::SymReg(r) => Key::Sym(r.trim_start_matches('%').to_string()),
            syntax::InitLhs::Mem(m) => Key::Mem(m.clone()),
        };
        let value = rhs.trim_start_matches('&').trim();
        let loc = key.dump();
        let line = match (ty.is_empty(), pointer) {
            (true, false) => format!("{loc}={value}"),
            (true, true) => format!("*{loc}={value}"),
            (false, false) => format!("{ty} {loc}={value}"),
            (false, true) => format!("{ty} *{loc}={value}"),
        };
        items.entry(key).or_insert(line);
    }
    items.into_values().collect::<Vec<_>>().join("; ")
}

/// The locations of `locations` and of the condition.
fn observed_text(s: &Surface) -> String {
    let mut locs: BTreeSet<Key> = s.locations.iter().map(|(l, _, _)| Key::of(l)).collect();
    s.prop.for_each_atom(&mut |loc, _, _, _| {
        locs.insert(Key::of(loc));
    });
    locs.iter().map(Key::dump).collect::<Vec<_>>().join("; ")
}

/// The code as herd prints it for the hash.
fn code_text(s: &Surface) -> String {
    let syntax = if s.arch.eq_ignore_ascii_case("PPC") {
        Syntax::Ppc
    } else if s.arch.eq_ignore_ascii_case("X86_64") {
        Syntax::Att
    } else {
        Syntax::Intel
    };
    let names: BTreeSet<&str> = (s.threads.iter().flatten())
        .flat_map(|c| c.labels.iter().map(|(l, _)| l.as_str()))
        .collect();
    let renamed: BTreeMap<&str, String> = (names.iter().enumerate())
        .map(|(i, l)| (*l, format!("L{i:02}")))
        .collect();
    let columns: Vec<Vec<String>> = (s.threads.iter())
        .map(|cells| {
            let mut col = Vec::new();
            for c in cells {
                for (l, _) in &c.labels {
                    col.push(format!("{}:", renamed[l.as_str()]));
                }
                if let Some((i, _)) = &c.instr {
                    col.push(instruction(i, syntax, &renamed));
                }
            }
            col
        })
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .map(|c| c.iter().map(|x| x.chars().count()).max().unwrap_or(0))
        .collect();
    let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = String::new();
    for r in 0..rows {
        let cells: Vec<String> = (columns.iter().zip(&widths))
            .map(|(c, w)| format!(" {:<w$} ", c.get(r).map(String::as_str).unwrap_or("")))
            .collect();
        out.push_str(&cells.join("|"));
        out.push_str(";\n");
    }
    out
}

/// How an architecture's instructions print.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Syntax {
    /// X86: Intel syntax, upper-case mnemonics and registers, `$` before
    /// immediates.
    Intel,
    /// X86_64: AT&T syntax, lower case, operands as written.
    Att,
    /// PPC.
    Ppc,
}

/// One instruction in herd's printed form: the mnemonic (upper case for
/// X86, lower case for X86_64 and PPC, 64-bit PPC forms mapped to their
/// 32-bit twins as herd normalises them), a space, the operands without
/// blanks separated by `,`; labels renamed.
fn instruction(text: &str, syntax: Syntax, labels: &BTreeMap<&str, String>) -> String {
    let ppc = syntax == Syntax::Ppc;
    let t = text.trim();
    let (mn, rest) = t
        .split_once(char::is_whitespace)
        .map(|(m, r)| (m, r.trim()))
        .unwrap_or((t, ""));
    let mn = match syntax {
        Syntax::Ppc => {
            let m = mn.to_ascii_lowercase();
            ppc_32(&m).unwrap_or(&m).to_string()
        }
        Syntax::Att => mn.to_ascii_lowercase(),
        Syntax::Intel => mn.to_ascii_uppercase(),
    };
    if rest.is_empty() {
        return mn;
    }
    let mut ops: Vec<String> = rest
        .split(',')
        .map(|o| {
            let o: String = o.split_whitespace().collect();
            match labels.get(o.as_str()) {
                Some(l) => l.clone(),
                None if syntax == Syntax::Intel => x86_operand(o),
                None => o,
            }
        })
        .collect();
    // `stw r1,0,r2` is read as `stw r1,0(r2)` and printed so.
    const D_FORM: [&str; 10] = [
        "lwz", "stw", "lbz", "stb", "lhz", "sth", "lwa", "ld", "std", "lha",
    ];
    if ppc && ops.len() == 3 && D_FORM.contains(&mn.as_str()) {
        let ra = ops.pop().unwrap_or_default();
        let d = ops.pop().unwrap_or_default();
        ops.push(format!("{d}({ra})"));
    }
    // herd prints a conditional branch with two spaces (`bne  L00`).
    let sep = if ppc && ["beq", "bne", "blt", "bgt", "ble", "bge"].contains(&mn.as_str()) {
        "  "
    } else {
        " "
    };
    format!("{mn}{sep}{}", ops.join(","))
}

/// An X86 operand as herd prints it: immediates with `$`, registers in
/// upper case.
fn x86_operand(o: String) -> String {
    const REGS: [&str; 8] = ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "ESP", "EBP"];
    if crate::frontend::litmus::parse_int(&o).is_some() {
        return format!("${o}");
    }
    let up = o.to_ascii_uppercase();
    if REGS.contains(&up.as_str()) {
        return up;
    }
    o
}

/// herd's normalisation of 64-bit Power instructions to 32-bit ones.
fn ppc_32(m: &str) -> Option<&'static str> {
    Some(match m {
        "ld" => "lwz",
        "ldx" => "lwzx",
        "std" => "stw",
        "stdx" => "stwx",
        "cmpd" => "cmpw",
        "cmpdi" => "cmpwi",
        "hwsync" => "sync",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sb_hash_is_herds() {
        // herd7's log line for diycross' SB: Hash=edd4722437d708675ed921e7607e77f0.
        let text = "X86 SB\n{\n}\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";
        let src = SourceFile::new("SB.litmus", text);
        assert_eq!(herd_hash(&src).unwrap(), "edd4722437d708675ed921e7607e77f0");
        let s = syntax::parse_surface(&src).unwrap();
        let [init, code, obs] = hash_texts(&src, &s);
        assert_eq!(init, "");
        assert_eq!(
            code,
            " MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\n"
        );
        assert_eq!(obs, "0:EAX; 1:EAX");
    }
}
