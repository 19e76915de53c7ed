"""scfw from Python: solve stochastic fully composite problems with the Hybrid Momentum
Stochastic Frank-Wolfe method, read the solution and the trace as NumPy arrays.

    import scfw
    r = scfw.solve("examples/minimax_synthetic.json", iterations=2000, seed=3)
    r.x, r.status, r.gap, r.trace["gap"], r.summary["calls"]

The guide is docs/python.md. ``solve`` takes a problem file's path or a dict with the structure
of a problem file; its keyword options override the file as the command line does.
"""

import csv
import difflib
import json
import math
import numbers
import os
import sys
import threading
import warnings

try:
    import numpy as np
except ImportError as e:  # pragma: no cover - depends on the interpreter
    raise ImportError("scfw needs NumPy, which %s cannot import: the module is built for Debian's "
                      "/usr/bin/python3 and its python3-numpy (docs/python.md)" % sys.executable) from e

from . import _scfw
from ._scfw import Expr, InputError, IterationState, Model, SolverError

__version__ = _scfw.__version__

__all__ = ["solve", "validate", "compare", "check", "check_oracle", "plugins", "describe", "last_result", "Result", "IterationState", "InputError",
           "SolverError", "Model", "Expr", "OPTIONS", "__version__"]

# The keyword options of solve(), with what each accepts.
OPTIONS = {
    "iterations": "int >= 1: K (the file's \"iterations\")",
    "seed": "int in [0, 2^64): the run's seed (\"seed\")",
    "gap_tolerance": "number >= 0: stop at a reported gap <= this (\"stop\": {\"gap_tolerance\"})",
    "time_limit": "number >= 0: stop after this many seconds (\"stop\": {\"time_limit\"})",
    "report_every": "int >= 0: the exact gap every this many iterations (\"report\": {\"every\"})",
    "trace": "path: also write the trace CSV there (\"report\": {\"trace\"})",
    "solution": "path: also write the solution file there, CSV or JSON (\"output\": {\"solution\"})",
    "summary_json": "path: also write the JSON summary there (\"output\": {\"summary_json\"})",
    "best_iterate": "bool: x is the iterate of the best reported gap (\"output\": {\"best_iterate\"})",
    "start": "path of a solution file, or an array: the warm start y_0 (\"start\")",
    "memory_limit": "int (bytes) or str (\"512MiB\"): refuse a larger run",
    "checkpoint": "path: write the run's state there (docs/checkpoint.md; `scfw run --checkpoint`)",
    "checkpoint_every": "int >= 1: ... after every this many iterations (`--checkpoint-every`)",
    "checkpoint_seconds": "number > 0: ... every this many seconds of run time (`--checkpoint-seconds`; "
                          "default 60 when neither is given)",
    "resume": "path: continue the run saved in this checkpoint (`scfw run --resume`)",
    "base_dir": "path: where relative data paths of a dict problem resolve (default: the current folder)",
    "plugins": "dict name -> object: oracles, outer functions, domains and schedules written in Python, named in "
               "the problem",
    "data": "dict name -> array: data in memory, named by the problem in place of a file (\"array\": NAME); "
            "a NumPy array, a scipy.sparse matrix, or a CSR (indptr, indices, values, shape) tuple",
    "callback": "callable(state) -> None or bool: False stops the run",
    "callback_every": "int >= 1: call the callback every this many iterations (default 1)",
    "progress": "bool or seconds: a progress line on stderr (True: as the command line)",
    "verbose": "bool: print the command line's summary to stdout",
}

_TRACE_INTEGER_COLUMNS = ("iteration", "glmo_iterations")
_last = None
_last_lock = threading.Lock()


