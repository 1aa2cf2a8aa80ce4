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

A privileged critic (`ppo.critic: privileged`, what `PrivilegedCriticPolicy` builds): the
observation rows carry the true cards after the observation (`skyjo_env.observation.privileged`);
`SeatsExtractor(privileged=True)` encodes them too (`hidden_net`) and appends that encoding to
the features, and the policy's actor reads only the features before it (`actor_features_dim`),
so the actor, what a policy file holds, sees no hidden card. The critic reads everything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.nn as nn
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor
from stable_baselines3.common.utils import get_device

from skyjo_env.observation.privileged import PRIVILEGED_SIZE
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
        privileged: bool = False,
        privileged_arch: Sequence[int] = (128,),
    ) -> None:
        lay = seats_layout()
        extra = PRIVILEGED_SIZE if privileged else 0
        if observation_space.shape != (lay.size + extra,):
            what = (
                f"{lay.size} + {extra} floats: the skyjo_v1 observation and the true cards"
                if privileged
                else f"{lay.size} floats: the skyjo_v1 observation"
            )
            raise ValueError(f"SeatsExtractor reads {what}, got shape {observation_space.shape}")
        if not seat_arch or (privileged and not privileged_arch):
            raise ValueError("seat_arch (and privileged_arch, with privileged=True) need at least one layer size")
        actor_features = lay.head + 4 * int(seat_arch[-1])
        hidden = int(privileged_arch[-1]) if privileged else 0
        super().__init__(observation_space, features_dim=actor_features + hidden)
        #: the features the actor reads: all of them but the true cards' encoding (the last `hidden`)
        self.actor_features_dim = actor_features
        self.head, self.block, self.slots, self.size = lay.head, lay.block, len(SEAT_SLOTS), lay.size
        self.self_net = _encoder(seat_arch, lay.block, activation_fn)
        self.opponent_net = _encoder(seat_arch, lay.block, activation_fn)
        self.hidden_net = _encoder(privileged_arch, PRIVILEGED_SIZE, activation_fn) if privileged else None

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        head = observations[:, : self.head]
        blocks = observations[:, self.head : self.size].reshape(-1, self.slots, self.block)
        own = self.self_net(blocks[:, 0])
        opponents = self.opponent_net(blocks[:, 1:])
        present = blocks[:, 3:, 0]
        count = present.sum(dim=1, keepdim=True).clamp(min=1.0)
        others = (opponents[:, 2:] * present.unsqueeze(-1)).sum(dim=1) / count
        parts = [head, own, opponents[:, 0], opponents[:, 1], others]
        if self.hidden_net is not None:
            parts.append(self.hidden_net(observations[:, self.size :]))
        return torch.cat(parts, dim=1)


class ActorSliceExtractor(MlpExtractor):
    """SB3's `MlpExtractor` whose policy network reads only the first `actor_dim` features (the value
    network reads them all)."""

    def __init__(
        self, feature_dim: int, actor_dim: int, net_arch: Any, activation_fn: type[nn.Module], device: Any
    ) -> None:
        super().__init__(feature_dim, net_arch, activation_fn, device)
        sizes = net_arch.get("pi", []) if isinstance(net_arch, dict) else net_arch
        self.policy_net = _encoder(sizes, actor_dim, activation_fn).to(get_device(device))
        self.actor_dim = actor_dim

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features[:, : self.actor_dim])


class PrivilegedCriticPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with a privileged critic: `SeatsExtractor(privileged=True)` features, the
    actor on the observation's part of them alone (`ActorSliceExtractor`). With SB3's shared features
    extractor (the default, what `skyjo train` uses), the true cards' encoder learns from the value
    loss alone."""

    def _build_mlp_extractor(self) -> None:
        extractor = self.features_extractor
        if not isinstance(extractor, SeatsExtractor) or extractor.hidden_net is None:
            raise ValueError(
                "PrivilegedCriticPolicy needs features_extractor_class SeatsExtractor with privileged=True"
            )
        self.mlp_extractor = ActorSliceExtractor(
            self.features_dim, extractor.actor_features_dim, self.net_arch, self.activation_fn, self.device
        )
