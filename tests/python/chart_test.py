"""mdl.Model.stability_chart: the Mathieu chart's boundaries against Hill's method written
here with NumPy (the eigenvalues of the equation's Fourier matrices), the arrays' layout, the
same boundary points as mdl stability-chart, and errors as ValueError."""
import math
import os
import tempfile
import unittest

import numpy

import mdl
from support import model, run_cli


def characteristic_values(q, terms=40):
    """a0 < b1 < a1 < b2 < a2 < ... at q > 0 (DLMF 28.4 recurrences as symmetric matrices)."""
    values = []
    for kind in range(4):
        order = [2 * k if kind == 0 else 2 * k + 2 if kind == 3 else 2 * k + 1
                 for k in range(terms)]
        A = numpy.diag(numpy.array(order, dtype=float) ** 2)
        for k in range(terms - 1):
            A[k, k + 1] = A[k + 1, k] = math.sqrt(2) * q if kind == 0 and k == 0 else q
        A[0, 0] += q if kind == 1 else -q if kind == 2 else 0
        values += list(numpy.linalg.eigvalsh(A)[: terms // 2])
    return sorted(values)


class StabilityChart(unittest.TestCase):
    def test_mathieu_boundaries(self):
        m = mdl.compile_file(model("mathieu.mdl"))
        c = m.stability_chart({"a": (-2, 6), "q": (1, 2)}, grid=(33, 3), tolerance=1e-8,
                              threads=2)
        self.assertIsInstance(c, mdl.StabilityChart)
        self.assertEqual((c.x_name, c.y_name), ("a", "q"))
        self.assertEqual(c.verdict.shape, (33, 3))
        self.assertEqual(c.max_multiplier.shape, (33, 3))
        self.assertEqual(list(c.y), [1.0, 1.5, 2.0])
        self.assertEqual(c.failures, [])
        b = c.boundary
        along_a = b["along_x"]
        self.assertEqual(int(along_a.sum()), 15)  # a0, b1, a1, b2, a2 at three q
        for a, q in zip(b["x"][along_a], b["y"][along_a]):
            nearest = min(abs(v - a) for v in characteristic_values(q))
            self.assertLess(nearest, 1e-6, (a, q))
        # stable exactly between a0 and b1, a1 and b2, a2 and b3
        for j, q in enumerate(c.y):
            v = characteristic_values(q)
            for i, a in enumerate(c.x):
                inside = v[0] < a < v[1] or v[2] < a < v[3] or v[4] < a < v[5]
                self.assertEqual(c.verdict[i, j] == 1, inside, (a, q))
        self.assertIn("<svg", c.svg("Mathieu"))

    def test_same_as_the_command(self):
        with tempfile.TemporaryDirectory() as folder:
            out = os.path.join(folder, "b.csv")
            status, errors = run_cli(["stability-chart", model("kapitza.mdl"), "-p",
                                      "omega=100:1000:log", "-p", "vmax=1:21", "--grid", "3x11",
                                      "--at", "q=0", "--boundary", out, "-q"])
            self.assertEqual(status, 0, errors)
            with open(out) as f:
                expected = f.read()
        m = mdl.compile_file(model("kapitza.mdl"))
        c = m.stability_chart({"omega": (100, 1000, "log"), "vmax": (1, 21)}, grid=(3, 11),
                              at={"q": 0.0}, threads=1)
        self.assertEqual(c.boundary_csv(), expected)
        self.assertEqual(c.solution, "the start state with q = 0")

    def test_errors(self):
        m = mdl.compile_file(model("mathieu.mdl"))
        with self.assertRaisesRegex(ValueError, "two parameters"):
            m.stability_chart({"a": (0, 1)})
        with self.assertRaisesRegex(ValueError, "'log'"):
            m.stability_chart({"a": (0, 1), "q": (0, 1, "cubic")})
        with self.assertRaisesRegex(ValueError, "at least 2 points"):
            m.stability_chart({"a": (0, 1), "q": (0, 1)}, grid=(1, 5))
        with self.assertRaisesRegex(ValueError, "'y' is not a position or velocity"):
            m.stability_chart({"a": (0, 1), "q": (0, 1)}, at={"y": 1.0})


if __name__ == "__main__":
    unittest.main()
