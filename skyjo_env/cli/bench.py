"""Speed benchmarks: random legal play through the engine and the envs, and `expert`'s games,
decisions per second; and training: learner steps per second of a config, in each rollout pipeline.

Run `skyjo bench [engine|raw_env|env|gym|expert|all]`. Each run plays whole games with uniformly
random legal actions (`expert`: with `expert` at every seat); the figure printed is the median of
the runs.
`skyjo bench train [--config FILE] [--steps N]` (the `train` extra) trains the config in
the batched pipeline and in the one before it (SB3's SubprocVecEnv of Skyjo-v0 envs), same
network and opponents, and prints both rates and their ratio (`train.bench`).
A benchmark measures and prints; it asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from skyjo_env.cli.common import CommandError
from skyjo_env.engine import Rules, apply_action, legal_actions, new_game


class UniformStream:
    """Uniform random numbers drawn in bulk from one seeded numpy Generator (cheap per call)."""

    def __init__(self, seed: int, chunk: int = 1 << 16) -> None:
        self._rng = np.random.default_rng(seed)
        self._chunk = chunk
        self._buffer: list[float] = []

    def pick(self, options: list[int]) -> int:
        if not self._buffer:
            self._buffer = self._rng.random(self._chunk).tolist()
        return options[int(self._buffer.pop() * len(options))]


def engine_run(num_players: int, games: int, seed: int) -> tuple[int, float]:
    """Play `games` random games through the engine; return (decisions, seconds)."""
    rules = Rules(num_players=num_players)
    stream = UniformStream(seed)
    decisions = 0
    start = time.perf_counter()
    for game in range(games):
        state = new_game(rules, seed=seed + game)
        while not state.is_finished:
            apply_action(state, stream.pick(legal_actions(state)))
            decisions += 1
    return decisions, time.perf_counter() - start


def expert_run(num_players: int, games: int, seed: int) -> tuple[int, float]:
    """Play `games` games with `expert` at every seat, through the engine; return (decisions, seconds)."""
    from agents.expert import ExpertBot
    from skyjo_env.engine.view import seat_view

    rules = Rules(num_players=num_players)
    bot = ExpertBot()
    decisions = 0
    start = time.perf_counter()
    for game in range(games):
        state = new_game(rules, seed=seed + game)
        while not state.is_finished:
            apply_action(state, bot.act(seat_view(state, state.current_player), legal_actions(state)))
            decisions += 1
    return decisions, time.perf_counter() - start


def median_rate(run: Callable[[int], tuple[int, float]], repeats: int) -> tuple[float, list[float]]:
    """Call `run(i)` `repeats` times; return the median decisions per second and all rates."""
    rates = []
    for i in range(repeats):
        decisions, seconds = run(i)
        rates.append(decisions / seconds)
    return statistics.median(rates), rates


def bench_engine(num_players: int = 2, games: int = 300, repeats: int = 5, seed: int = 0) -> float:
    run = lambda i: engine_run(num_players, games, seed + 1_000_000 * i)  # noqa: E731
    return _bench(f"engine, {num_players} players, random legal play", "decisions", run, games, repeats)


def bench_expert(num_players: int = 2, games: int = 300, repeats: int = 5, seed: int = 0) -> float:
    run = lambda i: expert_run(num_players, games, seed + 1_000_000 * i)  # noqa: E731
    return _bench(f"expert at every seat, {num_players} players", "decisions", run, games, repeats)


def aec_run(make_env: Callable[..., Any], num_players: int, games: int, seed: int) -> tuple[int, float]:
    """Random legal play through a PettingZoo AEC env (`agent_iter` / `last` / `step`)."""
    env = make_env(num_players=num_players)
    stream = UniformStream(seed)
    decisions = 0
    start = time.perf_counter()
    for game in range(games):
        env.reset(seed=seed + game)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(stream.pick(np.flatnonzero(observation["action_mask"]).tolist()))
            decisions += 1
    return decisions, time.perf_counter() - start


def gym_run(num_players: int, games: int, seed: int) -> tuple[int, float]:
    """Random legal play of the learner in the Gymnasium env against `random` opponents."""
    from skyjo_env.gym_env import SkyjoEnv

    env = SkyjoEnv(num_players=num_players, opponents=["random"])
    stream = UniformStream(seed)
    steps = 0
    start = time.perf_counter()
    for game in range(games):
        _, info = env.reset(seed=seed + game)
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(stream.pick(np.flatnonzero(info["action_mask"]).tolist()))
            done = terminated or truncated
            steps += 1
    return steps, time.perf_counter() - start


def _bench(label: str, unit: str, run: Callable[[int], tuple[int, float]], games: int, repeats: int) -> float:
    median, rates = median_rate(run, repeats)
    print(
        f"{label}: {median:,.0f} {unit}/s (median of {repeats} runs of {games} games; "
        f"runs: {', '.join(f'{r:,.0f}' for r in rates)})"
    )
    return median


def bench_aec_raw(num_players: int = 2, games: int = 300, repeats: int = 5, seed: int = 0) -> float:
    from skyjo_env import raw_env

    run = lambda i: aec_run(raw_env, num_players, games, seed + 1_000_000 * i)  # noqa: E731
    return _bench(f"raw_env, {num_players} players, random legal play", "decisions", run, games, repeats)


def bench_aec(num_players: int = 2, games: int = 300, repeats: int = 5, seed: int = 0) -> float:
    from skyjo_env import env

    run = lambda i: aec_run(env, num_players, games, seed + 1_000_000 * i)  # noqa: E731
    return _bench(f"env() (with safety checks), {num_players} players", "decisions", run, games, repeats)


def bench_gym(num_players: int = 2, games: int = 300, repeats: int = 5, seed: int = 0) -> float:
    run = lambda i: gym_run(num_players, games, seed + 1_000_000 * i)  # noqa: E731
    return _bench(f"Gymnasium env vs random, {num_players} players", "learner steps", run, games, repeats)


def bench_all(num_players: int = 2, games: int = 300, repeats: int = 5, seed: int = 0) -> float:
    for target in (bench_engine, bench_aec_raw, bench_aec, bench_gym, bench_expert):
        target(num_players=num_players, games=games, repeats=repeats, seed=seed)
    return 0.0


TARGETS: dict[str, Callable[..., float]] = {
    "engine": bench_engine,
    "raw_env": bench_aec_raw,
    "env": bench_aec,
    "gym": bench_gym,
    "expert": bench_expert,
    "all": bench_all,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target", nargs="?", default="engine", choices=[*sorted(TARGETS), "train"], help="what to measure"
    )
    parser.add_argument("--players", type=int, default=2, help="number of players (2..8)")
    parser.add_argument("--games", type=int, default=300, help="games per run")
    parser.add_argument("--repeats", type=int, default=5, help="runs; the median is reported")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    training = parser.add_argument_group("train")
    training.add_argument("--config", help="train: the config to measure (default: the embedded defaults)")
    training.add_argument("--steps", type=int, default=20_000, help="train: learner steps per timed run")


def run_from_args(args: argparse.Namespace) -> int:
    if args.target == "train":
        return _bench_train(args)
    TARGETS[args.target](num_players=args.players, games=args.games, repeats=args.repeats, seed=args.seed)
    return 0


def _bench_train(args: argparse.Namespace) -> int:
    from skyjo_env.cli import SUBCOMMANDS, install_hint

    missing = SUBCOMMANDS["train"].missing()
    if missing:
        raise CommandError(
            f"bench train needs the 'train' extra (missing: {', '.join(missing)}): {install_hint('train')}"
        )
    from train.bench import compare
    from train.config import ConfigError, load_config

    if args.steps < 1 or args.repeats < 1:
        raise CommandError("--steps and --repeats must be at least 1")
    try:
        config = load_config(args.config)
        compare(config, args.steps, args.repeats)
    except ConfigError as e:
        raise CommandError(str(e)) from None
    return 0
