"""Outer functions and domains written in Python with their models, built with scfw.Model and
scfw.Expr: the same iterates as the C++ plugins they copy on a fixed seed, the conformance checks,
and errors that name the plugin and the method."""

import math
import unittest

import numpy as np

import scfw
from scfw_test_support import TempDir


def problem(outer, iterations=300):
    """Task 1's design, small: 4 synthetic least-squares tasks in d = 20 over the l1 ball."""
    return {"seed": 3, "iterations": iterations,
            "oracle": {"plugin": "least_squares_tasks",
                       "synthetic": {"tasks": 4, "dim": 20, "rows_per_task": 50, "seed": 2}, "batch": 1},
            "outer": outer, "domain": {"plugin": "l1_ball", "radius": 2},
            "tracker": {"plugin": "momentum", "value": "taylor"}, "schedule": {"plugin": "nonconvex", "r": 2},
            "report": {"every": 50}}


class Max:
    """F(u) = max_i u_i, as the C++ plugin `max` writes it."""
    lipschitz = 1.0
    monotone = True
    subhomogeneous = True
    formula = "F(u) = max_i u_i, in Python"

    def value(self, u, x):
        return float(np.max(u))

    def model(self, m, u, x):
        t = m.add_var(name="t")
        for ui in u:
            m.add_ge(t, ui)
        return t


class L1Norm:
    """F(u) = ||u||_1, as the C++ plugin `norm` with p = 1 writes it."""
    monotone = False
    subhomogeneous = True

    def __init__(self, n):
        self.lipschitz = math.sqrt(n)

    def value(self, u, x):
        return float(np.abs(u).sum())

    def model(self, m, u, x):
        objective = scfw.Expr()
        for i, ui in enumerate(u):
            s = m.add_var(0.0, math.inf, "s[%d]" % i)
            m.add_ge(s, ui)
            m.add_ge(s, -ui)
            objective = objective + s
        return objective


class Bad:
    """An outer function that goes wrong in one of several ways."""
    lipschitz = 1.0

    def __init__(self, how):
        self.how = how
        self.kept = None

    def value(self, u, x):
        if self.how == "nan":
            return math.nan
        if self.how == "kept":
            self.kept.add_var()
        if self.how == "text":
            return "one"
        return float(np.max(u))

    def model(self, m, u, x):
        self.kept = m
        if self.how == "raise":
            raise ZeroDivisionError("no model today")
        if self.how == "returns":
            return "t"
        if self.how == "nan bound":
            m.add_var(math.nan)
        t = m.add_var()
        for ui in u:
            m.add_ge(t, ui)
        return t


class NoModel:
    def value(self, u, x):
        return 0.0


class L1Ball:
    """{x : ||x||_1 <= radius} with its LMO and its LP model, as the C++ l1_ball writes both:
    x = p - q, p, q in [0, radius], sum p + q <= radius."""

    def __init__(self, dim, radius, model_returns=None):
        self.dim = dim
        self.radius = radius
        self.model_returns = model_returns

    def lmo(self, g):
        i = int(np.argmax(np.abs(g)))
        x = np.zeros(self.dim)
        x[i] = -self.radius if g[i] > 0 else self.radius
        return x

    def initial_point(self):
        return np.zeros(self.dim)

    def contains(self, x, tol):
        return np.abs(x).sum() <= self.radius + tol

    def model(self, m):
        if self.model_returns is not None:
            return self.model_returns
        xs, total = [], scfw.Expr()
        for j in range(self.dim):
            p = m.add_var(0.0, self.radius, "p[%d]" % j)
            q = m.add_var(0.0, self.radius, "q[%d]" % j)
            xs.append(p - q)
            total = total + p + q
        m.add_row(total, -math.inf, self.radius)
        return xs


