"""Fixtures of the web tests: an app with a test client, and a real server on a free port of 127.0.0.1."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.testclient import TestClient

from agents.review import Budget
from skyjo_env.web.app import create_app
from tests.web import LOCAL


@pytest.fixture(autouse=True)
def no_games_in_your_data_folder(tmp_path_factory, monkeypatch):
    """`skyjo serve` keeps games in the user's data folder by default: in the tests, a temporary one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(max_games=8, idle_seconds=600), base_url=LOCAL) as c:
        yield c


@pytest.fixture(scope="module")
def live_server() -> Iterator[str]:
    """`skyjo serve`'s app under uvicorn in a thread, listening on a free loopback port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = create_app(review_budget=Budget(worlds=8, top=2))  # reviews in about a second a round
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)
    sock.close()
