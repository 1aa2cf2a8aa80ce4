"""`ppo+search`: the shipped network, improved at play time by a search over sampled worlds.

In Skyjo nobody knows a face-down card, not even its owner, and a drawn card is shown: every
seat's belief is the same uniform deal of the unseen cards (`skyjo_env.engine.worlds`). So the
search never needs the real face-down cards or draw pile: it deals worlds from the view.

For each candidate move (the legal moves, or the network's `top` most likely), it estimates the
seat's value after the move, and keeps the network's own move unless another is better by
`margin` (and, when the estimate is sampled, by `z` standard errors of the paired difference; `z`
is 1 by default: at 4 players against `expert`s it won more than `z=2`, elsewhere as much, in less
time, docs/search.md):

- **`leaf="round"`** (the default): sampled worlds, the same ones for every candidate (common
  random numbers), the move, then the network plays every seat (one batched forward pass over all
  worlds a step) to the end of the round (or for `depth` decisions, if `depth` > 0, then the table's
  points with each face-down card at the mean unseen card), scored by the round's points relative
  to the others, the ender's doubling included. No value head needed: a policy file of version 1
  works too. With `draws="seat"` (the default), each seat draws from a run of the world's draw pile
  of its own (`_SeatDraws`), so that a seat draws the same cards in every candidate's playout even
  when the candidates change who draws when (drawing instead of taking the discard, a round that
  lasts a turn longer): the candidates' playouts stay alike longer and their difference is less
  noisy. Any card a seat draws is still a uniform draw from the cards unseen at that moment, so the
  worlds are the exact belief. `draws="pile"` draws the world's pile in its order. The playouts
  read the network's `fast_logits` (float32).
- **`objective="win"`**: a round playout is scored by the seat's chance of winning the game instead of
  the round's points: its result where the game ended in the playout, else the chance from the
  totals after the round (`agents.win_chance`: futures of whole rounds drawn from the shipped `ppo`'s
  own round scores), the same futures for every candidate. `margin` is then a chance, not points.
- **`opponents`**: the policy the other seats play in the playouts. `"network"`: the network at every
  seat, batched. An agent name (`"expert"`): that bot plays every other seat from its own view of the
  world while the network plays the searching seat; an opponent model for an opponent you know. A
  bot's moves are made one world at a time, so a budget buys fewer worlds (at 2 players against
  `expert`, about half); a network's (`ppo`, a model file: an agent with `act_batch`) in one forward
  pass a step over every world it plays in. Several joined by `|`, a library (the default,
  `"network|expert|greedy"`): each other seat plays the member that has predicted most of its moves
  in this game so far, if it predicted 90 % of them, else the first (`agents.opponent_model`; the
  moves come from the game loop through `observe`, and before any, the network). Once a seat has
  made 10 counted moves of which no member predicted 90 %, the search stands aside and plays the
  network's move: against `ppo_2p`, which no member fits, the search played worse than the network
  alone.
- **`own`** (default: the network): who plays the searching seat in the playouts after the
  candidate, an agent name or a model file (`own=ppo_ei`; a network plays its worlds in one forward
  pass a step). The seat's later moves in the game are the search's, not the network's alone, and
  `ppo_ei`, the network taught by the search (`train.expert_iteration`), plays more like them; with
  it the search won less head to head against `ppo` (docs/search.md), so the default stays.
- **An anytime search.** The worlds are played in batches (`batch` worlds, then twice as many each
  time), each batch to its end, until `worlds` are played or the next batch would not end within
  `ms` at the last one's pace. Only whole batches are scored: a batch the deadline interrupts is
  dropped (its unfinished playouts are not guessed at, and which worlds count never depends on how
  long they take), and with no whole batch the network's move is played. From 16 worlds on, a
  candidate worse than the network's move by `z` standard errors is played no more. With
  `cut="score"` (what `skyjo review` uses, in one batch) the interrupted batch is scored where it
  stands instead: the table's points, each face-down card at the mean unseen card.
- **`confident`** (default 0.99; `confident=off` searches every decision): a decision where the
  network gives its move at least this probability (over the legal moves) is played without a
  search, so the time goes to the decisions the network is unsure of, about a third of them. So the
  default `ms` (170) bounds a searched move, and a move takes a mean of 31 to 49 ms against experts
  at 2, 4 and 8 players, a median under a millisecond (docs/search.md).
- **`also`** (default off; `also=expert`): at a searched decision, another agent's move (an agent name
  or a model file) is searched too, unless it is the same move as a candidate up to the grid's
  symmetries: a move the network thinks unlikely gets looked at. Measured, not a default
  (docs/search.md).
- **`symmetry`** (default off; `symmetry=on`): rearranging a grid's columns, or a column's cards, gives
  the same position (`skyjo_env.engine.symmetry`), so two moves with the same `move_key` are the same
  move on two arrangements of the grid (turning up either of two face-down cards in like columns). With
  `symmetry=on` the candidates are the network's likeliest move of each such class, so `top=2` compares
  two moves that differ, and a decision is sure when the network gives its move and the moves
  equivalent to it together at least `confident`.
- **`endgame`** (default off; `endgame=K`): once some grid has at most K face-down cards, or the
  round's last lap has begun, a decision is searched however sure the network is (`confident`
  then gates only the earlier decisions).
- **`endtop`** (default off; `endtop=all` or `endtop=N`): the candidates at a decision near the round's
  end (some grid with at most `endgame` face-down cards, 1 with `endgame` off, or the last lap begun):
  every legal move, or the network's N likeliest, instead of `top`. There a move's stakes are high
  (the ender's doubling, the last cards) and the playouts short (docs/search.md).
- **`leaf="win"` or `"margin"`, `depth=0`: exact one-ply expectation.** A move turns up at most
  one unseen card (the draw pile's top, or the face-down card turned or exchanged), whose value
  follows the unseen counts exactly; the search scores every value the card can have, weighted
  by its count, with the network's value head (`value.*` layers of a policy file of format
  version 2) read from the seat's own view of the position after the move. No sampling noise.
- **`leaf="win"` or `"margin"`, `depth=D`**: the sampled worlds as above, the network playing
  `D` decisions, then the value head.

With `leaf="win"` a position where the game ends is scored by its result (a share of the win);
with `leaf="margin"` a move that ends the round, by the round's points. `ms` bounds a move's time.
Setup reveals and forced moves are the network's.

Options, also in an agent name: `ppo+search:depth=2,worlds=32,ms=200` (`SearchBot.OPTION_TYPES`).
`model` is the network searched with: a policy file, or a shipped network by name (`model=ppo_ei`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.base import OptionTypes, Policy, check_plays, is_shared_policy
from agents.model_file import MARGIN_SCALE, PolicyNetwork, round_margin
from agents.opponent_model import OpponentLibrary, make_agent
from agents.ppo_bot import SHIPPED_MODEL_ALL, load_network
from agents.win_chance import RoundScores, chance_of_winning
from skyjo_env.engine import DRAW, NUM_SLOTS, REVEAL_FIRST, TAKE_DISCARD, apply_action, legal_actions
from skyjo_env.engine.cards import CARD_VALUES
from skyjo_env.engine.codes import HIDDEN, REMOVED, Phase
from skyjo_env.engine.state import GameState
from skyjo_env.engine.symmetry import move_key
from skyjo_env.engine.view import SeatView, seat_view
from skyjo_env.engine.worlds import sample_world, unseen_counts
from skyjo_env.observation import StateEncoding, encode, encoder

__all__ = ["LEAVES", "SearchBot", "SearchResult", "legal_chances"]

LEAVES = ("win", "margin", "round")
DRAWS = ("pile", "seat")  # in a playout, the seats draw the pile in its order, or each from a run of its own
CUTS = ("drop", "score")  # a batch the deadline interrupts: dropped, or scored where it stands
OBJECTIVES = ("margin", "win")  # a round playout scored by the round's points, or by the chance of winning the game
DEFAULT_OPPONENTS = "network|expert|greedy"  # the opponent models the other seats are matched to
FUTURES = 128  # objective="win": the futures of whole rounds a decision's chances of winning are read from
_SETUP = int(Phase.SETUP_REVEAL)
_GAME_OVER = int(Phase.GAME_OVER)
_DROP_AFTER = 16  # worlds played before a clearly worse candidate may be dropped


def _top(text: str) -> int | None:
    """int or all"""
    return None if text == "all" else int(text)


def _width(text: str) -> int | str | None:
    """a number of moves, all or off"""
    return None if text == "off" else "all" if text == "all" else int(text)


def _probability(text: str) -> float | None:
    """a probability or off"""
    return None if text == "off" else float(text)


def _count(text: str) -> int | None:
    """a number of face-down cards or off"""
    return None if text == "off" else int(text)


def _switch(text: str) -> bool:
    """on or off"""
    if text not in ("on", "off"):
        raise ValueError(text)
    return text == "on"


@dataclass
class SearchResult:
    """What one search found: each candidate's estimated value (win share, or round points), its
    standard error against the network's move (0 when exact), and the move chosen."""

    candidates: list[int]
    values: list[float]
    errors: list[float]
    network_move: int
    chosen: int
    leaves: int
    seconds: float
    depth_reached: int = 0
    extra: dict = field(default_factory=dict)


