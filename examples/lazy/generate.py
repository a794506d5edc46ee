#!/usr/bin/env python3
"""Writes the parameterised examples of the lazy TSO reachability paper
("Lazy TSO reachability", FASE 2015, section 5) in the native language: Lamport's fast mutex for N
threads (Fig. 6), Dekker with an N-branch diamond (Fig. 7) and the N-loop
family (Fig. 8). Run from this directory: ./generate.py"""

def lamport(n):
    ts = []
    bs = ", ".join(f"b{i}" for i in range(1, n + 1))
    out = [f"// Lamport's fast mutex, {n} threads (lazy TSO paper, Fig. 6).",
           "// Mutual exclusion holds under SC; under TSO threads t1 and t2 can",
           "// both enter the critical section (goal reachable).",
           f"shared x, y, {bs};", ""]
    for i in range(1, n + 1):
        others = [j for j in range(1, n + 1) if j != i]
        body = [f"thread t{i} {{",
                f"  start: b{i} = 1;",
                f"  x = {i};",
                "  r = y;",
                "  if (r != 0) {",
                f"    b{i} = 0;",
                "    r = y;",
                "    while (r != 0) { r = y; }",
                "    goto start;",
                "  }",
                f"  y = {i};",
                "  r = x;",
                f"  if (r != {i}) {{",
                f"    b{i} = 0;"]
        for j in others:
            body += [f"    r = b{j};", f"    while (r != 0) {{ r = b{j}; }}"]
        body += ["    r = y;",
                 f"    if (r != {i}) {{",
                 "      r = y;",
                 "      while (r != 0) { r = y; }",
                 "      goto start;",
                 "    }",
                 "  }",
                 "  cs: nop;",
                 "  y = 0;",
                 f"  b{i} = 0;",
                 "  goto start;",
                 "}", ""]
        out += body
    out.append("goal mutex: t1@cs, t2@cs;")
    return "\n".join(out) + "\n"

def dekker(n):
    def diamond():
        if n == 1:
            return ["  a = 1;"]
        lines = ["  choose {"]
        for k in range(n):
            if k:
                lines.append("  } or {")
            lines.append(f"    a = {k + 1};" if k % 2 == 0 else "    s = b;")
        lines.append("  }")
        return lines
    out = [f"// Dekker with an {n}-branch diamond over a, b between the accesses",
           "// to x and y (lazy TSO paper, Fig. 7). The final goal is reachable",
           "// under TSO (a store delayed past the last load), not under SC.",
           "shared x, y, a, b;", "",
           "thread t1 {", "  x = 1;"] + diamond() + ["  r1 = y;", "}", "",
           "thread t2 {", "  y = 1;"] + diamond() + ["  r2 = x;", "}", "",
           "goal final where t1.r1 == 0 && t2.r2 == 0;"]
    return "\n".join(out) + "\n"

def loop(n):
    nops = ["  nop;"] * max(0, n - 2)
    out = [f"// The N-loop family, N = {n} (lazy TSO paper, Fig. 8): t1 stores to x",
           "// on a loop of length N; t2 must load 1, 0, 1 from x while t1 loads",
           "// the initial y, so t1 goes through the loop twice with its stores",
           "// delayed past its load of y: reachable under TSO, not under SC.",
           "shared x, y;", "",
           "thread t1 {",
           "  l: x = 1;"] + nops + [
           "  x = 0;",
           "  choose { goto l; } or { nop; }",
           "  r1 = y;",
           "  assume(r1 == 0);",
           "}", "",
           "thread t2 {",
           "  y = 1;",
           "  r2 = x;", "  assume(r2 == 1);",
           "  r3 = x;", "  assume(r3 == 0);",
           "  r4 = x;", "  assume(r4 == 1);",
           "}", "",
           "goal final;"]
    return "\n".join(out) + "\n"

for n in range(2, 7):
    open(f"lamport{n}.rmm", "w").write(lamport(n))
for n in (1, 2, 4, 8, 16, 32, 50):
    open(f"dekker_diamond{n}.rmm", "w").write(dekker(n))
for n in (2, 4, 8, 16, 20):
    open(f"loop{n}.rmm", "w").write(loop(n))
