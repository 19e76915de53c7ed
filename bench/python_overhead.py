"""What scfw.solve costs over `scfw run`, per iteration (docs/python.md, "Overhead").

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--repeats N]
    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py --instructions K

For each problem (Task 1 and Task 2's examples, with their own K and seed), runs alternately
`scfw run FILE --summary-json` and scfw.solve(FILE), then scfw.solve with a Python callback at
every iteration, N times each, and prints the medians of the run's own wall seconds per
iteration (the summary's "seconds": the solver loop, without loading the plugins and composing)
and of the CPU seconds of the whole call per iteration (user + system; for the command, the
child process: its start, the plugins and the composing included), which a loaded machine
disturbs less.

With --instructions K it measures instead what the load does not disturb: the instructions
executed inside the solver loop (Solver::run, counted by valgrind's callgrind with
--toggle-collect) per iteration, for `scfw run FILE --iterations K` against scfw.solve(FILE,
iterations=K), and scfw.solve with a callback at every iteration, on the same two problems. The
loop is the same code in both; what the module adds there is its per-iteration hooks (the
signal check, the trace row kept in memory).

Then the cost of an oracle written in Python: Task 1's shape (10 least-squares tasks of 500
Gaussian rows, d = 100, batch 1, the max over the l1 ball of radius 5) solved with the C++
least_squares_tasks on LIBSVM files and with its NumPy twin scfw.oracles.LeastSquaresTasks on
the same rows, same seed.

Then what a Python callback costs per call: a problem whose iteration costs a few microseconds
(4 tasks of 50 rows, d = 20, read by least_squares_tasks), 100 000 iterations with and without
`callback=lambda s: None`. Last, how long Ctrl-C takes: SIGINT sent to the process 1 s into a
Task 1 solve, to KeyboardInterrupt caught; and two Task 1 solves one after the other against
the same two in two Python threads. A bench, not a test: the numbers depend on the
machine and its load.
"""

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

import scfw
from scfw.oracles import LeastSquaresTasks

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SCFW = os.path.join(ROOT, "build", "bin", "scfw")
PROBLEMS = ["examples/minimax_synthetic.json", "examples/cvar_portfolio.json"]


def cli_run(problem, folder):
    summary = os.path.join(folder, "summary.json")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([SCFW, "run", problem, "--quiet", "--summary-json", summary, "--trace",
                    os.path.join(folder, "trace.csv")], check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(summary) as f:
        s = json.load(f)
    return s["seconds"] / s["iterations"], cpu / s["iterations"]


def python_run(problem, folder, **options):
    t0 = time.process_time()
    r = scfw.solve(problem, trace=os.path.join(folder, "trace.csv"), **options)
    cpu = time.process_time() - t0
    return r.seconds / r.iterations, cpu / r.iterations


def collected(command, env=None):
    """Runs command under callgrind, counting the instructions inside Solver::run only."""
    with tempfile.TemporaryDirectory() as folder:
        p = subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=scfw::Solver::run()",
                            "--callgrind-out-file=" + os.path.join(folder, "callgrind.out")] + command,
                           cwd=folder, env=env, capture_output=True, text=True, check=True)
    for line in p.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1])
    raise RuntimeError("callgrind printed no count:\n" + p.stderr)


