"""The training opponents: a mix of bots and frozen past checkpoints (league-style self-play)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skyjo_env.engine.view import SeatView

SELF = "self"


class LeagueOpponent:
    """A bot that becomes a new member of the league at every game (`reset`).

    `weights` maps bot names (or model paths) to sampling weights; the key "self" draws
    a random checkpoint from `pool_dir` (the most recent `pool_size` files), which the
    trainer fills with frozen copies of the learner. Loaded models are cached.
    """

    name = "league"

    def __init__(self, weights: dict[str, float], pool_dir: str | Path | None = None, pool_size: int = 8) -> None:
        from agents import make

        self.members = list(weights)
        p = np.array([weights[m] for m in self.members], dtype=np.float64)
        self.p = p / p.sum()
        self.pool_dir = Path(pool_dir) if pool_dir is not None else None
        self.pool_size = pool_size
        self.bots = {m: make(m) for m in self.members if m != SELF}
        self._models: OrderedDict[Path, Any] = OrderedDict()
        self.current: Any = None
        self.current_name = ""
        self._rng = np.random.default_rng()
        if SELF in self.members and self.pool_dir is None:
            raise ValueError("the 'self' opponent needs a pool directory of checkpoints")

    def pool(self) -> list[Path]:
        if self.pool_dir is None or not self.pool_dir.exists():
            return []
        return sorted(self.pool_dir.glob("*.zip"))[-self.pool_size :] if self.pool_size else []

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        member = self.members[int(self._rng.choice(len(self.members), p=self.p))]
        if member == SELF:
            pool = self.pool()
            if pool:
                path = pool[int(self._rng.integers(len(pool)))]
                self.current, self.current_name = self._load(path), f"self:{path.stem}"
            else:  # nothing frozen yet: play the first bot of the mix instead
                fallback = next((m for m in self.members if m != SELF), "random")
                self.current = self.bots.get(fallback) or self._bot(fallback)
                self.current_name = fallback
        else:
            self.current, self.current_name = self.bots[member], member
        self.current.reset(None if seed is None else seed + 1)

    def _bot(self, name: str) -> Any:
        from agents import make

        self.bots[name] = make(name)
        return self.bots[name]

    def _load(self, path: Path) -> Any:
        from agents.ppo_bot import PolicyBot

        if path not in self._models:
            self._models[path] = PolicyBot(path)
            while len(self._models) > max(1, self.pool_size):
                self._models.popitem(last=False)
        return self._models[path]

    def act(self, view: SeatView, legal_actions: Sequence[int]) -> int:
        return self.current.act(view, legal_actions)
