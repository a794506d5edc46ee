#!/usr/bin/env python3
"""CPU time (user + system) of one command, averaged over many runs.

    bench/cpu_per_run.py [--runs N] -- COMMAND ARGS...

Runs COMMAND N times (default 30) one after the other, its output
discarded, and prints the mean CPU time per run in milliseconds, read
from the children's resource usage (getrusage(RUSAGE_CHILDREN)) around
the whole loop: finer than one process's rusage, which the kernel
rounds to the scheduler tick. Used for small collections where the
start-up cost of the process weighs (bench/herd_speed.py rounds them),
e.g. the 41 X86_64 tests:

    ls ../shared/corpus/litmus/X86_64/* > L
    bench/cpu_per_run.py -- target/release/bmc-rmm litmus --json -j 1 @L
    bench/cpu_per_run.py -- /bin/true        # the cost of a trivial process
"""
import argparse
import resource
import subprocess
import sys


def cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        p.error("no COMMAND given")
    # One warm-up run (page cache), not counted.
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    before = cpu_children()
    for _ in range(a.runs):
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    per_run = (cpu_children() - before) / a.runs
    print(f"{per_run * 1000:.2f} ms CPU per run ({a.runs} runs): {' '.join(cmd)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
