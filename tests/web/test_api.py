"""The HTTP API of `skyjo serve`, endpoint by endpoint, with every kind of bad input.

Each refused request must answer 4xx with a JSON message, and leave the
game exactly as it was.
"""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

import agents
from skyjo_env.engine import DRAW, REVEAL_FIRST, TAKE_DISCARD, Rules
from skyjo_env.web.app import MAX_BODY, create_app
from skyjo_env.web.game import Game
from tests.web import LOCAL

JSON_BODY = {"Content-Type": "application/json"}


def new_game(client: TestClient, **body) -> dict:
    body.setdefault("opponents", ["random"])
    body.setdefault("seed", 5)
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def refused(response, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    assert words in response.json()["error"], response.json()["error"]


def game_state(client: TestClient, game_id: str) -> dict:
    """Everything the server holds about a game (the engine's full snapshot, the record, the narration)."""
    game = client.app.state.server.store.get(game_id, Game)
    return {"state": game.table.state.to_dict(), "record": game.record(), "log": list(game.table.log)}


# ------------------------------------------------------------------- page
def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert '<script src="/static/app.js"' in page.text
    for name, kind in (("app.js", "javascript"), ("style.css", "text/css")):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and kind in r.headers["content-type"]
    assert client.get("/static/nothing.js").status_code == 404


def test_options_list_every_bot_and_every_rule_option(client):
    options = client.get("/api/options").json()
    assert [a["id"] for a in options["agents"]] == agents.available()
    assert [r["name"] for r in options["rules"]] == [n for n in Rules.field_names() if n != "num_players"]
    by_name = {r["name"]: r for r in options["rules"]}
    assert by_name["reshuffle"]["choices"] == ["keep_top", "all"]
    assert by_name["clear_on_final_reveal"]["kind"] == "bool"
    assert by_name["max_turns_per_round"] == {**by_name["max_turns_per_round"], "kind": "int", "nullable": True}
    assert (options["min_players"], options["max_players"]) == (2, 8)
    # the page takes the action numbers from here, not from a copy of its own
    assert options["actions"] == {"draw": 24, "take_discard": 25, "reveal_first": 12, "slots": 12}
    assert options["slot_names"][0] == "column 1, row 1" and options["slot_names"][5] == "column 2, row 3"


# --------------------------------------------------------------- new game
def test_a_new_game_starts_with_the_humans_setup_reveal(client):
    g = new_game(client, rules={"target_score": 50})
    assert len(g["id"]) >= 20
    frame = g["frame"]
    assert frame["phase"] == "setup_reveal" and frame["your_turn"] and frame["you"] == 0
    assert frame["legal"] == list(range(REVEAL_FIRST, DRAW))
    assert frame["rules"]["target_score"] == 50
    assert [p["agent"] for p in frame["players"]] == ["you", "random"]
    assert g["events"] == [] and g["log"] == []
    assert new_game(client)["id"] != g["id"]


def test_when_the_human_sits_later_the_bots_before_them_reveal_first(client):
    g = new_game(client, opponents=["greedy", "random"], seat=2)
    assert [e["seat"] for e in g["events"]] == [0, 0, 1, 1]
    assert all("turned" in e["texts"][0] for e in g["events"])
    assert g["frame"]["your_turn"] and g["frame"]["you"] == 2
    assert [p["name"] for p in g["frame"]["players"]] == ["player_0", "player_1", "You"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, "opponents must be a list"),
        ({"opponents": []}, "opponents must be a list of 1 to 7"),
        ({"opponents": ["random"] * 8}, "opponents must be a list of 1 to 7"),
        ({"opponents": [3]}, "opponents must be a list"),
        ({"opponents": ["nobody"]}, "unknown opponent 'nobody'"),
        ({"opponents": ["/etc/passwd"]}, "unknown opponent '/etc/passwd'"),
        ({"opponents": ["random"], "colour": "red"}, "unknown field(s) ['colour']"),
        ({"opponents": ["random"], "rules": {"speed": 2}}, "unknown rule option(s) ['speed']"),
        ({"opponents": ["random"], "rules": {"target_score": 0}}, "target_score must be an int >= 1"),
        ({"opponents": ["random"], "rules": {"reshuffle": "never"}}, "reshuffle must be 'keep_top' or 'all'"),
        ({"opponents": ["random"], "rules": {"num_players": 3}}, "the table has 2 seats"),
        ({"opponents": ["random"], "rules": [1]}, "rules must be an object"),
        ({"opponents": ["random"], "seed": -1}, "seed must be an integer"),
        ({"opponents": ["random"], "seed": "7"}, "seed must be an integer"),
        ({"opponents": ["random"], "seed": True}, "seed must be an integer"),
        ({"opponents": ["random"], "seat": 2}, "seat must be an integer 0..1"),
        ({"opponents": ["random"], "seat": 0.0}, "seat must be an integer 0..1"),
    ],
)
def test_a_bad_new_game_is_refused_with_a_message(client, body, words):
    refused(client.post("/api/games", json=body), 400, words)
    assert len(client.app.state.server.store) == 0


