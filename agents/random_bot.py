"""`random`: a uniformly random legal action (seeded)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from skyjo_env.engine.view import SeatView


class RandomBot:
    """Picks uniformly among the legal actions with its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        self._uniforms: list[float] = []

    def act(self, view: SeatView, legal_actions: Sequence[int]) -> int:
        if not legal_actions:
            raise ValueError("no legal action to choose from")
        if not self._uniforms:  # draw uniforms in bulk: one numpy call per 4096 decisions
            self._uniforms = self._rng.random(4096).tolist()
        return legal_actions[int(self._uniforms.pop() * len(legal_actions))]
