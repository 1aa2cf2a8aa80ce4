"""The layers hold: the engine loads no RL library, `import skyjo_env` is lazy, the import contracts pass."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RL_LIBRARIES = ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib")


def loaded_after(code: str) -> list[str]:
    """The RL libraries loaded by `code`, run in a fresh interpreter."""
    probe = textwrap.dedent(code) + textwrap.dedent(
        f"""
        import sys
        print(",".join(sorted(m for m in {RL_LIBRARIES!r} if m in sys.modules)))
        """
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    return [name for name in result.stdout.strip().split(",") if name]


def test_the_engine_loads_no_rl_library() -> None:
    assert loaded_after("import skyjo_env.engine") == []
    assert loaded_after("from skyjo_env.engine import Rules, new_game; new_game(Rules(num_players=3), seed=1)") == []


def test_importing_the_package_loads_no_env_until_one_is_used() -> None:
    assert loaded_after("import skyjo_env") == []
    assert loaded_after("import skyjo_env; skyjo_env.raw_env") == ["gymnasium", "pettingzoo"]


@pytest.mark.parametrize(
    "imports",
    ["import gymnasium, skyjo_env", "import skyjo_env, gymnasium", "import skyjo_env.engine; import gymnasium"],
)
def test_skyjo_v0_is_registered_whatever_the_import_order(imports: str) -> None:
    code = f"""
        {imports}
        import skyjo_env, gymnasium, pettingzoo
        env = gymnasium.make("Skyjo-v0")
        obs, info = env.reset(seed=0)
        aec = pettingzoo.make("aec", "skyjo-v0", num_players=3)
        print(obs.shape, len(aec.possible_agents))
    """
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["(496,)", "3"]


def test_gymnasium_can_import_the_package_itself() -> None:
    code = 'import gymnasium; print(gymnasium.make("skyjo_env:Skyjo-v0").spec.id)'
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Skyjo-v0"


def test_the_import_contracts_hold() -> None:
    """pyproject.toml's [tool.importlinter] contracts: the layers, the engine's own order, no RL in the engine."""
    lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert lint_imports, "import-linter is missing: pip install -e '.[dev]'"
    result = subprocess.run([lint_imports, "--no-cache"], capture_output=True, text=True, check=False, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