class Result:
    """What a run produced.

    x            y_K as a float64 array (the best-gap iterate instead with best_iterate=True)
    x_names      the variables' names (list of str) or None
    y            y_K, always
    status       "iteration_limit", "gap_tolerance", "time_limit", "stopped", "interrupted", "failed"
    reason       why the run ended early ("" after all K iterations)
    objective    phi(y_K) = F(f(y_K), y_K) with the exact f, or None without an exact evaluation
    gap          the last reported generalized Frank-Wolfe gap, or None
    best_gap     the smallest reported gap, or None
    iterations   iterations done
    seconds      wall time of the run
    trace        dict of arrays keyed by the trace CSV's columns (NaN for an empty field)
    summary      dict: the fields of `scfw run --summary-json`
    f, f_names   f(y_K) and the outputs' names (None without an exact evaluation)
    shape        (rows, cols) of a matrix domain, else None
    best_iteration  the iteration of x with best_iterate=True, else None
    factors      y_K as factors when the run kept them (matrix_completion's "coordinates":
                 "observed"): (coef, U, V) with the whole matrix y = U @ diag(coef) @ V.T; else None
    report       the summary as `scfw run` prints it
    """

    __slots__ = ("x", "x_names", "y", "status", "reason", "message", "objective", "gap", "best_gap",
                 "iterations", "seconds", "trace", "summary", "f", "f_names", "shape", "best_iteration",
                 "factors", "report")

    def __repr__(self):
        gap = "None" if self.gap is None else "%.6g" % self.gap
        return "<scfw.Result %s: %d iterations, objective %s, gap %s, x of size %d>" % (
            self.status, self.iterations, self.objective, gap, self.x.size)


def last_result():
    """The Result of the latest solve() that ran (in any thread), also one that raised an
    exception from a callback or Ctrl-C; None before the first."""
    with _last_lock:
        return _last


def plugins():
    """Every plugin found, as `scfw plugins --json`: dicts with name, kind, version, library,
    library_name, summary and parameters."""
    return json.loads(_scfw.plugins_json())


def describe(name, kind=None):
    """The plugin called `name` (of role `kind`, e.g. "oracle", when several roles use the name):
    a dict as an element of plugins(). An unknown name raises InputError."""
    found = json.loads(_scfw.describe_json(str(name)))
    if kind is not None:
        found = [p for p in found if p["kind"] == kind]
    if found:
        return found[0]
    msg = 'unknown plugin "%s"' % name + ("" if kind is None else " of kind %s" % kind)
    close = _scfw.closest_plugin_names(str(name))
    if close:
        quoted = ['"%s"' % c for c in close]
        listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
        msg += "; did you mean %s?" % listed
    raise InputError(msg + " ('scfw plugins' lists them all)")


def _type_name(value):
    return type(value).__name__


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _json_value(value, pointer, source):
    """A problem dict's value as plain JSON data; anything a problem file cannot hold raises
    InputError at its JSON pointer."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    if isinstance(value, str):
        return value
    if _is_int(value):
        return int(value)
    if _is_number(value):
        v = float(value)
        if not math.isfinite(v):
            raise InputError("%s: %s: expected a finite number, got %r" % (source, pointer or "/", v))
        return v
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InputError("%s: %s: expected string keys, got %s %r" % (source, pointer or "/", _type_name(key), key))
            escaped = key.replace("~", "~0").replace("/", "~1")
            out[key] = _json_value(item, pointer + "/" + escaped, source)
        return out
    if isinstance(value, (list, tuple, np.ndarray)):
        items = value.tolist() if isinstance(value, np.ndarray) else value
        return [_json_value(item, "%s/%d" % (pointer, i), source) for i, item in enumerate(items)]
    raise InputError("%s: %s: expected a JSON value (dict, list, str, number, bool or None), got %s" % (
        source, pointer or "/", _type_name(value)))


def _document(function, what, value, base_dir):
    """(is_file, path or JSON text, source, base folder) of a file's path or a dict: `what`
    ("problem") names a dict in messages; a dict's relative paths resolve against base_dir."""
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        return True, path, path, os.path.dirname(path)
    if isinstance(value, dict):
        text = json.dumps(_json_value(value, "", what), allow_nan=False)
        return False, text, what, os.fspath(base_dir) if base_dir is not None else ""
    raise TypeError("%s(): %s: expected a path or a dict, got %s" % (function, what, _type_name(value)))


# The roles a Python plugin can play, and the component that stands for it in the problem.
_PYTHON_ROLES = {"oracle": "python_oracle", "outer": "python_outer", "domain": "python_domain",
                 "schedule": "python_schedule"}


def _read_json(path):
    with open(path) as f:
        try:
            return json.load(f)
        except ValueError as e:
            raise InputError("%s: %s" % (path, e)) from None


