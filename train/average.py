"""Weight averaging: one model whose weights are the mean of several (`skyjo average` calls `average_models`).

Averaging the weights of nearby checkpoints of one run (e.g. the last few `.zip` checkpoints
kept from a run) is Polyak / stochastic weight averaging: the mean sits nearer the middle of
the region the training wandered in, and often plays a little better than any one of
them. The models must have the same network (same observation, actions and layers).

Policy files (`.safetensors`, such as the snapshots in a run's pool/) are averaged with numpy
by `agents.model_file.average_policies` (`skyjo average OUT.safetensors ...`).

The result here is a MaskablePPO .zip like the inputs: a bot (`agents.make(path)`), an
opponent, or a starting point (`skyjo train --init-model`). Its optimizer state and
step count are those of the first model.
"""

from __future__ import annotations

from pathlib import Path

from agents.sb3_model import CANONICAL_ATTRIBUTE, network_from_sb3


class AverageError(ValueError):
    """Models that cannot be averaged, with the reason."""


def average_models(paths: list[Path], out: Path) -> Path:
    """Write the weight-average of the MaskablePPO models at `paths` to `out`."""
    from sb3_contrib import MaskablePPO

    if len(paths) < 2:
        raise AverageError("averaging needs at least two models")
    for path in paths:
        network_from_sb3(path)  # missing, truncated or foreign files fail here with the reason
    models = [MaskablePPO.load(path, device="cpu") for path in paths]
    weights = [model.policy.state_dict() for model in models]
    first = weights[0]
    for path, model, other in zip(paths[1:], models[1:], weights[1:]):
        if model.observation_space != models[0].observation_space:
            raise AverageError(
                f"{path} observes {model.observation_space}, {paths[0]} {models[0].observation_space}: "
                "models for different player counts cannot be averaged"
            )
        if getattr(model, CANONICAL_ATTRIBUTE, False) != getattr(models[0], CANONICAL_ATTRIBUTE, False):
            raise AverageError(
                f"{path} and {paths[0]} read the grids in different orders (one was trained with env.canonical): "
                "their weights cannot be averaged"
            )
        if other.keys() != first.keys() or any(other[k].shape != first[k].shape for k in first):
            shapes = lambda sd: [tuple(v.shape) for k, v in sd.items() if k.endswith("weight")]  # noqa: E731
            raise AverageError(
                f"{path} has another network than {paths[0]} (layer shapes {shapes(other)} vs {shapes(first)})"
            )
    mean = {
        key: sum(w[key] for w in weights) / len(weights) if value.is_floating_point() else value
        for key, value in first.items()
    }
    models[0].policy.load_state_dict(mean)
    out.parent.mkdir(parents=True, exist_ok=True)
    models[0].save(out)
    return out
