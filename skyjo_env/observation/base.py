"""What both encoders share: the `encode` signature, and `encode_state` written once on top of it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from skyjo_env.engine.state import GameState, Phase

_GAME_OVER = int(Phase.GAME_OVER)


class StateEncoding(ABC):
    """An encoder of one table size: `encode` of public fields, and `encode_state` of a game state."""

    num_players: int

    @abstractmethod
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

    def encode_state(self, state: GameState, seat: int) -> np.ndarray:
        """Seat `seat`'s observation of `state`: `encode` of its seat view, without building the view
        (the envs' path). Reads a value only where the slot is face-up."""
        finished = state.phase == _GAME_OVER or state.is_truncated
        ender = state.round_ender
        return self.encode(
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
