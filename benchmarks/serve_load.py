"""`skyjo serve` under load: N games played at once against loopback for T seconds.

Starts `python -m skyjo_env serve` in its own process on a free loopback port (its games kept
in a temporary database, committed with each move, as by default), then runs N clients at once,
each on its own connection: it starts a game, plays random legal moves until the game ends,
starts the next, until T seconds have passed (every request has a 60 s timeout, and the run
stops at T plus that at the latest). Prints the moves played, the errors (any answer but
2xx, or no answer), the move latency (p50 / p95 / max, the bots' replies included) and the
server's resident memory: after start, at its peak and at the end.

    python benchmarks/serve_load.py --games 50 --seconds 60 [--opponent expert] [--players 2]
"""

from __future__ import annotations

import argparse
import http.client
import sys
import threading
import time

import numpy as np
from serve_common import call, rss_mb, serving
from tqdm import tqdm

TIMEOUT = 60.0


class Client(threading.Thread):
    """One player: games one after another on one connection until `stop`."""

    def __init__(self, port: int, seed: int, opponents: list[str], stop: float) -> None:
        super().__init__(daemon=True)
        self.port, self.opponents, self.stop = port, opponents, stop
        self.rng = np.random.default_rng(seed)
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.games = 0

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        while time.monotonic() < self.stop:
            try:
                self._game(conn)
            except (OSError, http.client.HTTPException, ValueError) as e:  # no answer, or not JSON
                self.errors.append(f"{type(e).__name__}: {e}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        conn.close()

    def _game(self, conn: http.client.HTTPConnection) -> None:
        body = {"opponents": self.opponents, "seed": int(self.rng.integers(2**31))}
        status, game = call(conn, "POST", "/api/games", body)
        if status != 201:
            self.errors.append(f"new game: {status} {game.get('error')}")
            return
        self.games += 1
        gid, frame = game["id"], game["frame"]
        while not frame["finished"] and time.monotonic() < self.stop:
            move = {"action": int(self.rng.choice(frame["legal"])), "step": frame["step"]}
            start = time.perf_counter()
            status, answer = call(conn, "POST", f"/api/games/{gid}/actions", move)
            self.latencies.append(time.perf_counter() - start)
            if status != 200:
                self.errors.append(f"move: {status} {answer.get('error')}")
                return
            frame = answer["frame"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="games played at once (default 50)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long (default 60)")
    parser.add_argument("--opponent", default="expert", help="the bot at every other seat (default expert)")
    parser.add_argument("--players", type=int, default=2, help="table size (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.games < 1 or args.seconds <= 0 or not 2 <= args.players <= 8:
        parser.error("--games must be >= 1, --seconds > 0 and --players 2..8")

    with serving("--max-games", str(max(64, args.games))) as (server, port):
        memory = [rss_mb(server.pid)]
        stop = time.monotonic() + args.seconds
        opponents = [args.opponent] * (args.players - 1)
        clients = [Client(port, args.seed + i, opponents, stop) for i in range(args.games)]
        for client in clients:
            client.start()
        with tqdm(total=round(args.seconds), unit="s", desc=f"{args.games} games") as bar:
            while any(c.is_alive() for c in clients) and time.monotonic() < stop + TIMEOUT:
                time.sleep(0.5)
                memory.append(rss_mb(server.pid))
                bar.n = min(bar.total, round(args.seconds - max(0.0, stop - time.monotonic())))
                bar.set_postfix(moves=sum(len(c.latencies) for c in clients), rss=f"{memory[-1]:.0f} MB")
        hung = sum(c.is_alive() for c in clients)
        memory.append(rss_mb(server.pid))

    ms = np.array([t for c in clients for t in c.latencies]) * 1000
    errors = [e for c in clients for e in c.errors]
    print(
        f"skyjo serve, {args.games} games at once for {args.seconds:g} s, {args.players} players, "
        f"opponent {args.opponent}: {len(ms)} moves in {sum(c.games for c in clients)} games, "
        f"{len(errors)} errors, {hung} clients still waiting at the end"
    )
    if len(ms):
        print(
            f"move latency p50 {np.percentile(ms, 50):.0f} ms, p95 {np.percentile(ms, 95):.0f} ms, max {ms.max():.0f} ms"
        )
    print(f"server memory (RSS) after start {memory[0]:.0f} MB, peak {max(memory):.0f} MB, end {memory[-1]:.0f} MB")
    for error in sorted(set(errors))[:10]:
        print(f"  error: {error}")
    return 1 if errors or hung else 0


if __name__ == "__main__":
    sys.exit(main())
