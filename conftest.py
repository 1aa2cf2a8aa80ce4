"""pytest at the repository root: what `--doctest-modules` must not import."""

import importlib.util

# Modules that import an optional library at the top: without its extra their doctests cannot run.
# The RLlib env needs Ray (tests/train/test_rllib.py covers it where Ray is installed, .ci/run's
# .venv-rllib); the OpenSpiel game needs pyspiel (tests/envs/test_openspiel.py, the openspiel extra).
collect_ignore = [
    module
    for module, library in (("train/rllib_env.py", "ray"), ("skyjo_env/openspiel.py", "pyspiel"))
    if importlib.util.find_spec(library) is None
]