class PythonOuterTest(unittest.TestCase):
    def assert_same_run(self, mine, theirs, objective_tolerance):
        np.testing.assert_array_equal(mine.x, theirs.x)  # the GLMO solves the same LP: the same bits
        self.assertEqual(mine.iterations, theirs.iterations)
        self.assertEqual(sorted(mine.trace), sorted(theirs.trace))
        for column in mine.trace:
            if column == "seconds":
                continue
            a, b = mine.trace[column], theirs.trace[column]
            if column in ("objective", "gap", "best_gap"):
                np.testing.assert_allclose(a, b, rtol=objective_tolerance, atol=0, err_msg=column)
            else:
                np.testing.assert_array_equal(a, b, err_msg=column)

    def test_max_equals_the_cpp_plugin(self):
        with TempDir():
            theirs = scfw.solve(problem({"plugin": "max"}))
            mine = scfw.solve(problem({"plugin": "mine"}), plugins={"mine": Max()})
        self.assert_same_run(mine, theirs, 0.0)  # np.max is exact: the objective too
        self.assertEqual(mine.objective, theirs.objective)
        self.assertEqual(mine.summary["glmo"], theirs.summary["glmo"])

    def test_l1_norm_equals_the_cpp_plugin(self):
        with TempDir():
            theirs = scfw.solve(problem({"plugin": "norm", "p": "1"}))
            mine = scfw.solve(problem({"plugin": "mine"}), plugins={"mine": L1Norm(4)})
        # The sum of |u_i| may be added in another order by NumPy than by Eigen: the last bits of
        # the objective and the gap, never the iterates.
        self.assert_same_run(mine, theirs, 1e-14)

    def test_errors_name_the_plugin_and_the_method(self):
        with TempDir():
            with self.assertRaises(scfw.InputError) as caught:
                scfw.solve(problem({"plugin": "half"}), plugins={"half": NoModel()})
            self.assertTrue(str(caught.exception).endswith("half: a Python outer function needs a method model(m, u, x)"),
                            str(caught.exception))
            with self.assertRaises(ZeroDivisionError) as caught:  # passed through unchanged, with a note
                scfw.solve(problem({"plugin": "bad"}), plugins={"bad": Bad("raise")})
            self.assertEqual(str(caught.exception), "no model today")
            self.assertEqual(caught.exception.__notes__, ["scfw: bad: model() raised ZeroDivisionError: no model today"])
            for how, message in [
                    ("returns", "bad: model() returned str, expected an scfw.Expr or a number"),
                    ("nan", "iteration 50 (gap report): bad: value() returned NaN"),
                    ("text", "iteration 50 (gap report): bad: value() returned str, expected a number"),
                    # The Model API's own refusals are raised in model() (or wherever the model is
                    # used), the plugin and the method in the note.
                    ("nan bound", "scfw.Model: lower is NaN"),
                    ("kept", "scfw.Model: used after the model() call that received it returned")]:
                with self.assertRaises(scfw.SolverError) as caught:
                    scfw.solve(problem({"plugin": "bad"}), plugins={"bad": Bad(how)})
                self.assertEqual(str(caught.exception), message)
            self.assertEqual(caught.exception.__notes__,
                             ["scfw: iteration 50 (gap report): bad: value() raised SolverError: scfw.Model: used after "
                              "the model() call that received it returned"])

    def test_conformance_checks_run_on_it(self):
        with TempDir():
            checks = scfw.check(problem({"plugin": "mine"}), plugins={"mine": Max()})
            outer = [c for c in checks if c["role"] == "outer"]
            self.assertEqual([c["check"] for c in outer][:2],
                             ["GLMO minimum over {x} vs value(u, x)", "GLMO solution vs the singleton point"])
            self.assertEqual({c["verdict"] for c in checks}, {"pass", "skipped"})
            self.assertTrue(all(c["plugin"] == "python_outer" for c in outer))
            # A value() that is not the model's minimum (off by 0.1) fails the model check, and a
            # run stops at the first gap report instead of reporting a wrong gap.
            wrong = Max()
            wrong.value = lambda u, x: float(np.max(u)) + 0.1
            checks = scfw.check(problem({"plugin": "mine"}), plugins={"mine": wrong})
            model_check = next(c for c in checks if c["check"] == "GLMO minimum over {x} vs value(u, x)")
            self.assertEqual(model_check["verdict"], "fail")
            self.assertAlmostEqual(model_check["discrepancy"], 0.1, places=12)
            with self.assertRaises(scfw.SolverError) as caught:
                scfw.solve(problem({"plugin": "mine"}), plugins={"mine": wrong})
            self.assertIn("disagrees with the outer function python_outer's value", str(caught.exception))

    def test_domain_with_a_model_equals_l1_ball(self):
        with TempDir():
            exact = dict(problem({"plugin": "max"}), glmo={"plugin": "dense_simplex"})
            theirs = scfw.solve(exact)
            mine = scfw.solve(dict(exact, domain={"plugin": "ball"}), plugins={"ball": L1Ball(20, 2.0)})
            self.assert_same_run(mine, theirs, 0.0)
            self.assertEqual(mine.summary["plugins"][2]["name"], "python_domain")
            # With its model the domain may have a GLMO that reads it (here the one the host picks
            # for max over a modelled domain), and the checks compare its LMO with the model.
            auto = scfw.solve(dict(problem({"plugin": "max"}), domain={"plugin": "ball"}), iterations=20,
                              plugins={"ball": L1Ball(20, 2.0)})
            self.assertNotEqual(auto.summary["plugins"][3]["name"], "column_generation")
            checks = scfw.check(problem({"plugin": "max"}) | {"domain": {"plugin": "ball"}},
                                plugins={"ball": L1Ball(20, 2.0)})
            model_check = next(c for c in checks
                               if c["check"] == "LMO vs the minimum of <g, x> over the domain's LP model")
            self.assertEqual(model_check["verdict"], "pass")
            # A model of another set (the l1 ball of radius 1) fails that check.
            smaller = L1Ball(20, 2.0)
            smaller.model = lambda m: L1Ball(20, 1.0).model(m)
            checks = scfw.check(problem({"plugin": "max"}) | {"domain": {"plugin": "ball"}},
                                plugins={"ball": smaller})
            model_check = next(c for c in checks
                               if c["check"] == "LMO vs the minimum of <g, x> over the domain's LP model")
            self.assertEqual(model_check["verdict"], "fail")
            # The model is read when the GLMO is set up: the messages name its block.
            for returns, message in [
                    ("x", "ball: model() returned str, expected a list of 20 scfw.Expr (the coordinates of x)"),
                    ([scfw.Expr()] * 3, "ball: model() returned 3 coordinates, expected 20"),
                    ([scfw.Expr()] * 19 + [None], "ball: model() returned NoneType as coordinate 19, expected an "
                                                  "scfw.Expr or a number")]:
                message = "problem: /glmo: " + message
                with self.assertRaises(scfw.SolverError) as caught:
                    scfw.solve(dict(exact, domain={"plugin": "ball"}), plugins={"ball": L1Ball(20, 2.0, returns)})
                self.assertEqual(str(caught.exception), message)

    def test_expressions(self):
        e = 2.0 * scfw.Expr(1.5) - 0.5 + scfw.Expr(1.0) / 4
        self.assertEqual(e.constant, 2.75)
        self.assertEqual(e.terms, [])


if __name__ == "__main__":
    unittest.main()
