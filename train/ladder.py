"""A rating ladder: seat-rotated games among several agents at several table sizes, rated with OpenSkill.

`ladder(agents, sizes, games, seed)` plays, at each table size n, `games` seeded games whose
seats are drawn from the agents: each game seats a fresh random order of them (the first n
of a shuffle when there are at least n agents; the shuffle repeated when there are fewer, so
that an agent may hold two seats). Every seat is ranked by its final total (lowest first, ties
share a rank) and the ratings are updated game by game, in order, with OpenSkill's
Plackett-Luce model (`openskill`, a maintained, MIT-licensed Weng-Lin rating library made for
games of many players and teams, with no SciPy or other heavy dependency; TrueSkill handles
many players too but its maintained package needs SciPy and is slower). An agent holding two
seats of a game gets the mean of the two seats' updated ratings. Each size has its own ratings.

Per agent and size the report holds the rating `mu`, its uncertainty `sigma`, the
conservative `ordinal` (mu - 3 sigma, what the table is sorted by), the games played and seats
held, the wins (a game won by any of its seats; k tied winners 1/k each) and the win share
(wins / games), next to the fair share (seats held / seats at the table, per game), and the
games that hit the turn limit (`max_turns_per_round`: no winner, no ranking; counted in
`games` and `truncated`, left out of the ratings).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from skyjo_env.engine import Rules
from skyjo_env.engine.options import MAX_PLAYERS, MIN_PLAYERS
from skyjo_env.seated import SeatedGame
from train.evaluate import game_seed, play_chunked


@dataclass
class LadderGame:
    size: int
    index: int
    seats: list[int]  # agent index at each seat
    totals: list[int]  # final totals, seat by seat
    winners: list[int]  # the winning seats (none when truncated)
    truncated: bool = False  # a round reached max_turns_per_round: no result, not rated


def seating(num_agents: int, size: int, seed: int, index: int) -> list[int]:
    """Agent index at each seat of game `index` at a table of `size` (see the module docstring)."""
    rng = np.random.default_rng([seed, size, index])
    order = [int(a) for a in rng.permutation(num_agents)]
    while len(order) < size:
        order += [int(a) for a in rng.permutation(num_agents)]
    return order[:size]


def play(agent_names: Sequence[str], size: int, seed: int, index: int, bots: dict[str, list[Any]]) -> LadderGame:
    """Play one ladder game; `bots[name]` holds that agent's bot objects, one per seat it may take."""
    from agents import make

    seats = seating(len(agent_names), size, seed, index)
    seat_bots = []
    used: dict[str, int] = {}
    for agent in seats:
        name = agent_names[agent]
        k = used.get(name, 0)
        used[name] = k + 1
        pool = bots.setdefault(name, [])
        while len(pool) <= k:
            pool.append(make(name))
        seat_bots.append(pool[k])
    s = game_seed(seed + 7919 * size, index)
    game = SeatedGame(Rules(num_players=size), seat_bots)
    state = game.deal(s, [s + 1 + seat for seat in range(size)])
    game.play_bots()
    truncated = state.is_truncated
    return LadderGame(size, index, seats, list(state.totals), [] if truncated else list(state.winners), truncated)


def _ladder_job(names: list[str], size: int, seed: int, indices: list[int]) -> tuple[list[str], int, int, list[int]]:
    return names, size, seed, indices


def _play_chunk(job: tuple[list[str], int, int, list[int]]) -> list[LadderGame]:
    names, size, seed, indices = job
    bots: dict[str, list[Any]] = {}
    return [play(names, size, seed, i, bots) for i in indices]


