"""`SeatView`: what one seat may know about a game, and nothing else.

Bots and observation encoders receive a `SeatView`, never the `GameState`, so they
cannot peek at face-down cards or the draw pile: the view is built by copying public
information only. Seats in a view are **relative**: index 0 is the viewer ("me"),
then the other seats clockwise.
"""

from __future__ import annotations

from typing import NamedTuple

from skyjo_env.engine.options import Rules
from skyjo_env.engine.state import FACE_UP, HIDDEN, REMOVED, GameState, Phase

_GAME_OVER = int(Phase.GAME_OVER)


class SeatView(NamedTuple):
    """Public information of a game from one seat's point of view (relative seats, me first).

    Immutable (a named tuple, which is also the cheapest thing to build on the env's hot path).
    """

    seat: int  # the viewer's absolute seat
    rules: Rules
    phase: int  # a `Phase`
    to_play: int | None  # relative seat to act; None once the game is finished
    grid_values: tuple[tuple[int, ...], ...]  # per relative seat, per slot: value if face-up, else 0
    grid_status: tuple[tuple[int, ...], ...]  # per relative seat, per slot: HIDDEN, FACE_UP or REMOVED
    discard_pile: tuple[int, ...]  # bottom first, top last (every card in it was seen face-up)
    held_card: int | None  # the card in the current player's hand (drawn cards are shown)
    held_from: int  # FROM_NONE, FROM_DRAW or FROM_DISCARD
    draw_pile_size: int
    round_ender: int | None  # relative seat that turned its last card, or None
    round_index: int
    totals: tuple[int, ...]  # game totals, relative order

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def discard_top(self) -> int | None:
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def is_final_lap(self) -> bool:
        return self.round_ender is not None

    def visible(self, rel: int = 0) -> list[int | None]:
        """A grid as values, None where face-down or removed."""
        return [v if s == FACE_UP else None for v, s in zip(self.grid_values[rel], self.grid_status[rel])]

    def hidden_slots(self, rel: int = 0) -> list[int]:
        return [slot for slot, s in enumerate(self.grid_status[rel]) if s == HIDDEN]

    def removed_slots(self, rel: int = 0) -> list[int]:
        return [slot for slot, s in enumerate(self.grid_status[rel]) if s == REMOVED]

    def visible_score(self, rel: int = 0) -> int:
        return sum(v for v, s in zip(self.grid_values[rel], self.grid_status[rel]) if s == FACE_UP)

    def absolute_seat(self, rel: int) -> int:
        return (self.seat + rel) % self.rules.num_players


def seat_view(state: GameState, seat: int) -> SeatView:
    """The public information of `state` as seen from `seat`."""
    n = state.rules.num_players
    values, status = state.values, state.status
    grid_values, grid_status = [], []
    for k in range(n):
        p = (seat + k) % n
        seat_status = status[p]
        grid_status.append(tuple(seat_status))
        grid_values.append(tuple([v if s == FACE_UP else 0 for v, s in zip(values[p], seat_status)]))
    finished = state.phase == _GAME_OVER or state.is_truncated
    ender = state.round_ender
    totals = state.totals
    return SeatView(
        seat,
        state.rules,
        state.phase,
        None if finished else (state.current_player - seat) % n,
        tuple(grid_values),
        tuple(grid_status),
        tuple(state.discard_pile),
        state.held_card,
        state.held_from,
        len(state.draw_pile),
        None if ender is None or finished else (ender - seat) % n,
        state.round_index,
        tuple(totals[seat:] + totals[:seat]),
    )
