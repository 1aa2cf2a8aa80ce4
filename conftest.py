"""pytest at the repository root: what `--doctest-modules` must not import."""

import importlib.util

# The RLlib env imports Ray at the top; without the rllib extra its doctests cannot run
# (tests/train/test_rllib.py covers it where Ray is installed, .ci/run's .venv-rllib).
collect_ignore = [] if importlib.util.find_spec("ray") else ["train/rllib_env.py"]