def _rewrite_python_blocks(doc, python_plugins, source, pointer=""):
    """`doc` (a dict) with each block {"plugin": NAME} naming a key of `python_plugins` rewritten
    as {"plugin": "python_<role>", "object": NAME}; `pointer` is where `doc` sits in its file."""
    doc = dict(doc)
    for role, block in doc.items():
        if not isinstance(block, dict) or block.get("plugin") not in python_plugins:
            continue
        if role not in _PYTHON_ROLES:
            raise InputError("%s: %s/%s/plugin: a Python plugin can play the oracle, the outer "
                             "function, the domain or the schedule, not the %s" % (source, pointer, role, role))
        extra = sorted(k for k in block if k != "plugin")
        if extra:
            raise InputError("%s: %s/%s/%s: a Python plugin takes no parameters in the problem (give them to "
                             "its constructor)" % (source, pointer, role, extra[0]))
        doc[role] = {"plugin": _PYTHON_ROLES[role], "object": block["plugin"]}
    return doc


def _with_python_plugins(problem, python_plugins):
    """The problem with its blocks naming Python plugins rewritten (_rewrite_python_blocks)."""
    if isinstance(problem, (str, os.PathLike)):
        path = os.fspath(problem)
        problem = dict(_read_json(path))
        problem.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    return _rewrite_python_blocks(problem, python_plugins, "problem")


def _experiment_with_python_plugins(experiment, python_plugins, source):
    """The experiment (a dict) with the blocks naming Python plugins rewritten: its problem
    blocks and each method's tracker and schedule."""
    experiment = _rewrite_python_blocks(experiment, python_plugins, source)
    methods = experiment.get("methods")
    if isinstance(methods, list):
        experiment["methods"] = [_rewrite_python_blocks(m, python_plugins, source, "/methods/%d" % i)
                                 if isinstance(m, dict) else m for i, m in enumerate(methods)]
    return experiment


def _data_option(data, function):
    """The data= argument of check() and compare() as _data_arrays' list (TypeError as solve's)."""
    if data is None:
        return []
    if not (isinstance(data, dict) and all(isinstance(k, str) for k in data)):
        raise TypeError("%s(): data: expected a dict with str keys, got %s" % (function, _type_name(data)))
    return _data_arrays(data)


def check(problem, plugins=None, base_dir=None, data=None):
    """`scfw check`: the conformance checks of the problem's oracle, outer function and domain
    (Python plugins included, given as in solve(); arrays named by the problem in `data`, as in
    solve()) and of the run's saved state. Returns a list of
    dicts, one per check: role, plugin, check (what was compared), verdict ("pass", "fail",
    "skipped"), discrepancy, allowed, detail, line (the command line's line for it). A failed check
    is a verdict, not an exception; bad input raises InputError as solve() does."""
    python_plugins = plugins or {}
    if not isinstance(python_plugins, dict):
        raise TypeError("check(): plugins: expected a dict name -> object, got %s" % _type_name(python_plugins))
    if python_plugins:
        if isinstance(problem, (str, os.PathLike)) and base_dir is None:
            base_dir = os.path.dirname(os.fspath(problem))
        problem = _with_python_plugins(problem, python_plugins)
    arrays = _data_option(data, "check")
    is_file, text, source, base = _document("check", "problem", problem, base_dir)
    return _scfw.check(text, is_file, source, base, python_plugins, arrays)


def check_oracle(oracle, x, samples=20000, z_limit=5.0, fd_step=1e-6, fd_tolerance=1e-5, seed=1):
    """The SDK's conformance check of an oracle (scfw/conformance.hpp) on a Python oracle at x: the
    mean of `samples` sampled f and J against the exact ones (within z_limit standard errors),
    and central finite differences of the exact and of one sample's f against their Jacobians.
    Needs the oracle's exact(). Returns a dict: ok, max_error, message."""
    return _scfw.check_oracle(oracle, np.asarray(x, dtype=np.float64), int(samples), float(z_limit), float(fd_step),
                              float(fd_tolerance), int(seed))


