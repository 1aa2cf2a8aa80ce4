"""Seeded games between agents, one per seat, and their win rates (`skyjo eval` prints them).

Seats rotate so that each agent plays each seat equally often (game g puts agent i
in seat (i + g) mod N); every game and every bot is seeded from --seed, so a run
replays exactly. Games are spread over worker processes. A shared win counts 1/k.

Each agent's time per move is measured (median and 95th percentile, in the report). With
`records=PATH` (`skyjo eval --records PATH`) every finished game is appended to PATH as one JSON
line as its chunk finishes, and a run given a file that already holds games of the same run
(agents, seed, rules) plays only the games it lacks: a long evaluation (a search agent's) can be
stopped and resumed, and its report is the one an uninterrupted run gives.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from agents.base import one_blas_thread
from skyjo_env.engine import IllegalActionError, Rules
from skyjo_env.seated import SeatedGame


@dataclass
class GameRecord:
    """One game's outcome, indexed by position in the agents list (not by seat)."""

    index: int
    win_share: list[float]
    round_scores: list[list[int]]  # per round, per agent
    final_totals: list[int]
    truncated: bool
    move_ms: list[list[float]] = field(default_factory=list)  # per agent, each move's time in milliseconds


def game_seed(seed: int, index: int) -> int:
    return int(np.random.SeedSequence([seed, index]).generate_state(2, np.uint32).view(np.uint64)[0] >> 1)


def play_game(bots: list[Any], agent_names: list[str], rules: Rules, seed: int, index: int) -> GameRecord:
    """Play game `index` of a run; agent i sits in seat (i + index) mod N."""
    n = rules.num_players
    seat_of = [(i + index) % n for i in range(n)]
    bot_at_seat = [0] * n
    for i, seat in enumerate(seat_of):
        bot_at_seat[seat] = i
    s = game_seed(seed, index)
    game = SeatedGame(rules, [bots[i] for i in bot_at_seat])
    state = game.deal(s, [s + 1 + i for i in bot_at_seat])
    move_ms: list[list[float]] = [[] for _ in range(n)]

    def timed(seat: int, action: int, ms: float) -> None:
        move_ms[bot_at_seat[seat]].append(round(ms, 4))

    try:
        game.play_bots(timed)
    except IllegalActionError as e:
        name = agent_names[bot_at_seat[state.current_player]]
        raise IllegalActionError(f"agent {name!r} chose an illegal action: {e}") from None
    winners = set(state.winners)
    share = [1.0 / len(winners) if seat_of[i] in winners else 0.0 for i in range(n)]
    return GameRecord(
        index=index,
        win_share=share,
        round_scores=[[r[seat_of[i]] for i in range(n)] for r in state.round_history],
        final_totals=[state.totals[seat_of[i]] for i in range(n)],
        truncated=state.is_truncated,
        move_ms=move_ms,
    )


# ------------------------------------------------------------- workers
_worker: dict[str, Any] = {}


def _play_chunk(job: tuple[list[str], Rules, int, list[int]]) -> list[GameRecord]:
    """Play some games of a run; the bots are made once per process (an error reaches the caller)."""
    from agents import make

    agent_names, rules, seed, indices = job
    key = (tuple(agent_names), rules)
    if _worker.get("key") != key:
        _worker["bots"] = [make(name) for name in agent_names]
        _worker["key"] = key
    return [play_game(_worker["bots"], agent_names, rules, seed, i) for i in indices]


def worker_pool(workers: int) -> Pool:
    """A pool of `workers` processes to play games in, each with one BLAS thread (the workers share
    the cores: `agents.base.one_blas_thread`). Fork is fastest, but forking a process that already
    runs torch's thread pools can hang the children; spawn then."""
    fork_safe = "fork" in mp.get_all_start_methods() and "torch" not in sys.modules
    return mp.get_context("fork" if fork_safe else "spawn").Pool(workers, initializer=one_blas_thread)


def wilson_interval(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion (successes may be fractional: shared wins)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, center - half), min(1.0, center + half))


def evaluate(
    agent_names: list[str],
    games: int,
    seed: int = 0,
    rules: Rules | None = None,
    workers: int | None = None,
    progress: bool = True,
    records: str | Path | None = None,
) -> dict[str, Any]:
    """Play `games` games and return the report (the `--json` format); `records`: see the module doc."""
    from agents import make

    rules = rules or Rules(num_players=len(agent_names))
    if len(agent_names) != rules.num_players:
        raise ValueError(f"{len(agent_names)} agents given for {rules.num_players} players: give one agent per seat")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    for name in agent_names:
        make(name)  # fail early and clearly on an unknown name or a broken model file
    desc = "eval " + " vs ".join(agent_names)
    done: dict[int, GameRecord] = {}
    on_part = None
    if records is not None:
        done, on_part = _records_file(Path(records), agent_names, seed, rules)
    todo = [i for i in range(games) if i not in done]
    played = play_chunked(
        _play_chunk, lambda c: (list(agent_names), rules, seed, c), todo, workers, desc, progress, on_part
    )
    kept = [r for i, r in done.items() if i < games]
    return summarize(agent_names, kept + played, games, seed, rules)


