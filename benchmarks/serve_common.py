"""What the `skyjo serve` benchmarks share: a server in its own process on a free loopback port, and JSON calls."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(conn: http.client.HTTPConnection, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    payload = None if body is None else json.dumps(body)
    conn.request(method, path, body=payload, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    raw = response.read()
    return response.status, json.loads(raw) if raw else {}


@contextlib.contextmanager
def serving(*options: str) -> Iterator[tuple[subprocess.Popen, int]]:
    """`python -m skyjo_env serve` on a free port, its games kept in a temporary database (as by
    default, a file committed with each move), until the block ends: (process, port)."""
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "skyjo_env", "serve", "--port", str(port), "--db", str(Path(folder) / "g.db")]
        server = subprocess.Popen(
            [*command, *options], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"}
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    call(conn, "GET", "/api/options")
                    conn.close()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise RuntimeError("skyjo serve did not start") from None
                    time.sleep(0.1)
            yield server, port
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=60)


def rss_mb(pid: int) -> float:
    """The resident memory of process `pid`, in MB (Linux: /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")
