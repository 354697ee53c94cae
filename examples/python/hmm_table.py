"""Table 2.3 of the HMM paper (Sharp, Tsai, Engquist, "Multiple time scale numerical methods
for the inverted pendulum problem", Multiscale Methods in Science and Engineering, LNCSE 44,
Springer 2005): HMM with the simple filter (one fast period, K = 1/2), Verlet macro and micro
steps, on the Kapitza pendulum. The error is the largest |Q_n - q(t_n)| over the macro steps
against the averaged equation q'' = (g/l - vmax^2/(2 l^2) cos q) sin q, itself compiled with
mdl and integrated by dopri5 at tight tolerances with outputs on the macro grid.

    PYTHONPATH=build/python python3 examples/python/hmm_table.py [models/kapitza.mdl]
"""
import os
import sys

import numpy as np

import mdl

AVERAGED = """
model AveragedKapitza "the Kapitza pendulum's averaged motion"
  parameter Real l = 0.2;
  parameter Real g = 9.8;
  parameter Real vmax = 4;
  coordinate q(start = 0.5, vstart = 0);
equation
  der(der(q)) = (g/l - vmax^2/(2*l^2)*cos(q))*sin(q);
end AveragedKapitza;
"""

# (H, the paper's micro steps, its errors for omega = 1e3, 1e4, 1e6, 1e8)
PAPER = [(1 / 10, 50, [3.86e-1, 4.05e-1, 4.07e-1, 4.07e-1]),
         (1 / 20, 200, [9.11e-2, 1.05e-1, 1.07e-1, 1.07e-1]),
         (1 / 40, 800, [1.15e-2, 2.55e-2, 2.70e-2, 2.70e-2]),
         (1 / 80, 3200, [8.67e-3, 5.20e-3, 6.70e-3, 6.71e-3])]
OMEGAS = [1e3, 1e4, 1e6, 1e8]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "models",
                                                              "kapitza.mdl")
    kapitza = mdl.compile_file(path)
    averaged = mdl.compile(AVERAGED, "averaged_kapitza.mdl")
    print("Table 2.3 (simple filter), error max_n |Q_n - q(t_n)|: ours (paper)")
    print(f"{'H':>6} {'micro':>6} " + " ".join(f"{'omega=%g' % w:>21}" for w in OMEGAS))
    worst = 0.0
    for H, paper_micro, paper_errors in PAPER:
        reference = averaged.simulate(method="dopri5", stop=1.0, step=H, rtol=1e-13,
                                      atol=1e-15)
        cells = []
        for omega, paper in zip(OMEGAS, paper_errors):
            kapitza.parameters["omega"] = omega
            r = kapitza.simulate(method="hmm", stop=1.0, step=H, filter="simple")
            np.testing.assert_allclose(r.t, reference.t, atol=1e-9)
            error = np.max(np.abs(r["q"] - reference["q"]))
            worst = max(worst, abs(error - paper) / paper)
            cells.append(f"{error:9.3g} ({paper:8.3g})")
        print(f"1/{round(1 / H):<4} {r.stats.micro_steps:>6} " + " ".join(cells))
    print(f"largest relative difference from the paper: {worst:.0%}")
    return 0 if worst < 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
