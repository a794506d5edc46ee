#!/usr/bin/env python3
"""Writes RISC-V litmus tests (herd syntax) of dependencies into and out of
an AMO, for bench/herd_diff.py: herd's generators cannot build them (an AMO
is one event in herd's RISC-V semantics, a cycle through it has no diy
edge). Each test is MP- or LB-shaped: thread 1 reads y, has a dependency
(data, address, control or none) into an AMO on z (swap, add, or; plain,
.aq, .rl, .aqrl), then a dependency (address, data, control or none) from
the AMO's result to an access of x.

Usage: bench/gen_riscv_amo.py OUTDIR
"""
import itertools, os, sys

OPS = ["amoswap.w", "amoadd.w", "amoor.w"]
ANNS = ["", ".aq", ".rl", ".aqrl"]
DEP_IN = ["none", "data", "addr", "ctrl"]
DEP_OUT = ["none", "data", "addr", "ctrl"]
SHAPES = ["MP", "LB"]


def dep_in(kind):
    """Instructions from x5 (value read) to the AMO's operands (x1 value, x3 address)."""
    if kind == "data":
        return ["xor x1,x5,x5", "ori x1,x1,1"], "x3"
    if kind == "addr":
        return ["xor x4,x5,x5", "add x4,x3,x4", "ori x1,x0,1"], "x4"
    if kind == "ctrl":
        return ["bne x5,x0,LC00", "LC00:", "ori x1,x0,1"], "x3"
    return ["ori x1,x0,1"], "x3"


def dep_out(kind, store):
    """Instructions from x2 (the AMO's result) to the access of x (x8)."""
    if kind == "addr":
        pre, base = ["xor x7,x2,x2", "add x9,x8,x7"], "x9"
    elif kind == "ctrl":
        pre, base = ["bne x2,x0,LC01", "LC01:"], "x8"
    else:
        pre, base = [], "x8"
    if store:
        if kind == "data":
            return pre + ["xor x10,x2,x2", "ori x10,x10,1", f"sw x10,0({base})"]
        return pre + ["ori x10,x0,1", f"sw x10,0({base})"]
    if kind == "data":
        return None  # no data dependency into a load
    return pre + [f"lw x10,0({base})"]


def test(shape, di, op, ann, do):
    store = shape == "LB"
    out = dep_out(do, store)
    if out is None:
        return None
    ins, addr = dep_in(di)
    p1 = ["lw x5,0(x6)"] + ins + [f"{op}{ann} x2,x1,({addr})"] + out
    if shape == "MP":
        p0 = ["ori x5,x0,1", "sw x5,0(x8)", "fence rw,rw", "ori x7,x0,1", "sw x7,0(x6)"]
        cond = "exists (1:x5=1 /\\ 1:x10=0)"
    else:
        p0 = ["lw x5,0(x8)", "fence rw,rw", "ori x7,x0,1", "sw x7,0(x6)"]
        cond = "exists (0:x5=1 /\\ 1:x5=1)"
    name = f"{shape}+fence+{di}-{op.replace('.', '')}{ann.replace('.', '')}-{do}"
    n = max(len(p0), len(p1))
    p0 += [""] * (n - len(p0))
    p1 += [""] * (n - len(p1))
    rows = "\n".join(f" {a:<22} | {b:<22} ;" for a, b in zip(p0, p1))
    return name, (f"RISCV {name}\n{{\n0:x6=y; 0:x8=x;\n1:x6=y; 1:x3=z; 1:x8=x;\n}}\n"
                  f" {'P0':<22} | {'P1':<22} ;\n{rows}\n{cond}\n")


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    n = 0
    for shape, di, op, ann, do in itertools.product(SHAPES, DEP_IN, OPS, ANNS, DEP_OUT):
        t = test(shape, di, op, ann, do)
        if t:
            with open(os.path.join(outdir, t[0] + ".litmus"), "w") as f:
                f.write(t[1])
            n += 1
    print(f"{n} tests in {outdir}")


if __name__ == "__main__":
    main()
