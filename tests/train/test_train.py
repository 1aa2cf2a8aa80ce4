"""`skyjo train` end to end on a tiny config: run folder, checkpoints, resume, models as bots."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

import agents
from agents.model_file import load_policy
from agents.ppo_bot import ModelLoadError, PolicyBot
from skyjo_env.engine import Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.view import seat_view
from tests.helpers import plays_a_legal_game
from train.config import NO_WARM_START, merged
from train.plot import end_to_end
from train.run_state import read_sb3_state, sha256

TINY = {
    "name": "tiny",
    "total_timesteps": 512,
    "checkpoint_every": 256,
    "device": "cpu",
    "env": {"n_envs": 2},
    "ppo": {"rollout_steps": 256, "minibatch_size": 64, "n_epochs": 1, "net_arch": [32, 32]},
    "evaluation": {"every": 256, "games": 6, "opponents": ["random", "greedy"], "final_games": 6},
    "league": {"snapshot_every": 256, "opponents": {"random": 0.5, "self": 0.5}},
    "warm_start": {"bot": "expert", "games": 2, "epochs": 1},
}


def checkpoint_step(run: Path) -> int:
    """The step of the run's last checkpoint, from the counters saved inside it."""
    return read_sb3_state(run / "checkpoints" / "latest.zip").num_timesteps


def skyjo(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "skyjo_env", *args], capture_output=True, text=True, check=False, cwd=cwd, timeout=600
    )


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("train")
    (root / "tiny.yaml").write_text(yaml.safe_dump({**TINY, "runs_dir": str(root / "runs")}))
    done = skyjo("train", "--config", "tiny.yaml", cwd=root)
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = (root / "runs").iterdir()
    return run


@pytest.mark.slow  # a subprocess training; test_train_in_process covers the same path quickly
def test_a_run_folder_has_everything(tiny_run):
    for name in (
        "config.yaml",
        "warm_start.json",
        "best_model.zip",
        "final_model.zip",
        "eval.txt",
        "eval.json",
        "metrics.jsonl",
    ):
        assert (tiny_run / name).is_file(), name
    for name in ("best_model", "final_model"):  # the pickle-free copies hold the checkpoints' policy
        exported, checkpoint = load_policy(tiny_run / f"{name}.safetensors"), PolicyBot(tiny_run / f"{name}.zip")
        assert exported.info["run"] == tiny_run.name and exported.info["config"] == "tiny"
        assert all(np.array_equal(w, w2) for (w, _), (w2, _) in zip(exported.weights, checkpoint.network.weights))
    assert (tiny_run / "checkpoints" / "latest.zip").is_file()
    assert list((tiny_run / "pool").glob("*.safetensors")), "self-play snapshots, as policy files"
    assert list((tiny_run / "tb").rglob("events.out.tfevents.*")), "TensorBoard events"
    config = yaml.safe_load((tiny_run / "config.yaml").read_text())
    assert config["total_timesteps"] == 512 and config["league"]["opponents"] == {"random": 0.5, "self": 0.5}
    report = json.loads((tiny_run / "eval.json").read_text())
    assert set(report) == {"random", "greedy"}
    assert report["random"]["games"] == 6 and len(report["random"]["results"]) == 2
    metrics = [json.loads(line) for line in (tiny_run / "metrics.jsonl").read_text().splitlines()]
    assert metrics and set(metrics[0]["win_rate"]) == {"random", "greedy"}
    assert checkpoint_step(tiny_run) >= 512
    best = json.loads((tiny_run / "best.json").read_text())
    assert best["sha256"] == sha256(tiny_run / "best_model.zip") and best["model"] == "best_model.zip"