class SearchBot:
    """The network plus a search at play time (module doc). Plays 2 to 8 players, as its network."""

    name = "ppo+search"
    #: The options an agent name may give (`ppo+search:depth=2,worlds=32`), each with its reader.
    OPTION_TYPES: OptionTypes = {
        "depth": int,
        "worlds": int,
        "ms": float,
        "margin": float,
        "top": _top,
        "leaf": str,
        "z": float,
        "model": str,
        "draws": str,
        "batch": int,
        "cut": str,
        "objective": str,
        "opponents": str,
        "confident": _probability,
        "symmetry": _switch,
        "endgame": _count,
        "endtop": _width,
        "own": str,
        "also": str,
    }

    def __init__(
        self,
        model: str | Path | PolicyNetwork | None = None,
        *,
        depth: int = 0,
        worlds: int = 128,
        ms: float = 170.0,
        margin: float = 0.0,
        top: int | None = 2,
        leaf: str = "round",
        z: float = 1.0,
        seed: int | None = None,
        draws: str = "seat",
        batch: int = 8,
        cut: str = "drop",
        objective: str = "margin",
        opponents: str | Policy = DEFAULT_OPPONENTS,
        confident: float | None = 0.99,
        symmetry: bool = False,
        endgame: int | None = None,
        endtop: int | str | None = None,
        own: str | Policy | None = None,
        also: str | Policy | None = None,
    ) -> None:
        if leaf not in LEAVES:
            raise ValueError(f"leaf must be one of {', '.join(LEAVES)}, got {leaf!r}")
        if draws not in DRAWS:
            raise ValueError(f"draws must be one of {', '.join(DRAWS)}, got {draws!r}")
        if cut not in CUTS:
            raise ValueError(f"cut must be one of {', '.join(CUTS)}, got {cut!r}")
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
        if objective == "win" and leaf != "round":
            raise ValueError(f"objective='win' scores round playouts (leaf='round'); leaf={leaf!r} has its own scores")
        if confident is not None and not 0.0 < confident <= 1.0:
            raise ValueError(f"confident must be a probability in (0, 1], got {confident}")
        if endgame is not None and endgame < 0:
            raise ValueError(f"endgame must be a number of face-down cards (>= 0) or off, got {endgame}")
        if endtop is not None and endtop != "all" and (isinstance(endtop, str) or endtop < 1):
            raise ValueError(f"endtop must be a number of moves (>= 1), all or off, got {endtop!r}")
        if depth < 0 or worlds < 1 or batch < 1 or ms <= 0 or margin < 0 or z < 0 or (top is not None and top < 1):
            raise ValueError(
                f"bad search budget: depth {depth} (>= 0), worlds {worlds} (>= 1), batch {batch} (>= 1), "
                f"ms {ms} (> 0), margin {margin} (>= 0), z {z} (>= 0), top {top} (>= 1 or none)"
            )
        self.network = model if isinstance(model, PolicyNetwork) else load_network(model or SHIPPED_MODEL_ALL)
        if self.network.canonical:
            raise ValueError(
                "this network reads the grids in their canonical order (grids: canonical); the search's playouts "
                "encode the grids as they are, so it searches only with networks that read them so"
            )
        if leaf != "round" and not self.network.has_value:
            raise ValueError(
                f"leaf={leaf!r} scores with a value head, and this policy file has none "
                "(format version 1): use leaf=round, or a file with a value head (python -m train.value)"
            )
        self.depth, self.worlds, self.ms, self.margin, self.top, self.leaf, self.z = (
            depth,
            worlds,
            ms,
            margin,
            top,
            leaf,
            z,
        )
        self.draws, self.batch, self.cut, self.objective = draws, batch, cut, objective
        self.confident, self.symmetry, self.endgame, self.endtop = confident, symmetry, endgame, endtop
        self._round_scores = _shipped_round_scores() if objective == "win" else None
        self.opponents = OpponentLibrary.parse(opponents)
        # who plays the searching seat in the playouts after the candidate (None: the network)
        self.own = make_agent(own, "own must be an agent name or a model file") if isinstance(own, str) else own
        # whose move is searched too, where it is not the same move as a candidate's (None: nobody's)
        if isinstance(also, str):
            also = None if also == "off" else make_agent(also, "also must be an agent name, a model file or off")
        self.also = also
        self._me: int | None = None  # the seat this bot plays in the current game (known at its first move)
        self.players = self.network.players
        self._encoders: dict[int, StateEncoding] = {}
        self._buffers: dict[int, np.ndarray] = {}
        self.last: SearchResult | None = None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._me = None
        self.opponents.forget()
        self.reseed(seed)

    def reseed(self, seed: int | None = None) -> None:
        """A new random generator, as `reset` makes, without forgetting what this game's moves told of the
        opponents (the browser reseeds its bots before each of their moves and tells them the moves since)."""
        self._rng = np.random.default_rng(seed)
        self.opponents.reseed(seed)
        for bot in (self.own, self.also):
            if bot is not None:
                bot.reset(seed)

    def observe(self, view: SeatView, legal_actions_: Sequence[int], action: int) -> None:
        """Another seat played `action` from `view` (its own view, public information; `SeatedGame` tells
        every bot that has this method of every move). With a library of opponent models, each member
        that would have played it gets a point for that seat (`agents.opponent_model`); the setup's
        reveals, forced moves and this bot's own moves are not counted."""
        legal = list(legal_actions_)
        if not self.opponents.infers or view.seat == self._me or len(legal) < 2 or view.phase == _SETUP:
            return
        self.opponents.observe(view, legal, action, lambda: self._network_order(view, legal)[0])

    # ---------------------------------------------------------------- the move

    def act(self, view: SeatView, legal_actions_: Sequence[int]) -> int:
        self.last = None
        self._me = view.seat
        legal = list(legal_actions_)
        # no choice, or no model of some seat (the search stands aside); else, with `confident`, the network sure
        aside = len(legal) == 1 or view.phase == _SETUP or bool(self.opponents.unfit(view.seat))
        logits = self._logits(view) if aside or self.confident is not None else None  # one forward pass
        if aside or (self._sure(view, logits, legal) and not self._late(view)):
            network_move, _ = self._network_order(view, legal, logits)
            self._rng.integers(2**63)  # one draw a move, searched or not
            return network_move
        result = self.evaluate(view, legal, also=self._also_move(view, legal))
        if len(result.candidates) > 1:
            self.last = result
        return result.chosen

    def evaluate(
        self, view: SeatView, legal_actions_: Sequence[int], include: Sequence[int] = (), also: Sequence[int] = ()
    ) -> SearchResult:
        """The search of one decision: the network's `top` moves and every move of `include` (legal
        moves: a review adds the move that was played), each estimated from the same worlds, and each
        move of `also` that is not the same move as a candidate up to the grid's symmetries (`move_key`:
        the `also` agent's move). With
        playouts, `extra["worlds"]` is the number of worlds played (`extra["batches"]`: each batch's
        size) and `extra["scores"]` each candidate's score in each (candidates x worlds; NaN after
        a candidate is dropped)."""
        start = time.perf_counter()
        legal = list(legal_actions_)
        network_move, order = self._network_order(view, legal)
        world_rng = np.random.default_rng(self._rng.integers(2**63))
        if self.symmetry:  # one move of each class of equivalent moves, the most likely
            order = _distinct(view, order)
        width = self.top
        if self.endtop is not None and self._near_end(view, 1 if self.endgame is None else self.endgame):
            width = None if self.endtop == "all" else int(self.endtop)
        candidates = order if width is None else order[:width]
        for action in [network_move, *include]:
            if action not in legal:
                raise ValueError(f"{action} is not a legal move here (legal: {legal})")
            if action not in candidates:
                candidates = [*candidates, action]
        for action in also:
            if action not in legal:
                raise ValueError(f"{action} is not a legal move here (legal: {legal})")
            if move_key(view, action) not in {move_key(view, c) for c in candidates}:
                candidates = [*candidates, action]
        if len(candidates) == 1:
            return SearchResult(candidates, [0.0], [0.0], network_move, network_move, 0, time.perf_counter() - start)
        if self.depth == 0 and self.leaf != "round":
            return self._exact(view, candidates, network_move, world_rng, start)
        return self._playouts(view, candidates, network_move, world_rng, start)

    def _also_move(self, view: SeatView, legal: list[int]) -> list[int]:
        """The `also` agent's move here (none without one)."""
        if self.also is None:
            return []
        check_plays(self.also, view.rules.num_players, f"also={getattr(self.also, 'name', type(self.also).__name__)}")
        return [self.also.act(view, legal)]

    def _network_order(
        self, view: SeatView, legal: list[int], logits: np.ndarray | None = None
    ) -> tuple[int, list[int]]:
        """The network's move and the legal moves from the most likely down (`logits`: the view's, if known)."""
        if logits is None:
            logits = self._logits(view)
        order = sorted(legal, key=lambda a: -logits[a])
        return order[0], order

    def _logits(self, view: SeatView) -> np.ndarray:
        n = view.rules.num_players
        check_plays(self, n, self.name)
        return self.network.logits(encode(view, self._coder(n))[None, :])[0]

    def _sure(self, view: SeatView, logits: np.ndarray | None, legal: list[int]) -> bool:
        """With `confident`: whether the network (its `logits`) gives its move at least that probability
        (over the legal moves; with `symmetry`, its move and the moves equivalent to it together), so
        that the move is played without a search."""
        if self.confident is None or logits is None:
            return False
        chances = legal_chances(logits, legal)
        best = int(np.argmax(chances))
        if chances[best] >= self.confident:
            return True
        if not self.symmetry:
            return False
        key = move_key(view, legal[best])
        return bool(sum(p for action, p in zip(legal, chances) if move_key(view, action) == key) >= self.confident)

    def _late(self, view: SeatView) -> bool:
        """With `endgame=K`: whether the round is near its end, some grid with at most K face-down cards
        or the last lap begun, where a decision is searched however sure the network is."""
        return self.endgame is not None and self._near_end(view, self.endgame)

    @staticmethod
    def _near_end(view: SeatView, fewest: int) -> bool:
        """Whether some grid has at most `fewest` face-down cards, or the round's last lap has begun."""
        return (
            view.round_ender is not None
            or min(len(view.hidden_slots(rel)) for rel in range(view.rules.num_players)) <= fewest
        )

    def _choose(self, candidates, values, errors, network_move) -> int:
        base = values[candidates.index(network_move)]
        best = int(np.argmax(values))
        gain = values[best] - base
        if gain > self.margin and gain > self.z * errors[best]:
            return candidates[best]
        return network_move

    # ---------------------------------------------------------------- depth 0: exact expectation

    def _exact(self, view: SeatView, candidates, network_move, rng, start) -> SearchResult:
        world = sample_world(view, rng)
        me = view.seat
        counts = unseen_counts(view)
        total = sum(counts)
        outcomes = [(v, c / total) for v, c in zip(CARD_VALUES, counts) if c] if total else []
        leaves: list[GameState] = []
        weights: list[tuple[int, float]] = []  # (candidate index, probability)
        for index, action in enumerate(candidates):
            position = _turned_up(world, action)
            if position is None or not outcomes:
                leaves.append(apply_action(world.copy(), action))
                weights.append((index, 1.0))
                continue
            for value, p in outcomes:
                leaf = world.copy()
                _force(leaf, position, value)
                leaves.append(apply_action(leaf, action))
                weights.append((index, p))
        scores = self._score(leaves, me)
        values = [0.0] * len(candidates)
        for (index, p), score in zip(weights, scores):
            values[index] += p * score
        errors = [0.0] * len(candidates)
        chosen = self._choose(candidates, values, errors, network_move)
        return SearchResult(candidates, values, errors, network_move, chosen, len(leaves), time.perf_counter() - start)

    # ---------------------------------------------------------------- depth D: sampled worlds and playouts

    def _playouts(self, view: SeatView, candidates, network_move, rng, start) -> SearchResult:
        """Batches of sampled worlds until `worlds` are played or the next batch would not end in
        time; only whole batches count (module doc), and a candidate clearly worse than the
        network's move is dropped from the later batches."""
        me = view.seat
        deadline = start + self.ms / 1000.0
        base = candidates.index(network_move)
        live = list(range(len(candidates)))  # the candidates still played
        batches: list[np.ndarray] = []  # each (candidates, batch size); NaN for a dropped candidate
        played = depth_reached = 0
        size, per_playout = self.batch, 0.0
        futures = None
        if self._round_scores is not None:
            futures = self._round_scores.futures(view.rules.num_players, rng, FUTURES)
        models = {
            seat: bot for seat, bot in self.opponents.models(view.rules.num_players, me).items() if bot is not None
        }
        if self.own is not None:
            check_plays(self.own, view.rules.num_players, f"own={getattr(self.own, 'name', type(self.own).__name__)}")
            models[me] = self.own
        extra = {"opponents": self.opponents.summary(view.rules.num_players, me)} if self.opponents.infers else {}
        while played < self.worlds and len(live) > 1:
            size = min(size, self.worlds - played)
            if batches:  # only a batch that should end in time, at the last batch's pace
                size = min(size, int((deadline - time.perf_counter()) / (per_playout * len(live))))
                if size < 1:
                    break
            began = time.perf_counter()
            out = self._batch(me, view, [candidates[i] for i in live], size, rng, deadline, models, futures)
            if out is None:  # the deadline came first: the batch's playouts are not scored
                break
            scores, depth = out
            per_playout = max(time.perf_counter() - began, 1e-9) / (size * len(live))
            batch = np.full((len(candidates), size), np.nan)
            batch[live] = scores
            batches.append(batch)
            played += size
            depth_reached = max(depth_reached, depth)
            size *= 2
            if played >= _DROP_AFTER:
                table = np.concatenate(batches, axis=1)
                live = [i for i in live if i == base or not self._clearly_worse(table[i] - table[base])]
        if not batches:
            nan = [math.nan] * len(candidates)
            return SearchResult(
                candidates,
                nan,
                nan,
                network_move,
                network_move,
                0,
                time.perf_counter() - start,
                0,
                {"worlds": 0, "batches": [], **extra},
            )
        scores = np.concatenate(batches, axis=1)
        values, errors = [], []
        for row in scores:
            diff = row - scores[base]
            finite = diff[np.isfinite(diff)]
            values.append(float(np.nanmean(row)))
            errors.append(float(finite.std(ddof=1) / math.sqrt(len(finite))) if len(finite) > 1 else 0.0)
        chosen = self._choose(candidates, values, errors, network_move)
        return SearchResult(
            candidates,
            values,
            errors,
            network_move,
            chosen,
            int(np.isfinite(scores).sum()),
            time.perf_counter() - start,
            depth_reached,
            {"scores": scores, "worlds": played, "batches": [b.shape[1] for b in batches], **extra},
        )

    def _clearly_worse(self, diff: np.ndarray) -> bool:
        """A candidate whose paired difference to the network's move is below 0 by `z` standard errors."""
        diff = diff[np.isfinite(diff)]
        return len(diff) > 1 and diff.mean() + self.z * diff.std(ddof=1) / math.sqrt(len(diff)) < 0

    def _batch(
        self,
        me: int,
        view: SeatView,
        candidates: list[int],
        size: int,
        rng,
        deadline: float,
        models: dict[int, Policy],
        futures=None,
    ):
        """`size` sampled worlds, the same for every candidate, each played out after the candidate
        (to the round's end, or `depth` decisions); the scores (candidates x worlds) and the depth
        reached. `models`: the bot each other seat plays (a seat not in it plays the network, batched).
        If the deadline would pass first: None, or with `cut="score"` the playouts scored where they stand."""
        n = view.rules.num_players
        worlds = [sample_world(view, rng) for _ in range(size)]
        runs = [_SeatDraws.deal(w, rng) if self.draws == "seat" else None for w in worlds]
        states, draws = [], []
        for action in candidates:
            for world, run in zip(worlds, runs):
                state, seat_draws = world.copy(), run and run.fresh()
                if seat_draws:
                    seat_draws.before(state, action)
                states.append(apply_action(state, action))
                draws.append(seat_draws)
        limit = self.depth or math.inf
        coder = self._coder(n)
        depth = 0
        step = 0.0  # the last step's duration: a step that would end past the deadline is not started
        while depth < limit:
            moving = [i for i, s in enumerate(states) if not s.is_finished and not s.round_history]
            if not moving:
                break
            began = time.perf_counter()
            if began + step > deadline:
                if self.cut == "drop":
                    return None
                break  # cut="score": scored where it stands
            chosen: dict[int, int] = {}
            if models:  # the other seats play their opponent models, from their own views
                batched: dict[int, tuple[Policy, list[int]]] = {}  # a network member: one forward pass a step
                for i in moving:
                    state = states[i]
                    model = models.get(state.current_player)
                    if model is None:
                        continue
                    if is_shared_policy(model):
                        batched.setdefault(id(model), (model, []))[1].append(i)
                    else:
                        chosen[i] = model.act(seat_view(state, state.current_player), legal_actions(state))
                for model, rows in batched.values():
                    moves = model.act_batch(  # type: ignore[attr-defined]
                        [seat_view(states[i], states[i].current_player) for i in rows],
                        [legal_actions(states[i]) for i in rows],
                    )
                    chosen.update(zip(rows, moves))
            asked = [i for i in moving if i not in chosen]
            if asked:
                buffer = self._buffer(n, len(asked))
                coder.encode_states([states[i] for i in asked], [states[i].current_player for i in asked], buffer)
                logits = self.network.fast_logits(buffer[: len(asked)])
                for i, row in zip(asked, logits):
                    legal = legal_actions(states[i])
                    chosen[i] = legal[int(np.argmax(row[legal]))]
            for i in moving:
                state, seat_draws, action = states[i], draws[i], chosen[i]
                if seat_draws:
                    seat_draws.before(state, action)
                apply_action(state, action)
            depth += 1
            step = time.perf_counter() - began
        scores = self._win_scores(states, me, futures) if futures is not None else self._score(states, me)
        return np.asarray(scores).reshape(len(candidates), size), depth

    # ---------------------------------------------------------------- leaves

    def _score(self, leaves: Sequence[GameState], me: int) -> list[float]:
        """Each leaf's value for seat `me`: a win share, or (`margin`, `round`) round points."""
        scores: list[float | None] = [None] * len(leaves)
        ask: list[int] = []
        for i, leaf in enumerate(leaves):
            if leaf.is_finished and not leaf.is_truncated and self.leaf == "win":
                winners = leaf.winners
                scores[i] = 1.0 / len(winners) if me in winners else 0.0
                continue
            if self.leaf != "win" and leaf.round_history:
                scores[i] = round_margin(leaf.round_history[-1], me)
                continue
            if self.leaf == "round":
                scores[i] = _estimated_margin(leaf, me)
                continue
            ask.append(i)
        if ask:
            n = leaves[0].num_players
            buffer = self._buffer(n, len(ask))
            self._coder(n).encode_states([leaves[i] for i in ask], [me] * len(ask), buffer)
            out = self.network.values(buffer[: len(ask)])
            column = self.network.value_outputs.index("win_logit" if self.leaf == "win" else "round_margin")
            raw = out[:, column]
            values = 1.0 / (1.0 + np.exp(-raw)) if self.leaf == "win" else raw * MARGIN_SCALE
            for i, v in zip(ask, values):
                scores[i] = float(v)
        filled = [s for s in scores if s is not None]
        if len(filled) != len(scores):
            raise RuntimeError("a leaf was left without a score")
        return filled

    def _win_scores(self, leaves: Sequence[GameState], me: int, futures: np.ndarray) -> list[float]:
        """`objective="win"`: each playout's share of the game's win for seat `me`: its result where
        the game ended, else the chance of winning from the totals after the round (a round cut short:
        the table's points as `_estimated_scores` counts them added to the totals)."""
        target = leaves[0].rules.target_score
        scores = [0.0] * len(leaves)
        ask: list[int] = []
        rows: list[list[float]] = []
        for i, leaf in enumerate(leaves):
            if leaf.phase == _GAME_OVER:
                winners = leaf.winners
            elif leaf.round_history:
                rows.append([float(t) for t in leaf.totals])
                ask.append(i)
                continue
            else:
                totals = [t + s for t, s in zip(leaf.totals, _estimated_scores(leaf))]
                if max(totals) < target:
                    rows.append(totals)
                    ask.append(i)
                    continue
                best = min(totals)
                winners = [seat for seat, t in enumerate(totals) if t == best]
            scores[i] = 1.0 / len(winners) if me in winners else 0.0
        if ask:
            for i, chance in zip(ask, chance_of_winning(np.asarray(rows, dtype=np.float64), me, futures, target)):
                scores[i] = float(chance)
        return scores

    # ---------------------------------------------------------------- helpers

    def _coder(self, n: int) -> StateEncoding:
        coder = self._encoders.get(n)
        if coder is None:
            coder = self._encoders[n] = encoder(self.network.observation, n)
        return coder

    def _buffer(self, n: int, rows: int) -> np.ndarray:
        buffer = self._buffers.get(n)
        if buffer is None or len(buffer) < rows:
            buffer = self._buffers[n] = np.empty((max(rows, 64), self.network.observation_size), dtype=np.float32)
        return buffer


