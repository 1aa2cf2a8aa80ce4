"""The training config: defaults, YAML, overrides and the errors that name what is wrong."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest
import yaml

from skyjo_env.cli import main
from train.config import (
    ConfigError,
    TrainConfig,
    add_override_arguments,
    load_config,
    load_run_config,
    overrides_from_args,
)

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_quickstart_yaml_spells_out_the_embedded_defaults():
    config = load_config(CONFIGS / "quickstart.yaml")
    defaults = TrainConfig()
    assert {**vars(config), "name": "ppo"} == vars(defaults)
    assert set(yaml.safe_load((CONFIGS / "quickstart.yaml").read_text())) == set(vars(defaults)), "every field"


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")))
def test_every_shipped_config_loads(path):
    load_config(path)


def test_every_field_has_help_text():
    from dataclasses import fields

    assert all(f.metadata.get("help") for f in fields(TrainConfig))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"total_timestep": 5}, "unknown config key(s) ['total_timestep']"),
        ({"total_timesteps": "many"}, "total_timesteps must be int, got 'many'"),
        ({"learning_rate": "fast"}, "learning_rate must be float"),
        ({"net_arch": [64, "x"]}, "net_arch[1] must be int"),
        ({"opponents": {"expert": "a lot"}}, "opponents.expert must be float"),
        ({"reward": "points"}, "reward must be one of"),
        ({"opponents": {}}, "opponents must name at least one opponent"),
        ({"rules": {"reshuffle": "never"}}, "rules: reshuffle must be 'keep_top' or 'all'"),
        ({"rules": {"num_players": 3}}, "set num_players at the top level"),
        ({"best_against": "ppo"}, "best_against must be one of eval_opponents"),
        ({"vec_env": "threads"}, "vec_env must be one of ['batch', 'subproc', 'dummy']"),
        ({"warm_start": {"bot": "expert", "rounds": 3}}, "warm_start: unknown key(s) ['rounds']"),
        ({"warm_start": {"games": 10}}, "warm_start needs a bot to clone"),
        ({"warm_start": {"bot": "genius"}}, "warm_start.bot must be one of"),
        ({"warm_start": {"bot": "expert", "games": 0}}, "warm_start.games must be at least 1"),
        ({"warm_start": {"bot": "expert", "epochs": "many"}}, "warm_start.epochs must be int"),
        ({"schedule": [{"learning_rate": 0.1}]}, "schedule[0] needs from_step"),
        ({"schedule": [{"from_step": 5, "gamma": 0.9}]}, "schedule[0]: unknown key(s) ['gamma']"),
        (
            {"schedule": [{"from_step": 5, "ent_coef": 0.0}, {"from_step": 5, "ent_coef": 0.1}]},
            "schedule[1].from_step must be larger than the stage before's (5), got 5",
        ),
        ({"schedule": [{"from_step": 5, "opponents": {}}]}, "schedule[0].opponents must name at least one opponent"),
        ({"schedule": [{"from_step": 5, "learning_rate": -1.0}]}, "schedule[0].learning_rate must be >= 0"),
        (
            {"vec_env": "subproc", "schedule": [{"from_step": 5, "opponents": {"expert": 1}}]},
            "a schedule that changes the opponents needs vec_env: batch",
        ),
        (
            {"vec_env": "dummy", "observation": "skyjo_v1", "table_sizes": {2: 1, 4: 1}},
            "table_sizes needs vec_env: batch (the dummy pipeline plays num_players only)",
        ),
        (
            {"opponents": {"expret": 1.0}},
            "opponents: unknown opponent 'expret'; one of expert, greedy, openspiel-mcts, ppo, ppo+search, ppo_2p, random",
        ),
        (
            {"schedule": [{"from_step": 5, "opponents": {"runs/x/best.zip": 1.0}}]},
            "opponents: the model file 'runs/x/best.zip' does not exist",
        ),
        ({"eval_opponents": ["self"]}, "eval_opponents: unknown opponent 'self'"),
    ],
)
def test_bad_config_files_name_the_problem(tmp_path, content, message):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(content))
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert message in str(err.value)


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "none.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("total_timesteps: [1,\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)


def test_command_line_overrides_replace_file_values(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("total_timesteps: 100\nn_envs: 2\n")
    parser = argparse.ArgumentParser()
    add_override_arguments(parser)
    args = parser.parse_args(
        ["--total-timesteps", "5000", "--learning-rate", "1e-3", "--opponents", "{expert: 1}", "--name", "x"]
    )
    config = load_config(path, overrides_from_args(args))
    assert config.total_timesteps == 5000 and config.n_envs == 2 and config.learning_rate == 0.001
    assert config.opponents == {"expert": 1.0} and config.name == "x"


def test_a_schedule_gives_the_values_of_each_stage():
    config = TrainConfig(
        learning_rate=1e-3,
        ent_coef=0.01,
        opponents={"greedy": 1.0},
        schedule=[
            {"from_step": 100, "learning_rate": 5e-4},
            {"from_step": 200, "opponents": {"expert": 1, "self": 1}, "ent_coef": 0},
        ],
    )
    assert config.stage_at(0) == {"opponents": {"greedy": 1.0}, "learning_rate": 1e-3, "ent_coef": 0.01}
    assert config.stage_at(150) == {"opponents": {"greedy": 1.0}, "learning_rate": 5e-4, "ent_coef": 0.01}
    assert config.stage_at(10**9) == {"opponents": {"expert": 1.0, "self": 1.0}, "learning_rate": 5e-4, "ent_coef": 0.0}
    assert config.opponent_names() == {"greedy", "expert", "self"}


def test_a_warm_start_gets_its_defaults_and_excludes_init_model(tmp_path):
    config = TrainConfig(warm_start={"bot": "greedy"})
    assert config.warm_start == {"bot": "greedy", "games": 300, "epochs": 4, "learning_rate": 1e-3, "batch_size": 512}
    assert TrainConfig(warm_start={}).warm_start == {}
    model = tmp_path / "m.zip"
    model.write_bytes(b"")
    with pytest.raises(ConfigError, match="give warm_start or init_model, not both"):
        TrainConfig(init_model=str(model))
    assert TrainConfig(init_model=str(model), warm_start={}).init_model == str(model)


def test_init_model_must_exist_to_start_a_run_but_not_to_resume_one(tmp_path):
    from train.ppo import new_run_dir

    config = TrainConfig(init_model=str(tmp_path / "moved.zip"), warm_start={}, runs_dir=str(tmp_path / "runs"))
    with pytest.raises(ConfigError, match="init_model .*moved.zip' is not a file"):
        new_run_dir(config)
    assert not (tmp_path / "runs").exists(), "no run folder for a run that cannot start"


def test_a_resume_keeps_the_network_and_takes_other_overrides():
    saved = TrainConfig(net_arch=[64, 64])
    TrainConfig(net_arch=[64, 64], total_timesteps=10**7, learning_rate=1e-5).check_resume(saved)
    with pytest.raises(ConfigError, match=r"net_arch cannot change \(the run has net_arch: \[64, 64\]\)"):
        TrainConfig(net_arch=[32]).check_resume(saved)
    with pytest.raises(ConfigError, match="num_players cannot change"):
        TrainConfig(net_arch=[64, 64], num_players=3).check_resume(saved)


def test_an_opponent_name_is_a_model_file_exactly_when_agents_make_reads_it_as_one(tmp_path, monkeypatch):
    import agents
    from agents.registry import is_model_path

    monkeypatch.chdir(tmp_path)
    shutil.copy(
        Path(agents.__file__).parent / "models" / "ppo_2p.safetensors", tmp_path / "mine"
    )  # an existing file: no suffix, no slash
    (tmp_path / "folder").mkdir()
    assert is_model_path("mine") and agents.make("mine").players == (2,)
    assert not is_model_path("expert") and not is_model_path("expret")
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"opponents": {"mine": 1.0}}))
    assert load_config(path).opponents == {"mine": 1.0}
    path.write_text(yaml.safe_dump({"opponents": {"folder": 1.0}}))
    with pytest.raises(ConfigError, match="the model file 'folder' is not a file"):
        load_config(path)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "is empty or not a mapping"),
        ("name: [unclosed\n", "is damaged"),
        ("- a list\n", "is empty or not a mapping"),
        (None, "lacks"),  # the real config cut short after its first lines
    ],
)
def test_a_resume_refuses_a_damaged_config_and_leaves_it_as_it_was(tmp_path, capsys, text, words):
    run = tmp_path / "run"
    run.mkdir()
    whole = TrainConfig().to_yaml()
    text = "\n".join(whole.splitlines()[:5]) + "\n" if text is None else text
    (run / "config.yaml").write_text(text)
    assert main(["train", "--resume", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "config.yaml" in err and words in err, err
    assert (run / "config.yaml").read_text() == text  # never replaced by defaults


def test_a_config_is_saved_whole_and_atomically(tmp_path):
    config = TrainConfig(name="saved", total_timesteps=1234)
    config.save(tmp_path / "config.yaml")
    assert load_run_config(tmp_path / "config.yaml") == config
    assert [p.name for p in tmp_path.iterdir()] == ["config.yaml"]  # no temporary file left
