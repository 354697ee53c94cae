"""Model.periodic_orbit and Model.continuation: NumPy arrays equal to mdl periodic's and mdl
continue's CSV, and the linear forced oscillator's closed-form response."""
import math
import os
import tempfile
import unittest

import numpy

import mdl
from support import MDL, model

import subprocess


LINEAR = """
model Forced
  parameter Real k = 4; parameter Real c = 0.3; parameter Real F = 0.7;
  parameter Real Omega = 1.7;
  vibration drive(theta = Omega*time) = cos(theta);
  coordinate x(start = 0, m = 1);
  potential U = k/2*x^2;
  force f(x) = -c*der(x) + F*drive;
end Forced;
"""


class Periodic(unittest.TestCase):
    def test_closed_form_response(self):
        m = mdl.compile(LINEAR)
        orbit = m.periodic_orbit(Omega=1.3)
        k, c, F, W = 4.0, 0.3, 0.7, 1.3
        X = F / math.hypot(k - W * W, c * W)
        phi = math.atan2(c * W, k - W * W)
        self.assertAlmostEqual(orbit.period, 2 * math.pi / W, places=12)
        self.assertAlmostEqual(orbit.q[0], X * math.cos(phi), places=10)
        self.assertAlmostEqual(orbit.v[0], X * W * math.sin(phi), places=10)
        # x(t) over one period: the closed form at every sample
        x = X * numpy.cos(W * orbit.t - phi)
        self.assertLess(numpy.max(numpy.abs(orbit.orbit[:, 1] - x)), 1e-9)
        self.assertEqual(orbit.monodromy.shape, (2, 2))
        self.assertTrue(numpy.allclose(numpy.abs(orbit.multipliers),
                                       math.exp(-c * orbit.period / 2), atol=1e-10))
        self.assertTrue(orbit.stable)
        self.assertEqual(m.parameters["Omega"], 1.7)  # the keyword set a copy's parameter

    def test_branch_equals_mdl_continue(self):
        m = mdl.compile_file(model("duffing_response.mdl"))
        branch = m.continuation("Omega", 0.5, 2.0)
        self.assertEqual(len(branch.points("fold")), 2)
        self.assertEqual(branch.labels[-1], "end")
        self.assertEqual(branch.amplitude.shape, (len(branch), 1))
        self.assertEqual(branch.multipliers.dtype, numpy.complex128)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "branch.csv")
            done = subprocess.run([MDL, "continue", model("duffing_response.mdl"), "-p",
                                   "Omega=0.5:2", "--csv", path], capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(path) as f:
                header = f.readline().strip().split(",")
                rows = [line.strip().split(",") for line in f]
        self.assertEqual(len(rows), len(branch))
        column = header.index("amplitude(x)")
        for i, row in enumerate(rows):
            self.assertEqual(float(row[0]), branch.parameter[i])
            self.assertEqual(float(row[column]), branch.amplitude[i, 0])
            self.assertEqual(row[-1], branch.labels[i])
            self.assertEqual(row[header.index("stable")] == "1", bool(branch.stable[i]))

    def test_errors(self):
        m = mdl.compile_file(model("pendulum_chain.mdl"))
        with self.assertRaisesRegex(ValueError, "constraints"):
            m.periodic_orbit(period=1.0)
        with self.assertRaises(ValueError):
            mdl.compile(LINEAR).continuation("nope", 0.5, 2.0)


if __name__ == "__main__":
    unittest.main()
