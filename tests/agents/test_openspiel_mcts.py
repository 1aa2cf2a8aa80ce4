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


def test_the_search_depends_on_the_view_only_not_on_the_deal_of_the_unseen_cards():
    """OpenSpiel's MCTS from two worlds of the same view, their unseen cards dealt differently, with the
    same random numbers: the same move and the same visit counts (every unseen card is a chance outcome,
    so the deal's order is no input; the bot itself only ever receives the view)."""
    import pyspiel
    from open_spiel.python.algorithms import mcts

    from skyjo_env.openspiel import SHORT_NAME

    state = played_state(3, moves=20, seed=2)
    other = shuffle_hidden_information(state, np.random.default_rng(9))
    assert other.to_dict() != state.to_dict() and seat_view(other, 0) == seat_view(state, 0)
    game = pyspiel.load_game(SHORT_NAME, {"players": 3, "single_round": True, "returns": "score"})
    searches = []
    for world in (state, other):
        random_state = np.random.RandomState(5)
        evaluator = mcts.RandomRolloutEvaluator(random_state=random_state)
        bot = mcts.MCTSBot(game, 10, 24, evaluator, solve=False, random_state=random_state)
        root = bot.mcts_search(game.state_from_engine(world))
        searches.append([(c.action, c.explore_count, c.total_reward) for c in root.children])
    assert searches[0] == searches[1]
    assert sum(count for _, count, _ in searches[0]) == 23  # the root's first simulation expands it


def test_the_browser_seats_copies_of_it():
    """`skyjo serve` copies a bot for each seat (`Roster.make`); a copy plays like the original."""
    from skyjo_env.web.roster import Roster

    roster = Roster()
    bots = [roster.make("openspiel-mcts", 2, seed=0) for _ in range(2)]
    state = played_state(2, moves=6, seed=3)
    moves = [bot.act(seat_view(state, state.current_player), legal_actions(state)) for bot in bots]
    assert moves[0] == moves[1]


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
