"""`skyjo serve`: registered, polite without the web extra, strict about its agents, and really serving."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from skyjo_env.cli import SUBCOMMANDS, main


def test_serve_is_a_skyjo_command_with_its_options(capsys):
    assert SUBCOMMANDS["serve"].module == "skyjo_env.cli.serve"
    try:
        main(["serve", "--help"])
    except SystemExit as e:
        assert e.code == 0
    out = capsys.readouterr().out
    for option in ("--host", "--port", "--agents", "--allow-host", "127.0.0.1"):
        assert option in out


def test_without_the_web_extra_it_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "starlette", None)  # `import starlette` now fails
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert main(["serve"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "pip install 'skyjo-rl[web]'" in err


def test_a_bad_agent_or_option_stops_it_before_serving(tmp_path, capsys):
    assert main(["serve", "--agents", str(tmp_path / "nowhere.zip")]) == 2
    assert "nowhere.zip" in capsys.readouterr().err
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port must be 0..65535" in capsys.readouterr().err
    assert main(["serve", "--allow-host", "evil.example/path"]) == 2
    assert "--allow-host takes a host name" in capsys.readouterr().err


def test_it_serves_the_page_on_the_loopback_address(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "skyjo_env", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "XDG_DATA_HOME": str(tmp_path)},
    )
    try:
        line = process.stdout.readline()  # by default the games go to the user's data folder
        assert f"games are kept in {tmp_path / 'skyjo-rl' / 'games.sqlite3'}" in line, line
        line = process.stdout.readline()
        assert f"open http://127.0.0.1:{port}/" in line, (line, process.stderr.read() if process.poll() else "")
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
                    assert page.status == 200 and b"<title>Skyjo</title>" in page.read()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
