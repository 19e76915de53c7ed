"""scfw.solve, plugins and describe against the command line: the same problem, seed and options
give the same bits, the same summary and the same messages."""

import json
import math
import os
import re
import unittest

import numpy as np

import scfw
from scfw_test_support import SOURCE_DIR, TASK1, TASK2, TempDir, read_json, read_solution_x, read_trace, run_cli

# The summary's fields that measure time, not the run.
TIMED = {"seconds", "times"}


class ModuleTest(unittest.TestCase):
    def test_version_is_the_project_version(self):
        with open(os.path.join(SOURCE_DIR, "CMakeLists.txt")) as f:
            version = re.search(r"project\(scfw VERSION ([0-9.]+)", f.read()).group(1)
        self.assertEqual(scfw.__version__, version)
        code, out, _ = run_cli("--version")
        self.assertEqual(code, 0)
        self.assertTrue(out.startswith("scfw %s " % version))

    def test_plugins_as_the_command_line_lists_them(self):
        code, out, _ = run_cli("plugins", "--json")
        self.assertEqual(code, 0)
        # The module adds the components that stand for Python plugins (python_oracle,
        # python_outer, python_domain, python_schedule), from its own library.
        ours = scfw.plugins()
        self.assertEqual(sorted(p["name"] for p in ours if p["library_name"] == "python"),
                         ["python_domain", "python_oracle", "python_outer", "python_schedule"])
        self.assertEqual([p for p in ours if p["library_name"] != "python"], json.loads(out))

    def test_describe(self):
        entry = scfw.describe("l1_ball")
        self.assertEqual(entry["kind"], "domain")
        self.assertEqual([p for p in scfw.plugins() if p["name"] == "l1_ball"], [entry])
        self.assertIn("radius", [p["name"] for p in entry["parameters"]])

    def test_describe_unknown_name_says_what_the_command_line_says(self):
        code, _, err = run_cli("describe", "l1_bal")
        self.assertEqual(code, 2)
        with self.assertRaises(scfw.InputError) as caught:
            scfw.describe("l1_bal")
        self.assertEqual("error: " + str(caught.exception) + "\n", err)
        self.assertIsInstance(caught.exception, ValueError)


class SameAsTheCommandLine(unittest.TestCase):
    """One run through the command line and one through Python, same file, seed and options."""

    def check(self, problem, *cli_options, **options):
        with TempDir():
            code, _, err = run_cli("run", problem, "--quiet", "--solution", "cli.csv", "--trace", "cli_trace.csv",
                                   "--summary-json", "cli.json", *cli_options)
            self.assertEqual(code, 0, err)
            r = scfw.solve(problem, trace="py_trace.csv", **options)
            x, names = read_solution_x("cli.csv")
            # Bit for bit: the solution file holds 17 significant digits.
            self.assertEqual(r.x.dtype, np.float64)
            self.assertEqual(r.x.tolist(), x)
            self.assertEqual(r.x_names, names if any(names) else None)
            # The trace equals the file written by the same run, and the command line's but for
            # the clock.
            own = read_trace("py_trace.csv")
            cli = read_trace("cli_trace.csv")
            self.assertEqual(list(r.trace), list(cli))
            for column, values in r.trace.items():
                expected = [math.nan if v is None else v for v in own[column]]
                np.testing.assert_array_equal(values, expected, err_msg=column)
                if column != "seconds":
                    np.testing.assert_array_equal(values, [math.nan if v is None else v for v in cli[column]],
                                                  err_msg=column)
            self.assertEqual(r.trace["iteration"].dtype, np.int64)
            summary = read_json("cli.json")
            # The command line's summary also names the files that run wrote.
            self.assertEqual(summary.pop("files"), {"solution": "cli.csv", "trace": "cli_trace.csv"})
            self.assertEqual({k: v for k, v in r.summary.items() if k not in TIMED},
                             {k: v for k, v in summary.items() if k not in TIMED})
            self.assertEqual(r.status, summary["status"])
            self.assertEqual(r.iterations, summary["iterations"])
            self.assertEqual(r.gap, summary["final_gap"])
            self.assertEqual(r.objective, summary["objective"])
            return r

    def test_task1(self):
        r = self.check(TASK1, "--iterations", "300", "--seed", "7", iterations=300, seed=7)
        self.assertEqual(r.status, "iteration_limit")
        self.assertEqual(r.reason, "")

    def test_task2_with_names_and_reports(self):
        # Task 2 names its variables (the assets and VaR); gap_tolerance stops it early or not,
        # the same way on both sides.
        r = self.check(TASK2, "--iterations", "400", "--seed", "3", "--gap-tolerance", "1e-3",
                       iterations=400, seed=3, gap_tolerance=1e-3)
        self.assertIsNotNone(r.x_names)
        self.assertEqual(r.x_names[-1], "VaR")

    def test_best_iterate(self):
        with open(TASK1) as f:
            doc = json.load(f)
        doc["report"] = {"every": 50}
        with TempDir():
            with open("every50.json", "w") as f:
                json.dump(doc, f)
            code, _, err = run_cli("run", "every50.json", "--quiet", "--iterations", "600", "--seed", "2",
                                   "--best-iterate", "--solution", "cli.json")
            self.assertEqual(code, 0, err)
            solution = read_json("cli.json")
            r = scfw.solve("every50.json", iterations=600, seed=2, best_iterate=True)
            self.assertEqual(r.x.tolist(), solution["best"]["x"]["values"])
            self.assertEqual(r.best_iteration, solution["best"]["iteration"])
            self.assertEqual(r.y.tolist(), solution["x"]["values"])
            self.assertNotEqual(r.best_iteration, 600)

    def test_a_dict_is_the_file(self):
        with open(TASK1) as f:
            doc = json.load(f)
        doc["report"].pop("trace")
        a = scfw.solve(TASK1, iterations=200, seed=5)
        b = scfw.solve(doc, iterations=200, seed=5, base_dir=os.path.dirname(TASK1))
        self.assertEqual(a.x.tolist(), b.x.tolist())
        self.assertEqual(b.summary["source"], "problem")

    def test_warm_start_from_an_array_and_from_a_file(self):
        with TempDir():
            first = scfw.solve(TASK1, iterations=100, seed=1, solution="first.csv")
            from_array = scfw.solve(TASK1, iterations=100, seed=2, start=first.x)
            from_file = scfw.solve(TASK1, iterations=100, seed=2, start="first.csv")
            self.assertEqual(from_array.x.tolist(), from_file.x.tolist())
            code, _, err = run_cli("run", TASK1, "--quiet", "--iterations", "100", "--seed", "2", "--start",
                                   "first.csv", "--solution", "cli.csv")
            self.assertEqual(code, 0, err)
            self.assertEqual(from_file.x.tolist(), read_solution_x("cli.csv")[0])

    def test_result_x_is_not_copied(self):
        r = scfw.solve(TASK1, iterations=50)
        # The array owns the solver's vector: no NumPy allocation behind it, and it is writable.
        self.assertTrue(r.x.flags["OWNDATA"] is False and r.x.base is not None)
        self.assertTrue(r.x.flags["WRITEABLE"])
        self.assertIs(r.x, r.y)


