"""Warm start: behaviour cloning of a bot into the PPO policy before PPO trains it.

`demonstrations(bot, games, rules, ...)` plays seeded games with the bot in every seat and
records each decision: the acting seat's observation, its action mask, the bot's action
and the discounted return that seat went on to earn (the env's reward mode). `clone`
then trains the MaskablePPO policy on them with a supervised loop: the masked policy's
negative log-likelihood of the bot's action, plus the value loss against the returns, so
that PPO starts from the bot's play *and* a critic that already values it (a random
critic next to a cloned actor drags the actor away in the first updates).

A network bot (`ppo_ei`, a policy file) can be distilled instead (`demonstrations(...,
probabilities=True)`): each decision also keeps the bot's probabilities over the legal moves,
and `clone` fits the cross-entropy against them, not against the one move it played: where a
network is unsure, its move says little of what it would do (docs/training.md measures both).

Why a short loop of our own rather than the `imitation` library's BC: imitation's BC
trains `policy.evaluate_actions` without action masks (the bot's demonstrations would be
fitted against the full 26-way softmax, illegal moves included), it pins its own
stable-baselines3 range, and it brings rollout types we would only convert into; with
sb3-contrib's `evaluate_actions(obs, actions, action_masks=...)` the loop is twenty lines.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents import make as make_agent
from skyjo_env.engine import Rules, action_mask
from skyjo_env.engine.view import SeatView, seat_view
from skyjo_env.observation import OBSERVATION_VERSION, StateEncoding, encoder
from skyjo_env.observation.privileged import PrivilegedEncoder
from skyjo_env.observation.privileged import check_observation as check_privileged
from skyjo_env.seated import SeatedGame


@dataclass
class Demonstrations:
    """The decisions of a bot: observations (D, size) float32, masks (D, 26) bool, actions (D,) int64,
    returns (D,) float32 (the acting seat's discounted return from that decision on); with
    `probabilities` (D, 26) float32, a network bot's probabilities over the legal moves (0 elsewhere)."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    probabilities: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.actions)


def demonstrations(
    bot: str,
    games: int,
    rules: Rules | Mapping[int, Rules],
    seed: int = 0,
    reward: str = "relative",
    episode: str = "game",
    gamma: float = 0.995,
    progress: bool = True,
    weights: Sequence[float] | None = None,
    observation: str = OBSERVATION_VERSION,
    probabilities: bool = False,
    canonical: bool = False,
    privileged: bool = False,
) -> Demonstrations:
    """Every decision of `games` seeded games with `bot` in every seat (one bot object per seat).

    `rules`: one table's rules, or {table size: rules}, each game drawing its size (with
    `weights`, default even); several sizes need the `skyjo_v1` observation. A seat's rewards
    are credited to its last decision before they were earned, as the Gymnasium env credits
    the learner; returns are discounted by `gamma` per decision of that seat and restart at
    each episode (`episode="round"`: each round). Memory: one float32 observation a decision
    (496 floats at 2 players in skyjo_v0, 1831 in skyjo_v1; a 2-player game has about 300
    decisions, an 8-player one about 1,500).

    `probabilities`: also record the bot's probabilities over the legal moves (the softmax of its
    logits over them); the bot must be a network (`view_logits`), else a ValueError.

    `canonical`: the games keep every grid in its canonical order (`SeatedGame`'s `canonical`), for a
    network of canonical grids; a network bot must then read the grids in that order too.

    `privileged`: each observation is followed by the true cards (`skyjo_env.observation.privileged`),
    for a privileged critic (`ppo.critic: privileged`); needs the `skyjo_v1` observation.
    """
    tables = dict(rules) if isinstance(rules, Mapping) else {rules.num_players: rules}
    sizes = list(tables)
    p = np.ones(len(sizes)) if weights is None else np.asarray(weights, dtype=np.float64)
    if len(p) != len(sizes) or (p < 0).any() or p.sum() <= 0:
        raise ValueError(f"weights must give each of the {len(sizes)} table sizes a weight >= 0, got {weights}")
    sample = make_agent(bot)
    if canonical and hasattr(sample, "view_logits") and not getattr(sample, "canonical", False):
        raise ValueError(
            f"{bot!r} reads the grids as they are; games with the grids in their canonical order "
            "(canonical=True) need a bot that plays any arrangement (expert, greedy) or a network of canonical grids"
        )
    teacher = getattr(sample, "view_logits", None) if probabilities else None
    if probabilities and not callable(teacher):
        raise ValueError(f"probabilities=True needs a network bot (one with view_logits), and {bot!r} is not one")
    if privileged:
        check_privileged(observation)
    coders: dict[int, StateEncoding] = {n: encoder(observation, n) for n in sizes}
    if privileged:
        coders = {n: PrivilegedEncoder(coder) for n, coder in coders.items()}
    log = _Log()
    bar = _progress(games, f"warm start: {bot} plays {games} games", progress)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        n = sizes[int(rng.choice(len(sizes), p=p / p.sum()))] if len(sizes) > 1 else sizes[0]
        bots = [make_agent(bot) for _ in range(n)]
        for b in bots:
            b.reset(int(rng.integers(2**63)))
        game = SeatedGame(tables[n], bots, reward, episode, canonical=canonical)
        game.deal(int(rng.integers(2**63)))
        log.record(game, coders[n], teacher)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return Demonstrations(
        observations=np.asarray(log.observations, dtype=np.float32),
        masks=np.asarray(log.masks, dtype=bool),
        actions=np.asarray(log.actions, dtype=np.int64),
        returns=discounted_returns(log.seats, log.rewards, log.episode_ends, gamma),
        probabilities=np.asarray(log.probabilities, dtype=np.float32).reshape(-1, 26) if probabilities else None,
    )


@dataclass
class _Log:
    """Every decision of the games recorded so far, in order."""

    observations: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)  # what the decision's seat earned before its next one
    episode_ends: list[bool] = field(default_factory=list)  # the seat's last decision of an episode
    probabilities: list[np.ndarray] = field(default_factory=list)  # with a teacher: its probabilities

    def record(self, game: SeatedGame, coder: Any, teacher: Callable[[SeatView], np.ndarray] | None = None) -> None:
        """Play `game` (bots at every seat) to its end, recording each decision; with `teacher` (a view's
        26 logits) the softmax of its logits over the legal moves too."""
        state = game.state
        last: list[int | None] = [None] * game.rules.num_players  # each seat's latest decision

        def pay(seat: int) -> None:  # what `seat` earned since its latest decision goes to that decision
            earned = game.collect(seat)
            if last[seat] is not None:
                self.rewards[last[seat]] += earned  # type: ignore[index]

        while not state.is_finished:
            seat = state.current_player
            pay(seat)
            self.observations.append(coder.encode_state(state, seat))
            mask = action_mask(state)
            self.masks.append(mask)
            if teacher is not None:
                logits = teacher(seat_view(state, seat))
                self.probabilities.append(np.exp(masked_log_softmax(logits[None], mask[None]))[0])
            action = game.ask()
            self.actions.append(action)
            self.seats.append(seat)
            self.rewards.append(0.0)
            self.episode_ends.append(False)
            last[seat] = len(self.actions) - 1
            game.apply(action)
            if game.over:  # an episode ends (with episode="round", the game goes on to the next one)
                for s, decision in enumerate(last):
                    pay(s)
                    if decision is not None:
                        self.episode_ends[decision] = True
                last[:] = [None] * len(last)