@pytest.mark.slow  # a subprocess training; test_train_in_process covers the same path quickly
def test_resume_continues_from_the_checkpoint(tiny_run):
    before = checkpoint_step(tiny_run)
    done = skyjo("train", "--resume", str(tiny_run), "--total-timesteps", "1024", cwd=tiny_run.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"resuming {tiny_run} at step {before:,}" in done.stdout
    after = checkpoint_step(tiny_run)
    assert after >= 1024 > before
    assert yaml.safe_load((tiny_run / "config.yaml").read_text())["total_timesteps"] == 1024


@pytest.mark.slow  # a subprocess training; test_train_in_process covers the same path quickly
def test_a_new_run_can_start_from_a_models_weights(tiny_run, tmp_path):
    config = merged(TINY, {"total_timesteps": 256, "league": {"opponents": {"random": 1.0}}})
    config = merged(config, {"evaluation": {"final_games": 2, "games": 2}, "warm_start": {"bot": NO_WARM_START}})
    config.update(runs_dir=str(tmp_path / "runs"), init_model=str(tiny_run / "final_model.zip"))
    (tmp_path / "warm.yaml").write_text(yaml.safe_dump(config))
    done = skyjo("train", "--config", "warm.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"starting from the weights of {tiny_run / 'final_model.zip'}" in done.stdout
    config = merged(config, {"ppo": {"net_arch": [16]}})
    (tmp_path / "wrong.yaml").write_text(yaml.safe_dump(config))
    done = skyjo("train", "--config", "wrong.yaml", cwd=tmp_path)
    assert done.returncode == 2 and "does not fit this config's network" in done.stderr


def test_a_new_run_can_start_from_a_policy_files_actor(tiny_run, tmp_path):
    """A policy file holds an actor and no critic: the new model takes the actor bit for bit and the
    warm start fits the critic alone on its bot's games."""
    from agents.sb3_model import network_from_model
    from train.config import ConfigError
    from train.ppo import _new_run_model, build_vec_env

    policy_file = tiny_run / "final_model.safetensors"
    config, run, _ = _in_process_run(tmp_path, init_model=str(policy_file), warm_start={"bot": "greedy"})
    model = _new_run_model(config, run, build_vec_env(config, run / "pool"))
    loaded, original = network_from_model(model).named, load_policy(policy_file).named
    assert list(loaded) == list(original)
    assert all(np.array_equal(loaded[k][i], original[k][i]) for k in original for i in (0, 1))
    report = json.loads((run / "warm_start.json").read_text())
    assert report["bot"] == "greedy" and report["value_only"] is True and report["decisions"] > 0
    config, run, _ = _in_process_run(
        tmp_path / "other", init_model=str(policy_file), warm_start={"bot": "greedy"}, ppo={"net_arch": [32, 16]}
    )
    with pytest.raises(ConfigError, match="does not fit this config.s network: .*layer policy.1 has shape"):
        _new_run_model(config, run, build_vec_env(config, run / "pool"))
    config, run, _ = _in_process_run(
        tmp_path / "three", init_model=str(policy_file), warm_start={"bot": "greedy"}, env={"num_players": 3}
    )
    with pytest.raises(ConfigError, match=r"it plays \[2\] players; this run plays \[3\]"):
        _new_run_model(config, run, build_vec_env(config, run / "pool"))


def test_a_warm_start_can_distil_a_networks_probabilities(tmp_path):
    """warm_start.target: policy clones `ppo`'s probabilities over the legal moves (a 2-player table in
    skyjo_v0: the teacher reads its own observation); the report says which target was fitted."""
    from train.ppo import _new_run_model, build_vec_env

    warm = {"bot": "ppo", "games": 1, "epochs": 1, "target": "policy"}
    config, run, _ = _in_process_run(tmp_path, warm_start=warm)
    _new_run_model(config, run, build_vec_env(config, run / "pool"))
    report = json.loads((run / "warm_start.json").read_text())
    assert report["bot"] == "ppo" and report["target"] == "policy" and report["decisions"] > 0


def test_the_shipped_network_loads_into_a_model_of_its_recipe(tmp_path):
    """`ppo` (agents/models/ppo_all.safetensors, the seats network) as init_model of its own recipe:
    the model's actor is the file's, so the model plays the shipped agent's moves."""
    from agents.ppo_bot import SHIPPED_MODEL_ALL
    from agents.sb3_model import network_from_model
    from train.config import load_config
    from train.ppo import _new_run_model, build_vec_env, new_run_dir

    short = {"env": {"n_envs": 2}, "warm_start": {"bot": "greedy", "games": 1, "epochs": 1}}
    short.update(init_model=str(SHIPPED_MODEL_ALL), runs_dir=str(tmp_path / "runs"))
    config = load_config(Path(__file__).resolve().parents[2] / "configs" / "ppo_all_sizes.yaml", short)
    run = new_run_dir(config)
    model = _new_run_model(config, run, build_vec_env(config, run / "pool"))
    shipped, loaded = load_policy(SHIPPED_MODEL_ALL), network_from_model(model)
    assert loaded.architecture == shipped.architecture == "seats"
    assert all(np.array_equal(loaded.named[k][i], shipped.named[k][i]) for k in shipped.named for i in (0, 1))


@pytest.mark.slow  # a subprocess training; test_train_in_process covers the same path quickly
def test_a_checkpoint_is_a_bot_that_plays_legal_moves(tiny_run):
    plays_a_legal_game(agents.make(str(tiny_run / "checkpoints" / "latest.zip")), seed=0)


@pytest.mark.slow  # a subprocess training; test_train_in_process covers the same path quickly
@pytest.mark.parametrize("stages", [1, 2])
def test_plot_draws_the_learning_curve(tiny_run, tmp_path, stages):
    out = tmp_path / "curve.png"
    done = skyjo("plot", *[str(tiny_run)] * stages, "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_stages_are_drawn_end_to_end():
    first = [{"step": 0}, {"step": 500}, {"step": 900}]
    second = [{"step": 0}, {"step": 400}]
    placed = end_to_end([first, second])
    assert [x for x, _ in placed[0]] == [0, 500, 900]
    assert [x for x, _ in placed[1]] == [900, 1300]
    assert placed[1][1][1] is second[1]


@pytest.mark.slow  # a subprocess training; test_train_in_process covers the same path quickly
def test_average_writes_the_mean_of_the_weights_and_plays(tiny_run, tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    from agents.sb3_model import network_from_sb3

    moved = MaskablePPO.load(tiny_run / "final_model.zip", device="cpu")  # a second model: the weights moved
    with torch.no_grad():
        for parameter in moved.policy.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.1)
    moved.save(tmp_path / "moved.zip")
    snapshots = [tmp_path / "moved.zip", tiny_run / "final_model.zip"]
    out = tmp_path / "mean.zip"
    done = skyjo("average", str(out), *map(str, snapshots[-2:]), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    layers = [network_from_sb3(p).weights for p in (*snapshots[-2:], out)]
    for (w1, b1), (w2, b2), (w, b) in zip(*layers):
        assert np.allclose(w, (w1 + w2) / 2, atol=1e-6) and np.allclose(b, (b1 + b2) / 2, atol=1e-6)
    assert not np.allclose(layers[0][0][0], layers[1][0][0]), "the two inputs should differ"
    plays_a_legal_game(agents.make(str(out)), seed=1)
    again = skyjo("average", str(out), *map(str, snapshots[-2:]), cwd=tmp_path)
    assert again.returncode == 2 and "exists; pass --force" in again.stderr


@pytest.mark.slow  # a subprocess training; test_train_in_process covers the same path quickly
def test_average_refuses_one_model_and_different_networks(tiny_run, tmp_path):
    import gymnasium
    from sb3_contrib import MaskablePPO

    one = skyjo("average", str(tmp_path / "a.zip"), str(tiny_run / "best_model.zip"), cwd=tmp_path)
    assert one.returncode == 2 and "at least two models" in one.stderr
    wide = tmp_path / "wide.zip"
    env = gymnasium.make("skyjo_env:Skyjo-v0", num_players=2)
    MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [48]}, n_steps=8, batch_size=8, device="cpu").save(wide)
    mixed = skyjo("average", str(tmp_path / "b.zip"), str(tiny_run / "best_model.zip"), str(wide), cwd=tmp_path)
    assert mixed.returncode == 2 and "has another network than" in mixed.stderr, mixed.stderr
    missing = skyjo("average", str(tmp_path / "c.zip"), str(wide), str(tmp_path / "none.zip"), cwd=tmp_path)
    assert missing.returncode == 2 and "model file not found" in missing.stderr


@pytest.mark.slow  # a subprocess training; test_train_in_process covers the same path quickly
def test_a_model_for_another_player_count_is_refused(tiny_run):
    bot = PolicyBot(tiny_run / "best_model.zip")
    assert bot.num_players == 2
    state = new_game(Rules(num_players=3), seed=0)
    with pytest.raises(ValueError, match="trained for 2 players; this game has 3"):
        bot.act(seat_view(state, 0), legal_actions(state))


@pytest.mark.slow  # a subprocess training; test_train_in_process covers the same path quickly
def test_missing_truncated_and_foreign_model_files(tmp_path, tiny_run):
    with pytest.raises(FileNotFoundError, match="model file not found"):
        agents.make(str(tmp_path / "none.zip"))
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes((tiny_run / "best_model.zip").read_bytes()[:300])
    with pytest.raises(ModelLoadError, match="not a model checkpoint"):
        agents.make(str(truncated))
    text = tmp_path / "notes.zip"
    text.write_text("hello")
    with pytest.raises(ModelLoadError, match="not a zip file"):
        agents.make(str(text))


def test_a_model_with_a_foreign_observation_is_refused(tmp_path):
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    class Foreign(gym.Env):
        observation_space = gym.spaces.Box(0, 1, (10,), np.float32)
        action_space = gym.spaces.Discrete(26)

        def reset(self, *, seed=None, options=None):
            return np.zeros(10, np.float32), {}

        def step(self, action):
            return np.zeros(10, np.float32), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(26, bool)

    path = tmp_path / "foreign.zip"
    MaskablePPO("MlpPolicy", Foreign(), n_steps=8, batch_size=8, device="cpu").save(path)
    with pytest.raises(ModelLoadError, match="no Skyjo observation"):
        agents.make(str(path))


def test_bad_training_config_is_a_clear_cli_error(tmp_path):
    (tmp_path / "bad.yaml").write_text("total_timestep: 5\n")
    done = skyjo("train", "--config", "bad.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert "unknown config key(s) ['total_timestep']" in done.stderr and "Traceback" not in done.stderr
    done = skyjo("train", "--resume", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2 and "is not a run folder" in done.stderr


def test_a_resume_that_would_change_the_network_leaves_the_run_as_it_was(tmp_path):
    from train.config import TrainConfig

    saved = TrainConfig().replaced(ppo={"net_arch": [32, 32]}).to_yaml()
    (tmp_path / "config.yaml").write_text(saved)
    done = skyjo("train", "--resume", str(tmp_path), "--ppo.net-arch", "[64]", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "a resumed run keeps its network: ppo.net_arch cannot change" in done.stderr
    assert (tmp_path / "config.yaml").read_text() == saved


@pytest.mark.slow  # a subprocess training; test_train_in_process covers the same path quickly
def test_ctrl_c_saves_a_checkpoint_that_resumes(tmp_path):
    import os
    import signal
    import time

    config = merged(TINY, {"total_timesteps": 10**7, "evaluation": {"every": 10**7}, "checkpoint_every": 10**7})
    config["runs_dir"] = "runs"
    (tmp_path / "long.yaml").write_text(yaml.safe_dump(config))
    proc = subprocess.Popen(
        [sys.executable, "-m", "skyjo_env", "train", "--config", "long.yaml"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # A shell's background job inherits SIGINT ignored, and Python then installs no
        # KeyboardInterrupt handler: give the run the default, as in a terminal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 240
    while time.time() < deadline and not list((tmp_path / "runs").glob("*/tb/*/events.out.tfevents.*")):
        time.sleep(0.5)
    time.sleep(3)  # let it train a little
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    assert proc.returncode == 130, err[-2000:]
    assert "checkpoint saved. Resume: skyjo train --resume" in out
    (run,) = (tmp_path / "runs").iterdir()
    steps = checkpoint_step(run)
    assert steps > 0 and (run / "checkpoints" / "latest.zip").exists()


def _in_process_run(tmp_path: Path, **changes):
    """TINY with `overrides`, short evaluations and snapshots every 128 steps: (config, new run folder, overrides)."""
    from train.config import load_config
    from train.ppo import new_run_dir

    overrides = merged(TINY, {"league": {"snapshot_every": 128}, "evaluation": {"final_games": 2, "games": 2}})
    overrides = merged(overrides, changes)
    overrides["runs_dir"] = str(tmp_path / "runs")
    config = load_config(None, overrides)
    return config, new_run_dir(config), overrides


def test_train_in_process_writes_a_run_folder_that_resumes(tmp_path):
    """The library path of `skyjo train`, in this process: run folder, models, report; then a resume adds steps."""
    from train.config import load_config
    from train.ppo import train

    config, run, overrides = _in_process_run(
        tmp_path,
        total_timesteps=256, checkpoint_every=128,
        env={"n_envs": 1, "vec_env": "dummy"}, ppo={"rollout_steps": 128}, evaluation={"every": 128},
    )  # fmt: skip
    final = train(config, run)
    assert final.is_file()
    for name in ("config.yaml", "best_model.zip", "eval.txt", "eval.json", "metrics.jsonl"):
        assert (run / name).is_file(), name
    assert list((run / "pool").glob("*.safetensors")), "self-play snapshots"
    first = checkpoint_step(run)
    assert first >= 256
    train(load_config(None, {**overrides, "total_timesteps": 512}), run, resume=True)
    assert checkpoint_step(run) >= 512
    bot = PolicyBot(run / "final_model.zip")
    state = new_game(Rules(), seed=1)
    assert bot.act(seat_view(state, state.current_player), legal_actions(state)) in legal_actions(state)


def test_the_batch_pipeline_with_a_warm_start_and_a_schedule(tmp_path, capsys):
    """The default pipeline (`vec_env: batch`): a warm start from expert, then a schedule that brings in
    self-play and changes the learning rate and entropy bonus at step 256."""
    from train.ppo import train

    config, run, _ = _in_process_run(
        tmp_path,
        total_timesteps=512, env={"vec_env": "batch", "n_envs": 8}, evaluation={"every": 512},
        league={
            "opponents": {"greedy": 1.0},
            "schedule": [{"from_step": 256, "opponents": {"self": 1.0}, "learning_rate": 1e-5, "ent_coef": 0.0}],
        },
        warm_start={"bot": "expert", "games": 4, "epochs": 1},
    )  # fmt: skip
    train(config, run)
    out = capsys.readouterr().out
    assert "warm start from expert:" in out and "step 256: opponents self 1" in out
    report = json.loads((run / "warm_start.json").read_text())
    assert report["bot"] == "expert" and report["decisions"] > 0 and 0.0 <= report["agreement"] <= 1.0
    assert list((run / "pool").glob("*.safetensors")), "self-play snapshots from the stage that uses them"
    plays_a_legal_game(agents.make(str(run / "final_model.safetensors")), seed=2)
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(run / "final_model.zip", device="cpu")
    assert model.ent_coef == 0.0 and model.learning_rate == 1e-5 and model.lr_schedule(1.0) == 1e-5


def _recipe_run(tmp_path, name: str, **overrides) -> Path:
    """configs/NAME.yaml as shipped, made short: one rollout or two, a tiny warm start and evaluation."""
    from train.config import load_config
    from train.ppo import new_run_dir, train

    configs = Path(__file__).resolve().parents[2] / "configs"
    short = {
        "total_timesteps": 8192,
        "warm_start": {"games": 2, "epochs": 1},
        "evaluation": {"every": 10**9, "games": 2, "final_games": 2},
        "league": {"snapshot_every": 4096},
        "runs_dir": str(tmp_path / "runs"),
    }
    short = merged(short, overrides)
    config = load_config(configs / f"{name}.yaml", short)
    run = new_run_dir(config)
    train(config, run)
    return run


@pytest.mark.slow  # the recipe's network and batch: test_train_in_process covers the same path quickly
def test_the_2_player_recipe_runs_a_few_thousand_steps(tmp_path):
    run = _recipe_run(tmp_path, "ppo_2p")
    assert checkpoint_step(run) >= 8192
    plays_a_legal_game(agents.make(str(run / "final_model.safetensors")), seed=3)


@pytest.mark.slow  # the seats network at every table size: a minute each
@pytest.mark.parametrize("name", ["ppo_all_sizes", "ppo_canonical"])
def test_the_every_size_recipe_runs_a_few_thousand_steps(tmp_path, name):
    run = _recipe_run(tmp_path, name, evaluation={"table_sizes": [3, 8]})
    network = load_policy(run / "final_model.safetensors")
    assert network.architecture == "seats" and network.players == (2, 3, 4, 5, 6, 7, 8)
    assert network.canonical == (name == "ppo_canonical")
    for n in (2, 5, 8):
        plays_a_legal_game(agents.make(str(run / "final_model.safetensors")), seed=n, num_players=n)
    assert set(json.loads((run / "eval.json").read_text())) == {"expert@3", "expert@8"}


@pytest.mark.slow  # a rollout of 8,192 or 32,768 steps over every table size: 46 s for the two
@pytest.mark.parametrize("name, shipped", [("ppo_win", "ppo"), ("ppo_ei_ft", "ppo_ei")])
def test_the_fine_tune_recipes_start_from_their_shipped_network(tmp_path, name, shipped):
    """configs/ppo_win.yaml and ppo_ei_ft.yaml train a shipped network on: the run's first snapshot
    plays exactly its moves (the warm start fits the critic alone), and the run ends in a network that
    plays legal games at 2 and 8 players."""
    from agents.ppo_bot import shipped_networks

    path = shipped_networks()[shipped]
    run = _recipe_run(tmp_path, name, init_model=str(path), evaluation={"table_sizes": [2]})
    first, original = load_policy(run / "pool" / "step000000000000.safetensors"), load_policy(path)
    assert all(np.array_equal(first.named[k][i], original.named[k][i]) for k in original.named for i in (0, 1))
    for n in (2, 8):
        plays_a_legal_game(agents.make(str(run / "final_model.safetensors")), seed=n, num_players=n)


def test_a_canonical_run_plays_games_of_canonical_grids_and_its_networks_say_so(tmp_path, capsys):
    """`env.canonical`: the warm start and the rollouts keep every grid in its canonical order; the
    self-play snapshots, the checkpoints and the exported files are networks of canonical grids, whose
    bots put any view's grids in that order (so a rearranged view gets the same move)."""
    from skyjo_env.engine.symmetry import move_key, random_arrangement, rearrange_action, rearrange_view
    from train.ppo import train

    config, run, _ = _in_process_run(
        tmp_path,
        total_timesteps=512, env={"vec_env": "batch", "n_envs": 4, "canonical": True}, evaluation={"every": 512},
        league={"opponents": {"greedy": 0.5, "self": 0.5}}, warm_start={"bot": "expert", "games": 2, "epochs": 1},
    )  # fmt: skip
    train(config, run)
    assert "warm start from expert:" in capsys.readouterr().out
    snapshots = list((run / "pool").glob("*.safetensors"))
    assert snapshots and all(load_policy(path).canonical for path in snapshots)
    for path in (run / "final_model.safetensors", run / "best_model.safetensors"):
        assert load_policy(path).canonical and load_policy(path).metadata()["grids"] == "canonical"
    bot = PolicyBot(run / "final_model.zip")  # the checkpoint keeps it too
    assert bot.canonical
    _refused_init_model(tmp_path, str(run / "final_model.zip"), False, warm_start={"bot": "none"})
    from sb3_contrib import MaskablePPO

    from agents.sb3_model import CANONICAL_ATTRIBUTE
    from train.average import AverageError, average_models

    plain = MaskablePPO.load(run / "final_model.zip", device="cpu")
    setattr(plain, CANONICAL_ATTRIBUTE, False)  # the same weights, said to read the grids as they are
    plain.save(tmp_path / "plain.zip")
    with pytest.raises(AverageError, match="read the grids in different orders"):
        average_models([run / "final_model.zip", tmp_path / "plain.zip"], tmp_path / "mean.zip")
    plays_a_legal_game(bot, seed=3)
    rng = np.random.default_rng(0)
    state = new_game(Rules(), seed=5)
    for _ in range(40):  # a view with its grids rearranged gets the same move, rearranged (up to the symmetries)
        view, legal = seat_view(state, state.current_player), legal_actions(state)
        move = bot.act(view, legal)
        arrangements = [random_arrangement(rng) for _ in range(2)]
        there = rearrange_view(view, arrangements)
        moved = bot.act(there, [rearrange_action(a, arrangements[0]) for a in legal])
        assert move_key(there, moved) == move_key(there, rearrange_action(move, arrangements[0]))
        apply_action(state, move)


def test_a_canonical_run_refuses_a_pipeline_or_an_opponent_that_keeps_the_grids_as_they_are(tmp_path):
    from train.config import ConfigError, load_config

    base = merged(TINY, {"env": {"canonical": True}})
    with pytest.raises(ConfigError, match="env.canonical needs env.vec_env: batch"):
        load_config(None, merged(base, {"env": {"vec_env": "dummy"}}))
    for opponent in ("ppo", "ppo+search", "openspiel-mcts"):
        with pytest.raises(ConfigError, match=re.escape(f"the opponent '{opponent}' reads the grids as they are")):
            load_config(None, merged(base, {"league": {"opponents": {opponent: 1.0}}}))
    with pytest.raises(ConfigError, match="the rllib backend does not take env.canonical"):
        load_config(None, merged(base, {"backend": "rllib", "ppo": {"rollout_steps": 256}}))
    assert load_config(None, base).env.canonical


def _refused_init_model(tmp_path, init_model: str, canonical: bool, **changes) -> None:
    """A run of `canonical` grids from `init_model` is refused when the model learnt the other order."""
    from train.config import ConfigError
    from train.ppo import _new_run_model, build_vec_env

    changes = merged(changes, {"env": {**changes.get("env", {}), "canonical": canonical}})
    config, run, _ = _in_process_run(tmp_path, init_model=init_model, **changes)
    env = build_vec_env(config, run / "pool")
    try:
        with pytest.raises(ConfigError, match="reads the grids"):
            _new_run_model(config, run, env)
    finally:
        env.close()


def test_a_canonical_run_and_a_plain_one_do_not_take_each_others_weights_nor_change_order_on_a_resume(tmp_path):
    from agents.model_file import save_policy
    from train.config import ConfigError, load_config

    seats = {"env": {"table_sizes": {2: 1, 3: 1}, "observation": "skyjo_v1"}, "ppo": {"policy": "seats"}}
    seats["warm_start"] = {"bot": "expert", "games": 1, "epochs": 1}
    canonical = load_policy(agents.make("ppo").path)
    canonical.canonical = True
    save_policy(canonical, tmp_path / "canonical.safetensors")
    _refused_init_model(tmp_path, str(agents.make("ppo").path), True, **seats)
    _refused_init_model(tmp_path, str(tmp_path / "canonical.safetensors"), False, **seats)
    saved = load_config(None, merged(TINY, {"env": {"canonical": True}}))
    with pytest.raises(ConfigError, match="env.canonical cannot change"):
        load_config(None, merged(TINY, {"env": {"canonical": False}})).check_resume(saved)


def test_a_privileged_critic_reads_the_true_cards_and_its_actor_does_not(tmp_path, capsys):
    """`ppo.critic: privileged`, from `ppo_ei`'s actor: the rollouts' rows carry the true cards after the
    observation; the value changes when they change, the actor's move probabilities do not. The first
    snapshot is `ppo_ei` as it is (the warm start fits the critic alone, its encoder of the true cards
    included), the exported files play from the observation alone, and the run resumes."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.ppo_bot import shipped_networks
    from skyjo_env.observation.privileged import PRIVILEGED_SIZE
    from skyjo_env.observation.seats import observation_size_v1
    from train.config import load_config
    from train.ppo import build_vec_env, train

    shipped = shipped_networks()["ppo_ei"]
    config, run, overrides = _in_process_run(
        tmp_path, total_timesteps=512, init_model=str(shipped),
        env={"vec_env": "batch", "n_envs": 4, "table_sizes": {2: 1, 3: 1}, "observation": "skyjo_v1"},
        ppo={"policy": "seats", "critic": "privileged", "net_arch": [256, 256]},
        league={"opponents": {"expert": 0.5, "self": 0.5}}, warm_start={"bot": "expert", "games": 1, "epochs": 1},
        evaluation={"every": 512, "table_sizes": [2]},
    )  # fmt: skip
    train(config, run)
    assert "warm start from expert (the value only)" in capsys.readouterr().out
    first, original = load_policy(run / "pool" / "step000000000000.safetensors"), load_policy(shipped)
    assert all(np.array_equal(first.named[k][i], original.named[k][i]) for k in original.named for i in (0, 1))
    final = load_policy(run / "final_model.safetensors")
    assert final.observation == "skyjo_v1" and set(final.named) == set(original.named)
    plays_a_legal_game(agents.make(str(run / "final_model.safetensors")), seed=4, num_players=3)
    plays_a_legal_game(PolicyBot(run / "final_model.zip"), seed=5, num_players=2)  # the checkpoint's actor too

    model = MaskablePPO.load(run / "final_model.zip", device="cpu")
    env = build_vec_env(config, run / "pool")
    env.seed(1)
    rows = env.reset()
    assert rows.shape == (4, observation_size_v1() + PRIVILEGED_SIZE)
    changed = rows.copy()
    changed[:, observation_size_v1() :] = np.random.default_rng(0).permutation(rows[:, observation_size_v1() :], axis=1)
    with torch.no_grad():
        probs, values = [], []
        for x in (rows, changed):
            obs = torch.as_tensor(x)
            probs.append(model.policy.get_distribution(obs).distribution.probs.numpy())
            values.append(model.policy.predict_values(obs).numpy())
    assert np.array_equal(probs[0], probs[1])
    assert not np.allclose(values[0], values[1])
    logits = final.logits(rows[:, : observation_size_v1()])  # the policy file, from the observation alone
    assert np.allclose(np.exp(logits) / np.exp(logits).sum(1, keepdims=True), probs[0], atol=1e-5)

    resumed = load_config(None, merged(overrides, {"total_timesteps": 768}))
    train(resumed, run, resume=True)
    assert checkpoint_step(run) >= 768


def test_a_privileged_critic_needs_the_seats_policy_and_the_batch_pipeline(tmp_path):
    from train.config import ConfigError, load_config

    seats = merged(TINY, {"env": {"vec_env": "batch", "observation": "skyjo_v1"}, "ppo": {"policy": "seats"}})
    assert load_config(None, merged(seats, {"ppo": {"critic": "privileged"}})).ppo.critic == "privileged"
    with pytest.raises(ConfigError, match="ppo.critic must be one of"):
        load_config(None, merged(seats, {"ppo": {"critic": "oracle"}}))
    for change in ({"ppo": {"policy": "mlp"}}, {"env": {"vec_env": "dummy"}}):
        with pytest.raises(ConfigError, match="ppo.critic privileged needs ppo.policy: seats and env.vec_env: batch"):
            load_config(None, merged(seats, merged(change, {"ppo": {"critic": "privileged"}})))
    from train.warm_start import demonstrations

    with pytest.raises(ValueError, match="privileged=True adds the true cards to the skyjo_v1 observation"):
        demonstrations("expert", 1, Rules(), privileged=True)  # skyjo_v0 has no seat slots to follow
    saved = load_config(None, seats)
    with pytest.raises(ConfigError, match="ppo.critic cannot change"):
        load_config(None, merged(seats, {"ppo": {"critic": "privileged"}})).check_resume(saved)


def test_the_seats_extractor_refuses_rows_of_the_wrong_width():
    from gymnasium import spaces

    from skyjo_env.observation.privileged import PRIVILEGED_SIZE
    from skyjo_env.observation.seats import observation_size_v1
    from train.seats_policy import SeatsExtractor

    plain, wide = (spaces.Box(-1, 1, (observation_size_v1() + k,)) for k in (0, PRIVILEGED_SIZE))
    with pytest.raises(ValueError, match=r"reads 1831 \+ 106 floats: the skyjo_v1 observation and the true cards"):
        SeatsExtractor(plain, privileged=True)
    with pytest.raises(ValueError, match="reads 1831 floats: the skyjo_v1 observation, got shape"):
        SeatsExtractor(wide)
    assert SeatsExtractor(wide, privileged=True).features_dim == SeatsExtractor(plain).features_dim + 128
