"""`SkyjoVecEnv`: the batched games of `skyjo_env.vector.SkyjoBatch` as a stable-baselines3 `VecEnv`.

What `skyjo train` collects its rollouts with. It behaves like SB3's `DummyVecEnv` of
`Monitor`-wrapped `Skyjo-v0` envs: a game that ends restarts at once, its last observation
in `info["terminal_observation"]`, `info["TimeLimit.truncated"]` set for a truncated
round, and `info["episode"]` (`r`, `l`, `t`, as `Monitor` writes it) for SB3's episode
statistics. `action_masks()` gives the (num_envs, 26) bool masks, and
`env_method("action_masks")` their rows, for sb3-contrib's MaskablePPO. Needs
stable-baselines3 (the `train` extra).

    >>> from skyjo_env.sb3 import SkyjoVecEnv
    >>> env = SkyjoVecEnv(8, opponents=["greedy"], reward="relative")
    >>> env.seed(0); obs = env.reset()
    [0, 1, 2, 3, 4, 5, 6, 7]
    >>> obs.shape, env.action_masks().shape
    ((8, 496), (8, 26))
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from skyjo_env.engine import NUM_ACTIONS
from skyjo_env.vector import SkyjoBatch, episode_stats

__all__ = ["SkyjoVecEnv"]


class SkyjoVecEnv(VecEnv):
    """`num_envs` Skyjo games as one SB3 `VecEnv`; keyword arguments as `SkyjoBatch` (see the module docstring)."""

    def __init__(self, num_envs: int, **kwargs: Any) -> None:
        self.batch = SkyjoBatch(num_envs, **kwargs)
        low, high = self.batch.observation_bounds()
        observation_space = spaces.Box(low=low, high=high, dtype=np.float32)
        self.render_mode = None
        super().__init__(num_envs, observation_space, spaces.Discrete(NUM_ACTIONS))
        self._actions: np.ndarray | None = None
        self._started = time.time()

    # ------------------------------------------------------------ VecEnv
    def reset(self) -> np.ndarray:
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        self.batch.reset(seeds)
        self._reset_seeds()
        self._reset_options()
        return self.batch.observations.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        """Step every game; a game that ended restarts, its last observation in `info["terminal_observation"]`."""
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        batch = self.batch
        batch.step(self._actions)
        self._actions = None
        rewards = batch.rewards.astype(np.float32)
        dones = batch.done.copy()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            info = infos[i]
            info["terminal_observation"] = batch.observations[i].copy()
            info["TimeLimit.truncated"] = bool(batch.truncated[i] and not batch.terminated[i])
            info["episode"] = episode_stats(batch, int(i), self._started)
            if batch.illegal[i]:
                info["illegal_action"] = True
        batch.reset_done()
        return batch.observations.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, 26) bool: each game's legal actions (a game that just ended shows the new game's)."""
        return self.batch.masks.copy()

    def close(self) -> None:
        pass

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Game i is seeded with `seed + i` at the next `reset()` (SB3's convention)."""
        return super().seed(seed)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        idx = list(self._get_indices(indices))
        if attr_name == "action_masks":
            return [lambda i=i: self.batch.masks[i].copy() for i in idx]
        if attr_name == "render_mode":
            return [None for _ in idx]
        if attr_name in ("learner_seat", "game"):
            return [getattr(self.batch.games[i], attr_name) for i in idx]
        value = getattr(self.batch, attr_name)  # AttributeError for an unknown name, as VecEnv.has_attr expects
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"SkyjoVecEnv has no per-env attribute {attr_name!r} to set")

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any):
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.batch.masks
            return [masks[i].copy() for i in idx]
        raise AttributeError(f"SkyjoVecEnv has no per-env method {method_name!r} (it has action_masks)")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]
