"""Oracles, domains and schedules written in Python: the same iterates as their C++ twins on a fixed
seed, the conformance check, and errors that name the plugin, the method and the iteration."""

import unittest

import numpy as np

import scfw
from scfw.oracles import LeastSquaresTasks
from scfw_test_support import TempDir


def write_tasks(seed=0, d=20, m=4, rows=50):
    """m random least-squares tasks as a LeastSquaresTasks oracle, written as task<i>.svm."""
    rng = np.random.default_rng(seed)
    tasks = []
    for _ in range(m):
        A = rng.normal(size=(rows, d))
        tasks.append((A, A @ rng.normal(size=d) + rng.normal(size=rows)))
    oracle = LeastSquaresTasks(tasks)
    oracle.write_libsvm("task")
    return oracle


def problem(m=4, d=20, batch=1):
    return {"oracle": {"plugin": "least_squares_tasks", "files": ",".join("task%d.svm" % i for i in range(m)),
                       "features": d, "batch": batch},
            "outer": {"plugin": "max"}, "domain": {"plugin": "l1_ball", "radius": 2}, "report": {"every": 100}}


class Broken:
    """An oracle that goes wrong in one of several ways at its first evaluation."""
    dim = 3
    outputs = 2

    def __init__(self, how):
        self.how = how

    def draw(self, rng):
        return rng.uniform()

    def evaluate(self, sample, x):
        J = np.zeros((2, 3))
        if self.how == "shape":
            return np.zeros(3), J
        if self.how == "nan":
            J[1, 2] = np.nan
        if self.how == "raise":
            raise ZeroDivisionError("boom")
        if self.how == "list":
            return [0.0, 0.0]
        return np.zeros(2), J


BROKEN = {"oracle": {"plugin": "broken"}, "outer": {"plugin": "max"}, "domain": {"plugin": "l1_ball", "radius": 1}}


class Schedule:
    def at(self, k, K):
        return (0.02, 0.5, 0.25)

    def describe(self, K):
        return "constant from Python"


class L1Ball:
    """{x : ||x||_1 <= radius} known by its LMO: -radius sign(g_i) e_i at the largest |g_i|."""

    def __init__(self, dim, radius):
        self.dim = dim
        self.radius = radius

    def lmo(self, g):
        i = int(np.argmax(np.abs(g)))
        x = np.zeros(self.dim)
        if g[i] != 0:
            x[i] = -self.radius * np.sign(g[i])
        return x

    def initial_point(self):
        return np.zeros(self.dim)

    def contains(self, x, tol):
        return np.abs(x).sum() <= self.radius + tol