def instructions(iterations):
    print("scfw %s, instructions inside Solver::run per iteration (callgrind), K = %d" % (scfw.__version__, iterations))
    print("%-34s %-22s %14s" % ("problem", "how", "instr/it"))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "build", "python"))
    for name in PROBLEMS:
        problem = os.path.join(ROOT, name)
        solve = "import scfw; scfw.solve(%r, iterations=%d, trace='trace.csv'%s)"
        counts = {
            "scfw run": collected([SCFW, "run", problem, "--quiet", "--iterations", str(iterations), "--trace",
                                   "trace.csv"]),
            "scfw.solve": collected([sys.executable, "-c", solve % (problem, iterations, "")], env),
            "scfw.solve + callback": collected(
                [sys.executable, "-c", solve % (problem, iterations, ", callback=lambda s: None")], env),
        }
        base = counts["scfw run"]
        for how, n in counts.items():
            print("%-34s %-22s %14.0f %+8.3f%%" % (name, how, n / iterations, 100 * (n / base - 1)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--instructions", type=int, metavar="K",
                        help="count instructions per iteration under callgrind at K iterations instead")
    args = parser.parse_args()
    if args.instructions:
        instructions(args.instructions)
        return
    print("scfw %s, Python %s, %d repeats, medians" % (scfw.__version__, sys.version.split()[0], args.repeats))
    print("%-34s %-22s %16s %16s" % ("problem", "how", "loop us/it", "CPU us/it"))
    with tempfile.TemporaryDirectory() as folder:
        for name in PROBLEMS:
            problem = os.path.join(ROOT, name)
            runs = {"scfw run": [], "scfw.solve": [], "scfw.solve + callback": []}
            for _ in range(args.repeats):
                runs["scfw run"].append(cli_run(problem, folder))
                runs["scfw.solve"].append(python_run(problem, folder))
                runs["scfw.solve + callback"].append(python_run(problem, folder, callback=lambda s: None))
            base = statistics.median(p for p, _ in runs["scfw run"])
            base_cpu = statistics.median(c for _, c in runs["scfw run"])
            for how, values in runs.items():
                per = statistics.median(p for p, _ in values)
                cpu = statistics.median(c for _, c in values)
                print("%-34s %-22s %8.2f %+6.1f%% %8.2f %+6.1f%%" % (name, how, 1e6 * per, 100 * (per / base - 1),
                                                                   1e6 * cpu, 100 * (cpu / base_cpu - 1)))

    python_oracle(args.repeats)
    callback_cost(args.repeats)
    ctrl_c(args.repeats)
    two_threads(args.repeats)


def two_threads(repeats, iterations=4000):
    problem = os.path.join(ROOT, PROBLEMS[0])
    one_by_one, threads = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for seed in (1, 2):
            scfw.solve(problem, iterations=iterations, seed=seed)
        one_by_one.append(time.perf_counter() - t0)
        workers = [threading.Thread(target=scfw.solve, args=(problem,), kwargs={"iterations": iterations, "seed": s})
                   for s in (1, 2)]
        t0 = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        threads.append(time.perf_counter() - t0)
    a, b = statistics.median(one_by_one), statistics.median(threads)
    print("Two Task 1 solves, K = %d: %.2f s one after the other, %.2f s in two threads (%.2f times faster)"
          % (iterations, a, b, a / b))


def random_tasks(m, rows, d, seed=1):
    rng = np.random.default_rng(seed)
    tasks = []
    for _ in range(m):
        A = rng.normal(size=(rows, d))
        tasks.append((A, A @ rng.normal(size=d) / 10 + rng.normal(size=rows)))
    return LeastSquaresTasks(tasks)


def callback_cost(repeats, iterations=100000):
    with tempfile.TemporaryDirectory() as folder:
        files = random_tasks(4, 50, 20).write_libsvm(os.path.join(folder, "task"))
        problem = {"oracle": {"plugin": "least_squares_tasks", "files": files, "features": 20, "batch": 1},
                   "outer": {"plugin": "max"}, "domain": {"plugin": "l1_ball", "radius": 2}}
        plain, called = [], []
        for _ in range(repeats):
            plain.append(python_run(problem, folder, iterations=iterations)[1])
            called.append(python_run(problem, folder, iterations=iterations, callback=lambda s: None)[1])
    a, b = statistics.median(plain), statistics.median(called)
    print("\nA callback at every iteration, K = %d: %.2f CPU us/iteration without, %.2f with: %.2f us a call"
          % (iterations, 1e6 * a, 1e6 * b, 1e6 * (b - a)))


def ctrl_c(repeats):
    latency = []
    for _ in range(repeats):
        sent = []

        def interrupt():
            sent.append(time.perf_counter())
            os.kill(os.getpid(), signal.SIGINT)

        timer = threading.Timer(1.0, interrupt)
        timer.start()
        try:
            scfw.solve(os.path.join(ROOT, PROBLEMS[0]), iterations=10**9)
        except KeyboardInterrupt:
            latency.append(time.perf_counter() - sent[0])
    print("Ctrl-C on Task 1: KeyboardInterrupt %.1f ms after SIGINT (median; max %.1f ms)"
          % (1e3 * statistics.median(latency), 1e3 * max(latency)))


def python_oracle(repeats, iterations=2000):
    oracle = random_tasks(10, 500, 100)
    with tempfile.TemporaryDirectory() as folder:
        files = oracle.write_libsvm(os.path.join(folder, "task"))
        problem = {"oracle": {"plugin": "least_squares_tasks", "files": files, "features": 100, "batch": 1},
                   "outer": {"plugin": "max"}, "domain": {"plugin": "l1_ball", "radius": 5}}
        cpp, py = [], []
        for _ in range(repeats):
            t0 = time.process_time()
            c = scfw.solve(problem, iterations=iterations, seed=1)
            t1 = time.process_time()
            p = scfw.solve(dict(problem, oracle={"plugin": "twin"}), iterations=iterations, seed=1,
                           plugins={"twin": oracle})
            t2 = time.process_time()
            cpp.append((t1 - t0) / c.iterations)
            py.append((t2 - t1) / p.iterations)
        differ = float(np.max(np.abs(c.x - p.x)))
        print("\nTask 1's shape, K = %d: the oracle in C++ %.1f CPU us/iteration, in Python %.1f "
              "(%.1f times, +%.1f us); max |x_C++ - x_Python| = %.3g"
              % (iterations, 1e6 * statistics.median(cpp), 1e6 * statistics.median(py),
                 statistics.median(py) / statistics.median(cpp),
                 1e6 * (statistics.median(py) - statistics.median(cpp)), differ))


if __name__ == "__main__":
    main()
