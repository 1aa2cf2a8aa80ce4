"""The base install (no extras): what works, and the one-line message for what needs an extra.

The extras' modules are blocked in a subprocess (`sys.modules[name] = None`, the way
Python marks a module as not importable), so this runs in the default suite; the slow
tier also installs the package into a fresh venv and runs the same commands there.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

EXTRA_MODULES = (
    "yaml",
    "torch",
    "stable_baselines3",
    "sb3_contrib",
    "tensorboard",
    "matplotlib",
    "starlette",
    "uvicorn",
    "openskill",
)


def run_blocked(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`skyjo ARGS` in a fresh interpreter that cannot import any extra's module."""
    code = textwrap.dedent(
        f"""
        import sys
        for name in {EXTRA_MODULES!r}:
            sys.modules[name] = None
        from skyjo_env.cli import main
        sys.exit(main({args!r}))
        """
    )
    return subprocess.run(
        [sys.executable, "-c", code], input=stdin, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.parametrize(
    "args",
    [
        ["demo", "--seed", "3"],
        ["eval", "expert", "greedy", "--games", "6", "--workers", "1", "--no-progress"],
        ["bench", "engine", "--games", "2", "--repeats", "1"],
        ["bench", "raw_env", "--games", "2", "--repeats", "1"],
        ["bench", "env", "--games", "2", "--repeats", "1"],
        ["bench", "gym", "--games", "2", "--repeats", "1"],
        ["bench", "expert", "--games", "2", "--repeats", "1"],
        ["--help"],
    ],
)
def test_base_commands_work_without_extras(args: list[str]) -> None:
    result = run_blocked(args)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_play_works_without_extras() -> None:
    result = run_blocked(["play", "random", "--seed", "1", "--plain"], stdin="quit\n")
    assert result.returncode == 0, result.stderr
    assert "you are player_0" in result.stdout


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["train"], "train"),
        (["train", "--config", "configs/quickstart.yaml"], "train"),
        (["plot", "runs/x"], "train"),
        (["average", "out.zip", "a.zip", "b.zip"], "train"),
        (["export", "model.zip", "out.safetensors"], "train"),
        (["serve", "--port", "8123"], "web"),
        (["ladder", "random", "greedy"], "ladder"),
        (["bench", "train"], "train"),
    ],
)
def test_commands_that_need_an_extra_say_which(args: list[str], extra: str) -> None:
    result = run_blocked(args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"pip install 'skyjo-rl[{extra}]'" in lines[0]
    assert lines[0].startswith(f"skyjo {args[0]}: error:")


def test_the_shipped_ppo_plays_without_extras() -> None:
    """Policy files load with numpy only."""
    result = run_blocked(["eval", "ppo", "greedy", "--games", "4", "--workers", "1", "--no-progress"])
    assert result.returncode == 0, result.stderr


def test_policy_files_average_without_extras(tmp_path) -> None:
    """`skyjo average OUT.safetensors ...` is numpy only; a .zip OUT names the train extra (above)."""
    from agents.model_file import save_policy
    from tests.agents.test_seats_network import seats_network

    paths = [str(save_policy(seats_network(seed=s), tmp_path / f"{s}.safetensors")) for s in (1, 2)]
    result = run_blocked(["average", str(tmp_path / "mean.safetensors"), *paths])
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "mean.safetensors").exists()
