# Reference accelerations of a triple pendulum in joint angles, from SymPy's Lagrange method
# (sympy.physics.mechanics.LagrangesMethod; Debian python3-sympy), for
# tests/api/kinetic_energy_test.cpp: an independent derivation of M(q) and of the forcing
# (velocity terms, gravity, a rotational damper on q2), solved in 30-digit arithmetic at three
# random states. Run: python3 tests/api/reference/triple_pendulum_sympy.py
import sympy as sp
from sympy.physics.mechanics import dynamicsymbols, ReferenceFrame, Point, Particle, LagrangesMethod, Lagrangian
q = dynamicsymbols('q1:4'); qd = [dynamicsymbols('q1:4', 1)[i] for i in range(3)]
m = [0.7, 0.4, 0.25]; l = [0.5, 0.35, 0.3]; g = 9.81; c = 0.3
N = ReferenceFrame('N'); O = Point('O'); O.set_vel(N, 0)
pts = []; prev = O; parts = []
for k in range(3):
    P = prev.locatenew('P%d' % k, l[k]*sp.sin(q[k])*N.x - l[k]*sp.cos(q[k])*N.y)
    P.set_vel(N, P.pos_from(O).dt(N))
    pa = Particle('pa%d' % k, P, m[k])
    pa.potential_energy = m[k]*g*P.pos_from(O).dot(N.y)
    parts.append(pa); prev = P
L = Lagrangian(N, *parts)
lm = LagrangesMethod(L, q)
lm.form_lagranges_equations()
M = lm.mass_matrix; F = lm.forcing
# generalized force on q2: -c der(q2) (a rotational damper), added to the forcing
F = F + sp.Matrix([0, -c*qd[1], 0])
import random
random.seed(2026)
for trial in range(3):
    vals = {}
    qs = [random.uniform(-2, 2) for _ in range(3)]; vs = [random.uniform(-3, 3) for _ in range(3)]
    for k in range(3):
        vals[q[k]] = qs[k]; vals[qd[k]] = vs[k]
    Mn = M.subs(vals).evalf(30); Fn = F.subs(vals).evalf(30)
    a = Mn.LUsolve(Fn)
    print("{%s, %s, %s}," % tuple("{%s, %s, %s}" % tuple(repr(float(x)) for x in arr) for arr in (qs, vs, [a[i] for i in range(3)])))
