"""Game records: the JSON that replays a game exactly (rules, seed, the seat it was played from,
the players' names and every action), as `skyjo serve`'s *Download record* and `skyjo play
--record FILE` write it, and as replays and `skyjo review` read it.

    {"format": "skyjo-game-record", "version": 1, "rules": {...}, "seed": 7, "seat": 0,
     "players": ["you", "expert"], "actions": [3, 7, 24, ...], "finished": true}

The seed fixes every deal, so a record tells every face-down card to whoever reads it.
`read_record` checks everything a record says (and, by default, that every action is legal in
the game of its rules and seed) and raises `RecordError` with one line saying what is wrong.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from skyjo_env.engine.options import MAX_PLAYERS, MIN_PLAYERS, Rules
from skyjo_env.engine.rules import IllegalActionError, apply_action, new_game
from skyjo_env.engine.state import GameState

RECORD_FORMAT = "skyjo-game-record"
RECORD_VERSION = 1
MAX_SEED = 2**63 - 1
MAX_RECORD_ACTIONS = 20_000  # the longest record read (a game to 100 points at 8 players takes about 1,500)
MAX_RECORD_BYTES = 1 << 20  # a record of MAX_RECORD_ACTIONS actions is about 120 kB


class RecordError(ValueError):
    """A game record that is not one, or not a consistent one."""


@dataclass(frozen=True)
class GameRecord:
    rules: Rules
    seed: int
    seat: int  # the seat the game was played (and is replayed) from
    players: tuple[str, ...]
    actions: tuple[int, ...]

    def replay(self, steps: int | None = None) -> GameState:
        """The game after its first `steps` actions (all by default)."""
        state = new_game(self.rules, seed=self.seed)
        for action in self.actions[:steps]:
            apply_action(state, action)
        return state

    def to_json(self, finished: bool | None = None) -> dict[str, Any]:
        """The record's JSON; `finished` says whether the game is over (replayed when not given)."""
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "rules": asdict(self.rules),
            "seed": self.seed,
            "seat": self.seat,
            "players": list(self.players),
            "actions": list(self.actions),
            "finished": self.replay().is_finished if finished is None else finished,
        }


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def rules_from_json(options: Any, num_players: int) -> Rules:
    """`Rules` from a JSON object of rule options; `num_players` comes from the seats."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RecordError(f"rules must be an object of rule options, got {type(options).__name__}")
    unknown = sorted(set(options) - set(Rules.field_names()))
    if unknown:
        raise RecordError(f"unknown rule option(s) {unknown}; known: {', '.join(Rules.field_names())}")
    options = dict(options)
    given = options.pop("num_players", num_players)
    if given != num_players:
        raise RecordError(f"rules.num_players={given!r}, but the table has {num_players} seats")
    try:
        return Rules(num_players=num_players, **options)
    except (TypeError, ValueError) as e:
        raise RecordError(f"bad rule option: {e}") from None


def read_record(data: Any, check_moves: bool = True) -> GameRecord:
    """The record in `data` (parsed JSON); `RecordError` saying what is wrong. With `check_moves`,
    every action is replayed and must be legal."""
    if not isinstance(data, dict):
        raise RecordError(f"a game record is a JSON object, got {type(data).__name__}")
    if data.get("format") != RECORD_FORMAT or data.get("version") != RECORD_VERSION:
        raise RecordError(f"not a game record: expected format {RECORD_FORMAT!r} version {RECORD_VERSION}")
    for key in ("rules", "seed", "seat", "actions"):
        if key not in data:
            raise RecordError(f"the record has no {key!r}")
    rules_json = data["rules"]
    if not isinstance(rules_json, dict) or "num_players" not in rules_json:
        raise RecordError("the record's rules must be an object with num_players")
    num_players = rules_json["num_players"]
    if not _is_int(num_players) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise RecordError(f"the record's num_players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {num_players!r}")
    rules = rules_from_json(rules_json, num_players)
    seed, seat, actions = data["seed"], data["seat"], data["actions"]
    if not _is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise RecordError(f"the record's seed must be an integer 0..{MAX_SEED}, got {seed!r}")
    if not _is_int(seat) or not 0 <= seat < num_players:
        raise RecordError(f"the record's seat must be 0..{num_players - 1}, got {seat!r}")
    if not isinstance(actions, list) or not all(_is_int(a) for a in actions):
        raise RecordError("the record's actions must be a list of integers")
    if len(actions) > MAX_RECORD_ACTIONS:
        raise RecordError(
            f"the record has {len(actions)} actions; records of at most {MAX_RECORD_ACTIONS} are read "
            "(a game to 100 points at 8 players takes about 1,500)"
        )
    names = data.get("players")
    if not (isinstance(names, list) and len(names) == num_players and all(isinstance(x, str) for x in names)):
        names = ["you" if s == seat else "?" for s in range(num_players)]
    record = GameRecord(rules, seed, seat, tuple(x[:40] for x in names), tuple(actions))
    if check_moves:
        state = new_game(rules, seed=seed)
        for i, action in enumerate(actions):
            if state.is_finished:
                raise RecordError(f"the record's action #{i} comes after the end of the game")
            try:
                apply_action(state, action)
            except IllegalActionError as e:
                raise RecordError(f"the record's action #{i} is illegal in the replayed game: {e}") from None
    return record


def load_record(path: str | Path) -> GameRecord:
    """The record in the JSON file `path` (at most `MAX_RECORD_BYTES`); `RecordError` naming the file."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_RECORD_BYTES:
            raise RecordError(f"{path} is {size:,} bytes; a game record is at most {MAX_RECORD_BYTES:,}")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        if isinstance(e, RecordError):
            raise
        raise RecordError(f"{path} is not a readable JSON game record ({e})") from None
    try:
        return read_record(data)
    except RecordError as e:
        raise RecordError(f"{path}: {e}") from None
