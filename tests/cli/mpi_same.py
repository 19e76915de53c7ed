#!/usr/bin/env python3
"""Compares the outputs of a one-process run with an MPI run (tests/cli/cli_mpi.sh).

  mpi_same.py tree DIR_A DIR_B        every file of two `scfw compare` folders: equal but timings
  mpi_same.py close A B TOL [KIND]    two solution CSVs (KIND rows: x, the default, or f) or traces
                                      (objective and gap columns): equal to TOL relative
                                      (max |a - b| <= TOL * max(1, max |a|))
"""
import csv, json, math, os, sys

TIMING = ("seconds", "sec_per_iter", "times")
# The memory limit a run was given depends on how many workers share the machine (compare divides
# it by them), like the timings on how busy it was; the estimate itself must agree.
ENVIRONMENT = ("limit_bytes",)


def timing(name):
    return any(t in name for t in TIMING) or name in ENVIRONMENT


def strip_json(v):
    if isinstance(v, dict):
        return {k: strip_json(x) for k, x in v.items() if not timing(k)}
    if isinstance(v, list):
        return [strip_json(x) for x in v]
    return v


def table(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        return rows
    keep = [i for i, h in enumerate(rows[0]) if not timing(h)]
    return [[r[i] for i in keep if i < len(r)] for r in rows]


def tree(a, b):
    files_a = sorted(os.path.relpath(os.path.join(d, f), a) for d, _, fs in os.walk(a) for f in fs)
    files_b = sorted(os.path.relpath(os.path.join(d, f), b) for d, _, fs in os.walk(b) for f in fs)
    if files_a != files_b:
        sys.exit(f"different files:\n{files_a}\n{files_b}")
    for rel in files_a:
        pa, pb = os.path.join(a, rel), os.path.join(b, rel)
        if rel.endswith(".json"):
            same = strip_json(json.load(open(pa))) == strip_json(json.load(open(pb)))
        elif rel.endswith(".csv"):
            same = table(pa) == table(pb)
        else:  # the gnuplot scripts name their own folder
            same = (open(pa, "rb").read().replace(os.path.abspath(a).encode(), b"DIR") ==
                    open(pb, "rb").read().replace(os.path.abspath(b).encode(), b"DIR"))
        if not same:
            if rel.endswith(".json"):
                ja, jb = strip_json(json.load(open(pa))), strip_json(json.load(open(pb)))
                keys = sorted(k for k in set(ja) | set(jb) if ja.get(k) != jb.get(k)) if isinstance(ja, dict) else []
                sys.exit(f"{rel} differs: {', '.join(f'{k}: {ja.get(k)} vs {jb.get(k)}' for k in keys)[:400]}")
            sys.exit(f"{rel} differs")
    print(f"{len(files_a)} files equal but timings")


def numbers(path, kind):
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("#")]
    if rows[0][:2] == ["kind", "name"]:  # a solution file: x's values
        return [float(r[2]) for r in rows[1:] if r[0] == kind]
    head = rows[0]  # a trace: the objective and the gaps
    cols = [head.index(c) for c in ("objective", "gap", "best_gap") if c in head]
    return [float(r[c]) for r in rows[1:] for c in cols if r[c] not in ("", "nan")]


def close(a, b, tol, kind):
    x, y = numbers(a, kind), numbers(b, kind)
    if len(x) != len(y) or not x:
        sys.exit(f"{a}, {b}: {len(x)} and {len(y)} values")
    scale = max(1.0, max(abs(v) for v in x))
    diff = max(abs(u - v) for u, v in zip(x, y))
    if not diff <= tol * scale:
        sys.exit(f"{a}, {b}: max difference {diff:.3g} > {tol:g} * {scale:.3g}")
    print(f"{len(x)} values, max difference {diff:.3g} (scale {scale:.3g})")


if sys.argv[1] == "tree":
    tree(sys.argv[2], sys.argv[3])
else:
    close(sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else "x")
