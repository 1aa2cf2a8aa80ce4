"""The games and replays of one server (`GameStore`), kept in its database (`skyjo_env.web.history`)."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from skyjo_env.engine import IllegalActionError
from skyjo_env.web.errors import BadRequest, GameNotFound
from skyjo_env.web.game import Game, restore_game
from skyjo_env.web.history import GameDB
from skyjo_env.web.replay import Replay
from skyjo_env.web.roster import Roster, without_paths


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
