"""What the Python module's tests share: the paths of the tree, running `scfw` and reading what
it writes."""

import csv
import json
import os
import subprocess
import tempfile

SOURCE_DIR = os.environ.get("SCFW_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BINARY_DIR = os.environ.get("SCFW_BINARY_DIR", os.path.join(SOURCE_DIR, "build"))
SCFW = os.path.join(BINARY_DIR, "bin", "scfw")
TASK1 = os.path.join(SOURCE_DIR, "examples", "minimax_synthetic.json")
TASK2 = os.path.join(SOURCE_DIR, "examples", "cvar_portfolio.json")


def run_cli(*args, cwd=None):
    """Runs `scfw ARGS`; returns (exit code, stdout, stderr). In the sanitizer build the app
    carries its own sanitizer runtime: the one preloaded into python3 is not handed down."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    p = subprocess.run([SCFW, *args], cwd=cwd, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def read_solution_x(path):
    """The x rows of a solution CSV: (values, names)."""
    values, names = [], []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):  # no options: the file is one plain table
            if row["kind"] == "x":
                values.append(float(row["value"]))
                names.append(row["name"])
    return values, names


def read_trace(path):
    """A trace CSV as {column: [float or None]}."""
    with open(path) as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = list(reader)
    return {name: [float(r[j]) if r[j] else None for r in rows] for j, name in enumerate(header)}


def read_json(path):
    with open(path) as f:
        return json.load(f)


class TempDir:
    """A temporary folder as the current directory (files the runs write land there)."""

    def __enter__(self):
        self._dir = tempfile.TemporaryDirectory(prefix="scfw-python-test-")
        self._cwd = os.getcwd()
        os.chdir(self._dir.name)
        return self._dir.name

    def __exit__(self, *exc):
        os.chdir(self._cwd)
        self._dir.cleanup()
