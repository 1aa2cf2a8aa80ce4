"""The training config: defaults, YAML, overrides and the errors that name what is wrong."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest
import yaml

from skyjo_env.cli import main
from train.config import (
    GROUPS,
    NO_WARM_START,
    ConfigError,
    EnvConfig,
    LeagueConfig,
    PPOConfig,
    TrainConfig,
    WarmStartConfig,
    add_override_arguments,
    field_keys,
    load_config,
    load_run_config,
    overrides_from_args,
)

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_the_quick_start_recipe_is_the_defaults_under_its_own_name():
    config = load_config(CONFIGS / "quickstart.yaml")
    assert config.name == "quickstart"
    assert config.replaced(name="ppo") == TrainConfig()
    assert yaml.safe_load((CONFIGS / "quickstart.yaml").read_text()) == {"name": "quickstart"}


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")))
def test_every_shipped_config_loads_and_holds_only_what_it_changes(path):
    config = load_config(path)
    data = yaml.safe_load(path.read_text())
    defaults = TrainConfig()
    for key, value in data.items():
        if isinstance(value, dict) and key in GROUPS:
            for name in value:
                assert config.value(f"{key}.{name}") != defaults.value(f"{key}.{name}"), f"{key}.{name} is a default"
        else:
            assert config.value(key) != defaults.value(key) or key == "name", f"{key} is a default"


def test_every_field_has_help_text():
    from dataclasses import fields

    for cls in (TrainConfig, *GROUPS.values()):
        assert all(f.metadata.get("help") for f in fields(cls)), cls.__name__
    assert "ppo.rollout_steps" in field_keys() and "rllib.train_batch_size" not in field_keys()  # one of each


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"total_timestep": 5}, "unknown config key(s) ['total_timestep']"),
        ({"ppo": {"learning_rat": 1}}, "unknown config key(s) ['ppo.learning_rat']; known keys: learning_rate, "),
        ({"total_timesteps": "many"}, "total_timesteps must be int, got 'many'"),
        ({"ppo": {"learning_rate": "fast"}}, "ppo.learning_rate must be float"),
        ({"ppo": {"net_arch": [64, "x"]}}, "ppo.net_arch[1] must be int"),
        ({"ppo": [1]}, "ppo must be a mapping of config keys, got list"),
        ({"league": {"opponents": {"expert": "a lot"}}}, "league.opponents.expert must be float"),
        ({"env": {"reward": "points"}}, "env.reward must be one of"),
        ({"league": {"opponents": {}}}, "league.opponents must name at least one opponent"),
        ({"env": {"rules": {"reshuffle": "never"}}}, "env.rules: reshuffle must be 'keep_top' or 'all'"),
        ({"env": {"rules": {"num_players": 3}}}, "set num_players as env.num_players"),
        ({"evaluation": {"best_against": "ppo"}}, "evaluation.best_against must be one of evaluation.opponents"),
        ({"env": {"vec_env": "threads"}}, "env.vec_env must be one of ['batch', 'subproc', 'dummy']"),
        ({"ppo": {"rollout_steps": 1000}}, "ppo.rollout_steps (1000) must be a multiple of env.n_envs (64)"),
        ({"warm_start": {"rounds": 3}}, "unknown config key(s) ['warm_start.rounds']"),
        ({"warm_start": {"bot": "genius"}}, "warm_start.bot must be one of"),
        ({"warm_start": {"games": 0}}, "warm_start.games must be at least 1"),
        ({"warm_start": {"epochs": "many"}}, "warm_start.epochs must be int"),
        ({"warm_start": {"target": "moves"}}, "warm_start.target must be one of ['move', 'policy'], got 'moves'"),
        (
            {"warm_start": {"bot": "expert", "target": "policy"}},
            "warm_start.target: policy distils a network's probabilities: warm_start.bot must be one of "
            "['ppo', 'ppo_2p', 'ppo_ei'], got 'expert'",
        ),
        ({"league": {"schedule": [{"learning_rate": 0.1}]}}, "league.schedule[0] needs from_step"),
        ({"league": {"schedule": [{"from_step": 5, "gamma": 0.9}]}}, "league.schedule[0]: unknown key(s) ['gamma']"),
        (
            {"league": {"schedule": [{"from_step": 5, "ent_coef": 0.0}, {"from_step": 5, "ent_coef": 0.1}]}},
            "league.schedule[1].from_step must be larger than the stage before's (5), got 5",
        ),
        (
            {"league": {"schedule": [{"from_step": 5, "opponents": {}}]}},
            "league.schedule[0].opponents must name at least one opponent",
        ),
        (
            {"league": {"schedule": [{"from_step": 5, "learning_rate": -1.0}]}},
            "league.schedule[0].learning_rate must be >= 0",
        ),
        (
            {"env": {"vec_env": "subproc"}, "league": {"schedule": [{"from_step": 5, "opponents": {"expert": 1}}]}},
            "a schedule that changes the opponents needs env.vec_env: batch",
        ),
        (
            {"env": {"vec_env": "dummy", "observation": "skyjo_v1", "table_sizes": {2: 1, 4: 1}}},
            "env.table_sizes needs env.vec_env: batch (the dummy pipeline plays num_players only)",
        ),
        (
            {"league": {"opponents": {"expret": 1.0}}},
            "league.opponents: unknown opponent 'expret'; one of expert, greedy, openspiel-mcts, ppo, ppo+search, "
            "ppo_2p, ppo_ei, random",
        ),
        (
            {"league": {"schedule": [{"from_step": 5, "opponents": {"runs/x/best.zip": 1.0}}]}},
            "league.opponents: the model file 'runs/x/best.zip' does not exist",
        ),
        ({"evaluation": {"opponents": ["self"]}}, "evaluation.opponents: unknown opponent 'self'"),
        (
            {"backend": "rllib", "league": {"schedule": [{"from_step": 5, "ent_coef": 0.0}]}},
            "the rllib backend does not take league.schedule",
        ),
    ],
)
def test_bad_config_files_name_the_problem(tmp_path, content, message):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(content))
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert message in str(err.value)


def test_a_flat_config_file_is_refused_with_where_each_key_went(tmp_path):
    path = tmp_path / "old.yaml"
    path.write_text("name: mine\nn_envs: 8\nn_steps: 16\neval_every: 1000\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert "is a flat config (before the groups)" in str(err.value)
    assert "n_envs is now env.n_envs; n_steps is now ppo.rollout_steps (= env.n_envs x n_steps)" in str(err.value)
    assert "eval_every is now evaluation.every" in str(err.value) and "name is now" not in str(err.value)


def test_a_run_folder_of_the_flat_config_resumes_with_the_same_values(tmp_path):
    old = yaml.safe_load((Path(__file__).parent / "flat_config.yaml").read_text())
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(old))
    config = load_run_config(tmp_path / "config.yaml")
    assert config.env.n_envs == 8 and config.ppo.rollout_steps == 8 * 32 and config.sb3_n_steps() == 32
    assert config.ppo.minibatch_size == 64 and config.evaluation.every == 500 and config.evaluation.final_games == 10
    assert config.league.opponents == {"greedy": 1.0} and config.warm_start.bot == NO_WARM_START
    assert config.env.num_players == 2 and config.ppo.net_arch == [32, 32] and config.name == "old"
    assert config.rllib.env_runners == 1


def test_a_flat_run_folder_cut_short_is_refused(tmp_path):
    old = yaml.safe_load((Path(__file__).parent / "flat_config.yaml").read_text())
    del old["eval_games"]
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(old))
    with pytest.raises(ConfigError, match="lacks eval_games"):
        load_run_config(tmp_path / "config.yaml")


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "none.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("total_timesteps: [1,\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)


def test_command_line_overrides_replace_file_values(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("total_timesteps: 100\nenv: {n_envs: 2, num_players: 3}\n")
    parser = argparse.ArgumentParser()
    add_override_arguments(parser)
    args = parser.parse_args(
        [
            *("--total-timesteps", "5000", "--ppo.learning-rate", "1e-3", "--league.opponents", "{expert: 1}"),
            *("--name", "x", "--env", "{n_envs: 4}", "--warm-start", "{bot: greedy, games: 7}"),
        ]
    )
    config = load_config(path, overrides_from_args(args))
    assert config.total_timesteps == 5000 and config.env.n_envs == 4 and config.env.num_players == 3
    assert config.ppo.learning_rate == 0.001 and config.league.opponents == {"expert": 1.0} and config.name == "x"
    assert (config.warm_start.bot, config.warm_start.games, config.warm_start.epochs) == ("greedy", 7, 4)


def test_a_bad_override_names_its_flag():
    parser = argparse.ArgumentParser()
    add_override_arguments(parser)
    with pytest.raises(ConfigError, match="--ppo.n-epochs: cannot read 'five' as int"):
        overrides_from_args(parser.parse_args(["--ppo.n-epochs", "five"]))
    with pytest.raises(ConfigError, match="--env: expected a YAML mapping of env's fields"):
        overrides_from_args(parser.parse_args(["--env", "[1, 2]"]))


def test_a_schedule_gives_the_values_of_each_stage():
    config = TrainConfig(
        ppo=PPOConfig(learning_rate=1e-3, ent_coef=0.01),
        league=LeagueConfig(
            opponents={"greedy": 1.0},
            schedule=[
                {"from_step": 100, "learning_rate": 5e-4},
                {"from_step": 200, "opponents": {"expert": 1, "self": 1}, "ent_coef": 0},
            ],
        ),
    )
    assert config.stage_at(0) == {"opponents": {"greedy": 1.0}, "learning_rate": 1e-3, "ent_coef": 0.01}
    assert config.stage_at(150) == {"opponents": {"greedy": 1.0}, "learning_rate": 5e-4, "ent_coef": 0.01}
    assert config.stage_at(10**9) == {"opponents": {"expert": 1.0, "self": 1.0}, "learning_rate": 5e-4, "ent_coef": 0.0}
    assert config.opponent_names() == {"greedy", "expert", "self"}


def test_a_warm_start_excludes_init_model(tmp_path):
    assert TrainConfig(warm_start=WarmStartConfig(bot="greedy")).warm_start.enabled
    model = tmp_path / "m.zip"
    model.write_bytes(b"")
    with pytest.raises(ConfigError, match="give a warm start or init_model, not both"):
        TrainConfig(init_model=str(model))
    none = WarmStartConfig(bot=NO_WARM_START)
    assert TrainConfig(init_model=str(model), warm_start=none).init_model == str(model)


def test_a_policy_file_as_init_model_needs_a_warm_start_to_fit_its_critic(tmp_path):
    policy_file = tmp_path / "m.safetensors"
    policy_file.write_bytes(b"")
    assert TrainConfig(init_model=str(policy_file)).warm_start.bot == "expert"  # the default warm start
    with pytest.raises(ConfigError, match="its actor without a critic; give a warm start"):
        TrainConfig(init_model=str(policy_file), warm_start=WarmStartConfig(bot=NO_WARM_START))


def test_init_model_must_exist_to_start_a_run_but_not_to_resume_one(tmp_path):
    from train.ppo import new_run_dir

    config = TrainConfig(
        init_model=str(tmp_path / "moved.zip"),
        warm_start=WarmStartConfig(bot=NO_WARM_START),
        runs_dir=str(tmp_path / "runs"),
    )
    with pytest.raises(ConfigError, match="init_model .*moved.zip' is not a file"):
        new_run_dir(config)
    assert not (tmp_path / "runs").exists(), "no run folder for a run that cannot start"


def test_a_resume_keeps_the_network_and_takes_other_overrides():
    saved = TrainConfig().replaced(ppo={"net_arch": [64, 64]})
    saved.replaced(total_timesteps=10**7, ppo={"learning_rate": 1e-5}).check_resume(saved)
    with pytest.raises(ConfigError, match=r"ppo.net_arch cannot change \(the run has ppo.net_arch: \[64, 64\]\)"):
        TrainConfig().replaced(ppo={"net_arch": [32]}).check_resume(saved)
    with pytest.raises(ConfigError, match="env.num_players cannot change"):
        saved.replaced(env={"num_players": 3}).check_resume(saved)


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
    path.write_text(yaml.safe_dump({"league": {"opponents": {"mine": 1.0}}}))
    assert load_config(path).league.opponents == {"mine": 1.0}
    path.write_text(yaml.safe_dump({"league": {"opponents": {"folder": 1.0}}}))
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
    config = TrainConfig(name="saved", total_timesteps=1234, env=EnvConfig(num_players=3))
    config.save(tmp_path / "config.yaml")
    assert load_run_config(tmp_path / "config.yaml") == config
    assert [p.name for p in tmp_path.iterdir()] == ["config.yaml"]  # no temporary file left


def test_every_ppo_setting_reaches_both_backends_by_its_library_name():
    from dataclasses import fields

    from train.config import PPO_ARGUMENTS

    network = {"policy", "net_arch", "seat_arch", "activation", "critic", "rollout_steps"}
    assert set(PPO_ARGUMENTS) == {f.name for f in fields(PPOConfig)} - network
    config = TrainConfig().replaced(ppo={"rollout_steps": 4096, "gae_lambda": 0.9})
    assert config.ppo_arguments()["n_steps"] == 64 and config.ppo_arguments()["gae_lambda"] == 0.9
    rllib = config.replaced(backend="rllib").ppo_arguments()
    assert rllib["train_batch_size_per_learner"] == 4096 and rllib["lambda_"] == 0.9 and "n_steps" not in rllib


def test_a_run_folder_written_before_env_canonical_resumes_as_the_run_it_was(tmp_path):
    from train.config import load_config, load_run_config

    config = load_config(None)
    config.save(tmp_path / "config.yaml")
    written = yaml.safe_load((tmp_path / "config.yaml").read_text())
    del written["env"]["canonical"]  # what a version before the field wrote
    del written["ppo"]["critic"]  # (a later field)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(written))
    resumed = load_run_config(tmp_path / "config.yaml")
    assert resumed.env.canonical is False and resumed.ppo.critic == "observation"
    del written["env"]["reward"]  # any other field missing is still refused
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(written))
    with pytest.raises(ConfigError, match="lacks env.reward"):
        load_run_config(tmp_path / "config.yaml")
