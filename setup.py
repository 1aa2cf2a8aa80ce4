"""Only the C extension lives here; everything else is in pyproject.toml.

The extension is optional: without a C compiler the install still succeeds and
`skyjo_env.observation` falls back to its pure-Python encoder (same vectors, slower).
"""

import numpy
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "skyjo_env._cencode",
            ["skyjo_env/_cencode.c"],
            include_dirs=[numpy.get_include()],  # built against NumPy 2: runs with NumPy 1.26 and 2.x
            optional=True,
        )
    ]
)
