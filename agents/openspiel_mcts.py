"""`openspiel-mcts`: OpenSpiel's `MCTSBot` on the game `python_skyjo` (`skyjo_env.openspiel`), as a bot.

An outside baseline: the tree search, its UCT and its chance handling are OpenSpiel's
(`open_spiel.python.algorithms.mcts`), not ours. At each decision the bot turns its `SeatView`
into an OpenSpiel state (`SkyjoGame.state_from_engine` of `sample_world(view)`: every card not yet
seen is a chance outcome there, so the state is exactly what the seat knows, and nothing of the
real face-down cards or draw pile is read) and returns `MCTSBot.step`'s move.

Options (also in an agent name: `openspiel-mcts:simulations=64,evaluator=ppo`):

- `simulations` (default 16, at least 2): MCTS simulations a decision, each one evaluation of a leaf;
- `evaluator`: `random` (default; OpenSpiel's `RandomRolloutEvaluator`: random moves to the end,
  children chosen by UCT) or `ppo` (the shipped network: its move probabilities as the prior of
  OpenSpiel's PUCT selection, AlphaZero's, and its most likely move at every seat in the rollouts);
- `rollouts` (default 1): playouts an evaluation;
- `horizon`: `round` (default: the search plays to the end of the round, returns `score`, the
  round's points relative to the others) or `game` (to the end of the game, returns `win`);
- `uct` (default 10 for `round`, whose returns are points; 2 for `game`): UCT's exploration constant.

A move with one legal action is played without a search. Needs the `openspiel` extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import OptionTypes
from skyjo_env.engine import Rules, sample_world
from skyjo_env.engine.codes import Phase
from skyjo_env.engine.view import SeatView

__all__ = ["HORIZONS", "OpenSpielMCTSBot"]

HORIZONS = ("round", "game")
EVALUATORS = ("random", "ppo")


class OpenSpielMCTSBot:
    """OpenSpiel's MCTS (random rollouts, or the shipped network as evaluator) playing Skyjo."""

    name = "openspiel-mcts"
    #: The options an agent name may give (`openspiel-mcts:simulations=64`), each with its reader.
    OPTION_TYPES: OptionTypes = {"simulations": int, "rollouts": int, "evaluator": str, "horizon": str, "uct": float}

    def __init__(
        self,
        simulations: int = 16,
        evaluator: str = "random",
        rollouts: int = 1,
        horizon: str = "round",
        uct: float | None = None,
        seed: int | None = None,
    ) -> None:
        if not isinstance(simulations, int) or simulations < 2:  # MCTSBot's first one evaluates the root
            raise ValueError(f"simulations must be an int >= 2, got {simulations!r}")
        if not isinstance(rollouts, int) or rollouts < 1:
            raise ValueError(f"rollouts must be an int >= 1, got {rollouts!r}")
        if evaluator not in EVALUATORS:
            raise ValueError(f"evaluator must be one of {', '.join(EVALUATORS)}, got {evaluator!r}")
        if horizon not in HORIZONS:
            raise ValueError(f"horizon must be one of {', '.join(HORIZONS)}, got {horizon!r}")
        if uct is not None and not uct > 0:
            raise ValueError(f"uct must be > 0, got {uct!r}")
        import skyjo_env.openspiel  # noqa: F401  # the openspiel extra: an ImportError that says how to install it

        self.simulations = simulations
        self.evaluator_kind = evaluator
        self.rollouts = rollouts
        self.horizon = horizon
        self.uct = (10.0 if horizon == "round" else 2.0) if uct is None else float(uct)
        self._games: dict[Rules, Any] = {}
        self._policy: Any = None
        if evaluator == "ppo":
            from agents.ppo_bot import SHIPPED_MODEL_ALL, PolicyBot

            self._policy = PolicyBot(SHIPPED_MODEL_ALL)
            self.players = self._policy.players
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        self._enders: dict[int, int | None] = {}  # round -> the ender this bot saw (None: none yet)
        if self._policy is not None:
            self._policy.reset(seed)

    def act(self, view: SeatView, legal_actions: Sequence[int]) -> int:
        legal = list(legal_actions)
        starter = self._starter(view)  # every view counts: it follows the round enders
        if len(legal) == 1:
            return legal[0]
        game = self._game(view.rules)
        state = game.state_from_engine(sample_world(view, self._rng, pending_starter=starter))
        bot = self._bot(game)
        action = int(bot.step(state))
        if action not in legal:
            raise RuntimeError(f"OpenSpiel's MCTS chose {action}, not a legal move {legal}")
        return action

    def _starter(self, view: SeatView) -> int | None:
        """Who starts after a later round's setup: the previous round's ender (a view does not say).
        That is the ender this bot saw in that round's final lap, or itself if it saw none (every other
        seat has a turn after the ender's); None in the first round or after a round it did not follow."""
        round_index = view.round_index
        if view.round_ender is not None:
            self._enders[round_index] = (view.seat + view.round_ender) % view.rules.num_players
        else:
            self._enders.setdefault(round_index, None)
        if view.phase != Phase.SETUP_REVEAL or (round_index - 1) not in self._enders:
            return None
        ender = self._enders[round_index - 1]
        return view.seat if ender is None else ender

    def _game(self, rules: Rules) -> Any:
        game = self._games.get(rules)
        if game is None:
            import pyspiel

            from skyjo_env.openspiel import SHORT_NAME, parameters_of

            params = parameters_of(rules)
            params.update(single_round=self.horizon == "round", returns="score" if self.horizon == "round" else "win")
            game = self._games[rules] = pyspiel.load_game(SHORT_NAME, params)
        return game

    def _bot(self, game: Any) -> Any:
        from open_spiel.python.algorithms import mcts

        seed = int(self._rng.integers(2**31))
        random_state = np.random.RandomState(seed)
        if self._policy is None:
            evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=random_state)
        else:
            evaluator = _PolicyEvaluator(self._policy, self.rollouts, random_state)
        select = mcts.SearchNode.uct_value if self._policy is None else mcts.SearchNode.puct_value
        return mcts.MCTSBot(
            game,
            self.uct,
            self.simulations,
            evaluator,
            solve=False,
            random_state=random_state,
            child_selection_fn=select,
        )


class _PolicyEvaluator:
    """OpenSpiel `Evaluator` from our network: its move probabilities as the prior; playouts in which
    it plays every seat (its most likely move), chance by the chance outcomes."""

    def __init__(self, policy: Any, rollouts: int, random_state: np.random.RandomState) -> None:
        self.policy = policy
        self.rollouts = rollouts
        self.random_state = random_state

    def prior(self, state: Any) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        logits = np.asarray(self.policy.view_logits(state.view(state.current_player())), dtype=np.float64)[legal]
        weights = np.exp(logits - logits.max())
        return list(zip(legal, (weights / weights.sum()).tolist()))

    def evaluate(self, state: Any) -> np.ndarray:
        total = np.zeros(state.num_players())
        for _ in range(self.rollouts):
            working = state.clone()
            while not working.is_terminal():
                if working.is_chance_node():
                    outcomes, probs = zip(*working.chance_outcomes())
                    working.apply_action(int(self.random_state.choice(outcomes, p=probs)))
                else:
                    working.apply_action(
                        self.policy.act(working.view(working.current_player()), working.legal_actions())
                    )
            total += np.asarray(working.returns())
        return np.asarray(total / self.rollouts)