def masked_log_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Each row's log-softmax over its legal actions (`masks`), -inf at the others.

    >>> np.exp(masked_log_softmax(np.array([[0.0, 5.0, 0.0]]), np.array([[True, False, True]]))).tolist()
    [[0.5, 0.0, 0.5]]
    """
    z = np.where(masks, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def discounted_returns(seats: list[int], rewards: list[float], episode_ends: list[bool], gamma: float) -> np.ndarray:
    """Per seat, backwards through that seat's own decisions: G = r + gamma * G_next, restarting after
    the decision that ends one of its episodes.

    >>> discounted_returns([0, 1, 0, 1], [0.0, 0.0, 1.0, -1.0], [False, False, True, True], 0.5).tolist()
    [0.5, -0.5, 1.0, -1.0]
    """
    returns = np.zeros(len(seats), dtype=np.float32)
    following: dict[int, float] = {}
    for i in range(len(seats) - 1, -1, -1):
        seat = seats[i]
        g = rewards[i] + (0.0 if episode_ends[i] else gamma * following.get(seat, 0.0))
        returns[i] = g
        following[seat] = g
    return returns


def _progress(total: int, desc: str, enabled: bool, unit: str = "game") -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True)


@dataclass
class CloneReport:
    """What `clone` measured: decisions trained on and held out, and on the held-out ones the share of
    the bot's actions that the policy's most probable legal action matches, and the value loss."""

    decisions: int
    held_out: int
    agreement: float
    value_loss: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "held_out": self.held_out,
            "agreement": self.agreement,
            "value_loss": self.value_loss,
        }

    def __str__(self) -> str:
        return (
            f"{self.decisions:,} decisions ({self.held_out:,} held out): the policy picks the bot's move "
            f"{self.agreement:.1%} of the time; value loss {self.value_loss:.4f}"
        )


@dataclass
class CloneTarget:
    """What `clone` trains: a policy's raw action logits and its value of a batch of observations
    (torch tensors), and the parameters behind them."""

    logits: Callable[[Any], Any]  # (B, D) -> (B, 26)
    values: Callable[[Any], Any]  # (B, D) -> (B,)
    parameters: Callable[[], Any]
    set_training: Callable[[bool], None]
    device: Any
    value_parameters: Callable[[], Any] | None = None  # the critic's own (for `clone(value_only=True)`)


def sb3_target(model: Any) -> CloneTarget:
    """A MaskablePPO model's policy as a `CloneTarget` (its own extractor, actor and critic)."""
    policy = model.policy

    def value_parameters() -> list[Any]:
        own = [*policy.mlp_extractor.value_net.parameters(), *policy.value_net.parameters()]
        hidden = getattr(policy.features_extractor, "hidden_net", None)  # a privileged critic's own encoder
        if hidden is not None:
            own += list(hidden.parameters())
        return own if policy.share_features_extractor else [*own, *policy.vf_features_extractor.parameters()]

    return CloneTarget(
        logits=lambda obs: policy.get_distribution(obs).distribution.logits,
        values=lambda obs: policy.predict_values(obs).flatten(),
        parameters=policy.parameters,
        set_training=policy.set_training_mode,
        device=policy.device,
        value_parameters=value_parameters,
    )


