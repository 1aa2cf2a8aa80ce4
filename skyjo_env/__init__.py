"""Skyjo for reinforcement learning: a fast rules engine, a PettingZoo AEC env and a Gymnasium env.

- `skyjo_env.engine`: the rules (no RL imports).
- `skyjo_env.env(**kwargs)` / `skyjo_env.raw_env(**kwargs)`: PettingZoo AEC env `skyjo_v0`.
- `gymnasium.make("Skyjo-v0", ...)` (after `import skyjo_env`) or
  `gymnasium.make("skyjo_env:Skyjo-v0", ...)`: the single-agent env.
"""

from __future__ import annotations

import gymnasium

from skyjo_env.aec import env, raw_env

__version__ = "0.1.0"
__all__ = ["env", "raw_env"]

if "Skyjo-v0" not in gymnasium.registry:
    gymnasium.register(id="Skyjo-v0", entry_point="skyjo_env.gym_env:SkyjoEnv")

try:  # PettingZoo >= 1.27 has a registry: pettingzoo.make("aec", "skyjo_v0")
    import pettingzoo

    if hasattr(pettingzoo, "register"):
        from pettingzoo.env_registry.registration import aec_registry

        if "skyjo-v0" not in aec_registry and "skyjo_v0" not in aec_registry:
            pettingzoo.register("aec", "skyjo_v0", entry_point="skyjo_env.aec:env")
except ImportError:  # pragma: no cover - older PettingZoo without the registry module
    pass
