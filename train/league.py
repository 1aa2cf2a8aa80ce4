"""The training opponents: a mix of bots and frozen past checkpoints (league-style self-play)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import is_shared_policy
from skyjo_env.engine.view import SeatView

SELF = "self"
POOL_SUFFIXES = (".safetensors", ".zip")  # policy files (what training writes) and SB3 checkpoints (older runs)


class LeagueOpponent:
    """A bot that becomes a new member of the league at every game (`reset`).

    `weights` maps bot names (or model paths) to sampling weights; the key "self" draws
    a random checkpoint from `pool_dir` (the most recent `pool_size` files), which the
    trainer fills with frozen copies of the learner. Loaded models are cached in `cache`,
    which the opponents of many games may share (a vector env's games then wait on the
    same network object, and it plays them all in one forward pass).
    """

    name = "league"

    def __init__(
        self,
        weights: dict[str, float],
        pool_dir: str | Path | None = None,
        pool_size: int = 8,
        cache: ModelCache | None = None,
    ) -> None:
        self.pool_dir = Path(pool_dir) if pool_dir is not None else None
        self.pool_size = pool_size
        self.bots: dict[str, Any] = {}
        self._models = cache if cache is not None else ModelCache(max(1, pool_size))
        self.current: Any = None
        self.current_name = ""
        self._rng = np.random.default_rng()
        self.set_weights(weights)

    def set_weights(self, weights: dict[str, float]) -> None:
        """Change the mix (a training schedule's new stage); it applies from the next game (`reset`)."""
        if SELF in weights and self.pool_dir is None:
            raise ValueError("the 'self' opponent needs a pool directory of checkpoints")
        self.members = list(weights)
        p = np.array([weights[m] for m in self.members], dtype=np.float64)
        self.p = p / p.sum()
        for m in self.members:
            if m != SELF and m not in self.bots:
                self.bots[m] = self._models.member(m)

    def pool(self) -> list[Path]:
        if self.pool_dir is None or not self.pool_dir.exists():
            return []
        snapshots = sorted(p for p in self.pool_dir.iterdir() if p.suffix in POOL_SUFFIXES)
        return snapshots[-self.pool_size :] if self.pool_size else []

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
        self.bots[name] = self._models.member(name)
        return self.bots[name]

    def _load(self, path: Path) -> Any:
        return self._models.get(path)

    @property
    def playing(self) -> Any:
        """The member playing this game (`agents.base.acting_policy`)."""
        return self.current

    def act(self, view: SeatView, legal_actions: Sequence[int]) -> int:
        return self.current.act(view, legal_actions)


class ModelCache:
    """Loaded snapshots of the pool (`PolicyBot`s, deterministic), the `size` most recently used kept;
    and the trained policies named in the mix (`ppo`, a model file), each loaded once for all."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self._bots: OrderedDict[Path, Any] = OrderedDict()
        self._named: dict[str, Any] = {}

    def member(self, name: str) -> Any:
        """The bot for a mix's member: a new one for a heuristic bot (each game keeps its own state), the
        shared object for a trained policy (stateless, so the games waiting on it share one forward pass)."""
        from agents import make

        if name in self._named:
            return self._named[name]
        bot = make(name)
        if is_shared_policy(bot):
            self._named[name] = bot
        return bot

    def get(self, path: Path) -> Any:
        from agents.ppo_bot import PolicyBot

        bot = self._bots.get(path)
        if bot is None:
            bot = self._bots[path] = PolicyBot(path)
            while len(self._bots) > self.size:
                self._bots.popitem(last=False)
        else:
            self._bots.move_to_end(path)
        return bot