def _records_file(
    path: Path, agent_names: list[str], seed: int, rules: Rules
) -> tuple[dict[int, GameRecord], Callable[[list[GameRecord]], None]]:
    """The games already in `path` (a JSON-lines file: a header naming the run, then one game a line),
    and a function that appends more. ValueError if the file holds another run's games."""
    header = {"agents": list(agent_names), "seed": seed, "rules": asdict(rules)}
    done: dict[int, GameRecord] = {}
    if path.exists() and path.stat().st_size:
        found = read_header(path)
        lines = path.read_text().splitlines()
        if found != header:
            raise ValueError(
                f"{path} holds games of another run ({found.get('agents')}, seed {found.get('seed')}); "
                f"this run is {list(agent_names)}, seed {seed}: give another --records file"
            )
        done = _parse_records(path, lines)
        text = "\n".join(lines[: 1 + len(done)]) + "\n"
        path.write_text(text)  # drop a cut line, so that appends start on a new line
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(header) + "\n")

    def append(part: list[GameRecord]) -> None:
        with path.open("a") as f:
            for record in part:
                f.write(json.dumps(asdict(record)) + "\n")

    return done, append


def _parse_records(path: Path, lines: list[str]) -> dict[int, GameRecord]:
    """The games of a records file's lines (after its header), by index; a last line cut short by a
    stop mid-write is left out (its game is played again)."""
    done: dict[int, GameRecord] = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            record = GameRecord(**json.loads(line))
        except (json.JSONDecodeError, TypeError):
            if number == len(lines):
                break
            raise ValueError(f"{path}: line {number} is not a game record") from None
        done[record.index] = record
    return done


def read_header(path: str | Path) -> dict[str, Any]:
    """The run a records file holds games of: its first line, {"agents", "seed", "rules"}."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"records file not found: {path}")
    with path.open() as f:
        first = f.readline()
    try:
        header = json.loads(first)
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or not {"agents", "seed", "rules"} <= set(header):
        raise ValueError(f"{path}: not a records file of skyjo eval (its first line names no run)")
    return header


def check_pairable(path: str | Path, seed: int, rules: Rules) -> dict[str, Any]:
    """`path`'s header if its games were played with `seed` and `rules`, so that its game k is this
    run's game k (the same deal, the same seat order); a clear ValueError if not."""
    header = read_header(path)
    if header["seed"] != seed:
        problem = f"holds games of seed {header['seed']}, this run is seed {seed}"
    elif header["rules"] != asdict(rules):
        problem = "holds games of other rules than this run's"
    else:
        return header
    raise ValueError(f"{path} {problem}: its games are other deals, not a paired comparison")


def paired_difference(path: str | Path, other: str | Path, games: int | None = None) -> dict[str, Any]:
    """Each position's win share in `path`'s games minus in `other`'s, over the games both records
    files hold (of the first `games`, if given). Both runs must have the same seed and rules: game k
    is then the same deal with the same seat order, and the difference is paired (common random
    numbers), its standard error that of the per-game differences. Two agents that play the same game
    alike differ on few games, so the paired error is far below the two runs' own intervals."""
    mine = read_header(path)
    theirs = check_pairable(other, mine["seed"], Rules(**mine["rules"]))
    a = {r.index: r for r in read_records(path)}
    b = {r.index: r for r in read_records(other)}
    common = sorted(i for i in set(a) & set(b) if games is None or i < games)
    if len(common) < 2:
        raise ValueError(f"{path} and {other} have {len(common)} game(s) in common: a paired difference needs 2")
    shares = np.array([a[i].win_share for i in common])
    other_shares = np.array([b[i].win_share for i in common])
    diff = shares - other_shares
    se = diff.std(axis=0, ddof=1) / math.sqrt(len(common))
    positions = []
    for k, name in enumerate(mine["agents"]):
        d = float(diff[:, k].mean())
        positions.append(
            {
                "agent": name,
                "other_agent": theirs["agents"][k],
                "win_rate": float(shares[:, k].mean()),
                "other_win_rate": float(other_shares[:, k].mean()),
                "difference": d,
                "se": float(se[k]),
                "difference_ci95": [d - 1.96 * float(se[k]), d + 1.96 * float(se[k])],
            }
        )
    return {
        "other": str(other),
        "games": len(common),
        "games_differing": int(np.any(diff != 0, axis=1).sum()),
        "positions": positions,
    }


def _name_width(names: list[str]) -> int:
    """A name column wide enough for every name whole (an agent's options make long names)."""
    return max([23, *map(len, names)]) + 1


