"""`expert` in C (agents/_cexpert.c) plays the Python code's move at every decision.

The C code is a port of agents/expert.py with the same arithmetic in the same order, so the same
floats and the same ties: these tests compare the two move for move over random play, with the
default parameters and with others, at every table size.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import expert
from agents.expert import ExpertBot
from skyjo_env.engine import Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.actions import DRAW, TAKE_DISCARD
from skyjo_env.engine.state import GameState, Phase
from skyjo_env.engine.view import seat_view

needs_c = pytest.mark.skipif(
    expert._cexpert is None, reason="the C expert is not built (see test_the_c_expert_is_built_and_plays)"
)


def test_the_c_expert_is_built_and_plays():
    if os.environ.get("SKYJO_PURE_PYTHON"):
        assert expert._cexpert is None
        pytest.skip("SKYJO_PURE_PYTHON is set: expert's Python code plays")
    assert expert._cexpert is not None, (
        "agents._cexpert was not built: install a C compiler and reinstall (pip install -e .), "
        "or set SKYJO_PURE_PYTHON=1 to run on the Python code"
    )


def test_skyjo_pure_python_makes_the_python_code_play():
    code = "import agents.expert as e; print(e._cexpert)"
    out = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "SKYJO_PURE_PYTHON": "1"}, capture_output=True, text=True
    )
    assert out.stdout.strip() == "None", out.stderr


def _c_move(bot: ExpertBot, view, legal) -> int:
    """The C code's move, asked directly (no fallback to the Python code)."""
    return expert.c_move(bot, view, legal)


def _compare_over_a_game(bot: ExpertBot, n: int, seed: int, steps: int, randomness: float) -> GameState:
    """Play a game for up to `steps` decisions (expert's moves, or a random legal one with chance
    `randomness`), comparing the C and the Python move at each decision; the state at the end."""
    state = new_game(Rules(num_players=n), seed=seed)
    rng = np.random.default_rng(seed)
    for decision in range(steps):
        if state.is_finished:
            break
        seat = state.current_player
        view, legal = seat_view(state, seat), legal_actions(state)
        action = _c_move(bot, view, legal)  # the C code itself: `act` would hide a -1 behind the Python code
        assert action == bot.act_python(view, legal), f"decision {decision} of game {seed} at {n} players: {view}"
        assert bot.act(view, legal) == action
        if rng.random() < randomness:
            action = legal[int(rng.integers(len(legal)))]
        apply_action(state, action)
    return state


@needs_c
@pytest.mark.parametrize("n", range(2, 9))
def test_the_c_expert_plays_the_python_move_through_whole_games(n):
    for seed, randomness in [(n, 0.0), (100 + n, 0.3), (200 + n, 1.0)]:
        state = _compare_over_a_game(ExpertBot(), n, seed, 100_000, randomness)
        assert state.is_finished  # whole games (or truncated ones): every phase, final laps, later rounds


@needs_c
@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 8),
    seed=st.integers(0, 2**31),
    steps=st.integers(1, 600),
    randomness=st.sampled_from([0.0, 0.5, 1.0]),
    pair_credit=st.floats(0.0, 2.0),
    pair_horizon=st.integers(1, 12),
    tempo=st.floats(-2.0, 2.0),
    gift=st.floats(0.0, 1.0),
    doubling_margin=st.floats(0.5, 10.0),
    opponent_turn_gain=st.floats(0.0, 5.0),
)
def test_the_c_expert_plays_the_python_move_with_any_parameters(
    n, seed, steps, randomness, pair_credit, pair_horizon, tempo, gift, doubling_margin, opponent_turn_gain
):
    bot = ExpertBot(pair_credit, pair_horizon, tempo, gift, doubling_margin, opponent_turn_gain)
    _compare_over_a_game(bot, n, seed, steps, randomness)


@needs_c
def test_a_view_with_too_many_cards_of_a_value_raises_the_python_error():
    state = new_game(Rules(num_players=2), seed=3)
    while state.phase != Phase.CHOOSE_SOURCE:
        apply_action(state, legal_actions(state)[0])
    view = seat_view(state, state.current_player)
    view = view._replace(discard_pile=(12,) * 11)  # the deck holds 10 twelves
    with pytest.raises(ValueError, match=r"more cards of value\(s\) \[12\] than the deck holds"):
        ExpertBot().act(view, [DRAW, TAKE_DISCARD])


@needs_c
def test_numpy_integers_are_legal_actions_too():
    state = new_game(Rules(num_players=3), seed=4)
    for _ in range(40):
        view, legal = seat_view(state, state.current_player), legal_actions(state)
        assert _c_move(ExpertBot(), view, np.array(legal)) == ExpertBot().act_python(view, legal)
        apply_action(state, legal[0])


def _arguments(**change):
    args = {
        "phase": int(Phase.CHOOSE_SOURCE),
        "grid_values": (tuple(range(-2, 10)), (0,) * 12),  # my grid face-up, the other's face-down
        "grid_status": ((1,) * 12, (0,) * 12),
        "discard_pile": (5,),
        "held_card": None,
        "round_ender": None,
        "legal_actions": [DRAW, TAKE_DISCARD],
    }
    return {**args, **change}


def _act(args):
    return expert._cexpert.act(expert._parameters(ExpertBot()), *args.values())


@needs_c
@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"grid_values": ((13,) * 12, (0,) * 12)}, ValueError, "a face-up card: 13 is not a card value"),
        ({"grid_status": ((1,) * 12, (7,) * 12)}, ValueError, "status must be 0, 1 or 2, got 7"),
        ({"grid_values": ((1,) * 12,)}, ValueError, "expected 2 to 16 grids of values and as many of status"),
        ({"grid_status": ((1,) * 11, (0,) * 12)}, ValueError, "a grid of status must have 12 slots, got 11"),
        ({"held_card": -3}, ValueError, "held_card: -3 is not a card value"),
        ({"discard_pile": (5, "x")}, TypeError, "a discarded card must be an int"),
        ({"discard_pile": ()}, ValueError, "taking the discard is legal but the discard pile is empty"),
        ({"legal_actions": []}, ValueError, "expected 1 to 64 legal actions, got 0"),
        ({"phase": int(Phase.HOLDING_DRAWN)}, ValueError, "holds a card, but held_card is None"),
        ({"phase": int(Phase.HOLDING_DRAWN), "held_card": 4, "legal_actions": [30]}, ValueError, "30 is not a move"),
        ({"grid_values": 7}, TypeError, "grid_values must be a sequence"),
    ],
)
def test_the_c_expert_refuses_bad_input_instead_of_reading_out_of_bounds(change, error, message):
    assert _act(_arguments()) in (DRAW, TAKE_DISCARD)
    with pytest.raises(error, match=message):
        _act(_arguments(**change))
