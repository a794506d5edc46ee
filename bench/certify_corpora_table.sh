#!/usr/bin/env bash
# Certified negative answers on the C and litmus corpora (`--certify`,
# `certify-check`; docs/reliability.md), the sibling of certify_table.sh
# (Trencher programs):
#
# * Nidhugg C programs (CORPUS/nidhugg, EXPECTED.tsv without the two
#   8000-line apr_ excerpts, as bench/nidhugg_table.sh): per row and model
#   (sc, tso, pso) `reach --solver varisat --model M --unwind LB [-D
#   ENABLE_*_FENCES] --json`, plain and with --certify, then certify-check
#   of the certificate; one line per row whose plain answer is
#   "unreachable" (the negative answers), with the wall times and ratios,
#   the certificate's sizes and its fate.
# * Litmus corpora (CORPUS/litmus: X86 under tso, PPC under power): one
#   `litmus --json` process per suite plain, one plain with `--enumerate
#   never` (the states found by solving, as a certified run finds them)
#   and one with --certify, then one certify-check of the suite's
#   certificates; per test the in-process times (the `time` field of
#   --json: the run with the certificate written; certify-check's `in X
#   s`), so that the ratios are not those of process start-up; the ratios
#   are given against both plain runs (`/plain`, `/solve`). A test is certified (its final states: no
#   execution reaches a state outside those printed), refused (the reason
#   on stderr, `not certified: ...`) or has nothing to certify (unknown).
#
# Per corpus: negative answers (C) or tests (litmus), certified and
# accepted, refused (with the reasons counted), rejected, answers that
# differ between the plain and the certified run, rows with a timeout;
# the median ratios certified/plain and check/plain over the accepted
# rows; the largest certificate (formula + proof).
# Usage: bench/certify_corpora_table.sh BIN [TIMEOUT=120] [CORPUS=../shared/corpus]
#        [PARTS="c litmus"]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$1; TIMEOUT=${2:-120}; CORPUS=${3:-../shared/corpus}; PARTS=${4:-"c litmus"}
[ -d "$CORPUS" ] || { echo "corpus not found at $CORPUS" >&2; exit 0; }
python3 - "$BIN" "$TIMEOUT" "$CORPUS" "$PARTS" <<'PY'
import glob, json, os, re, shutil, statistics, subprocess, sys, tempfile, time
b, timeout, corpus, parts = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4].split()
work = tempfile.mkdtemp(prefix="certify-corpora-")

def run(cmd):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timeout"
    return time.monotonic() - t0, p.stdout, p.stderr

def size(d):
    return sum(os.path.getsize(os.path.join(d, n)) for n in ("formula.cnf", "proof.varisat"))

def med(v):
    return f"{statistics.median(v):.2f}" if v else "-"

def summary(name, count, ratios, largest, reasons):
    print(f"\n{name}: " + "; ".join(f"{k} {v}" for k, v in count.items()))
    print(f"{name}: median cert/plain {med(ratios['cert'])} (max {max(ratios['cert'], default=0):.1f}), "
          f"check/plain {med(ratios['check'])} (max {max(ratios['check'], default=0):.1f})")
    if largest[1]:
        print(f"{name}: largest certificate {largest[1]} ({largest[0] / 1024:.0f} KB formula + proof)")
    for why, n in sorted(reasons.items(), key=lambda x: -x[1]):
        print(f"{name}: refused {n}: {why}")

