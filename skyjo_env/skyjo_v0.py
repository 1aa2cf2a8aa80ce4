"""`skyjo_v0`: the PettingZoo AEC env, importable the way PettingZoo's own envs are.

    from skyjo_env import skyjo_v0      # like `from pettingzoo.classic import connect_four_v3`

    env = skyjo_v0.env(num_players=3)   # with PettingZoo's safety checks
    raw = skyjo_v0.raw_env()            # bare

The env itself, with its doc table, is `skyjo_env.aec`.
"""

from __future__ import annotations

from skyjo_env.aec import env, raw_env

__all__ = ["env", "raw_env"]