def _check_options(options, function):
    """TypeError for an unknown option or a value of the wrong type, naming the option."""
    for key, value in options.items():
        if key not in OPTIONS:
            msg = "%s() got an unexpected keyword argument '%s'" % (function, key)
            close = difflib.get_close_matches(key, OPTIONS.keys(), n=1)
            if close:
                msg += "; did you mean '%s'?" % close[0]
            raise TypeError(msg)
        if value is None:
            continue

        def expect(ok, what):
            if not ok:
                raise TypeError("%s(): %s: expected %s, got %s" % (function, key, what, _type_name(value)))

        if key in ("iterations", "seed", "report_every", "callback_every", "checkpoint_every"):
            expect(_is_int(value), "an int")
        elif key in ("gap_tolerance", "time_limit", "checkpoint_seconds"):
            expect(_is_number(value), "a number")
        elif key in ("trace", "solution", "summary_json", "base_dir", "checkpoint", "resume"):
            expect(isinstance(value, (str, os.PathLike)), "a path (str or os.PathLike)")
        elif key in ("best_iterate", "verbose"):
            expect(isinstance(value, (bool, np.bool_)), "a bool")
        elif key == "start":
            expect(isinstance(value, (str, os.PathLike, np.ndarray, list, tuple)), "a path or an array")
        elif key == "memory_limit":
            expect(_is_int(value) or isinstance(value, str), "an int (bytes) or a str such as '512MiB'")
        elif key == "callback":
            expect(callable(value), "a callable")
        elif key in ("plugins", "data"):
            expect(isinstance(value, dict) and all(isinstance(k, str) for k in value), "a dict with str keys")
        elif key == "progress":
            expect(isinstance(value, (bool, np.bool_)) or _is_number(value), "a bool or a number of seconds")


def _float64(name, value, what=""):
    """`value` as a C-contiguous float64 array: the array itself when it already is one (no copy),
    else one converted copy. InputError naming the array for anything that is not numbers."""
    try:
        a = np.asarray(value)
        if a.dtype.kind not in "biuf":
            raise TypeError
        return np.ascontiguousarray(a, dtype=np.float64)
    except (TypeError, ValueError):
        kind = getattr(getattr(value, "dtype", None), "name", None) or _type_name(value)
        raise InputError('data "%s": expected real numbers%s, got %s' % (name, what, kind)) from None


def _csr_parts(name, indptr, indices, values, shape):
    """A CSR matrix as the module takes it: ("csr", indptr, indices, values, rows, cols), the
    indices of one integer type (int32 when both fit, else int64), each C-contiguous."""
    try:
        rows, cols = (int(v) for v in shape)
    except (TypeError, ValueError):
        raise InputError('data "%s": expected a shape (rows, cols), got %r' % (name, shape)) from None
    if rows < 0 or cols < 0:
        raise InputError('data "%s": the shape (%d, %d) is negative' % (name, rows, cols))
    indptr, indices = np.asarray(indptr), np.asarray(indices)
    for part, a in (("indptr", indptr), ("indices", indices)):
        if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
            raise InputError('data "%s": %s: expected a one-dimensional array of integers, got %s of %d dimension(s)'
                             % (name, part, a.dtype.name, a.ndim))
    index = np.int32 if indptr.dtype.itemsize <= 4 and indices.dtype.itemsize <= 4 and \
        indptr.dtype == indices.dtype and indptr.dtype.kind == "i" else np.int64
    values = _float64(name, values, " (values)")
    if values.ndim != 1:
        raise InputError('data "%s": values: expected a one-dimensional array, got %d dimensions' % (name, values.ndim))
    return ("csr", np.ascontiguousarray(indptr, dtype=index), np.ascontiguousarray(indices, dtype=index), values,
            rows, cols)


def _data_arrays(data):
    """solve(data=...) as a list of (name, "dense", array) and (name, "csr", indptr, indices,
    values, rows, cols), each array C-contiguous float64 (int32 or int64 indices): a NumPy array
    that already is one is passed as it is, anything else is converted once."""
    out = []
    for name, value in data.items():
        if hasattr(value, "tocsr") and hasattr(value, "nnz"):  # a scipy.sparse matrix or array
            m = value.tocsr()
            if not m.has_canonical_format:
                m = m.copy()
                m.sum_duplicates()
            out.append((name,) + _csr_parts(name, m.indptr, m.indices, m.data, m.shape))
            continue
        if isinstance(value, dict):
            missing = [k for k in ("indptr", "indices", "values", "shape") if k not in value]
            if missing:
                raise InputError('data "%s": a CSR dict needs "indptr", "indices", "values" and "shape" (no "%s")'
                                 % (name, missing[0]))
            out.append((name,) + _csr_parts(name, value["indptr"], value["indices"], value["values"], value["shape"]))
            continue
        if isinstance(value, tuple) and len(value) == 4 and isinstance(value[3], tuple):
            out.append((name,) + _csr_parts(name, *value))
            continue
        a = _float64(name, value)
        if a.ndim not in (1, 2):
            raise InputError('data "%s": expected a one- or two-dimensional array, got %d dimensions' % (name, a.ndim))
        out.append((name, "dense", a))
    return out


