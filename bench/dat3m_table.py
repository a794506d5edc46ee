#!/usr/bin/env python3
"""The Dat3M litmus table: per suite, tests / agree / refused / disagree.

Runs `BIN litmus --json` on each suite of the Dat3M litmus collection
(../shared/corpus/litmus-dat3m: AARCH64 without mixed/, AARCH64/mixed,
RISCV, PPC, X86) and compares each answer with the collection's
EXPECTED.tsv (1: the final condition holds, 0: it does not; a row with no
expectation counts as agreeing when answered). A test is "refused" when
bmc-rmm answers with an error, "unknown" on a timeout.

Usage: bench/dat3m_table.py BIN [--sample N] [--suite NAME]... [--jobs J]
       [--timeout S] [--root DIR] [--list-disagree]
  --sample N   keep every N-th test of each suite (by sorted path), to cap
               the CPU time of a sweep; the table says so.
Skips with a message (exit 0) when the collection is absent.
"""
import argparse, json, os, subprocess, sys

SUITES = [  # (name, folder, model, exclude subfolder)
    ("AArch64, not mixed-size", "AARCH64", "arm", "mixed"),
    ("AArch64 mixed/", "AARCH64/mixed", "arm", None),
    ("RISC-V", "RISCV", "riscv", None),
    ("PPC", "PPC", "power", None),
    ("X86", "X86", "tso", None),
]


def holds(rec):
    """True when the record's final condition holds (herd's Ok)."""
    cond = rec.get("condition", "").lstrip()
    obs = rec.get("observation")
    if cond.startswith("~exists"):
        return obs == "Never"
    if cond.startswith("forall"):
        return obs == "Always"
    return obs in ("Sometimes", "Always")


def files_of(root, folder, exclude):
    base = os.path.join(root, folder)
    out = []
    for d, subs, fs in os.walk(base):
        if exclude:
            subs[:] = [s for s in subs if os.path.join(d, s) != os.path.join(base, exclude)]
        out += [os.path.join(d, f) for f in fs if f.endswith(".litmus")]
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--sample", type=int, default=1)
    ap.add_argument("--suite", action="append")
    ap.add_argument("--jobs", default="2")
    ap.add_argument("--timeout", default="20")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpus", "litmus-dat3m"))
    ap.add_argument("--list-disagree", action="store_true")
    ap.add_argument("--list-refused", action="store_true")
    a = ap.parse_args()
    if not os.path.isfile(os.path.join(a.root, "EXPECTED.tsv")):
        print(f"Dat3M collection not found under {a.root}; skipped")
        return 0
    expected = {}
    for line in open(os.path.join(a.root, "EXPECTED.tsv")):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 2 and f[0] != "file":
            expected[f[0]] = f[1]
    print("| suite (Dat3M) | tests | agree with the expected result | refused | unknown | disagree |")
    print("|---|---|---|---|---|---|")
    for name, folder, model, exclude in SUITES:
        if a.suite and not any(s in (name, folder) for s in a.suite):
            continue
        fs = files_of(a.root, folder, exclude)[:: a.sample]
        if not fs:
            continue
        lst = "/tmp/dat3m_table.%d.list" % os.getpid()
        with open(lst, "w") as o:
            o.write("\n".join(fs) + "\n")
        p = subprocess.run([a.bin, "litmus", "--json", "-q", "-j", a.jobs, "--timeout", a.timeout,
                            "--model", model, "@" + lst], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        os.unlink(lst)
        agree = refused = unknown = 0
        bad, ref = [], []
        for line in p.stdout.splitlines():
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            rel = os.path.relpath(r["file"], a.root)
            if "error" in r:
                refused += 1
                ref.append((rel, r["error"].splitlines()[0]))
                continue
            if r.get("unknown"):
                unknown += 1
                continue
            e = expected.get(rel, "")
            if e == "" or (e == "1") == holds(r):
                agree += 1
            else:
                bad.append(rel)
        tag = f" (every {a.sample}th)" if a.sample > 1 else ""
        print(f"| {name}{tag} | {len(fs)} | {agree} | {refused} | {unknown} | {len(bad)} |", flush=True)
        if a.list_disagree:
            for b in bad:
                print("  disagree:", b)
        if a.list_refused:
            for b, m in ref:
                print("  refused:", b, "--", m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
