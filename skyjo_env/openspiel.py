"""Skyjo as an OpenSpiel game: `import skyjo_env.openspiel` registers `python_skyjo` with `pyspiel`.

>>> import pyspiel
>>> import skyjo_env.openspiel  # registers the game
>>> game = pyspiel.load_game("python_skyjo", {"players": 4})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())  # the first discard card: one of 15 values
(True, 15)

**The model.** Nobody in Skyjo knows a face-down card, not even its owner, and a drawn card is
shown, so the game is one of perfect information with explicit chance: every card is a chance
outcome at the moment it is seen (the first discard of a round, a card drawn, a face-down card
turned or exchanged, the cards turned at the round's end), with the probabilities of the unseen
cards' counts (the deck minus everything face-up, in the discard pile or in hand; a reshuffled
discard pile is unseen again). Until then an unseen card has no value in the game. The rule
options' other random events are chance nodes too: the pair of cards turned at random in the
setup (`initial_reveal="random"`: 66 equally likely pairs a seat) and the first round's
tie-break for the starter (`start_tie_break="random"`: each tied seat equally likely).

**One source of the rules.** A state wraps a `skyjo_env.engine` `GameState` and plays every move
with the engine's `apply_action`; the engine's random calls (`permutation`, `choice`, `integers` of
its generator) are answered from the chance outcomes (`_Script`). The unseen cards sit in the
engine's state in an arbitrary order; when a chance outcome says which value is seen, that card
is exchanged with an unseen card of that value, so the engine always holds a deal the history
allows, and a state is a function of its history.

**Actions.** Players: the engine's 26 actions (RULES.md). Chance: a card value's index 0-14
(value -2 to 12), a setup pair's index 0-65 (`itertools.combinations(range(12), 2)` order), or a
tied seat's index among the tied seats.

**Parameters** (`pyspiel.load_game("python_skyjo", {...})`): `players` (2-8) and every other
`Rules` field under its own name (`max_turns_per_round` 0 for none), `single_round` (the game ends
with the first round, scored by it) and `returns`:

- `"win"` (default): a zero-sum share of the win: +1 for the sole winner and -1/(N-1) for the
  others; winners who tie split the +1 (a 2-player tie is 0 each).
- `"score"`: points, zero-sum: the mean of the others' totals (round scores with `single_round`)
  minus one's own.

A game that hits `max_turns_per_round` is truncated: it is terminal and every return is 0.

**Observations.** `observation_tensor(player)` is the player's observation vector of
`skyjo_env.observation` (the same pieces, the player first); `information_state_tensor` is the
same vector, which holds everything a seat can know that matters for the rest of the game (the
game is perfect-information and Markov in it). `information_state_string` is the history (perfect
recall); `observation_string` the table as `skyjo play` draws it. Before the first deal of a
random-reveal game the tensors are zero.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - the openspiel extra is missing
    raise ImportError(
        "skyjo_env.openspiel needs OpenSpiel: pip install 'skyjo-rl[openspiel]' (open_spiel from PyPI)"
    ) from error

from skyjo_env.engine import (
    DRAW,
    NUM_ACTIONS,
    NUM_SLOTS,
    TAKE_DISCARD,
    Rules,
    action_to_string,
    apply_action,
    legal_actions,
)
from skyjo_env.engine.actions import slot_name
from skyjo_env.engine.cards import CARD_VALUES, MAX_VALUE, MIN_VALUE
from skyjo_env.engine.codes import FACE_UP, HIDDEN, Phase
from skyjo_env.engine.render import render
from skyjo_env.engine.rules import _start_play, new_game
from skyjo_env.engine.state import GameState
from skyjo_env.engine.view import SeatView, seat_view
from skyjo_env.observation import encode_state
from skyjo_env.observation.spec import layout, views

__all__ = [
    "PAIRS",
    "RETURNS",
    "SHORT_NAME",
    "ChanceNode",
    "SkyjoGame",
    "SkyjoObserver",
    "SkyjoState",
    "parameters_of",
    "rules_of",
]

SHORT_NAME = "python_skyjo"
RETURNS = ("win", "score")
PAIRS: tuple[tuple[int, int], ...] = tuple(itertools.combinations(range(NUM_SLOTS), 2))  # 66 setup pairs
_DEAL = -1  # the pending step of a new game: its first deal
_CHOOSE = int(Phase.CHOOSE_SOURCE)
_OVER = int(Phase.GAME_OVER)
_ROUNDS_BOUND = 40  # for max_game_length: `ppo` and `expert` finish a game of the default target in 3 to 6 rounds
_IDLE_RNG = np.random.Generator(np.random.PCG64(0))  # the engine's generator between calls: never drawn from


def parameters_of(rules: Rules) -> dict[str, Any]:
    """The game parameters of `rules` (the inverse of `rules_of`)."""
    params: dict[str, Any] = {}
    for name in Rules.field_names():
        value = getattr(rules, name)
        if name == "max_turns_per_round" and value is None:
            value = 0
        params["players" if name == "num_players" else name] = value
    return params


_PARAMETERS = {**parameters_of(Rules()), "single_round": False, "returns": "win"}  # and their defaults

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Skyjo",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=8,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMETERS,
)


def rules_of(params: dict[str, Any]) -> Rules:
    """The engine's `Rules` for OpenSpiel game parameters (missing ones take their defaults);
    ValueError naming a bad one."""
    values = {**_PARAMETERS, **params}
    unknown = sorted(set(values) - set(_PARAMETERS))
    if unknown:
        raise ValueError(f"unknown Skyjo parameter(s) {unknown}; known: {sorted(_PARAMETERS)}")
    if values["returns"] not in RETURNS:
        raise ValueError(f"returns must be one of {RETURNS}, got {values['returns']!r}")
    limit = values["max_turns_per_round"]
    return Rules(
        num_players=values["players"],
        initial_reveal=values["initial_reveal"],
        start_tie_break=values["start_tie_break"],
        clear_on_final_reveal=values["clear_on_final_reveal"],
        reshuffle=values["reshuffle"],
        target_score=values["target_score"],
        max_turns_per_round=None if limit == 0 else limit,
    )


class SkyjoGame(pyspiel.Game):
    """Skyjo for OpenSpiel; parameters as in the module docstring."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.rules = rules_of(params)
        self.single_round = bool(params.get("single_round", False))
        self.returns_kind = str(params.get("returns", "win"))
        n = self.rules.num_players
        if self.returns_kind == "win":
            low, high = -1.0 / (n - 1), 1.0
        else:  # a round scores -17..284; a game's totals stay below target + 284, above -17 a round
            rounds = 1 if self.single_round else _ROUNDS_BOUND
            high = float(284 + 17 * rounds + (0 if self.single_round else self.rules.target_score))
            low = -high
        super().__init__(
            _GAME_TYPE,
            pyspiel.GameInfo(
                num_distinct_actions=NUM_ACTIONS,
                max_chance_outcomes=len(PAIRS),
                num_players=n,
                min_utility=low,
                max_utility=high,
                utility_sum=0.0,
                max_game_length=_max_game_length(self.rules, 1 if self.single_round else _ROUNDS_BOUND),
            ),
            params,
        )

    def new_initial_state(self) -> SkyjoState:
        return SkyjoState(self)

    def state_from_engine(self, engine: GameState) -> SkyjoState:
        """A state that continues from an engine state (its unseen cards are taken as unseen: their
        order there is no information); its history starts empty here. For a search from a seat's
        view, pass `skyjo_env.engine.sample_world(view, rng)`."""
        if engine.rules != self.rules:
            raise ValueError(f"the state's rules {engine.rules} are not this game's {self.rules}")
        state = SkyjoState(self, engine=engine.copy())
        state._engine.rng = _IDLE_RNG  # type: ignore[union-attr]
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> SkyjoObserver:
        if params:
            raise ValueError(f"the Skyjo observer takes no parameters, got {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return SkyjoObserver(self.rules.num_players, perfect_recall)


def _max_game_length(rules: Rules, rounds: int) -> int:
    """Decisions and chance nodes of `rounds` rounds at most: a turn is 2 decisions and at most 3
    cards seen; the setup 2 reveals a seat, each a decision and a card, or a pair and 2 cards; the
    round's end up to 12 cards a seat; a deal 1 card, and in round 1 a tie-break."""
    n = rules.num_players
    turns = (rules.max_turns_per_round or 1000) * n  # no turn limit: rounds are unbounded, 1000 turns a seat is a guess
    per_round = 5 * turns + 4 * n + 12 * n + 2
    return rounds * per_round + 1


class _NeedChance(Exception):
    """The engine asked its generator for more than the chance outcomes so far answer."""

    def __init__(self, node: ChanceNode) -> None:
        super().__init__(node.kind)
        self.node = node


@dataclass(frozen=True)
class ChanceNode:
    """A chance node: a `"card"` seen at `target`, a `seat`'s setup `"pair"`, or the `"tie"` between
    `count` seats. `target` is ("slot", seat, slot), ("draw", index), ("held",) or ("top",) (the
    discard pile's), in the engine state the chance node is in."""

    kind: str  # "card", "pair" or "tie"
    target: tuple = ()
    count: int = 0
    seat: int = -1


class _Script:
    """The engine's generator during one engine call, answering from chance outcomes.

    `permutation` keeps the order (the order of unseen cards is no information: each card becomes a
    chance outcome when it is seen); `choice` (a setup pair) and `integers` (a tie-break) take the
    next of `answers`, and raise `_NeedChance` past them. `lenient` answers them with 0 instead (a
    dry run that only asks whether the round ends; a tie-break `provisional_ties` leaves to later).
    """

    def __init__(self, answers: list[int], *, lenient: bool = False, provisional_ties: bool = False) -> None:
        self.answers = answers
        self.used = 0
        self.lenient = lenient
        self.provisional_ties = provisional_ties
        self.pairs = 0  # setup pairs asked so far: the seat of the next one

    def permutation(self, x: Any) -> np.ndarray:
        return np.asarray(x)

    def _next(self, node: ChanceNode) -> int:
        if self.lenient:
            return 0
        if self.used == len(self.answers):
            raise _NeedChance(node)
        self.used += 1
        return self.answers[self.used - 1]

    def choice(self, a: int, size: int | None = None, replace: bool = True) -> np.ndarray:
        if (a, size, replace) != (NUM_SLOTS, 2, False):
            raise RuntimeError(f"the engine asked for an unexpected choice({a}, {size}, {replace})")
        seat = self.pairs
        self.pairs += 1
        return np.asarray(PAIRS[self._next(ChanceNode("pair", seat=seat))])

    def integers(self, count: int) -> int:
        if self.provisional_ties:
            return 0
        return self._next(ChanceNode("tie", count=count))


# ------------------------------------------------------------------ positions of cards
def _get(engine: GameState, place: tuple) -> int:
    kind = place[0]
    if kind == "slot":
        return engine.values[place[1]][place[2]]
    if kind == "draw":
        return engine.draw_pile[place[1]]
    if kind == "held":
        return engine.held_card  # type: ignore[return-value]
    return engine.discard_pile[-1]


def _set(engine: GameState, place: tuple, value: int) -> None:
    kind = place[0]
    if kind == "slot":
        engine.values[place[1]][place[2]] = value
    elif kind == "draw":
        engine.draw_pile[place[1]] = value
    elif kind == "held":
        engine.held_card = value
    else:
        engine.discard_pile[-1] = value


def _unseen(engine: GameState) -> list[tuple]:
    """Where the unseen cards are: the face-down slots, seat by seat, then the draw pile."""
    n = engine.rules.num_players
    slots = [("slot", p, s) for p in range(n) for s in range(NUM_SLOTS) if engine.status[p][s] == HIDDEN]
    return slots + [("draw", i) for i in range(len(engine.draw_pile))]


def _face_up(engine: GameState) -> list[tuple]:
    n = engine.rules.num_players
    return [("slot", p, s) for p in range(n) for s in range(NUM_SLOTS) if engine.status[p][s] == FACE_UP]


class SkyjoState(pyspiel.State):
    """A Skyjo position: an engine `GameState`, and the move waiting on chance outcomes if any."""

    def __init__(self, game: SkyjoGame, engine: GameState | None = None) -> None:
        super().__init__(game)
        self._rules = game.rules
        self._single_round = game.single_round
        self._returns_kind = game.returns_kind
        self._engine: GameState | None = engine
        self._step: int | None = None  # the player's move (or _DEAL) waiting on chance
        self._stage = ""
        self._targets: list[tuple] = []  # cards still to be seen in this step, in order
        self._decided: list[tuple] = []  # unseen cards whose value this step has decided (still face-down)
        self._answers: list[int] = []  # setup pairs and tie-breaks of this step
        self._node: ChanceNode | None = None
        self._ends_round = False
        if engine is None:
            self._begin(_DEAL)

    # -------------------------------------------------------------- OpenSpiel API
    def current_player(self) -> int:
        if self._node is not None:
            return int(pyspiel.PlayerId.CHANCE)
        if self._is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        return self._engine.current_player  # type: ignore[union-attr]

    def _legal_actions(self, player: int) -> list[int]:
        engine = self._engine
        if engine is None or self._node is not None or player != engine.current_player or self._is_over():
            return []
        return legal_actions(engine)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        node = self._node
        if node is None:
            raise ValueError("not a chance node")
        if node.kind == "card":
            counts = self._card_counts()
            total = sum(counts)
            return [(i, c / total) for i, c in enumerate(counts) if c]
        count = len(PAIRS) if node.kind == "pair" else node.count
        return [(i, 1.0 / count) for i in range(count)]

    def _apply_action(self, action: int) -> None:
        node = self._node
        if node is None:
            self._begin(int(action))
            return
        if node.kind == "card":
            counts = self._card_counts()
            if not 0 <= action < len(counts) or not counts[action]:
                raise ValueError(f"chance outcome {action} is not a card that can be seen here")
            self._see(CARD_VALUES[action])
        else:
            limit = len(PAIRS) if node.kind == "pair" else node.count
            if not 0 <= action < limit:
                raise ValueError(f"chance outcome {action} is not in 0..{limit - 1}")
            self._answers.append(int(action))
        self._advance()

    def _action_to_string(self, player: int, action: int) -> str:
        if player != pyspiel.PlayerId.CHANCE:
            return action_to_string(action)
        node = self._node
        if node is None or node.kind == "card":
            return f"card {CARD_VALUES[action]}" if 0 <= action <= MAX_VALUE - MIN_VALUE else f"outcome {action}"
        if node.kind == "pair":
            a, b = PAIRS[action]
            return f"player_{node.seat} turns {slot_name(a)} and {slot_name(b)}"
        return f"tie-break outcome {action}"

    def is_terminal(self) -> bool:
        return self._node is None and self._is_over()

    def returns(self) -> list[float]:
        n = self._rules.num_players
        engine = self._engine
        if not self.is_terminal() or engine is None or engine.is_truncated:
            return [0.0] * n
        scores = engine.last_round.scores if self._single_round else engine.totals  # type: ignore[union-attr]
        if self._returns_kind == "score":
            total = sum(scores)
            return [(total - s) / (n - 1) - s for s in scores]
        best = min(scores)
        winners = [p for p, s in enumerate(scores) if s == best]
        return [(n * (1.0 / len(winners) if p in winners else 0.0) - 1.0) / (n - 1) for p in range(n)]

    def __str__(self) -> str:
        if self._engine is None:
            return "dealing the first round"
        text = render(self._engine)
        if self._step is not None and self._step != _DEAL:
            text += f"\nwaiting on chance for: {action_to_string(self._step)}"
        return text

    @property
    def chance_node(self) -> ChanceNode | None:
        """What the chance node decides (None at a decision or at the end)."""
        return self._node

    def view(self, player: int) -> SeatView:
        """What `player` sees (the bots' input), at a decision or a chance node."""
        if self._engine is None:
            raise ValueError("nothing is dealt yet")
        return seat_view(self._engine, player)

    @property
    def engine(self) -> GameState | None:
        """A copy of the engine state (None before a random-reveal game's first deal). Its unseen
        cards are in no meaningful order: a chance outcome decides each when it is seen."""
        return None if self._engine is None else self._engine.copy()

    # -------------------------------------------------------------- the steps
    def _is_over(self) -> bool:
        engine = self._engine
        if engine is None:
            return False
        return engine.phase == _OVER or engine.is_truncated or (self._single_round and engine.last_round is not None)

    def _begin(self, step: int) -> None:
        """A player's move (or the first deal): its chance nodes, then the move itself."""
        self._step, self._answers, self._targets, self._decided, self._ends_round = step, [], [], [], False
        if step != _DEAL:
            engine = self._engine
            if engine is None or step not in legal_actions(engine):
                raise ValueError(f"illegal action {step} here; legal actions: {self.legal_actions()}")
            self._targets = self._seen_by(step)
        self._stage = "before"
        self._advance()

    def _seen_by(self, action: int) -> list[tuple]:
        """The unseen cards that `action` shows before anything is dealt: the one it turns up, and if it
        ends the round every other face-down card."""
        engine = self._engine
        assert engine is not None
        seat = engine.current_player
        first: list[tuple] = []
        if action == DRAW:
            if engine.draw_pile:  # an empty pile is reshuffled first: that card is seen after the move
                first = [("draw", len(engine.draw_pile) - 1)]
        elif action != TAKE_DISCARD:
            slot = action % NUM_SLOTS
            if engine.status[seat][slot] == HIDDEN:
                first = [("slot", seat, slot)]
        if engine.round_ender is not None and action not in (DRAW, TAKE_DISCARD):  # a round ends in a final lap
            trial = engine.copy()
            trial.rng = _Script([], lenient=True)  # type: ignore[assignment]
            apply_action(trial, action)
            self._ends_round = trial.round_just_ended
        if not self._ends_round:
            return first
        return first + [place for place in _unseen(engine) if place[0] == "slot" and place not in first]

    def _advance(self) -> None:
        """Go on with the pending step until it needs a chance outcome, or is done."""
        while True:
            if self._stage in ("before", "after") and self._targets:
                self._node = ChanceNode("card", target=self._targets[0])
                return
            if self._stage == "before":
                node = self._dry_run() if self._may_ask() else None
                if node is not None:
                    self._node = node
                    return
                self._play()
                self._stage = "after"
                continue
            if self._stage == "after" and self._step == _DEAL and self._rules.initial_reveal == "random":
                self._answers, self._stage = [], "start"
            if self._stage == "start":  # round 1 of random reveals: the starter from the cards now seen
                node = self._dry_run()
                if node is not None:
                    self._node = node
                    return
                self._play()
            self._node, self._step, self._stage, self._answers = None, None, "", []
            return

    def _may_ask(self) -> bool:
        """Whether the step's engine call may ask its generator for a setup pair or a tie-break: the
        first deal, a round's end with random reveals, a setup reveal with no starter known yet (the
        first round's, or a sampled world's)."""
        engine = self._engine
        if engine is None or self._step == _DEAL:
            return True
        if self._ends_round:
            return self._rules.initial_reveal == "random" and not self._single_round
        return engine.phase == int(Phase.SETUP_REVEAL) and engine.pending_starter is None

    def _script(self) -> _Script:
        quiet = self._single_round and self._ends_round  # the next round is never played
        return _Script(self._answers, lenient=quiet, provisional_ties=self._step == _DEAL and self._stage == "before")

    def _call(self, engine: GameState | None, script: _Script) -> GameState:
        """The engine call of the step (or of its stage) with `script` as the generator."""
        if self._stage == "start":
            assert engine is not None
            engine.rng = script  # type: ignore[assignment]
            engine.pending_starter = None
            _start_play(engine)
        elif self._step == _DEAL:
            engine = new_game(self._rules, rng=script)  # type: ignore[arg-type]
        else:
            assert engine is not None and self._step is not None
            engine.rng = script  # type: ignore[assignment]
            apply_action(engine, self._step)
        engine.rng = _IDLE_RNG
        return engine

    def _dry_run(self) -> ChanceNode | None:
        """The next chance node the engine call asks for, or None when the outcomes so far answer it."""
        trial = None if self._engine is None else self._engine.copy()
        try:
            self._call(trial, self._script())
        except _NeedChance as need:
            return need.node
        return None

    def _play(self) -> None:
        """Make the engine call, and note the cards it shows that were dealt in it."""
        engine = self._engine
        reshuffles = self._step == DRAW and engine is not None and not engine.draw_pile
        try:
            self._engine = engine = self._call(engine, self._script())
        except _NeedChance as need:  # _may_ask let a step through that asks the generator: a bug here
            raise RuntimeError(
                f"the engine asked for a {need.node.kind} chance outcome that was not expected"
            ) from None
        self._decided = []  # face-up now
        if self._stage == "start":
            return
        if reshuffles:
            self._targets = ([("top",)] if self._rules.reshuffle == "all" else []) + [("held",)]
        elif self._step == _DEAL or (engine.round_just_ended and not self._is_over()):
            self._targets = [("top",), *_face_up(engine)]

    def _candidates(self) -> list[tuple]:
        """Where the card to be seen may come from: itself, the other cards still to be seen, the unseen ones."""
        taken = set(self._targets) | set(self._decided)
        return self._targets + [place for place in _unseen(self._engine) if place not in taken]  # type: ignore[arg-type]

    def _card_counts(self) -> list[int]:
        """How many of each value the card to be seen may be: the values of `_candidates()`."""
        engine = self._engine
        assert engine is not None
        n = engine.rules.num_players
        cards = [v for p in range(n) for v, st in zip(engine.values[p], engine.status[p]) if st == HIDDEN]
        cards += engine.draw_pile
        if self._stage == "after":  # the cards to be seen are face-up placeholders: not among the unseen
            cards += [_get(engine, place) for place in self._targets]
        counts = np.bincount(np.asarray(cards, dtype=np.int64) - MIN_VALUE, minlength=len(CARD_VALUES))
        for place in self._decided:  # decided in this step, still face-down
            counts[_get(engine, place) - MIN_VALUE] -= 1
        return counts.tolist()

    def _see(self, value: int) -> None:
        """The card at the first target is `value`: exchange it with a card of that value among the candidates."""
        engine = self._engine
        assert engine is not None
        places = self._candidates()
        target = places[0]
        if _get(engine, target) != value:
            other = next(place for place in places[1:] if _get(engine, place) == value)
            _set(engine, other, _get(engine, target))
            _set(engine, target, value)
        seen = self._targets.pop(0)
        if self._stage == "before":  # still face-down until the engine call
            self._decided.append(seen)


class SkyjoObserver:
    """OpenSpiel's observer of a Skyjo state: the seat's observation vector, in named pieces."""

    def __init__(self, num_players: int, perfect_recall: bool) -> None:
        self.num_players = num_players
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(layout(num_players).size, dtype=np.float32)
        self.dict = views(self.tensor, num_players)

    def set_from(self, state: SkyjoState, player: int) -> None:
        engine = state._engine
        if engine is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = encode_state(engine, player)

    def string_from(self, state: SkyjoState, player: int) -> str:
        if self.perfect_recall:
            return f"player_{player}: " + " ".join(str(a) for a in state.history())
        return f"player_{player} observes:\n{state}"


pyspiel.register_game(_GAME_TYPE, SkyjoGame)
