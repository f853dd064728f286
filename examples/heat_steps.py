"""Implicit heat steps from Python: (I + dt k(t) L) u_new = u_old on a 3D grid built with SciPy. One
clkr.Solver serves every step: each step gives it the matrix's new values (same pattern), which also
refreshes the AMG, and solves from the previous solution. Exits non-zero if a step fails."""
import sys

import numpy as np
import scipy.sparse as sp

import clkr

g = int(sys.argv[1]) if len(sys.argv) > 1 else 24
t = sp.diags([-np.ones(g - 1), 2 * np.ones(g), -np.ones(g - 1)], [-1, 0, 1])
i = sp.identity(g)
L = (sp.kron(sp.kron(t, i), i) + sp.kron(sp.kron(i, t), i) + sp.kron(sp.kron(i, i), t)).tocsr()
I = sp.identity(g ** 3, format="csr")
u = np.zeros(g ** 3)
u[g ** 3 // 2] = 1.0  # a hot spot in the middle

solver = clkr.Solver((I + L).tocsr(), precond="amg", tol=1e-8)
print(solver.description, f"setup {solver.setup_seconds:.3f} s")
for step in range(1, 11):
    solver.update((I + (1 + 0.1 * step) * L).tocsr())  # k(t) grows: new values, same pattern
    u, info = solver.solve(u, x0=u)
    print(f"step {step:2d}: {info.status} in {info.iterations} iterations, residual {info.true_relative_residual:.1e}")
    if not info.converged or info.true_relative_residual > 1e-7:
        sys.exit(1)
print(f"heat left after 10 steps: {u.sum():.6f}")
