"""The dict path against the file path on the fuzzing corpus of problem files: a problem handed
to scfw as a dict gets the same verdict and the same message as the same problem in a file, and
the file path says what `scfw validate` says."""

import glob
import json
import os
import shutil
import unittest

import scfw
from scfw_test_support import SOURCE_DIR, TempDir, run_cli

CORPUS = sorted(glob.glob(os.path.join(SOURCE_DIR, "tests", "fuzz", "corpus", "problem_json", "*")) +
                glob.glob(os.path.join(SOURCE_DIR, "tests", "fuzz", "regressions", "problem_json", "*")))


def verdict(function, *args, **kwargs):
    """("ok", validate's dict) or (exception type name, message)."""
    try:
        return "ok", function(*args, **kwargs)
    except (scfw.InputError, scfw.SolverError) as e:
        return type(e).__name__, str(e)


class HostileInputTest(unittest.TestCase):
    def test_corpus_through_the_dict_and_the_file(self):
        self.assertGreater(len(CORPUS), 10)
        compared = 0
        with TempDir() as folder:
            for path in CORPUS:
                with self.subTest(file=os.path.basename(path)):
                    shutil.copy(path, "problem.json")
                    file_kind, file_says = verdict(scfw.validate, "problem.json")
                    code, out, err = run_cli("validate", "problem.json", cwd=folder)
                    if file_kind == "ok":
                        self.assertEqual(code, 0, err)
                    else:
                        self.assertEqual(err, "error: " + file_says + "\n")
                        self.assertEqual(code, 2 if file_kind == "InputError" else 1)
                    with open(path, "rb") as f:
                        raw = f.read()
                    try:
                        doc = json.loads(raw, object_pairs_hook=unique_keys)
                    except ValueError:
                        continue  # not JSON, or a key twice: no dict holds that
                    if not isinstance(doc, dict) or file_says_is_syntax(file_kind, file_says):
                        continue
                    dict_kind, dict_says = verdict(scfw.validate, doc)
                    self.assertEqual(dict_kind, file_kind)
                    if file_kind == "ok":
                        self.assertEqual({k: v for k, v in dict_says.items()},
                                         {k: v for k, v in file_says.items()})
                    else:
                        self.assertEqual(dict_says, file_says.replace("problem.json", "problem"))
                    compared += 1
        self.assertGreater(compared, 10)


def unique_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("duplicate key")
    return dict(pairs)


def file_says_is_syntax(kind, message):
    """A message about the JSON text itself (a line and column), which a dict cannot have."""
    return kind != "ok" and message.startswith("problem.json: line ")


if __name__ == "__main__":
    unittest.main()
