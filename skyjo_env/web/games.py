"""The games a browser plays: opponents, tables, narration, records, replays and the store of live games.

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
import re
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Literal, cast, get_args, get_origin, get_type_hints

import numpy as np

import agents
from agents.base import Policy, sizes_text
from agents.model_file import PolicyNetwork
from agents.review import INACCURACY, MISTAKE, Budget, Reviewer, decisions, finished_rounds
from skyjo_env.engine import (
    DRAW,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    NUM_COLUMNS,
    REVEAL_FIRST,
    TAKE_DISCARD,
    GameState,
    IllegalActionError,
    Phase,
    RoundResult,
    Rules,
    apply_action,
    legal_actions,
    new_game,
)
from skyjo_env.engine.record import (
    MAX_SEED,
    GameRecord,
    RecordError,
    read_record,
)
from skyjo_env.engine.record import rules_from_json as record_rules
from skyjo_env.engine.state import FACE_UP, FROM_DISCARD, FROM_DRAW, HIDDEN, REMOVED
from skyjo_env.engine.view import SeatView, seat_view
from skyjo_env.observation import encode
from skyjo_env.web.history import GameDB, StoredGame

REVIEW_BUDGET = Budget(worlds=32, top=3)  # a 2-player round in about 10 s on one core

REPLAY_CHECKPOINT = 256  # a replay keeps its table every this many actions
HINT_MODEL = "ppo"  # the shipped agent whose probabilities are drawn on the cards


# ------------------------------------------------------------------ errors
class WebError(ValueError):
    """A request the server refuses; `status` is the HTTP status the app answers with."""

    status = 400


class BadRequest(WebError):
    """A request whose body or parameters are malformed or out of range."""

    status = 400


class GameNotFound(WebError):
    """No live game or replay has this id (never had, or it expired)."""

    status = 404


class NotNow(WebError):
    """A well-formed request the game cannot take now: an illegal action, a finished game, a stale step."""

    status = 409


class AgentLoadError(ValueError):
    """An agent given at server start cannot be loaded."""


# --------------------------------------------------------------- opponents
@dataclass
class AgentChoice:
    """One opponent a browser may pick: a registered bot, or a model file given at server start."""

    id: str  # what the browser sends; never a path
    spec: str  # what `agents.make` is given
    summary: str
    from_file: bool
    prototype: Policy | None = None
    error: str | None = None  # why it cannot be loaded, once tried

    @property
    def players(self) -> tuple[int, ...] | None:
        """The table sizes a trained model plays (one, or 2..8 for a seats network); None for a bot that plays any."""
        sizes = getattr(self.prototype, "players", None)  # a PolicyBot's table sizes
        if sizes is None:  # another model may say its one size
            size = getattr(self.prototype, "num_players", None)
            sizes = None if size is None else (size,)
        return None if sizes is None else tuple(sizes)

    def plays(self, num_players: int) -> bool:
        return self.players is None or num_players in self.players


_PATH = re.compile(r"(?<![\w.~-])(?:[A-Za-z]:)?[\\/](?:[^\s'\"\\/]+[\\/])*([^\s'\"\\/]+)")  # an absolute path


def without_paths(text: str) -> str:
    """`text` with every absolute file path cut to its last part (`/home/me/run/best.zip` -> `best.zip`):
    the page is told which file, never where this machine keeps it."""
    return _PATH.sub(r"\1", text)


class Roster:
    """The opponents on offer: every `agents.available()` bot, and the model files given at start.

    A bot is loaded once (on first use, or all at once with `load_all`) and copied for each
    seat, every copy sharing the loaded network. Model files are loaded at once, so a bad path fails at server start.
    """

    def __init__(self, agent_specs: Sequence[str] = ()) -> None:
        self._lock = threading.Lock()
        self.choices: dict[str, AgentChoice] = {}
        for name, summary in agents.describe().items():
            self.choices[name] = AgentChoice(name, name, summary, from_file=False)
        for spec in agent_specs:
            if spec in self.choices:
                continue
            if spec not in agents.available() and not Path(spec).exists():
                raise AgentLoadError(
                    f"--agents {spec!r}: no such file, and not a bot name (bots: {', '.join(agents.available())})"
                )
            base = Path(spec).name
            choice_id, k = base, 2
            while choice_id in self.choices:
                choice_id, k = f"{base}#{k}", k + 1
            choice = AgentChoice(choice_id, spec, f"model file {base}", from_file=True)
            self._load(choice)
            if choice.error is not None:
                raise AgentLoadError(f"--agents {spec!r}: {choice.error}")
            self.choices[choice_id] = choice

    def _load(self, choice: AgentChoice) -> None:
        with self._lock:
            if choice.prototype is not None or choice.error is not None:
                return
            try:
                choice.prototype = agents.make(choice.spec)
            except (ValueError, FileNotFoundError, ImportError) as e:
                choice.error = without_paths(str(e))

    def load_all(self) -> None:
        """Load every bot now (the server does this at start, so the page knows each model's table size)."""
        for choice in self.choices.values():
            self._load(choice)

    def get(self, choice_id: str) -> AgentChoice:
        choice = self.choices.get(choice_id)
        if choice is None:
            raise BadRequest(f"unknown opponent {choice_id!r}; choose one of: {', '.join(self.choices)}")
        return choice

    def make(self, choice_id: str, num_players: int, seed: int) -> Policy:
        """A fresh copy of the opponent for one seat of a table of `num_players`, seeded (its network shared)."""
        choice = self.get(choice_id)
        self._load(choice)
        if choice.prototype is None:
            raise BadRequest(f"opponent {choice_id!r} is not available: {choice.error}")
        if not choice.plays(num_players):
            raise BadRequest(
                f"opponent {choice_id!r} was trained for {sizes_text(choice.players or ())} players; "
                f"this table has {num_players} seats"
            )
        # every seat's copy has its own state (random generator, buffers) and shares the network's
        # weights, which playing never changes: an 8-player game of `ppo`s holds one network, not 7
        prototype = choice.prototype
        shared = {id(v): v for v in vars(prototype).values() if isinstance(v, PolicyNetwork)}
        bot = copy.deepcopy(prototype, memo=shared)
        bot.reset(seed)
        return bot

    def describe(self) -> list[dict[str, Any]]:
        return [
            {
                "id": c.id,
                "summary": c.summary,
                "from_file": c.from_file,
                "players": None if c.players is None else list(c.players),
                "loaded": c.prototype is not None,
                "error": c.error,
            }
            for c in self.choices.values()
        ]

    def hint_model(self, num_players: int) -> tuple[Policy | None, str]:
        """The model whose probabilities are the hint at a table of `num_players`, or None and why not.

        The shipped `ppo` first, then the model files given at start: the first made for this size.
        """
        candidates = [c for c in self.choices.values() if c.id == HINT_MODEL or c.from_file]
        sizes = []
        for choice in candidates:
            self._load(choice)
            bot = choice.prototype
            if bot is None or not (hasattr(bot, "action_logits") or hasattr(bot, "logits")):
                continue
            if choice.players is not None and num_players in choice.players:
                return bot, choice.id
            sizes.append(f"{choice.id}: {sizes_text(choice.players or ())} players")
        if not sizes:
            reasons = [f"{c.id}: {c.error}" for c in candidates if c.error]
            return None, "no hint model is loaded" + (f" ({'; '.join(reasons)})" if reasons else "")
        return None, (
            f"no hint for {num_players} players: the models here were trained for other table sizes "
            f"({', '.join(sizes)}); start the server with --agents MODEL for a {num_players}-player model"
        )


def policy_probabilities(bot: Policy, view: SeatView, legal: Sequence[int]) -> dict[int, float]:
    """A trained policy's probabilities over the legal actions: a softmax over the legal actions' logits.

    Works with a `PolicyBot` (`view_logits(view)`) and any model that has `action_logits(observation)`
    or `logits(observation)` of a `skyjo_v0` observation returning 26 numbers, and checks what it gets
    rather than trusting it.
    """
    if hasattr(bot, "view_logits"):  # a PolicyBot: it encodes the view in the observation its network reads
        raw = bot.view_logits(view)
    else:
        method = getattr(bot, "action_logits", None) or getattr(bot, "logits", None)
        if method is None:
            raise ValueError(f"the hint model {getattr(bot, 'name', bot)!r} has no action_logits(observation)")
        raw = method(encode(view))
    logits = np.asarray(raw, dtype=np.float64).reshape(-1)
    if logits.shape != (NUM_ACTIONS,) or not np.all(np.isfinite(logits[list(legal)])):
        raise ValueError(f"the hint model gave logits of shape {logits.shape}, expected {NUM_ACTIONS} finite numbers")
    chosen = logits[list(legal)]
    weights = np.exp(chosen - chosen.max())
    probabilities = weights / weights.sum()
    return {int(a): float(p) for a, p in zip(legal, probabilities)}


# ------------------------------------------------------------------- rules
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


# ------------------------------------------------------------------ frames
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


# ------------------------------------------------------------------- table
def _a(value: int) -> str:
    return f"{'an' if value in (8, 11) else 'a'} {value}"


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
            after = state.status[actor]
            for c in range(NUM_COLUMNS):
                if status_before[actor][3 * c] != REMOVED and after[3 * c] == REMOVED:
                    texts.append(f"{who} cleared column {c + 1}: three {state.discard_top}s go to the discard pile.")
        if state.is_game_over:
            texts.append(self._winner_text())
        elif state.is_truncated:
            texts.append("The round reached the turn limit (max_turns_per_round): the game stops here, unscored.")
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
            return f"{who} drew {_a(cast(int, state.held_card))} from the draw pile."
        if action == TAKE_DISCARD:
            return f"{who} took the {state.held_card} from the discard pile."
        slot = where(action % REVEAL_FIRST)
        if phase == Phase.SETUP_REVEAL:
            return f"{who} turned {slot} face-up: {moved}."
        if action < REVEAL_FIRST:
            face = "" if was == FACE_UP else " (it was face-down)"
            return f"{who} placed the {held} at {slot} and discarded {_a(cast(int, moved))}{face}."
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
        if result.ender_doubled:
            e = result.ender
            texts.append(
                f"{seat_label(e, you)} ended the round without the strictly lowest score: "
                f"{result.raw_scores[e]} is doubled to {result.scores[e]}."
            )
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


# -------------------------------------------------------------------- game
class Game:
    """A live game: a human seat, a bot at every other seat, the engine as judge."""

    kind = "game"

    def __init__(self, table: Table, opponents: dict[int, str], bots: dict[int, Policy]) -> None:
        self.table = table
        self.opponents = opponents
        self.bots = bots
        self.lock = threading.Lock()
        self.saved = 0  # how many of the table's actions the store's database holds
        self.reviews: dict[int, dict[str, Any]] = {}  # the rounds reviewed, by round

    @property
    def you(self) -> int:
        return self.table.you

    def view(self) -> dict[str, Any]:
        return {"frame": self.table.frame(), "log": self.table.log}

    def play_bots(self) -> list[dict[str, Any]]:
        """Let the bots move until it is the human's turn or the game is finished; their events, in order."""
        table, state = self.table, self.table.state
        events = []
        while not state.is_finished and state.current_player != table.you:
            seat = state.current_player
            bot = self.bots[seat]
            bot.reset(move_seed(table.seed, len(table.actions)))  # so a game rebuilt from its moves plays on alike
            action = bot.act(seat_view(state, seat), legal_actions(state))
            events.append(table.apply(int(action)))
        return events

    def play(self, action: Any, step: Any = None) -> list[dict[str, Any]]:
        """The human's action, then the bots' replies: every event, in order. The game is unchanged on an error."""
        table = self.table
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < NUM_ACTIONS:
            raise BadRequest(f"action must be an integer 0..{NUM_ACTIONS - 1}, got {action!r}")
        if step is not None and (not isinstance(step, int) or isinstance(step, bool)):
            raise BadRequest(f"step must be an integer, got {step!r}")
        if table.finished:
            raise NotNow("the game is finished")
        if step is not None and step != len(table.actions):
            raise NotNow(f"stale move: the game is at step {len(table.actions)}, the move was made at step {step}")
        if table.state.current_player != table.you:  # pragma: no cover - bots always play up to the human's turn
            raise NotNow("it is not your turn")
        try:
            event = table.apply(action)
        except IllegalActionError as e:
            raise NotNow(str(e)) from None
        return [event, *self.play_bots()]

    def hint(self, roster: Roster) -> dict[str, Any]:
        """The hint model's probabilities over the human's legal actions (or why there is none)."""
        table = self.table
        if table.finished or table.state.current_player != table.you:
            raise NotNow("a hint is for your own turn")
        bot, why = roster.hint_model(table.rules.num_players)
        if bot is None:
            return {"available": False, "reason": why, "step": len(table.actions)}
        legal = table.legal()
        probabilities = policy_probabilities(bot, seat_view(table.state, table.you), legal)
        return {
            "available": True,
            "model": why,
            "step": len(table.actions),
            "probabilities": {str(a): p for a, p in probabilities.items()},
        }

    def result(self) -> dict[str, Any] | None:
        """A finished game's outcome for the history (None while it is in progress)."""
        state = self.table.state
        if not state.is_finished:
            return None
        return {
            "winners": [] if state.is_truncated else list(state.winners),
            "totals": list(state.totals),
            "round_scores": [row[self.you] for row in state.round_history],
            "truncated": bool(state.is_truncated),
        }

    def game_record(self) -> GameRecord:
        table = self.table
        return GameRecord(table.rules, table.seed, table.you, tuple(table.agent_names), tuple(table.actions))

    def record(self) -> dict[str, Any]:
        """Rules, seed and actions: enough to replay the game exactly. The seed fixes the deck, so the
        record of a running game tells its face-down cards to whoever reads it (the page warns)."""
        return self.game_record().to_json(finished=self.table.finished)


def new_game_from_json(body: Any, roster: Roster) -> Game:
    """A game from the new-game form: `{"opponents": [id, ...], "rules": {...}, "seed": int?, "seat": int?}`."""
    if not isinstance(body, dict):
        raise BadRequest(f"expected a JSON object, got {type(body).__name__}")
    unknown = sorted(set(body) - {"opponents", "rules", "seed", "seat"})
    if unknown:
        raise BadRequest(f"unknown field(s) {unknown}; expected opponents, rules, seed, seat")
    opponents = body.get("opponents")
    if (
        not isinstance(opponents, list)
        or not MIN_PLAYERS - 1 <= len(opponents) <= MAX_PLAYERS - 1
        or not all(isinstance(o, str) for o in opponents)
    ):
        raise BadRequest(
            f"opponents must be a list of {MIN_PLAYERS - 1} to {MAX_PLAYERS - 1} opponent names, got {opponents!r}"
        )
    num_players = len(opponents) + 1
    rules = rules_from_json(body.get("rules"), num_players)
    seed = body.get("seed")
    if seed is None:
        seed = secrets.randbelow(2**31)
    elif not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise BadRequest(f"seed must be an integer 0..{MAX_SEED}, got {seed!r}")
    you = body.get("seat", 0)
    if not isinstance(you, int) or isinstance(you, bool) or not 0 <= you < num_players:
        raise BadRequest(f"seat must be an integer 0..{num_players - 1}, got {you!r}")
    bot_seats = [s for s in range(num_players) if s != you]
    return seat_game(rules, seed, you, dict(zip(bot_seats, opponents)), roster)


def seat_game(rules: Rules, seed: int, you: int, chosen: dict[int, str], roster: Roster) -> Game:
    """A new game: the human at `you`, the opponent `chosen[seat]` (a roster id) at every other seat."""
    bots = {seat: roster.make(name, rules.num_players, seed + 1 + seat) for seat, name in chosen.items()}
    names = ["you" if s == you else chosen[s] for s in range(rules.num_players)]
    return Game(Table(rules, seed, you, names), chosen, bots)


def move_seed(seed: int, step: int) -> int:
    """The seed of the bot move at `step` of the game of `seed`: a bot's move depends on the game and
    the move only, so a game rebuilt from its record plays on exactly as it would have."""
    return (seed * 1_000_003 + step) % 2**63


def restore_game(stored: StoredGame, roster: Roster) -> Game:
    """A game from the database, at the step it had reached. Raises `BadRequest` (an opponent this
    server does not offer) or `IllegalActionError` (moves that do not fit the rules and seed)."""
    chosen = {seat: name for seat, name in enumerate(stored.players) if seat != stored.seat}
    game = seat_game(stored.rules, stored.seed, stored.seat, chosen, roster)
    for action in stored.actions:
        game.table.apply(action, with_frame=False)
    game.saved = len(stored.actions)
    return game


# ------------------------------------------------------------------ replay
class Replay:
    """A loaded record, stepped through move by move from the recorded human seat's point of view.

    A record holds at most `MAX_RECORD_ACTIONS` actions. The table is kept every
    `REPLAY_CHECKPOINT` actions, so that any step costs at most that many actions from the
    nearest kept table, forwards or backwards.
    """

    kind = "replay"

    def __init__(self, record: Any) -> None:
        try:
            checked = read_record(record, check_moves=False)  # the moves are checked below, as they are replayed
        except RecordError as e:
            raise BadRequest(str(e)) from None
        self.rules, self.seed, self.you = checked.rules, checked.seed, checked.seat
        self.names, self.actions = list(checked.players), list(checked.actions)
        self.game_record = checked
        self.reviews: dict[int, dict[str, Any]] = {}
        self.lock = threading.Lock()
        table = Table(self.rules, self.seed, self.you, self.names)
        self._kept: list[Table] = [table.copy()]  # the table after 0, C, 2C, ... actions
        for i, action in enumerate(self.actions):
            try:
                table.apply(action, with_frame=False)
            except IllegalActionError as e:
                raise BadRequest(f"the record's action #{i} is illegal in the replayed game: {e}") from None
            if (i + 1) % REPLAY_CHECKPOINT == 0:
                self._kept.append(table.copy())
        self._table = self._kept[0].copy()
        self._event: dict[str, Any] | None = None

    def step(self, k: int) -> dict[str, Any]:
        """The table after the first `k` actions, with the event of the k-th and the narration so far."""
        if not 0 <= k <= len(self.actions):
            raise BadRequest(f"step must be 0..{len(self.actions)}, got {k}")
        at = len(self._table.actions)
        if not at <= k < at + REPLAY_CHECKPOINT:  # start from the kept table just before step k
            base = max(0, (k - 1) // REPLAY_CHECKPOINT)
            self._table, self._event = self._kept[base].copy(), None
        table = self._table
        if len(table.actions) == k and k > 0 and self._event is None:  # the k-th event: replay it from k - 1
            self._table = table = self._kept[(k - 1) // REPLAY_CHECKPOINT].copy()
        while len(table.actions) < k:
            self._event = table.apply(self.actions[len(table.actions)], with_frame=False)
        event = self._event if k > 0 else None
        return {
            "step": k,
            "steps": len(self.actions),
            "players": self.names,
            "frame": table.frame(),
            "event": None if event is None else {key: event[key] for key in ("seat", "action", "texts", "round_over")},
            "log": table.log,
        }


# ------------------------------------------------------------------ review
class Reviews:
    """The server's reviewer (`agents.review`: its network loaded on first use), one review at a
    time, each round's answer kept with its game or replay."""

    def __init__(self, budget: Budget = REVIEW_BUDGET) -> None:
        self.budget = budget
        self._reviewer: Reviewer | None = None
        self._lock = threading.Lock()

    def describe(self, record: GameRecord) -> dict[str, Any]:
        return {
            "rounds": finished_rounds(record),
            "thresholds": {"inaccuracy": INACCURACY, "mistake": MISTAKE},
            "budget": {"worlds": self.budget.worlds, "top": self.budget.top},
        }

    def round(self, record: GameRecord, round_index: int, cache: dict[int, dict[str, Any]]) -> dict[str, Any]:
        """The review of the record's seat in round `round_index` (a round that is over): each decision
        with the move played, the best found, the expected points lost and the seat's table then."""
        if round_index in cache:
            return cache[round_index]
        about = self.describe(record)
        if round_index not in about["rounds"]:
            raise NotNow(f"round {round_index} is not over; rounds that can be reviewed: {about['rounds']}")
        steps = decisions(record, record.seat, round_index)
        with self._lock:
            if self._reviewer is None:
                self._reviewer = Reviewer(self.budget)
            reviews = self._reviewer.review(record, record.seat, steps)
        table = Table(record.rules, record.seed, record.seat, list(record.players))
        moves = []
        for review in reviews:  # the seat's own table at each decision: what it saw then, no more
            while len(table.actions) < review.step:
                table.apply(record.actions[len(table.actions)], with_frame=False)
            moves.append({**review.as_dict(), "frame": table.frame()})
        lost = sum(m["cost"] for m in moves if m["grade"] != "fine")
        answer = {**about, "round": round_index, "seat": record.seat, "lost": lost, "moves": moves}
        cache[round_index] = answer
        return answer


# ------------------------------------------------------------------- store
class GameStore:
    """Games and replays by unguessable id, for one player (or a few): it never refuses a new one.

    At most `max_games` games in progress are kept: a new one closes the game in progress that
    has waited longest for a request. Finished games and replays do not count among them; they
    are kept too, at most `max_games` of them (again the one idle longest goes first). Anything
    idle for `idle_seconds` is dropped. Every game is also in `db` (`GameDB`), move by move: a
    game closed or dropped there stays as an unfinished game of the history.
    """

    def __init__(
        self,
        max_games: int,
        idle_seconds: float,
        clock: Callable[[], float] = time.monotonic,
        db: GameDB | None = None,
    ) -> None:
        if max_games < 1:
            raise ValueError(f"max_games must be >= 1, got {max_games}")
        if idle_seconds <= 0:
            raise ValueError(f"idle_seconds must be > 0, got {idle_seconds}")
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.db = db if db is not None else GameDB()
        self._lock = threading.Lock()
        self._items: dict[str, tuple[Game | Replay, float]] = {}

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._items)

    @property
    def live(self) -> int:
        """How many games are in progress."""
        with self._lock:
            self._expire()
            return sum(_in_progress(item) for item, _ in self._items.values())

    def _drop(self, key: str) -> None:
        item, _ = self._items.pop(key)
        if _in_progress(item):
            self.db.close_game(key)

    def _expire(self) -> None:
        now = self.clock()
        for key in [k for k, (_, seen) in self._items.items() if now - seen > self.idle_seconds]:
            self._drop(key)

    def _make_room(self, in_progress: bool) -> None:
        """Drop the idle-longest item of the kind (in progress, or finished and replays) until one more fits."""
        same = [(seen, k) for k, (item, seen) in self._items.items() if _in_progress(item) == in_progress]
        for _, key in sorted(same)[: max(0, len(same) - self.max_games + 1)]:
            self._drop(key)

    def add(self, item: Game | Replay, key: str | None = None) -> str:
        """Keep `item` under a new id (or `key`, for a game reloaded from the database); return the id."""
        with self._lock:
            self._expire()
            self._make_room(_in_progress(item))
            if key is None:
                key = secrets.token_urlsafe(16)
                if isinstance(item, Game):
                    table = item.table
                    self.db.add(key, table.rules, table.seed, table.you, table.agent_names, table.actions)
                    item.saved = len(table.actions)
            self._items[key] = (item, self.clock())
            return key

    def saved(self, key: str, game: Game) -> None:
        """Commit the game's new moves (and its result, once finished); call it holding `game.lock`."""
        if game.saved < len(game.table.actions):
            self.db.moved(key, game.table.actions, game.saved, game.result())
            game.saved = len(game.table.actions)

    def get(self, key: str, kind: type[Game] | type[Replay]) -> Any:
        with self._lock:
            self._expire()
            found = self._items.get(key)
            if found is None or not isinstance(found[0], kind):
                raise GameNotFound(
                    f"no {kind.kind} with id {key!r} (unknown, ended, expired after {self.idle_seconds:g} s idle, "
                    f"or closed for a newer one: this server keeps {self.max_games} games in progress)"
                )
            self._items[key] = (found[0], self.clock())
            return found[0]

    def remove(self, key: str, kind: type[Game] | type[Replay]) -> None:
        self.get(key, kind)
        with self._lock:
            if key in self._items:
                self._drop(key)

    def reload(self, roster: Roster) -> list[str]:
        """Take back the database's games in progress (at most `max_games`, the most recent; the older
        ones are closed, kept in the history); return a line for each game that could not be rebuilt,
        which stays in the database as it is."""
        problems = []
        stored = self.db.live_games()
        for old in stored[: max(0, len(stored) - self.max_games)]:
            self.db.close_game(old.id)
        for game_row in stored[-self.max_games :]:
            try:
                game = restore_game(game_row, roster)
            except (BadRequest, IllegalActionError, ValueError) as e:
                problems.append(f"game {game_row.id} is not reloaded: {without_paths(str(e))}")
                continue
            self.add(game, key=game_row.id)
        return problems


def _in_progress(item: Game | Replay) -> bool:
    return isinstance(item, Game) and not item.table.finished
