"""The round scores from which `ppo+search:objective=win` reads a chance of winning the game.

    python -m train.round_scores --out agents/models/round_scores.npz

For each table size (2 to 8), `--games` games (default 2000) of the network (`--agent`, default `ppo`) against
itself, played as `skyjo eval` plays them (seats rotated, `--seed`, `--workers`); every round's
scores (after the ender's doubling) are kept, one row per round. The file holds an int16 array of
shape (rounds, N) per table size N (keys `"2"` ... `"8"`) and `"info"` (JSON: the agent, games,
seed and rules it was made with). `agents.win_chance.RoundScores` reads it. The games of each size
are also written to `RUN/{N}p.jsonl` (`skyjo eval --records`), so a stopped run resumes.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from skyjo_env.engine import Rules
from train.evaluate import evaluate, read_records

SIZES = tuple(range(2, 9))


def collect(
    agent: str, games: int, seed: int, run: Path, sizes: tuple[int, ...] = SIZES, workers: int | None = None
) -> dict[int, np.ndarray]:
    """Each table size's round scores (rounds, N), from `games` games of `agent` against itself (a
    game cut off by the turn limit gives the rounds it finished: the cut round has no scores)."""
    out = {}
    for n in sizes:
        records = run / f"{n}p.jsonl"
        evaluate([agent] * n, games, seed=seed, rules=Rules(num_players=n), workers=workers, records=records)
        rows = [row for record in read_records(records) if record.index < games for row in record.round_scores]
        if not rows:
            raise RuntimeError(f"no round finished at {n} players in {records}")
        out[n] = np.asarray(rows, dtype=np.int16)
    return out


def write(path: Path, scores: dict[int, np.ndarray], info: dict) -> None:
    if path.suffix != ".npz":
        raise ValueError(f"the round scores file's name ends in .npz, got {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {str(n): a for n, a in scores.items()}
    np.savez_compressed(path, info=np.asarray(json.dumps(info)), **arrays)  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the .npz file to write")
    parser.add_argument("--agent", default="ppo", help="the agent that plays every seat (default ppo)")
    parser.add_argument("--games", type=int, default=2000, help="games per table size (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--run", type=Path, default=Path("runs/round_scores"), help="the games' records (resumable)")
    args = parser.parse_args(argv)
    scores = collect(args.agent, args.games, args.seed, args.run, workers=args.workers)
    info = {
        "agent": args.agent,
        "games": args.games,
        "seed": args.seed,
        "rules": {k: v for k, v in asdict(Rules()).items() if k != "num_players"},
        "rounds": {str(n): len(a) for n, a in scores.items()},
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    write(args.out, scores, info)
    print(f"wrote {args.out}: " + ", ".join(f"{n}p {len(a)} rounds" for n, a in scores.items()))


if __name__ == "__main__":
    main()
