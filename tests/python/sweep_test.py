"""mdl.sweep equals mdl sweep: the same points in the same order, each trajectory to the
last bit."""
import os
import tempfile
import unittest

import mdl
from support import model, read_csv, rows_of, run_cli, same_bits


class Sweep(unittest.TestCase):
    def test_equals_mdl_sweep(self):
        grid = {"omega": [1e3, 1e4], "vmax": [2.0, 4.0, 8.0]}
        options = ["--method", "hmm", "--stop", "0.5"]
        m = mdl.compile_file(model("kapitza.mdl"))
        runs = mdl.sweep(m, grid, jobs=2, method="hmm", stop=0.5)
        self.assertEqual(len(runs), 6)
        with tempfile.TemporaryDirectory() as folder:
            status, errors = run_cli(["sweep", model("kapitza.mdl"), "-p", "omega=1e3,1e4",
                                      "-p", "vmax=2,4,8", "-o", folder, "-q"] + options)
            self.assertEqual(status, 0, errors)
            for run in runs:
                self.assertIsNone(run.error)
                columns, rows = read_csv(os.path.join(folder, f"run_{run.index:03}.csv"))
                self.assertEqual(run.result.columns, columns)
                self.assertTrue(same_bits(rows_of(run.result), rows), run)
        # the first parameter varies slowest, as mdl sweep numbers its points
        self.assertEqual([(r.parameters["omega"], r.parameters["vmax"]) for r in runs],
                         [(1e3, 2.0), (1e3, 4.0), (1e3, 8.0), (1e4, 2.0), (1e4, 4.0),
                          (1e4, 8.0)])

    def test_a_failing_point_carries_its_error(self):
        m = mdl.compile_file(model("harmonic_oscillator.mdl"))
        runs = mdl.sweep(m, {"k": [8.0, 8e5]}, method="verlet", step=0.01, stop=100)
        self.assertIsNone(runs[0].error)  # omega h = 0.02: stable
        self.assertIsInstance(runs[1].error, mdl.NumericalFailure)  # omega h = 6.3 > 2


if __name__ == "__main__":
    unittest.main()
