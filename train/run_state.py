"""What a resume reads back from a run folder, written so that a stop at any moment (Ctrl-C,
SIGKILL, the end of a session) leaves files a resume can trust, and read so that a resume never
guesses.

- The checkpoint and its counters are one unit: the counters (`RunState`) are a JSON entry,
  `skyjo_run_state.json`, inside the checkpoint itself (SB3's `checkpoints/latest.zip`, RLlib's
  `checkpoints/latest/` folder), and the checkpoint is written beside the old one and renamed
  into place. A resume reads the counters of the model it loads, never another step's.
- The best model and its score are paired by the model file's SHA-256: `best.json` holds the
  score, the step and the win rates of the file it describes. It is written as `best.next.json`
  before the model is renamed into place and renamed to `best.json` after, so a stop between
  the two renames leaves a record that matches the file either way.
- Periodic evaluations past the checkpoint (`metrics.jsonl` rows at or after its next
  evaluation) and self-play snapshots taken after it are from a stretch the resume replays:
  they are dropped. Temporary files (`.NAME.tmp`) are removed.
- A damaged or empty checkpoint, counters entry, `best.json` or (in runs from before this
  layout) `state.json` stops the resume with one line naming the file; nothing is replaced by
  defaults.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from pathlib import Path
from typing import Any

from skyjo_env import files
from train.config import ConfigError

STATE_ENTRY = "skyjo_run_state.json"
LEGACY_STATE = "state.json"  # runs from before the counters went inside the checkpoint
BEST = "best.json"
BEST_NEXT = "best.next.json"
METRICS = "metrics.jsonl"
_COUNTERS = ("next_eval", "next_checkpoint", "next_snapshot")
_SNAPSHOT = re.compile(r"step(\d+)\.")


class RunState:
    """The schedules' counters, the last evaluation and the best score so far."""

    def __init__(self) -> None:
        self.num_timesteps = 0
        self.next_eval = 0
        self.next_checkpoint = 0
        self.next_snapshot = 0
        self.last_eval: dict[str, float] = {}
        self.best_win_rate = -1.0  # from best.json, not from the counters

    def to_dict(self, num_timesteps: int) -> dict[str, Any]:
        return {
            "num_timesteps": num_timesteps,
            **{name: getattr(self, name) for name in _COUNTERS},
            "last_eval": self.last_eval,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str) -> RunState:
        """The counters in `data`; anything missing or of the wrong type is a ConfigError naming `where`."""
        if not isinstance(data, dict):
            raise ConfigError(f"{where} is damaged: not a JSON object")
        state = cls()
        for name in ("num_timesteps", *_COUNTERS):
            value = data.get(name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ConfigError(f"{where} is damaged: {name} is {value!r}, not a step count")
            setattr(state, name, value)
        last = data.get("last_eval", {})
        if not isinstance(last, dict) or not all(isinstance(v, int | float) for v in last.values()):
            raise ConfigError(f"{where} is damaged: last_eval is {last!r}")
        state.last_eval = {str(k): float(v) for k, v in last.items()}
        if "best_win_rate" in data:  # only in state.json of older runs
            state.best_win_rate = _score(data["best_win_rate"], where)
        return state


def _score(value: Any, where: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ConfigError(f"{where} is damaged: the score is {value!r}")
    return float(value)


def _read_json(path: Path, what: str = "") -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as e:
        reason = "empty" if path.exists() and path.stat().st_size == 0 else f"not JSON ({e})"
        raise ConfigError(f"{path} is damaged: {reason}{what}") from None


# --- the checkpoint -------------------------------------------------------------------------


def save_sb3_checkpoint(model: Any, path: Path, state: RunState) -> None:
    """`model` and `state`'s counters, as one zip written whole or not at all."""
    with files.replacing(path) as tmp:
        model.save(tmp)
        with zipfile.ZipFile(tmp, "a") as archive:  # SB3's loader reads its own entries and skips others
            archive.writestr(STATE_ENTRY, json.dumps(state.to_dict(model.num_timesteps), indent=2))


def read_sb3_state(path: Path) -> RunState:
    """The counters of the SB3 checkpoint `path`: the entry saved inside it, or for a checkpoint
    from before they were, `state.json` beside it; either must be of the model's own step."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))  # SB3's own entry: the model's attributes, as JSON
            text = archive.read(STATE_ENTRY) if STATE_ENTRY in archive.namelist() else None
        steps = data["num_timesteps"]
    except (OSError, zipfile.BadZipFile, EOFError, ValueError, KeyError, TypeError) as e:
        reason = "empty" if path.exists() and path.stat().st_size == 0 else f"{type(e).__name__}: {e}"
        raise ConfigError(f"{path} is damaged ({reason})") from None
    if text is None:
        return read_legacy_state(path.parent, steps)
    try:
        state = RunState.from_dict(json.loads(text), f"{path} ({STATE_ENTRY})")
    except ValueError as e:
        raise ConfigError(f"{path} is damaged: its {STATE_ENTRY} is not JSON ({e})") from None
    if state.num_timesteps != steps:
        raise ConfigError(f"{path} is damaged: its model is of step {steps:,}, its counters of {state.num_timesteps:,}")
    return state


def save_state_into(folder: Path, state: RunState, steps: int) -> None:
    """The counters into a checkpoint folder (RLlib's) before it is renamed into place."""
    (folder / STATE_ENTRY).write_text(json.dumps(state.to_dict(steps), indent=2))


def read_folder_state(folder: Path) -> RunState | None:
    path = folder / STATE_ENTRY
    if not path.exists():
        return None
    return RunState.from_dict(_read_json(path), str(path))


def read_legacy_state(checkpoints: Path, steps: int | None) -> RunState:
    """The counters of a run from before they went into the checkpoint: `state.json`, which must
    belong to the checkpoint of `steps` (when the checkpoint says its step)."""
    path = checkpoints / LEGACY_STATE
    if not path.exists():
        raise ConfigError(f"{path} is missing: the checkpoint's counters are not in it either")
    state = RunState.from_dict(_read_json(path), str(path))
    if steps is not None and state.num_timesteps != steps:
        raise ConfigError(
            f"{path} is from step {state.num_timesteps:,} but the checkpoint beside it is from step {steps:,}; "
            "resuming would pair the model with another step's counters"
        )
    return state


def load_sb3_model(path: Path, **kwargs: Any) -> Any:
    """MaskablePPO.load, with a damaged file refused in one line."""
    from sb3_contrib import MaskablePPO

    try:
        return MaskablePPO.load(path, **kwargs)
    except Exception as e:  # a cut or damaged zip fails in many ways (zipfile, torch, pickle, json)
        reason = "empty" if path.stat().st_size == 0 else f"{type(e).__name__}: {e}".splitlines()[0]
        raise ConfigError(f"{path} is damaged and cannot be loaded ({reason})") from None


# --- the best model -------------------------------------------------------------------------


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def promote_best(candidate: Path, best: Path, score: float, step: int, win_rate: dict[str, float]) -> None:
    """Rename `candidate` over `best` with its record in best.json, so that a stop at any moment
    leaves a record that matches the file."""
    run_dir = best.parent
    record = {"model": best.name, "sha256": sha256(candidate), "score": score, "step": step, "win_rate": win_rate}
    files.write_json(run_dir / BEST_NEXT, record)
    files.move(candidate, best)
    files.move(run_dir / BEST_NEXT, run_dir / BEST)


def read_best_score(best: Path) -> float | None:
    """The score of the best model `best` from the record that matches it; -1 without a best
    model, None without any record (a run from before best.json). A best model that matches no
    record is a ConfigError."""
    run_dir = best.parent
    pending = run_dir / BEST_NEXT
    if not best.exists():
        files.remove(pending)
        return -1.0
    records = [p for p in (run_dir / BEST, pending) if p.exists()]
    if not records:
        return None
    digest = sha256(best)
    for path in records:
        record = _read_json(path)
        if not isinstance(record, dict) or "sha256" not in record:
            raise ConfigError(f"{path} is damaged: no sha256 of the model it describes")
        if record["sha256"] == digest:
            score = _score(record.get("score"), str(path))
            if path == pending:  # stopped between the model's rename and the record's
                files.move(pending, run_dir / BEST)
            else:
                files.remove(pending)
            return score
    raise ConfigError(
        f"{best} matches neither {' nor '.join(p.name for p in records)} (changed by hand?); "
        "move it aside, or put back the file the record describes, to resume"
    )


# --- what the resume replays ----------------------------------------------------------------


def trim_metrics(run_dir: Path, state: RunState) -> int:
    """Drop metrics.jsonl's rows from evaluations the checkpoint does not know of (step at or
    past its next evaluation) and a last line cut by the stop; return how many were dropped."""
    path = run_dir / METRICS
    if not path.exists():
        return 0
    lines = path.read_text().splitlines()
    kept, dropped = [], 0
    for number, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
            step = row["step"]
        except (ValueError, TypeError, KeyError):
            if number == len(lines):  # an append cut by the stop
                dropped += 1
                continue
            raise ConfigError(f"{path} is damaged at line {number}: {line[:60]!r}") from None
        if step >= state.next_eval:
            dropped += 1
        else:
            kept.append(line)
    if dropped:
        files.write_text(path, "".join(line + "\n" for line in kept))
    return dropped


def trim_pool(pool: Path, state: RunState) -> int:
    """Drop self-play snapshots taken after the checkpoint (at or past its next snapshot)."""
    if not pool.exists():
        return 0
    later = [p for p in pool.iterdir() if (m := _SNAPSHOT.match(p.name)) and int(m.group(1)) >= state.next_snapshot]
    for path in later:
        files.remove(path)
    return len(later)


def prepare_resume(run_dir: Path, state: RunState, best: Path) -> list[str]:
    """Make `run_dir` agree with the checkpoint `state` came from; return what was done, as lines."""
    done = []
    if removed := files.remove_temporaries(run_dir):
        done.append(f"removed {len(removed)} temporary file(s) left by the stop")
    for leftover in ("latest.tmp.zip", "eval_candidate.zip", "eval_candidate.safetensors", "state.json.tmp"):
        path = run_dir / "checkpoints" / leftover
        if path.exists():
            files.remove(path)
            done.append(f"removed {path.name} left by the stop")
    score = read_best_score(best)
    if score is not None:
        state.best_win_rate = score
    elif best.exists():  # a run from before best.json: record the score its state.json gave (else none)
        record = {
            "model": best.name,
            "sha256": sha256(best),
            "score": state.best_win_rate,
            "step": None,
            "win_rate": {},
        }
        files.write_json(run_dir / BEST, record)
        done.append(f"recorded {best.name}'s score from the run's counters in {BEST}")
    if dropped := trim_metrics(run_dir, state):
        done.append(f"dropped {dropped} {METRICS} row(s) from after the checkpoint")
    if dropped := trim_pool(run_dir / "pool", state):
        done.append(f"dropped {dropped} self-play snapshot(s) from after the checkpoint")
    return done
