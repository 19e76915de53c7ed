"""scfw.solve(problem, data={...}): arrays in memory in place of data files. The same numbers
give the same bits as the file they would be written to, a C-contiguous float64 array is read in
place (the memory account holds nothing for it: the file's account, less the file's copy where
the oracle holds one), other arrays are converted once, and bad arrays get located messages naming
the array and the index."""

import math
import os
import unittest

import numpy as np

import scfw
from scfw_test_support import TempDir


def returns(days, assets):
    t = np.arange(days)[:, None]
    a = np.arange(assets)[None, :]
    return 0.01 * np.sin(0.7 * t + 1.3 * a) + 1e-4 * (a + 1) / 3.0


def write_csv(path, matrix):
    """The matrix as portfolio_returns' CSV: a date column, one column per asset, repr's digits
    (which read back to the same doubles)."""
    with open(path, "w") as f:
        f.write("date," + ",".join("asset %d" % (j + 1) for j in range(matrix.shape[1])) + "\n")
        for t, row in enumerate(matrix):
            f.write("day%d," % t + ",".join(repr(float(v)) for v in row) + "\n")


def portfolio(**source):
    oracle = {"plugin": "portfolio_returns", "groups": 6, "batch": 2, "prices": False}
    oracle.update(source)
    return {"seed": 3, "iterations": 80,
            "oracle": oracle,
            "outer": {"plugin": "cvar_ru", "alpha": 0.9},
            "domain": {"plugin": "simplex_interval", "lower": -1, "upper": 1},
            "report": {"every": 20}}


def same_run(test, a, b):
    test.assertEqual(a.x.tolist(), b.x.tolist())
    test.assertEqual(a.objective, b.objective)
    test.assertEqual(a.gap, b.gap)
    for column in a.trace:
        if column != "seconds":
            np.testing.assert_array_equal(a.trace[column], b.trace[column], err_msg=column)


