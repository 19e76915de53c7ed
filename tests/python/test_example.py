"""examples/python/cvar_portfolio.py runs, saves its figure, and its weights are a portfolio."""

import importlib.util
import os
import unittest

os.environ.setdefault("MPLBACKEND", "Agg")  # no display: matplotlib draws into files

from scfw_test_support import SOURCE_DIR, TempDir

SCRIPT = os.path.join(SOURCE_DIR, "examples", "python", "cvar_portfolio.py")


class ExampleTest(unittest.TestCase):
    def test_cvar_portfolio_script(self):
        spec = importlib.util.spec_from_file_location("cvar_portfolio", SCRIPT)
        example = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(example)
        with TempDir():
            result = example.main("weights.png")
            self.assertGreater(os.path.getsize("weights.png"), 0)
            with open("weights.png", "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        weights = result.x[:-1]
        self.assertAlmostEqual(weights.sum(), 1.0, delta=1e-12)
        self.assertTrue((weights >= -1e-15).all())
        self.assertEqual(result.x_names[-1], "VaR")
        self.assertEqual(result.status, "iteration_limit")


if __name__ == "__main__":
    unittest.main()
