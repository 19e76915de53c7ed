"""scfw.compare with plugins written in Python (plugins=...): the traces of an experiment over a
Python oracle are those of the same experiment over its C++ twin, and an exception raised in a
Python plugin fails its runs the way a failing C++ plugin does: the run is left out of the table
and named, with its message, in a RuntimeWarning and in runs.csv (docs/python.md)."""

import csv
import json
import math
import os
import unittest
import warnings

import numpy as np

import scfw
from scfw.oracles import LeastSquaresTasks
from scfw_test_support import TempDir, read_trace
from test_python_plugins import Schedule, write_tasks


def experiment(m=4, d=20):
    """Task-1-like: least squares over m tasks of task<i>.svm, their max, an l1 ball; two methods."""
    return {"oracle": {"plugin": "least_squares_tasks", "files": ",".join("task%d.svm" % i for i in range(m)),
                       "features": d, "batch": 1},
            "outer": {"plugin": "max"}, "domain": {"plugin": "l1_ball", "radius": 2},
            "methods": [{"label": "vanilla", "tracker": {"plugin": "vanilla"},
                         "schedule": {"plugin": "constant", "gamma": "K^-0.75", "beta": 1, "rho": 1}},
                        {"label": "momentum", "tracker": {"plugin": "momentum", "value": "polyak"},
                         "schedule": {"plugin": "nonconvex"}}],
            "seeds": 2, "iterations": [100, 200], "report": {"points": 5}}


def runs_csv(folder):
    with open(os.path.join(folder, "runs.csv"), newline="") as f:
        return list(csv.DictReader(f))


class Boom(Schedule):
    """The constant steps of Schedule, raising at iteration k = `at_k`."""

    def __init__(self, at_k):
        self.at_k = at_k

    def at(self, k, K):
        if k == self.at_k:
            raise ValueError("no step at k = %d" % k)
        return super().at(k, K)


class ComparePluginsTest(unittest.TestCase):
    def test_python_oracle_gives_the_traces_of_its_cpp_twin(self):
        with TempDir():
            oracle = write_tasks()
            tasks = [oracle.task(i) for i in range(oracle.outputs)]
            e = experiment()
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                cpp = scfw.compare(e, jobs=2, out="cpp", plots=False)
                py = scfw.compare(dict(e, oracle={"plugin": "mine"}), jobs=2, out="py", plots=False,
                                  plugins={"mine": LeastSquaresTasks(tasks)})
            if not isinstance(cpp, list):  # pandas
                cpp, py = cpp.to_dict("records"), py.to_dict("records")
            self.assertEqual([(r["method"], r["K"], r["runs"]) for r in py],
                             [(r["method"], r["K"], r["runs"]) for r in cpp])
            self.assertEqual(len(py), 4)
            names = sorted(os.listdir(os.path.join("cpp", "traces")))
            self.assertEqual(len(names), 8)  # 2 methods x 2 seeds x 2 budgets
            self.assertEqual(sorted(os.listdir(os.path.join("py", "traces"))), names)
            for name in names:
                ours, theirs = read_trace(os.path.join("py", "traces", name)), read_trace(os.path.join("cpp", "traces", name))
                self.assertEqual(sorted(ours), sorted(theirs), name)
                self.assertEqual(ours["iteration"], theirs["iteration"], name)
                self.assertEqual(ours["glmo_iterations"], theirs["glmo_iterations"], name)
                for column in ("objective", "gap", "best_gap", "gamma", "beta", "rho", "glmo_value"):
                    a = np.array([math.nan if v is None else v for v in ours[column]])
                    b = np.array([math.nan if v is None else v for v in theirs[column]])
                    # the tolerance of test_python_plugins' twin (the numbers came out equal there)
                    np.testing.assert_allclose(a, b, rtol=1e-12, atol=0, err_msg="%s: %s" % (name, column))
            self.assertEqual([(r["ok"], r["error"]) for r in runs_csv("py")], [("1", "")] * 8)

    def test_an_exception_in_a_python_plugin_fails_its_runs(self):
        with TempDir():
            write_tasks()
            e = experiment()
            e["methods"].append({"label": "boom", "tracker": {"plugin": "vanilla"}, "schedule": {"plugin": "steps"}})
            e["iterations"] = [50]
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                table = scfw.compare(e, jobs=2, out="boom", plots=False, plugins={"steps": Boom(7)})
            if not isinstance(table, list):
                table = table.to_dict("records")
            # The table counts the runs that succeeded; the failed runs are named with their message.
            self.assertEqual([(r["method"], r["runs"]) for r in table], [("vanilla", 2), ("momentum", 2), ("boom", 0)])
            messages = sorted(str(w.message) for w in caught if issubclass(w.category, RuntimeWarning))
            expected = ["scfw compare: run boom K=50 seed=%d failed: iteration 8 (schedule): steps: at() raised "
                        "ValueError: no step at k = 7" % seed for seed in (1, 2)]
            self.assertEqual(messages, expected)
            failed = [(r["seed"], r["ok"], r["error"]) for r in runs_csv("boom") if r["method"] == "boom"]
            self.assertEqual(failed, [(str(seed), "0", "iteration 8 (schedule): steps: at() raised ValueError: no "
                                                       "step at k = 7") for seed in (1, 2)])
            # The same experiment without the failing method gives the same table rows.
            e["methods"].pop()
            clean = scfw.compare(e, jobs=1, out="clean", plots=False)
            if not isinstance(clean, list):
                clean = clean.to_dict("records")
            for ours, theirs in zip(table, clean):
                self.assertEqual(ours["final_gap_mean"], theirs["final_gap_mean"])

    def test_python_plugins_in_an_experiment_file_and_bad_blocks(self):
        with TempDir():
            oracle = write_tasks()
            tasks = [oracle.task(i) for i in range(oracle.outputs)]
            e = dict(experiment(), oracle={"plugin": "mine"}, seeds=1, iterations=[40])
            with open("e.json", "w") as f:
                json.dump(e, f)
            table = scfw.compare("e.json", plots=False, plugins={"mine": LeastSquaresTasks(tasks)})
            self.assertEqual(len(table), 2)
            # The default folder is the file's: compare-<stem>, as for the command line.
            self.assertTrue(os.path.isfile(os.path.join("compare-e", "summary.csv")))
            with self.assertRaises(scfw.InputError) as caught:
                scfw.compare(dict(e, oracle={"plugin": "mine", "batch": 2}), plots=False,
                             plugins={"mine": LeastSquaresTasks(tasks)})
            self.assertEqual(str(caught.exception), "experiment: /oracle/batch: a Python plugin takes no parameters "
                                                    "in the problem (give them to its constructor)")
            bad = experiment()
            bad["methods"][1]["tracker"] = {"plugin": "mine"}
            with self.assertRaises(scfw.InputError) as caught:
                scfw.compare(bad, plots=False, plugins={"mine": LeastSquaresTasks(tasks)})
            self.assertEqual(str(caught.exception), "experiment: /methods/1/tracker/plugin: a Python plugin can play "
                                                    "the oracle, the outer function, the domain or the schedule, "
                                                    "not the tracker")
            with self.assertRaises(TypeError):
                scfw.compare(e, plugins=["mine"])


if __name__ == "__main__":
    unittest.main()
