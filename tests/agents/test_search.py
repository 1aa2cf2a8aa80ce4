"""The search agent (`ppo+search`): legal moves, no peeking, its budget, every table size."""

from __future__ import annotations

import math

import numpy as np
import pytest

import agents
from agents.base import parse_agent_options
from agents.model_file import PolicyNetwork, load_policy, round_margin
from agents.opponent_model import EVIDENCE, FIT, OpponentLibrary
from agents.ppo_bot import SHIPPED_MODEL_2P, SHIPPED_MODEL_ALL
from agents.search import SearchBot, _distinct, _estimated_scores, _force, _SeatDraws, _turned_up
from agents.win_chance import RoundScores, chance_of_winning
from skyjo_env.engine import DRAW, TAKE_DISCARD, Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.codes import HIDDEN, Phase
from skyjo_env.engine.symmetry import move_key
from skyjo_env.engine.view import seat_view
from skyjo_env.engine.worlds import sample_world, unseen_counts
from skyjo_env.seated import SeatedGame
from tests.engine.test_worlds import CHI2_14_P001, chi_square
from tests.helpers import played_state, plays_a_legal_game, shuffle_hidden_information
from train.value import OUTPUTS, attach_value_head

#: A budget no test reaches, for tests that count the worlds a search played: on a loaded machine
#: (the suite on 2 workers beside a long evaluation) a 32-world search of 6 candidates took over 10 s.
NO_DEADLINE_MS = 1e9


def _with_random_value_head(seed: int = 0) -> PolicyNetwork:
    """The shipped network with a small random value head (what `python -m train.value` writes, untrained)."""
    network = load_policy(SHIPPED_MODEL_ALL)
    rng = np.random.default_rng(seed)
    layers = [
        (rng.normal(0, 0.1, (16, network.features_size)).astype(np.float32), np.zeros(16, np.float32)),
        (rng.normal(0, 0.1, (len(OUTPUTS), 16)).astype(np.float32), np.zeros(len(OUTPUTS), np.float32)),
    ]
    return attach_value_head(network, layers)


def _mid_round(num_players: int, seed: int):
    """A state mid-round where the current player holds a drawn card (several moves to choose from)."""
    state = played_state(num_players, 0, seed)
    rng = np.random.default_rng(seed)
    while not (
        state.phase == Phase.HOLDING_DRAWN and sum(s == HIDDEN for s in state.status[state.current_player]) >= 4
    ):
        legal = legal_actions(state)
        action = DRAW if DRAW in legal and rng.random() < 0.7 else int(rng.choice(legal))
        apply_action(state, action)
    return state


def _chances(view, legal):
    """The network's probability of each legal move (in `legal`'s order), computed here, not by the search."""
    logits = SearchBot(seed=0)._logits(view)[legal]
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


def test_options_parse_and_bad_ones_are_refused():
    read = parse_agent_options("worlds=32,ms=200,leaf=round", SearchBot.OPTION_TYPES, "search")
    assert read == {"worlds": 32, "ms": 200.0, "leaf": "round"}
    with pytest.raises(ValueError, match="bad search option 'wolds=3'.*key one of"):
        agents.make("ppo+search:wolds=3")
    with pytest.raises(ValueError, match="worlds must be int"):
        agents.make("ppo+search:worlds=many")
    with pytest.raises(ValueError, match="leaf must be one of"):
        SearchBot(leaf="guess")
    with pytest.raises(ValueError, match="bad search budget"):
        SearchBot(worlds=0)
    with pytest.raises(ValueError, match="draws must be one of pile, seat"):
        agents.make("ppo+search:draws=mine")
    with pytest.raises(ValueError, match="cut must be one of drop, score"):
        agents.make("ppo+search:cut=guess")
    with pytest.raises(ValueError, match="bad search budget.*batch 0"):
        agents.make("ppo+search:batch=0")
    with pytest.raises(ValueError, match="objective must be one of margin, win"):
        agents.make("ppo+search:objective=points")
    with pytest.raises(ValueError, match="objective='win' scores round playouts"):
        SearchBot(_with_random_value_head(), leaf="win", objective="win")


def test_opponents_names_a_bot_or_the_network_or_a_library_and_a_bad_name_is_refused():
    assert SearchBot(opponents="network").opponents.network_only
    assert SearchBot().opponents.names == ["network", "expert", "greedy"]  # the default: a library
    only_expert = agents.make("ppo+search:opponents=expert").opponents
    assert only_expert.names == ["expert"] and only_expert.bots[0].name == "expert" and not only_expert.infers
    library = agents.make("ppo+search:opponents=network|expert|greedy").opponents
    assert library.names == ["network", "expert", "greedy"] and library.bots[0] is None and library.infers
    with pytest.raises(ValueError, match="opponents must be 'network', an agent name.*got 'nobody'.*known agents"):
        agents.make("ppo+search:opponents=nobody")
    for bad in ("network||expert", "expert|expert", "network|"):
        with pytest.raises(ValueError, match="each once"):
            SearchBot(opponents=bad)


class _Recorder:
    """An opponent model that plays `expert` and notes the seats of the views it was shown."""

    name = "recorder"

    def __init__(self) -> None:
        self.seats: list[int] = []
        self.expert = agents.make("expert")

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, view, legal_actions_):
        self.seats.append(view.seat)
        return self.expert.act(view, legal_actions_)


