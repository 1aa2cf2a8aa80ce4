"""A live game (`Game`): the human seat, a bot at every other seat, the engine as judge; built from the
new-game form or rebuilt from the database."""

from __future__ import annotations

import secrets
import threading
from typing import Any

from agents.base import Policy
from skyjo_env.engine import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    IllegalActionError,
    Rules,
)
from skyjo_env.engine.record import (
    MAX_SEED,
    GameRecord,
)
from skyjo_env.engine.view import seat_view
from skyjo_env.seated import SeatedGame, tell_history
from skyjo_env.web.errors import BadRequest, NotNow
from skyjo_env.web.history import StoredGame
from skyjo_env.web.roster import Roster, policy_probabilities
from skyjo_env.web.table import Table, rules_from_json


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
        self.told: dict[int, int] = {}  # per seat of a bot that observes: how many of the moves it was told

    @property
    def you(self) -> int:
        return self.table.you

    def view(self) -> dict[str, Any]:
        return {"frame": self.table.frame(), "log": self.table.log}

    def play_bots(self) -> list[dict[str, Any]]:
        """Let the bots move until it is the human's turn or the game is finished; their events, in order."""
        table = self.table
        seats = [self.bots.get(seat) for seat in range(table.rules.num_players)]
        game = SeatedGame(table.rules, seats, state=table.state)  # the table applies the moves, to tell them
        events = []
        while (bot := game.waiting_bot()) is not None:
            self._prepare(bot, table.state.current_player)
            events.append(table.apply(int(game.ask())))
        return events

    def _prepare(self, bot: Policy, seat: int) -> None:
        """Before a bot's move: seed it from the game and the move only, so that a game rebuilt from its
        moves plays on alike, and tell a bot that observes the moves it has not been told. A bot that can
        be reseeded without forgetting (`reseed`) is told only the moves since its last; any other is
        reset and told them all (`tell_history`)."""
        table = self.table
        seed = move_seed(table.seed, len(table.actions))
        reseed = getattr(bot, "reseed", None)
        if hasattr(bot, "observe") and reseed is not None and seat in self.told:
            reseed(seed)
            tell_history(bot, table.rules, table.seed, table.actions, start=self.told[seat])
        else:
            bot.reset(seed)
            tell_history(bot, table.rules, table.seed, table.actions)
        if hasattr(bot, "observe"):
            self.told[seat] = len(table.actions)

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
