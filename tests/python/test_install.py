"""`cmake --install` puts the package in the prefix's Python folder, where it finds libscfw_core
and the plugins of the same prefix."""

import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

from scfw_test_support import BINARY_DIR, TASK1


class InstallTest(unittest.TestCase):
    def test_installed_package_solves(self):
        with tempfile.TemporaryDirectory(prefix="scfw-install-") as prefix:
            subprocess.run(["cmake", "--install", BINARY_DIR, "--prefix", prefix], check=True, capture_output=True)
            version = "%d.%d" % sys.version_info[:2]
            packages = glob.glob(os.path.join(prefix, "lib", "python" + version, "*-packages"))
            self.assertEqual(len(packages), 1, packages)
            self.assertTrue(os.path.isfile(os.path.join(packages[0], "scfw", "__init__.py")))
            script = ("import json, scfw\n"
                      "r = scfw.solve(%r, iterations=20)\n"
                      "print(json.dumps([scfw.__file__, scfw.__version__, r.iterations,"
                      " sorted({p['library'] for p in scfw.plugins() if p['library_name'] != 'python'})]))\n" % TASK1)
            env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SCFW_PLUGIN_PATH")}
            env["PYTHONPATH"] = packages[0]
            with tempfile.TemporaryDirectory() as elsewhere:
                out = subprocess.run([sys.executable, "-c", script], env=env, cwd=elsewhere, check=True,
                                     capture_output=True, text=True).stdout
            module, version, iterations, libraries = json.loads(out)
            self.assertTrue(module.startswith(packages[0] + os.sep), module)
            self.assertEqual(iterations, 20)
            self.assertTrue(libraries)
            for library in libraries:
                self.assertTrue(library.startswith(os.path.join(prefix, "lib", "scfw", "plugins") + os.sep), library)


if __name__ == "__main__":
    unittest.main()