def test_with_an_opponent_model_the_other_seats_play_it_in_the_playouts_and_the_searcher_the_network():
    state = _mid_round(3, 0)
    me = state.current_player
    recorder = _Recorder()
    bot = SearchBot(worlds=4, batch=4, top=2, z=0, ms=NO_DEADLINE_MS, seed=0, opponents=recorder)
    network_only = SearchBot(worlds=4, batch=4, top=2, z=0, ms=NO_DEADLINE_MS, seed=0)
    view, legal = seat_view(state, me), legal_actions(state)
    result = bot.evaluate(view, legal)
    assert result.chosen in legal and result.extra["worlds"] == 4
    assert recorder.seats and set(recorder.seats) == {0, 1, 2} - {me}
    # the same worlds played by the network at every seat score otherwise
    assert network_only.evaluate(view, legal).values != result.values


class _OneAtATime:
    """A network member without `act_batch`: the playouts ask it one world at a time."""

    def __init__(self, bot) -> None:
        self.bot, self.calls = bot, 0

    def reset(self, seed=None) -> None:
        self.bot.reset(seed)

    def act(self, view, legal):
        self.calls += 1
        return self.bot.act(view, legal)


class _CountingBatches(_OneAtATime):
    def act_batch(self, views, legal_list):
        self.calls += 1
        return self.bot.act_batch(views, legal_list)


def test_a_network_member_plays_all_its_worlds_in_one_call_a_step_with_the_same_moves():
    state = _mid_round(3, 2)
    me = state.current_player
    view, legal = seat_view(state, me), legal_actions(state)
    results, calls = [], []
    for wrapper in (_OneAtATime, _CountingBatches):
        member = wrapper(agents.make("ppo"))
        bot = SearchBot(worlds=8, batch=8, top=2, z=0, ms=NO_DEADLINE_MS, seed=0, opponents=member)
        results.append(bot.evaluate(view, legal))
        calls.append(member.calls)
    one_at_a_time, batched = results
    assert batched.values == one_at_a_time.values and batched.chosen == one_at_a_time.chosen
    # 2 candidates x 8 worlds: one call a world and step, or one a step
    assert calls[1] <= batched.depth_reached < calls[0] / 4


def test_own_plays_the_searching_seat_in_the_playouts_and_the_network_the_others():
    state = _mid_round(3, 0)
    me = state.current_player
    view, legal = seat_view(state, me), legal_actions(state)
    recorder = _Recorder()
    bot = SearchBot(worlds=4, batch=4, top=2, z=0, ms=NO_DEADLINE_MS, seed=0, opponents="network", own=recorder)
    result = bot.evaluate(view, legal)
    assert result.extra["worlds"] == 4 and recorder.seats and set(recorder.seats) == {me}
    network_only = SearchBot(worlds=4, batch=4, top=2, z=0, ms=NO_DEADLINE_MS, seed=0, opponents="network")
    assert network_only.evaluate(view, legal).values != result.values
    # by name: the agent of that name
    assert agents.make("ppo+search:own=ppo_ei").own.network.info == agents.make("ppo_ei").network.info
    with pytest.raises(ValueError, match="own must be an agent name or a model file, got 'nobody'"):
        agents.make("ppo+search:own=nobody")
    with pytest.raises(ValueError, match="own=ppo_2p was trained for 2 players; this game has 3"):
        SearchBot(own="ppo_2p", opponents="network").evaluate(view, legal)


class _Fixed:
    """An agent that plays one given move (a legal one here) and counts how often it was asked."""

    name = "fixed"

    def __init__(self, move: int) -> None:
        self.move, self.asked = move, 0

    def act(self, view, legal_actions_) -> int:
        self.asked += 1
        return self.move

    def reset(self, seed=None) -> None:
        pass


def test_also_searches_another_agents_move_unless_it_is_the_same_move_as_a_candidate():
    state = _mid_round(2, 0)  # a held card; some moves are the network's top two on another arrangement
    me = state.current_player
    view, legal = seat_view(state, me), legal_actions(state)
    chances = _chances(view, legal)
    order = [legal[i] for i in np.argsort(-chances, kind="stable")]
    top_keys = {move_key(view, a) for a in order[:2]}
    other = next(a for a in order[2:] if move_key(view, a) not in top_keys)
    like = next(a for a in order[2:] if move_key(view, a) in top_keys)
    budget = dict(worlds=4, batch=4, top=2, z=0, ms=NO_DEADLINE_MS, opponents="network", confident=None)

    fixed = _Fixed(other)
    bot = SearchBot(seed=0, also=fixed, **budget)
    bot.act(view, legal)
    assert fixed.asked == 1 and bot.last is not None
    assert bot.last.candidates == [*order[:2], other]
    # the network's two moves are scored as they are without it: the same worlds
    plain = SearchBot(seed=0, **budget).evaluate(view, legal)
    assert bot.last.values[:2] == plain.values
    # the same move as a candidate on another arrangement of the grid: not searched again
    assert SearchBot(seed=0, **budget).evaluate(view, legal, also=[like]).candidates == order[:2]
    with pytest.raises(ValueError, match="is not a legal move here"):
        SearchBot(seed=0, **budget).evaluate(view, legal, also=[max(legal) + 1])


