"""Only the page may use the API, and every request gets an answer below 500, as JSON.

Another web page the user visits can send requests to the local server: a `text/plain` POST
(no CORS preflight), a page reached through DNS rebinding (a foreign Host header), a form or
fetch from another origin. Each is refused and changes nothing. Bad bodies (nested too deep,
huge numbers, arbitrary bytes) and long replays get a JSON 4xx, never a 5xx, and never stall
the other clients.
"""

from __future__ import annotations

import json
import statistics
import threading
import time
import urllib.request
from dataclasses import asdict
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

import agents
from skyjo_env.engine import Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.record import MAX_RECORD_ACTIONS, RECORD_FORMAT, RECORD_VERSION
from skyjo_env.web.app import MAX_DEPTH, MAX_DIGITS, create_app
from skyjo_env.web.game import Game
from tests.web import LOCAL

GAME = {"opponents": ["random"], "seed": 5}


def held(client: TestClient) -> list:
    """Everything the store holds: each game's and replay's actions, by id."""
    store = client.app.state.server.store
    with store._lock:
        items = dict(store._items)
    return sorted(
        (key, list(item.table.actions) if isinstance(item, Game) else list(item.actions))
        for key, (item, _) in items.items()
    )


def is_json_error(response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json"), response.headers
    return response.json()["error"]


# ------------------------------------------------------------- other pages
def test_a_text_plain_post_is_refused_and_creates_nothing(client):
    body = json.dumps(GAME)
    r = client.post("/api/games", content=body, headers={"Content-Type": "text/plain"})
    assert "application/json" in is_json_error(r, 415)
    r = client.post("/api/games", content=body)  # no Content-Type at all (a form can send that too)
    is_json_error(r, 415)
    assert held(client) == []
    assert client.post("/api/games", json=GAME).status_code == 201  # the page's own request


def test_a_foreign_host_is_refused_and_changes_nothing(client):
    """DNS rebinding: a foreign page's name resolved to 127.0.0.1 sends its own name as Host."""
    assert "host" in is_json_error(client.get("/api/options", headers={"Host": "evil.example"}), 400).lower()
    is_json_error(client.post("/api/games", json=GAME, headers={"Host": "evil.example:8000"}), 400)
    assert held(client) == []
    for host in ("localhost:8000", "127.0.0.1", "[::1]:8000"):
        assert client.get("/api/options", headers={"Host": host}).status_code == 200, host


def test_allowed_hosts_open_the_server_to_a_named_host():
    with TestClient(create_app(allowed_hosts=["skyjo.lan"]), base_url="http://skyjo.lan") as c:
        assert c.get("/api/options").status_code == 200
        is_json_error(c.get("/api/options", headers={"Host": "localhost"}), 400)


def test_a_request_from_another_origin_is_refused_and_changes_nothing(client):
    gid = client.post("/api/games", json=GAME).json()["id"]
    before = held(client)
    for origin in ("http://evil.example", "null", "http://127.0.0.1:9999", "file://"):
        hdr = {"Origin": origin}
        assert "another page" in is_json_error(client.post("/api/games", json=GAME, headers=hdr), 403)
        is_json_error(client.post(f"/api/games/{gid}/actions", json={"action": 12}, headers=hdr), 403)
        is_json_error(client.delete(f"/api/games/{gid}", headers=hdr), 403)
    assert held(client) == before
    # the page itself: its Origin is the server it was loaded from
    assert client.post("/api/games", json=GAME, headers={"Origin": LOCAL}).status_code == 201
    assert client.get(f"/api/games/{gid}", headers={"Origin": "http://evil.example"}).status_code == 200  # reads: CORS


def test_no_answer_tells_where_this_machine_keeps_its_files(tmp_path):
    shipped = Path(agents.__file__).parent / "models" / "ppo_all.safetensors"
    model = tmp_path / "deep" / "folder" / "mine.safetensors"
    model.parent.mkdir(parents=True)
    model.write_bytes(shipped.read_bytes())
    with TestClient(create_app([str(model)]), base_url=LOCAL) as c:
        answer = c.get("/api/options").text
        assert "mine.safetensors" in answer
        assert str(tmp_path) not in answer and "deep/folder" not in answer
        gid = c.post("/api/games", json={"opponents": ["mine.safetensors"], "seed": 1}).json()["id"]
        assert str(tmp_path) not in c.get(f"/api/games/{gid}").text + c.get(f"/api/games/{gid}/hint").text


# --------------------------------------------------------------- bad input
def test_unknown_paths_and_methods_answer_json(client):
    assert "not found" in is_json_error(client.get("/api/nothing"), 404).lower()
    is_json_error(client.get("/static/nothing.js"), 404)
    assert "method" in is_json_error(client.put("/api/games", json=GAME), 405).lower()
    is_json_error(client.get("/api/games"), 405)


@pytest.mark.parametrize("path", ["/api/games", "/api/replays"])
def test_json_nested_too_deep_is_refused(client, path):
    for body in ("[" * 5000 + "]" * 5000, '{"a":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1)):
        r = client.post(path, content=body, headers={"Content-Type": "application/json"})
        assert "deep" in is_json_error(r, 400)
    ok = {"opponents": ["random"], "rules": {}, "seed": 1}  # brackets inside strings do not count:
    assert client.post("/api/games", json={**ok, "rules": {}}).status_code == 201
    r = client.post("/api/games", json={**ok, "opponents": ["[" * 100]})
    assert "unknown opponent" in is_json_error(r, 400)
    assert len(held(client)) == 1  # only the first game was made


def test_huge_integers_are_refused(client):
    gid = client.post("/api/games", json=GAME).json()["id"]
    before = held(client)
    huge = "9" * 4301
    for path, body in (
        (f"/api/games/{gid}/actions", f'{{"action": {huge}}}'),
        ("/api/games", f'{{"opponents": ["random"], "seed": {huge}}}'),
        ("/api/games", f'{{"opponents": ["random"], "seed": -{"1" * (MAX_DIGITS + 1)}}}'),
    ):
        r = client.post(path, content=body, headers={"Content-Type": "application/json"})
        assert "digits" in is_json_error(r, 400)
    rid = client.post("/api/replays", json={**RECORD, "actions": [12]}).json()["id"]
    assert "whole number" in is_json_error(client.get(f"/api/replays/{rid}/steps/{huge}"), 400)
    assert "whole number" in is_json_error(client.get(f"/api/replays/{rid}/steps/1.5"), 400)
    assert [h for h in held(client) if h[0] != rid] == before
    r = client.post("/api/games", content='{"seed": NaN}', headers={"Content-Type": "application/json"})
    assert "NaN is not JSON" in is_json_error(r, 400)


RECORD = {"format": RECORD_FORMAT, "version": RECORD_VERSION, "rules": {"num_players": 2}, "seed": 3, "seat": 0}


def long_record(length: int, num_players: int = 8) -> dict:
    """A legal record of `length` random actions: a game that never ends (no target, no turn limit)."""
    rules = Rules(num_players=num_players, target_score=10**9, max_turns_per_round=None)
    state, rng, actions = new_game(rules, seed=3), np.random.default_rng(0), []
    while len(actions) < length:
        action = int(rng.choice(legal_actions(state)))
        apply_action(state, action)
        actions.append(action)
    return {**RECORD, "rules": asdict(rules), "actions": actions}


def test_a_record_over_the_cap_is_refused(client):
    record = long_record(MAX_RECORD_ACTIONS + 1, num_players=2)
    r = client.post("/api/replays", json=record)
    assert f"at most {MAX_RECORD_ACTIONS}" in is_json_error(r, 400)
    assert held(client) == []


def fetch(url: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


def test_stepping_a_maximal_replay_leaves_the_other_clients_waiting_less_than_100_ms(live_server):
    replay = fetch(f"{live_server}/api/replays", long_record(MAX_RECORD_ACTIONS))
    assert replay["steps"] == MAX_RECORD_ACTIONS
    done = threading.Event()

    def step_back_and_forth() -> None:
        k = 0
        while not done.is_set():
            k = (k + 7919) % (MAX_RECORD_ACTIONS + 1)  # jumps all over the record
            assert fetch(f"{live_server}/api/replays/{replay['id']}/steps/{k}")["step"] == k

    stepper = threading.Thread(target=step_back_and_forth)
    stepper.start()
    try:
        times = []
        for _ in range(30):
            start = time.perf_counter()
            fetch(f"{live_server}/api/options")
            times.append(time.perf_counter() - start)
            time.sleep(0.02)
    finally:
        done.set()
        stepper.join(60)
    print(f"another client's request while a {MAX_RECORD_ACTIONS}-action replay is stepped: "
          f"median {1000 * statistics.median(times):.1f} ms, max {1000 * max(times):.1f} ms")  # fmt: skip
    assert statistics.median(times) < 0.1


# ---------------------------------------------------------- any input at all
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
FIELDS = ("opponents", "rules", "seed", "seat", "action", "step", "format", "version", "actions", "players")
OBJECTS = st.dictionaries(st.sampled_from(FIELDS), JSON_VALUES, max_size=5)
BODIES = (
    JSON_VALUES.map(lambda v: json.dumps(v).encode())
    | OBJECTS.map(lambda v: json.dumps(v).encode())
    | st.binary(max_size=64)
)
ROUTES = [
    ("GET", "/api/options"),
    ("POST", "/api/games"),
    ("GET", "/api/games/{gid}"),
    ("DELETE", "/api/games/{gid}"),
    ("POST", "/api/games/{gid}/actions"),
    ("GET", "/api/games/{gid}/hint"),
    ("GET", "/api/games/{gid}/record"),
    ("POST", "/api/replays"),
    ("GET", "/api/replays/{rid}/steps/{k}"),
]
METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH")


@pytest.fixture(scope="module")
def fuzz_client():
    with TestClient(create_app(max_games=10_000, idle_seconds=3600), base_url=LOCAL) as c:
        yield c


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    route=st.sampled_from(ROUTES),
    method=st.sampled_from(METHODS),
    body=BODIES,
    json_type=st.booleans(),
    k=st.one_of(st.integers(-5, 10**30), st.text(max_size=8)),
)
def test_any_request_gets_2xx_or_a_json_4xx_and_a_refused_one_changes_nothing(
    fuzz_client, route, method, body, json_type, k
):
    c = fuzz_client
    gid = c.post("/api/games", json=GAME).json()["id"]
    rid = c.post("/api/replays", json={**RECORD, "actions": [12, 13]}).json()["id"]
    path = route[1].format(gid=gid, rid=rid, k=quote(k, safe="") if isinstance(k, str) else k)
    before = held(c)
    headers = {"Content-Type": "application/json"} if json_type else {}
    r = c.request(method, path, content=body if method != "GET" else None, headers=headers)
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        assert isinstance(r.json()["error"], str)
        assert held(c) == before
