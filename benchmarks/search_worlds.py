"""How many worlds a search agent's budget buys a move, alone or with other processes beside it.

    python benchmarks/search_worlds.py --agent ppo+search --players 2 --games 2 --processes 2

Each of `--processes` processes (started together) plays `--games` games of `--agent` at seat 0
against `--opponent` bots (seeds `process * games + g`), each for `--rounds` rounds, and reads
`SearchBot.last.extra["worlds"]` after every searched move. It prints, per process and over all, the
searched moves, the worlds a move played (median, mean, p90) and the time a move took (median and mean,
over every move of seat 0: with `confident`, most are played without a search).
`--blas-threads` is how many threads numpy's BLAS runs in each process: 1 is what `skyjo eval`'s
workers use (`agents.base.one_blas_thread`); 0 leaves numpy's default (one a core). Two processes on
two cores with the default make the search's small matrix products slower and its moves fewer worlds.

A benchmark measures and prints; it asserts nothing.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time

import numpy as np

from agents import make
from skyjo_env.engine import Rules
from skyjo_env.seated import SeatedGame


def play(job: tuple[str, str, int, int, int, int, int]) -> tuple[list[int], list[float]]:
    """One process's games: the worlds of each searched move of seat 0, and each move's seconds."""
    agent_name, opponent, players, rounds, first_seed, games, blas_threads = job
    if blas_threads:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=blas_threads, user_api="blas")
    agent, others = make(agent_name), make(opponent)
    worlds: list[int] = []
    seconds: list[float] = []
    # the game loop that tells an agent that observes (an opponent library) of every move
    game = SeatedGame(Rules(num_players=players), [agent] + [others] * (players - 1))
    for seed in range(first_seed, first_seed + games):
        agent.reset(seed)
        others.reset(seed)
        state = game.deal(seed)
        while not state.is_finished and len(state.round_history) < rounds:
            searcher = state.current_player == 0
            began = time.perf_counter()
            action = game.ask()
            if searcher:
                seconds.append(time.perf_counter() - began)
                last = getattr(agent, "last", None)
                if last is not None and "worlds" in last.extra:
                    worlds.append(last.extra["worlds"])
            game.apply(action)
    return worlds, seconds


def line(label: str, worlds: list[int], seconds: list[float]) -> str:
    if not worlds:
        return f"{label}: no searched move"
    w = np.asarray(worlds)
    return (
        f"{label}: {len(w)} searched moves, worlds median {np.median(w):.0f}, mean {w.mean():.1f}, "
        f"p90 {np.percentile(w, 90):.0f}; ms a move (every move), median {np.median(seconds) * 1000:.1f}, "
        f"mean {np.mean(seconds) * 1000:.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="ppo+search", help="a search agent's name, with its options")
    parser.add_argument("--opponent", default="expert")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=2, help="games a process plays")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each game played")
    parser.add_argument("--processes", type=int, default=2, help="processes side by side")
    parser.add_argument("--blas-threads", type=int, default=1, help="numpy's BLAS threads a process (0: default)")
    args = parser.parse_args(argv)
    if min(args.players - 2, args.games - 1, args.rounds - 1, args.processes - 1, args.blas_threads) < 0:
        parser.error("--players >= 2, --games, --rounds and --processes >= 1, --blas-threads >= 0")
    jobs = [
        (args.agent, args.opponent, args.players, args.rounds, p * args.games, args.games, args.blas_threads)
        for p in range(args.processes)
    ]
    # spawn: each process starts its own BLAS, so the default thread count is numpy's own
    with mp.get_context("spawn").Pool(args.processes) as pool:
        parts = pool.map(play, jobs)
    threads = args.blas_threads or "numpy's default"
    print(
        f"{args.agent} vs {args.opponent}, {args.players} players, {args.processes} processes, BLAS threads {threads}"
    )
    for p, (worlds, seconds) in enumerate(parts):
        print(line(f"  process {p}", worlds, seconds))
    print(line("  all", [w for ws, _ in parts for w in ws], [s for _, ss in parts for s in ss]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
