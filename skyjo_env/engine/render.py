"""Text rendering of a game state: every grid (hidden cards `##`, removed slots blank), piles, scores."""

from __future__ import annotations

from collections.abc import Callable

from skyjo_env.engine.actions import NUM_COLUMNS, NUM_ROWS
from skyjo_env.engine.codes import FACE_UP, FROM_DISCARD, REMOVED, Phase
from skyjo_env.engine.state import GameState

_PROMPTS = {
    Phase.SETUP_REVEAL: "turn two cards face-up",
    Phase.CHOOSE_SOURCE: "draw or take the discard",
    Phase.HOLDING_DRAWN: "place the drawn card, or discard it and reveal a card",
    Phase.HOLDING_DISCARD: "place the taken card",
}


def seat_name(seat: int) -> str:
    return f"player_{seat}"


def cell(value: int, status: int) -> str:
    """How one slot looks: its value, `##` if face-down, blank if removed."""
    if status == REMOVED:
        return "  "
    if status == FACE_UP:
        return f"{value:>2}"
    return "##"


def render_grid(values: list[int], status: list[int], fmt: Callable[[int, int], str] = cell) -> list[str]:
    """The 3 rows x 4 columns of one grid, with a column header; `fmt(value, status)` draws a slot."""
    lines = ["     " + "  ".join(f"c{c} " for c in range(NUM_COLUMNS))]
    for row in range(NUM_ROWS):
        cells = [fmt(values[3 * c + row], status[3 * c + row]) for c in range(NUM_COLUMNS)]
        lines.append(f" r{row}  " + "   ".join(cells))
    return lines


def render(state: GameState, viewer: int | None = None) -> str:
    """The table as text. Seats are listed from `viewer` (marked "you") clockwise, or from seat 0.

    Face-down cards are never shown: the rendering holds only public information plus,
    for the current player, the card in hand.
    """
    n = state.num_players
    first = 0 if viewer is None else viewer
    lines: list[str] = []
    phase = Phase(state.phase)
    head = f"Round {state.round_index + 1}"
    if phase == Phase.GAME_OVER:
        head += " - game over"
    elif state.is_truncated:
        head += " - truncated (max_turns_per_round)"
    elif state.round_ender is not None:
        head += f" - final lap: {seat_name(state.round_ender)} turned their last card"
    lines.append(head)
    for k in range(n):
        seat = (first + k) % n
        tag = " (you)" if seat == viewer else ""
        marker = "> " if seat == state.current_player and not state.is_finished else "  "
        lines.append(
            f"{marker}{seat_name(seat)}{tag}  total {state.totals[seat]}  visible points {state.visible_score(seat)}"
        )
        lines.extend("   " + line for line in render_grid(state.values[seat], state.status[seat]))
    top = state.discard_top
    lines.append(
        f"Draw pile: {len(state.draw_pile)} cards   Discard pile: top {top if top is not None else '-'} "
        f"({len(state.discard_pile)} cards)"
    )
    if state.held_card is not None:
        source = "taken from the discard" if state.held_from == FROM_DISCARD else "drawn"
        lines.append(f"In hand: {state.held_card} ({source})")
    if state.last_round is not None:
        lines.append(f"Last round scores: {state.last_round.scores}")
    if phase == Phase.GAME_OVER:
        winners = ", ".join(seat_name(s) for s in state.winners)
        lines.append(f"Final totals: {state.totals}  winner(s): {winners}")
    elif not state.is_truncated:
        lines.append(f"To play: {seat_name(state.current_player)} - {_PROMPTS[phase]}")
    return "\n".join(lines)
