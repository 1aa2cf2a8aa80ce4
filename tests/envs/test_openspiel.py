"""Skyjo as an OpenSpiel game (skyjo_env/openspiel.py): OpenSpiel's own conformance checks, and the
same game as the engine's when the chance outcomes are the engine's cards."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from skyjo_env.engine import CARD_COUNTS, CARD_VALUES, DECK_SIZE, Rules, apply_action, new_game, unseen_counts
from skyjo_env.engine.codes import FACE_UP, HIDDEN
from skyjo_env.engine.view import seat_view
from tests.envs.test_consumers import need

need("pyspiel")
import pyspiel  # noqa: E402

from skyjo_env import openspiel as skyjo_openspiel  # noqa: E402

OPTIONS = [
    {},
    {"initial_reveal": "random", "reshuffle": "all", "returns": "score"},
    {"initial_reveal": "random", "start_tie_break": "lowest_seat", "single_round": True},
    {"clear_on_final_reveal": False, "target_score": 30},
]


def load(players: int, **params) -> pyspiel.Game:
    return pyspiel.load_game(skyjo_openspiel.SHORT_NAME, {"players": players, **params})


@pytest.mark.parametrize("players", [2, 3, 4, 8])
def test_openspiels_random_simulation_test_passes(players):
    pyspiel.random_sim_test(load(players), num_sims=1, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_openspiels_random_simulation_test_passes_with_every_option(players, options):
    pyspiel.random_sim_test(load(players, **options), num_sims=3, serialize=True, verbose=False)


def test_every_rule_option_is_a_game_parameter_with_the_rules_default():
    params = load(2).get_parameters()
    for name in Rules.field_names():
        key = "players" if name == "num_players" else name
        assert key in params
    game = load(5, initial_reveal="random", max_turns_per_round=0, target_score=50)
    rules = Rules(num_players=5, initial_reveal="random", max_turns_per_round=None, target_score=50)
    assert game.rules == rules and skyjo_openspiel.rules_of(skyjo_openspiel.parameters_of(rules)) == rules


def test_bad_parameters_are_refused_with_their_name():
    with pytest.raises(ValueError, match="returns"):
        skyjo_openspiel.SkyjoGame({"returns": "points"})
    with pytest.raises(ValueError, match="num_players"):
        skyjo_openspiel.SkyjoGame({"players": 9})
    with pytest.raises(ValueError, match="reshuffle"):
        skyjo_openspiel.SkyjoGame({"reshuffle": "sometimes"})


def test_the_first_deal_is_a_chance_node_over_the_full_deck():
    state = load(3).new_initial_state()
    assert state.is_chance_node() and state.chance_node.kind == "card"
    assert state.chance_outcomes() == [(i, CARD_COUNTS[v] / DECK_SIZE) for i, v in enumerate(CARD_VALUES)]


def test_random_setup_reveals_are_chance_pairs_then_cards():
    state = load(2, initial_reveal="random").new_initial_state()
    assert state.chance_node.kind == "pair" and state.chance_node.seat == 0
    assert len(state.chance_outcomes()) == 66 and sum(p for _, p in state.chance_outcomes()) == pytest.approx(1)
    state.apply_action(0)  # seat 0 turns c0r0 and c0r1
    state.apply_action(65)  # seat 1 turns c3r1 and c3r2
    targets = []
    while state.is_chance_node():
        if state.chance_node.kind == "card":
            targets.append(state.chance_node.target)
        state.apply_action(state.chance_outcomes()[0][0])
    assert targets == [("top",), ("slot", 0, 0), ("slot", 0, 1), ("slot", 1, 10), ("slot", 1, 11)]
    engine = state.engine
    assert [s for s, st in enumerate(engine.status[0]) if st == FACE_UP] == [0, 1]
    assert [s for s, st in enumerate(engine.status[1]) if st == FACE_UP] == [10, 11]


def test_each_card_seen_in_a_deal_comes_from_the_cards_left():
    """After the first discard is seen (a 12), the next card's chances are the other 149 cards'."""
    state = load(2, initial_reveal="random").new_initial_state()
    state.apply_action(0)
    state.apply_action(65)
    state.apply_action(CARD_VALUES.index(12))  # the first discard
    left = {**CARD_COUNTS, 12: CARD_COUNTS[12] - 1}
    assert state.chance_outcomes() == [(i, left[v] / (DECK_SIZE - 1)) for i, v in enumerate(CARD_VALUES)]
    state.apply_action(CARD_VALUES.index(12))  # seat 0's c0r0
    left[12] -= 1
    assert state.chance_outcomes() == [(i, left[v] / (DECK_SIZE - 2)) for i, v in enumerate(CARD_VALUES)]


def test_a_card_drawn_is_a_chance_outcome_of_the_unseen_counts():
    state = _play_to_a_draw(load(2), seed=3)
    view = seat_view(state.engine, 0)
    state.apply_action(24)  # draw
    assert state.is_chance_node() and state.chance_node.target[0] == "draw"
    counts = unseen_counts(view)
    total = sum(counts)
    assert state.chance_outcomes() == [(i, c / total) for i, c in enumerate(counts) if c]
    value_index = max(state.chance_outcomes(), key=lambda o: o[1])[0]
    state.apply_action(value_index)
    assert state.engine.held_card == CARD_VALUES[value_index]
    assert not state.is_chance_node() and state.current_player() == view.to_play


def test_a_state_is_a_function_of_its_history():
    """A state is a function of its history: replaying the history gives the same state, engine and
    all; OpenSpiel's serialisation and pickling give it back too."""
    game = load(3)
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    for _ in range(200):
        if state.is_terminal():
            break
        actions = [o for o, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(int(rng.choice(actions)))
    replayed = game.new_initial_state()
    for action in state.history():
        replayed.apply_action(action)
    assert str(replayed) == str(state) and replayed.observation_tensor(1) == state.observation_tensor(1)
    assert replayed.engine.to_dict() == state.engine.to_dict()  # the unseen cards' order too
    again = game.deserialize_state(state.serialize())
    assert again.history() == state.history() and str(again) == str(state)
    assert pickle.loads(pickle.dumps(state)).history() == state.history()
    clone = copy.deepcopy(state)
    assert str(clone) == str(state) and clone.history() == state.history()


def test_observation_tensor_is_the_observation_of_skyjo_env():
    from skyjo_env.observation import encode_state
    from skyjo_env.observation.spec import layout

    state = _play_to_a_draw(load(4), seed=1)
    assert len(state.observation_tensor(2)) == layout(4).size
    np.testing.assert_array_equal(np.asarray(state.observation_tensor(2), np.float32), encode_state(state.engine, 2))
    assert state.information_state_tensor(2) == state.observation_tensor(2)
    assert "player_2" in state.information_state_string(2)


@pytest.mark.parametrize("returns", ["win", "score"])
def test_returns_are_zero_sum_and_the_winner_has_the_most(returns):
    game = load(3, returns=returns)
    state = _random_game(game, seed=5)
    r = state.returns()
    assert sum(r) == pytest.approx(0)
    totals = state.engine.totals
    best = min(totals)
    assert all(r[p] == max(r) for p in range(3) if totals[p] == best)
    if returns == "win" and totals.count(best) == 1:
        assert max(r) == 1 and sorted(r)[:2] == [-0.5, -0.5]


def test_single_round_ends_with_the_first_round_and_is_scored_by_it():
    state = _random_game(load(2, single_round=True, returns="score"), seed=2)
    scores = state.engine.last_round.scores
    assert state.engine.round_index == 0 or state.engine.last_round.round_index == 0
    assert state.returns() == [scores[1] - scores[0], scores[0] - scores[1]]


@pytest.mark.parametrize("players", [2, 3, 8])
@pytest.mark.parametrize("options", [*OPTIONS[:2], {"start_tie_break": "random", "initial_reveal": "random"}])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_engines_cards_as_chance_outcomes_give_the_engines_game(players, options, seed):
    """Play an engine game with random legal moves; give the OpenSpiel game the same moves, and at
    every chance node the card (pair, tie-break) the engine dealt there: after every move every seat's
    view is the engine's, and the game ends with the same totals and rounds."""
    options = {k: v for k, v in options.items() if k not in ("returns", "single_round")}
    game = load(players, **options)
    real = new_game(game.rules, seed=seed)
    state = game.new_initial_state()
    _resolve_chance(state, before=real, after=real)
    rng = np.random.default_rng(seed)
    moves = 0
    while not real.is_finished:
        _same_game(state, real)
        action = int(rng.choice(state.legal_actions()))
        before = real.copy()
        apply_action(real, action)
        state.apply_action(action)
        _resolve_chance(state, before=before, after=real)
        moves += 1
    assert state.is_terminal()
    assert state.engine.totals == real.totals and state.engine.round_history == real.round_history
    assert moves > 20


def test_state_from_engine_continues_a_sampled_world():
    from skyjo_env.engine import sample_world

    real = new_game(Rules(num_players=2), seed=4)
    for action in (12, 13, 12, 14):
        apply_action(real, action)
    world = sample_world(seat_view(real, 0), np.random.default_rng(0))
    state = load(2).state_from_engine(world)
    assert state.current_player() == real.current_player and state.legal_actions() == [24, 25]
    state.apply_action(24)
    assert state.is_chance_node()
    with pytest.raises(ValueError, match="rules"):
        load(3).state_from_engine(world)


# ---------------------------------------------------------------------------------------- helpers
def _random_step(state, rng):
    """One step at random: a chance outcome by its probability, or a legal move."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    else:
        state.apply_action(int(rng.choice(state.legal_actions())))


def _random_game(game, seed):
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        _random_step(state, rng)
    return state


def _play_to_a_draw(game, seed):
    """A state where a player may draw, after the setup, at random."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while state.is_chance_node() or 24 not in state.legal_actions():
        _random_step(state, rng)
    return state


def _resolve_chance(state, before, after):
    """Answer each chance node with what the engine dealt: face-down cards and the draw pile from the
    engine before the move, cards dealt in the move from the engine after it."""
    while state.is_chance_node():
        node = state.chance_node
        mine = state.engine
        if node.kind == "pair":
            slots = tuple(s for s, st in enumerate(after.status[node.seat]) if st == FACE_UP)
            outcome = skyjo_openspiel.PAIRS.index(slots)
        elif node.kind == "tie":
            sums = [mine.visible_score(p) for p in range(mine.num_players)]
            tied = [p for p, s in enumerate(sums) if s == max(sums)]
            outcome = tied.index(after.current_player)
        else:
            kind = node.target[0]
            if kind == "draw":
                value = before.draw_pile[node.target[1]]
            elif kind == "held":
                value = after.held_card
            elif kind == "top":
                value = after.discard_pile[-1]
            else:
                _, seat, slot = node.target
                source = before if mine.status[seat][slot] == HIDDEN else after
                value = source.values[seat][slot]
            outcome = CARD_VALUES.index(value)
        outcomes = state.chance_outcomes()
        assert outcome in [o for o, _ in outcomes] and sum(p for _, p in outcomes) == pytest.approx(1)
        state.apply_action(outcome)


def _same_game(state, real):
    mine = state.engine
    for seat in range(real.num_players):
        assert seat_view(mine, seat) == seat_view(real, seat)
    assert state.current_player() == real.current_player
    assert state.legal_actions() == sorted(state.legal_actions())


def test_a_sampled_world_of_a_later_rounds_setup_plays_on_without_a_known_starter():
    """A world dealt from a view in round 2's setup does not know the starter (the view does not
    say): the highest revealed sum starts, with a tie-break chance node if seats tie."""
    from skyjo_env.engine import legal_actions, sample_world

    real = new_game(Rules(num_players=2, target_score=1000), seed=6)
    rng = np.random.default_rng(1)
    while real.round_index == 0:
        apply_action(real, int(rng.choice(legal_actions(real))))
    world = sample_world(seat_view(real, 0), np.random.default_rng(0))
    state = load(2, target_score=1000).state_from_engine(world)
    for slots in ([0, 1], [0, 2]):
        for seat_slot in slots:
            while state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
            state.apply_action(12 + seat_slot)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.legal_actions() == [24, 25]
