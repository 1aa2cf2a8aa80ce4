"""The learning curve of a training run, drawn to a PNG (`skyjo plot` calls `plot_runs`).

Top: evaluation win rate against each bot; bottom: mean episode reward (training
episodes), both against training steps. Reads the run's metrics.jsonl. Several runs
are drawn end to end as the stages of one recipe (each started with `--init-model`
from the one before): a stage's steps start where the previous stage's last
evaluation is, and a dashed line marks where each stage begins.
"""

from __future__ import annotations

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


def end_to_end(runs: list[list[dict]]) -> list[list[tuple[int, dict]]]:
    """Each run's records with its x position: its own steps, plus the last step of the runs before it."""
    offset, placed = 0, []
    for records in runs:
        placed.append([(offset + r["step"], r) for r in records])
        offset += records[-1]["step"]
    return placed


def plot_runs(run_dirs: list[Path], out: Path | None = None) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stages = end_to_end([read_metrics(d) for d in run_dirs])
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True)
    colors: dict[str, str] = {}  # one colour per opponent, across stages; labelled once
    for run_dir, placed in zip(run_dirs, stages):
        xs = [x for x, _ in placed]
        for opp in placed[-1][1]["win_rate"]:
            label = None if opp in colors else f"vs {opp}"
            color = colors.setdefault(opp, f"C{len(colors)}")
            top.plot(xs, [r["win_rate"].get(opp) for _, r in placed], marker="o", ms=3, color=color, label=label)
        rewards = [(x, r["ep_rew_mean"]) for x, r in placed if r.get("ep_rew_mean") is not None]
        if rewards:
            bottom.plot([x for x, _ in rewards], [v for _, v in rewards], color="tab:purple")
        if len(run_dirs) > 1:
            for axis in (top, bottom):
                axis.axvline(xs[0], color="grey", lw=0.8, ls=":")
            top.annotate(run_dir.name, (xs[0], 0.02), fontsize=7, rotation=90, va="bottom", ha="right")
    top.axhline(0.5, color="grey", lw=0.8, ls="--")
    top.set_ylim(0, 1)
    top.set_ylabel("eval win rate")
    top.legend(loc="lower right")
    title = run_dirs[0].name if len(run_dirs) == 1 else f"{len(run_dirs)} stages, end to end"
    top.set_title(f"{title}: learning curve")
    bottom.set_ylabel("mean episode reward")
    bottom.set_xlabel("training steps" if len(run_dirs) == 1 else "training steps (all stages)")
    fig.tight_layout()
    out = out or run_dirs[-1] / "learning_curve.png"
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