def test_a_model_for_another_table_size_is_refused(client):
    refused(client.post("/api/games", json={"opponents": ["ppo_2p", "random"]}), 400, "trained for 2 players")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "needs a JSON body"),
        (b"{", "malformed JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (b"[1, 2]", "expected a JSON object"),
        (b"null", "expected a JSON object"),
    ],
)
def test_malformed_json_is_refused(client, content, words):
    refused(client.post("/api/games", content=content, headers=JSON_BODY), 400, words)


def test_a_body_over_the_limit_is_refused(client):
    big = json.dumps({"opponents": ["random"], "pad": "x" * MAX_BODY})
    refused(client.post("/api/games", content=big, headers=JSON_BODY), 413, "over")


def test_a_full_store_closes_the_game_idle_longest_and_idle_games_expire():
    now = [0.0]
    with TestClient(create_app(max_games=2, idle_seconds=60, clock=lambda: now[0]), base_url=LOCAL) as client:
        first = new_game(client)["id"]
        now[0] = 10.0
        second = new_game(client)["id"]
        now[0] = 20.0
        client.get(f"/api/games/{first}")  # a request keeps a game fresh: the second is now idle longest
        third = new_game(client)["id"]  # never refused
        refused(client.get(f"/api/games/{second}"), 404, "closed for a newer one")
        assert client.get(f"/api/games/{first}").status_code == 200
        now[0] = 200.0
        refused(client.get(f"/api/games/{first}"), 404, "expired")
        refused(client.get(f"/api/games/{third}"), 404, "expired")
        assert len(client.app.state.server.store) == 0


def test_a_hundred_new_games_in_a_row_are_never_refused_and_each_ends_the_last(client):
    """The page sends `replaces` with the game it leaves: one player keeps one game in progress."""
    gid = new_game(client)["id"]
    for seed in range(100):
        r = client.post("/api/games", json={"opponents": ["random"], "seed": seed, "replaces": gid})
        assert r.status_code == 201, r.text
        refused(client.get(f"/api/games/{gid}"), 404, "no game with id")
        gid = r.json()["id"]
    assert client.app.state.server.store.live == 1
    refused(client.post("/api/games", json={"opponents": ["random"], "replaces": 5}), 400, "replaces must be")
    assert client.app.state.server.store.live == 1
    r = client.post("/api/games", json={"opponents": ["random"], "replaces": "gone"})  # already ended: fine
    assert r.status_code == 201 and client.app.state.server.store.live == 2


# -------------------------------------------------------------------- play
def test_a_legal_action_is_played_and_the_bot_replies(client):
    g = new_game(client, opponents=["greedy"])
    gid = g["id"]
    for slot in (0, 1):
        r = client.post(f"/api/games/{gid}/actions", json={"action": REVEAL_FIRST + slot})
        assert r.status_code == 200, r.text
    events = r.json()["events"]
    assert events[0]["seat"] == 0 and events[0]["action"] == REVEAL_FIRST + 1
    assert [e["seat"] for e in events[1:3]] == [1, 1]  # greedy's two setup reveals
    frame = r.json()["frame"]
    assert frame == client.get(f"/api/games/{gid}").json()["frame"]
    assert frame["step"] == len(client.get(f"/api/games/{gid}/record").json()["actions"])
    if frame["your_turn"]:
        assert frame["phase"] == "choose_source" and frame["legal"] == [DRAW, TAKE_DISCARD]
    log = client.get(f"/api/games/{gid}").json()["log"]
    assert log[0]["texts"][0].startswith("You turned column 1, row 1 face-up: ")
    assert log[1]["texts"][0].startswith("You turned column 1, row 2 face-up: ")
    assert log[2]["texts"][0].startswith("player_1 turned ")


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"action": DRAW}, 409, "illegal action 24"),  # drawing during the setup reveals
        ({"action": 99}, 400, "action must be an integer 0..25"),
        ({"action": -1}, 400, "action must be an integer 0..25"),
        ({"action": "12"}, 400, "action must be an integer"),
        ({"action": 12.0}, 400, "action must be an integer"),
        ({"action": True}, 400, "action must be an integer"),
        ({"action": None}, 400, "action must be an integer"),
        ({}, 400, 'expected {"action"'),
        ({"action": 12, "why": 1}, 400, "unknown field(s) ['why']"),
        ({"action": 12, "step": 3}, 409, "stale move"),
        ({"action": 12, "step": "0"}, 400, "step must be an integer"),
    ],
)
def test_a_refused_action_leaves_the_game_unchanged(client, body, status, words):
    gid = new_game(client)["id"]
    client.post(f"/api/games/{gid}/actions", json={"action": REVEAL_FIRST})
    before = game_state(client, gid)
    refused(client.post(f"/api/games/{gid}/actions", json=body), status, words)
    assert game_state(client, gid) == before


