"""Side by side: our raw AEC env vs the public `rlskyjo` package's raw `SimpleSkyjoEnv`.

Both run the same random-play loop (reset, agent_iter, last, a uniformly random legal
action from the mask, step) with 2 players, each in its own virtual environment,
since rlskyjo needs the old PettingZoo 1.14. The figure is decisions per second,
median of several runs.

Install rlskyjo once (its own venv):

    python -m venv .venv-rlskyjo
    .venv-rlskyjo/bin/pip install --no-deps --ignore-requires-python rlskyjo \\
        pettingzoo==1.14.0 gym==0.26.2 gym-notices==0.1.0 numba==0.68.1 \\
        llvmlite==0.50.0 numpy==2.4.6 cloudpickle==3.1.3

Then, from the repository root with this project installed in the current Python:

    python benchmarks/compare_rlskyjo.py --rlskyjo-python .venv-rlskyjo/bin/python
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np

_CHUNK = 10_000


def random_play(env, games: int, seed: int) -> tuple[int, float]:
    """The shared loop. Handles both `last()` shapes: (obs, r, done, info) and (obs, r, term, trunc, info)."""
    rng = np.random.default_rng(seed)
    # Random numbers in chunks: one list of millions would be traversed by every full
    # garbage collection (tens of ms each), a cost of the harness, not of the env.
    uniforms = rng.random(_CHUNK).tolist()
    k = 0
    decisions = 0
    start = time.perf_counter()
    for _ in range(games):
        env.reset()
        for _ in env.agent_iter():
            out = env.last()
            observation, done = out[0], (out[2] if len(out) == 4 else out[2] or out[3])
            if done:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"]).tolist()
            env.step(legal[int(uniforms[k] * len(legal))])
            k += 1
            if k == _CHUNK:
                uniforms, k = rng.random(_CHUNK).tolist(), 0
            decisions += 1
    return decisions, time.perf_counter() - start


def measure(side: str, games: int, repeats: int, seed: int) -> list[float]:
    if side == "ours":
        from skyjo_env import raw_env

        env = raw_env(num_players=2)
        env.reset(seed=seed)
    else:
        from rlskyjo.environment.skyjo_env import SimpleSkyjoEnv

        env = SimpleSkyjoEnv(num_players=2)
        env.seed(seed)
    random_play(env, 5, seed)  # warm-up (rlskyjo compiles with numba on first use)
    rates = []
    for i in range(repeats):
        decisions, seconds = random_play(env, games, seed + i)
        rates.append(decisions / seconds)
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rlskyjo-python", help="python of the venv where rlskyjo is installed")
    parser.add_argument("--side", choices=["ours", "rlskyjo"], help=argparse.SUPPRESS)
    parser.add_argument("--games", type=int, default=200, help="games per run")
    parser.add_argument("--repeats", type=int, default=5, help="runs; the median is reported")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.side:
        print(json.dumps(measure(args.side, args.games, args.repeats, args.seed)))
        return 0
    if not args.rlskyjo_python:
        parser.error("--rlskyjo-python is required (see the install instructions at the top of this file)")
    medians = {}
    for side, python in (("ours", sys.executable), ("rlskyjo", args.rlskyjo_python)):
        out = subprocess.run(
            [
                python,
                __file__,
                "--side",
                side,
                "--games",
                str(args.games),
                "--repeats",
                str(args.repeats),
                "--seed",
                str(args.seed),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode != 0:
            print(f"{side} failed:\n{out.stderr}", file=sys.stderr)
            return 1
        rates = json.loads(out.stdout.strip().splitlines()[-1])
        medians[side] = statistics.median(rates)
        print(f"{side:8s} {medians[side]:>10,.0f} decisions/s  (runs: {', '.join(f'{r:,.0f}' for r in rates)})")
    print(f"ratio ours / rlskyjo: {medians['ours'] / medians['rlskyjo']:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
