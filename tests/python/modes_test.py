"""mdl.Model.modes() against closed forms: a fixed-fixed spring chain's frequencies and
shapes, the double pendulum's two frequencies (joint angles, M(q)); errors as exceptions."""
import math
import unittest

import numpy as np

import mdl
from support import model

CHAIN = """model Chain
  parameter Integer n = 5;
  parameter Real m = 0.5, k = 8;
  anchor O(x = 0);
  anchor E(x = n + 1);
  body p[n](each m = m, x(start = {i for i in 1:n}));
  spring s1(O, p[1], k = k, length = 1);
  for i in 2:n loop
    spring s[i](p[i-1], p[i], k = k, length = 1);
  end for;
  spring se(p[n], E, k = k, length = 1);
end Chain;
"""


class Modes(unittest.TestCase):
    def test_spring_chain_against_the_closed_form(self):
        n, m, k = 5, 0.5, 8.0
        r = mdl.compile(CHAIN, "chain.mdl").modes()
        j = np.arange(1, n + 1)
        omega = 2 * math.sqrt(k / m) * np.sin(j * math.pi / (2 * (n + 1)))
        self.assertIsInstance(r.omega, np.ndarray)
        np.testing.assert_allclose(r.omega, omega, rtol=1e-12)
        np.testing.assert_allclose(r.frequency_hz, omega / (2 * math.pi), rtol=1e-12)
        np.testing.assert_array_equal(r.damping_ratio, np.zeros(n))
        self.assertEqual(r.shapes.shape, (n, n))
        self.assertEqual(r.coordinates, [f"p[{i}].x" for i in range(1, n + 1)])
        # shapes: sin(i j pi / (n + 1)) up to sign, mass-normalized
        for mode in range(n):
            exact = np.sin(np.arange(1, n + 1) * (mode + 1) * math.pi / (n + 1))
            exact /= math.sqrt(m * exact @ exact)
            self.assertAlmostEqual(abs(r.shapes[mode] @ (m * exact)), 1.0, places=10)
        np.testing.assert_allclose(r.mass, m * np.eye(n), rtol=1e-15)

    def test_double_pendulum_in_joint_angles(self):
        m1, m2, l1, l2, g = 0.01, 0.005, 0.2, 0.1, 9.8
        r = mdl.compile_file(model("double_pendulum_angles.mdl")).modes(at={"q1": 3.0,
                                                                           "q2": 3.3})
        a, b, c = m1 * l1 * l2, -(m1 + m2) * g * (l1 + l2), (m1 + m2) * g * g
        w2 = np.array([(-b - math.sqrt(b * b - 4 * a * c)) / (2 * a),
                       (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)])
        np.testing.assert_allclose(r.omega, np.sqrt(w2), rtol=1e-10)
        np.testing.assert_allclose(r.equilibrium, [math.pi, math.pi], rtol=1e-12)
        self.assertEqual(r.kind, ["oscillatory", "oscillatory"])
        self.assertEqual(len(r.notes), 1)  # the vibration averaged out

    def test_errors(self):
        falling = "model F\n  body b(m = 1, x(start = 0), y(start = 0));\n  gravity G(y = -9.81);\nend F;\n"
        with self.assertRaises(mdl.NumericalFailure) as caught:
            mdl.compile(falling, "falling.mdl").modes()
        self.assertIn("b.y", caught.exception.variable)
        with self.assertRaises(ValueError):
            mdl.compile_file(model("lorenz.mdl")).modes()
        with self.assertRaises(ValueError):
            mdl.compile_file(model("pendulum.mdl")).modes(at={"nope": 1})


if __name__ == "__main__":
    unittest.main()
