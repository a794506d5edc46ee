#!/usr/bin/env python3
"""Generates Trencher-format programs of the corpus's shape for the engine
benchmarks (bench/gen_table.sh): 2-4 threads over 2-4 shared cells; each
thread is a loop (its last state returns to its first) of 3-7 operations:
writes of small constants, reads, spin-waits (a read and a check that
loops back while the value is not the awaited one), local arithmetic,
mfences, and atomic read-modify-write blocks (lock; read; write; unlock).
Fences and atomics are placed at random, so both robust and non-robust
programs come out.

Usage: bench/gen_trencher.py SEED COUNT OUTDIR
"""
import os
import random
import sys


def thread(rng, t, ncells):
    lines = [f"thread t{t}", "initial q0"]
    q = 0
    nops = rng.randint(3, 7)
    regs = ["r0", "r1"]

    def tr(a, b, instr):
        lines.append(f"transition\tq{a}\tq{b}\t{instr}")

    for _ in range(nops):
        kind = rng.choices(
            ["write", "read", "spin", "local", "fence", "atomic"],
            weights=[4, 3, 2, 1, 2, 1],
        )[0]
        cell = rng.randrange(ncells)
        if kind == "write":
            tr(q, q + 1, f"write\t{rng.randint(0, 2)}\t{cell}")
            q += 1
        elif kind == "read":
            tr(q, q + 1, f"read\t{rng.choice(regs)}\t{cell}")
            q += 1
        elif kind == "spin":
            v = rng.randint(0, 1)
            r = rng.choice(regs)
            tr(q, q + 1, f"read\t{r}\t{cell}")
            tr(q + 1, q, f"check\t!= {r} {v}")
            tr(q + 1, q + 2, f"check\t== {r} {v}")
            q += 2
        elif kind == "local":
            r = rng.choice(regs)
            tr(q, q + 1, f"local\t{r}\t+ {r} 1")
            q += 1
        elif kind == "fence":
            tr(q, q + 1, "mfence")
            q += 1
        else:
            r = rng.choice(regs)
            tr(q, q + 1, "lock")
            tr(q + 1, q + 2, f"read\t{r}\t{cell}")
            tr(q + 2, q + 3, f"write\t{rng.randint(1, 2)}\t{cell}")
            tr(q + 3, q + 4, "unlock")
            q += 4
    # Back to the start: the thread loops.
    tr(q, 0, "noop")
    lines.append("end")
    return "\n".join(lines)


def main():
    seed, count, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    os.makedirs(out, exist_ok=True)
    for i in range(count):
        rng = random.Random(seed * 100003 + i)
        nthreads = rng.randint(2, 4)
        ncells = rng.randint(2, 4)
        text = f"# generated: seed {seed}, program {i}\n\n" + "\n\n".join(
            thread(rng, t, ncells) for t in range(nthreads)
        )
        with open(os.path.join(out, f"gen{i:03}.txt"), "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
