"""The browser's review (`GET /api/games/{id}/review/{round}`, and for replays): rounds that are
over only, each decision of the human seat with its grade and the table it saw then, nothing
of what it did not see."""

from __future__ import annotations

import numpy as np
import pytest
from starlette.testclient import TestClient

from agents.review import Budget
from skyjo_env.web.app import create_app
from tests.agents.test_review import bots_record
from tests.web import LOCAL
from tests.web.test_leak import check_frame

QUICK = Budget(worlds=6, top=2)


@pytest.fixture
def client():
    with TestClient(create_app(review_budget=QUICK), base_url=LOCAL) as c:
        yield c


def play_until(client: TestClient, gid: str, frame: dict, rounds: int) -> dict:
    rng = np.random.default_rng(0)
    while len(frame["round_history"]) < rounds and not frame["finished"]:
        frame = client.post(f"/api/games/{gid}/actions", json={"action": int(rng.choice(frame["legal"]))}).json()
        frame = frame["frame"]
    return frame


def test_a_round_is_reviewed_once_it_is_over_with_the_table_of_each_decision(client):
    created = client.post("/api/games", json={"opponents": ["expert"], "seed": 8, "seat": 1}).json()
    gid = created["id"]
    assert client.get(f"/api/games/{gid}/review").json()["rounds"] == []
    refused = client.get(f"/api/games/{gid}/review/0")
    assert refused.status_code == 409 and "not over" in refused.json()["error"]
    play_until(client, gid, created["frame"], rounds=1)
    review = client.get(f"/api/games/{gid}/review/0").json()
    actions = client.get(f"/api/games/{gid}/record").json()["actions"]
    assert review["round"] == 0 and review["seat"] == 1 and review["moves"]
    for move in review["moves"]:
        check_frame(move["frame"])  # the seat's own view: no face-down card has a value
        frame = move["frame"]
        assert frame["step"] == move["step"] and frame["your_turn"] and move["played"] in frame["legal"]
        assert move["played"] == actions[move["step"]] and move["best"] in frame["legal"]
        assert move["grade"] in ("fine", "inaccuracy", "mistake") and move["cost"] >= 0
    assert review["lost"] == pytest.approx(sum(m["cost"] for m in review["moves"] if m["grade"] != "fine"))
    assert client.get(f"/api/games/{gid}/review/0").json() == review  # kept, not searched again


def test_a_loaded_record_is_reviewed_round_by_round(client):
    record = bots_record(2, seed=2).to_json()
    replay = client.post("/api/replays", json=record).json()
    about = client.get(f"/api/replays/{replay['id']}/review").json()
    assert about["rounds"] == list(range(len(about["rounds"]))) and len(about["rounds"]) >= 2
    last = client.get(f"/api/replays/{replay['id']}/review/{about['rounds'][-1]}").json()
    assert last["moves"] and all(m["frame"]["you"] == record["seat"] for m in last["moves"])


@pytest.mark.parametrize("path, status", [("review/x", 400), ("review/-1", 400), ("review/99", 409)])
def test_bad_rounds_are_refused(client, path, status):
    gid = client.post("/api/games", json={"opponents": ["random"], "seed": 1}).json()["id"]
    answer = client.get(f"/api/games/{gid}/{path}")
    assert answer.status_code == status and "error" in answer.json()


def test_an_unknown_game_has_no_review(client):
    assert client.get("/api/games/nope/review/0").status_code == 404
    assert client.get("/api/replays/nope/review").status_code == 404
