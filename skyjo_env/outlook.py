"""Each seat's chance of winning the game from the totals between two rounds (a model, not the rules).

A round's points matter only through the totals, and the same points are worth more or less
depending on them: ten points down with everyone near 0 is a small deficit, ten points down when
the leader is at 95 is nearly a lost game. `win_chances` turns totals into the chance of winning
under a simple model of the rounds still to come: every seat scores, round after round,
independent normal points (rounded, the mean and standard deviation of `ROUND_POINTS` for the
table size) until a total reaches the target score; then the lowest total wins (ties share).
The chance is the mean over 840 such futures, drawn once (fixed draws: the same totals always
give the same chances, and two sets of totals are compared on the same futures); the futures come
in groups that give each seat every other seat's draws in turn, so equal totals get equal chances.

It is what the `win_chance` reward mode credits (`skyjo_env.rewards`) and what the search agent
scores a playout with (`agents.search`). Any such estimate of the chance gives a reward whose
best policy is that of the game's result (potential-based shaping); a better estimate only makes
the signal less noisy.

>>> chances = win_chances([[0, 0], [80, 60]])
>>> [round(float(c), 2) for c in chances[0]], bool(chances[1, 1] > 0.8)
([0.5, 0.5], True)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["ROUND_POINTS", "win_chances"]

#: Table size -> (mean, standard deviation) of one seat's points in a round. Measured on games of
#: `ppo` against N - 1 `expert`s (every seat's rounds pooled; 100 games each, seed 0):
#: `skyjo eval ppo expert ... --games 100 --seed 0 --records FILE`, the rounds of FILE.
ROUND_POINTS: dict[int, tuple[float, float]] = {
    2: (17.1, 11.0),
    3: (18.6, 10.8),
    4: (19.1, 10.8),
    5: (19.3, 11.0),
    6: (20.3, 10.6),
    7: (24.7, 10.4),
    8: (29.8, 11.3),
}
_FUTURES = 840  # divisible by every table size: 840 / N drawn futures, each in its N seat rotations
_MAX_ROUNDS = 40  # at the smallest mean above, 40 rounds add about 680 points: every future ends


def _futures(n: int) -> np.ndarray:
    """(rounds, futures, N) standard normal draws, the same for every call with this N."""
    drawn = np.random.default_rng([20261204, n]).standard_normal((_MAX_ROUNDS, _FUTURES // n, n))
    return np.concatenate([np.roll(drawn, shift, axis=2) for shift in range(n)], axis=1)


_DRAWS = {n: _futures(n) for n in ROUND_POINTS}


def win_chances(totals: Sequence[Sequence[float]] | np.ndarray, target_score: int = 100) -> np.ndarray:
    """Each seat's chance of winning, for a batch of totals (B, N) taken between two rounds of a
    game that is not over (no total at `target_score` or above): (B, N), each row summing to 1."""
    start = np.asarray(totals, dtype=np.float64)
    if start.ndim != 2 or start.shape[1] not in ROUND_POINTS:
        raise ValueError(f"totals must have shape (B, N) with N in 2..8, got {start.shape}")
    if (start >= target_score).any():
        raise ValueError(f"a total is at or above the target score {target_score}: the game is over")
    n = start.shape[1]
    mean, sd = ROUND_POINTS[n]
    points = np.rint(mean + sd * _DRAWS[n])  # (R, F, N)
    current = np.repeat(start[:, None, :], _FUTURES, axis=1)  # (B, F, N)
    final = np.empty_like(current)
    live = np.ones(current.shape[:2], dtype=bool)  # (B, F): futures not over yet
    for round_points in points:
        current += round_points
        ended = live & (current.max(axis=2) >= target_score)
        np.copyto(final, current, where=ended[:, :, None])
        live &= ~ended
        if not live.any():
            break
    np.copyto(final, current, where=live[:, :, None])  # never reached: every future ends well within _MAX_ROUNDS
    winners = final == final.min(axis=2, keepdims=True)
    return (winners / winners.sum(axis=2, keepdims=True)).mean(axis=1)
