"""`skyjo plot runs/RUN [--out FILE.png]`: the learning curve of a training run.

Top: evaluation win rate against each bot; bottom: mean episode reward (training
episodes), both against training steps. Reads the run's metrics.jsonl.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def read_metrics(run_dir: Path) -> list[dict]:
    path = run_dir / "metrics.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path} not found: is {run_dir} a run folder with at least one evaluation?")
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if not records:
        raise ValueError(f"{path} holds no evaluation yet")
    return sorted(records, key=lambda r: r["step"])


def plot_run(run_dir: Path, out: Path | None = None) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = read_metrics(run_dir)
    steps = [r["step"] for r in records]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True)
    opponents = list(records[-1]["win_rate"])
    for opp in opponents:
        top.plot(steps, [r["win_rate"].get(opp) for r in records], marker="o", ms=3, label=f"vs {opp}")
    top.axhline(0.5, color="grey", lw=0.8, ls="--")
    top.set_ylim(0, 1)
    top.set_ylabel("eval win rate")
    top.legend(loc="lower right")
    top.set_title(f"{run_dir.name}: learning curve")
    rewards = [(r["step"], r["ep_rew_mean"]) for r in records if r.get("ep_rew_mean") is not None]
    if rewards:
        bottom.plot([s for s, _ in rewards], [v for _, v in rewards], color="tab:purple")
    bottom.set_ylabel("mean episode reward")
    bottom.set_xlabel("training steps")
    fig.tight_layout()
    out = out or run_dir / "learning_curve.png"
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", type=Path, help="a run folder (runs/<name>-<timestamp>)")
    parser.add_argument("--out", type=Path, help="PNG path (default: RUN/learning_curve.png)")


def run_from_args(args: argparse.Namespace) -> int:
    from skyjo_env.cli import CommandError

    try:
        out = plot_run(args.run, args.out)
    except (FileNotFoundError, ValueError) as e:
        raise CommandError(str(e)) from None
    print(f"wrote {out}")
    return 0
