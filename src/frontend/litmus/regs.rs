//! herd's register names per architecture: how a register is written in
//! states and conditions ([`norm_reg`]: `EAX`, `rax`, `r1`), the X86_64
//! aliases of a 64-bit register ([`x64_reg`]: `eax`, `ax`, `al` are
//! `rax`), and herd's order of registers within a thread ([`reg_rank`]),
//! which orders the observed locations as herd prints them.
//!
//! The register files are those of the architecture manuals: Intel® 64 and
//! IA-32 Architectures Software Developer's Manual, Vol. 1, "General-Purpose
//! Registers" (with "General-Purpose Registers in 64-Bit Mode" for `r8`..
//! `r15` and the `eax`/`ax`/`al` sub-registers); Power ISA Version 3.0,
//! Book I, "General Purpose Registers" (`r0`..`r31`). herd's spellings and
//! order are those of its litmus test format and its output (herdtools7
//! documentation, <http://diy.inria.fr/doc/litmus.html>,
//! <http://diy.inria.fr/doc/herd.html>).

use crate::frontend::litmus::Arch;

/// The X86 (32-bit) general-purpose registers, in herd's order.
pub(super) const X86_REGS: [&str; 8] = ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP"];

/// The X86_64 registers (canonical 64-bit names), in herd's order.
const X86_64_REGS: [&str; 17] = [
    "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13",
    "r14", "r15", "rip",
];

/// Normalises a register name as herd prints it for `arch`.
pub(crate) fn norm_reg(arch: Arch, r: &str) -> String {
    match arch {
        Arch::X86 => r.to_ascii_uppercase(),
        Arch::Ppc => {
            if r.starts_with('%') {
                r.to_string()
            } else {
                r.to_ascii_lowercase()
            }
        }
        Arch::X86_64 => x64_reg(r.trim_start_matches('%'))
            .map(str::to_string)
            .unwrap_or_else(|| r.trim_start_matches('%').to_ascii_lowercase()),
        Arch::AArch64 => {
            // W and X views of one register print as X.
            let u = r.to_ascii_uppercase();
            match u.strip_prefix('W').and_then(|d| d.parse::<u32>().ok()) {
                Some(n) => format!("X{n}"),
                None if r.starts_with('%') => r.to_string(),
                None => u,
            }
        }
        Arch::RiscV => rv_reg(r).unwrap_or_else(|| r.to_string()),
        // C locals print as written.
        Arch::C => r.to_string(),
    }
}

/// The RISC-V register `xN` of an architectural (`x5`) or ABI (`t0`,
/// `a0`, `s1`, `zero`, …) name (RISC-V unprivileged ISA, "RISC-V Assembly
/// Programmer's Handbook", register ABI names).
pub(crate) fn rv_reg(r: &str) -> Option<String> {
    let l = r.to_ascii_lowercase();
    if let Some(n) = l.strip_prefix('x').and_then(|d| d.parse::<u32>().ok()) {
        return (n < 32).then(|| format!("x{n}"));
    }
    let num = |p: &str, base: u32, max: u32| -> Option<u32> {
        l.strip_prefix(p)
            .and_then(|d| d.parse::<u32>().ok())
            .filter(|k| *k <= max)
            .map(|k| base + k)
    };
    let n = match l.as_str() {
        "zero" => Some(0),
        "ra" => Some(1),
        "sp" => Some(2),
        "gp" => Some(3),
        "tp" => Some(4),
        "fp" => Some(8),
        _ => num("a", 10, 7)
            .or_else(|| num("t", 5, 2).filter(|_| l.len() == 2 && l.as_bytes()[1] <= b'2'))
            .or_else(|| {
                let k: u32 = l.strip_prefix('t')?.parse().ok()?;
                (3..=6).contains(&k).then_some(25 + k)
            })
            .or_else(|| {
                let k: u32 = l.strip_prefix('s')?.parse().ok()?;
                match k {
                    0 | 1 => Some(8 + k),
                    2..=11 => Some(16 + k),
                    _ => None,
                }
            }),
    }?;
    Some(format!("x{n}"))
}

/// herd's order of registers within a thread (smaller first); unknown
/// registers come after, by name.
pub(super) fn reg_rank(arch: Arch, r: &str) -> (usize, String) {
    let table: &[&str] = match arch {
        Arch::X86 => &X86_REGS,
        Arch::X86_64 => &X86_64_REGS,
        Arch::Ppc | Arch::AArch64 | Arch::RiscV | Arch::C => &[],
    };
    if let Some(i) = table.iter().position(|x| *x == r) {
        return (i, String::new());
    }
    let prefix = match arch {
        Arch::Ppc => Some('r'),
        Arch::AArch64 => Some('X'),
        Arch::RiscV => Some('x'),
        _ => None,
    };
    // herd prints Arm's zero register before X0.
    if arch == Arch::AArch64 && (r == "XZR" || r == "WZR") {
        return (0, String::new());
    }
    if let Some(p) = prefix {
        if let Some(n) = r.strip_prefix(p).and_then(|d| d.parse::<usize>().ok()) {
            return (n + usize::from(arch == Arch::AArch64), String::new());
        }
    }
    (1000, r.to_string())
}

/// Canonical 64-bit name of an X86_64 register (`eax` → `rax`).
pub(super) fn x64_reg(r: &str) -> Option<&'static str> {
    let r = r.to_ascii_lowercase();
    const LEGACY: [(&str, [&str; 4]); 8] = [
        ("rax", ["rax", "eax", "ax", "al"]),
        ("rbx", ["rbx", "ebx", "bx", "bl"]),
        ("rcx", ["rcx", "ecx", "cx", "cl"]),
        ("rdx", ["rdx", "edx", "dx", "dl"]),
        ("rsi", ["rsi", "esi", "si", "sil"]),
        ("rdi", ["rdi", "edi", "di", "dil"]),
        ("rbp", ["rbp", "ebp", "bp", "bpl"]),
        ("rsp", ["rsp", "esp", "sp", "spl"]),
    ];
    for (canon, forms) in LEGACY {
        if forms.contains(&r.as_str()) {
            return Some(canon);
        }
    }
    const NEW: [&str; 9] = ["r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"];
    for c in NEW {
        if r == c {
            return Some(c);
        }
        if let Some(s) = r.strip_prefix(c) {
            if c != "rip" && ["d", "w", "b"].contains(&s) {
                return Some(c);
            }
        }
    }
    None
}
