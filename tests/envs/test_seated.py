"""The seated game: bots play until an outside seat's turn, and rewards reach a seat at its next decision."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import make
from skyjo_env.engine import DRAW, FACE_UP, HIDDEN, IllegalActionError, Rules, legal_actions
from skyjo_env.engine.actions import place
from skyjo_env.engine.view import seat_view
from skyjo_env.rewards import shaping_potentials, step_rewards
from skyjo_env.seated import SeatedGame, tell_history


class Recorder:
    """A bot that plays the first legal action and remembers its seed and every view it got."""

    def __init__(self) -> None:
        self.seed: int | None = None
        self.views: list = []

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed

    def act(self, view, legal) -> int:
        self.views.append(view)
        return legal[0]


def test_deal_seeds_each_bot_and_leaves_an_outside_seat_alone():
    bots = [Recorder(), None, Recorder()]
    game = SeatedGame(Rules(num_players=3), bots)
    game.deal(7, [70, None, 72])
    assert (bots[0].seed, bots[2].seed) == (70, 72)


def test_a_bot_without_a_seed_or_an_outside_seat_with_one_is_refused():
    game = SeatedGame(Rules(num_players=2), [Recorder(), None])
    with pytest.raises(ValueError, match="seat 0: a bot needs a seed"):
        game.deal(1, [None, None])
    with pytest.raises(ValueError, match="seat 1"):
        game.deal(1, [1, 2])


def test_one_bot_or_none_per_seat():
    with pytest.raises(ValueError, match="3 players need a bot or None at each seat, got 2"):
        SeatedGame(Rules(num_players=3), [None, None])


def test_bots_play_until_the_outside_seat_is_to_move_and_see_only_their_own_view():
    bot = Recorder()
    game = SeatedGame(Rules(num_players=2), [None, bot])
    state = game.deal(3, [None, 0])
    for _ in range(40):
        if state.current_player == 0:
            assert game.waiting_bot() is None
            game.apply(legal_actions(state)[-1])
        game.play_bots()
        assert state.current_player == 0 or game.over
    assert bot.views and all(view.seat == 1 for view in bot.views)


def test_asking_for_an_outside_seats_move_is_an_error():
    game = SeatedGame(Rules(num_players=2), [None, Recorder()])
    state = game.deal(0, [None, 1])
    game.play_bots()
    assert state.current_player == 0
    with pytest.raises(RuntimeError, match="played from outside"):
        game.ask()


def test_a_round_end_credits_every_seat_and_each_collects_it_once():
    game = SeatedGame(Rules(num_players=3), [make("greedy") for _ in range(3)], reward="relative")
    state = game.deal(11, [1, 2, 3])
    credited = np.zeros(3)
    while not state.round_just_ended:
        earned = game.apply(game.ask())
        if earned is not None:
            credited += earned
    assert credited.any()
    assert np.allclose(credited, step_rewards(state, "relative", "game"))
    assert np.array_equal(game.owed, credited)
    first = game.collect(0)
    assert first == credited[0] and game.collect(0) == 0.0
    assert game.owed[1] == credited[1]


def test_an_illegal_move_changes_nothing():
    game = SeatedGame(Rules(num_players=2), [None, None], reward="relative")
    state = game.deal(5)
    before = state.copy().to_dict()
    illegal = next(a for a in range(26) if a not in legal_actions(state))
    with pytest.raises(IllegalActionError):
        game.apply(illegal)
    assert state.to_dict() == before and not game.owed.any()


def test_a_one_round_episode_ends_with_the_round_but_the_game_can_go_on():
    game = SeatedGame(Rules(num_players=2), [make("greedy"), make("greedy")], reward="round_score", episode="round")
    state = game.deal(2, [0, 1])
    game.play_bots()
    assert game.terminated and not game.truncated and state.round_just_ended and not state.is_finished
    assert game.waiting_bot() is None
    game.apply(game.ask())  # the next round's first reveal
    assert not game.over


def test_without_a_reward_mode_nothing_is_credited():
    game = SeatedGame(Rules(num_players=2), [make("greedy"), make("greedy")])
    state = game.deal(4, [0, 1])
    game.play_bots()
    assert state.is_finished and not game.owed.any()


class Observer(Recorder):
    """A recorder that is also told of every move made at the table (`observe`)."""

    def __init__(self) -> None:
        super().__init__()
        self.told: list = []

    def observe(self, view, legal, action) -> None:
        self.told.append((view, list(legal), action))


def test_a_bot_that_observes_is_told_of_every_move_with_the_movers_view_and_legal_moves():
    observer = Observer()
    game = SeatedGame(Rules(num_players=3), [observer, None, make("greedy")])
    state = game.deal(5, [1, None, 2])
    expected = []
    for _ in range(60):
        game.play_bots()
        if game.over:
            break
        seat = state.current_player
        legal = legal_actions(state)
        expected.append((seat_view(state, seat), legal, legal[-1]))
        game.apply(legal[-1])  # the outside seat's move
    told_outside = [t for t in observer.told if t[0].seat == 1]
    assert told_outside == expected  # the outside seat's moves, each with its own view before it
    assert {view.seat for view, _, _ in observer.told} == {0, 1, 2}  # its own moves and the others'
    own = [(view, legal) for view, legal, _ in observer.told if view.seat == 0]
    assert [view for view, _ in own] == observer.views  # its own moves: the views it was asked with


def test_an_illegal_move_is_told_to_no_one():
    observer = Observer()
    game = SeatedGame(Rules(num_players=2), [observer, None])
    state = game.deal(1, [1, None])
    game.play_bots()
    told = len(observer.told)
    illegal = next(a for a in range(26) if a not in legal_actions(state))
    with pytest.raises(IllegalActionError):
        game.apply(illegal)
    assert len(observer.told) == told


def test_one_bot_at_two_seats_is_told_of_each_move_once():
    observer = Observer()
    game = SeatedGame(Rules(num_players=2), [observer, observer])
    game.deal(2, [1, 1])
    for _ in range(10):
        game.apply(game.ask())
    assert len(observer.told) == 10


def test_tell_history_tells_a_bot_what_the_seated_game_told_it():
    observer, late = Observer(), Observer()
    rules = Rules(num_players=3)
    game = SeatedGame(rules, [observer, make("greedy"), make("expert")])
    state = game.deal(9, [1, 2, 3])
    actions = []
    for _ in range(50):
        action = game.ask()
        actions.append(action)
        game.apply(action)
    assert not state.is_finished
    tell_history(late, rules, 9, actions)
    assert late.told == observer.told and len(late.told) == 50
    tell_history(Recorder(), rules, 9, actions)  # a bot that does not observe: nothing to do


def test_a_canonical_game_shows_every_seat_the_grids_in_their_canonical_order():
    from skyjo_env.engine.symmetry import IDENTITY, canonical_arrangement

    game = SeatedGame(Rules(num_players=3), [make("random"), make("greedy"), make("expert")], canonical=True)
    game.deal(7, bot_seeds=[1, 2, 3])
    moves = 0
    while not game.over:
        game.apply(game.ask())
        moves += 1
        for seat in range(3):
            view = seat_view(game.state, seat)
            assert all(canonical_arrangement(view, rel) == IDENTITY for rel in range(3))
    assert moves > 50 and game.state.round_history


# ------------------------------------------------------------ relative_shaped
def test_replacing_a_face_down_12_by_a_drawn_3_earns_the_mover_9_points_at_once():
    game = SeatedGame(Rules(num_players=2), [None, None], reward="relative_shaped")
    state = game.deal(3)
    while not (state.current_player == 0 and state.held_card is not None):  # to seat 0 holding a drawn card
        game.apply(DRAW if DRAW in legal_actions(state) else legal_actions(state)[0])
    slot = next(s for s in range(12) if state.status[0][s] == HIDDEN)
    state.values[0][slot], state.held_card = 12, 3  # the face-down card is a 12, the drawn one a 3
    column = [slot % 4 + 4 * row for row in range(3)]  # no column of three 3s can clear
    assert not all(state.status[0][s] == FACE_UP and state.values[0][s] == 3 for s in column if s != slot)
    game.owed[:] = 0.0
    earned = game.apply(place(slot))
    assert earned == pytest.approx([0.09, -0.09]) and not state.round_just_ended


def test_a_relative_shaped_reward_never_reads_a_card_the_move_left_alone():
    game = SeatedGame(Rules(num_players=3), [None] * 3, reward="relative_shaped")
    state = game.deal(8)
    earned = game.apply(legal_actions(state)[0])  # a setup reveal: no card moves, so no potential changes
    assert earned == [0.0, 0.0, 0.0]


def test_only_a_shaped_mode_has_a_potential():
    state = SeatedGame(Rules(num_players=2), [None, None], reward="relative").deal(0)
    with pytest.raises(ValueError, match="'relative' is not a shaped reward mode"):
        shaping_potentials(state, "relative", "game")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 8), episode=st.sampled_from(["game", "round"]))
def test_over_an_episode_relative_shaped_adds_up_to_relative_less_the_potential_at_the_deal(seed, n, episode):
    rules = Rules(num_players=n)
    totals = {}
    for mode in ("relative", "relative_shaped"):
        game = SeatedGame(rules, [make("random") for _ in range(n)], reward=mode, episode=episode)
        state = game.deal(seed, list(range(n)))
        if mode == "relative_shaped":
            dealt = shaping_potentials(state, mode, episode)
        game.play_bots()
        totals[mode] = game.owed.copy()
    if state.is_truncated:  # the turn limit cut the episode: its last potential is not 0
        return
    assert totals["relative_shaped"] == pytest.approx(totals["relative"] - np.array(dealt), abs=1e-9)
