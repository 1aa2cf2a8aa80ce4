"""`skyjo_v1`: the PettingZoo AEC env with the observation for any table size (`skyjo_env.observation.seats`).

    from skyjo_env import skyjo_v1

    env = skyjo_v1.env(num_players=5)   # observations of 1831 floats at every table size

The same env as `skyjo_v0` (`skyjo_env.aec`), `observation="skyjo_v1"`.
"""

from __future__ import annotations

from typing import Any

from skyjo_env import aec
from skyjo_env.observation import SEATS_VERSION

__all__ = ["env", "raw_env"]


def raw_env(**kwargs: Any) -> aec.raw_env:
    """`skyjo_env.aec.raw_env` with the `skyjo_v1` observation."""
    return aec.raw_env(**{"observation": SEATS_VERSION, **kwargs})


def env(**kwargs: Any) -> aec.SkyjoChecks:
    """`skyjo_env.aec.env` (with PettingZoo's safety checks) with the `skyjo_v1` observation."""
    return aec.env(**{"observation": SEATS_VERSION, **kwargs})
