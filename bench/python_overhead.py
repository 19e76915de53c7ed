"""What scfw.solve costs over `scfw run`, per iteration (docs/python.md, "Overhead").

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--repeats N]

For each problem (Task 1 and Task 2's examples, with their own K and seed), runs alternately
`scfw run FILE --summary-json` and scfw.solve(FILE), then scfw.solve with a Python callback at
every iteration, N times each, and prints the median of the run's own seconds per iteration
(the summary's "seconds": the solver loop, without loading the plugins and composing) and the
median wall time of the whole call (for the command, the process).

Then the cost of an oracle written in Python: Task 1's shape (10 least-squares tasks of 500
Gaussian rows, d = 100, batch 1, the max over the l1 ball of radius 5) solved with the C++
least_squares_tasks on LIBSVM files and with its NumPy twin scfw.oracles.LeastSquaresTasks on
the same rows, same seed. A bench, not a test: the numbers depend on the machine and its load.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import scfw
from scfw.oracles import LeastSquaresTasks

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SCFW = os.path.join(ROOT, "build", "bin", "scfw")
PROBLEMS = ["examples/minimax_synthetic.json", "examples/cvar_portfolio.json"]


def cli_run(problem, folder):
    summary = os.path.join(folder, "summary.json")
    t0 = time.perf_counter()
    subprocess.run([SCFW, "run", problem, "--quiet", "--summary-json", summary, "--trace",
                    os.path.join(folder, "trace.csv")], check=True, capture_output=True)
    wall = time.perf_counter() - t0
    with open(summary) as f:
        s = json.load(f)
    return s["seconds"] / s["iterations"], wall


def python_run(problem, folder, **options):
    t0 = time.perf_counter()
    r = scfw.solve(problem, trace=os.path.join(folder, "trace.csv"), **options)
    wall = time.perf_counter() - t0
    return r.seconds / r.iterations, wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print("scfw %s, Python %s, %d repeats, medians" % (scfw.__version__, sys.version.split()[0], args.repeats))
    print("%-34s %-22s %14s %12s" % ("problem", "how", "us/iteration", "wall s"))
    with tempfile.TemporaryDirectory() as folder:
        for name in PROBLEMS:
            problem = os.path.join(ROOT, name)
            runs = {"scfw run": [], "scfw.solve": [], "scfw.solve + callback": []}
            for _ in range(args.repeats):
                runs["scfw run"].append(cli_run(problem, folder))
                runs["scfw.solve"].append(python_run(problem, folder))
                runs["scfw.solve + callback"].append(python_run(problem, folder, callback=lambda s: None))
            base = statistics.median(p for p, _ in runs["scfw run"])
            for how, values in runs.items():
                per = statistics.median(p for p, _ in values)
                wall = statistics.median(w for _, w in values)
                print("%-34s %-22s %14.2f %12.3f   %+.1f%%" % (name, how, 1e6 * per, wall, 100 * (per / base - 1)))

    python_oracle(args.repeats)


def python_oracle(repeats, iterations=2000):
    rng = np.random.default_rng(1)
    tasks = []
    for i in range(10):
        A = rng.normal(size=(500, 100))
        tasks.append((A, A @ rng.normal(size=100) / 10 + rng.normal(size=500)))
    oracle = LeastSquaresTasks(tasks)
    with tempfile.TemporaryDirectory() as folder:
        files = oracle.write_libsvm(os.path.join(folder, "task"))
        problem = {"oracle": {"plugin": "least_squares_tasks", "files": files, "features": 100, "batch": 1},
                   "outer": {"plugin": "max"}, "domain": {"plugin": "l1_ball", "radius": 5}}
        cpp, py = [], []
        for _ in range(repeats):
            c = scfw.solve(problem, iterations=iterations, seed=1)
            p = scfw.solve(dict(problem, oracle={"plugin": "twin"}), iterations=iterations, seed=1,
                           plugins={"twin": oracle})
            cpp.append(c.seconds / c.iterations)
            py.append(p.seconds / p.iterations)
        differ = float(np.max(np.abs(c.x - p.x)))
        print("\nTask 1's shape, K = %d: the oracle in C++ %.1f us/iteration, in Python %.1f us/iteration "
              "(x %.0fx, +%.1f us); max |x_C++ - x_Python| = %.3g"
              % (iterations, 1e6 * statistics.median(cpp), 1e6 * statistics.median(py),
                 statistics.median(py) / statistics.median(cpp),
                 1e6 * (statistics.median(py) - statistics.median(cpp)), differ))


if __name__ == "__main__":
    main()