def format_paired(paired: dict[str, Any]) -> str:
    mine = _name_width([p["agent"] for p in paired["positions"]])
    theirs = _name_width([p["other_agent"] for p in paired["positions"]])
    lines = [
        f"paired with {paired['other']}, the same {paired['games']} games ({paired['games_differing']} with "
        "another outcome):",
        f"{'position':<9}{'agent':<{mine}}{'win rate':>9}  {'its agent there':<{theirs}}{'win rate':>9}  "
        "difference (paired SE)  95% CI",
    ]
    for k, p in enumerate(paired["positions"]):
        lo, hi = p["difference_ci95"]
        lines.append(
            f"{k:<9}{p['agent']:<{mine}}{p['win_rate']:>9.3f}  {p['other_agent']:<{theirs}}{p['other_win_rate']:>9.3f}  "
            f"{p['difference']:+.3f} ({p['se']:.3f}){'':<9}[{lo:+.3f}, {hi:+.3f}]"
        )
    return "\n".join(lines)


def read_records(path: str | Path) -> list[GameRecord]:
    """The games of a records file (`evaluate(records=...)`), in index order."""
    path = Path(path)
    done = _parse_records(path, path.read_text().splitlines())
    return [done[i] for i in sorted(done)]


GAMES_PER_WORKER = 16  # by default, fewer games are played in this process


def play_chunked(
    play: Callable[[Any], list[Any]],
    job: Callable[[list[int]], Any],
    games: int | list[int],
    workers: int | None,
    desc: str,
    progress: bool,
    on_part: Callable[[list[Any]], None] | None = None,
) -> list[Any]:
    """`play(job(indices))` for chunks of the game indices 0..games-1 (or of the list given), spread over
    `workers` processes (default: one per core, but no more than one per `GAMES_PER_WORKER` games:
    starting a worker costs more than a few games) with a progress bar; the games' results, in no
    particular order (each game's result depends on its index only). `on_part` is called with each
    chunk's results as it finishes."""
    indices = list(range(games)) if isinstance(games, int) else list(games)
    results: list[Any] = []
    if not indices:
        return results
    if workers is None:
        workers = min(mp.cpu_count(), len(indices) // GAMES_PER_WORKER)
    workers = max(1, min(workers, len(indices)))
    size = max(1, min(50, len(indices) // (workers * 8) or 1))
    jobs = [job(indices[a : a + size]) for a in range(0, len(indices), size)]
    bar = tqdm(total=len(indices), desc=desc, unit="game", disable=not progress, file=sys.stderr)
    if workers == 1:  # here, with one BLAS thread while the games play, as a worker has
        with threadpool_limits(limits=1):
            for one in jobs:
                part = play(one)
                results += part
                bar.update(len(part))
                if on_part is not None:
                    on_part(part)
    else:
        with worker_pool(workers) as pool:
            for part in pool.imap_unordered(play, jobs):
                results += part
                bar.update(len(part))
                if on_part is not None:
                    on_part(part)
    bar.close()
    return results


def summarize(agent_names: list[str], records: list[GameRecord], games: int, seed: int, rules: Rules) -> dict[str, Any]:
    records = sorted(records, key=lambda r: r.index)
    n = len(agent_names)
    results = []
    rounds = sum(len(r.round_scores) for r in records)
    for i, name in enumerate(agent_names):
        wins = sum(r.win_share[i] for r in records)
        lo, hi = wilson_interval(wins, games)
        round_scores = [rs[i] for r in records for rs in r.round_scores]
        times = [t for r in records for t in (r.move_ms[i] if r.move_ms else ())]
        results.append(
            {
                "agent": name,
                "win_rate": wins / games,
                "win_rate_ci95": [lo, hi],
                "mean_round_score": float(np.mean(round_scores)) if round_scores else float("nan"),
                "mean_final_total": float(np.mean([r.final_totals[i] for r in records])),
                "ms_per_move_mean": float(np.mean(times)) if times else float("nan"),
                "ms_per_move_median": float(np.median(times)) if times else float("nan"),
                "ms_per_move_p95": float(np.percentile(times, 95)) if times else float("nan"),
            }
        )
    return {
        "agents": list(agent_names),
        "games": games,
        "seed": seed,
        "results": results,
        "mean_rounds_per_game": rounds / games,
        "truncated_games": sum(r.truncated for r in records),
        "num_players": n,
        "rules": asdict(rules),
    }


def format_report(report: dict[str, Any]) -> str:
    width = _name_width([r["agent"] for r in report["results"]])
    lines = [
        f"{report['games']} games, seed {report['seed']}, {report['num_players']} players, "
        f"{report['mean_rounds_per_game']:.2f} rounds per game"
        + (f", {report['truncated_games']} truncated" if report["truncated_games"] else ""),
        f"{'position':<9}{'agent':<{width}}{'win rate':>9}  {'95% CI':<15}{'round score':>12}{'final total':>12}"
        f"{'ms/move mean':>13}{'p50':>8}{'p95':>8}",
    ]
    for k, r in enumerate(report["results"]):
        lo, hi = r["win_rate_ci95"]
        lines.append(
            f"{k:<9}{r['agent']:<{width}}{r['win_rate']:>9.3f}  [{lo:.3f}, {hi:.3f}]  "
            f"{r['mean_round_score']:>10.2f}{r['mean_final_total']:>12.1f}"
            f"{r['ms_per_move_mean']:>13.2f}{r['ms_per_move_median']:>8.2f}{r['ms_per_move_p95']:>8.2f}"
        )
    return "\n".join(lines)