class _SeatDraws:
    """A world's draw pile dealt into one run per seat: before a seat draws, the next card of its
    own run is put on top of the pile (exchanged with the top card, the pile holds the same cards).

    The runs are a random deal of the pile, and which run is drawn from never depends on the cards,
    so whatever the order in which the seats draw, each card drawn is a uniform draw from the cards
    still unseen. A seat whose run is used up draws the next card of the longest run left; every
    draw so comes from a run, and the pile holds exactly the cards the runs have left (after a
    reshuffle of the discard pile, the runs are all used up and the pile is drawn as it is)."""

    __slots__ = ("runs", "taken")

    def __init__(self, runs: list[list[int]]) -> None:
        self.runs = runs  # shared by the candidates' playouts of one world
        self.taken = [0] * len(runs)

    @classmethod
    def deal(cls, world: GameState, rng: np.random.Generator) -> _SeatDraws:
        n = world.num_players
        dealt = rng.permutation(np.asarray(world.draw_pile, dtype=np.int64)).tolist()
        return cls([dealt[seat::n] for seat in range(n)])

    def fresh(self) -> _SeatDraws:
        """The same runs, none of them drawn from (one candidate's playout)."""
        return _SeatDraws(self.runs)

    def before(self, state: GameState, action: int) -> None:
        """Before `action` is applied to `state`: if it draws, put the drawing seat's card on top."""
        if action != DRAW or not state.draw_pile:
            return
        seat = state.current_player
        if self.taken[seat] >= len(self.runs[seat]):
            seat = max(range(len(self.runs)), key=lambda s: len(self.runs[s]) - self.taken[s])
            if self.taken[seat] >= len(self.runs[seat]):
                return
        card = self.runs[seat][self.taken[seat]]
        self.taken[seat] += 1
        pile = state.draw_pile
        for i in range(len(pile) - 1, -1, -1):
            if pile[i] == card:
                pile[i], pile[-1] = pile[-1], pile[i]
                return
        raise RuntimeError(f"card {card} of a seat's run is not in the draw pile")