class PortfolioReturns(unittest.TestCase):
    def test_an_array_gives_the_bits_of_the_same_numbers_in_a_file(self):
        R = returns(50, 4)
        with TempDir():
            write_csv("returns.csv", R)
            by_file = scfw.solve(portfolio(file="returns.csv"))
        by_array = scfw.solve(portfolio(array="R"), data={"R": R})
        same_run(self, by_array, by_file)
        self.assertEqual(by_array.x_names, ["asset 1", "asset 2", "asset 3", "asset 4", "VaR"])

    def test_prices_are_converted_as_a_file_s(self):
        P = 100.0 + 3.0 * np.cos(0.3 * np.arange(30)[:, None] * np.arange(1, 4)[None, :]) + np.arange(3) / 7.0
        with TempDir():
            write_csv("prices.csv", P)
            by_file = scfw.solve(portfolio(file="prices.csv", prices=True))
        same_run(self, scfw.solve(portfolio(array="P", prices=True), data={"P": P}), by_file)

    def test_a_float64_array_is_read_in_place(self):
        R = returns(60, 5)
        with TempDir():
            write_csv("returns.csv", R)
            by_file = scfw.validate(portfolio(file="returns.csv"))["memory_bytes"]
        # The account of a run on the array is the file's (whose reader charges nothing for its
        # copy): the caller's array is not charged, and not copied.
        self.assertEqual(scfw.validate(portfolio(array="R"), data={"R": R})["memory_bytes"], by_file)
        # An array not 16-byte aligned is the one the oracle copies once, and charges.
        buffer = np.zeros(R.size + 1)
        unaligned = np.frombuffer(buffer.data, dtype=np.float64, count=R.size, offset=8).reshape(R.shape)
        unaligned[:] = R
        self.assertEqual(scfw.validate(portfolio(array="R"), data={"R": unaligned})["memory_bytes"],
                         by_file + R.size * 8)
        same_run(self, scfw.solve(portfolio(array="R"), data={"R": unaligned}),
                 scfw.solve(portfolio(array="R"), data={"R": R}))

    def test_other_dtypes_and_layouts_are_converted_once(self):
        R = returns(40, 3)
        expected = scfw.solve(portfolio(array="R"), data={"R": R})
        fortran = np.asfortranarray(R)
        same_run(self, scfw.solve(portfolio(array="R"), data={"R": fortran}), expected)
        same_run(self, scfw.solve(portfolio(array="R"), data={"R": R.tolist()}), expected)
        small = R.astype(np.float32)
        same_run(self, scfw.solve(portfolio(array="R"), data={"R": small}),
                 scfw.solve(portfolio(array="R"), data={"R": small.astype(np.float64)}))

    def test_bad_arrays_are_located_errors(self):
        R = returns(12, 3)

        def error(data, problem=None, **source):
            with self.assertRaises(scfw.InputError) as caught:
                scfw.solve(problem or portfolio(**(source or {"array": "R"})), data=data)
            return str(caught.exception)

        self.assertEqual(error({}), 'problem: /oracle/array: no array named "R" was passed (none was: a program passes '
                                    'arrays with the problem, e.g. scfw.solve(problem, data={"R": array}) in Python)')
        self.assertEqual(error({"Q": R, "S": R}), 'problem: /oracle/array: no array named "R" was passed '
                                                  '(passed: "Q", "S")')
        bad = R.copy()
        bad[3, 2] = math.nan
        self.assertEqual(error({"R": bad}), 'data "R": row 3, column 2: not a finite number (nan)')
        bad[3, 2] = math.inf
        self.assertEqual(error({"R": bad}), 'data "R": row 3, column 2: not a finite number (inf)')
        self.assertEqual(error({"R": R[0]}), 'data "R": expected a days x assets matrix of returns, got a vector of 3')
        self.assertEqual(error({"R": np.zeros((2, 3, 4))}),
                         'data "R": expected a one- or two-dimensional array, got 3 dimensions')
        self.assertEqual(error({"R": np.array([["a", "b"]])}), 'data "R": expected real numbers, got str32')
        self.assertEqual(error({"R": R[:1] + 1.0}, prices=True, array="R", groups=1),
                         'data "R": 1 row(s); need at least 2 prices')
        prices = R + 1.0
        prices[1, 2] = -1.5
        self.assertEqual(error({"R": prices}, prices=True, array="R"),
                         'data "R": row 1, column 2: a price must be > 0, got -1.5')
        with self.assertRaises(TypeError) as caught:
            scfw.solve(portfolio(array="R"), data=[R])
        self.assertEqual(str(caught.exception), "solve(): data: expected a dict with str keys, got list")

    def test_a_checkpoint_refuses_other_arrays(self):
        R = returns(40, 3)
        problem = portfolio(array="R")
        with TempDir():
            scfw.solve(problem, data={"R": R}, checkpoint="run.ckpt", checkpoint_every=30)
            other = R.copy()
            other[5, 1] += 1e-9
            with self.assertRaises(scfw.InputError) as caught:
                scfw.solve(problem, data={"R": other}, resume="run.ckpt")
            self.assertRegex(str(caught.exception),
                             r'^run\.ckpt: checkpoint: array "R" differs from the one passed when the checkpoint was '
                             r'taken \(same size, other contents: FNV-1a [0-9a-f]{16} then, [0-9a-f]{16} now\)$')
            # The same numbers resume.
            resumed = scfw.solve(problem, data={"R": R.copy()}, resume="run.ckpt")
            same_run(self, resumed, scfw.solve(problem, data={"R": R}))


def least_squares(**source):
    oracle = {"plugin": "least_squares_tasks", "batch": 3, "jacobian": "dense"}
    oracle.update(source)
    return {"seed": 5, "iterations": 60, "oracle": oracle, "outer": {"plugin": "max"},
            "domain": {"plugin": "l1_ball", "radius": 2}, "report": {"every": 20}}


def tasks(dims=7, rows=(9, 12)):
    """Per-task rows with a few zeros and labels."""
    out = []
    for i, n in enumerate(rows):
        r = np.arange(n)[:, None]
        j = np.arange(dims)[None, :]
        A = np.cos(0.37 * r * (j + 1) + i) * ((r + j + i) % 4 != 0)
        b = np.sin(0.5 * np.arange(n) + i) + 0.1 * i
        out.append((A, b))
    return out


def write_libsvm(path, A, b, sparse):
    """Task rows as LIBSVM lines (1-based features): every entry of a dense row, the stored ones
    of a sparse row, as the oracle stores each."""
    with open(path, "w") as f:
        for row, label in zip(A, b):
            cols = np.flatnonzero(row) if sparse else range(len(row))
            f.write(repr(float(label)) + "".join(" %d:%r" % (j + 1, float(row[j])) for j in cols) + "\n")


