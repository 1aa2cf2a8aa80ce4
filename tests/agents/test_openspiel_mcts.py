"""`openspiel-mcts` (agents/openspiel_mcts.py): OpenSpiel's MCTSBot as one of our bots."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from skyjo_env.engine import Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.view import seat_view
from tests.envs.test_consumers import need
from tests.helpers import played_state, plays_a_legal_game, shuffle_hidden_information

need("pyspiel")


@pytest.mark.parametrize("name", ["openspiel-mcts:simulations=4", "openspiel-mcts:simulations=2,evaluator=ppo"])
@pytest.mark.parametrize("players", [2, 4])
def test_it_plays_legal_moves_through_setup_and_turns(name, players):
    bot = agents.make(name)
    bot.reset(0)
    state = plays_a_legal_game(bot, seed=1, num_players=players, moves=12 * players // 2 + 6)
    assert state.turns_in_round > 0


def test_it_never_reads_the_real_face_down_cards_or_the_draw_pile():
    """Shuffling the unseen cards of the real game changes no choice for a fixed seed."""
    state = played_state(3, moves=20, seed=2)
    other = shuffle_hidden_information(state, np.random.default_rng(9))
    assert other.to_dict() != state.to_dict()
    choices = []
    for game in (state, other):
        bot = agents.make("openspiel-mcts:simulations=8")
        bot.reset(5)
        choices.append(bot.act(seat_view(game, game.current_player), legal_actions(game)))
    assert choices[0] == choices[1]


def test_the_same_seed_gives_the_same_moves():
    moves = []
    for _ in range(2):
        bot = agents.make("openspiel-mcts:simulations=4")
        bot.reset(3)
        state = new_game(Rules(num_players=2), seed=3)
        trace = []
        for _ in range(15):
            action = bot.act(seat_view(state, state.current_player), legal_actions(state))
            trace.append(action)
            apply_action(state, action)
        moves.append(trace)
    assert moves[0] == moves[1]


def test_bad_options_are_refused_by_name():
    with pytest.raises(ValueError, match="simulations"):
        agents.make("openspiel-mcts:simulations=1")
    with pytest.raises(ValueError, match="evaluator"):
        agents.make("openspiel-mcts:evaluator=alphazero")
    with pytest.raises(ValueError, match="depth"):
        agents.make("openspiel-mcts:depth=3")
    with pytest.raises(ValueError, match="horizon"):
        agents.make("openspiel-mcts:horizon=turn")


def test_a_later_rounds_search_knows_the_previous_ender_starts():
    """The bot follows a game to its second round; in that round's setup it hands the world the
    previous round's ender as the starter (a view does not say who it is)."""
    bot = agents.make("openspiel-mcts:simulations=2")
    bot.reset(0)
    state = new_game(Rules(num_players=3, target_score=1000), seed=4)
    rng = np.random.default_rng(0)
    while state.round_index == 0:
        legal = legal_actions(state)
        view = seat_view(state, state.current_player)
        action = bot.act(view, legal) if state.current_player == 1 else int(rng.choice(legal))
        apply_action(state, action)
    ender = state.last_round.ender
    while state.current_player != 1:
        apply_action(state, legal_actions(state)[0])
    assert bot._starter(seat_view(state, 1)) == ender


def test_skyjo_eval_and_skyjo_ladder_play_it(capsys):
    from skyjo_env.cli import main

    assert (
        main(["eval", "openspiel-mcts:simulations=2", "random", "--games", "1", "--workers", "1", "--no-progress"]) == 0
    )
    assert "openspiel-mcts" in capsys.readouterr().out
    ladder = ["ladder", "openspiel-mcts:simulations=2", "random", "--games", "1", "--workers", "1", "--no-progress"]
    assert main(ladder) == 0
    assert "openspiel-mcts:simulations=2" in capsys.readouterr().out
