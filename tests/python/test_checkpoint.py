"""scfw.solve's checkpoints (checkpoint=, checkpoint_every=, checkpoint_seconds=, resume=) against
`scfw run --checkpoint/--resume`: a run resumed from a checkpoint taken mid-run has the bits of
the uninterrupted run, checkpoints pass between Python and the command line both ways, and bad
input gets the command line's messages word for word (docs/checkpoint.md, docs/python.md)."""

import math
import unittest

import numpy as np

import scfw
from scfw.oracles import LeastSquaresTasks
from scfw_test_support import TASK1, TASK2, TempDir, read_solution_x, read_trace, run_cli
from test_python_plugins import L1Ball, problem, write_tasks

K, EVERY, AT = 120, 20, 70  # a report every 20 iterations, the checkpoint at 70 (the next due at 140 > K)


def cli(*args):
    code, out, err = run_cli(*args)
    if code != 0:
        raise AssertionError("scfw %s: exit %d: %s" % (" ".join(args), code, err))
    return out


def cli_error(*args):
    """The message of a refused `scfw run`: its first stderr line without "error: " or "scfw run: "."""
    code, _, err = run_cli(*args)
    if code != 2:
        raise AssertionError("scfw %s: exit %d, expected 2: %s" % (" ".join(args), code, err))
    line = err.splitlines()[0]
    for prefix in ("error: ", "scfw run: "):
        if line.startswith(prefix):
            return line[len(prefix):]
    return line


def cli_trace(path):
    """A trace file as {column: float64 array}, an empty field as NaN (as Result.trace has it)."""
    return {name: np.array([math.nan if v is None else v for v in values], dtype=np.float64)
            for name, values in read_trace(path).items()}


