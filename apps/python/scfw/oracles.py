"""Oracles written in Python, for scfw.solve(..., plugins={...}) and as templates for your own
(docs/python.md, "Plugins written in Python").

An oracle is any object with
    dim, outputs           ints (or methods returning them): d and n
    draw(rng)              one sample xi, any Python object; rng is the run's engine (scfw's Rng:
                           integers, uniform, normal), so that the samples depend on the seed alone
    evaluate(sample, x)    (f, J): f~(x; xi) of shape (n,), J~(x; xi) of shape (n, d)
    exact(x)               optional: (f, J) of the expectation, for the gap reports
    variable_names, output_names   optional lists of str
"""

import numpy as np


class LeastSquaresTasks:
    """f_i(x) = 1/(2 N_i) sum_j (a_ij^T x - b_ij)^2 for tasks i = 1..m, with `batch` rows of each
    task drawn uniformly with replacement: the C++ oracle least_squares_tasks on the same rows
    (its "files" mode), drawing its rows the same way from the same engine, so that a run with
    the same seed gives the same iterates to rounding. `tasks` is a list of (A_i, b_i)."""

    def __init__(self, tasks, batch=1):
        self.A = np.ascontiguousarray(np.vstack([A for A, _ in tasks]), dtype=np.float64)
        self.b = np.concatenate([b for _, b in tasks]).astype(np.float64)
        self.begin = np.cumsum([0] + [len(b) for _, b in tasks])
        self.batch = int(batch)
        self.dim = self.A.shape[1]
        self.outputs = len(tasks)

    def task(self, i):
        """(A_i, b_i), views of the stacked rows."""
        return self.A[self.begin[i]:self.begin[i + 1]], self.b[self.begin[i]:self.begin[i + 1]]

    def draw(self, rng):
        return [rng.integers(self.begin[i], self.begin[i + 1], self.batch) for i in range(self.outputs)]

    def _evaluate(self, rows_per_task, x):
        f = np.empty(self.outputs)
        J = np.empty((self.outputs, self.dim))
        for i, rows in enumerate(rows_per_task):
            r = self.A[rows] @ x - self.b[rows]
            f[i] = 0.5 * (r @ r) / len(rows)
            J[i] = (r @ self.A[rows]) / len(rows)
        return f, J

    def evaluate(self, sample, x):
        return self._evaluate(sample, x)

    def exact(self, x):
        return self._evaluate([np.arange(self.begin[i], self.begin[i + 1]) for i in range(self.outputs)], x)

    def write_libsvm(self, prefix):
        """Writes task i as the LIBSVM file <prefix><i>.svm (17 significant digits: read back
        exactly) and returns the comma-separated list for least_squares_tasks' "files"."""
        names = []
        for i in range(self.outputs):
            A, b = self.task(i)
            name = "%s%d.svm" % (prefix, i)
            with open(name, "w") as f:
                for a, y in zip(A, b):
                    f.write("%r %s\n" % (float(y), " ".join("%d:%r" % (j + 1, float(v)) for j, v in enumerate(a))))
            names.append(name)
        return ",".join(names)