def clone(
    target: CloneTarget,
    demos: Demonstrations,
    epochs: int,
    learning_rate: float = 1e-3,
    batch_size: int = 512,
    value_weight: float = 0.5,
    seed: int = 0,
    progress: bool = True,
    value_only: bool = False,
) -> CloneReport:
    """Train `target` (`sb3_target(model)` for a MaskablePPO model) to play like `demos` for `epochs` passes.

    Loss: the masked policy's negative log-likelihood of the bot's action (a log-softmax over the
    legal actions only), or where `demos` has the bot's `probabilities` the cross-entropy against
    them (distillation), + `value_weight` x the squared error of the value against the return. A
    tenth of the decisions (at least one) is held out to measure the agreement reached. The
    policy's own optimizer (PPO's) is left untouched: the loop has its own Adam.

    `value_only`: train the critic's own layers on the value loss alone, the actor (and a features
    extractor shared with it) left exactly as it is: a critic for an actor loaded from a policy file.
    """
    import torch
    import torch.nn.functional as F

    device = target.device
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(demos))
    held = order[: max(1, len(demos) // 10)]
    train_idx = order[len(held) :]
    if len(train_idx) == 0:
        raise ValueError(f"too few demonstrations to train on ({len(demos)})")

    params = _trained_parameters(target, value_only)
    optimizer = torch.optim.Adam(params, lr=learning_rate)
    steps = epochs * -(-len(train_idx) // batch_size)
    what = "fitting the value" if value_only else "cloning"
    bar = _progress(steps, f"warm start: {what}, {epochs} epochs", progress, unit="batch")
    target.set_training(True)
    for _ in range(epochs):
        rng.shuffle(train_idx)
        for start in range(0, len(train_idx), batch_size):
            batch = train_idx[start : start + batch_size]
            obs, actions, masks, returns = _tensors(demos, batch, device)
            loss = value_weight * F.mse_loss(target.values(obs), returns)
            if not value_only:
                log_probs = _masked_log_probs(target, obs, masks)
                if demos.probabilities is None:
                    loss = loss - log_probs.gather(1, actions[:, None]).squeeze(1).mean()
                else:  # the illegal moves' -inf times their probability 0 left out
                    teacher = torch.as_tensor(demos.probabilities[batch], device=device)
                    loss = loss - (teacher * log_probs.masked_fill(~masks, 0.0)).sum(dim=1).mean()
            descend(optimizer, loss, params)
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    target.set_training(False)
    return CloneReport(len(train_idx), len(held), *_held_out_scores(target, demos, held))


def descend(optimizer: Any, loss: Any, params: list[Any], max_norm: float = 0.5) -> None:
    """One gradient step of `optimizer` on `loss`, the gradient's norm over `params` clipped to `max_norm`."""
    import torch

    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, max_norm)
    optimizer.step()


def _trained_parameters(target: CloneTarget, value_only: bool) -> list[Any]:
    """What `clone` trains: every parameter, or with `value_only` the critic's own."""
    if not value_only:
        return list(target.parameters())
    if target.value_parameters is None:
        raise ValueError("value_only needs a target that names its critic's parameters (value_parameters)")
    return list(target.value_parameters())


def _tensors(demos: Demonstrations, idx: np.ndarray, device: Any) -> tuple[Any, Any, Any, Any]:
    """The observations, actions, masks and returns of the decisions `idx`, as tensors on `device`."""
    import torch

    return (
        torch.as_tensor(demos.observations[idx], device=device),
        torch.as_tensor(demos.actions[idx], device=device),
        torch.as_tensor(demos.masks[idx], device=device),
        torch.as_tensor(demos.returns[idx], device=device),
    )


def _masked_log_probs(target: CloneTarget, obs: Any, masks: Any) -> Any:
    """The policy's log-probabilities over the legal actions only."""
    import torch

    return torch.log_softmax(target.logits(obs).masked_fill(~masks, float("-inf")), dim=1)


def _held_out_scores(target: CloneTarget, demos: Demonstrations, held: np.ndarray) -> tuple[float, float]:
    """On the held-out decisions: how often the policy's top move is the bot's, and the value's mean squared error."""
    import torch
    import torch.nn.functional as F

    agree, value_loss = 0, 0.0
    with torch.no_grad():
        for start in range(0, len(held), 4096):
            obs, actions, masks, returns = _tensors(demos, held[start : start + 4096], target.device)
            agree += int((_masked_log_probs(target, obs, masks).argmax(dim=1) == actions).sum())
            value_loss += float(F.mse_loss(target.values(obs), returns, reduction="sum"))
    return agree / len(held), value_loss / len(held)
