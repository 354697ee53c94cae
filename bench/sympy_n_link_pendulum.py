#!/usr/bin/env python3
"""The n-link pendulum of models/n_link_pendulum.mdl derived by sympy.physics.mechanics.

n point masses m_k on massless rods l_k hung from a fixed pivot O, absolute angles phi_k
from the downward vertical, gravity g along -y: the system of sympy's own n-link pendulum
example, written with ReferenceFrame, Point, Particle and LagrangesMethod, then the mass
matrix and forcing vector turned into numerical functions by lambdify (numpy).

Two uses:

  sympy_n_link_pendulum.py accelerations < states
      reads lines "n q_1 .. q_n u_1 .. u_n" (links, angles, angular velocities) from stdin, with
      m_k = 1 + k/10, l_k = 1 - k/(4 n), g = 9.81 (k = 1..n), and prints the accelerations
      M(q)^-1 forcing(q, u) of each line to 17 significant digits
      (tests/api/n_link_pendulum_test.cpp compares them with mdl's).

  sympy_n_link_pendulum.py time N [N ...]
      derives and lambdifies for each N and prints one JSON line per N:
      {"n": N, "derive_s": ..., "lambdify_s": ..., "eval_us": ..., "derive_wall_s": ...}
      (CPU times of this process, time.process_time, as Google Benchmark's CPU column: the
      machine is shared; the wall time of the derivation is given beside)
      (derive: LagrangesMethod's equations, mass matrix and forcing; lambdify: both into
      Python functions; eval: one evaluation of M and forcing and the solve).
"""
import json
import sys
import time

import sympy
from sympy.physics import mechanics as me


def derive(n):
    q = me.dynamicsymbols(f"q1:{n + 1}")
    u = me.dynamicsymbols(f"q1:{n + 1}", 1)
    m = sympy.symbols(f"m1:{n + 1}")
    l = sympy.symbols(f"l1:{n + 1}")
    g = sympy.symbols("g")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    particles = []
    P = O
    for k in range(n):
        P = P.locatenew(f"P{k + 1}", l[k] * sympy.sin(q[k]) * N.x - l[k] * sympy.cos(q[k]) * N.y)
        P.set_vel(N, P.pos_from(O).dt(N))
        particle = me.Particle(f"Pa{k + 1}", P, m[k])
        particle.potential_energy = m[k] * g * P.pos_from(O).dot(N.y)
        particles.append(particle)
    L = me.Lagrangian(N, *particles)
    method = me.LagrangesMethod(L, q)
    method.form_lagranges_equations()
    mass = method.mass_matrix
    forcing = method.forcing
    return q, u, m, l, g, mass, forcing


def numerical(n, q, u, m, l, g, mass, forcing):
    # Python's math module (numpy is not needed): the n x n entries and the n forcing terms
    # as flat lists
    args = list(q) + list(u) + list(m) + list(l) + [g]
    return (sympy.lambdify(args, list(mass), "math"),
            sympy.lambdify(args, list(forcing), "math"))


def solve(n, mass, forcing):
    """M a = forcing by Gaussian elimination with partial pivoting (M is n x n, row-major)."""
    A = [list(mass[i * n:(i + 1) * n]) + [forcing[i]] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(A[r][c]))
        A[c], A[p] = A[p], A[c]
        for r in range(c + 1, n):
            f = A[r][c] / A[c][c]
            for k in range(c, n + 1):
                A[r][k] -= f * A[c][k]
    a = [0.0] * n
    for r in range(n - 1, -1, -1):
        a[r] = (A[r][n] - sum(A[r][k] * a[k] for k in range(r + 1, n))) / A[r][r]
    return a


def parameters(n):
    ms = [1.0 + k / 10.0 for k in range(1, n + 1)]
    ls = [1.0 - k / (4.0 * n) for k in range(1, n + 1)]
    return ms + ls + [9.81]


def accelerations():
    functions = {}
    for line in sys.stdin:
        fields = line.split()
        if not fields:
            continue
        n = int(fields[0])
        values = [float(x) for x in fields[1:]]
        if len(values) != 2 * n:
            raise SystemExit(f"expected {2 * n} numbers after n = {n}, got {len(values)}")
        if n not in functions:
            functions[n] = numerical(n, *derive(n))
        mass_f, forcing_f = functions[n]
        args = values + parameters(n)
        a = solve(n, mass_f(*args), forcing_f(*args))
        print(" ".join(repr(float(x)) for x in a))


def timing(n):
    wall = time.perf_counter()
    start = time.process_time()
    derived = derive(n)
    derived_at = time.process_time()
    wall = time.perf_counter() - wall
    mass_f, forcing_f = numerical(n, *derived)
    lambdified_at = time.process_time()
    args = [0.1 * k for k in range(2 * n)] + parameters(n)
    calls = 0
    eval_start = time.process_time()
    while True:
        solve(n, mass_f(*args), forcing_f(*args))
        calls += 1
        if time.process_time() - eval_start > 0.2 and calls >= 10:
            break
    eval_s = (time.process_time() - eval_start) / calls
    return {"n": n, "derive_s": derived_at - start, "lambdify_s": lambdified_at - derived_at,
            "eval_us": eval_s * 1e6, "derive_wall_s": wall, "sympy": sympy.__version__}


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "accelerations":
        accelerations()
    elif len(sys.argv) >= 3 and sys.argv[1] == "time":
        for n in sys.argv[2:]:
            print(json.dumps(timing(int(n))), flush=True)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
