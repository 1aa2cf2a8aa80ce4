"""Nothing the browser receives tells a face-down card or the draw pile's order.

Two checks over many random games played through the API:

- shape: every answer has exactly the fields the page knows (so a new field must be added
  here on purpose), and every card that is not face-up carries no value;
- invariance: after any move, the face-down cards and the draw pile are shuffled in the
  server's state, and the table, the narration and the hint must not change at all.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from skyjo_env.web.app import create_app
from skyjo_env.web.game import Game
from skyjo_env.web.table import Table
from tests.helpers import random_states, shuffle_hidden_information
from tests.web import LOCAL

FRAME_KEYS = {
    "step", "you", "num_players", "round", "phase", "to_play", "your_turn", "legal", "players", "discard_top",
    "discard_count", "draw_count", "held", "round_ender", "round_history", "last_round", "finished", "game_over",
    "truncated", "winners", "rules",
}  # fmt: skip
PLAYER_KEYS = {"seat", "name", "agent", "total", "visible_score", "cards"}
EVENT_KEYS = {"step", "seat", "round", "texts", "action", "round_over", "frame"}
ROUND_KEYS = {"round", "ender", "grids", "raw_scores", "scores", "ender_doubled", "cleared"}


def check_frame(frame: dict) -> None:
    assert set(frame) == FRAME_KEYS
    for player in frame["players"]:
        assert set(player) == PLAYER_KEYS
        assert len(player["cards"]) == 12
        for card in player["cards"]:
            assert set(card) == {"status", "value"}
            assert card["status"] in ("up", "down", "removed")
            if card["status"] != "up":
                assert card["value"] is None, "a face-down or removed card carries a value"
    assert isinstance(frame["draw_count"], int)
    assert frame["held"] is None or set(frame["held"]) == {"card", "from"}
    if frame["last_round"] is not None:
        assert set(frame["last_round"]) == ROUND_KEYS


def check_events(events: list[dict]) -> None:
    for event in events:
        assert set(event) == EVENT_KEYS
        assert all(isinstance(t, str) for t in event["texts"])
        if event["round_over"] is not None:
            assert set(event["round_over"]) == ROUND_KEYS | {"totals"}
        check_frame(event["frame"])


@pytest.fixture(scope="module")
def shared_client():
    with TestClient(create_app(max_games=10_000, idle_seconds=3600), base_url=LOCAL) as client:
        yield client


def public_answers(client: TestClient, gid: str, with_hint: bool) -> str:
    answers = [client.get(f"/api/games/{gid}").json()]
    if with_hint:
        answers.append(client.get(f"/api/games/{gid}/hint").json())
    return json.dumps(answers, sort_keys=True)


GAMES = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**31 - 1),
        "opponents": st.lists(st.sampled_from(["random", "greedy", "expert"]), min_size=1, max_size=7),
        "seat": st.integers(0, 7),
        "rules": st.fixed_dictionaries(
            {
                "target_score": st.integers(15, 60),
                "reshuffle": st.sampled_from(["keep_top", "all"]),
                "initial_reveal": st.sampled_from(["choice", "random"]),
                "clear_on_final_reveal": st.booleans(),
            }
        ),
    }
)


def play_and_check(client: TestClient, setup: dict) -> None:
    """A random game through the API: every answer checked for shape, and for invariance every third move."""
    n = len(setup["opponents"]) + 1
    r = client.post("/api/games", json={**setup, "seat": setup["seat"] % n})
    assert r.status_code == 201, r.text
    g = r.json()
    gid, frame = g["id"], g["frame"]
    check_events(g["events"])
    check_frame(frame)
    game = client.app.state.server.store.get(gid, Game)
    rng = np.random.default_rng(setup["seed"])
    with_hint = n == 2  # the shipped model plays 2 players
    moves = 0
    while not frame["finished"] and moves < 400:
        if moves % 3 == 0:
            before = public_answers(client, gid, with_hint and moves % 9 == 0)
            game.table.state = shuffle_hidden_information(game.table.state, rng)
            assert public_answers(client, gid, with_hint and moves % 9 == 0) == before
        action = int(rng.choice(frame["legal"]))
        r = client.post(f"/api/games/{gid}/actions", json={"action": action, "step": frame["step"]})
        assert r.status_code == 200, r.text
        check_events(r.json()["events"])
        frame = r.json()["frame"]
        check_frame(frame)
        moves += 1
    client.delete(f"/api/games/{gid}")


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=GAMES)
def test_no_answer_tells_a_face_down_card_or_the_draw_pile(shared_client, setup):
    play_and_check(shared_client, setup)


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=GAMES)
def test_no_answer_tells_a_face_down_card_or_the_draw_pile_in_many_more_games(shared_client, setup):
    play_and_check(shared_client, setup)


@pytest.mark.parametrize("num_players", [2, 3, 5, 8])
def test_every_frame_met_in_play_is_blind_to_hidden_cards(num_players):
    """The frames of the bots' moves too: for any state, whoever is to play."""
    rng = np.random.default_rng(num_players)
    for k, state in enumerate(random_states(num_players, games=3, seed=num_players, every=7)):
        you = k % num_players
        table = Table(state.rules, 0, you, ["you" if s == you else "random" for s in range(num_players)])
        table.state = state
        seen = table.frame()
        check_frame(seen)
        table.state = shuffle_hidden_information(state, rng)
        assert table.frame() == seen
