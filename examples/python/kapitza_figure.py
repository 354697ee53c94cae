"""The Kapitza pendulum held upright by its vibrating pivot: the resolved motion (velocity
Verlet with steps far below the fast period) and HMM's averaged motion (macro steps of 1/80),
drawn with Matplotlib into a PNG.

    PYTHONPATH=build/python python3 examples/python/kapitza_figure.py [out.png]
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display: write the file
import matplotlib.pyplot as plt

import mdl


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else "kapitza.png"
    m = mdl.compile_file(os.path.join(here, "..", "..", "models", "kapitza.mdl"))
    m.parameters["omega"] = 1e3
    resolved = m.simulate(method="verlet", stop=1.0, step=1e-5, every=10)
    averaged = m.simulate(method="hmm", stop=1.0, step=1 / 80)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(resolved.t, resolved["q"], lw=0.6, label="resolved (Verlet, h = 1e-5)")
    ax.plot(averaged.t, averaged["q"], "o", ms=3, label="HMM (H = 1/80)")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("q [rad] from the upward vertical")
    ax.set_title(f"Kapitza pendulum, omega = 1e3: {averaged.stats.force_evaluations} vs "
                 f"{resolved.stats.force_evaluations} force evaluations")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