def test_also_by_name():
    assert type(agents.make("ppo+search:also=expert").also) is type(agents.make("expert"))
    assert agents.make("ppo+search:also=off").also is None and agents.make("ppo+search").also is None
    with pytest.raises(ValueError, match="also must be an agent name, a model file or off, got 'nobody'"):
        agents.make("ppo+search:also=nobody")
    state = _mid_round(3, 0)
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    with pytest.raises(ValueError, match="also=ppo_2p was trained for 2 players; this game has 3"):
        SearchBot(also="ppo_2p", opponents="network", confident=None).act(view, legal)


def _play_a_round(bots, seed: int) -> None:
    """The bots play the first round of a seeded game (every move told to the bots that observe)."""
    game = SeatedGame(Rules(num_players=len(bots)), bots)
    state = game.deal(seed, list(range(len(bots))))
    while not state.round_history and not state.is_finished:
        game.apply(game.ask())


@pytest.mark.parametrize("opponent, member", [("greedy", "greedy"), ("expert", "expert"), ("ppo", "network")])
def test_a_library_models_each_seat_by_the_member_that_predicted_its_moves(opponent, member):
    searcher = SearchBot(worlds=2, batch=2, ms=5, seed=0, opponents="network|expert|greedy")
    _play_a_round([searcher, agents.make(opponent)], seed=3)
    library = searcher.opponents
    assert library.counted[1] >= 10 and 0 not in library.counted  # its own moves are not counted
    assert library.summary(2, 0) == {1: member} and library.unfit(0) == []
    assert library.hits[1][library.names.index(member)] == library.counted[1]  # it predicted every move
    searcher.reset(1)  # a new game: the evidence is forgotten, the first member again
    assert library.summary(2, 0) == {1: "network"} and not library.counted


@pytest.mark.parametrize("opponent", ["ppo_2p", "random"])
def test_a_seat_that_no_member_fits_is_modelled_by_the_first_and_the_search_stands_aside(opponent):
    searcher = SearchBot(worlds=2, batch=2, ms=5, seed=0, opponents="network|expert|greedy")
    _play_a_round([searcher, agents.make(opponent, seed=0)], seed=3)
    library = searcher.opponents
    assert library.counted[1] >= EVIDENCE and library.hits[1].max() < FIT * library.counted[1]
    assert library.summary(2, 0) == {1: "network"} and library.unfit(0) == [1]
    state = _mid_round(2, 5)
    assert state.current_player == 0
    view, legal = seat_view(state, 0), legal_actions(state)
    network_move, _ = searcher._network_order(view, legal)
    assert searcher.act(view, legal) == network_move and searcher.last is None  # no search
    searcher.reset(1)  # a new game: searched again
    searcher.act(view, legal)
    assert searcher.last is not None


def test_the_search_stands_aside_only_after_enough_evidence():
    library = OpponentLibrary(["network", "expert"], [None, agents.make("expert")])
    library.hits, library.counted = {1: np.array([5, 6])}, {1: EVIDENCE - 1}  # below the fit, too few moves
    assert library.unfit(0) == []
    library.hits, library.counted = {1: np.array([5, 6])}, {1: EVIDENCE}
    assert library.unfit(0) == [1] and library.unfit(1) == []  # seat 1 is the searcher's own
    assert OpponentLibrary.parse("network").unfit(0) == []  # one model: nothing to choose, never aside


def test_a_member_models_a_seat_from_the_fit_on():
    library = OpponentLibrary(["network", "expert"], [None, agents.make("expert")])
    library.hits, library.counted = {1: np.array([5, 9])}, {1: 10}  # expert predicted 9 of 10: the fit
    assert library.summary(2, 0) == {1: "expert"}
    library.hits, library.counted = {1: np.array([5, 8])}, {1: 10}  # 8 of 10: below it
    assert library.summary(2, 0) == {1: "network"}


def test_at_a_table_of_three_each_seat_gets_its_own_member_and_plays_it_in_the_playouts():
    searcher = SearchBot(worlds=2, batch=2, ms=5, seed=0, opponents="network|greedy")
    _play_a_round([searcher, agents.make("greedy"), agents.make("ppo")], seed=4)
    assert searcher.opponents.summary(3, 0) == {1: "greedy", 2: "network"}
    state = _mid_round(3, 1)
    me = state.current_player
    library = OpponentLibrary(["network", "recorder"], [None, _Recorder()])
    library.hits = {(me + 1) % 3: np.array([0, 3])}  # the next seat is the recorder's; the other, the network's
    library.counted = {(me + 1) % 3: 3}
    bot = SearchBot(worlds=4, batch=4, top=2, z=0, ms=NO_DEADLINE_MS, seed=0)
    bot.opponents = library
    result = bot.evaluate(seat_view(state, me), legal_actions(state))
    assert set(library.bots[1].seats) == {(me + 1) % 3}
    assert result.extra["opponents"] == {(me + 1) % 3: "recorder", (me + 2) % 3: "network"}


def test_a_member_that_does_not_play_the_table_size_is_refused_by_name():
    searcher = SearchBot(worlds=2, batch=2, ms=5, seed=0, opponents="network|ppo_2p")
    state = _mid_round(3, 0)
    with pytest.raises(ValueError, match="opponents member 'ppo_2p' was trained for 2 players; this game has 3"):
        searcher.act(seat_view(state, state.current_player), legal_actions(state))


