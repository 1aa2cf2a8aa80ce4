"""Skyjo for reinforcement learning: a fast rules engine, a PettingZoo AEC env and a Gymnasium env.

- `skyjo_env.engine`: the rules (imports numpy only, no RL library).
- `skyjo_env.env(**kwargs)` / `skyjo_env.raw_env(**kwargs)`: PettingZoo AEC env `skyjo_v0`;
  `from skyjo_env import skyjo_v0` (or `skyjo_v1`, the observation for any table size).
- `gymnasium.make("Skyjo-v0", ...)` (after `import skyjo_env`) or
  `gymnasium.make("skyjo_env:Skyjo-v0", ...)`: the single-agent env; `Skyjo-v1` with the
  observation for any table size.

Importing this package is cheap: `env` and `raw_env` are loaded on first use (PEP 562),
so `import skyjo_env.engine` loads no gymnasium or pettingzoo. The envs are registered
with Gymnasium (and PettingZoo's registry, where it has one) as soon as both this
package and that library are imported, in either order.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from importlib.machinery import ModuleSpec
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _package_version
from types import ModuleType
from typing import Any

try:
    __version__ = _package_version("skyjo-rl")  # one place: pyproject.toml
except PackageNotFoundError:  # pragma: no cover - running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__", "env", "raw_env", "skyjo_v0", "skyjo_v1"]

GYM_ID = "Skyjo-v0"
GYM_V1_ID = "Skyjo-v1"  # the observation for any table size
GYM_ENTRY_POINT = "skyjo_env.gym_env:SkyjoEnv"
AEC_ID = "skyjo-v0"  # PettingZoo's id form of the module name skyjo_v0
AEC_V1_ID = "skyjo-v1"
AEC_ENTRY_POINT = "skyjo_env.aec:env"
AEC_V1_ENTRY_POINT = "skyjo_env.skyjo_v1:env"
_ENV_MODULES = ("skyjo_v0", "skyjo_v1")

# name -> module that defines it, imported on first access
_LAZY = {"env": "skyjo_env.aec", "raw_env": "skyjo_env.aec"}


def __getattr__(name: str) -> Any:
    if name in _ENV_MODULES:  # the PettingZoo-style modules (`from skyjo_env import skyjo_v0`)
        return importlib.import_module(f"skyjo_env.{name}")
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'skyjo_env' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_ENV_MODULES))


def register_gymnasium() -> None:
    """Register `Skyjo-v0` and `Skyjo-v1` with Gymnasium (idempotent). Imports gymnasium."""
    import gymnasium

    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point=GYM_ENTRY_POINT)
    if GYM_V1_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_V1_ID, entry_point=GYM_ENTRY_POINT, kwargs={"observation": "skyjo_v1"})


def register_pettingzoo() -> None:
    """Register `skyjo-v0` (`pettingzoo.make("aec", "skyjo-v0")`) where PettingZoo has a registry (>= 1.27)."""
    import pettingzoo

    if not hasattr(pettingzoo, "register"):
        return
    from pettingzoo.env_registry.registration import aec_registry

    if AEC_ID not in aec_registry:
        pettingzoo.register("aec", AEC_ID, entry_point=AEC_ENTRY_POINT)
    if AEC_V1_ID not in aec_registry:
        pettingzoo.register("aec", AEC_V1_ID, entry_point=AEC_V1_ENTRY_POINT)


class _RegisterAfterImport(importlib.abc.MetaPathFinder):
    """Runs a registration right after a library's module is first executed.

    It finds nothing itself: for a watched name it asks the other finders for the spec and
    wraps the loader's `exec_module`, so the library loads exactly as it would without it.
    """

    def __init__(self, callbacks: dict[str, Callable[[], None]]) -> None:
        self.callbacks = callbacks

    def find_spec(self, fullname: str, path: Any = None, target: ModuleType | None = None) -> ModuleSpec | None:
        callback = self.callbacks.pop(fullname, None)
        if callback is None:
            return None
        if not self.callbacks and self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)  # the other finders (this one no longer watches the name)
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_then_register(module: ModuleType) -> None:
            exec_module(module)
            callback()

        loader.exec_module = exec_then_register  # type: ignore[method-assign]
        return spec


def _register_when_imported() -> None:
    pending: dict[str, Callable[[], None]] = {}
    for library, register in (("gymnasium", register_gymnasium), ("pettingzoo", register_pettingzoo)):
        if library in sys.modules:
            register()
        elif importlib.util.find_spec(library) is not None:
            pending[library] = register
    if pending:
        sys.meta_path.insert(0, _RegisterAfterImport(pending))


_register_when_imported()