def legal_chances(logits: np.ndarray, legal: Sequence[int]) -> np.ndarray:
    """The network's probability of each legal move (its logits' softmax over `legal`, in that order)."""
    legal_logits = logits[list(legal)]
    weights = np.exp(legal_logits - legal_logits.max())
    return weights / weights.sum()


def _distinct(view: SeatView, moves: Sequence[int]) -> list[int]:
    """`moves` less each move equivalent to an earlier one up to the grid's symmetries (`move_key`)."""
    seen: set = set()
    distinct = []
    for action in moves:
        key = move_key(view, action)
        if key not in seen:
            seen.add(key)
            distinct.append(action)
    return distinct


def _turned_up(state: GameState, action: int) -> tuple | None:
    """Where the unseen card that `action` turns up lies: ("draw",) for the draw pile's top,
    ("slot", seat, slot) for a face-down slot; None if the move turns up no unseen card."""
    seat = state.current_player
    if action == DRAW:
        return ("draw",) if state.draw_pile else None  # an empty pile is reshuffled from seen cards
    if action == TAKE_DISCARD:
        return None
    slot = action if action < NUM_SLOTS else action - REVEAL_FIRST
    return ("slot", seat, slot) if state.status[seat][slot] == HIDDEN else None


def _force(state: GameState, position: tuple, value: int) -> None:
    """Make the unseen card at `position` a `value`, exchanging it with an unseen card of that value
    (the unseen cards are exchangeable, so the world stays a uniform deal given that card)."""
    places = [("draw", i) for i in range(len(state.draw_pile))] + [
        ("slot", p, s) for p in range(state.num_players) for s in range(NUM_SLOTS) if state.status[p][s] == HIDDEN
    ]
    target = ("draw", len(state.draw_pile) - 1) if position == ("draw",) else position
    if _get(state, target) == value:
        return
    for place in places:
        if place != target and _get(state, place) == value:
            other = _get(state, target)
            _set(state, target, value)
            _set(state, place, other)
            return
    raise ValueError(f"no unseen card of value {value} to place at {position}")