def test_the_setup_forced_moves_and_its_own_moves_are_not_counted():
    searcher = SearchBot(worlds=2, batch=2, ms=5, seed=0, opponents="network|expert")
    state = new_game(Rules(num_players=2), seed=0)
    searcher.observe(seat_view(state, 1), legal_actions(state), legal_actions(state)[0])  # a setup reveal
    state = _mid_round(2, 0)
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    searcher.observe(view, [legal[0]], legal[0])  # forced
    searcher.act(view, legal)  # its own seat from now on
    searcher.observe(view, legal, legal[0])
    assert not searcher.opponents.counted
    other = seat_view(state, 1 - state.current_player)._replace(to_play=0)
    searcher.observe(other, legal, legal[0])
    assert searcher.opponents.counted == {other.seat: 1}


def test_agents_make_knows_the_search_agent_with_its_options():
    bot = agents.make("ppo+search:worlds=8,ms=20")
    assert isinstance(bot, SearchBot) and bot.worlds == 8 and bot.ms == 20.0
    assert "ppo+search" in agents.available()
    with pytest.raises(ValueError, match="bad search option"):
        agents.make("ppo+search:depth")


@pytest.mark.parametrize("num_players", [2, 4, 8])
def test_it_plays_a_legal_game_at_every_table_size(num_players):
    bot = SearchBot(worlds=2, top=2, ms=10, seed=num_players, draws="seat" if num_players == 8 else "pile")
    state = plays_a_legal_game(bot, seed=num_players, num_players=num_players, opponent="expert")
    assert state.is_finished


def test_a_version_1_file_plays_with_round_playouts_and_value_leaves_need_a_head():
    bot = SearchBot(SHIPPED_MODEL_2P, leaf="round", worlds=4, top=2, ms=20, seed=0)
    assert plays_a_legal_game(bot, seed=3, num_players=2, opponent="greedy").is_finished
    with pytest.raises(ValueError, match="has none"):
        SearchBot(SHIPPED_MODEL_2P, leaf="win")


@pytest.mark.parametrize(
    "options",
    [
        {"leaf": "round", "worlds": 4, "top": 2},
        {"leaf": "round", "worlds": 4, "top": 3, "draws": "seat"},
        {"leaf": "win", "depth": 0},
        {"leaf": "margin", "depth": 2, "worlds": 6, "top": 3},
        {"leaf": "round", "worlds": 4, "top": 2, "objective": "win"},
        {"leaf": "round", "worlds": 4, "top": 2, "opponents": "expert"},
        {"leaf": "round", "worlds": 4, "top": 2, "opponents": "expert|network"},
        {"leaf": "round", "worlds": 4, "top": 3, "symmetry": True},
    ],
)
def test_no_peeking_the_real_hidden_cards_change_no_search_result(options):
    network = _with_random_value_head()
    for seed in range(2):
        state = _mid_round(2, seed)
        shuffled = shuffle_hidden_information(state, np.random.default_rng(seed + 100))
        assert shuffled.values != state.values or shuffled.draw_pile != state.draw_pile
        results = []
        for real in (state, shuffled):
            bot = SearchBot(network, ms=NO_DEADLINE_MS, seed=7, **options)
            move = bot.act(seat_view(real, real.current_player), legal_actions(real))
            results.append((move, bot.last.candidates, bot.last.values, bot.last.errors))
        assert results[0] == results[1]


def test_only_legal_moves_over_random_positions():
    bot = SearchBot(worlds=2, top=3, ms=10, seed=1)
    for seed in range(2):
        state = _mid_round(3, seed)
        for _ in range(20):
            if state.is_finished:
                break
            legal = legal_actions(state)
            action = bot.act(seat_view(state, state.current_player), legal)
            assert action in legal
            apply_action(state, action)


def test_a_batch_the_deadline_interrupts_is_dropped_and_the_network_moves():
    state = _mid_round(4, 0)
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    quick = SearchBot(leaf="round", worlds=8, top=3, ms=1, seed=0, confident=None)
    move = quick.act(view, legal)
    result = quick.last
    assert result.extra["worlds"] == 0 and result.leaves == 0 and move == result.network_move
    assert all(math.isnan(v) for v in result.values)
    assert result.seconds < 0.001 + 0.5  # loose: shared CI machines


def test_cut_score_scores_the_interrupted_batch_where_it_stands():
    state = _mid_round(4, 0)
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    slow = SearchBot(leaf="round", worlds=8, top=3, ms=NO_DEADLINE_MS, seed=0, confident=None)
    slow.act(view, legal)
    quick = SearchBot(leaf="round", worlds=8, batch=8, top=3, ms=5, seed=0, cut="score", confident=None)
    quick.act(view, legal)
    assert quick.last.extra["worlds"] == 8 and np.isfinite(quick.last.values).all()
    assert quick.last.depth_reached < slow.last.depth_reached


