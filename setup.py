"""The build: the package as pyproject.toml declares it, with the rules engine's hot modules
(``services/compiled.py``: ``HOT``) compiled by Cython, unchanged, to C extension modules beside their sources.
Each extension is optional: where no C compiler is at hand the package installs as pure Python (the same
rules, slower), and ``services.compiled.loaded()`` tells which form runs."""

import os
import runpy

from Cython.Build import cythonize
from setuptools import Extension, setup

HOT = runpy.run_path(os.path.join("services", "compiled.py"))["HOT"]
jobs = os.cpu_count() or 1

setup(
    ext_modules=cythonize(
        [Extension(m, [m.replace(".", "/") + ".py"], optional=True) for m in HOT],
        language_level=3, nthreads=jobs, quiet=True,
        # The annotations stay Python's (a ``float`` field is not made a C double): the same semantics.
        compiler_directives={"annotation_typing": False},
    ),
    options={"build_ext": {"parallel": jobs}},
)
