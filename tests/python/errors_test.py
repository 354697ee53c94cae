"""Errors reach Python as the right exceptions, with mdl run's messages."""
import os
import unittest

import mdl
from support import SOURCE_DIR, model, run_cli


class Errors(unittest.TestCase):
    def test_compile_error_carries_the_clang_style_report(self):
        bad = os.path.join(SOURCE_DIR, "tests", "bad_models", "undeclared_name.mdl")
        status, errors = run_cli(["run", bad, "-q"])
        self.assertEqual(status, 1)
        with self.assertRaises(mdl.CompileError) as caught:
            mdl.compile_file(bad)
        self.assertEqual(caught.exception.report, errors)
        self.assertIn("undeclared_name.mdl:3:23: error: use of undeclared name 'omgea'",
                      caught.exception.report)
        self.assertEqual(len(caught.exception.messages), 2)

    def test_bad_option_is_a_value_error_with_mdl_runs_message(self):
        status, errors = run_cli(["run", model("kapitza.mdl"), "--filter", "gauss", "-q"])
        self.assertEqual(status, 2)
        m = mdl.compile_file(model("kapitza.mdl"))
        with self.assertRaises(ValueError) as caught:
            m.simulate(filter="gauss")
        self.assertEqual(errors, f"mdl run: error: {caught.exception}\n")
        with self.assertRaises(ValueError):
            m.simulate(no_such_option=1)
        with self.assertRaises(TypeError):
            m.simulate(stop="soon")

    def test_numerical_failure_names_time_variable_and_method(self):
        args = ["--method", "verlet", "--step", "3", "--stop", "3000"]
        status, errors = run_cli(["run", model("harmonic_oscillator.mdl")] + args + ["-q"])
        self.assertEqual(status, 3)
        m = mdl.compile_file(model("harmonic_oscillator.mdl"))
        with self.assertRaises(mdl.NumericalFailure) as caught:
            m.simulate(method="verlet", step=3, stop=3000)
        e = caught.exception
        self.assertEqual(errors, f"mdl: error: {e}\n")
        self.assertEqual((e.method, e.variable, e.kind), ("verlet", "der(q)", "non-finite value"))
        self.assertTrue(0 < e.time < 3000)


if __name__ == "__main__":
    unittest.main()