def test_malformed_json_for_an_action_leaves_the_game_unchanged(client):
    gid = new_game(client)["id"]
    before = game_state(client, gid)
    refused(
        client.post(f"/api/games/{gid}/actions", content=b'{"action": 12', headers=JSON_BODY), 400, "malformed JSON"
    )
    refused(client.post(f"/api/games/{gid}/actions", content=b"[12]", headers=JSON_BODY), 400, 'expected {"action"')
    assert game_state(client, gid) == before


def test_unknown_ids_get_404_on_every_game_endpoint(client):
    gid = new_game(client)["id"]
    fake = gid[:-2] + ("AA" if not gid.endswith("AA") else "BB")
    refused(client.get(f"/api/games/{fake}"), 404, "no game with id")
    refused(client.post(f"/api/games/{fake}/actions", json={"action": 12}), 404, "no game with id")
    refused(client.get(f"/api/games/{fake}/hint"), 404, "no game with id")
    refused(client.get(f"/api/games/{fake}/record"), 404, "no game with id")
    refused(client.delete(f"/api/games/{fake}"), 404, "no game with id")
    refused(client.get(f"/api/replays/{gid}/steps/0"), 404, "no replay with id")  # a game is not a replay


def play_to_the_end(client: TestClient, gid: str, frame: dict) -> dict:
    """The human always plays its lowest legal action: reveals first, so rounds end quickly."""
    while not frame["finished"]:
        r = client.post(f"/api/games/{gid}/actions", json={"action": max(frame["legal"]), "step": frame["step"]})
        assert r.status_code == 200, r.text
        frame = r.json()["frame"]
    return frame


def test_a_finished_game_shows_the_winners_and_refuses_more_moves(client):
    g = new_game(client, opponents=["greedy"], rules={"target_score": 30})
    frame = play_to_the_end(client, g["id"], g["frame"])
    assert frame["game_over"] and frame["winners"]
    best = min(p["total"] for p in frame["players"])
    assert frame["winners"] == [p["seat"] for p in frame["players"] if p["total"] == best]
    assert max(p["total"] for p in frame["players"]) >= 30
    assert frame["last_round"]["grids"] and frame["legal"] == [] and frame["to_play"] is None
    log = client.get(f"/api/games/{g['id']}").json()["log"]
    assert "Game over" in log[-1]["texts"][-1]
    refused(client.post(f"/api/games/{g['id']}/actions", json={"action": 24}), 409, "the game is finished")
    refused(client.get(f"/api/games/{g['id']}/hint"), 409, "your own turn")


def test_delete_ends_a_game(client):
    gid = new_game(client)["id"]
    assert client.delete(f"/api/games/{gid}").status_code == 204
    refused(client.get(f"/api/games/{gid}"), 404, "no game")


# -------------------------------------------------------------------- hint
def test_the_hint_is_the_shipped_agents_probabilities_over_the_legal_moves(client):
    g = new_game(client)
    hint = client.get(f"/api/games/{g['id']}/hint").json()
    assert hint["available"] and hint["model"] == "ppo" and hint["step"] == 0
    probabilities = {int(a): p for a, p in hint["probabilities"].items()}
    assert sorted(probabilities) == g["frame"]["legal"]
    assert sum(probabilities.values()) == pytest.approx(1.0)


def test_the_shipped_agent_hints_at_every_table_size(client):
    g = new_game(client, opponents=["random"] * 5)
    hint = client.get(f"/api/games/{g['id']}/hint").json()
    assert hint["available"] and hint["model"] == "ppo"
    assert sum(hint["probabilities"].values()) == pytest.approx(1.0)


