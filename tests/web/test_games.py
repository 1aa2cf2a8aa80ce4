"""The game logic behind the web app, without HTTP: opponents, hints, narration, the store."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from agents.ppo_bot import SHIPPED_MODEL_2P
from agents.search import SearchBot
from skyjo_env.engine import REVEAL_FIRST, Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.view import seat_view
from skyjo_env.seated import tell_history
from skyjo_env.web.errors import AgentLoadError, BadRequest, GameNotFound
from skyjo_env.web.game import Game, new_game_from_json
from skyjo_env.web.replay import Replay
from skyjo_env.web.roster import AgentChoice, Roster, policy_probabilities
from skyjo_env.web.store import GameStore
from skyjo_env.web.table import Table
from tests.engine.scenario import grid, hidden, scenario


class LogitsModel:
    """A stand-in for a trained model: fixed logits, for `num_players` seats."""

    def __init__(self, logits: np.ndarray, num_players: int = 2, method: str = "action_logits") -> None:
        self.name = "stub"
        self.num_players = num_players
        setattr(self, method, lambda observation: logits)

    def reset(self, seed=None):
        pass

    def act(self, view, legal_actions):
        return legal_actions[0]


def test_hint_probabilities_are_a_softmax_over_the_legal_logits_only():
    state = Table(Rules(), 1, 0, ["you", "random"]).state
    legal = [12, 13, 14]
    logits = np.full(26, 50.0)  # illegal actions have huge logits: they must not count
    logits[[12, 13, 14]] = [0.0, np.log(2.0), np.log(5.0)]
    for method in ("action_logits", "logits"):
        p = policy_probabilities(LogitsModel(logits, method=method), seat_view(state, 0), legal)
        assert p == pytest.approx({12: 1 / 8, 13: 2 / 8, 14: 5 / 8})
    with pytest.raises(ValueError, match="expected 26 finite numbers"):
        policy_probabilities(LogitsModel(np.zeros(10)), seat_view(state, 0), legal)


def test_a_model_given_at_start_is_offered_by_its_file_name(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        shutil.copy(SHIPPED_MODEL_2P, tmp_path / folder / "mine.safetensors")
    roster = Roster([str(tmp_path / "a" / "mine.safetensors"), str(tmp_path / "b" / "mine.safetensors"), "greedy"])
    assert {"mine.safetensors", "mine.safetensors#2"} <= set(roster.choices)
    listed = {a["id"]: a for a in roster.describe()}
    assert listed["mine.safetensors"]["players"] == [2] and listed["mine.safetensors"]["from_file"]
    bot = roster.make("mine.safetensors", 2, seed=3)
    assert bot is not roster.choices["mine.safetensors"].prototype
    with pytest.raises(BadRequest, match="trained for 2 players; this table has 4 seats"):
        roster.make("mine.safetensors", 4, seed=3)
    assert roster.hint_model(2)[1] == "ppo"  # the shipped agent comes first


def test_a_model_for_every_table_size_plays_and_hints_at_each(tmp_path, monkeypatch):
    from agents.model_file import save_policy
    from skyjo_env.web import roster as games
    from tests.agents.test_seats_network import seats_network

    monkeypatch.setattr(games, "HINT_MODEL", "ppo_2p")  # so that the file's model gives the hints at 3 and 8

    path = save_policy(seats_network(), tmp_path / "every.safetensors")
    roster = Roster([str(path)])
    assert {a["id"]: a for a in roster.describe()}["every.safetensors"]["players"] == [2, 3, 4, 5, 6, 7, 8]
    for n in (3, 8):
        roster.make("every.safetensors", n, seed=1)
        bot, name = roster.hint_model(n)
        assert name == "every.safetensors" and bot is not None
        state = new_game(Rules(num_players=n), seed=2)
        legal = legal_actions(state)
        assert sum(policy_probabilities(bot, seat_view(state, 0), legal).values()) == pytest.approx(1.0)


def test_table_sizes_read_as_a_range_or_a_list():
    from agents.base import sizes_text

    assert [sizes_text(p) for p in [(2,), (2, 4), (2, 3, 4, 5, 6, 7, 8), ()]] == ["2", "2, 4", "2-8", "any number of"]


def test_agents_that_cannot_be_loaded_fail_at_start(tmp_path):
    with pytest.raises(AgentLoadError, match="no such file, and not a bot name"):
        Roster([str(tmp_path / "missing.zip")])
    junk = tmp_path / "junk.zip"
    junk.write_text("not a model")
    with pytest.raises(AgentLoadError, match="junk.zip"):
        Roster([str(junk)])


def test_the_hint_uses_a_model_made_for_the_table_size(monkeypatch):
    from skyjo_env.web import roster as games

    monkeypatch.setattr(games, "HINT_MODEL", "ppo_2p")  # the shipped hint model for 2 players only
    roster = Roster()
    three = LogitsModel(np.zeros(26), num_players=3)
    roster.choices["three.zip"] = AgentChoice("three.zip", "three.zip", "a 3-player model", True, prototype=three)
    assert roster.hint_model(3) == (three, "three.zip")
    bot, reason = roster.hint_model(4)
    assert bot is None and "no hint for 4 players" in reason and "three.zip: 3 players" in reason


def finished_game() -> Game:
    game = new_game_from_json({"opponents": ["random"], "seed": 1}, Roster())
    game.table.state.is_truncated = True  # a game that can go no further
    assert game.table.finished
    return game


def test_the_store_never_refuses_and_closes_the_game_idle_longest():
    now = [0.0]
    store = GameStore(max_games=3, idle_seconds=10, clock=lambda: now[0])
    games = []
    for t in range(3):
        now[0] = float(t)
        games.append(store.add(new_game_from_json({"opponents": ["random"], "seed": t}, Roster())))
    assert len({*games}) == 3 and all(len(i) >= 20 for i in games)
    now[0] = 3.0
    store.get(games[0], Game)  # a request: the first game is now the most recently used
    fourth = store.add(new_game_from_json({"opponents": ["random"], "seed": 9}, Roster()))
    with pytest.raises(GameNotFound, match="closed for a newer one"):
        store.get(games[1], Game)  # the one idle longest made room
    for key in (games[0], games[2], fourth):
        store.get(key, Game)
    assert store.live == 3


def test_finished_games_and_replays_do_not_count_among_the_games_in_progress():
    store = GameStore(max_games=2, idle_seconds=10, clock=lambda: 0.0)
    replay = Replay(
        {"format": "skyjo-game-record", "version": 1, "rules": {"num_players": 2}, "seed": 1, "seat": 0, "actions": []}
    )
    playing = [store.add(new_game_from_json({"opponents": ["random"], "seed": s}, Roster())) for s in (1, 2)]
    kept = [store.add(replay), store.add(finished_game())]
    assert store.live == 2 and len(store) == 4
    for key in playing:
        store.get(key, Game)
    with pytest.raises(GameNotFound, match="no game with id"):
        store.get(kept[0], Game)  # a replay is not a game
    store.add(replay)  # a third finished-or-replay item: the oldest of them goes, no game in progress
    assert store.live == 2 and len(store) == 4


def test_idle_items_expire_and_bad_store_sizes_are_refused():
    now = [0.0]
    store = GameStore(max_games=3, idle_seconds=10, clock=lambda: now[0])
    store.add(finished_game())
    now[0] = 11.0
    assert len(store) == 0
    with pytest.raises(ValueError, match="max_games"):
        GameStore(0, 10)
    with pytest.raises(ValueError, match="idle_seconds"):
        GameStore(1, 0)


def test_every_seat_shares_the_loaded_network():
    roster = Roster()
    game = new_game_from_json({"opponents": ["ppo"] * 7, "seed": 3}, roster)
    prototype = roster.get("ppo").prototype
    networks = {id(bot.network) for bot in game.bots.values()}
    assert networks == {id(prototype.network)}
    assert len({id(bot) for bot in game.bots.values()}) == 7  # but each seat has its own bot (its own seed)


def table_at(state) -> Table:
    table = Table(state.rules, 0, 0, ["you", "greedy"] + ["random"] * (state.num_players - 2))
    table.state = state
    return table


def test_a_column_clear_is_told():
    state = scenario(
        [
            grid([[5, hidden(1), hidden(2), hidden(3)], [5, 1, 2, 3], [hidden(7), 4, 4, 4]]),
            grid([[1] * 4, [2] * 4, [3, 3, 3, hidden(3)]]),
        ],
        phase="holding_drawn",
        held_card=5,
        held_from="draw",
    )
    event = table_at(state).apply(2)  # the 5 onto column 1, row 3
    assert event["texts"] == [
        "You placed the 5 at column 1, row 3 and discarded a 7 (it was face-down).",
        "You cleared column 1: three 5s go to the discard pile.",
    ]
    assert [c["status"] for c in event["frame"]["players"][0]["cards"][:3]] == ["removed"] * 3
    assert event["frame"]["discard_top"] == 5 and event["round_over"] is None


def test_the_round_end_shows_every_card_the_final_clears_and_the_doubling():
    ender = grid([[1, 2, 3, 4], [0, 0, 1, 1], [2, 2, 0, 1]])  # 17 points, all face-up
    last = grid([[0, -1, -2, -1], [0, -1, 0, -1], [hidden(0), hidden(2), hidden(1), hidden(3)]])
    state = scenario(
        [ender, last],
        phase="holding_drawn",
        current_player=1,
        held_card=9,
        held_from="draw",
        round_ender=0,
        final_turns_left=1,
    )
    event = table_at(state).apply(REVEAL_FIRST + 11)  # player_1's last turn: discard the 9, turn column 4, row 3
    result = event["round_over"]
    assert result["ender"] == 0
    assert result["raw_scores"] == [17, 0] and result["scores"] == [34, 0] and result["ender_doubled"]
    assert result["cleared"] == {"1": [0]}  # 0, 0 and the face-down 0 of column 1, at the final reveal
    assert result["grids"][1][:3] == [None, None, None] and result["grids"][1][3:6] == [-1, -1, 2]
    assert result["totals"] == [34, 0]
    assert event["texts"] == [
        "player_1 discarded the 9 and turned column 4, row 3 face-up: 3.",
        "Round 1 is over (You turned the last card); every card is turned face-up.",
        "player_1: column 1 cleared.",
        "You ended the round without the strictly lowest score: 17 is doubled to 34.",
        "Round scores: You 34, player_1 0. Totals: You 34, player_1 0.",
    ]
    frame = event["frame"]
    assert frame["round"] == 1 and frame["phase"] == "setup_reveal" and frame["round_history"] == [[34, 0]]
    assert frame["last_round"]["grids"] == result["grids"]


def test_a_truncated_game_is_told_and_has_no_winner():
    state = scenario(
        [grid([[1, 2, 3, 4], [5, 6, 7, 8], [hidden(9), 9, hidden(10), 10]]), grid([[1] * 4, [2] * 4, [hidden(3)] * 4])],
        phase="holding_discard",
        current_player=1,
        held_card=5,
        held_from="discard",
        turns_in_round=1,
        max_turns_per_round=1,
    )
    event = table_at(state).apply(0)
    assert "turn limit" in event["texts"][-1]
    frame = event["frame"]
    assert frame["finished"] and frame["truncated"] and not frame["game_over"] and frame["winners"] == []
    assert frame["to_play"] is None and frame["legal"] == []


class _Observer:
    """A bot that plays the first legal move and notes, at each move, what it had been told of the game."""

    name = "observer"

    def __init__(self) -> None:
        self.told: list[int] = []
        self.known_when_asked: list[list[int]] = []

    def reset(self, seed=None) -> None:
        self.told = []  # like any bot, it forgets the game when reset

    def act(self, view, legal):
        self.known_when_asked.append(list(self.told))
        return legal[0]

    def observe(self, view, legal, action) -> None:
        self.told.append(action)


class _ReseedingObserver(_Observer):
    """An observer that can be reseeded without forgetting: the browser tells it only the new moves."""

    def __init__(self) -> None:
        super().__init__()
        self.resets = 0

    def reset(self, seed=None) -> None:
        self.resets += 1
        super().reset(seed)

    def reseed(self, seed=None) -> None:
        pass


@pytest.mark.parametrize("kind", [_Observer, _ReseedingObserver])
def test_a_bot_that_observes_is_told_every_move_before_each_of_its_own(kind):
    observer = kind()
    rules = Rules(num_players=2)
    table = Table(rules, 5, 0, ["you", "observer"])
    game = Game(table, {1: "observer"}, {1: observer})
    while len(table.actions) < 60 and not table.finished:
        game.play(legal_actions(table.state)[-1])
    replay, its_steps = new_game(rules, seed=5), []
    for step, action in enumerate(table.actions):
        if replay.current_player == 1:
            its_steps.append(step)
        apply_action(replay, action)
    assert len(its_steps) > 20
    assert observer.known_when_asked == [table.actions[:step] for step in its_steps]
    if kind is _ReseedingObserver:  # reset once, before its first move; then reseeded and told the new moves
        assert observer.resets == 1


def test_the_default_search_in_the_browser_models_its_opponents_from_the_games_moves():
    roster = Roster(["ppo+search"])
    game = new_game_from_json({"opponents": ["ppo+search", "ppo+search"], "seed": 4}, roster)
    table = game.table
    while len(table.actions) < 60:
        game.play(legal_actions(table.state)[-1])  # the bots answer until the human's turn
    one, two = (game.bots[seat].opponents for seat in (1, 2))
    # each search bot plays its moves with the network: the other one models it so
    assert one.summary(3, 1)[2] == "network" and two.summary(3, 2)[1] == "network"
    assert one.counted[0] > 5 and one.counted[2] > 5
    # told the new moves before each of its moves, it knows what a bot told the whole game at once knows
    for seat in (1, 2):
        fresh = SearchBot()
        tell_history(fresh, table.rules, table.seed, table.actions[: game.told[seat]])
        for other in {0, 1, 2} - {seat}:
            assert list(fresh.opponents.hits[other]) == list(game.bots[seat].opponents.hits[other])
