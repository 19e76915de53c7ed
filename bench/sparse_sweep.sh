#!/bin/sh
# Task 1 on synthetic sparse data over d (docs/performance.md, "Sparse Jacobians"): 10 tasks of
# 200 LIBSVM rows, 50 distinct random features per row out of d, robust minimax regression (max,
# l1 ball of radius 5, momentum Variant II, nonconvex schedule, column generation), 200
# iterations, no gap report; the oracle's Jacobian "sparse" or "dense". Per line: d, the kind,
# the dense Jacobian's n x d (the sparse one stores the distinct features of each task's rows), microseconds per iteration (the run's own phase times, summary
# JSON) and the peak resident memory (/usr/bin/time -v), or "refused" when the composer refused
# the run at its memory limit.
#   bench/sparse_sweep.sh [d ...] > docs/perf/sparse_sweep.dat     (default d: 1000 10000 100000 1000000)
set -e
cd "$(dirname "$0")/../build"
export SCFW_PLUGIN_PATH=$PWD/lib/scfw/plugins
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sizes=${*:-1000 10000 100000 1000000}
echo "# d jacobian dense_n_x_d us_per_iteration max_rss_kb"
for d in $sizes; do
  python3 - "$d" "$work/data.svm" <<'PY'
import random, sys
d, path = int(sys.argv[1]), sys.argv[2]
g = random.Random(1)
with open(path, "w") as out:
    for r in range(10 * 200):
        cols = sorted(g.sample(range(1, d + 1), 50))
        out.write(("+1" if r % 2 else "-1") + "".join(" %d:%.6f" % (j, g.gauss(0, 1)) for j in cols) + "\n")
PY
  for kind in sparse dense; do
    cat >"$work/p.json" <<JSON
{ "seed": 1, "iterations": 200, "report": { "every": 0 },
  "oracle": { "plugin": "least_squares_tasks", "file": "data.svm", "tasks": 10, "features": $d, "batch": 1,
              "jacobian": "$kind" },
  "outer": { "plugin": "max" }, "domain": { "plugin": "l1_ball", "radius": 5 },
  "glmo": { "plugin": "column_generation" },
  "tracker": { "plugin": "momentum", "value": "taylor" }, "schedule": { "plugin": "nonconvex", "r": 2 } }
JSON
    if /usr/bin/time -v ./bin/scfw run "$work/p.json" -q --summary-json "$work/s.json" >"$work/out" 2>"$work/time"; then
      python3 - "$d" "$kind" "$work/s.json" "$work/time" <<'PY'
import json, re, sys
d, kind, summary, timing = sys.argv[1:]
s = json.load(open(summary))
rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(timing).read()).group(1)
t = s["times"]
us = 1e6 * (t["oracle"] + t["tracker"] + t["glmo"] + t["update"]) / s["iterations"]
stored = 10 * int(d)
print(d, kind, stored, "%.1f" % us, rss)
PY
    else
      echo "$d $kind - refused - # $(grep -m1 error "$work/out" "$work/time" | cut -c1-120)"
    fi
  done
done
