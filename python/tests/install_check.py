"""`pip install .` into a fresh virtual environment (seeing Debian's NumPy/SciPy, no network), then a
solve through the installed package from outside the source tree. Arguments: the source root, the CMake
build tree to reuse (CLKR_CMAKE_BUILD_DIR, so the library is not compiled twice), a scratch directory."""
import os
import pathlib
import shutil
import subprocess
import sys

source, build, work = (pathlib.Path(a).resolve() for a in sys.argv[1:4])
shutil.rmtree(work, ignore_errors=True)
subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(work / "env")], check=True)
python = work / "env" / "bin" / "python"
environment = dict(os.environ, CLKR_CMAKE_BUILD_DIR=str(build), PIP_NO_INDEX="1", PYTHONPATH="")
# A copy of the tree, so the build's egg-info and build/ folders stay out of the checkout.
tree = work / "src"
shutil.copytree(source, tree, ignore=shutil.ignore_patterns(".git", "build*", ".carry"))
subprocess.run([str(python), "-m", "pip", "install", "--no-build-isolation", "--no-deps", "-q", str(tree)],
               check=True, env=environment)
check = """
import clkr, numpy as np, scipy.sparse as sp
assert "site-packages" in clkr.__file__, clkr.__file__
A = sp.diags([-np.ones(99), 2.0 * np.ones(100), -np.ones(99)], [-1, 0, 1], format="csr")
x, info = clkr.solve(A, np.ones(100), precond="amg", tol=1e-10)
assert info.converged and np.linalg.norm(A @ x - 1) <= 1e-9 * 10, info
print("installed clkr:", clkr.__file__, info)
"""
subprocess.run([str(python), "-c", check], check=True, cwd=work, env=environment)
