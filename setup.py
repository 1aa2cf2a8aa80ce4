"""Only the C extensions live here; everything else is in pyproject.toml.

Both are optional: without a C compiler the install still succeeds, `skyjo_env.observation`
falls back to its pure-Python encoder and `expert` to its Python code (the same vectors and
moves, slower).
"""

import sys

import numpy
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "skyjo_env._cencode",
            ["skyjo_env/_cencode.c"],
            include_dirs=[numpy.get_include()],  # built against NumPy 2: runs with NumPy 1.26 and 2.x
            optional=True,
        ),
        Extension(
            "agents._cexpert",  # expert's move: the same floats as agents/expert.py, so no fused multiply-add
            ["agents/_cexpert.c"],
            extra_compile_args=[] if sys.platform == "win32" else ["-ffp-contract=off"],
            optional=True,
        ),
    ]
)