def _check_checkpoint_options(options):
    """The checkpoint options' values, refused with `scfw run`'s messages (InputError)."""
    for key in ("checkpoint_every", "checkpoint_seconds"):
        if options.get(key) is not None and options.get("checkpoint") is None:
            raise InputError("--%s: needs --checkpoint FILE" % key.replace("_", "-"))
    every = options.get("checkpoint_every")
    if every is not None and every < 1:
        raise InputError("--checkpoint-every: expected an integer >= 1, got '%d'" % every)
    seconds = options.get("checkpoint_seconds")
    if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
        raise InputError("--checkpoint-seconds: expected a number > 0, got '%s'" % seconds)
    if options.get("resume") is not None and options.get("start") is not None:
        raise InputError("--start and --resume: a resumed run continues from its checkpoint; give one of them")


def _parse_trace(text):
    lines = text.splitlines()
    columns = lines[0].split(",") if lines else []
    rows = [line.split(",") for line in lines[1:] if line]
    trace = {}
    for j, name in enumerate(columns):
        if name in _TRACE_INTEGER_COLUMNS:
            trace[name] = np.array([int(r[j]) for r in rows], dtype=np.int64)
        else:
            trace[name] = np.array([float(r[j]) if r[j] else math.nan for r in rows], dtype=np.float64)
    return trace


def solve(problem, **options):
    """Solves a problem: `problem` is the path of a problem file or a dict with the structure of
    one; the keyword options (see OPTIONS) override it as `scfw run`'s options do. Returns a
    Result.

    Bad input raises InputError (a ValueError) with the command line's located message; a
    failure of the run raises SolverError (a RuntimeError). An exception raised by the callback,
    and KeyboardInterrupt on Ctrl-C, end the run after the current iteration and are raised
    again here, with the partial Result as their `result` attribute (and in last_result()).
    """
    return _run(problem, options, compose_only=False)


def validate(problem, **options):
    """Composes the problem as solve() would, without solving it (`scfw validate`): every block
    checked against its plugin's parameters, the data read, the start checked. Returns a dict:
    plugins [(role, name)], dim, outputs, memory_bytes (what a run would hold), notes. Raises as
    solve() does."""
    return _run(problem, options, compose_only=True)


def _run(problem, options, compose_only):
    global _last
    function = "validate" if compose_only else "solve"
    _check_options(options, function)
    every = options.get("callback_every")
    if every is not None and every < 1:
        raise InputError("callback_every: expected an integer >= 1, got %d" % every)
    seed = options.get("seed")
    if seed is not None and not 0 <= seed < 2**64:
        raise InputError("--seed: expected an integer in [0, 2^64), got '%d'" % seed)
    _check_checkpoint_options(options)
    python_plugins = options.get("plugins") or {}
    if python_plugins:
        if isinstance(problem, (str, os.PathLike)) and options.get("base_dir") is None:
            options["base_dir"] = os.path.dirname(os.fspath(problem))
        problem = _with_python_plugins(problem, python_plugins)
    is_file, text, source, base_dir = _document(function, "problem", problem, options.get("base_dir"))

    passed = {}
    for key in ("iterations", "seed", "gap_tolerance", "time_limit", "report_every", "best_iterate",
                "memory_limit"):
        if options.get(key) is not None:
            passed[key] = options[key]
    for key in ("checkpoint_every", "checkpoint_seconds"):
        if options.get(key) is not None:
            passed[key] = options[key]
    for key in ("trace", "solution", "summary_json", "checkpoint", "resume"):
        if options.get(key) is not None:
            passed[key] = os.fspath(options[key])
    start = options.get("start")
    start_values = None
    if isinstance(start, (str, os.PathLike)):
        passed["start"] = os.fspath(start)
    elif start is not None:
        start_values = np.asarray(start, dtype=np.float64)
    progress = options.get("progress")
    progress_seconds = 0.0
    if progress is True:
        progress_seconds = -1.0  # the command line's line on a terminal, else a line a second
    elif progress not in (None, False):
        if not (math.isfinite(progress) and progress > 0):
            raise InputError("--progress: expected a number of seconds > 0, got '%r'" % progress)
        progress_seconds = float(progress)

    data = _data_arrays(options.get("data") or {})
    out = _scfw.solve(text, is_file, source, base_dir, passed, options.get("callback"),
                      int(options.get("callback_every") or 1), progress_seconds, start_values, python_plugins,
                      compose_only, data)
    if compose_only:
        out["plugins"] = [tuple(p) for p in out["plugins"]]
        return out

    r = Result()
    r.y = out["y"]
    r.best_iteration = out["best_iteration"]
    r.factors = out["factors"]
    r.x = out["best_x"] if out["best_x"] is not None else r.y
    r.x_names = out["x_names"]
    r.status = out["status"]
    r.reason = out["reason"]
    r.message = out["message"]
    r.objective = out["objective"]
    r.gap = out["gap"]
    r.best_gap = out["best_gap"]
    r.iterations = out["iterations"]
    r.seconds = out["seconds"]
    r.trace = _parse_trace(out["trace_csv"])
    r.summary = json.loads(out["summary_json"])
    r.f = out["f"]
    r.f_names = out["f_names"]
    r.shape = out["shape"]
    r.report = out["report"]
    with _last_lock:
        _last = r
    if options.get("verbose"):
        print(r.report, end="" if r.report.endswith("\n") else "\n")
    error = out["error"]
    if error is not None:
        try:
            error.result = r
        except AttributeError:
            pass
        raise error
    return r


