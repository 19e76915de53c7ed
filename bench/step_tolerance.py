#!/usr/bin/env python3
"""What column_generation's "step_tolerance" saves and costs (docs/performance.md, "A GLMO
tolerance tied to the step").

Runs one experiment file's problem under each value of delta (0: off) for the chosen methods,
seeds and budgets with `scfw run --summary-json`, two runs at a time, and prints per (delta,
method, K): the mean over the seeds of the final gap (from the gap reports' GLMO, held to
`tolerance`: an upper bound on the true gap), the GLMO's rounds + pivots per solve, and the wall
seconds per iteration in the GLMO and in all. Counts are exact; seconds depend on the load.

    python3 bench/step_tolerance.py experiments/task3_synthetic.json --deltas 0,1,10 \\
        --methods "Variant I,STORM" --seeds 3 --K 1000,10000

A problem whose GLMO is not column_generation (Task 2 picks scenario_dual) is run with
column_generation over its domain, at the experiment's tolerance if it names one, else
--tolerance.
"""

import argparse
import concurrent.futures
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def k_expression(value, K):
    """An experiment's K expression ("K^-0.75", "2*K^-0.5", "1/K") as its number for K; any
    other value as it is."""
    if not isinstance(value, str) or "K" not in value:
        return value
    return float(eval(value.replace("^", "**").replace("K", "(%d)" % K), {"__builtins__": {}}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("experiment")
    ap.add_argument("--deltas", default="0,1,10")
    ap.add_argument("--methods", default="Variant I")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--K", default="1000,10000")
    ap.add_argument("--tolerance", type=float, default=1e-3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--scfw", default=os.path.join(ROOT, "build", "bin", "scfw"))
    args = ap.parse_args()

    with open(args.experiment) as f:
        e = json.load(f)
    folder = os.path.dirname(os.path.abspath(args.experiment))
    glmo = dict(e.get("glmo") or {})
    if glmo.get("plugin") != "column_generation":
        glmo = {"plugin": "column_generation", "tolerance": args.tolerance}
    methods = {m["label"]: m for m in e["methods"]}
    wanted = [s.strip() for s in args.methods.split(",")]
    for label in wanted:
        if label not in methods:
            sys.exit("step_tolerance.py: no method %r in %s (%s)" % (label, args.experiment, ", ".join(methods)))
    deltas = [float(v) for v in args.deltas.split(",")]
    budgets = [int(v) for v in args.K.split(",")]
    points = (e.get("report") or {}).get("points", 50)

    work = tempfile.mkdtemp(prefix="step_tolerance-")
    jobs = []
    for delta in deltas:
        for label in wanted:
            m = methods[label]
            for K in budgets:
                for seed in range(1, args.seeds + 1):
                    doc = {key: e[key] for key in ("oracle", "outer", "domain")}
                    doc["glmo"] = dict(glmo, step_tolerance=delta)
                    doc["tracker"] = m["tracker"]
                    doc["schedule"] = {k: k_expression(v, K) for k, v in m["schedule"].items()}
                    doc.update(seed=seed, iterations=K, report={"every": max(1, math.ceil(K / points))})
                    name = "d%g-%s-K%d-s%d" % (delta, label.replace(" ", "_"), K, seed)
                    path = os.path.join(folder, ".step_tolerance-%d-%s.json" % (os.getpid(), name))
                    with open(path, "w") as f:
                        json.dump(doc, f)
                    jobs.append((delta, label, K, seed, path, os.path.join(work, name + ".json")))

    def run(job):
        delta, label, K, seed, problem, summary = job
        try:
            p = subprocess.run([args.scfw, "run", problem, "--summary-json", summary, "--quiet"],
                               capture_output=True, text=True)
        finally:
            os.unlink(problem)
        if p.returncode != 0:
            sys.exit("step_tolerance.py: %s failed: %s" % (problem, p.stderr.strip()))
        with open(summary) as f:
            return job, json.load(f)

    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for job, s in pool.map(run, jobs):
            delta, label, K, _, _, _ = job
            results.setdefault((delta, label, K), []).append(s)

    print("| delta | method | K | final gap (mean over %d seeds) | rounds + pivots per solve | "
          "GLMO ms / it | total ms / it |" % args.seeds)
    print("|---:|---|---:|---:|---:|---:|---:|")
    for delta in deltas:
        for label in wanted:
            for K in budgets:
                runs = results[(delta, label, K)]
                gap = statistics.mean(s["final_gap"] for s in runs)
                pivots = statistics.mean(s["glmo"]["iterations"] / s["iterations"] for s in runs)
                glmo_ms = statistics.mean(1e3 * s["times"]["glmo"] / s["iterations"] for s in runs)
                total_ms = statistics.mean(1e3 * s["seconds"] / s["iterations"] for s in runs)
                print("| %g | %s | %d | %.4g | %.1f | %.3f | %.3f |" % (delta, label, K, gap, pivots, glmo_ms, total_ms))


if __name__ == "__main__":
    main()
