"""The review of a round (`Reviews`): each of the seat's decisions searched from its view then (`agents.review`)."""

from __future__ import annotations

import threading
from typing import Any

from agents.review import INACCURACY, MISTAKE, Budget, Reviewer, decisions, finished_rounds
from skyjo_env.engine.record import GameRecord
from skyjo_env.web.errors import NotNow
from skyjo_env.web.table import Table

REVIEW_BUDGET = Budget(worlds=32, top=3)  # a 2-player round in about 2 s on one core


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
