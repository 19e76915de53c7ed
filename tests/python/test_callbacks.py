"""Callbacks, exceptions, Ctrl-C and threads: what scfw.solve does while the solver runs."""

import os
import signal
import threading
import traceback
import unittest

import numpy as np

import scfw
from scfw_test_support import TASK1


class CallbackTest(unittest.TestCase):
    def test_returning_false_stops_at_that_iteration(self):
        seen = []

        def stop_at_37(state):
            seen.append(state.iteration)
            return state.iteration < 37

        r = scfw.solve(TASK1, iterations=500, callback=stop_at_37)
        self.assertEqual(r.iterations, 37)
        self.assertEqual(seen, list(range(1, 38)))
        self.assertEqual(r.status, "stopped")
        self.assertEqual(r.reason, "stopped by callback")
        self.assertEqual(r.summary["status"], "stopped")
        # The trace's last row is the final point y_37.
        self.assertEqual(int(r.trace["iteration"][-1]), 37)

    def test_none_and_true_continue(self):
        r = scfw.solve(TASK1, iterations=40, callback=lambda s: None)
        self.assertEqual((r.iterations, r.status), (40, "iteration_limit"))
        r = scfw.solve(TASK1, iterations=40, callback=lambda s: True)
        self.assertEqual((r.iterations, r.status), (40, "iteration_limit"))

    def test_callback_every(self):
        seen = []
        scfw.solve(TASK1, iterations=100, callback=seen.append, callback_every=25)
        self.assertEqual([s.iteration for s in seen], [25, 50, 75, 100])

    def test_state_reports_and_y_view(self):
        states = []
        last_y = []

        def watch(state):
            states.append((state.iteration, state.iterations, state.gap, state.objective))
            with self.assertRaises(ValueError):
                state.y[0] = 1.0  # read-only
            last_y[:] = [state.y.copy()]

        r = scfw.solve(TASK1, iterations=60, report_every=20, callback=watch)
        reported = [(i, g, o) for i, _, g, o in states if g is not None]
        self.assertEqual([i for i, _, _ in reported], [20, 40, 60])
        self.assertTrue(all(k == 60 for _, k, _, _ in states))
        self.assertIsNone(states[0][2])
        # y at the last call is y_K, bit for bit.
        self.assertEqual(last_y[0].tolist(), r.x.tolist())
        # The gaps the callback saw are the trace's, at full precision (the trace has 12 digits).
        np.testing.assert_allclose([g for _, g, _ in reported], r.trace["gap"], rtol=1e-11)

    def test_an_exception_passes_through_unchanged(self):
        class Mine(Exception):
            pass

        def fails_at_5(state):
            if state.iteration == 5:
                raise Mine("no good at 5")

        try:
            scfw.solve(TASK1, iterations=100, callback=fails_at_5)
            self.fail("no exception")
        except Mine as raised:
            e = raised
            frames = [f.name for f in traceback.extract_tb(raised.__traceback__)]
        self.assertEqual(str(e), "no good at 5")
        self.assertIs(type(e), Mine)
        # The traceback leads to the raise in the callback.
        self.assertEqual(frames[-1], "fails_at_5")
        self.assertEqual(e.result.iterations, 5)
        self.assertEqual(e.result.status, "failed")
        self.assertEqual(e.result.reason, "the callback raised Mine: no good at 5")
        self.assertIs(scfw.last_result(), e.result)

    def test_stop_iteration_and_keyboard_interrupt_from_the_callback(self):
        def interrupt(state):
            raise KeyboardInterrupt

        with self.assertRaises(KeyboardInterrupt) as caught:
            scfw.solve(TASK1, iterations=100, callback=interrupt)
        self.assertEqual(caught.exception.result.iterations, 1)


class InterruptTest(unittest.TestCase):
    def test_ctrl_c_raises_keyboard_interrupt_with_the_partial_result(self):
        if threading.current_thread() is not threading.main_thread():
            self.skipTest("signals reach the main thread only")
        K = 10_000_000
        timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        try:
            with self.assertRaises(KeyboardInterrupt) as caught:
                scfw.solve(TASK1, iterations=K)
        finally:
            timer.cancel()
        r = caught.exception.result
        self.assertEqual(r.status, "interrupted")
        self.assertEqual(r.reason, "KeyboardInterrupt")
        self.assertTrue(0 < r.iterations < K)
        self.assertEqual(r.x.shape, (100,))
        self.assertIs(scfw.last_result(), r)
        # The final point got its report.
        self.assertEqual(int(r.trace["iteration"][-1]), r.iterations)


class ThreadTest(unittest.TestCase):
    def test_two_solves_in_two_threads(self):
        # Each thread's result is the one a solve alone gives, and the main thread runs Python code
        # while both solve: the GIL is released during the solve.
        alone = [scfw.solve(TASK1, iterations=3000, seed=s).x.tolist() for s in (1, 2)]
        results = {}

        def run(seed):
            results[seed] = scfw.solve(TASK1, iterations=3000, seed=seed).x.tolist()

        threads = [threading.Thread(target=run, args=(s,)) for s in (1, 2)]
        for t in threads:
            t.start()
        spins = 0
        while any(t.is_alive() for t in threads):
            spins += 1
        for t in threads:
            t.join()
        self.assertEqual([results[1], results[2]], alone)
        self.assertGreater(spins, 0)


if __name__ == "__main__":
    unittest.main()
