"""What only the critic may read in training: every card of every grid and the draw pile's top card.

An asymmetric (privileged) critic: PPO's value function is used only in training, to weigh the
actor's moves, so it may read the true state that no seat sees; a better value is meant to make
the actor's advantages less noisy (measured in docs/training.md, "PPO with a privileged critic":
the critic explained more, the network played no better). The actor reads only the observation;
the policy file exported from such a model holds the actor alone, so what it plays never depends
on a hidden card.
(Pinto et al. 2017, "Asymmetric Actor Critic"; PerfectDou, Yang et al. 2022, trains a card
game's PPO agent this way.)

`PrivilegedEncoder(base)` wraps a `skyjo_v1` encoder: its rows are the observation followed by
`PRIVILEGED_SIZE` floats:

| piece | shape | meaning |
|---|---|---|
| `true_values` | (8, 12) | per seat slot of `skyjo_v1` (self, next, previous, others), every slot's card / 12, face-down ones included; 0 for a removed slot or an empty seat slot |
| `true_sums` | (8,) | per seat slot, the sum of its grid's cards / 100 (what the grid scores now, face-down cards included) |
| `draw_top` | (1,) | the draw pile's top card / 12 (0 if the pile is empty) |
| `draw_left` | (1,) | 1 if the draw pile has a card |

Such a vector is no observation: a policy given it would read the face-down cards. Only a
critic reads it (`train.seats_policy.PrivilegedCriticPolicy`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from skyjo_env.engine.state import GameState
from skyjo_env.observation.base import Fields, StateEncoding
from skyjo_env.observation.seats import SEAT_SLOTS, VERSION, slot_seats

__all__ = ["PRIVILEGED_SIZE", "PrivilegedEncoder", "check_observation", "privileged_bounds", "privileged_features"]

_SLOTS = len(SEAT_SLOTS)
_SUMS = _SLOTS * 12
PRIVILEGED_SIZE = _SLOTS * 12 + _SLOTS + 2


def privileged_features(state: GameState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The `PRIVILEGED_SIZE` floats for seat `seat` of `state` (see the module docstring), written to
    `out` (float32, zeroed here) or to a new array."""
    if out is None:
        out = np.zeros(PRIVILEGED_SIZE, dtype=np.float32)
    else:
        out[:] = 0.0
    n = state.rules.num_players
    for k, relative in enumerate(slot_seats(n)):
        if relative is None:
            break
        values = state.values[(seat + relative) % n]  # 0 in a removed slot
        out[k * 12 : (k + 1) * 12] = values
        out[_SUMS + k] = sum(values)
    out[:_SUMS] /= 12.0
    out[_SUMS : _SUMS + _SLOTS] /= 100.0
    if state.draw_pile:
        out[-2] = state.draw_pile[-1] / 12.0
        out[-1] = 1.0
    return out


def check_observation(observation: str) -> None:
    """A ValueError unless `observation` is the one the true cards follow (`skyjo_v1`: its seat slots)."""
    if observation != VERSION:
        raise ValueError(f"privileged=True adds the true cards to the {VERSION} observation, got {observation!r}")


def privileged_bounds() -> tuple[np.ndarray, np.ndarray]:
    """The low and high bounds of the `PRIVILEGED_SIZE` floats (cards -2..12, a grid's sum -24..144)."""
    low = np.concatenate([np.full(_SUMS, -2 / 12), np.full(_SLOTS, -0.24), [-2 / 12, 0.0]])
    high = np.concatenate([np.ones(_SUMS), np.full(_SLOTS, 1.44), [1.0, 1.0]])
    return low.astype(np.float32), high.astype(np.float32)


class PrivilegedEncoder(StateEncoding):
    """`base`'s observation followed by `privileged_features` (a critic's input, never a policy's).

    It encodes game states only: public fields (`encode`) hold no face-down card to add."""

    def __init__(self, base: StateEncoding) -> None:
        self.base = base
        self.num_players = base.num_players

    def encode_fields(self, fields: Fields) -> np.ndarray:
        raise TypeError("PrivilegedEncoder reads the true state (encode_state), not a seat's public fields")

    def encode_state(self, state: GameState, seat: int) -> np.ndarray:
        return np.concatenate([self.base.encode_state(state, seat), privileged_features(state, seat)])

    def encode_states(self, states: Sequence[GameState], seats: Sequence[int], out: np.ndarray) -> np.ndarray:
        if len(states) != len(seats):
            raise ValueError(f"{len(states)} states but {len(seats)} seats")
        count = len(states)
        width = out.shape[1] - PRIVILEGED_SIZE
        public = self.base.encode_states(states, seats, np.empty((count, width), dtype=np.float32))
        out[:count, :width] = public
        for row, (state, seat) in enumerate(zip(states, seats)):
            privileged_features(state, seat, out[row, width:])
        return out