def test_the_worlds_are_played_in_doubling_batches_up_to_the_budget():
    state = _mid_round(2, 0)
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    bot = SearchBot(leaf="round", worlds=20, batch=4, top=2, z=100, ms=NO_DEADLINE_MS, seed=0)  # z: nothing dropped
    bot.act(view, legal)
    scores = bot.last.extra["scores"]
    assert bot.last.extra["batches"] == [4, 8, 8]  # doubling, the last cut to the worlds left
    assert bot.last.extra["worlds"] == 20 and scores.shape == (2, 20) and np.isfinite(scores).all()


def test_depth_ends_the_round_playouts_early_and_scores_the_table():
    state = _mid_round(3, 0)
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    bot = SearchBot(leaf="round", depth=3, worlds=8, top=2, ms=NO_DEADLINE_MS, seed=0)
    bot.act(view, legal)
    assert bot.last.depth_reached == 3 and bot.last.extra["worlds"] == 8 and np.isfinite(bot.last.values).all()


def test_a_candidate_clearly_worse_than_the_networks_move_is_played_no_more():
    state = _holding_minus_two_beside_a_twelve()
    bot = SearchBot(leaf="round", worlds=32, top=6, ms=NO_DEADLINE_MS, seed=0, confident=None)
    bot.act(seat_view(state, state.current_player), legal_actions(state))
    result = bot.last
    scores = result.extra["scores"]
    played = np.isfinite(scores).sum(axis=1)
    network = result.candidates.index(result.network_move)
    assert played[network] == 32 and result.network_move == 0  # the -2 goes on the 12
    discards = [i for i, a in enumerate(result.candidates) if a >= 12]
    assert discards and all(played[i] == 24 for i in discards)  # dropped after 8 + 16 worlds: clearly worse
    assert all(np.isfinite(result.values))


def test_an_exchanged_card_is_forced_without_changing_the_unseen_cards():
    state = _mid_round(2, 1)
    view = seat_view(state, state.current_player)
    world = sample_world(view, np.random.default_rng(0))
    hidden_slot = next(s for s in range(12) if world.status[world.current_player][s] == HIDDEN)
    position = _turned_up(world, hidden_slot)
    assert position == ("slot", world.current_player, hidden_slot)
    for value in {v for v, c in zip(range(-2, 13), unseen_counts(view)) if c}:
        forced = world.copy()
        _force(forced, position, value)
        assert forced.values[forced.current_player][hidden_slot] == value
        assert all(seat_view(forced, p) == seat_view(world, p) for p in range(2))  # nobody sees a difference
        unseen = sorted(
            [forced.values[p][s] for p in range(2) for s in range(12) if forced.status[p][s] == HIDDEN]
            + forced.draw_pile
        )
        before = sorted(
            [world.values[p][s] for p in range(2) for s in range(12) if world.status[p][s] == HIDDEN] + world.draw_pile
        )
        assert unseen == before
    assert _turned_up(world, DRAW) == ("draw",)


def _holding_minus_two_beside_a_twelve():
    """Seat to move holds a drawn -2 and shows a 12 (the view stays consistent: the cards it shows
    are in the deck)."""
    state = new_game(Rules(num_players=2), seed=4)
    while state.phase == Phase.SETUP_REVEAL:
        apply_action(state, legal_actions(state)[0])
    seat = state.current_player
    state.values[seat][0], state.status[seat][0] = 12, 1
    state.draw_pile[-1] = -2
    apply_action(state, DRAW)
    assert state.held_card == -2
    return state


def test_the_search_sees_that_keeping_a_minus_two_beats_discarding_it():
    # Putting the -2 on the 12 is worth about 14 points more than throwing it away (less by the
    # round's end, as the 12 might go later): the playouts must see it.
    state = _holding_minus_two_beside_a_twelve()
    bot = SearchBot(leaf="round", worlds=16, top=26, z=0, ms=NO_DEADLINE_MS, seed=0, confident=None)
    bot.act(seat_view(state, state.current_player), legal_actions(state))
    values = dict(zip(bot.last.candidates, bot.last.values))
    discard_moves = [a for a in values if a >= 12]
    assert values[0] > max(values[a] for a in discard_moves) + 2


def test_objective_win_plays_a_legal_game_and_scores_chances_of_winning():
    bot = SearchBot(worlds=8, top=2, ms=20, seed=3, objective="win")
    assert plays_a_legal_game(bot, seed=3, num_players=3, opponent="expert").is_finished
    state = _mid_round(2, 0)
    result = SearchBot(worlds=16, top=3, z=0, ms=NO_DEADLINE_MS, seed=0, objective="win").evaluate(
        seat_view(state, state.current_player), legal_actions(state)
    )
    assert result.extra["worlds"] == 16 and len(result.values) == 3
    assert all(0.0 <= v <= 1.0 for v in result.values)  # shares of the win, not points


def test_objective_win_scores_a_finished_game_by_its_result_and_a_finished_round_by_the_totals():
    bot = SearchBot(objective="win", seed=0)
    futures = RoundScores.load().futures(2, np.random.default_rng(0), count=64)
    over = played_state(2, 0, 1)
    over.totals, over.phase = [101, 60], Phase.GAME_OVER
    went_on = played_state(2, 0, 1)
    went_on.totals, went_on.round_history = [70, 90], [[10, 20]]
    assert bot._win_scores([over, over], 0, futures) == [0.0, 0.0]
    won, chance = bot._win_scores([over, went_on], 1, futures)
    assert won == 1.0
    assert chance == pytest.approx(chance_of_winning(np.array([[70, 90]]), 1, futures, 100)[0])
    assert 0.0 < chance < 0.5
    # a round cut short: the table's points (face-down cards at the mean unseen card) on the totals,
    # here past the target: the game's result, won by the lower table
    cut = _holding_minus_two_beside_a_twelve()
    cut.totals = [99, 99]
    table = _estimated_scores(cut)
    assert min(table) > 1 and table[0] != table[1]
    lower = int(np.argmin(table))
    assert [bot._win_scores([cut], seat, futures)[0] for seat in (lower, 1 - lower)] == [1.0, 0.0]