class LeastSquaresTasks(unittest.TestCase):
    def run_twins(self, sparse, make_matrix, jacobian="dense"):
        data = tasks()
        with TempDir():
            for i, (A, b) in enumerate(data):
                write_libsvm("task%d.txt" % i, A, b, sparse)
            by_file = scfw.solve(least_squares(files="task0.txt, task1.txt", features=7, jacobian=jacobian))
        arrays = {}
        for i, (A, b) in enumerate(data):
            arrays["A%d" % i] = make_matrix(A)
            arrays["b%d" % i] = b
        by_array = scfw.solve(least_squares(arrays="A0, A1", labels="b0, b1", jacobian=jacobian), data=arrays)
        same_run(self, by_array, by_file)

    def test_dense_tasks_give_the_bits_of_libsvm_files(self):
        self.run_twins(False, lambda A: A)
        # A sparse Jacobian holds a dense array's non-zeros only: the pattern, and the bits, of the
        # file of its non-zeros.
        self.run_twins(True, lambda A: A, jacobian="sparse")

    def test_tasks_are_read_in_place(self):
        data = tasks()
        arrays = {}
        for i, (A, b) in enumerate(data):
            arrays["A%d" % i] = A
            arrays["b%d" % i] = b
        with TempDir():
            for i, (A, b) in enumerate(data):
                write_libsvm("task%d.txt" % i, A, b, True)  # the non-zeros
            by_file = scfw.validate(least_squares(files="task0.txt, task1.txt", features=7))["memory_bytes"]
        # The file's run holds its rows (a column index and a value per stored entry, a label and
        # a row offset per row); the arrays' run holds nothing of them, dense or CSR.
        rows = sum(len(b) for _, b in data)
        nonzeros = sum(int((A != 0).sum()) for A, _ in data)
        self.assertEqual(scfw.validate(least_squares(arrays="A0, A1", labels="b0, b1"), data=arrays)["memory_bytes"],
                         by_file - (nonzeros * 12 + rows * 16))
        csr = dict(arrays)
        for i, (A, _) in enumerate(data):
            csr["A%d" % i] = {"indptr": np.concatenate([[0], np.cumsum((A != 0).sum(axis=1))]).astype(np.int32),
                              "indices": np.concatenate([np.flatnonzero(row) for row in A]).astype(np.int32),
                              "values": A[A != 0], "shape": A.shape}
        self.assertEqual(scfw.validate(least_squares(arrays="A0, A1", labels="b0, b1"), data=csr)["memory_bytes"],
                         by_file - (nonzeros * 12 + rows * 16))

    def test_csr_tasks_give_the_bits_of_libsvm_files(self):
        def csr(A):
            indptr = np.concatenate([[0], np.cumsum((A != 0).sum(axis=1))])
            indices = np.concatenate([np.flatnonzero(row) for row in A])
            return (indptr, indices, A[A != 0], A.shape)
        self.run_twins(True, csr)
        self.run_twins(True, lambda A: {"indptr": csr(A)[0].astype(np.int32), "indices": csr(A)[1].astype(np.int32),
                                        "values": csr(A)[2], "shape": A.shape})
        try:
            import scipy.sparse
        except ImportError:  # pragma: no cover - scipy is optional
            return
        self.run_twins(True, scipy.sparse.csr_matrix)

    def test_bad_task_arrays(self):
        (A0, b0), (A1, b1) = tasks()

        def error(data, **source):
            with self.assertRaises(scfw.InputError) as caught:
                scfw.solve(least_squares(**(source or {"arrays": "A0, A1", "labels": "b0, b1"})), data=data)
            return str(caught.exception)

        self.assertEqual(error({"A0": A0, "b0": b0, "b1": b1}), 'problem: /oracle/arrays: no array named "A1" was passed '
                                                               '(passed: "A0", "b0", "b1")')
        self.assertEqual(error({"A0": A0, "b0": b0, "A1": A1[:, :5], "b1": b1}),
                         'data "A1": 5 columns, but data "A0" has 7 (every task has the same features)')
        self.assertEqual(error({"A0": A0, "b0": b0, "A1": A1, "b1": b1[:-1]}),
                         'data "b1": expected a vector of 12 labels (one per row of data "A1"), got a vector of 11')
        bad = b1.copy()
        bad[4] = -math.inf
        self.assertEqual(error({"A0": A0, "b0": b0, "A1": A1, "b1": bad}),
                         'data "b1": element 4: not a finite number (-inf)')
        self.assertEqual(error({"A0": A0, "b0": b0}, arrays="A0", labels="b0, b1"),
                         'problem: /oracle/labels: "labels" names 2 vector(s) and "arrays" 1 matrices: one of each per task')
        csr = (np.array([0, 1, 2]), np.array([0, 9]), np.array([1.0, 2.0]), (2, 7))
        self.assertEqual(error({"A0": csr, "b0": b0[:2]}, arrays="A0", labels="b0"),
                         'data "A0": row 1 (entry 1): column index 9 is outside [0, 7)')
        csr = (np.array([0, 1, 2]), np.array([0, 3]), np.array([1.0, math.nan]), (2, 7))
        self.assertEqual(error({"A0": csr, "b0": b0[:2]}, arrays="A0", labels="b0"),
                         'data "A0": row 1, column 3 (entry 1): not a finite number (nan)')


