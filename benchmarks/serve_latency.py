"""How long a move takes in `skyjo serve`, bot reply included: p50 / p95 / max over 200 requests.

Starts `python -m skyjo_env serve` in its own process on a free loopback port, then plays
games through the HTTP API from one persistent connection (as a browser does). A timed
request is a human action that ends the human's turn, so that its answer holds the bot's
whole reply (its two decisions) and every frame the page animates. The human plays random
legal actions; new games start as games end. The target is a p95 of at most 50 ms.

    python benchmarks/serve_latency.py [--opponent expert] [--requests 200] [--players 2]
"""

from __future__ import annotations

import argparse
import http.client
import sys
import time

import numpy as np
from serve_common import call, serving


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", default="expert", help="the bot at every other seat (default expert)")
    parser.add_argument("--players", type=int, default=2, help="table size (default 2)")
    parser.add_argument("--requests", type=int, default=200, help="timed requests (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    with serving() as (_, port):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        rng = np.random.default_rng(args.seed)
        timings: list[float] = []
        games = 0
        while len(timings) < args.requests:
            status, game = call(
                conn,
                "POST",
                "/api/games",
                {"opponents": [args.opponent] * (args.players - 1), "seed": int(rng.integers(2**31))},
            )
            assert status == 201, game
            games += 1
            gid, frame = game["id"], game["frame"]
            while not frame["finished"] and len(timings) < args.requests:
                action = int(rng.choice(frame["legal"]))
                start = time.perf_counter()
                status, answer = call(
                    conn, "POST", f"/api/games/{gid}/actions", {"action": action, "step": frame["step"]}
                )
                elapsed = time.perf_counter() - start
                assert status == 200, answer
                if any(e["seat"] != frame["you"] for e in answer["events"]):
                    timings.append(elapsed)
                frame = answer["frame"]
            if not frame["finished"]:
                call(conn, "DELETE", f"/api/games/{gid}")

    ms = np.array(timings) * 1000
    print(
        f"skyjo serve, {args.players} players, opponent {args.opponent}: {len(ms)} moves with a bot reply "
        f"({games} games), latency p50 {np.percentile(ms, 50):.1f} ms, p95 {np.percentile(ms, 95):.1f} ms, "
        f"max {ms.max():.1f} ms (target: p95 <= 50 ms)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