def test_the_round_margin_is_the_others_mean_less_mine():
    assert round_margin([10, 20, 30], 0) == 15.0
    assert round_margin([40, 10], 0) == -30.0


def test_each_seat_draws_its_own_run_whoever_drew_before():
    """The point of the runs: seat 1's first draw is the same card whether seat 0 drew or took the discard."""
    state = played_state(2, 20, seed=3)
    while state.phase != Phase.CHOOSE_SOURCE or TAKE_DISCARD not in legal_actions(state):
        apply_action(state, legal_actions(state)[0])
    world = sample_world(seat_view(state, state.current_player), np.random.default_rng(0))
    runs = _SeatDraws.deal(world, np.random.default_rng(1))
    assert sorted(card for run in runs.runs for card in run) == sorted(world.draw_pile)
    me, other = world.current_player, 1 - world.current_player
    firsts = []
    for first_move in (DRAW, TAKE_DISCARD):
        playout, draws = world.copy(), runs.fresh()
        draws.before(playout, first_move)
        apply_action(playout, first_move)
        if first_move == DRAW:
            assert playout.held_card == runs.runs[me][0]
        apply_action(playout, 0)  # place the card: the turn passes
        assert playout.current_player == other
        draws.before(playout, DRAW)
        apply_action(playout, DRAW)
        firsts.append(playout.held_card)
    assert firsts == [runs.runs[other][0]] * 2


def test_a_seat_whose_run_is_used_up_draws_from_the_longest_run_left():
    world = sample_world(seat_view(played_state(2, 20, seed=5), 0), np.random.default_rng(0))
    while world.phase != Phase.CHOOSE_SOURCE:
        apply_action(world, legal_actions(world)[0])
    seat = world.current_player
    world.draw_pile = [3, 7, 9]
    draws = _SeatDraws([[9], [3, 7]] if seat == 0 else [[3, 7], [9]])
    draws.taken[seat] = 1  # this seat's run is used up
    draws.before(world, DRAW)
    assert world.draw_pile[-1] == 3 and sorted(world.draw_pile) == [3, 7, 9]
    draws.before(world, TAKE_DISCARD)  # only a draw takes from the runs
    assert world.draw_pile[-1] == 3 and draws.taken[1 - seat] == 1


def test_the_card_a_seat_draws_from_its_run_follows_the_unseen_counts():
    """Whoever drew before, a draw from a run is a uniform draw from the unseen cards (chi-square over many
    worlds): here the second seat to draw, after the first drew twice."""
    state = played_state(3, 30, seed=4)
    view = seat_view(state, state.current_player)
    p = np.array(unseen_counts(view)) / sum(unseen_counts(view))
    rng = np.random.default_rng(11)
    observed = np.zeros(15)
    samples = 3000
    for _ in range(samples):
        world = sample_world(view, rng)
        draws = _SeatDraws.deal(world, rng)
        first, second = world.current_player, (world.current_player + 1) % 3
        for seat in (first, first, second):
            world.current_player = seat  # only who draws matters to the runs
            draws.before(world, DRAW)
            card = world.draw_pile.pop()
        observed[card + 2] += 1
    nonzero = p > 0
    assert observed[~nonzero].sum() == 0
    assert chi_square(observed[nonzero], samples * p[nonzero]) < CHI2_14_P001


def test_confident_is_on_by_default_and_off_by_name():
    assert SearchBot().confident == 0.99 and SearchBot().ms == 170
    assert agents.make("ppo+search:confident=0.9").confident == 0.9
    assert agents.make("ppo+search:confident=off").confident is None
    with pytest.raises(ValueError, match="confident must be a probability or off"):
        agents.make("ppo+search:confident=never")


@pytest.mark.parametrize("confident", [0.0, 1.5, -0.1])
def test_confident_must_be_a_probability(confident):
    with pytest.raises(ValueError, match="confident must be a probability"):
        SearchBot(confident=confident)


def test_a_decision_the_network_is_sure_of_is_not_searched():
    state = _mid_round(2, 3)
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    chances = _chances(view, legal)
    p = float(chances.max())  # the network's probability of its move
    assert 0.5 < p < 0.999
    network_move = legal[int(np.argmax(chances))]
    sure = SearchBot(worlds=8, batch=8, ms=NO_DEADLINE_MS, seed=0, confident=p)
    assert sure.act(view, legal) == network_move and sure.last is None  # played without a search
    unsure = SearchBot(worlds=8, batch=8, ms=NO_DEADLINE_MS, seed=0, confident=p + 1e-6)
    unsure.act(view, legal)
    assert unsure.last is not None and unsure.last.extra["worlds"] == 8