class CheckpointTest(unittest.TestCase):
    def assert_same_run(self, x, trace, expected_x, expected_trace, what):
        self.assertEqual(np.asarray(x, dtype=np.float64).tobytes(), np.asarray(expected_x).tobytes(), what + ": x")
        self.assertEqual(sorted(trace), sorted(expected_trace), what + ": columns")
        for column in expected_trace:
            if column == "seconds":
                continue
            got = np.asarray(trace[column], dtype=np.float64)
            want = np.asarray(expected_trace[column], dtype=np.float64)
            self.assertEqual(got.shape, want.shape, "%s: %s" % (what, column))
            # bitwise, NaN (an empty field) included
            self.assertEqual(got.tobytes(), want.tobytes(), "%s: %s" % (what, column))

    def check_example(self, example, seed):
        common = dict(iterations=K, seed=seed, report_every=EVERY)
        opts = ("--iterations", str(K), "--seed", str(seed), "--report-every", str(EVERY), "--quiet")
        with TempDir():
            full = scfw.solve(example, trace="full.csv", **common)
            self.assertEqual(full.iterations, K)
            self.assertEqual(len(full.trace["iteration"]), K // EVERY)

            # Python: a run that checkpoints at AT, then a run resumed from there.
            part = scfw.solve(example, trace="part.csv", checkpoint="py.ckpt", checkpoint_every=AT, **common)
            self.assertIn("checkpoint      py.ckpt written 1 time\n", part.report)
            resumed = scfw.solve(example, trace="resumed.csv", resume="py.ckpt", solution="resumed_x.csv", **common)
            self.assertIn("resumed         from py.ckpt at iteration %d\n" % AT, resumed.report)
            self.assert_same_run(resumed.x, resumed.trace, full.x, full.trace, "python resumed")
            self.assert_same_run(read_solution_x("resumed_x.csv")[0], cli_trace("resumed.csv"), full.x,
                                 cli_trace("full.csv"), "python resumed, its files")
            self.assertEqual(resumed.summary["calls"], full.summary["calls"])
            self.assertEqual(resumed.gap, full.gap)
            self.assertEqual(resumed.best_gap, full.best_gap)

            # The command line: the uninterrupted run and the same checkpoint and resume.
            cli("run", example, *opts, "--solution", "cli_full.csv", "--trace", "cli_full_trace.csv")
            cli_full_x = read_solution_x("cli_full.csv")[0]
            self.assert_same_run(full.x, full.trace, cli_full_x, cli_trace("cli_full_trace.csv"), "python vs cli")
            cli("run", example, *opts, "--trace", "cli_part.csv", "--checkpoint", "cli.ckpt", "--checkpoint-every",
                str(AT))
            cli("run", example, *opts, "--trace", "cli_resumed.csv", "--resume", "cli.ckpt", "--solution",
                "cli_resumed.csv.x")
            self.assert_same_run(read_solution_x("cli_resumed.csv.x")[0], cli_trace("cli_resumed.csv"), full.x,
                                 full.trace, "cli resumed")

            # Across: the command line's checkpoint resumed in Python, and Python's by the command line.
            across = scfw.solve(example, trace="across.csv", resume="cli.ckpt", **common)
            self.assert_same_run(across.x, across.trace, full.x, full.trace, "cli checkpoint resumed in python")
            cli("run", example, *opts, "--trace", "cli_across.csv", "--resume", "py.ckpt", "--solution", "cli_across.x")
            self.assert_same_run(read_solution_x("cli_across.x")[0], cli_trace("cli_across.csv"), full.x,
                                 full.trace, "python checkpoint resumed by the cli")

            # The resumed traces' files hold the same rows (seconds aside) on both sides.
            ours, theirs = cli_trace("resumed.csv"), cli_trace("cli_resumed.csv")
            self.assert_same_run([], ours, [], theirs, "resumed trace files")

    def test_task2_cvar_portfolio(self):
        self.check_example(TASK2, seed=5)

    def test_task1_minimax(self):
        self.check_example(TASK1, seed=3)

    def test_a_run_stopped_early_checkpoints_where_it_stopped(self):
        # A callback that stops the run (as Ctrl-C does) leaves a checkpoint at that iteration;
        # the run resumed from it is the uninterrupted run. The resumed run checkpoints again.
        with TempDir():
            common = dict(iterations=K, seed=2, report_every=EVERY, trace="t.csv")
            full = scfw.solve(TASK2, **common)
            stopped = scfw.solve(TASK2, checkpoint="stop.ckpt", checkpoint_every=100,
                                 callback=lambda s: s.iteration < 53, **common)
            self.assertEqual((stopped.status, stopped.iterations), ("stopped", 53))
            self.assertIn("checkpoint      stop.ckpt written 1 time\n", stopped.report)
            again = scfw.solve(TASK2, resume="stop.ckpt", checkpoint="stop.ckpt", checkpoint_every=100, **common)
            self.assertIn("resumed         from stop.ckpt at iteration 53\n", again.report)
            self.assertIn("checkpoint      stop.ckpt written 1 time\n", again.report)  # at 100
            self.assert_same_run(again.x, again.trace, full.x, full.trace, "resumed at 53")
            last = scfw.solve(TASK2, resume="stop.ckpt", **common)
            self.assertIn("resumed         from stop.ckpt at iteration 100\n", last.report)
            self.assert_same_run(last.x, last.trace, full.x, full.trace, "resumed at 100")

    def test_refusals_say_what_the_command_line_says(self):
        def cli_args(options):
            args = ["--quiet"]
            for key, value in options.items():
                args += ["--" + key.replace("_", "-"), str(value)]
            return args

        with TempDir():
            scfw.solve(TASK2, iterations=K, seed=5, checkpoint="task2.ckpt", checkpoint_every=AT)
            common = dict(iterations=K, seed=5)
            cases = [  # (the problem, solve's options; `scfw run` gets the same as its options)
                (TASK2, dict(resume="missing.ckpt")),
                (TASK1, dict(resume="task2.ckpt")),
                (TASK2, dict(resume="task2.ckpt", seed=6)),
                (TASK2, dict(resume="task2.ckpt", iterations=K + 1)),
                (TASK2, dict(checkpoint_every=10)),
                (TASK2, dict(checkpoint_seconds=10)),
                (TASK2, dict(checkpoint="c.ckpt", checkpoint_every=0)),
                (TASK2, dict(checkpoint="c.ckpt", checkpoint_seconds=-1.5)),
                (TASK2, dict(resume="task2.ckpt", trace="task2.ckpt")),
                (TASK2, dict(checkpoint="out.csv", solution="out.csv")),
            ]
            for example, options in cases:
                options = dict(common, **options)
                expected = cli_error("run", example, *cli_args(options))
                with self.assertRaises(scfw.InputError, msg=str(options)) as caught:
                    scfw.solve(example, **options)
                self.assertEqual(str(caught.exception), expected)
            opts = cli_args(common)
            with open("start.csv", "w") as f:
                f.write("kind,name,value\n")
            expected = cli_error("run", TASK2, *opts, "--resume", "task2.ckpt", "--start", "start.csv")
            self.assertEqual(expected, "--start and --resume: a resumed run continues from its checkpoint; give one "
                                       "of them")
            with self.assertRaises(scfw.InputError) as caught:
                scfw.solve(TASK2, iterations=K, seed=5, resume="task2.ckpt", start=np.zeros(100))
            self.assertEqual(str(caught.exception), expected)
            # A checkpoint that cannot be written ends the run as a failure (`scfw run`: exit 1).
            with open("a_file", "w"):
                pass
            code, _, err = run_cli("run", TASK2, *cli_args(dict(common, checkpoint="a_file/c.ckpt", checkpoint_every=10)))
            self.assertEqual(code, 1)
            with self.assertRaises(scfw.SolverError) as caught:
                scfw.solve(TASK2, checkpoint="a_file/c.ckpt", checkpoint_every=10, **common)
            self.assertEqual("error: %s\n" % caught.exception, err)
            self.assertEqual(str(caught.exception),
                             "iteration 10 (checkpoint): a_file/c.ckpt: cannot write the checkpoint (Not a directory)")
            with self.assertRaises(TypeError):
                scfw.solve(TASK2, checkpoint=3)
            with self.assertRaises(TypeError):
                scfw.solve(TASK2, checkpoint="c.ckpt", checkpoint_every=2.5)


class StatefulBall(L1Ball):
    """The same ball, saying that its LMO keeps state between calls that scfw cannot save."""
    keeps_state = True


class WarmNuclearBall:
    """The nuclear-norm ball of radius 1 over 5 x 4 matrices, its LMO a few power iterations from
    the previous call's right vector: an inexact LMO whose answers depend on that vector, which
    save_state and load_state carry over a checkpoint."""
    dim = 20
    shape = (5, 4)

    def __init__(self, restores=True):
        self.v = np.ones(4) / 2.0
        self.restores = restores

    def lmo(self, g):
        G = np.asarray(g).reshape(5, 4)
        v = self.v
        for _ in range(2):
            u = G @ v
            u /= np.linalg.norm(u)
            v = G.T @ u
            v /= np.linalg.norm(v)
        self.v = v
        return -np.outer(u, v).ravel()

    def initial_point(self):
        return np.zeros(20)

    def contains(self, x, tol):
        return np.linalg.svd(np.asarray(x).reshape(5, 4), compute_uv=False).sum() <= 1.0 + tol

    def save_state(self):
        return self.v.tobytes()

    def load_state(self, data):
        if self.restores:
            self.v = np.frombuffer(data, dtype=np.float64).copy()


class PythonPluginCheckpointTest(unittest.TestCase):
    def test_python_oracle_resumes_bitwise(self):
        # An oracle keeps no state between calls (its samples come from the run's engine, which
        # the checkpoint holds), so a Python oracle resumes exactly, as a C++ one does.
        with TempDir():
            oracle = write_tasks()
            tasks = [oracle.task(i) for i in range(oracle.outputs)]
            p = dict(problem(batch=2), oracle={"plugin": "mine"})
            common = dict(iterations=200, seed=4, report_every=25)
            full = scfw.solve(p, plugins={"mine": LeastSquaresTasks(tasks, 2)}, **common)
            scfw.solve(p, plugins={"mine": LeastSquaresTasks(tasks, 2)}, checkpoint="o.ckpt", checkpoint_every=130,
                       **common)
            resumed = scfw.solve(p, plugins={"mine": LeastSquaresTasks(tasks, 2)}, resume="o.ckpt", **common)
            self.assertIn("resumed         from o.ckpt at iteration 130\n", resumed.report)
            self.assertEqual(resumed.x.tobytes(), full.x.tobytes())
            for column in ("iteration", "objective", "gap", "glmo_value"):
                self.assertEqual(resumed.trace[column].tobytes(), full.trace[column].tobytes(), column)

    def test_python_domain_without_state_resumes_one_with_state_is_refused(self):
        with TempDir():
            write_tasks()
            p = dict(problem(), domain={"plugin": "ball"}, glmo={"plugin": "column_generation"})
            common = dict(iterations=150, seed=3, report_every=25)
            full = scfw.solve(p, plugins={"ball": L1Ball(20, 2.0)}, **common)
            scfw.solve(p, plugins={"ball": L1Ball(20, 2.0)}, checkpoint="d.ckpt", checkpoint_every=100, **common)
            resumed = scfw.solve(p, plugins={"ball": L1Ball(20, 2.0)}, resume="d.ckpt", **common)
            self.assertEqual(resumed.x.tobytes(), full.x.tobytes())
            self.assertEqual(resumed.trace["gap"].tobytes(), full.trace["gap"].tobytes())

            # keeps_state = True: refused before the run, as `scfw run` refuses a GLMO that
            # declares state it cannot save.
            with self.assertRaises(scfw.InputError) as caught:
                scfw.solve(p, plugins={"ball": StatefulBall(20, 2.0)}, checkpoint="s.ckpt", **common)
            self.assertEqual(str(caught.exception),
                             '--checkpoint: domain python_domain (the Python object "ball") keeps warm state it '
                             'cannot save, so a resumed run would not be exact')
            with self.assertRaises(scfw.InputError) as caught:
                scfw.solve(p, plugins={"ball": StatefulBall(20, 2.0)}, resume="d.ckpt", **common)
            self.assertEqual(str(caught.exception),
                             'd.ckpt: checkpoint: domain python_domain (the Python object "ball") keeps warm state it '
                             'cannot restore')
            # Without checkpoints it runs as before.
            plain = scfw.solve(p, plugins={"ball": StatefulBall(20, 2.0)}, **common)
            self.assertEqual(plain.x.tobytes(), full.x.tobytes())

    def test_python_domain_saves_its_state(self):
        with TempDir():
            write_tasks()
            p = dict(problem(), domain={"plugin": "ball"}, glmo={"plugin": "column_generation"})
            common = dict(iterations=150, seed=3, report_every=25)
            full = scfw.solve(p, plugins={"ball": WarmNuclearBall()}, **common)
            scfw.solve(p, plugins={"ball": WarmNuclearBall()}, checkpoint="w.ckpt", checkpoint_every=100, **common)
            resumed = scfw.solve(p, plugins={"ball": WarmNuclearBall()}, resume="w.ckpt", **common)
            self.assertIn("resumed         from w.ckpt at iteration 100\n", resumed.report)
            self.assertEqual(resumed.x.tobytes(), full.x.tobytes())
            self.assertEqual(resumed.trace["gap"].tobytes(), full.trace["gap"].tobytes())
            # The state matters: a ball that drops it on load does not continue the run.
            dropped = scfw.solve(p, plugins={"ball": WarmNuclearBall(restores=False)}, resume="w.ckpt", **common)
            self.assertNotEqual(dropped.x.tobytes(), full.x.tobytes())

            class BadState(WarmNuclearBall):
                def save_state(self):
                    return "v"
            with self.assertRaises(scfw.SolverError) as caught:
                scfw.solve(p, plugins={"ball": BadState()}, checkpoint="b.ckpt", checkpoint_every=100, **common)
            self.assertIn("ball: save_state() returned str, expected bytes", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
