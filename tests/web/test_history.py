"""Games kept in SQLite (`skyjo_env.web.history`): committed with each move, taken back after a
restart exactly where they were, finished games counted in the history; a database of another
version or another program is refused and never rewritten."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from skyjo_env.engine import legal_actions
from skyjo_env.engine.view import seat_view
from skyjo_env.web.app import create_app
from skyjo_env.web.game import new_game_from_json
from skyjo_env.web.history import SCHEMA_VERSION, GameDB, HistoryError
from skyjo_env.web.roster import Roster
from tests.web import LOCAL

OPPONENTS = ["random", "ppo"]  # a bot that draws random numbers, and the network


def app_on(path: Path, **kwargs) -> TestClient:
    return TestClient(create_app(max_games=8, idle_seconds=600, db=GameDB(path), **kwargs), base_url=LOCAL)


def first_legal(frame: dict) -> int:
    return min(frame["legal"])


def play(client: TestClient, game_id: str, frame: dict, moves: int) -> dict:
    for _ in range(moves):
        if frame["finished"]:
            break
        answer = client.post(f"/api/games/{game_id}/actions", json={"action": first_legal(frame)})
        assert answer.status_code == 200, answer.text
        frame = answer.json()["frame"]
    return frame


def moves_in(path: Path, game_id: str) -> int:
    with sqlite3.connect(path) as db:  # another connection: sees only what was committed
        return db.execute("SELECT COUNT(*) FROM moves WHERE game = ?", (game_id,)).fetchone()[0]


def test_every_move_is_committed_before_the_answer(tmp_path):
    path = tmp_path / "games.sqlite3"
    with app_on(path) as client:
        created = client.post("/api/games", json={"opponents": OPPONENTS, "seed": 5}).json()
        frame = play(client, created["id"], created["frame"], 3)
        assert moves_in(path, created["id"]) == frame["step"] > 3  # the human's 3 and the bots' replies


def test_a_restarted_server_continues_the_game_exactly(tmp_path):
    """Rules, seed, seats and moves are enough: the same next cards and the same bot moves as a twin
    game that was never interrupted."""
    path = tmp_path / "games.sqlite3"
    with app_on(path) as client:
        created = client.post("/api/games", json={"opponents": OPPONENTS, "seed": 11, "seat": 1}).json()
        game_id = created["id"]
        play(client, game_id, created["frame"], 20)
        before = client.get(f"/api/games/{game_id}").json()
    with app_on(tmp_path / "twin.sqlite3") as twin:  # the same game, never interrupted
        made = twin.post("/api/games", json={"opponents": OPPONENTS, "seed": 11, "seat": 1}).json()
        twin_frame = play(twin, made["id"], made["frame"], 20)
        twin_frame = play(twin, made["id"], twin_frame, 10**4)
    with app_on(path) as client:  # the restart
        after = client.get(f"/api/games/{game_id}")
        assert after.status_code == 200, after.text
        assert after.json() == before, "the same table and the same narration"
        final = play(client, game_id, after.json()["frame"], 10**4)
        assert final == twin_frame
        record = client.get(f"/api/games/{game_id}/record").json()
    assert record["finished"] and moves_in(path, game_id) == len(record["actions"])


def test_finished_and_abandoned_games_make_the_history(tmp_path):
    path = tmp_path / "games.sqlite3"
    with app_on(path) as client:
        assert client.get("/api/history").json() == {"kept": True, "groups": []}
        for seed in (1, 2):
            created = client.post("/api/games", json={"opponents": ["random"], "seed": seed}).json()
            assert play(client, created["id"], created["frame"], 10**4)["finished"]
        left = client.post("/api/games", json={"opponents": ["random"], "seed": 3}).json()
        client.post("/api/games", json={"opponents": ["random", "greedy"], "replaces": left["id"]})
        history = client.get("/api/history").json()["groups"]
    (two,) = [g for g in history if g["players"] == 2]
    assert (two["opponents"], two["games"], two["unfinished"]) == ("random", 2, 1)
    assert 0 <= two["wins"] <= 2 and isinstance(two["mean_round_score"], float)
    assert not [g for g in history if g["players"] == 3], "the 3-player game is still in progress"
    with sqlite3.connect(path) as db:
        statuses = sorted(s for (s,) in db.execute("SELECT status FROM games"))
    assert statuses == ["closed", "finished", "finished", "live"]


def test_a_memory_database_keeps_nothing_and_says_so():
    with TestClient(create_app(), base_url=LOCAL) as client:
        assert client.get("/api/history").json() == {"kept": False, "groups": []}


def test_games_beyond_the_cap_are_closed_at_restart_and_stay_in_the_history(tmp_path):
    path = tmp_path / "games.sqlite3"
    with app_on(path) as client:
        ids = [client.post("/api/games", json={"opponents": ["greedy"], "seed": s}).json()["id"] for s in range(3)]
    with TestClient(create_app(max_games=2, db=GameDB(path)), base_url=LOCAL) as client:
        assert [client.get(f"/api/games/{i}").status_code for i in ids] == [404, 200, 200]
        assert client.get("/api/history").json()["groups"][0]["unfinished"] == 1


def test_a_game_whose_opponent_is_not_offered_stays_in_the_database(tmp_path):
    path, model = tmp_path / "games.sqlite3", tmp_path / "mine.safetensors"
    from agents.ppo_bot import SHIPPED_MODEL_2P

    model.write_bytes(Path(SHIPPED_MODEL_2P).read_bytes())
    with app_on(path, agent_specs=[str(model)]) as client:
        game_id = client.post("/api/games", json={"opponents": ["mine.safetensors"], "seed": 4}).json()["id"]
    app = create_app(db=GameDB(path))  # started without --agents mine.safetensors
    (line,) = app.state.reload_problems
    assert game_id in line and "mine.safetensors" in line and str(tmp_path) not in line
    with app_on(path, agent_specs=[str(model)]) as client:  # and back with it: the game goes on
        assert client.get(f"/api/games/{game_id}").status_code == 200


def test_a_database_of_another_version_is_refused_and_left_as_it_is(tmp_path):
    path = tmp_path / "games.sqlite3"
    GameDB(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = path.read_bytes()
    with pytest.raises(HistoryError, match=f"version {SCHEMA_VERSION + 1}; this skyjo-rl reads version"):
        GameDB(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("content", ["sqlite of another program", "not sqlite at all"])
def test_a_file_that_is_not_a_games_database_is_refused(tmp_path, content):
    path = tmp_path / "other.db"
    if content.startswith("sqlite"):
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE notes (text TEXT)")
    else:
        path.write_bytes(b"hello, this is not a database at all" * 100)
    before = path.read_bytes()
    with pytest.raises(HistoryError, match="other.db"):
        GameDB(path)
    assert path.read_bytes() == before


def test_bot_moves_depend_on_the_game_and_the_move_only():
    """What makes a rebuilt game play on alike: a bot's move depends on the game and the move, not on
    what its random generator drew before (here: extra draws in one of two copies of the game)."""
    roster = Roster()
    games = [new_game_from_json({"opponents": ["random"] * 3, "seed": 9, "seat": 3}, roster) for _ in range(2)]
    table = games[1].table
    for bot in games[1].bots.values():  # a generator already advanced, as in a game before a restart
        for _ in range(50):
            bot.act(seat_view(table.state, 0), legal_actions(table.state))
    events = [[e["action"] for e in g.play_bots()] for g in games]
    assert events[0] == events[1] and len(events[0]) >= 3


# ------------------------------------------------------------------ kill -9
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(db: Path, port: int) -> subprocess.Popen:
    command = [sys.executable, "-m", "skyjo_env", "serve", "--db", str(db), "--port", str(port)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options", timeout=2)
            return proc
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"skyjo serve stopped: {proc.communicate()[1][-2000:]}") from None
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("skyjo serve did not start")


def _call(port: int, method: str, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def test_a_server_killed_mid_game_finishes_it_after_a_restart(tmp_path):
    path, port = tmp_path / "games.sqlite3", _free_port()
    server = _serve(path, port)
    try:
        created = _call(port, "POST", "/api/games", {"opponents": OPPONENTS, "seed": 21})
        game_id, frame = created["id"], created["frame"]
        for _ in range(15):
            frame = _call(port, "POST", f"/api/games/{game_id}/actions", {"action": first_legal(frame)})["frame"]
    finally:
        os.kill(server.pid, signal.SIGKILL)
        server.communicate(timeout=30)
    server = _serve(path, port)
    try:
        assert _call(port, "GET", f"/api/games/{game_id}")["frame"] == frame
        while not frame["finished"]:
            frame = _call(port, "POST", f"/api/games/{game_id}/actions", {"action": first_legal(frame)})["frame"]
        record = _call(port, "GET", f"/api/games/{game_id}/record")
    finally:
        server.terminate()
        server.communicate(timeout=30)
    with app_on(tmp_path / "twin.sqlite3") as twin:  # the game nobody killed
        made = twin.post("/api/games", json={"opponents": OPPONENTS, "seed": 21}).json()
        assert play(twin, made["id"], made["frame"], 10**4) == frame
        assert twin.get(f"/api/games/{made['id']}/record").json()["actions"] == record["actions"]
