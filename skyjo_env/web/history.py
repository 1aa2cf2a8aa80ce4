"""The games of `skyjo serve`, kept in SQLite (the standard library's `sqlite3`).

A game is fully described by its rules, seed, seats and moves (the seed fixes every deal, and
each bot move is seeded by the game's seed and the move's number: `Game.play_bots`), so that is
what is stored, committed with each request that moves; a server started on the same database
reloads the games in progress, which continue exactly: the same next cards, the same bot
moves. Finished games become the history (`GET /api/history`): wins and mean round score per
table size and opponents.

The file is marked as ours (`PRAGMA application_id`) and versioned (`PRAGMA user_version`): a
file of another version, or not ours, is refused with a message and never rewritten. `:memory:`
keeps nothing.

    games(id, created, updated, rules JSON, seed, seat, players JSON, status, result JSON)
    moves(game, n, action)    -- the n-th action of the game (every seat's), 0-based
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from skyjo_env.engine import Rules

SCHEMA_VERSION = 1
APPLICATION_ID = 0x536B796A  # "Skyj": this file is a Skyjo games database
MEMORY = ":memory:"
LIVE, FINISHED, CLOSED = "live", "finished", "closed"

_SCHEMA = f"""
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    rules TEXT NOT NULL,
    seed INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    players TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('{LIVE}', '{FINISHED}', '{CLOSED}')),
    result TEXT
);
CREATE TABLE moves (
    game TEXT NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    action INTEGER NOT NULL,
    PRIMARY KEY (game, n)
) WITHOUT ROWID;
CREATE INDEX games_by_status ON games(status, updated);
PRAGMA application_id = {APPLICATION_ID};
PRAGMA user_version = {SCHEMA_VERSION};
"""


class HistoryError(RuntimeError):
    """The games database cannot be used: not ours, another version, or damaged."""


def default_path() -> Path:
    """`games.sqlite3` in the user's data folder (platformdirs: ~/.local/share/skyjo-rl on Linux)."""
    from platformdirs import user_data_path

    return user_data_path("skyjo-rl", appauthor=False) / "games.sqlite3"


@dataclass
class StoredGame:
    """A game as the database holds it: enough to rebuild it exactly."""

    id: str
    rules: Rules
    seed: int
    seat: int
    players: list[str]  # per seat: "you", or the opponent's id in the roster
    actions: list[int]
    status: str
    updated: float


class GameDB:
    """The database of one server. Thread-safe: every call takes the connection's lock."""

    def __init__(self, path: str | Path = MEMORY) -> None:
        self.path = str(path)
        if self.path != MEMORY:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._open()
        except sqlite3.DatabaseError as e:
            raise HistoryError(f"{self.path} cannot be used as a Skyjo games database ({e})") from None

    def _open(self) -> None:
        db = self._db
        application = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        if application == 0 and version == 0 and not tables:  # a new file
            db.executescript(_SCHEMA)
        elif application != APPLICATION_ID:
            raise HistoryError(f"{self.path} is an SQLite file but not a Skyjo games database; name another with --db")
        elif version != SCHEMA_VERSION:
            raise HistoryError(
                f"{self.path} is a Skyjo games database of version {version}; this skyjo-rl reads version "
                f"{SCHEMA_VERSION} and never rewrites another: use the skyjo-rl that wrote it, or another --db"
            )
        if self.path != MEMORY:
            db.execute("PRAGMA journal_mode = WAL")  # a commit survives the server being killed
            db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = ON")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # ---------------------------------------------------------------- writes
    def add(self, key: str, rules: Rules, seed: int, seat: int, players: list[str], actions: list[int]) -> None:
        now = time.time()
        with self._transaction() as db:
            db.execute(
                "INSERT INTO games (id, created, updated, rules, seed, seat, players, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key, now, now, json.dumps(asdict(rules)), seed, seat, json.dumps(players), LIVE),
            )
            db.executemany("INSERT INTO moves (game, n, action) VALUES (?, ?, ?)", _rows(key, actions, 0))

    def moved(self, key: str, actions: list[int], start: int, result: dict[str, Any] | None = None) -> None:
        """`actions[start:]` are new; `result` when the game is finished."""
        with self._transaction() as db:
            db.executemany("INSERT INTO moves (game, n, action) VALUES (?, ?, ?)", _rows(key, actions, start))
            if result is None:
                db.execute("UPDATE games SET updated = ? WHERE id = ?", (time.time(), key))
            else:
                db.execute(
                    "UPDATE games SET updated = ?, status = ?, result = ? WHERE id = ?",
                    (time.time(), FINISHED, json.dumps(result), key),
                )

    def close_game(self, key: str) -> None:
        """A game in progress that the server let go (replaced, closed for room, expired): kept, as unfinished."""
        with self._transaction() as db:
            db.execute("UPDATE games SET status = ? WHERE id = ? AND status = ?", (CLOSED, key, LIVE))

    # ----------------------------------------------------------------- reads
    def live_games(self) -> list[StoredGame]:
        """The games in progress, oldest request first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, rules, seed, seat, players, status, updated FROM games WHERE status = ? ORDER BY updated",
                (LIVE,),
            ).fetchall()
            moves = {
                row[0]: [
                    a for (a,) in self._db.execute("SELECT action FROM moves WHERE game = ? ORDER BY n", (row[0],))
                ]
                for row in rows
            }
        return [
            StoredGame(key, Rules(**json.loads(rules)), seed, seat, json.loads(players), moves[key], status, updated)
            for key, rules, seed, seat, players, status, updated in rows
        ]

    def history(self) -> list[dict[str, Any]]:
        """Per table size and opponents (sorted, as `expert, ppo`): games finished, wins, mean round
        score (yours), and games left unfinished; largest tables last."""
        with self._lock:
            query = "SELECT seat, players, status, result FROM games WHERE status != ?"
            rows = self._db.execute(query, (LIVE,)).fetchall()
        groups: dict[tuple[int, str], dict[str, Any]] = {}
        for seat, players_text, status, result_text in rows:
            players = json.loads(players_text)
            opponents = ", ".join(sorted(p for s, p in enumerate(players) if s != seat))
            group = groups.setdefault(
                (len(players), opponents),
                {"players": len(players), "opponents": opponents, "games": 0, "wins": 0, "unfinished": 0, "_r": []},
            )
            result = json.loads(result_text) if status == FINISHED else None
            if result is None or result["truncated"]:  # closed before the end, or stopped at the turn limit
                group["unfinished"] += 1
                continue
            group["games"] += 1
            group["wins"] += int(seat in result["winners"])
            group["_r"].extend(result["round_scores"])
        out = []
        for _, group in sorted(groups.items()):
            scores = group.pop("_r")
            group["mean_round_score"] = sum(scores) / len(scores) if scores else None
            out.append(group)
        return out


def _rows(key: str, actions: list[int], start: int) -> list[tuple[str, int, int]]:
    return [(key, n, int(a)) for n, a in enumerate(actions[start:], start)]
