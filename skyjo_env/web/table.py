"""A game as the browser sees it: rule options, frames and narration (`Table`).

Pure Python (no web framework): `skyjo_env.web.app` turns these objects into HTTP.

What the browser may see is decided here, in one place. A *frame* (`frame()`) is built
from the human seat's `SeatView` (public information only), the legal actions, and the
results of finished rounds (every grid is turned face-up at the end of a round, so those
are public). Narration (`Table.apply`) tells what an action showed everyone: a drawn
card, a card turned face-up, a card put on the discard pile; the value of such a card is
read from the state only for the action that turns it face-up. Nothing else of the
`GameState` leaves this module, except in a game *record* (rules, seed, actions), which
the player downloads on purpose: the seed fixes the deck, see `Game.record`.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Sequence
from dataclasses import asdict, fields
from typing import Any, Literal, cast, get_args, get_origin, get_type_hints

from skyjo_env.engine import (
    DRAW,
    NUM_COLUMNS,
    REVEAL_FIRST,
    TAKE_DISCARD,
    GameState,
    Phase,
    RoundResult,
    Rules,
    apply_action,
    legal_actions,
    new_game,
)
from skyjo_env.engine.narrate import TURN_LIMIT, a_card, cleared_column, cleared_columns, doubling
from skyjo_env.engine.record import RecordError
from skyjo_env.engine.record import rules_from_json as record_rules
from skyjo_env.engine.state import FACE_UP, FROM_DISCARD, FROM_DRAW, HIDDEN, REMOVED
from skyjo_env.engine.view import SeatView, seat_view
from skyjo_env.web.errors import BadRequest


def rule_options() -> list[dict[str, Any]]:
    """Every rule option but `num_players`, with its default and allowed values (for the new-game form)."""
    hints = get_type_hints(Rules)
    options = []
    for f in fields(Rules):
        if f.name == "num_players":
            continue
        kind = hints[f.name]
        entry: dict[str, Any] = {"name": f.name, "default": f.default, "help": " ".join(_field_doc(f.name).split())}
        if get_origin(kind) is Literal:
            entry.update(kind="choice", choices=list(get_args(kind)))
        elif kind is bool:
            entry.update(kind="bool")
        else:
            entry.update(kind="int", nullable=type(None) in get_args(kind))
        options.append(entry)
    return options


def _field_doc(name: str) -> str:
    """The docstring written under a `Rules` field (read from its source: a dataclass keeps none)."""
    source = inspect.getsource(Rules)
    head = f"    {name}:"
    at = source.find(head)
    if at < 0:
        return ""
    start = source.find('"""', at)
    end = source.find('"""', start + 3)
    return source[start + 3 : end] if start >= 0 and end > start else ""


def rules_from_json(options: Any, num_players: int) -> Rules:
    """`Rules` from a JSON object of rule options; `num_players` comes from the seats."""
    try:
        return record_rules(options, num_players)
    except RecordError as e:
        raise BadRequest(str(e)) from None


_PHASES = {int(p): p.name.lower() for p in Phase}
_STATUS = {HIDDEN: "down", FACE_UP: "up", REMOVED: "removed"}
_HELD_FROM = {FROM_DRAW: "draw", FROM_DISCARD: "discard"}


def seat_label(seat: int, you: int) -> str:
    return "You" if seat == you else f"player_{seat}"


def round_result_json(result: RoundResult, cleared: dict[int, list[int]] | None = None) -> dict[str, Any]:
    """A finished round: every grid face-up (None = removed slot), raw and doubled scores."""
    return {
        "round": result.round_index,
        "ender": result.ender,
        "grids": [list(values) for values in result.values],
        "raw_scores": list(result.raw_scores),
        "scores": list(result.scores),
        "ender_doubled": result.ender_doubled,
        "cleared": {str(seat): cols for seat, cols in (cleared or {}).items()},
    }


def frame(
    view: SeatView,
    legal: Sequence[int],
    agent_names: Sequence[str],
    round_history: Sequence[Sequence[int]],
    last_round: RoundResult | None,
    winners: Sequence[int],
    truncated: bool,
    step: int,
) -> dict[str, Any]:
    """What the browser shows: built from the human's `SeatView` and the public results, nothing else.

    Seats are absolute (the view's relative seats are turned back); `you` is the human's seat.
    """
    n = view.num_players
    you = view.seat
    players: list[dict[str, Any] | None] = [None] * n
    for rel in range(n):
        seat = view.absolute_seat(rel)
        status = view.grid_status[rel]
        values = view.grid_values[rel]
        players[seat] = {
            "seat": seat,
            "name": seat_label(seat, you),
            "agent": agent_names[seat],
            "total": view.totals[rel],
            "visible_score": view.visible_score(rel),
            "cards": [{"status": _STATUS[s], "value": v if s == FACE_UP else None} for v, s in zip(values, status)],
        }
    to_play = None if view.to_play is None else view.absolute_seat(view.to_play)
    ender = None if view.round_ender is None else view.absolute_seat(view.round_ender)
    return {
        "step": step,
        "you": you,
        "num_players": n,
        "round": view.round_index,
        "phase": _PHASES[view.phase],
        "to_play": to_play,
        "your_turn": to_play == you,
        "legal": list(legal) if to_play == you else [],
        "players": players,
        "discard_top": view.discard_top,
        "discard_count": len(view.discard_pile),
        "draw_count": view.draw_pile_size,
        "held": None if view.held_card is None else {"card": view.held_card, "from": _HELD_FROM[view.held_from]},
        "round_ender": ender,
        "round_history": [list(r) for r in round_history],
        "last_round": None if last_round is None else round_result_json(last_round),
        "finished": view.to_play is None,
        "game_over": view.phase == Phase.GAME_OVER,
        "truncated": truncated,
        "winners": list(winners),
        "rules": asdict(view.rules),
    }


