"""scfw.solve on matrix_completion's observed coordinates: Result.factors holds y as factors
(coef, U, V), whose matrix at the observed entries is Result.y to 1e-12, and the same run over
the whole matrix gives Result.y at the entries bit for bit."""

import json
import os
import unittest

import numpy as np

import scfw
from scfw_test_support import SOURCE_DIR

OBSERVED = os.path.join(SOURCE_DIR, "examples", "matrix_completion_observed.json")


class Factored(unittest.TestCase):
    def test_factors_give_y_at_the_entries_and_the_whole_run(self):
        seen = scfw.solve(OBSERVED, iterations=60)
        coef, U, V = seen.factors
        self.assertEqual(U.shape[0], 30)
        self.assertEqual(V.shape[0], 20)
        self.assertEqual(U.shape[1], coef.size)
        self.assertIsNone(seen.shape)
        Y = U @ np.diag(coef) @ V.T
        # The entries, from the variables' names r<i>c<j> (1-based).
        rows = [int(n[1:n.index("c")]) - 1 for n in seen.x_names]
        cols = [int(n[n.index("c") + 1:]) - 1 for n in seen.x_names]
        self.assertLessEqual(np.max(np.abs(Y[rows, cols] - seen.y)), 1e-12 * max(1.0, np.max(np.abs(seen.y))))
        # The same problem over the whole 30 x 20 matrix: y at the entries, bit for bit.
        with open(OBSERVED) as f:
            doc = json.load(f)
        doc["oracle"]["coordinates"] = "matrix"
        whole = scfw.solve(doc, iterations=60)
        self.assertIsNone(whole.factors)
        self.assertEqual(whole.shape, (30, 20))
        self.assertTrue(np.array_equal(whole.y.reshape(30, 20)[rows, cols], seen.y))
        self.assertLessEqual(np.max(np.abs(whole.y.reshape(30, 20) - Y)), 1e-12 * max(1.0, np.max(np.abs(Y))))


if __name__ == "__main__":
    unittest.main()
