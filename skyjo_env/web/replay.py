"""A loaded game record, stepped through move by move (`Replay`)."""

from __future__ import annotations

import threading
from typing import Any

from skyjo_env.engine import IllegalActionError
from skyjo_env.engine.record import (
    RecordError,
    read_record,
)
from skyjo_env.web.errors import BadRequest
from skyjo_env.web.table import Table

REPLAY_CHECKPOINT = 256  # a replay keeps its table every this many actions


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
