"""What both encoders share: the `encode` signature, and `encode_state` written once on top of it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from skyjo_env.engine.state import GameState, Phase

_GAME_OVER = int(Phase.GAME_OVER)


#: The public fields of one seat's observation, in `encode`'s order (`state_fields` gives them):
#: observer, grid_values, grid_status, discard_pile, held_card, held_from, phase, to_play,
#: draw_pile_size, round_ender, totals.
Fields = tuple[
    int,
    Sequence[Sequence[int]],
    Sequence[Sequence[int]],
    Sequence[int],
    int | None,
    int,
    int,
    int | None,
    int,
    int | None,
    Sequence[int],
]


class StateEncoding(ABC):
    """An encoder of one table size: `encode` of public fields, and `encode_state` of a game state.
    A subclass writes `encode_fields`, which both call."""

    num_players: int

    def encode(
        self,
        observer: int,
        grid_values: Sequence[Sequence[int]],
        grid_status: Sequence[Sequence[int]],
        discard_pile: Sequence[int],
        held_card: int | None,
        held_from: int,
        phase: int,
        to_play: int | None,
        draw_pile_size: int,
        round_ender: int | None,
        totals: Sequence[int],
    ) -> np.ndarray:
        """The observation of seat `observer` (a new float32 array the caller owns). Seats (grids,
        to_play, round_ender, totals) are absolute; a value is read only where its status is FACE_UP."""
        fields: Fields = (
            observer,
            grid_values,
            grid_status,
            discard_pile,
            held_card,
            held_from,
            phase,
            to_play,
            draw_pile_size,
            round_ender,
            totals,
        )
        return self.encode_fields(fields)

    @abstractmethod
    def encode_fields(self, fields: Fields) -> np.ndarray:
        """`encode`, its arguments as one tuple (`Fields`)."""

    def encode_state(self, state: GameState, seat: int) -> np.ndarray:
        """Seat `seat`'s observation of `state`: `encode` of its seat view, without building the view
        (the envs' path). Reads a value only where the slot is face-up."""
        return self.encode_fields(state_fields(state, seat))

    def encode_states(self, states: Sequence[GameState], seats: Sequence[int], out: np.ndarray) -> np.ndarray:
        """Row i of `out` (float32, shape (B, size), B >= len(states)) becomes `encode_state(states[i],
        seats[i])`; returns `out`. The vector envs' path: `CEncoder` writes the batch in one C call."""
        if len(states) != len(seats):
            raise ValueError(f"{len(states)} states but {len(seats)} seats")
        for row, (state, seat) in enumerate(zip(states, seats)):
            out[row] = self.encode_state(state, seat)
        return out


def state_fields(state: GameState, seat: int) -> Fields:
    """The arguments of `encode` (observer first) for seat `seat`'s observation of `state`."""
    finished = state.phase == _GAME_OVER or state.is_truncated
    ender = state.round_ender
    return (
        seat,
        state.values,
        state.status,
        state.discard_pile,
        state.held_card,
        state.held_from,
        state.phase,
        None if finished else state.current_player,
        len(state.draw_pile),
        None if ender is None or finished else ender,
        state.totals,
    )
