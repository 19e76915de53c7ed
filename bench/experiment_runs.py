#!/usr/bin/env python3
"""One `scfw run` problem file per method of an experiment file, for one budget K and one seed.

    bench/experiment_runs.py EXPERIMENT.json K SEED OUTDIR

`scfw compare` writes traces and summaries but no solution files; a run file written here, run
with `scfw run FILE --solution S.csv`, is the same run as compare's (method, K, seed): the same
blocks, the schedule and tracker expressions in K evaluated here ("K^-0.75" -> 0.0056234...), and
gap reports every K/20 iterations ("report": {"points": 20} in the experiment). Relative data
paths are rewritten for OUTDIR. Prints the files written.
"""
import json
import os
import sys


def evaluate(value, K):
    if isinstance(value, str) and "K" in value:
        return eval(value.replace("K", repr(float(K))).replace("^", "**"), {"__builtins__": {}})
    return value


def main():
    experiment, K, seed, outdir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    doc = json.load(open(experiment))
    os.makedirs(outdir, exist_ok=True)
    oracle = dict(doc["oracle"])
    if "file" in oracle and not os.path.isabs(oracle["file"]):
        data = os.path.join(os.path.dirname(os.path.abspath(experiment)), oracle["file"])
        oracle["file"] = os.path.relpath(data, os.path.abspath(outdir))
    points = doc.get("report", {}).get("points", 20)
    for method in doc["methods"]:
        label = method["label"].replace(" ", "_")
        run = {
            "name": doc.get("name", "experiment") + " / " + method["label"],
            "seed": seed,
            "iterations": K,
            "report": {"every": max(1, K // points)},
            "oracle": oracle,
            "outer": doc["outer"],
            "domain": doc["domain"],
            "glmo": doc["glmo"],
            "tracker": {k: evaluate(v, K) for k, v in method["tracker"].items()},
            "schedule": {k: evaluate(v, K) for k, v in method["schedule"].items()},
        }
        path = os.path.join(outdir, f"{label}-K{K}-seed{seed}.json")
        with open(path, "w") as out:
            json.dump(run, out, indent=1)
        print(path)


if __name__ == "__main__":
    main()
