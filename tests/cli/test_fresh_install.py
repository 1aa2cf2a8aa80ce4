"""`pip install .` (no extras) into a fresh venv, then the base commands, as a new user would run them (slow)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def source_copy(folder: Path) -> Path:
    """The project's files as a clean clone has them (git's tracked and not-ignored files): no build
    folders, venvs or compiled extension of the working tree get into the install."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    return folder


@pytest.fixture(scope="module")
def base_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout, to copy the project's files")
    source = source_copy(tmp_path_factory.mktemp("source"))
    venv = tmp_path_factory.mktemp("base") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    done = subprocess.run([*pip, str(source)], capture_output=True, text=True, check=False, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    return venv


def skyjo(venv: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv / "bin" / "skyjo"), *args], input=stdin, capture_output=True, text=True, check=False, timeout=600
    )


def test_the_base_install_has_no_extra(base_venv: Path) -> None:
    code = "import importlib.util as u; print([m for m in ('torch', 'stable_baselines3', 'yaml') if u.find_spec(m)])"
    done = subprocess.run([str(base_venv / "bin" / "python"), "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "args",
    [
        ["demo"],
        ["eval", "expert", "greedy", "--games", "20"],
        ["eval", "ppo", "greedy", "--games", "20"],
        ["eval", str(ROOT / "agents" / "models" / "ppo_2p.safetensors"), "expert", "--games", "4"],
        ["bench", "gym", "--games", "5", "--repeats", "1"],
    ],
)
def test_base_commands_run(base_venv: Path, args: list[str]) -> None:
    done = skyjo(base_venv, *args)
    assert done.returncode == 0, done.stderr[-3000:]


def test_play_runs(base_venv: Path) -> None:
    done = skyjo(base_venv, "play", "expert", "--seed", "2", "--plain", stdin="quit\n")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "you are player_0" in done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["train"],
        ["plot", "runs/x"],
        ["average", "o.zip", "a.zip", "b.zip"],
        ["export", "m.zip", "m.safetensors"],
        ["bench", "train"],
    ],
)
def test_extra_commands_name_the_install(base_venv: Path, args: list[str]) -> None:
    done = skyjo(base_venv, *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "pip install 'skyjo-rl[train]'" in lines[0]


def test_serve_names_the_web_extra(base_venv: Path) -> None:
    done = skyjo(base_venv, "serve")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "pip install 'skyjo-rl[web]'" in done.stderr
