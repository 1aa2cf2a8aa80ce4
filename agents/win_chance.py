"""A seat's chance of winning the game from the totals after a round: what `ppo+search:objective=win`
scores its playouts with, instead of the round's points.

The game ends after the round in which a total reaches the target score (100), and the lowest total
wins (a tie shares the win). From totals after a round, the chance is estimated over futures of
whole rounds: each future round's scores are a row of a table of round scores (the shipped
`models/round_scores.npz`: the shipped `ppo` playing itself, `python -m train.round_scores`), its
seats shuffled, drawn with replacement; a future ends after the first round in which a total
reaches the target. One set of futures serves every position of a decision (common random
numbers), so that two positions' chances differ by their totals, not by their draws.

>>> import numpy as np
>>> scores = RoundScores({2: np.array([[10, 20], [20, 10]])})
>>> futures = scores.futures(2, np.random.default_rng(0), count=64)
>>> chance_of_winning(np.array([[95, 40], [40, 95]]), 0, futures, target=100).tolist()
[0.0, 1.0]
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

__all__ = ["SHIPPED_ROUND_SCORES", "RoundScores", "chance_of_winning"]

#: `ppo` against itself at each table size: 2000 games each (train/round_scores.py).
SHIPPED_ROUND_SCORES = Path(__file__).parent / "models" / "round_scores.npz"
MAX_ROUNDS = 40  # a future longer than this ends where it stands (no table of real round scores comes near)


class RoundScores:
    """Round scores (after the ender's doubling) by table size: an int array (rounds, N) per N."""

    def __init__(self, table: dict[int, np.ndarray], info: dict | None = None) -> None:
        for n, rows in table.items():
            rows = np.asarray(rows)
            if rows.ndim != 2 or rows.shape[1] != n or len(rows) == 0:
                raise ValueError(f"the round scores of {n} players must be a non-empty (rounds, {n}) array")
        self.table = {n: np.asarray(rows, dtype=np.int64) for n, rows in table.items()}
        self.info = info or {}

    @classmethod
    def load(cls, path: str | Path = SHIPPED_ROUND_SCORES) -> RoundScores:
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"round scores file not found: {path} (python -m train.round_scores writes one)")
        with np.load(path) as data:
            info = json.loads(str(data["info"])) if "info" in data.files else {}
            table = {int(key): data[key] for key in data.files if key.isdigit()}
        return cls(table, info)

    def futures(self, n: int, rng: np.random.Generator, count: int, rounds: int = MAX_ROUNDS) -> np.ndarray:
        """`count` futures of `rounds` rounds at `n` players: the running sums of the rounds' scores,
        (count, rounds, n); each round a row of the table drawn at random, its seats shuffled."""
        rows = self.table.get(n)
        if rows is None:
            raise ValueError(f"no round scores for {n} players (the table has {sorted(self.table)})")
        drawn = rows[rng.integers(len(rows), size=count * rounds)]
        drawn = np.take_along_axis(drawn, rng.permuted(np.tile(np.arange(n), (len(drawn), 1)), axis=1), axis=1)
        return np.cumsum(drawn.reshape(count, rounds, n), axis=1)


def chance_of_winning(totals: np.ndarray, seat: int, futures: np.ndarray, target: int) -> np.ndarray:
    """Seat `seat`'s share of the win, averaged over `futures` (`RoundScores.futures`), for each row
    of `totals` (L, N): the totals after a round, the game not over (no total at `target`)."""
    totals = np.asarray(totals, dtype=np.float64)
    count, rounds, _ = futures.shape
    share = np.zeros((len(totals), count))
    alive = np.ones((len(totals), count), dtype=bool)
    for k in range(rounds):
        now = totals[:, None, :] + futures[None, :, k, :]  # (L, M, N)
        ends = alive & ((now.max(axis=2) >= target) | (k == rounds - 1))
        if ends.any():
            at = now[ends]
            best = at.min(axis=1, keepdims=True)
            winners = at == best
            share[ends] = winners[:, seat] / winners.sum(axis=1)
            alive &= ~ends
        if not alive.any():
            break
    return share.mean(axis=1)