def where(slot: int) -> str:
    """A slot as the page shows it: column 1-4, row 1-3 (slot = 3 * column + row, counted from 0)."""
    return f"column {slot // 3 + 1}, row {slot % 3 + 1}"


class Table:
    """A game in the engine, told action by action from one seat's point of view."""

    def __init__(self, rules: Rules, seed: int, you: int, agent_names: Sequence[str]) -> None:
        self.rules = rules
        self.seed = seed
        self.you = you
        self.agent_names = list(agent_names)
        self.state: GameState = new_game(rules, seed=seed)
        self.actions: list[int] = []
        self.log: list[dict[str, Any]] = []

    @property
    def finished(self) -> bool:
        return self.state.is_finished

    def legal(self) -> list[int]:
        return legal_actions(self.state)

    def frame(self) -> dict[str, Any]:
        state = self.state
        return frame(
            seat_view(state, self.you),
            legal_actions(state),
            self.agent_names,
            state.round_history,
            state.last_round,
            state.winners,
            state.is_truncated,
            len(self.actions),
        )

    def copy(self) -> Table:
        """An independent copy: the same game at the same step, narration included."""
        new = copy.copy(self)
        new.state, new.actions, new.log = self.state.copy(), list(self.actions), list(self.log)
        return new

    def apply(self, action: int, with_frame: bool = True) -> dict[str, Any]:
        """Apply the current player's action and return the event the browser shows: who, what, the frame
        after (`with_frame=False`: no frame, for a replay stepping towards a later move).

        Raises `IllegalActionError` (nothing changed) for an illegal action.
        """
        state = self.state
        actor = state.current_player
        phase = state.phase
        held = state.held_card
        slot = action % REVEAL_FIRST if isinstance(action, int) and 0 <= action < DRAW else None
        status_before = [list(s) for s in state.status]
        # The card at `slot` is turned face-up by this action (revealed, or put face-up on the discard pile):
        # read now, told only once the action is applied.
        moved = state.values[actor][slot] if slot is not None else None
        apply_action(state, action)
        self.actions.append(action)
        who = seat_label(actor, self.you)
        texts = [
            self._describe(who, phase, action, held, moved, status_before[actor][slot] if slot is not None else None)
        ]
        round_over = None
        result = state.last_round
        if state.is_round_over and result is not None:
            cleared = {
                seat: [
                    c
                    for c in range(NUM_COLUMNS)
                    if status_before[seat][3 * c] != REMOVED and result.values[seat][3 * c] is None
                ]
                for seat in range(state.num_players)
            }
            cleared = {seat: cols for seat, cols in cleared.items() if cols}
            round_over = round_result_json(result, cleared)
            round_over["totals"] = list(state.totals)
            texts.extend(self._round_texts(result, cleared))
        else:
            for c in cleared_columns(status_before[actor], state.status[actor]):
                texts.append(cleared_column(who, str(c + 1), cast(int, state.discard_top)) + ".")
        if state.is_game_over:
            texts.append(self._winner_text())
        elif state.is_truncated:
            texts.append(f"{TURN_LIMIT}, unscored.")
        entry = {
            "step": len(self.actions),
            "seat": actor,
            "round": result.round_index if round_over and result is not None else state.round_index,
            "texts": texts,
        }
        self.log.append(entry)
        event = {**entry, "action": action, "round_over": round_over}
        if with_frame:
            event["frame"] = self.frame()
        return event

    def _describe(self, who: str, phase: int, action: int, held: int | None, moved: int | None, was: int | None) -> str:
        state = self.state
        if action == DRAW:
            return f"{who} drew {a_card(cast(int, state.held_card))} from the draw pile."
        if action == TAKE_DISCARD:
            return f"{who} took the {state.held_card} from the discard pile."
        slot = where(action % REVEAL_FIRST)
        if phase == Phase.SETUP_REVEAL:
            return f"{who} turned {slot} face-up: {moved}."
        if action < REVEAL_FIRST:
            face = "" if was == FACE_UP else " (it was face-down)"
            return f"{who} placed the {held} at {slot} and discarded {a_card(cast(int, moved))}{face}."
        return f"{who} discarded the {held} and turned {slot} face-up: {moved}."

    def _round_texts(self, result: RoundResult, cleared: dict[int, list[int]]) -> list[str]:
        you = self.you
        ender = seat_label(result.ender, you)
        texts = [
            f"Round {result.round_index + 1} is over ({ender} turned the last card); every card is turned face-up."
        ]
        for seat, cols in cleared.items():
            names = ", ".join(str(c + 1) for c in cols)
            texts.append(f"{seat_label(seat, you)}: column{'s' if len(cols) > 1 else ''} {names} cleared.")
        doubled = doubling(result, lambda seat: seat_label(seat, you))
        if doubled is not None:
            texts.append(doubled)
        scores = ", ".join(f"{seat_label(s, you)} {v}" for s, v in enumerate(result.scores))
        totals = ", ".join(f"{seat_label(s, you)} {t}" for s, t in enumerate(self.state.totals))
        texts.append(f"Round scores: {scores}. Totals: {totals}.")
        return texts

    def _winner_text(self) -> str:
        names = [seat_label(s, self.you) for s in self.state.winners]
        best = min(self.state.totals)
        if names == ["You"]:
            return f"Game over: you win with {best} points!"
        return f"Game over: {' and '.join(names)} win{'s' if len(names) == 1 else ''} with {best} points."
