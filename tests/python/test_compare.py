"""scfw.compare writes what `scfw compare` writes and returns its summary table."""

import csv
import json
import math
import os
import signal
import threading
import unittest
import warnings

import scfw
from scfw_test_support import SOURCE_DIR, TempDir, run_cli

# Columns of summary.csv that measure time.
TIMED = ("sec_per_iter_oracle", "sec_per_iter_tracker", "sec_per_iter_glmo", "sec_per_iter_update",
         "sec_per_iter_gap", "sec_per_iter_total")


def small_experiment():
    with open(os.path.join(SOURCE_DIR, "experiments", "task1_synthetic.json")) as f:
        e = json.load(f)
    e["methods"] = e["methods"][:2]
    e["seeds"] = 2
    e["iterations"] = [100, 200]
    e["report"] = {"points": 4}
    e.pop("out", None)
    return e


def untimed(rows):
    return [{k: v for k, v in row.items() if k not in TIMED} for row in rows]


class CompareTest(unittest.TestCase):
    def test_same_table_and_files_as_the_command_line(self):
        with TempDir():
            with open("small.json", "w") as f:
                json.dump(small_experiment(), f)
            code, _, err = run_cli("compare", "small.json", "--out", "cli", "--jobs", "2", "--no-plots", "--quiet")
            self.assertEqual(code, 0, err)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                table = scfw.compare("small.json", jobs=2, out="py", plots=False)
            if not isinstance(table, list):  # pandas
                table = table.to_dict("records")
            with open(os.path.join("cli", "summary.csv"), newline="") as f:
                cli = list(csv.DictReader(f))
            self.assertEqual(len(table), 4)
            self.assertEqual([(r["method"], r["K"], r["runs"]) for r in table],
                             [(r["method"], int(r["K"]), int(r["runs"])) for r in cli])
            for ours, theirs in zip(untimed(table), untimed(cli)):
                for key, value in ours.items():
                    expected = theirs[key]
                    if isinstance(value, float):
                        self.assertTrue(value == float(expected) or (math.isnan(value) and expected == ""), key)
            self.assertEqual(sorted(os.listdir(os.path.join("py", "traces"))),
                             sorted(os.listdir(os.path.join("cli", "traces"))))
            for name in ("slopes.csv",):
                with open(os.path.join("py", name)) as a, open(os.path.join("cli", name)) as b:
                    self.assertEqual(a.read(), b.read())

    def test_a_dict_and_bad_input(self):
        e = small_experiment()
        e["seeds"] = 1
        e["iterations"] = [50]
        with TempDir():
            table = scfw.compare(e, jobs=1, out="d", plots=False)
            self.assertEqual(len(table), 2)
            e["methods"][0]["schedule"]["gamma"] = "K^^2"
            with self.assertRaises(scfw.InputError) as caught:
                scfw.compare(e, jobs=1, out="d", plots=False)
            self.assertTrue(str(caught.exception).startswith("experiment: /methods/0/schedule/gamma: "),
                            str(caught.exception))
            with self.assertRaises(scfw.InputError) as caught:
                scfw.compare(e, jobs=0)
            self.assertEqual(str(caught.exception), "--jobs: expected an integer in [1, 4096], got '0'")
            with self.assertRaises(scfw.InputError) as caught:
                scfw.compare(e, jobs=4097)
            self.assertEqual(str(caught.exception), "--jobs: expected an integer in [1, 4096], got '4097'")

    def test_ctrl_c_stops_the_runs(self):
        if threading.current_thread() is not threading.main_thread():
            self.skipTest("signals reach the main thread only")
        e = small_experiment()
        e["iterations"] = [10_000_000]
        with TempDir():
            timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
            timer.start()
            try:
                with self.assertRaises(KeyboardInterrupt):
                    scfw.compare(e, jobs=2, out="stopped", plots=False)
            finally:
                timer.cancel()
            # The runs stopped where they were, and the tables were written as scfw compare
            # writes them after Ctrl-C.
            self.assertTrue(os.path.isfile(os.path.join("stopped", "summary.csv")))


if __name__ == "__main__":
    unittest.main()
