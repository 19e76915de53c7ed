"""scfw.compare(..., data={...}) and scfw.check(..., data={...}): the arrays a problem names in
place of files reach every run of an experiment and the conformance checks, with the results of
the same numbers written to a file, and bad arrays get solve()'s messages."""

import csv
import os
import unittest

import numpy as np

import scfw
from scfw_test_support import TempDir
from test_data import returns, write_csv  # the same numbers as test_data's portfolio runs


def problem(**source):
    oracle = {"plugin": "portfolio_returns", "groups": 6, "batch": 2, "prices": False}
    oracle.update(source)
    return {"oracle": oracle,
            "outer": {"plugin": "cvar_ru", "alpha": 0.9},
            "domain": {"plugin": "simplex_interval", "lower": -1, "upper": 1}}


def experiment(**source):
    e = problem(**source)
    e.update({"name": "portfolio from memory",
              "methods": [{"label": "Variant I", "tracker": {"plugin": "momentum", "value": "polyak"},
                           "schedule": {"plugin": "nonconvex", "r": 2}},
                          {"label": "STORM", "tracker": {"plugin": "storm"},
                           "schedule": {"plugin": "storm", "r": 2}}],
              "seeds": 2, "iterations": [40, 80], "report": {"points": 4}})
    return e


def trace_rows(path):
    """A trace's rows without the wall-time column."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    keep = [j for j, name in enumerate(rows[0]) if name != "seconds"]
    return [[row[j] for j in keep] for row in rows]


class CompareWithData(unittest.TestCase):
    def test_every_run_gives_the_bits_of_the_same_numbers_in_a_file(self):
        R = returns(60, 4)
        with TempDir():
            write_csv("returns.csv", R)
            by_file = scfw.compare(experiment(file="returns.csv"), jobs=2, out="file", plots=False)
            by_array = scfw.compare(experiment(array="R"), jobs=2, out="array", plots=False, data={"R": R})
            names = sorted(os.listdir(os.path.join("file", "traces")))
            self.assertEqual(len(names), 8)  # 2 methods x 2 seeds x 2 budgets
            self.assertEqual(sorted(os.listdir(os.path.join("array", "traces"))), names)
            for name in names:
                self.assertEqual(trace_rows(os.path.join("array", "traces", name)),
                                 trace_rows(os.path.join("file", "traces", name)), name)
        if not isinstance(by_file, list):  # pandas
            by_file, by_array = by_file.to_dict("records"), by_array.to_dict("records")
        self.assertEqual([(r["method"], r["K"], r["final_gap_mean"]) for r in by_array],
                         [(r["method"], r["K"], r["final_gap_mean"]) for r in by_file])

    def test_bad_arrays_get_solve_s_messages(self):
        with self.assertRaises(scfw.InputError) as caught:
            scfw.compare(experiment(array="R"), jobs=1, out="never", plots=False, data={"Q": returns(10, 3)})
        self.assertEqual(str(caught.exception),
                         'experiment: /oracle/array: no array named "R" was passed (passed: "Q")')
        bad = returns(10, 3)
        bad[4, 1] = np.inf
        with self.assertRaises(scfw.InputError) as caught:
            scfw.compare(experiment(array="R"), jobs=1, out="never", plots=False, data={"R": bad})
        self.assertEqual(str(caught.exception), 'data "R": row 4, column 1: not a finite number (inf)')
        self.assertFalse(os.path.exists("never"))
        with self.assertRaises(TypeError) as caught:
            scfw.compare(experiment(array="R"), data=[returns(10, 3)])
        self.assertEqual(str(caught.exception), "compare(): data: expected a dict with str keys, got list")


class CheckWithData(unittest.TestCase):
    def test_the_checks_see_the_numbers_of_the_file(self):
        R = returns(60, 4)
        with TempDir():
            write_csv("returns.csv", R)
            by_file = scfw.check(problem(file="returns.csv"))
        by_array = scfw.check(problem(array="R"), data={"R": R})
        self.assertGreaterEqual(len(by_file), 4)
        self.assertNotIn("fail", [c["verdict"] for c in by_file])
        self.assertEqual([(c["role"], c["check"], c["verdict"], c["discrepancy"]) for c in by_array],
                         [(c["role"], c["check"], c["verdict"], c["discrepancy"]) for c in by_file])

    def test_bad_arrays_get_solve_s_messages(self):
        with self.assertRaises(scfw.InputError) as caught:
            scfw.check(problem(array="R"))
        self.assertTrue(str(caught.exception).startswith('problem: /oracle/array: no array named "R" was passed'),
                        str(caught.exception))
        with self.assertRaises(scfw.InputError) as caught:
            scfw.check(problem(array="R"), data={"R": np.ones((3, 2, 2))})
        self.assertEqual(str(caught.exception), 'data "R": expected a one- or two-dimensional array, got 3 dimensions')
        with self.assertRaises(TypeError) as caught:
            scfw.check(problem(array="R"), data={1: returns(10, 3)})
        self.assertEqual(str(caught.exception), "check(): data: expected a dict with str keys, got dict")


if __name__ == "__main__":
    unittest.main()
