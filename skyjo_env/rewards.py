"""Reward modes shared by the AEC and Gymnasium envs (one definition, documented in both).

| mode | when | reward per seat |
|---|---|---|
| `game` | end of the episode | sole winner +1, loser -1, k tied winners 2/k - 1 each (a 2-way tie: 0) |
| `round_score` | end of each round | -(own round score) / 100 |
| `relative` | end of each round | ((mean round score of the others) - own round score) / 100 |
| `win_chance` | end of each round | 2 x the change of the seat's chance of winning the game (`skyjo_env.outlook`; its share of the win once the game is over) |
| `relative_shaped` | every move | `relative`, plus the change the move made to the seat's potential: ((mean of the others' grid sums) - own grid sum) / 100, every card counted at its true value, face down or not |

With `episode="round"`, the `game` mode ranks the seats by that round's scores.
A truncated episode gives no round-end reward (`relative_shaped` still credits its moves' shaping).

`win_chance` credits a round by what it did to the seat's chance of winning the game, so the same
points count for more when the totals are close to the target: over a whole game a seat's rewards
add up to 2 x (its share of the win - 1/N), the `game` reward's aim, given round by round
(potential-based shaping with the outlook's chances as the potential).

`relative_shaped` is meant to cut the noise PPO learns from, not to change the aim. Its potential
reads the true grids, face-down cards too (the engine's state, which an env has; never an
observation), so a move is credited for what it did to the grids at once, not when the round ends:
replacing a face-down 12 by a 3 earns the mover 9 / 100 at once. The potential is 0 once the
episode has terminated, so over an episode a seat's rewards add up to its `relative` rewards minus
its potential at its first decision, which no move of its own changes: every policy's return moves
by the same amount, and the best policy is the same (Ng, Harada and Russell, 1999, "Policy
invariance under reward transformations"). What it changes is where the luck of a face-down card
lands: at the move that replaces it, not spread over every move of the round. Measured, it did not
make PPO's network stronger: `ppo_ei` trained on with it grew weaker than with `relative`
(docs/training.md, "PPO for a shaped reward").
"""

from __future__ import annotations

import numpy as np

from skyjo_env.engine.state import GameState
from skyjo_env.observation import SCORE_SCALE
from skyjo_env.outlook import win_chances

REWARD_MODES = ("game", "round_score", "relative", "win_chance", "relative_shaped")
EPISODE_MODES = ("game", "round")
SHAPED_MODES = ("relative_shaped",)  # the modes that also credit every move's change of a potential


def check_modes(reward: str, episode: str) -> None:
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {list(REWARD_MODES)}, got {reward!r}")
    if episode not in EPISODE_MODES:
        raise ValueError(f"episode must be one of {list(EPISODE_MODES)}, got {episode!r}")


def episode_over(state: GameState, episode: str) -> bool:
    """The episode terminates: the game is over, or a round ended in a one-round episode."""
    return state.is_game_over or (episode == "round" and state.round_just_ended)


def outcome_rewards(final_scores: list[int]) -> list[float]:
    """+1 for a sole winner, -1 for the others; k tied lowest scores get 2/k - 1 each."""
    best = min(final_scores)
    k = final_scores.count(best)
    return [2.0 / k - 1.0 if s == best else -1.0 for s in final_scores]


def step_rewards(state: GameState, reward: str, episode: str) -> list[float] | None:
    """Rewards of every seat after the last action, or None when nothing was earned."""
    if not state.round_just_ended:
        return None
    last = state.last_round  # the round that just ended
    if last is None:  # pragma: no cover - round_just_ended always comes with last_round
        raise RuntimeError("a round ended without its result")
    scores = last.scores
    if reward == "round_score":
        return [-s / SCORE_SCALE for s in scores]
    if reward in ("relative", "relative_shaped"):
        n, total = len(scores), sum(scores)
        return [((total - s) / (n - 1) - s) / SCORE_SCALE for s in scores]
    if reward == "win_chance":
        return _win_chance_rewards(state, scores)
    if episode == "round":
        return outcome_rewards(scores)
    if state.is_game_over:
        return outcome_rewards(state.totals)
    return None


def shaping_potentials(state: GameState, reward: str, episode: str) -> list[float]:
    """Each seat's potential in a shaped mode (one of `SHAPED_MODES`): `relative_shaped`'s ((mean of the
    others' true grid sums) - own true grid sum) / 100, and 0 once the episode has terminated. A move
    credits each seat its potential after the move minus before it (`SeatedGame.apply`)."""
    if reward not in SHAPED_MODES:
        raise ValueError(f"{reward!r} is not a shaped reward mode ({list(SHAPED_MODES)})")
    n = state.num_players
    if episode_over(state, episode):
        return [0.0] * n
    sums = [sum(values) for values in state.values]  # a removed slot holds 0
    total, scale = sum(sums), 1.0 / SCORE_SCALE
    return [((total - own) / (n - 1) - own) * scale for own in sums]


def _win_chance_rewards(state: GameState, scores: list[int]) -> list[float]:
    """2 x (chance after the round - chance before it), each seat; after the last round the chance
    is the seat's share of the win."""
    target = state.rules.target_score
    before = [t - s for t, s in zip(state.totals, scores)]  # below the target: the game went on
    chance_before = win_chances([before], target)[0]
    after = _shares(state.totals) if state.is_game_over else win_chances([state.totals], target)[0]
    return [float(2.0 * (a - b)) for a, b in zip(after, chance_before)]


def _shares(totals: list[int]) -> np.ndarray:
    """Each seat's share of the win with these final totals (ties share)."""
    best = min(totals)
    winners = [t == best for t in totals]
    return np.asarray(winners, dtype=np.float64) / sum(winners)
