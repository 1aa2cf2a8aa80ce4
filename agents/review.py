"""Review a game move by move: which of a seat's moves cost it points, and how many.

For every decision of the reviewed seat (after the setup reveals, and with a choice to make),
the search of `agents.search` runs from that seat's view at that moment, never from the real
face-down cards or draw pile: the network's `top` moves and the move played are each played
out in the same `worlds` sampled worlds (the same cards in the same order for every
candidate), the network at every seat, to the end of the round, and scored by the round's
points relative to the others, the ender's doubling included (`round_margin`). With
`Budget.opponents` a library of opponent models (`"network|expert|greedy"`, as `ppo+search`'s
`opponents=`), the record's moves before each decision are told to the search (each other seat's,
from that seat's view then: public information), so that each other seat is played in the
playouts by the member that predicted most of its moves so far (at least 90 % of them, else by
the first member). A move's **expected cost** is the best candidate's mean less the played
move's, in round points, with the standard error of that paired difference; the best move's
cost is 0.

A move is graded *fine* below `INACCURACY` points, an *inaccuracy* from `INACCURACY`, a
*mistake* from `MISTAKE`; a cost within two standard errors of 0 is fine whatever its size
(the estimate cannot tell it from a good move).

Each decision is searched with its own seed (the review's seed and the move's number), so a
review is the same however it is split over processes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from agents.base import one_blas_thread
from agents.model_file import PolicyNetwork
from agents.opponent_model import NETWORK
from agents.search import SearchBot
from skyjo_env.engine import action_to_string, apply_action, legal_actions, new_game
from skyjo_env.engine.codes import Phase
from skyjo_env.engine.record import GameRecord
from skyjo_env.engine.state import GameState
from skyjo_env.engine.view import seat_view

INACCURACY = 1.0  # expected round points lost
MISTAKE = 3.0
GRADES = ("fine", "inaccuracy", "mistake")


@dataclass(frozen=True)
class Budget:
    """How hard each decision is searched: `worlds` sampled worlds for the network's `top` moves
    and the move played; `ms` caps one decision's time (a playout still running is then scored
    where it stands, and the review is no longer exactly reproducible). `opponents`: who the other
    seats play in the playouts (`ppo+search`'s `opponents=`): the network at every seat, or a library
    matched to each seat by the record's moves. In the playouts a bot member plays one world at a time,
    where the network, or a member that is a network (`ppo`), plays them all in one forward pass."""

    worlds: int = 32
    top: int = 3
    ms: float = 5000.0
    seed: int = 0
    opponents: str = NETWORK


@dataclass(frozen=True)
class MoveReview:
    step: int  # the action's index in the record
    round: int  # 0-based
    played: int
    best: int
    cost: float  # expected round points lost by the move played (0 for the best move)
    error: float  # the standard error of `cost`
    candidates: tuple[int, ...]
    values: tuple[float, ...]  # each candidate's mean round margin
    opponents: tuple[tuple[int, str], ...] = ()  # with a library: (seat, the member that played it)

    @property
    def grade(self) -> str:
        if self.cost <= 2 * self.error or self.cost < INACCURACY:
            return "fine"
        return "mistake" if self.cost >= MISTAKE else "inaccuracy"

    def as_dict(self) -> dict:
        out = asdict(self)
        out.update(
            grade=self.grade,
            played_text=action_to_string(self.played),
            best_text=action_to_string(self.best),
            candidates=list(self.candidates),
            values=list(self.values),
            opponents={str(seat): name for seat, name in self.opponents},
        )
        return out


def decisions(record: GameRecord, seat: int, round_index: int | None = None) -> list[int]:
    """The steps (indices into `record.actions`) where `seat` chose among several moves after the
    setup (in round `round_index` only, if given)."""
    state = new_game(record.rules, seed=record.seed)
    found = []
    for step, action in enumerate(record.actions):
        if (
            state.current_player == seat
            and state.phase != Phase.SETUP_REVEAL
            and (round_index is None or state.round_index == round_index)
            and len(legal_actions(state)) > 1
        ):
            found.append(step)
        apply_action(state, action)
    return found


def finished_rounds(record: GameRecord) -> list[int]:
    """The rounds of the record that are over (scored, or the game stopped in them)."""
    state = record.replay()
    return list(range(len(state.round_history) + (1 if state.is_truncated else 0)))


class Reviewer:
    """Searches single decisions of a record (one network, loaded once)."""

    def __init__(self, budget: Budget = Budget(), model: str | Path | PolicyNetwork | None = None) -> None:
        self.budget = budget
        # one batch of all the worlds (every candidate played in each), scored where it stands at `ms`
        self.bot = SearchBot(
            model,
            worlds=budget.worlds,
            batch=budget.worlds,
            top=budget.top,
            ms=budget.ms,
            leaf="round",
            cut="score",
            opponents=budget.opponents,
        )

    def review(self, record: GameRecord, seat: int, steps: Iterable[int]) -> list[MoveReview]:
        """The reviews of `seat`'s decisions at `steps` (increasing), replaying the record once (and,
        with a library of opponent models, telling the search every other seat's move on the way)."""
        wanted = sorted(steps)
        state = new_game(record.rules, seed=record.seed)
        reviews: list[MoveReview] = []
        self.bot.reset()  # a new game: nothing known of the other seats
        at = 0
        for step in wanted:
            while at < step:
                self._tell(state, seat, record.actions[at], at)
                apply_action(state, record.actions[at])
                at += 1
            if state.current_player != seat:
                raise ValueError(f"step {step} is seat {state.current_player}'s move, not seat {seat}'s")
            reviews.append(self._review(state, seat, record.actions[step], step))
        return reviews

    def review_position(self, state: GameState, seat: int, played: int, step: int = 0) -> MoveReview:
        """The review of `played` by `seat` (to move) in `state`, searched from that seat's view only,
        alone: no moves are told before it, so a library models every other seat by its first member."""
        self.bot.reset()
        return self._review(state, seat, played, step)

    def _tell(self, state: GameState, seat: int, action: int, step: int) -> None:
        """Tell the search another seat's move (only a library has a use for it). Reseeded from the
        move's number first, so that what a member with a random generator predicts is the same
        however the review is split."""
        mover = state.current_player
        if self.bot.opponents.infers and mover != seat:
            self.bot.reseed(self._seed(step))
            self.bot.observe(seat_view(state, mover), legal_actions(state), action)

    def _seed(self, step: int) -> int:
        return (self.budget.seed * 1_000_003 + step) % 2**63

    def _review(self, state: GameState, seat: int, played: int, step: int) -> MoveReview:
        self.bot.reseed(self._seed(step))
        result = self.bot.evaluate(seat_view(state, seat), legal_actions(state), include=[played])
        values = np.asarray(result.values)
        best_index = int(np.argmax(values))
        played_index = result.candidates.index(played)
        cost = float(values[best_index] - values[played_index])
        error = 0.0
        scores = result.extra.get("scores")
        if scores is not None and best_index != played_index and scores.shape[1] > 1:
            diff = scores[best_index] - scores[played_index]
            error = float(diff.std(ddof=1) / math.sqrt(len(diff)))
        return MoveReview(
            step=step,
            round=state.round_index,
            played=played,
            best=result.candidates[best_index],
            cost=max(0.0, cost),
            error=error,
            candidates=tuple(result.candidates),
            values=tuple(float(v) for v in values),
            opponents=tuple(sorted(result.extra.get("opponents", {}).items())),
        )


def review_record(
    record: GameRecord,
    seat: int,
    budget: Budget = Budget(),
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    model: str | Path | None = None,
) -> list[MoveReview]:
    """Every decision of `seat` in `record`, in order; on `workers` processes, in chunks of
    consecutive decisions; `progress(k)` is called as k more decisions are done."""
    if not 0 <= seat < record.rules.num_players:
        raise ValueError(f"seat must be 0..{record.rules.num_players - 1}, got {seat}")
    steps = decisions(record, seat)
    chunks = _chunks(steps, max(1, workers) * 4)
    if workers <= 1 or len(chunks) <= 1:
        reviewer = Reviewer(budget, model)
        out: list[MoveReview] = []
        for chunk in chunks:
            out.extend(reviewer.review(record, seat, chunk))
            if progress:
                progress(len(chunk))
        return out
    import multiprocessing as mp
    import sys
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # fork is fastest, but forking a process that already runs torch's thread pools can hang the children
    fork_safe = "fork" in mp.get_all_start_methods() and "torch" not in sys.modules
    context = mp.get_context("fork" if fork_safe else "spawn")
    parts: dict[int, list[MoveReview]] = {}
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker, initargs=(budget, model)) as pool:
        futures = {pool.submit(_review_chunk, record, seat, chunk): i for i, chunk in enumerate(chunks)}
        for future in as_completed(futures):
            parts[futures[future]] = future.result()
            if progress:
                progress(len(parts[futures[future]]))
    return [r for i in sorted(parts) for r in parts[i]]


def _chunks(steps: Sequence[int], n: int) -> list[list[int]]:
    size = max(1, math.ceil(len(steps) / n))
    return [list(steps[i : i + size]) for i in range(0, len(steps), size)]


_WORKER: Reviewer | None = None


def _start_worker(budget: Budget, model: str | Path | None) -> None:
    global _WORKER
    one_blas_thread()  # the workers share the cores
    _WORKER = Reviewer(budget, model)


def _review_chunk(record: GameRecord, seat: int, steps: list[int]) -> list[MoveReview]:
    assert _WORKER is not None
    return _WORKER.review(record, seat, steps)
