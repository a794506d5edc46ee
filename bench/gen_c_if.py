#!/usr/bin/env python3
"""Writes LB-shaped C litmus tests (herd's C dialect, the Linux kernel's
macros) of herd's C `if`: ctrl from the condition's reads reaches the
events of the branches only (herd/CSem.ml, choiceT). Thread i reads one
location into r1, then writes the other through one of the templates
below (a write inside the branch, after it, in an else branch, nested
ifs, a fence or a release after the if, plain accesses, a read in the
condition, ...); every pair of templates is one test (105 tests).

Compare with herd7 (States, Observation, flags), e.g.
  M=../shared/corpus/lkmm/model; L=../shared/tools/herd7/libdir
  bench/gen_c_if.py g && for f in g/*.litmus; do
    ../shared/tools/herd7/bin/herd7 -set-libdir $L -conf $M/linux-kernel.cfg -I $M $f
  done > herd.out
  bmc-rmm litmus -q -j 2 --timeout 20 --conf $M/linux-kernel.cfg -I $L g/*.litmus > ours.out

Usage: bench/gen_c_if.py OUTDIR
"""
import itertools, os, sys

T = {
    "in": "if (r1) {{ WRITE_ONCE(*{b}, 1); }}",
    "post": "if (r1) {{ WRITE_ONCE(*{c}, 1); }} else {{ WRITE_ONCE(*{c}, 2); }}\n\tWRITE_ONCE(*{b}, 1);",
    "empty": "if (r1) {{ r3 = 1; }}\n\tWRITE_ONCE(*{b}, 1);",
    "else": "if (r1 == 0) {{ r3 = 2; }} else {{ WRITE_ONCE(*{b}, 1); }}",
    "nest": "if (r1) {{ r2 = READ_ONCE(*{c}); if (r2) {{ WRITE_ONCE(*{c}, 2); }} WRITE_ONCE(*{b}, 1); }}",
    "nest2": "if (r1) {{ r2 = READ_ONCE(*{c}); if (r2) {{ WRITE_ONCE(*{c}, 2); }} }}\n\tWRITE_ONCE(*{b}, 1);",
    "fence": "if (r1) {{ smp_mb(); }}\n\tWRITE_ONCE(*{b}, 1);",
    "rel": "if (r1) {{ r3 = 1; }} else {{ r3 = 2; }}\n\tsmp_store_release({b}, 1);",
    "twoif": "if (r1) {{ WRITE_ONCE(*{c}, 1); }}\n\tif (r1) {{ WRITE_ONCE(*{b}, 1); }}",
    "data": "if (r1) {{ r3 = 1; }} else {{ r3 = 2; }}\n\tWRITE_ONCE(*{b}, r3 + r1 - r1);",
    "plain": "if (r1) {{ r3 = 1; }}\n\t*{b} = 1;",
    "plainin": "if (r1) {{ *{b} = 1; }}",
    "cond": "if (READ_ONCE(*{c})) {{ r3 = 1; }}\n\tWRITE_ONCE(*{b}, 1);",
    "readpost": "if (r1) {{ r3 = 1; }}\n\tr2 = READ_ONCE(*{c});\n\tWRITE_ONCE(*{b}, r2 + 1);",
}


def thread(n, params, read, body):
    return (f"P{n}({params})\n{{\n\tint r1;\n\tint r2;\n\tint r3;\n\n"
            f"\tr1 = READ_ONCE(*{read});\n\t{body}\n}}\n")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    names = list(T)
    for p, q in itertools.combinations_with_replacement(names, 2):
        name = f"LB-if-{p}+{q}"
        src = (f"C {name}\n\n{{}}\n\n"
               + thread(0, "int *x, int *y, int *z", "x", T[p].format(b="y", c="z"))
               + "\n"
               + thread(1, "int *x, int *y, int *w", "y", T[q].format(b="x", c="w"))
               + "\nexists (0:r1=1 /\\ 1:r1=1)\n")
        with open(os.path.join(out, name + ".litmus"), "w") as f:
            f.write(src)


if __name__ == "__main__":
    main()