def test_a_network_of_canonical_grids_is_refused_by_the_search():
    from agents.model_file import load_policy
    from agents.ppo_bot import SHIPPED_MODEL_ALL

    network = load_policy(SHIPPED_MODEL_ALL)
    network.canonical = True
    with pytest.raises(ValueError, match="canonical order"):
        SearchBot(network)


def test_symmetry_is_off_by_default_and_on_by_name():
    assert SearchBot().symmetry is False
    assert agents.make("ppo+search:symmetry=on").symmetry is True
    assert agents.make("ppo+search:symmetry=off").symmetry is False
    with pytest.raises(ValueError, match="symmetry must be on or off"):
        agents.make("ppo+search:symmetry=yes")


def test_distinct_keeps_the_first_move_of_each_class_in_order():
    state = _mid_round(2, 6)  # holding a drawn card, with face-down cards in like columns
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    kept = _distinct(view, legal)
    keys = [move_key(view, action) for action in kept]
    assert len(set(keys)) == len(keys) < len(legal)  # some moves were equivalent, one of each kept
    assert {move_key(view, action) for action in legal} == set(keys)  # every class kept
    for action in kept:  # in the order given, each the first of its class
        first = next(a for a in legal if move_key(view, a) == move_key(view, action))
        assert action == first
    assert kept == sorted(kept, key=legal.index)


def test_with_symmetry_the_candidates_are_moves_that_differ_beyond_the_grids_arrangement():
    state = _mid_round(2, 6)  # the network's two likeliest moves are equivalent here
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    order = [legal[i] for i in np.argsort(-_chances(view, legal), kind="stable")]
    assert move_key(view, order[0]) == move_key(view, order[1])
    plain = SearchBot(worlds=8, batch=8, ms=NO_DEADLINE_MS, seed=0, confident=None).evaluate(view, legal)
    assert plain.candidates == order[:2]
    sym = SearchBot(worlds=8, batch=8, ms=NO_DEADLINE_MS, seed=0, confident=None, symmetry=True)
    result = sym.evaluate(view, legal)
    assert result.candidates[0] == order[0] == result.network_move
    assert len(result.candidates) == 2
    assert move_key(view, result.candidates[1]) != move_key(view, order[0])
    assert result.candidates[1] == next(a for a in order if move_key(view, a) != move_key(view, order[0]))


def test_with_symmetry_a_move_is_sure_when_its_class_is():
    state = _mid_round(2, 3)  # the network's move under 0.99, with the moves equivalent to it over 0.99
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    chances = _chances(view, legal)
    best = int(np.argmax(chances))
    same = sum(p for a, p in zip(legal, chances) if move_key(view, a) == move_key(view, legal[best]))
    assert chances[best] < 0.99 <= same
    plain = SearchBot(worlds=8, batch=8, ms=NO_DEADLINE_MS, seed=0)
    plain.act(view, legal)
    assert plain.last is not None  # searched
    sym = SearchBot(worlds=8, batch=8, ms=NO_DEADLINE_MS, seed=0, symmetry=True)
    assert sym.act(view, legal) == legal[best] and sym.last is None  # played without a search


def test_endgame_is_off_by_default_and_a_count_by_name():
    assert SearchBot().endgame is None
    assert agents.make("ppo+search:endgame=1").endgame == 1
    assert agents.make("ppo+search:endgame=off").endgame is None
    with pytest.raises(ValueError, match="endgame must be a number of face-down cards or off"):
        agents.make("ppo+search:endgame=soon")
    with pytest.raises(ValueError, match="endgame must be a number of face-down cards"):
        SearchBot(endgame=-1)


def test_near_the_round_end_a_decision_the_network_is_sure_of_is_searched():
    state = _mid_round(2, 3)
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    p = float(_chances(view, legal).max())
    fewest = min(len(view.hidden_slots(rel)) for rel in range(2))  # the face-down cards of the emptiest grid
    assert fewest >= 1 and view.round_ender is None
    late = SearchBot(worlds=8, batch=8, ms=NO_DEADLINE_MS, seed=0, confident=p, endgame=fewest)
    late.act(view, legal)
    assert late.last is not None and late.last.extra["worlds"] == 8  # searched though the network is sure
    early = SearchBot(worlds=8, batch=8, ms=NO_DEADLINE_MS, seed=0, confident=p, endgame=fewest - 1)
    assert early.act(view, legal) == legal[int(np.argmax(_chances(view, legal)))] and early.last is None


def test_in_the_last_lap_every_decision_is_late():
    rng = np.random.default_rng(0)
    state = _mid_round(3, 5)
    while state.round_ender is None or len(legal_actions(state)) < 2:
        legal = legal_actions(state)
        apply_action(state, DRAW if DRAW in legal and rng.random() < 0.5 else int(rng.choice(legal)))
    view = seat_view(state, state.current_player)
    assert view.round_ender is not None
    assert SearchBot(endgame=0)._late(view)
    assert not SearchBot()._late(view)  # endgame off: never late


def test_endtop_is_off_by_default_and_a_width_by_name():
    assert SearchBot().endtop is None
    assert agents.make("ppo+search:endtop=all").endtop == "all"
    assert agents.make("ppo+search:endtop=3").endtop == 3
    assert agents.make("ppo+search:endtop=off").endtop is None
    with pytest.raises(ValueError, match="endtop must be a number of moves, all or off"):
        agents.make("ppo+search:endtop=many")
    for bad in (0, "most"):
        with pytest.raises(ValueError, match="endtop must be a number of moves"):
            SearchBot(endtop=bad)