class Options(unittest.TestCase):
    def test_unknown_option(self):
        with self.assertRaises(TypeError) as caught:
            scfw.solve(TASK1, iteratons=10)
        self.assertEqual(str(caught.exception),
                         "solve() got an unexpected keyword argument 'iteratons'; did you mean 'iterations'?")
        with self.assertRaises(TypeError) as caught:
            scfw.solve(TASK1, colour="red")
        self.assertEqual(str(caught.exception), "solve() got an unexpected keyword argument 'colour'")

    def test_wrong_type(self):
        with self.assertRaises(TypeError) as caught:
            scfw.solve(TASK1, iterations="10")
        self.assertEqual(str(caught.exception), "solve(): iterations: expected an int, got str")

    def test_values_out_of_range_as_the_command_line_says(self):
        cases = [({"iterations": 0}, "--iterations: expected an integer >= 1, got 0"),
                 ({"gap_tolerance": -1.0}, "--gap-tolerance: expected a number >= 0, got -1"),
                 ({"report_every": -1}, "--report-every: expected an integer >= 0, got -1"),
                 ({"seed": -1}, "--seed: expected an integer in [0, 2^64), got '-1'")]
        for options, message in cases:
            with self.assertRaises(scfw.InputError) as caught:
                scfw.solve(TASK1, **options)
            self.assertEqual(str(caught.exception), message)

    def test_a_bad_block_gets_the_files_located_message(self):
        with open(TASK1) as f:
            doc = json.load(f)
        doc["domain"]["radius"] = -1
        with TempDir():
            with open("bad.json", "w") as f:
                json.dump(doc, f)
            code, _, err = run_cli("run", "bad.json")
            self.assertEqual(code, 2)
            with self.assertRaises(scfw.InputError) as from_file:
                scfw.solve("bad.json")
            self.assertEqual("error: " + str(from_file.exception) + "\n", err)
            with self.assertRaises(scfw.InputError) as from_dict:
                scfw.solve(doc)
            self.assertEqual(str(from_dict.exception), str(from_file.exception).replace("bad.json", "problem", 1))
            self.assertEqual(str(from_dict.exception), "problem: /domain/radius: expected a number in (0, 1e10], got -1")

    def test_values_a_problem_file_cannot_hold(self):
        with open(TASK1) as f:
            doc = json.load(f)
        doc["domain"]["radius"] = float("nan")
        with self.assertRaises(scfw.InputError) as caught:
            scfw.solve(doc)
        self.assertEqual(str(caught.exception), "problem: /domain/radius: expected a finite number, got nan")
        doc["domain"]["radius"] = object()
        with self.assertRaises(scfw.InputError) as caught:
            scfw.solve(doc)
        self.assertEqual(str(caught.exception), "problem: /domain/radius: expected a JSON value (dict, list, str, "
                                                "number, bool or None), got object")

    def test_missing_file(self):
        with self.assertRaises(scfw.InputError) as caught:
            scfw.solve("no/such/problem.json")
        self.assertEqual(str(caught.exception), "no/such/problem.json: cannot open file (No such file or directory)")

    def test_nothing_on_stdout_unless_verbose(self):
        import contextlib
        import io
        quiet, loud = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(quiet):
            scfw.solve(TASK1, iterations=20)
        with contextlib.redirect_stdout(loud):
            r = scfw.solve(TASK1, iterations=20, verbose=True)
        self.assertEqual(quiet.getvalue(), "")
        self.assertEqual(loud.getvalue(), r.report)
        self.assertTrue(loud.getvalue().startswith("status          iteration limit after 20 of 20 iterations\n"))


if __name__ == "__main__":
    unittest.main()
