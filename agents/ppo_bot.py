"""A trained policy as a bot: `agents.make("path/to/model.safetensors")`, or the shipped `ppo` and `ppo_2p`.

The network runs with numpy (`agents.model_file.PolicyNetwork`), many times faster than
torch for one observation, and needs neither torch nor SB3. It comes from a policy file
(`.safetensors`, pickle-free, `agents.model_file`) or from an SB3 MaskablePPO checkpoint
(`.zip`, unpickled on load: your own files only; needs the `train` extra). Only a name
ending in `.zip` is ever read as a checkpoint.

A network of canonical grids (a policy file with `grids: canonical`, trained with `env.canonical`)
reads every grid in its canonical order (`skyjo_env.engine.symmetry`): the bot puts the grids of its
view in that order, and its logits (`view_logits`) and moves back in the real grid.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.base import check_plays
from agents.model_file import ModelLoadError, PolicyNetwork, load_policy
from agents.sb3_model import network_from_sb3
from skyjo_env.engine.actions import NUM_ACTIONS
from skyjo_env.engine.symmetry import canonical_view, rearrange_action
from skyjo_env.engine.view import SeatView
from skyjo_env.observation import StateEncoding, encode, encoder

#: `ppo`: the seats network, one for every table size, 2 to 8 players (configs/ppo_all_sizes.yaml).
SHIPPED_MODEL_ALL = Path(__file__).parent / "models" / "ppo_all.safetensors"
#: `ppo_ei`: `ppo` taught by its own search (expert iteration, `train/expert_iteration.py`).
SHIPPED_MODEL_EI = Path(__file__).parent / "models" / "ppo_ei.safetensors"
#: `ppo_2p`: the earlier agent, for 2 players only (the four-stage recipe; `skyjo_v0`).
SHIPPED_MODEL_2P = Path(__file__).parent / "models" / "ppo_2p.safetensors"

__all__ = ["SHIPPED_MODEL_2P", "SHIPPED_MODEL_ALL", "SHIPPED_MODEL_EI", "ModelLoadError", "PolicyBot", "load_network"]


def shipped_networks() -> dict[str, Path]:
    """The shipped networks' files by agent name."""
    return {"ppo": SHIPPED_MODEL_ALL, "ppo_ei": SHIPPED_MODEL_EI, "ppo_2p": SHIPPED_MODEL_2P}


def load_network(path: str | Path) -> PolicyNetwork:
    """The policy network of a model file: an SB3 checkpoint if the name ends in `.zip`, else a policy file;
    a shipped network's agent name (`ppo`, `ppo_ei`, `ppo_2p`) is its file."""
    path = shipped_networks().get(str(path), Path(path))
    if path.suffix == ".zip":
        return network_from_sb3(path)
    return load_policy(path)


class PolicyBot:
    """Plays the most probable legal action of a policy network (or samples it, if not deterministic).

    `model` is a model file's path or a `PolicyNetwork`. `act_batch` decides for many games
    with one forward pass; it picks what `act` would pick for each view in turn.
    """

    def __init__(self, model: str | Path | PolicyNetwork, deterministic: bool = True, seed: int | None = None) -> None:
        if isinstance(model, PolicyNetwork):
            self.path: Path | None = None
            self.name = "policy"
            self.network = model
        else:
            self.path = Path(model)
            self.name = self.path.stem
            self.network = load_network(self.path)
        self.deterministic = deterministic
        self.players = self.network.players
        self._encoders: dict[int, StateEncoding] = {}  # its own (PyEncoder remembers the last view it encoded)
        self.reset(seed)

    @property
    def num_players(self) -> int:
        return self.network.num_players

    @property
    def canonical(self) -> bool:
        """The network reads every grid in its canonical order (module doc)."""
        return self.network.canonical

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def action_logits(self, observation: np.ndarray) -> np.ndarray:
        """The network's 26 logits for one observation vector, as the network reads it: for a network of
        canonical grids, of a view in the canonical order, the logits in that order (`view_logits` takes
        a view and gives the logits of its real grid)."""
        return self.network.logits(observation)

    def view_logits(self, view: SeatView) -> np.ndarray:
        """The network's 26 logits for a seat view, encoded in the observation the network reads (for a
        network of canonical grids: of the view in the canonical order, each logit given back to its move
        in the real grid)."""
        if not self.canonical:
            return self.network.logits(self._encode(view))
        seen, back = self._canonical(view)
        return self.network.logits(self._encode(seen))[back]

    def act(self, view: SeatView, legal_actions: Sequence[int]) -> int:
        return self._choose(self.view_logits(view), legal_actions)

    def act_batch(self, views: Sequence[SeatView], legal_actions_list: Sequence[Sequence[int]]) -> list[int]:
        """One action per (view, legal actions) pair, from one forward pass over the batch."""
        if len(views) != len(legal_actions_list):
            raise ValueError(f"{len(views)} views but {len(legal_actions_list)} lists of legal actions")
        if not views:
            return []
        observations = np.empty((len(views), self.network.observation_size), dtype=np.float32)
        if not self.canonical:
            for row, view in enumerate(views):
                observations[row] = self._encode(view)
            return self.act_observations(observations, legal_actions_list)
        backs = []
        for row, view in enumerate(views):
            seen, back = self._canonical(view)
            observations[row] = self._encode(seen)
            backs.append(back)
        logits = self.network.logits(observations)
        return [self._choose(row[back], legal) for row, back, legal in zip(logits, backs, legal_actions_list)]

    @property
    def observation(self) -> str:
        """The observation version the network reads (`skyjo_v0`): what `act_observations` takes."""
        return self.network.observation

    def act_observations(self, observations: np.ndarray, legal_actions_list: Sequence[Sequence[int]]) -> list[int]:
        """One action per row of already encoded observations (the vector env's path: it encodes every
        game waiting on this policy in one call, then asks for all their moves in one forward pass).
        For a network of canonical grids the observations and the moves are those of games that keep
        their grids in the canonical order (`SkyjoBatch(canonical=True)`)."""
        if len(observations) != len(legal_actions_list):
            raise ValueError(f"{len(observations)} observations but {len(legal_actions_list)} lists of legal actions")
        logits = self.network.logits(observations)
        return [self._choose(row, legal) for row, legal in zip(logits, legal_actions_list)]

    @staticmethod
    def _canonical(view: SeatView) -> tuple[SeatView, np.ndarray]:
        """The view in the canonical order, and for each move of the real grid its index in that order."""
        seen, arrangements = canonical_view(view)
        mine = arrangements[0]
        return seen, np.array([rearrange_action(a, mine) for a in range(NUM_ACTIONS)], dtype=np.intp)

    def _encode(self, view: SeatView) -> np.ndarray:
        n = view.rules.num_players
        check_plays(self, n, f"model {self.path or self.name}")
        coder = self._encoders.get(n)
        if coder is None:
            coder = self._encoders[n] = encoder(self.network.observation, n)
        return encode(view, coder)

    def _choose(self, logits: np.ndarray, legal_actions: Sequence[int]) -> int:
        legal = np.asarray(legal_actions)
        legal_logits = logits[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(legal_logits))])
        p = np.exp(legal_logits - legal_logits.max())
        return int(self._rng.choice(legal, p=p / p.sum()))
