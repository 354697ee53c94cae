"""mdl.sweep equals mdl sweep: the same points in the same order, each trajectory to the
last bit."""
import csv
import math
import os
import tempfile
import unittest
import zipfile

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


class LibrarySweep(unittest.TestCase):
    """The library's sweep from Python against the closed form of the harmonic oscillator,
    q(T) = q0 cos(sqrt(k/m) T) (models/harmonic_oscillator.mdl, m = 2, q0 = 1, v0 = 0)."""

    def closed_form(self, k, t):
        return math.cos(math.sqrt(k / 2.0) * t)

    def test_in_memory_on_threads_meets_the_closed_form(self):
        m = mdl.compile_file(model("harmonic_oscillator.mdl"))
        runs = mdl.sweep(m, {"k": [2.0, 8.0, 18.0]}, jobs=2, method="dopri5", stop=1.0,
                         rtol=1e-10, atol=1e-12)
        for run, k in zip(runs, [2.0, 8.0, 18.0]):
            self.assertEqual(run.status, "ok")
            self.assertAlmostEqual(run.result["q"][-1], self.closed_form(k, 1.0), delta=1e-8)

    def test_files_in_worker_processes_meet_the_closed_form(self):
        m = mdl.compile_file(model("harmonic_oscillator.mdl"))
        with tempfile.TemporaryDirectory() as folder:
            runs = mdl.sweep(m, {"k": [2.0, 8.0]}, jobs=2, output=folder, isolation="process",
                             summary_only=True, method="dopri5", stop=1.0, rtol=1e-10,
                             atol=1e-12)
            self.assertEqual([r.status for r in runs], ["ok", "ok"])
            with open(os.path.join(folder, "summary.csv")) as f:
                rows = list(csv.DictReader(f))
            for row, k in zip(rows, [2.0, 8.0]):
                self.assertAlmostEqual(float(row["time"]), 1.0, delta=1e-12)
                self.assertAlmostEqual(float(row["q"]), self.closed_form(k, 1.0), delta=1e-8)

    def test_runs_carry_their_notes(self):
        """The rough start of models/slider_crank.mdl is reported by every run, in memory and
        from worker processes."""
        m = mdl.compile_file(model("slider_crank.mdl"))
        runs = mdl.sweep(m, {"a": [0.1]}, stop=0.01)
        self.assertTrue(any(n.startswith("consistent start: changed") for n in runs[0].notes))
        with tempfile.TemporaryDirectory() as folder:
            runs = mdl.sweep(m, {"a": [0.1]}, output=folder, isolation="process", stop=0.01,
                             summary_only=True)
        self.assertTrue(any(n.startswith("consistent start: changed") for n in runs[0].notes))

    def test_processes_need_an_output(self):
        m = mdl.compile_file(model("harmonic_oscillator.mdl"))
        with self.assertRaises(ValueError):
            mdl.sweep(m, {"k": [2.0]}, isolation="process")


class Export(unittest.TestCase):
    def test_export_fmu_equals_mdl_export(self):
        """Front-door consistency: mdl.export_fmu writes the modelDescription.xml that
        mdl export writes (the GUID hashes the kernels' code and the description)."""
        with tempfile.TemporaryDirectory() as folder:
            mine = os.path.join(folder, "python.fmu")
            cli = os.path.join(folder, "cli.fmu")
            summary = mdl.export_fmu(model("harmonic_oscillator.mdl"), mine, method="rk4",
                                     step=1e-3, parameters={"k": 18.0})
            self.assertEqual(summary["identifier"], "HarmonicOscillator")
            status, errors = run_cli(["export", model("harmonic_oscillator.mdl"), "--fmu", cli,
                                      "--method", "rk4", "--step", "1e-3", "-p", "k=18"])
            self.assertEqual(status, 0, errors)
            with zipfile.ZipFile(mine) as a, zipfile.ZipFile(cli) as b:
                self.assertEqual(a.read("modelDescription.xml"), b.read("modelDescription.xml"))
                self.assertIn(b'name="k"', a.read("modelDescription.xml"))

    def test_export_c_library_of_a_compiled_model(self):
        m = mdl.compile_file(model("harmonic_oscillator.mdl"))
        with tempfile.TemporaryDirectory() as folder:
            mdl.export_c_library(m, folder, method="verlet", step=1e-3)
            for name in ["libHarmonicOscillator.a", "libHarmonicOscillator.so",
                         "HarmonicOscillator.h"]:
                self.assertTrue(os.path.isfile(os.path.join(folder, name)), name)


if __name__ == "__main__":
    unittest.main()
