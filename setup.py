"""The CMake-driven build behind `pip install .` (pyproject.toml): configures this repository with
only the Python module enabled, builds it, and places the compiled module in the wheel beside the
package's Python files. CLKR_CMAKE_BUILD_DIR names an existing build tree to reuse instead of a fresh
one (the test suite uses it so as not to compile the library twice)."""
import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("CLKR_CMAKE_BUILD_DIR")
        if build_dir:
            build_dir = pathlib.Path(build_dir).resolve()
        else:
            build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                            "-DCLKR_BUILD_PYTHON=ON", "-DCLKR_BUILD_TESTS=OFF", "-DCLKR_BUILD_BENCHMARKS=OFF",
                            "-DCLKR_BUILD_EXAMPLES=OFF", f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "clkr_python", "-j", str(os.cpu_count() or 1)],
                       check=True)
        built = sorted((build_dir / "python" / "clkr").glob("_clkr*.so"))
        if not built:
            raise RuntimeError(f"the CMake build in {build_dir} made no _clkr module")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)


setup(packages=["clkr"], package_dir={"": "python"}, ext_modules=[CMakeExtension("clkr._clkr")],
      cmdclass={"build_ext": CMakeBuild})
