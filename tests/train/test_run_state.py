"""What a resume reads back (`train.run_state`): a stop at any moment leaves files it can trust,
and it never pairs a model with another step's counters or fills a damaged file with defaults."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from skyjo_env import files
from train.config import ConfigError
from train.run_state import (
    BEST,
    BEST_NEXT,
    STATE_ENTRY,
    RunState,
    prepare_resume,
    promote_best,
    read_best_score,
    read_sb3_state,
    save_sb3_checkpoint,
    sha256,
    trim_metrics,
    trim_pool,
)


class FakeModel:
    """Saves what SB3 saves, as far as the counters care: a zip whose `data` entry has num_timesteps."""

    def __init__(self, steps: int, weights: str = "w") -> None:
        self.num_timesteps, self.weights = steps, weights

    def save(self, path: Path) -> None:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("data", json.dumps({"num_timesteps": self.num_timesteps}))
            z.writestr("policy.pth", self.weights)


def counters(steps: int, next_eval: int, next_snapshot: int | None = None) -> RunState:
    state = RunState()
    state.num_timesteps, state.next_eval, state.next_checkpoint = steps, next_eval, steps + 100
    state.next_snapshot = steps + 50 if next_snapshot is None else next_snapshot
    state.last_eval = {"expert": 0.5}
    return state


def one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


@pytest.fixture
def run(tmp_path: Path) -> Path:
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "pool").mkdir()
    return tmp_path


def test_the_checkpoint_carries_its_own_counters(run):
    latest = run / "checkpoints" / "latest.zip"
    save_sb3_checkpoint(FakeModel(4048), latest, counters(4048, next_eval=5000))
    state = read_sb3_state(latest)
    assert (state.num_timesteps, state.next_eval, state.last_eval) == (4048, 5000, {"expert": 0.5})
    assert not list(run.rglob(".*.tmp")), "no temporary file left"


def test_a_checkpoint_whose_counters_are_of_another_step_is_refused(run):
    latest = run / "checkpoints" / "latest.zip"
    FakeModel(6048).save(latest)
    with zipfile.ZipFile(latest, "a") as z:
        z.writestr(STATE_ENTRY, json.dumps(counters(4048, 5000).to_dict(4048)))
    with pytest.raises(ConfigError) as error:
        read_sb3_state(latest)
    assert "latest.zip" in one_line(error) and "6,048" in str(error.value) and "4,048" in str(error.value)


def test_an_older_runs_state_json_must_be_of_the_checkpoints_step(run):
    """The failure seen: state.json of step 4,048 beside latest.zip of step 6,048 resumed with stale counters."""
    latest, legacy = run / "checkpoints" / "latest.zip", run / "checkpoints" / "state.json"
    FakeModel(6048).save(latest)
    legacy.write_text(json.dumps({**counters(4048, 5000).to_dict(4048), "best_win_rate": 0.6}))
    with pytest.raises(ConfigError) as error:
        read_sb3_state(latest)
    assert "state.json" in one_line(error) and "another step" in str(error.value)
    legacy.write_text(json.dumps({**counters(6048, 7000).to_dict(6048), "best_win_rate": 0.6}))
    state = read_sb3_state(latest)
    assert (state.num_timesteps, state.next_eval, state.best_win_rate) == (6048, 7000, 0.6)


@pytest.mark.parametrize("damage", ["empty", "cut", "not a zip"])
def test_a_damaged_checkpoint_is_refused_in_one_line_naming_it(run, damage):
    latest = run / "checkpoints" / "latest.zip"
    save_sb3_checkpoint(FakeModel(4048), latest, counters(4048, 5000))
    whole = latest.read_bytes()
    latest.write_bytes({"empty": b"", "cut": whole[: len(whole) // 2], "not a zip": b"hello"}[damage])
    with pytest.raises(ConfigError) as error:
        read_sb3_state(latest)
    assert str(latest) in one_line(error) and "damaged" in str(error.value)


@pytest.mark.parametrize("text", ["", "{", '{"num_timesteps": 10}', '{"num_timesteps": "10", "next_eval": 0}'])
def test_damaged_or_missing_counters_are_refused_never_defaulted(run, text):
    (run / "checkpoints" / "state.json").write_text(text)
    FakeModel(10).save(run / "checkpoints" / "latest.zip")
    with pytest.raises(ConfigError) as error:
        read_sb3_state(run / "checkpoints" / "latest.zip")
    assert "state.json is damaged" in one_line(error)


def test_the_best_score_matches_the_best_model_whenever_the_stop_came(run):
    best = run / "best_model.zip"
    candidate = run / "checkpoints" / "eval_candidate.zip"
    FakeModel(1000, "first").save(candidate)
    promote_best(candidate, best, 0.55, 1000, {"expert": 0.55})
    assert read_best_score(best) == 0.55 and not candidate.exists()
    assert json.loads((run / BEST).read_text())["step"] == 1000

    # a stop after the new record was written, before the model was renamed: the old pair holds
    FakeModel(2000, "second").save(candidate)
    files.write_json(run / BEST_NEXT, {"sha256": sha256(candidate), "score": 0.62, "step": 2000})
    assert read_best_score(best) == 0.55 and not (run / BEST_NEXT).exists()

    # a stop after the model was renamed, before the record was: the new record is taken up
    files.write_json(run / BEST_NEXT, {"sha256": sha256(candidate), "score": 0.62, "step": 2000})
    files.move(candidate, best)
    assert read_best_score(best) == 0.62
    assert json.loads((run / BEST).read_text())["score"] == 0.62 and not (run / BEST_NEXT).exists()


def test_a_best_model_that_matches_no_record_is_refused(run):
    best = run / "best_model.zip"
    FakeModel(1000).save(run / "checkpoints" / "c.zip")
    promote_best(run / "checkpoints" / "c.zip", best, 0.55, 1000, {})
    FakeModel(1000, "changed by hand").save(best)
    with pytest.raises(ConfigError) as error:
        read_best_score(best)
    assert "best_model.zip matches neither best.json" in one_line(error)
    (run / BEST).write_text("")
    with pytest.raises(ConfigError) as error:
        read_best_score(best)
    assert "best.json is damaged: empty" in one_line(error)


def test_without_a_best_model_any_evaluation_is_the_best_so_far(run):
    assert read_best_score(run / "best_model.zip") == -1.0
    assert read_best_score(run / "best_model.zip") == -1.0


def test_evaluations_after_the_checkpoint_are_dropped_with_a_cut_last_row(run):
    rows = [{"step": s, "win_rate": {}} for s in (0, 1000, 2000, 2000, 3000)]  # two rows for 2000: the failure seen
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"step": 40')
    assert trim_metrics(run, counters(2048, next_eval=2000)) == 4
    assert [json.loads(line)["step"] for line in (run / "metrics.jsonl").read_text().splitlines()] == [0, 1000]
    assert trim_metrics(run, counters(2048, next_eval=2000)) == 0


def test_a_damaged_row_inside_metrics_is_refused(run):
    (run / "metrics.jsonl").write_text('{"step": 0}\ngarbage\n{"step": 1000}\n')
    with pytest.raises(ConfigError) as error:
        trim_metrics(run, counters(2048, 3000))
    assert "metrics.jsonl is damaged at line 2" in one_line(error)


def test_snapshots_after_the_checkpoint_leave_the_pool(run):
    for step in (0, 512, 1024, 1536):
        (run / "pool" / f"step{step:012d}.safetensors").write_bytes(b"x")
    assert trim_pool(run / "pool", counters(1024, 2000, next_snapshot=1536)) == 1
    assert sorted(p.name[:16] for p in (run / "pool").iterdir()) == [
        "step000000000000",
        "step000000000512",
        "step000000001024",
    ]


def test_an_older_runs_best_score_is_recorded_once_so_that_later_resumes_keep_it(run):
    best = run / "best_model.zip"
    FakeModel(1000).save(best)
    legacy = counters(2048, 3000)
    legacy.best_win_rate = 0.61  # what state.json said
    prepare_resume(run, legacy, best)
    later = counters(4096, 5000)  # a later resume: the counters inside the checkpoint hold no score
    prepare_resume(run, later, best)
    assert later.best_win_rate == 0.61


def test_a_resume_cleans_up_what_the_stop_left(run):
    leftovers = [
        run / "checkpoints" / ".latest.zip.tmp",
        run / "pool" / ".step000000000512.safetensors.tmp",
        run / ".metrics.jsonl.tmp",
        run / "checkpoints" / "latest.tmp.zip",  # the name older runs used
        run / "checkpoints" / "eval_candidate.zip",
    ]
    for path in leftovers:
        path.write_bytes(b"half")
    done = prepare_resume(run, counters(0, 0), run / "best_model.zip")
    assert not any(p.exists() for p in leftovers)
    assert any("temporary" in line for line in done)


def test_a_file_written_with_replacing_is_whole_or_untouched(tmp_path):
    target = tmp_path / "config.yaml"
    files.write_text(target, "old\n")
    with pytest.raises(RuntimeError), files.replacing(target) as tmp:
        tmp.write_text("half of the new")
        raise RuntimeError("stopped mid-write")
    assert target.read_text() == "old\n" and list(tmp_path.iterdir()) == [target]


@pytest.mark.parametrize("damage", [b"", b"PK\x03\x04 cut"])
def test_skyjo_train_resume_refuses_a_damaged_checkpoint_in_one_line(tmp_path, capsys, damage):
    from skyjo_env.cli import main
    from tests.train.test_train import TINY
    from train.config import load_config

    run = tmp_path / "tiny-1"
    (run / "checkpoints").mkdir(parents=True)
    load_config(None, {**TINY, "runs_dir": str(tmp_path)}).save(run / "config.yaml")
    (run / "checkpoints" / "latest.zip").write_bytes(damage)
    assert main(["train", "--resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "latest.zip is damaged" in err, err
    assert (run / "checkpoints" / "latest.zip").read_bytes() == damage, "nothing replaced"


@pytest.mark.slow  # several subprocess trainings, killed and resumed
def test_kill_9_at_random_moments_never_breaks_a_resume(tmp_path):
    """SIGKILL a training at random moments (mid-checkpoint, mid-evaluation, mid-snapshot, when
    they fall), resume each time: the resume starts at the last checkpoint's own step, and at the
    end there is one metrics row per evaluation, a best.json that matches best_model.zip, a pool
    that loads and no temporary file."""
    import os
    import random
    import signal
    import time

    from agents.model_file import load_policy
    from tests.train.test_train import TINY
    from train.config import merged

    # Long enough (about 13 s uninterrupted on the 2-core machine) to be killed five times before it ends.
    config = merged(TINY, {"total_timesteps": 24_576, "checkpoint_every": 128, "runs_dir": "runs"})
    config = merged(config, {"evaluation": {"every": 256, "games": 2, "final_games": 2}, "ppo": {"rollout_steps": 128}})
    config = merged(config, {"league": {"snapshot_every": 128}})
    (tmp_path / "kill.yaml").write_text(yaml.safe_dump(config))
    moments = random.Random(0)

    def start(*args: str) -> subprocess.Popen:
        command = [sys.executable, "-m", "skyjo_env", "train", *args]
        return subprocess.Popen(
            command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
        )

    proc, run, kills = start("--config", "kill.yaml"), None, 0
    while kills < 5:
        deadline = time.time() + 240
        while time.time() < deadline and proc.poll() is None:  # until the run has a checkpoint
            found = list((tmp_path / "runs").glob("*/checkpoints/latest.zip"))
            if found:
                run = found[0].parent.parent
                break
            time.sleep(0.2)
        time.sleep(moments.uniform(0.5, 4.0))
        if proc.poll() is not None:  # finished before the kill: nothing left to kill
            break
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
        kills += 1
        assert run is not None
        step = read_sb3_state(run / "checkpoints" / "latest.zip").num_timesteps
        proc = start("--resume", str(run))
        time.sleep(0.1)
        proc.resuming_at = step  # type: ignore[attr-defined]
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    if hasattr(proc, "resuming_at"):
        assert f"resuming {run} at step {proc.resuming_at:,}" in out
    assert kills >= 3, "the run finished before it could be killed enough times"
    assert run is not None
    steps = [json.loads(line)["step"] for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert steps == sorted(set(steps)), f"one row per evaluation, in order: {steps}"
    best = json.loads((run / "best.json").read_text())
    assert best["sha256"] == sha256(run / "best_model.zip")
    assert read_sb3_state(run / "checkpoints" / "latest.zip").num_timesteps >= 24_576
    for snapshot in (run / "pool").iterdir():
        load_policy(snapshot)
    assert not [p for p in run.rglob("*") if files.is_temporary(p) or "eval_candidate" in p.name]