def _get(state: GameState, place: tuple) -> int:
    return state.draw_pile[place[1]] if place[0] == "draw" else state.values[place[1]][place[2]]


def _set(state: GameState, place: tuple, value: int) -> None:
    if place[0] == "draw":
        state.draw_pile[place[1]] = value
    else:
        state.values[place[1]][place[2]] = value


def _estimated_margin(state: GameState, me: int) -> float:
    """`round_margin` of the round as it stands (`_estimated_scores`): a playout cut short by the time
    budget or `depth`."""
    return round_margin(_estimated_scores(state), me)


def _estimated_scores(state: GameState) -> list[float]:
    """Each seat's points as the round stands, each face-down card counted at the mean unseen card
    (no doubling)."""
    hidden = [
        state.values[p][s] for p in range(state.num_players) for s in range(NUM_SLOTS) if state.status[p][s] == HIDDEN
    ]
    pool = hidden + list(state.draw_pile)
    mean = float(np.mean(pool)) if pool else 0.0
    grids = []
    for p in range(state.num_players):
        grids.append(
            sum(
                (mean if state.status[p][s] == HIDDEN else state.values[p][s])
                for s in range(NUM_SLOTS)
                if state.status[p][s] != REMOVED
            )
        )
    return grids


_ROUND_SCORES: list[RoundScores] = []


def _shipped_round_scores() -> RoundScores:
    """The shipped round scores (`agents.win_chance`), read once per process."""
    if not _ROUND_SCORES:
        _ROUND_SCORES.append(RoundScores.load())
    return _ROUND_SCORES[0]
