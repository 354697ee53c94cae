"""Memory stays flat over 1,000 compile-simulate iterations: the resident set after the
last iteration is within a bound of the one after the first 100 (the model, its result
arrays and the kernels are freed each time; the compiled code is found in the process's
code cache)."""
import gc
import resource
import unittest

import mdl
from support import model


def resident_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024


class Memory(unittest.TestCase):
    def test_compile_simulate_loop(self):
        path = model("kapitza.mdl")
        def iteration():
            m = mdl.compile_file(path)
            m.parameters["omega"] = 1e3
            r = m.simulate(method="hmm", stop=0.25)
            self.assertEqual(len(r), 21)
            return r.stats.force_evaluations
        for _ in range(100):
            iteration()
        gc.collect()
        after_100 = resident_kib()
        for _ in range(900):
            iteration()
        gc.collect()
        growth = resident_kib() - after_100
        # a leak of one model or one result per iteration would be > 900 x 10 KiB
        self.assertLess(growth, 4096, f"resident set grew by {growth} KiB over 900 iterations")


if __name__ == "__main__":
    unittest.main()