def ladder(
    agent_names: Sequence[str],
    sizes: Sequence[int],
    games: int,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Play and rate the ladder; return the report (the `--json` format)."""
    from openskill.models import PlackettLuce

    from agents import make
    from agents.base import check_plays

    names = list(agent_names)
    if len(names) < 2:
        raise ValueError("a ladder needs at least two agents")
    if len(set(names)) != len(names):
        raise ValueError(f"an agent is named twice: {names}")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    for n in sizes:
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ValueError(f"table sizes must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {n}")
    for name in names:
        bot = make(name)  # fail early and clearly on an unknown name or a broken model file
        for n in sizes:
            check_plays(bot, n, name)
    report: dict[str, Any] = {"agents": names, "games": games, "seed": seed, "sizes": {}, "truncated": {}}
    for n in sizes:
        job = functools.partial(_ladder_job, names, n, seed)
        results = play_chunked(_play_chunk, job, games, workers, f"ladder, {n} players", progress)
        results.sort(key=lambda g: g.index)
        report["sizes"][str(n)] = rate(names, results, PlackettLuce())
        report["truncated"][str(n)] = sum(game.truncated for game in results)
    return report


def rate(names: Sequence[str], results: Sequence[LadderGame], model: Any) -> dict[str, dict[str, Any]]:
    """Ratings and counts per agent after `results`, in order."""
    ratings = {name: model.rating(name=name) for name in names}
    stats = {name: {"games": 0, "seats": 0, "wins": 0.0, "fair_share": 0.0, "truncated": 0} for name in names}
    for game in results:
        seat_names = [names[a] for a in game.seats]
        if game.truncated:  # no winner and no final ranking: counted, not rated
            for name in set(seat_names):
                stats[name]["games"] += 1
                stats[name]["seats"] += seat_names.count(name)
                stats[name]["fair_share"] += seat_names.count(name) / game.size
                stats[name]["truncated"] += 1
            continue
        ranks = _ranks(game.totals)
        teams = model.rate([[ratings[name]] for name in seat_names], ranks=ranks)
        updated: dict[str, list[Any]] = {}
        for name, (rating,) in zip(seat_names, teams):
            updated.setdefault(name, []).append(rating)
        for name, new in updated.items():
            mu = sum(r.mu for r in new) / len(new)
            sigma = sum(r.sigma for r in new) / len(new)
            ratings[name] = model.rating(mu=mu, sigma=sigma, name=name)
            s = stats[name]
            s["games"] += 1
            s["seats"] += len(new)
            s["fair_share"] += len(new) / game.size
            won = sum(1 for seat in game.winners if seat_names[seat] == name)
            s["wins"] += won / len(game.winners)
    out = {}
    for name in names:
        r, s = ratings[name], stats[name]
        played = max(1, s["games"])
        out[name] = {
            "mu": r.mu,
            "sigma": r.sigma,
            "ordinal": r.mu - 3 * r.sigma,
            "games": s["games"],
            "seats": s["seats"],
            "wins": s["wins"],
            "win_share": s["wins"] / played,
            "fair_share": s["fair_share"] / played,
            "truncated": s["truncated"],
        }
    return out


def _ranks(totals: Sequence[int]) -> list[int]:
    """1 for the lowest total, equal totals sharing a rank."""
    return [1 + sum(1 for other in totals if other < t) for t in totals]


def format_report(report: dict[str, Any]) -> str:
    lines = [f"{report['games']} games per table size, seed {report['seed']}; sorted by ordinal (mu - 3 sigma)"]
    width = max(8, *(len(name) for name in report["agents"]))
    for size, table in report["sizes"].items():
        lines.append("")
        truncated = report.get("truncated", {}).get(size, 0)
        lines.append(f"{size} players" + (f" ({truncated} games hit the turn limit: not rated)" if truncated else ""))
        lines.append(
            f"{'agent':<{width}}  {'rating':>7} {'+/-':>6} {'ordinal':>8} {'games':>6} {'win share':>9} {'fair':>6}"
        )
        for name, row in sorted(table.items(), key=lambda item: -item[1]["ordinal"]):
            lines.append(
                f"{name:<{width}}  {row['mu']:7.2f} {row['sigma']:6.2f} {row['ordinal']:8.2f} "
                f"{row['games']:6d} {row['win_share']:9.3f} {row['fair_share']:6.3f}"
            )
    return "\n".join(lines)


def write_json(report: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(report, indent=2) + "\n")


def plot(report: dict[str, Any], path: str | Path) -> None:
    """Each agent's rating (mu, with bars of 2 sigma) at each table size, to a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [int(n) for n in report["sizes"]]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    for k, name in enumerate(report["agents"]):
        mus = [report["sizes"][str(n)][name]["mu"] for n in sizes]
        sigmas = [2 * report["sizes"][str(n)][name]["sigma"] for n in sizes]
        offset = (k - (len(report["agents"]) - 1) / 2) * 0.06
        ax.errorbar([n + offset for n in sizes], mus, yerr=sigmas, marker="o", capsize=3, label=name)
    ax.set_xticks(sizes)
    ax.set_xlabel("players at the table")
    ax.set_ylabel("OpenSkill rating (mu, bars: 2 sigma)")
    ax.set_title(f"Skyjo ladder: {report['games']} games per table size, seed {report['seed']}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