def test_no_hint_for_a_table_size_without_a_model(client, monkeypatch):
    from skyjo_env.web import roster as games

    monkeypatch.setattr(games, "HINT_MODEL", "ppo_2p")  # a hint model for 2 players only
    g = new_game(client, opponents=["random", "random"])
    hint = client.get(f"/api/games/{g['id']}/hint").json()
    assert hint["available"] is False
    assert "no hint for 3 players" in hint["reason"] and "ppo_2p: 2 players" in hint["reason"]


# ----------------------------------------------------------- records, replay
def test_a_record_replays_to_the_same_table(client):
    g = new_game(client, opponents=["expert"], rules={"target_score": 40}, seed=9)
    final = play_to_the_end(client, g["id"], g["frame"])
    r = client.get(f"/api/games/{g['id']}/record")
    assert r.headers["content-disposition"].startswith('attachment; filename="skyjo-2p-seed9-step')
    record = r.json()
    assert (record["seed"], record["seat"], record["finished"]) == (9, 0, True)
    assert record["rules"]["target_score"] == 40 and record["players"] == ["you", "expert"]

    loaded = client.post("/api/replays", json=record)
    assert loaded.status_code == 201, loaded.text
    replay = loaded.json()
    assert replay["step"] == 0 and replay["steps"] == len(record["actions"]) and replay["event"] is None
    last = client.get(f"/api/replays/{replay['id']}/steps/{replay['steps']}").json()
    assert last["frame"] == final
    assert last["log"] == client.get(f"/api/games/{g['id']}").json()["log"]
    back = client.get(f"/api/replays/{replay['id']}/steps/2").json()  # backwards: replayed from the start
    assert back["frame"]["step"] == 2 and back["event"]["seat"] == 0 and len(back["log"]) == 2


def test_the_record_of_a_running_game_replays_to_where_it_is(client):
    g = new_game(client, opponents=["greedy"])
    client.post(f"/api/games/{g['id']}/actions", json={"action": 12})
    record = client.get(f"/api/games/{g['id']}/record").json()
    assert record["finished"] is False and record["actions"][0] == 12
    replay = client.post("/api/replays", json=record).json()
    step = client.get(f"/api/replays/{replay['id']}/steps/{replay['steps']}").json()
    assert step["frame"] == client.get(f"/api/games/{g['id']}").json()["frame"]


RECORD = {"format": "skyjo-game-record", "version": 1, "rules": {"num_players": 2}, "seed": 3, "seat": 0, "actions": []}


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"format": "chess"}, "not a game record"),
        ({"version": 2}, "not a game record"),
        ({"seed": None}, "seed must be an integer"),
        ({"seed": 2**64}, "seed must be an integer"),
        ({"seat": 2}, "seat must be 0..1"),
        ({"rules": {"num_players": 9}}, "num_players must be 2..8"),
        ({"rules": {"num_players": 2, "target_score": -5}}, "target_score must be an int >= 1"),
        ({"rules": {"num_players": 2, "magic": 1}}, "unknown rule option(s) ['magic']"),
        ({"rules": "2p"}, "rules must be an object"),
        ({"actions": [12, "13"]}, "actions must be a list of integers"),
        ({"actions": [24]}, "action #0 is illegal"),
        ({"actions": [12, 13, 24]}, "action #2 is illegal"),
    ],
)
def test_a_bad_record_is_refused(client, change, words):
    refused(client.post("/api/replays", json={**RECORD, **change}), 400, words)
    assert len(client.app.state.server.store) == 0


def test_a_record_missing_a_field_or_malformed_is_refused(client):
    for key in ("rules", "seed", "seat", "actions"):
        refused(client.post("/api/replays", json={k: v for k, v in RECORD.items() if k != key}), 400, f"no '{key}'")
    refused(client.post("/api/replays", content=b"{not json", headers=JSON_BODY), 400, "malformed JSON")
    refused(client.post("/api/replays", json=[RECORD]), 400, "a game record is a JSON object")


def test_replay_steps_out_of_range_and_unknown_replays(client):
    replay = client.post("/api/replays", json={**RECORD, "actions": [12, 13]}).json()
    assert client.get(f"/api/replays/{replay['id']}/steps/2").json()["event"]["texts"][0].startswith("You turned")
    refused(client.get(f"/api/replays/{replay['id']}/steps/3"), 400, "step must be 0..2")
    refused(client.get(f"/api/replays/{replay['id']}/steps/-1"), 400, "whole number")
    refused(client.get("/api/replays/nope/steps/0"), 404, "no replay with id")
    refused(client.get(f"/api/games/{replay['id']}"), 404, "no game with id")  # a replay is not a game
