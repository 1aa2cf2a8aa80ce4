"""`SeatsExtractor`: the features extractor of a policy that plays any table size (observation `skyjo_v1`).

The torch twin of `agents.model_file`'s `seats` architecture, as an SB3 `BaseFeaturesExtractor`,
so that MaskablePPO trains it (`policy_kwargs={"features_extractor_class": SeatsExtractor, ...}`,
what `skyjo train` sets for `policy: seats`):

- `self_net` encodes the observer's seat block; `opponent_net`, one set of weights, every other
  slot's block (next, previous and the others);
- the features are the observation's head (the pieces that are not per seat, `table_size`),
  the own encoding, the next and the previous player's (kept apart: the next takes my
  discards, the previous one's discards are offered to me), and the mean of the other present
  seats' encodings (zeros when there are none, at 2 and 3 players).

Each encoder layer is a Linear followed by the activation. `agents.sb3_model.network_from_model`
exports the trained weights to a policy file that the numpy forward pass plays.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn as nn
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from skyjo_env.observation.seats import SEAT_SLOTS, seats_layout


def _encoder(sizes: Sequence[int], inputs: int, activation: type[nn.Module]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for size in sizes:
        layers += [nn.Linear(inputs, size), activation()]
        inputs = size
    return nn.Sequential(*layers)


class SeatsExtractor(BaseFeaturesExtractor):
    """Own-seat and shared opponent encoders over a `skyjo_v1` observation (see the module docstring)."""

    def __init__(
        self,
        observation_space: spaces.Box,
        seat_arch: Sequence[int] = (128, 64),
        activation_fn: type[nn.Module] = nn.Tanh,
    ) -> None:
        lay = seats_layout()
        if observation_space.shape != (lay.size,):
            raise ValueError(
                f"SeatsExtractor reads the skyjo_v1 observation ({lay.size} floats), got shape {observation_space.shape}"
            )
        if not seat_arch:
            raise ValueError("seat_arch needs at least one layer size")
        encoded = int(seat_arch[-1])
        super().__init__(observation_space, features_dim=lay.head + 4 * encoded)
        self.head, self.block, self.slots = lay.head, lay.block, len(SEAT_SLOTS)
        self.self_net = _encoder(seat_arch, lay.block, activation_fn)
        self.opponent_net = _encoder(seat_arch, lay.block, activation_fn)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        head = observations[:, : self.head]
        blocks = observations[:, self.head :].reshape(-1, self.slots, self.block)
        own = self.self_net(blocks[:, 0])
        opponents = self.opponent_net(blocks[:, 1:])
        present = blocks[:, 3:, 0]
        count = present.sum(dim=1, keepdim=True).clamp(min=1.0)
        others = (opponents[:, 2:] * present.unsqueeze(-1)).sum(dim=1) / count
        return torch.cat([head, own, opponents[:, 0], opponents[:, 1], others], dim=1)