def _near_round_end(seed: int):
    """A state where some grid has one face-down card and the current player holds a drawn card."""
    rng = np.random.default_rng(seed)
    state = _mid_round(2, seed)
    while True:
        fewest = min(sum(s == HIDDEN for s in state.status[seat]) for seat in range(2))
        if fewest <= 1 and state.phase == Phase.HOLDING_DRAWN and state.round_ender is None:
            return state
        legal = legal_actions(state)
        apply_action(state, DRAW if DRAW in legal else int(rng.choice(legal)))
        assert not state.round_history, "the round ended before a late decision: pick another seed"


def test_near_the_round_end_endtop_searches_every_legal_move():
    state = _near_round_end(4)
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    assert len(legal) > 3
    plain = SearchBot(worlds=8, batch=8, ms=NO_DEADLINE_MS, seed=0, confident=None)
    assert len(plain.evaluate(view, legal).candidates) == 2  # top=2
    wide = SearchBot(worlds=8, batch=8, ms=NO_DEADLINE_MS, seed=0, confident=None, endtop="all")
    result = wide.evaluate(view, legal)
    assert sorted(result.candidates) == sorted(legal)
    assert result.candidates[0] == result.network_move  # the network's move first, as ever
    three = SearchBot(worlds=8, batch=8, ms=NO_DEADLINE_MS, seed=0, confident=None, endtop=3)
    assert three.evaluate(view, legal).candidates == result.candidates[:3]  # the network's order
    # endgame sets what is near the end: with endgame=0 a grid with one face-down card is not
    assert len(SearchBot(worlds=8, batch=8, seed=0, endtop="all", endgame=0).evaluate(view, legal).candidates) == 2


def test_before_the_round_end_endtop_changes_nothing():
    state = _mid_round(2, 3)
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    assert min(len(view.hidden_slots(rel)) for rel in range(2)) > 1 and view.round_ender is None
    plain = SearchBot(worlds=8, batch=8, ms=NO_DEADLINE_MS, seed=0).evaluate(view, legal)
    wide = SearchBot(worlds=8, batch=8, ms=NO_DEADLINE_MS, seed=0, endtop="all").evaluate(view, legal)
    assert wide.candidates == plain.candidates and wide.values == plain.values


def test_by_default_another_move_is_played_where_it_is_better_by_one_standard_error():
    bot = SearchBot()
    assert bot.z == 1.0
    network_move, other = 3, 5
    assert bot._choose([network_move, other], [0.0, 1.5], [0.0, 1.0], network_move) == other  # 1.5 SE better
    assert bot._choose([network_move, other], [0.0, 0.9], [0.0, 1.0], network_move) == network_move
    assert agents.make("ppo+search:z=2").z == 2.0
    assert SearchBot(z=2)._choose([network_move, other], [0.0, 1.5], [0.0, 1.0], network_move) == network_move


def _headroom_benchmark():
    """benchmarks/search_headroom.py as a module (the benchmarks are scripts, not a package)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "search_headroom.py"
    spec = importlib.util.spec_from_file_location("search_headroom", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_headroom_benchmark_reads_the_worlds_the_search_dealt_and_what_also_adds(capsys):
    bench = _headroom_benchmark()
    rng = np.random.default_rng(0)
    cards = rng.integers(-2, 13, size=(64, 5)).astype(float)
    noise = rng.normal(0, 1, 64)
    explained = bench._explained(np.stack([cards @ [1, -2, 0, 0, 3], noise]), cards)
    assert explained[0] > 0.999 and abs(explained[1]) < 0.15  # a linear function of the cards; noise
    assert (
        bench.main(["--positions", "2", "--worlds", "40", "--top", "2", "--also", "expert", "--control-variates"]) == 0
    )
    out = capsys.readouterr().out
    assert "explain linearly (adjusted R^2): median" in out and "over 0 comparisons" not in out
    assert "expert's move another move than the network's 2 likeliest:" in out
    # --late: decisions near the round's end, each width's gain apart for the decisions the default searches
    assert bench.main(["--positions", "3", "--worlds", "8", "--top", "all", "--late", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "gain of picking among the network's k likeliest moves where" in out and "  k=all: " in out
    with pytest.raises(SystemExit):
        bench.main(["--model-opponent"])  # which bot to play in the playouts: none named
    assert "--model-opponent plays --opponent in the playouts" in capsys.readouterr().err
    # the worlds noted are the search's own: as many as it played, each with one run of draws a seat
    state = _mid_round(2, 1)
    view, legal = seat_view(state, state.current_player), legal_actions(state)
    worlds, runs = [], []
    search = SearchBot(worlds=8, batch=8, top=2, z=0, ms=NO_DEADLINE_MS, seed=0, opponents="network")
    with bench._recording(worlds, runs):
        result = search.evaluate(view, legal)
    assert len(worlds) == len(runs) == result.extra["worlds"] == 8
    assert bench._cards(worlds, runs).shape == (8, 2 * 12 + 2 * 4)
    assert all(seat_view(world, seat) == seat_view(state, seat) for world in worlds for seat in range(2))
