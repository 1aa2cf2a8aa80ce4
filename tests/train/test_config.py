"""The training config: defaults, YAML, overrides and the errors that name what is wrong."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
import yaml

from train.config import ConfigError, TrainConfig, add_override_arguments, load_config, overrides_from_args

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_quickstart_yaml_spells_out_the_embedded_defaults():
    config = load_config(CONFIGS / "quickstart.yaml")
    defaults = TrainConfig()
    assert {**vars(config), "name": "ppo"} == vars(defaults)


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
        ({"best_against": "expert"}, "best_against must be one of eval_opponents"),
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