class PythonPluginTest(unittest.TestCase):
    def test_python_oracle_equals_its_cpp_twin(self):
        with TempDir():
            oracle = write_tasks()
            tasks = [oracle.task(i) for i in range(oracle.outputs)]
            for batch in (1, 3):
                cpp = scfw.solve(problem(batch=batch), iterations=400, seed=4)
                py = scfw.solve(dict(problem(batch=batch), oracle={"plugin": "mine"}), iterations=400, seed=4,
                                plugins={"mine": LeastSquaresTasks(tasks, batch)})
                np.testing.assert_allclose(py.x, cpp.x, rtol=0, atol=1e-12 * np.abs(cpp.x).max())
                self.assertAlmostEqual(py.gap, cpp.gap, delta=1e-12 * abs(cpp.gap))
                self.assertEqual(py.summary["plugins"][0]["name"], "python_oracle")

    def test_python_schedule_equals_constant(self):
        with TempDir():
            write_tasks()
            cpp = scfw.solve(dict(problem(), schedule={"plugin": "constant", "gamma": 0.02, "beta": 0.5, "rho": 0.25}),
                             iterations=300, seed=2)
            py = scfw.solve(dict(problem(), schedule={"plugin": "steps"}), iterations=300, seed=2,
                            plugins={"steps": Schedule()})
            self.assertEqual(py.x.tolist(), cpp.x.tolist())
            self.assertIn("constant from Python", py.report)

    def test_python_domain_equals_l1_ball(self):
        with TempDir():
            write_tasks()
            cg = dict(problem(), glmo={"plugin": "column_generation"})
            cpp = scfw.solve(cg, iterations=300, seed=3)
            py = scfw.solve(dict(cg, domain={"plugin": "ball"}), iterations=300, seed=3,
                            plugins={"ball": L1Ball(20, 2.0)})
            np.testing.assert_allclose(py.x, cpp.x, rtol=0, atol=1e-12 * np.abs(cpp.x).max())
            self.assertEqual(py.summary["plugins"][2]["name"], "python_domain")
            # Without a "glmo" block the host picks one that works from the LMO alone.
            auto = scfw.solve(dict(problem(), domain={"plugin": "ball"}), iterations=50, seed=3,
                              plugins={"ball": L1Ball(20, 2.0)})
            self.assertEqual(auto.summary["plugins"][3]["name"], "column_generation")

    def test_conformance_check(self):
        with TempDir():
            oracle = write_tasks()
        x = np.full(oracle.dim, 0.05)
        report = scfw.check_oracle(oracle, x, samples=4000)
        self.assertTrue(report["ok"], report["message"])

        class WrongJacobian(LeastSquaresTasks):
            def evaluate(self, sample, x):
                f, J = super().evaluate(sample, x)
                return f, 2 * J

        report = scfw.check_oracle(WrongJacobian([oracle.task(i) for i in range(oracle.outputs)]), x, samples=4000)
        self.assertFalse(report["ok"])

    def test_errors_name_the_plugin_the_method_and_the_iteration(self):
        cases = {"shape": "iteration 1 (tracker): broken: evaluate() returned f of shape (3,), expected (2,)",
                 "nan": "iteration 1 (tracker): broken: evaluate() returned a non-finite value at J[1, 2]",
                 "list": "iteration 1 (tracker): broken: evaluate() returned list, expected a tuple (f, J)"}
        for how, message in cases.items():
            with self.assertRaises(scfw.SolverError) as caught:
                scfw.solve(BROKEN, iterations=5, plugins={"broken": Broken(how)})
            self.assertEqual(str(caught.exception), message)

    def test_an_exception_in_a_python_oracle_passes_through(self):
        with self.assertRaises(ZeroDivisionError) as caught:
            scfw.solve(BROKEN, iterations=5, plugins={"broken": Broken("raise")})
        self.assertEqual(str(caught.exception), "boom")
        self.assertEqual(caught.exception.__notes__,
                         ["scfw: iteration 1 (tracker): broken: evaluate() raised ZeroDivisionError: boom"])

    def test_bad_plugins(self):
        class NoDraw:
            dim = 3
            outputs = 2

            def evaluate(self, sample, x):
                pass

        with self.assertRaises(scfw.InputError) as caught:
            scfw.solve(BROKEN, plugins={"broken": NoDraw()})
        self.assertTrue(str(caught.exception).endswith("broken: a Python oracle needs a method draw(rng)"),
                        str(caught.exception))
        with self.assertRaises(scfw.InputError) as caught:
            scfw.solve(dict(BROKEN, oracle={"plugin": "broken", "batch": 2}), plugins={"broken": Broken("ok")})
        self.assertEqual(str(caught.exception), "problem: /oracle/batch: a Python plugin takes no parameters in the "
                                                "problem (give them to its constructor)")
        with self.assertRaises(scfw.InputError) as caught:
            scfw.solve(dict(BROKEN, tracker={"plugin": "broken"}), plugins={"broken": Broken("ok")})
        self.assertEqual(str(caught.exception),
                         "problem: /tracker/plugin: a Python plugin can play the oracle, the outer function, the "
                         "domain or the schedule, not the tracker")


if __name__ == "__main__":
    unittest.main()
