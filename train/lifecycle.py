"""What both training backends (SB3's `train.ppo`, RLlib's `train.rllib_train`) do around the
learning: evaluate a candidate against the config's opponents, record the evaluation in
`metrics.jsonl`, keep the best model so far (with its record, `train.run_state.promote_best`),
the final report, and a stop (Ctrl-C, SIGTERM) that saves a checkpoint first (`stop_saves`). What a
resume reads back is `train.run_state`.
"""

from __future__ import annotations

import contextlib
import json
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from skyjo_env import files
from train.config import TrainConfig
from train.run_state import METRICS, RunState, promote_best


@contextlib.contextmanager
def stop_saves(save: Callable[[], None], run_dir: Path, steps: Callable[[], int]) -> Iterator[None]:
    """The training inside runs until it ends or is stopped: Ctrl-C, or SIGTERM (a polite kill, the end
    of a session), which behaves like it. Either way `save()` then runs (the checkpoint); after a stop a
    line says how to resume and KeyboardInterrupt goes on up."""

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    interrupted = False
    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    except KeyboardInterrupt:
        interrupted = True
    finally:
        signal.signal(signal.SIGTERM, previous)
        save()
    if interrupted:
        print(f"\ninterrupted at step {steps():,}; checkpoint saved. Resume: skyjo train --resume {run_dir}")
        raise KeyboardInterrupt


def evaluate_model(model_path: Path, config: TrainConfig, games: int, seed: int) -> dict[str, dict[str, Any]]:
    """The model against each eval opponent (size - 1 copies of it) at each eval table size:
    {config.eval_key(opponent, size): skyjo eval report}."""
    from train.evaluate import evaluate

    reports = {}
    for opponent in config.evaluation.opponents:
        for n in config.eval_sizes():
            agents = [str(model_path)] + [opponent] * (n - 1)
            reports[config.eval_key(opponent, n)] = evaluate(
                agents, games, seed=seed, rules=config.rules_for(n), progress=False
            )
    return reports


def periodic_evaluation(
    config: TrainConfig,
    run_dir: Path,
    state: RunState,
    steps: int,
    evaluated: Path,
    best: Path,
    candidate: Path | None = None,
    ep_rew_mean: float | None = None,
) -> dict[str, dict[str, Any]]:
    """Evaluate the model file `evaluated`, append its row to metrics.jsonl, and make `candidate`
    (the same model in the best model's format; default `evaluated`) the best model `best` if its
    selection score is the best so far (ties go to the later, longer-trained model); return the
    reports. Both files are gone after."""
    candidate = evaluated if candidate is None else candidate
    reports = evaluate_model(evaluated, config, config.evaluation.games, seed=config.seed + steps)
    win_rates = {key: r["results"][0]["win_rate"] for key, r in reports.items()}
    row = {"step": steps, "time": time.time(), "win_rate": win_rates, "ep_rew_mean": ep_rew_mean}
    with open(run_dir / METRICS, "a") as f:  # a row cut by a stop is dropped by the resume (run_state)
        f.write(json.dumps(row) + "\n")
    state.last_eval = win_rates
    score = config.selection_score(win_rates)
    if score >= state.best_win_rate:
        state.best_win_rate = score
        promote_best(candidate, best, score, steps, win_rates)
    for leftover in (evaluated, candidate):  # a candidate that did not win
        files.remove(leftover)
    return reports


def final_report(config: TrainConfig, run_dir: Path, model: Path) -> None:
    """The final evaluation of `model` (the run's best model) into eval.txt and eval.json."""
    from train.evaluate import format_report

    if config.evaluation.final_games < 1:
        return
    reports = evaluate_model(model, config, config.evaluation.final_games, seed=10_000 + config.seed)
    text = "\n\n".join(f"best_model vs {opp}\n{format_report(r)}" for opp, r in reports.items())
    files.write_text(run_dir / "eval.txt", text + "\n")
    files.write_json(run_dir / "eval.json", reports)
    print(text)
