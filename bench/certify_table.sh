#!/usr/bin/env bash
# Certified negative answers (`--certify`, `certify-check`; docs/reliability.md),
# side by side in one run: every Trencher corpus program (and memorax/)
# under MODELS (tso, pso, power) and CHECKS (robust, reach) at --bound K
# with `--solver varisat`, one line per (file, model, check):
#   plain s   the plain run (default switches: the CFG pre-filter's static
#             robustness proof on);
#   nocfg s   the plain run with that proof off (BMC_ESCAPE_CFG=0), the
#             encoding a certified run solves;
#   cert s    the run with --certify (the answer, the formula re-derived,
#             the proof written);
#   check s   certify-check of its certificate;
# the verdicts (DIFF when plain and certified disagree), the certificate's
# sizes (formula, proof KB; lemmas) and its fate (accepted, REJECTED,
# refused: the reason the run gave on stderr). Timed-out runs print >T.
# The summary: answers certified and accepted, refused, rejected, verdict
# differences, and the median ratios cert/plain, cert/nocfg, check/plain
# and check/nocfg over the certified rows.
# Usage: bench/certify_table.sh BIN [K=20] [TIMEOUT=120]
#        [MODELS="tso pso power"] [CHECKS="robust"] [DIR=../shared/corpus/trencher]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$1; K=${2:-20}; TIMEOUT=${3:-120}; MODELS=${4:-"tso pso power"}
CHECKS=${5:-robust}; DIR=${6:-../shared/corpus/trencher}
[ -d "$DIR" ] || { echo "corpus not found at $DIR" >&2; exit 0; }
python3 - "$BIN" "$K" "$TIMEOUT" "$MODELS" "$CHECKS" "$DIR" <<'PY'
import glob, json, os, shutil, statistics, subprocess, sys, tempfile, time
b, k, timeout, models, checks, d = sys.argv[1:7]
timeout = float(timeout)
files = sorted(glob.glob(f"{d}/*.txt")) + sorted(glob.glob(f"{d}/memorax/*.txt"))
work = tempfile.mkdtemp(prefix="certify-bench-")
def run(cmd, env=None):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, "", "timeout"
    return time.monotonic() - t0, p.stdout, p.stderr
def verdict(out):
    try:
        return json.loads(out.splitlines()[0])["verdict"]
    except Exception:
        return "error"
def secs(t):
    return f">{timeout:g}" if t is None else f"{t:.2f}"
print("| file | model | check | verdict | plain s | nocfg s | cert s | check s | cert/plain | cert/nocfg | check/nocfg | formula KB | proof KB | lemmas | certificate |")
print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
count = {"accepted": 0, "rejected": 0, "refused": 0, "negative": 0, "diff": 0, "timeout": 0}
ratios = {"cert/plain": [], "cert/nocfg": [], "check/plain": [], "check/nocfg": []}
nocfg_env = dict(os.environ, BMC_ESCAPE_CFG="0")
for f in files:
    name = os.path.relpath(f, d)
    for m in models.split():
        for c in checks.split():
            base = [b, c, "--solver", "varisat", "--model", m, "-k", k, "--json", "-q"]
            tp, op, _ = run(base + [f])
            tn, _, _ = run(base + [f], nocfg_env)
            cdir = os.path.join(work, m, c)
            tc, oc, ec = run(base + ["--certify", cdir, f])
            vp, vc = verdict(op) if tp else "timeout", verdict(oc) if tc else "timeout"
            if "timeout" in (vp, vc):
                count["timeout"] += 1
            if vp != vc and "timeout" not in (vp, vc):
                count["diff"] += 1
            stem = os.path.splitext(os.path.basename(f))[0]
            cert = os.path.join(cdir, f"{stem}.{c}")
            fate, tk, sizes = "", None, ("", "", "")
            if vc == "no-violation":
                count["negative"] += 1
                if os.path.isfile(os.path.join(cert, "manifest.json")):
                    tk, ok, ek = run([b, "certify-check", cert])
                    fate = "accepted" if tk is not None and ok.startswith("accepted") else \
                        "REJECTED " + (ok + ek).strip().replace("|", "/")[:80]
                    count["accepted" if fate == "accepted" else "rejected"] += 1
                    kb = lambda n: f"{os.path.getsize(os.path.join(cert, n)) / 1024:.0f}"
                    man = json.load(open(os.path.join(cert, "manifest.json")))
                    sizes = (kb("formula.cnf"), kb("proof.varisat"), str(man["lemmas"]))
                    if fate == "accepted":
                        for key, num, den in (("cert/plain", tc, tp), ("cert/nocfg", tc, tn),
                                              ("check/plain", tk, tp), ("check/nocfg", tk, tn)):
                            if num is not None and den:
                                ratios[key].append(num / den)
                    shutil.rmtree(cert)
                else:
                    count["refused"] += 1
                    why = [l for l in ec.splitlines() if "not certified" in l]
                    fate = "refused: " + (why[0].split("not certified: ")[-1][:80] if why else "?")
            if vp == vc:
                shown = vc
            elif "timeout" in (vp, vc):
                shown = f"{vp}/{vc}"
            else:
                shown = f"DIFF {vp}/{vc}"
            r = lambda a, b_: f"{a / b_:.1f}" if a is not None and b_ else ""
            print(f"| {name} | {m} | {c} | {shown} | {secs(tp)} | {secs(tn)} | {secs(tc)} | "
                  f"{secs(tk) if tk is not None else ''} | {r(tc, tp)} | {r(tc, tn)} | {r(tk, tn)} | "
                  f"{sizes[0]} | {sizes[1]} | {sizes[2]} | {fate} |", flush=True)
shutil.rmtree(work, ignore_errors=True)
med = {key: (f"{statistics.median(v):.2f}" if v else "-") for key, v in ratios.items()}
print()
print(f"negative answers: {count['negative']}; certified and accepted: {count['accepted']}; "
      f"refused: {count['refused']}; rejected: {count['rejected']}; verdict differences: "
      f"{count['diff']}; rows with a timeout: {count['timeout']}")
print("median ratios over accepted rows: " + ", ".join(f"{k} {v}" for k, v in med.items()))
PY