def _table_value(column, text):
    if column == "method":
        return text
    if column in ("K", "runs"):
        return int(text)
    return float(text) if text else math.nan


def compare(experiment, jobs=None, out=None, plots=True, progress=False, base_dir=None, plugins=None, data=None):
    """Runs an experiment as `scfw compare` does: every (method, seed, K) on `jobs` worker
    threads (default: the hardware threads), and writes the same files to `out` (default: the
    experiment's "out", else compare-<file stem>): traces/, summary.csv, slopes.csv, runs.csv and
    the plots. `experiment` is an experiment file's path or a dict with its structure (relative
    data paths then resolve against `base_dir`, default the current folder).

    `plugins` (dict name -> object) are oracles, domains and schedules written in Python, named
    in the experiment as in solve(); with them the runs go one after the other on one worker
    thread, whatever `jobs` says. `data` (dict name -> array) holds the arrays the experiment's
    problem names in place of files, as in solve(); every run reads them, none copies them.

    Returns the table of summary.csv: a pandas DataFrame when pandas can be imported, else a list
    of dicts (method, K, runs, final_gap_mean, ...). Runs that failed (an exception in a Python
    plugin too) are left out of the table's statistics and named in a RuntimeWarning with their
    message. Ctrl-C
    stops the runs and raises KeyboardInterrupt.
    """
    if jobs is not None and (not _is_int(jobs) or not 1 <= jobs <= 4096):
        if not _is_int(jobs):
            raise TypeError("compare(): jobs: expected an int, got %s" % _type_name(jobs))
        raise InputError("--jobs: expected an integer in [1, 4096], got '%d'" % jobs)
    if plugins is not None and not (isinstance(plugins, dict) and all(isinstance(k, str) for k in plugins)):
        raise TypeError("compare(): plugins: expected a dict with str keys, got %s" % _type_name(plugins))
    plugins = plugins or {}
    arrays = _data_option(data, "compare")
    if plugins:
        if isinstance(experiment, (str, os.PathLike)):
            path = os.fspath(experiment)
            doc = _experiment_with_python_plugins(_read_json(path), plugins, path)
            text = json.dumps(_json_value(doc, "", path), allow_nan=False)
            is_file, source, folder = False, path, os.path.dirname(path)
        elif isinstance(experiment, dict):
            experiment = _experiment_with_python_plugins(experiment, plugins, "experiment")
            is_file, text, source, folder = _document("compare", "experiment", experiment, base_dir)
        else:
            raise TypeError("compare(): experiment: expected a path or a dict, got %s" % _type_name(experiment))
    else:
        is_file, text, source, folder = _document("compare", "experiment", experiment, base_dir)
    done = _scfw.compare(text, is_file, source, folder, int(jobs or 0), os.fspath(out) if out is not None else "",
                         bool(plots), bool(progress), plugins, arrays)
    if done["error"] is not None:
        raise done["error"]
    with open(os.path.join(done["out"], "summary.csv"), newline="") as f:
        rows = [{k: _table_value(k, v) for k, v in row.items()} for row in csv.DictReader(f)]
    for failure in done["failures"]:
        warnings.warn("scfw compare: run %(method)s K=%(K)d seed=%(seed)d failed: %(error)s" % failure,
                      RuntimeWarning, stacklevel=2)
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)