def completion(**source):
    oracle = {"plugin": "matrix_completion", "groups": 5, "batch": 2}
    oracle.update(source)
    return {"seed": 2, "iterations": 40, "oracle": oracle, "outer": {"plugin": "norm", "p": "1"},
            "domain": {"plugin": "nuclear_ball", "rows": 6, "cols": 5, "radius": 3}, "report": {"every": 10}}


def triplets():
    """Observed entries of a 6 x 5 matrix, 1-based (row, col, value)."""
    out = []
    for i in range(6):
        for j in range(5):
            if (i + 2 * j) % 3 != 1:
                out.append((i + 1, j + 1, math.sin(i + 0.3 * j) * 2.5))
    return np.array(out)


def write_triplets(T, path):
    """The triplets as a MovieLens-style text file (row col value, repr of the double)."""
    with open(path, "w") as f:
        for i, j, v in T:
            f.write("%d %d %r\n" % (i, j, float(v)))


class MatrixCompletion(unittest.TestCase):
    def test_triplets_give_the_bits_of_a_file(self):
        T = triplets()
        with TempDir():
            write_triplets(T, "m.txt")
            by_file = scfw.solve(completion(file="m.txt"))
        same_run(self, scfw.solve(completion(array="M"), data={"M": T}), by_file)
        zero_based = T.copy()
        zero_based[:, :2] -= 1
        same_run(self, scfw.solve(completion(array="M", one_based=False), data={"M": zero_based}), by_file)

    def test_triplets_are_read_in_place(self):
        T = triplets()
        with TempDir():
            write_triplets(T, "m.txt")
            by_file = scfw.validate(completion(file="m.txt"))["memory_bytes"]
            top = completion(file="m.txt", top_rows=4)
            top["domain"]["rows"] = 4
            top_file = scfw.validate(top)["memory_bytes"]
        # The file's run holds each entry's coordinate and value (8 bytes each); the array's run
        # only the triplets' group order.
        self.assertEqual(scfw.validate(completion(array="M"), data={"M": T})["memory_bytes"], by_file - 16 * len(T))
        # A sub-matrix renumbers the entries: the oracle holds the kept ones, as from the file.
        del top["oracle"]["file"]
        top["oracle"]["array"] = "M"
        self.assertEqual(scfw.validate(top, data={"M": T})["memory_bytes"], top_file)

    def test_bad_triplets(self):
        T = triplets()

        def error(M, **source):
            with self.assertRaises(scfw.InputError) as caught:
                scfw.solve(completion(**(source or {"array": "M"})), data={"M": M})
            return str(caught.exception)

        self.assertEqual(error(T[:, :2]), 'data "M": expected a k x 3 matrix of (row, col, value) triplets, '
                                          'got a 20 x 2 matrix')
        bad = T.copy()
        bad[3, 0] = 0
        self.assertEqual(error(bad), 'data "M": row 3: row 0 is below 1 (indices are 1-based; "one_based": false '
                                     'reads them from 0)')
        bad[3, 0] = 1.5
        self.assertEqual(error(bad), 'data "M": row 3: row is not an integer: 1.5')
        bad = np.vstack([T, T[2]])
        self.assertEqual(error(bad), 'data "M": row 20: entry (1, 4) repeats row 2')
        bad = T.copy()
        bad[7, 2] = math.nan
        self.assertEqual(error(bad), 'data "M": row 7, column 2: not a finite number (nan)')


if __name__ == "__main__":
    unittest.main()