# --- Nidhugg C programs -------------------------------------------------
nid = f"{corpus}/nidhugg"
if "c" in parts and os.path.isfile(f"{nid}/EXPECTED.tsv"):
    print("| file | fences | LB | model | plain s | cert s | check s | cert/plain | check/plain | formula KB | proof KB | lemmas | certificate |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    count = dict(negative=0, accepted=0, refused=0, rejected=0, diff=0, timeout=0)
    ratios, largest, reasons = {"cert": [], "check": []}, (0, ""), {}
    rows = [l.rstrip("\n").split("\t") for l in open(f"{nid}/EXPECTED.tsv")][1:]
    for r in rows:
        f, fences, lb = r[0], r[1], r[2]
        if f.startswith("apr_"):
            continue
        unwind = "10" if lb == "-" else lb.strip("()")
        dflags = {"tso": ["-D", "ENABLE_TSO_FENCES"], "pso": ["-D", "ENABLE_PSO_FENCES"]}.get(fences, [])
        for m in ["sc", "tso", "pso"]:
            base = [b, "reach", "-q", "--json", "--solver", "varisat", "--model", m,
                    "--unwind", unwind, *dflags]
            tp, op, _ = run(base + [f"{nid}/{f}"])
            cdir = os.path.join(work, "c", f"{f}.{fences}.{m}")
            tc, oc, ec = run(base + ["--certify", cdir, f"{nid}/{f}"])
            verdict = lambda o: json.loads(o.splitlines()[0])["verdict"] if o.strip() else "error"
            vp = verdict(op) if tp is not None else "timeout"
            vc = verdict(oc) if tc is not None else "timeout"
            if "timeout" in (vp, vc):
                count["timeout"] += 1
            elif vp != vc:
                count["diff"] += 1
            if vp != "no-violation":
                continue
            count["negative"] += 1
            cert = os.path.join(cdir, os.path.splitext(f)[0] + ".reach")
            tk, fate, sizes = None, "", ("", "", "")
            if tc is None:
                fate = "certified run over the limit"
            elif os.path.isfile(os.path.join(cert, "manifest.json")):
                tk, ok, ek = run([b, "certify-check", cert])
                fate = "accepted" if tk is not None and ok.startswith("accepted") else \
                    "REJECTED " + (ok + ek).strip().replace("|", "/")[:80]
                count["accepted" if fate == "accepted" else "rejected"] += 1
                kb = lambda n: f"{os.path.getsize(os.path.join(cert, n)) / 1024:.0f}"
                man = json.load(open(os.path.join(cert, "manifest.json")))
                sizes = (kb("formula.cnf"), kb("proof.varisat"), str(man["lemmas"]))
                if size(cert) > largest[0]:
                    largest = (size(cert), f"{f} ({fences} fences) under {m}")
                if fate == "accepted":
                    ratios["cert"].append(tc / tp)
                    ratios["check"].append(tk / tp)
            else:
                count["refused"] += 1
                why = [l.split("not certified: ")[-1] for l in ec.splitlines() if "not certified" in l]
                why = why[0] if why else "?"
                reasons[why] = reasons.get(why, 0) + 1
                fate = "refused: " + why[:80]
            s = lambda t: f">{timeout:g}" if t is None else f"{t:.2f}"
            rr = lambda a, c: f"{a / c:.1f}" if a is not None and c else ""
            print(f"| {f} | {fences} | {lb} | {m} | {s(tp)} | {s(tc)} | {s(tk) if tk is not None else ''} | "
                  f"{rr(tc, tp)} | {rr(tk, tp)} | {sizes[0]} | {sizes[1]} | {sizes[2]} | {fate} |", flush=True)
    summary("nidhugg C (reach, unreachable answers)", count, ratios, largest, reasons)

# --- Litmus corpora -----------------------------------------------------
lit = f"{corpus}/litmus"
for suite, model in [("X86", "tso"), ("PPC", "power")]:
    d = f"{lit}/{suite}"
    if "litmus" not in parts or not os.path.isdir(d):
        continue
    cdir = os.path.join(work, "litmus", suite)
    t_plain, op, _ = run([b, "litmus", "--json", "-j", "1", "--model", model, d])
    t_solve, osv, _ = run([b, "litmus", "--json", "-j", "1", "--model", model, "--enumerate", "never", d])
    t_cert, oc, ec = run([b, "litmus", "--json", "-j", "1", "--model", model, "--certify", cdir, d])
    if None in (t_plain, t_solve, t_cert):
        print(f"\n{suite}: a run over the {timeout:g} s limit")
        continue
    t_check, ok, _ = run([b, "certify-check", cdir]) if os.path.isdir(cdir) else (0.0, "", "")
    recs = lambda out: {r["file"]: r for r in map(json.loads, filter(None, out.splitlines())) if "file" in r}
    plain, solve, cert = recs(op), recs(osv), recs(oc)
    checked = {}
    for line in ok.splitlines():
        m = re.match(r"(accepted|REJECTED) (\S+): .*?(?:in ([0-9.]+) s)?$", line)
        if m:
            checked[os.path.basename(m.group(2).rstrip(":"))] = (m.group(1), float(m.group(3) or 0))
    refused = {}
    for line in ec.splitlines():
        if "final-states not certified: " in line:
            f, why = line.split(": final-states not certified: ", 1)
            refused[f] = why
    count = dict(tests=len(plain), accepted=0, refused=0, rejected=0, uncertified=0, diff=0)
    ratios, largest, reasons = {"cert": [], "check": [], "cert/solve": [], "check/solve": []}, (0, ""), {}
    for f, rp in plain.items():
        rc = cert.get(f, {})
        if (rp.get("states"), rp.get("observation")) != (rc.get("states"), rc.get("observation")):
            count["diff"] += 1
        stem = os.path.splitext(os.path.basename(f))[0] + ".final-states"
        fate = checked.get(stem)
        if fate and fate[0] == "accepted":
            count["accepted"] += 1
            if rp.get("time") and rc.get("time"):
                ratios["cert"].append(rc["time"] / rp["time"])
                ratios["check"].append(fate[1] / rp["time"])
            ts = solve.get(f, {}).get("time")
            if ts and rc.get("time"):
                ratios["cert/solve"].append(rc["time"] / ts)
                ratios["check/solve"].append(fate[1] / ts)
            sz = size(os.path.join(cdir, stem))
            if sz > largest[0]:
                largest = (sz, os.path.basename(f))
        elif fate:
            count["rejected"] += 1
        elif f in refused:
            count["refused"] += 1
            reasons[refused[f]] = reasons.get(refused[f], 0) + 1
        else:
            count["uncertified"] += 1
    print(f"\n{suite} under {model}: wall s plain {t_plain:.1f}, plain --enumerate never {t_solve:.1f}, "
          f"certified {t_cert:.1f}, certify-check {t_check:.1f}")
    summary(f"{suite} under {model} (final states)", count, ratios, largest, reasons)
    print(f"{suite} under {model} (final states): against --enumerate never: median cert/solve "
          f"{med(ratios['cert/solve'])}, check/solve {med(ratios['check/solve'])}")
shutil.rmtree(work, ignore_errors=True)
PY
